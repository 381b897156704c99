"""The report form's server-side rules: validation, anti-spam and throttling."""

from __future__ import annotations

import pytest
from sqlmodel import select

from app.core.errors import InvalidInputError, RateLimitedError
from app.models import Report
from app.services.reports import create_report
from tests.abuse import install_clock, use_storage
from tests.factories import make_listing, make_owner

MESSAGE = "Creo que la persona del aviso es menor de edad, por las fotos y el texto."


@pytest.fixture(autouse=True)
def fresh_counters(monkeypatch):
    use_storage(monkeypatch, "memory")


def _send(session, client="cliente-1", seconds=10.0, honeypot="", **data):
    payload = {"kind": "menor", "message": MESSAGE, **data}
    return create_report(session=session, data=payload, client_key=client, honeypot=honeypot, seconds_on_form=seconds)


def _count(session) -> int:
    return len(session.exec(select(Report)).all())


def test_a_valid_report_is_stored_with_its_listing(session):
    listing = make_listing(session, make_owner(session, "o@example.cl"))
    report = _send(session, listing_uid=listing.uid, contact="testigo@example.cl")
    assert (report.kind, report.listing_uid, report.contact, report.status) == (
        "menor",
        listing.uid,
        "testigo@example.cl",
        "nuevo",
    )
    assert _count(session) == 1


@pytest.mark.parametrize(
    ("data", "message", "field"),
    [
        ({"message": "   corto   "}, "Describe la situación con al menos 20 caracteres", "message"),
        ({"message": "x" * 5001}, "no puede superar los 5000", "message"),
        ({"message": MESSAGE + " http://a http://b http://c http://d"}, "más de 3 enlaces", "message"),
        ({"kind": "inventado"}, "Elige el tipo de problema que quieres reportar", "kind"),
        ({"contact": "hola"}, "Indica un correo electrónico o un teléfono válido", "contact"),
        ({"listing_uid": "NoExisteEstaPublicac"}, "La publicación indicada no existe", "listing_uid"),
    ],
)
def test_bad_input_is_refused_with_a_spanish_message_under_its_field_and_nothing_stored(session, data, message, field):
    with pytest.raises(InvalidInputError, match=message) as refused:
        _send(session, **data)
    assert refused.value.field == field  # the form shows the message under that field
    assert _count(session) == 0


def test_phone_contact_is_accepted(session):
    assert _send(session, contact="+56 9 1234 5678").contact == "+56 9 1234 5678"


def test_bots_are_refused(session):
    with pytest.raises(InvalidInputError, match="Revisa el formulario e inténtalo de nuevo") as refused:
        _send(session, honeypot="http://spam.example")
    assert refused.value.field is None  # nothing tells a bot which field gave it away
    with pytest.raises(InvalidInputError):
        _send(session, seconds=0.5)
    assert _count(session) == 0


def test_a_client_may_send_three_reports_per_ten_minutes(session, monkeypatch):
    clock = install_clock(monkeypatch)
    for _ in range(3):
        _send(session)
    clock.advance(60)
    with pytest.raises(RateLimitedError, match="Espera 9 minutos"):
        _send(session)
    _send(session, client="otro-cliente")
    clock.advance(9 * 60 + 1)
    _send(session)
    assert _count(session) == 5


def test_refused_input_does_not_use_up_the_limit(session):
    for _ in range(3):
        with pytest.raises(InvalidInputError):
            _send(session, kind="inventado")
    for _ in range(3):
        _send(session)
