"""The form-state base (app/states/forms.py) through the account and report forms that use it.

busy goes back to False whatever the service call did, a refusal naming a field the
form shows lands under that field, and any other refusal is shown on the form.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from sqlmodel import Session, select

from app.db import get_engine
from app.identity import accounts
from app.models import Report
from app.services.errors import ConflictError, InvalidInputError
from app.states.account import LoginState
from app.states.report import ReportState
from tests.abuse import use_storage
from tests.handlers import client_states, invoke

PASSWORD = "cordillera-de-los-andes-7"


def _sign_up_form(**changes) -> dict:
    form = {
        "email": "nueva@correo.cl",
        "password": PASSWORD,
        "password_confirm": PASSWORD,
        "profile": "cliente",
        "adult": "on",
    }
    return form | changes


def _ready_login() -> LoginState:
    state, _ = client_states(LoginState)
    invoke(state, "load")
    assert state.busy is False
    return state


def _failing(exc: Exception):
    async def fail(*_args, **_kwargs):
        raise exc

    return fail


def test_busy_is_reset_after_an_unexpected_error(monkeypatch):
    monkeypatch.setattr("app.states.account._off_loop", _failing(RuntimeError("boom")))
    state = _ready_login()
    with pytest.raises(RuntimeError):
        invoke(state, "sign_up", form_data=_sign_up_form())
    assert state.busy is False
    # The form is usable again: the next submission reaches the service.
    with pytest.raises(RuntimeError):
        invoke(state, "sign_in", form_data={"email": "alguien@correo.cl", "password": PASSWORD})
    assert state.busy is False


def test_busy_is_reset_and_the_message_shown_after_a_service_error(monkeypatch):
    monkeypatch.setattr("app.states.account._off_loop", _failing(ConflictError("No se pudo.")))
    state = _ready_login()
    events = invoke(state, "sign_up", form_data=_sign_up_form())
    assert events == []
    assert state.busy is False
    assert state.error == "No se pudo." and state.field_errors == {}


def test_a_refusal_naming_a_shown_field_lands_under_it(monkeypatch):
    monkeypatch.setattr(
        "app.states.account._off_loop", _failing(InvalidInputError("El correo no sirve.", field="email"))
    )
    state = _ready_login()
    invoke(state, "sign_up", form_data=_sign_up_form())
    assert state.field_errors == {"email": "El correo no sirve."}
    assert state.error == "" and state.busy is False
    # Switching forms clears it.
    invoke(state, "select_tab", tab="ingresar")
    assert state.field_errors == {} and state.error == ""


def test_a_refusal_naming_a_field_the_form_does_not_show_stays_on_the_form(monkeypatch):
    monkeypatch.setattr(
        "app.states.account._off_loop", _failing(InvalidInputError("Elige una opción.", field="profile"))
    )
    state = _ready_login()
    invoke(state, "sign_up", form_data=_sign_up_form())
    assert state.error == "Elige una opción." and state.field_errors == {}


def test_sign_in_stays_busy_while_the_landing_page_loads(monkeypatch):
    async def signed(*_args, **_kwargs):
        return SimpleNamespace(ticket="ticket", actor=SimpleNamespace(profile_uid="cliente"))

    monkeypatch.setattr("app.states.account._off_loop", signed)
    state = _ready_login()
    events = invoke(state, "sign_in", form_data={"email": "alguien@correo.cl", "password": PASSWORD})
    assert events and state.busy is True and state.error == ""


def test_an_invalid_e_mail_is_shown_under_the_e_mail_field(app_database):
    state = _ready_login()
    invoke(state, "sign_up", form_data=_sign_up_form(email="no-es-un-correo"))
    assert state.field_errors == {"email": "El correo electrónico no es válido."}
    assert state.error == "" and state.busy is False


def test_the_validation_error_names_its_field():
    with pytest.raises(InvalidInputError) as refused:
        accounts._parsed(accounts.SignUpInput, _sign_up_form(profile="nadie"))
    assert refused.value.field == "profile"
    assert refused.value.message == "Elige si quieres ver avisos o publicar avisos."
    # A refusal of the whole form (the two passwords differ) names no field.
    with pytest.raises(InvalidInputError) as refused:
        accounts._parsed(accounts.SignUpInput, _sign_up_form(password_confirm="otra-cosa-distinta-1"))
    assert refused.value.field is None
    assert refused.value.message == "Las contraseñas no coinciden."


REPORT = {"kind": "trata", "message": "La persona del aviso parece estar controlada por otra persona.", "contact": ""}


def _ready_report() -> ReportState:
    state, _ = client_states(ReportState)
    invoke(state, "load")
    state._shown_at = time.monotonic() - 60  # filled in a minute, as a person would
    return state


def _stored_reports() -> list[Report]:
    with Session(get_engine()) as session:
        return list(session.exec(select(Report)).all())


def test_a_report_refusal_lands_under_its_field_then_the_report_is_sent(app_database, monkeypatch):
    use_storage(monkeypatch, "memory")
    state = _ready_report()
    invoke(state, "submit", form_data=REPORT | {"message": "corto"})
    assert state.field_errors == {"message": "Describe la situación con al menos 20 caracteres."}
    assert state.error == "" and state.busy is False and state.sent is False
    invoke(state, "submit", form_data=REPORT | {"contact": "hola"})
    assert state.field_errors == {
        "contact": "Indica un correo electrónico o un teléfono válido, o deja el contacto vacío."
    }
    events = invoke(state, "submit", form_data=REPORT)
    assert state.sent is True and state.field_errors == {} and state.busy is False
    assert events  # the thank-you toast
    assert [(r.kind, r.message) for r in _stored_reports()] == [(REPORT["kind"], REPORT["message"])]
    invoke(state, "write_again")
    assert state.sent is False


def test_a_bot_filling_the_trap_field_gets_a_form_level_refusal(app_database, monkeypatch):
    use_storage(monkeypatch, "memory")
    state = _ready_report()
    invoke(state, "submit", form_data=REPORT | {"website": "http://spam.example"})
    assert state.error.startswith("No pudimos aceptar el reporte.") and state.field_errors == {}
    assert state.busy is False and state.sent is False
    assert _stored_reports() == []


def test_the_report_form_is_usable_again_after_an_unexpected_error(monkeypatch):
    def boom(*_args):
        raise RuntimeError("boom")

    monkeypatch.setattr("app.states.report._store", boom)
    state = _ready_report()
    with pytest.raises(RuntimeError):
        invoke(state, "submit", form_data=REPORT)
    assert state.busy is False and state.sent is False
