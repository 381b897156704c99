"""PostgreSQL goes down and comes back under the running app: /healthz says
503 in JSON meanwhile, the app recovers by itself, and a report it had
confirmed is still there.

Named to run last in tests/e2e: it stops the PostgreSQL cluster every other
test shares, and it waits until the site is fully back before it ends. Tests on
other xdist workers (or in other runs on this machine) hold the cluster "in use"
(tests/conftest.py): the stop waits for them, and they wait for the restart.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable

import httpx
import pytest
from playwright.sync_api import Page, expect
from sqlalchemy.engine import make_url
from sqlmodel import Session, select

from app.db import make_engine
from app.models import Report
from app.services.reports import MIN_FILL_SECONDS
from tests.conftest import pg_server_url, postgresql_cluster_to_itself
from tests.e2e.conftest import CITY, accept_age

pytestmark = pytest.mark.e2e

OUTAGE_TIMEOUT = 30
RECOVERY_TIMEOUT = 90


def _cluster(action: str) -> None:
    """Start or stop (immediately, like a crash) the local cluster of TEST_DATABASE_URL."""
    versions = sorted(os.listdir("/etc/postgresql"), key=lambda v: [int(p) for p in v.split(".")])
    command = ["pg_ctlcluster", "--skip-systemctl-redirect", versions[-1], "main", action]
    if action == "stop":
        command += ["-m", "immediate"]
    as_root = [] if os.geteuid() == 0 else ["sudo", "-n"]
    done = subprocess.run(as_root + command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, f"{' '.join(command)} failed: {done.stderr}"


def _pg_ready() -> bool:
    url = make_url(pg_server_url())
    probe = ["pg_isready", "-q", "-h", url.host or "127.0.0.1", "-p", str(url.port or 5432)]
    return subprocess.run(probe, timeout=10).returncode == 0


def _wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.25)
    pytest.fail(f"{what} within {timeout} s")


def _reports(database_url: str, message: str) -> list[Report]:
    engine = make_engine(database_url)
    try:
        with Session(engine) as session:
            return list(session.exec(select(Report).where(Report.message == message)).all())
    finally:
        engine.dispose()


def _report(page: Page, message: str, listing_uid: str) -> None:
    """Send the public report form about a listing and wait for the site to confirm it.

    The listing field is filled by the page's load handler, which also starts
    the form's anti-spam timer: once it shows this uid, the page is live.
    """
    page.goto(f"/disclaimer/report?publicacion={listing_uid}")
    form = page.get_by_role("form", name="Formulario de reporte")
    expect(form.get_by_label("Publicación (opcional)")).to_have_value(listing_uid)
    form.get_by_label("Tipo de problema").select_option("otro")
    form.get_by_label("¿Qué está pasando?").fill(message)
    page.wait_for_timeout(MIN_FILL_SECONDS * 1000 + 200)  # the form's anti-spam minimum, not a synchronisation
    form.get_by_role("button", name="Enviar reporte").click()
    expect(page.get_by_role("status").get_by_role("heading", name="Reporte enviado")).to_be_visible()


def _wait_for_health(site, status: int, timeout: float) -> httpx.Response:
    """Poll /healthz until it answers ``status``; fail if it hangs or never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            response = httpx.get(f"{site.url}/healthz", timeout=10)
        except httpx.TimeoutException:
            pytest.fail("/healthz hung instead of answering")
        except httpx.TransportError:
            response = None
        if response is not None and response.status_code == status:
            return response
        time.sleep(0.25)
    pytest.fail(f"/healthz did not answer {status} within {timeout} s")


def test_the_site_survives_a_database_restart_without_losing_a_confirmed_write(page: Page, site):
    message = "Reporte enviado antes de reiniciar la base de datos, para comprobar que no se pierde."
    _report(page, message, site.uids["base"])
    assert len(_reports(site.database_url, message)) == 1

    with postgresql_cluster_to_itself():
        _cluster("stop")
        try:
            outage = _wait_for_health(site, 503, OUTAGE_TIMEOUT)
            assert outage.json() == {"status": "unavailable", "database": "unreachable"}
        finally:
            _cluster("start")
            _wait_for(_pg_ready, RECOVERY_TIMEOUT, "PostgreSQL did not accept connections again")

    assert _wait_for_health(site, 200, RECOVERY_TIMEOUT).json() == {"status": "ok"}
    ssg = httpx.get(f"{site.url}/escorts-ssg/{CITY}", timeout=10)
    assert ssg.status_code == 200 and site.names["diamante"] in ssg.text
    page.goto(f"/escorts/{CITY}")
    accept_age(page)
    expect(page.get_by_test_id("listing-card").filter(has_text=site.names["diamante"])).to_have_count(1)

    assert len(_reports(site.database_url, message)) == 1
