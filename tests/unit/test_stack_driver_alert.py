"""scripts/stack_driver.py counts a write whose socket dropped unanswered as one the page told its user
about: the alert it names must be the one assets/site.js shows (tests/e2e/test_write_in_flight.py)."""

from __future__ import annotations

import re

from app.settings import PROJECT_ROOT


def test_the_alert_the_stack_driver_counts_on_is_the_one_the_page_shows():
    driver = (PROJECT_ROOT / "scripts" / "stack_driver.py").read_text(encoding="utf-8")
    alert = re.search(r'^WRITE_CUT_ALERT = "([^"]+)"$', driver, re.MULTILINE)
    assert alert is not None
    site = (PROJECT_ROOT / "assets" / "site.js").read_text(encoding="utf-8")
    shown = re.search(r'var WRITE_CUT = "([^"]+)";', site)
    assert shown is not None
    assert shown.group(1).startswith(alert.group(1))
