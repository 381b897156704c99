"""The form-state base (app/states/forms.py) through the account and report forms that use it.

busy goes back to False whatever the service call did, a refusal naming a field the
form shows lands under that field, and any other refusal is shown on the form.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from sqlmodel import Session, select

import app.states.advertiser.wizard as wizard_module
from app.core.errors import ConflictError, InvalidInputError, validated_input
from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import Listing, ProfileId, Report
from app.services import accounts
from app.states.account import LoginState
from app.states.advertiser.wizard import WizardState
from app.states.report import ReportState
from tests.abuse import use_storage
from tests.factories import make_account, open_session
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


def test_every_refused_field_shown_lands_under_it_the_others_on_the_form(monkeypatch):
    refusal = InvalidInputError(fields={"email": "El correo no sirve.", "profile": "Elige una opción."})
    monkeypatch.setattr("app.states.account._off_loop", _failing(refusal))
    state = _ready_login()
    invoke(state, "sign_up", form_data=_sign_up_form())
    assert state.field_errors == {"email": "El correo no sirve."}
    assert state.error == "Elige una opción."
    invoke(state, "clear_field_error", field="email")
    assert state.field_errors == {} and state.error == "Elige una opción."


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
        validated_input(accounts.SignUpInput, _sign_up_form(profile="nadie"))
    assert refused.value.field == "profile"
    assert refused.value.message == "Elige si quieres ver avisos o publicar avisos."
    # A refusal of the whole form (the two passwords differ) names no field.
    with pytest.raises(InvalidInputError) as refused:
        validated_input(accounts.SignUpInput, _sign_up_form(password_confirm="otra-cosa-distinta-1"))
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
    def boom(**_kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr("app.states.report.create_report", boom)
    state = _ready_report()
    with pytest.raises(RuntimeError):
        invoke(state, "submit", form_data=REPORT)
    assert state.busy is False and state.sent is False


# ---------------------------------------------------------------- the wizard's forms


IDENTITY_FORM = {"step": "1", "document": "rut", "rut": "12.345.678-5", "birth_date": "12-04-1996"}


@pytest.fixture
def advertiser(app_database) -> str:
    """A session token of an advertiser."""
    with Session(get_engine(), expire_on_commit=False) as session:
        user = make_account(
            session, LocalProvider(engine=get_engine()), "anuncia@correo.cl", profile=ProfileId.PROFESOR
        )
        return open_session(session, user.uid)


def _wizard(token: str) -> WizardState:
    state, _ = client_states(WizardState, token)
    return state


def test_a_wizard_step_shows_every_problem_at_once_and_saves_nothing(advertiser):
    state = _wizard(advertiser)
    invoke(state, "save", form_data={"step": "1", "document": "rut", "rut": "1-2", "birth_date": "31/04/1996"})
    assert set(state.field_errors) == {"rut", "birth_date", "nationality"}
    assert "el día 31 no existe" in state.field_errors["birth_date"]
    assert state.error == "" and state.busy is False and state.step == 1 and state.uid == ""
    with Session(get_engine()) as session:
        assert session.exec(select(Listing)).all() == []


def test_a_changed_field_loses_only_its_own_message(advertiser):
    state = _wizard(advertiser)
    invoke(state, "save", form_data={"step": "1", "document": "rut", "rut": "", "birth_date": ""})
    invoke(state, "clear_field_error", field="rut")
    assert "rut" not in state.field_errors and {"birth_date", "nationality"} <= set(state.field_errors)
    invoke(state, "clear_field_error", field=["not", "a", "name"])
    assert {"birth_date", "nationality"} <= set(state.field_errors)
    invoke(state, "pick_date", field="birth_date", value="1996-04-12")
    assert "birth_date" not in state.field_errors and state.values["birth_date"] == "12-04-1996"


def test_a_second_submit_of_a_step_already_saved_is_ignored(advertiser):
    state = _wizard(advertiser)
    first = IDENTITY_FORM | {"nationality": "Chile"}
    invoke(state, "save", form_data=first)
    assert state.step == 2 and state.field_errors == {} and state.busy is False
    # The second click of a double click arrives after the step moved on: same form, step 1.
    invoke(state, "save", form_data=first)
    assert state.step == 2 and state.field_errors == {} and state.error == ""
    # A form without its step number is not taken for the step shown either.
    invoke(state, "save", form_data={"city_slug": "talca"})
    assert state.step == 2 and state.field_errors == {}
    # The step shown, submitted empty, gets its own messages.
    invoke(state, "save", form_data={"step": "2"})
    assert set(state.field_errors) == {"city_slug", "commune", "section"}


def test_the_button_is_busy_while_the_step_is_saved(advertiser, monkeypatch):
    state = _wizard(advertiser)
    seen: list[bool] = []
    real = wizard_module.run_service

    async def watch(*args, **kwargs):
        seen.append(state.busy)
        return await real(*args, **kwargs)

    monkeypatch.setattr(wizard_module, "run_service", watch)
    events = invoke(state, "save", form_data=IDENTITY_FORM | {"nationality": "Chile"})
    assert seen and all(seen) and state.busy is False and state.step == 2
    assert events == []


def test_no_step_moves_on_while_photos_upload(advertiser):
    state = _wizard(advertiser)
    state.processing = True
    invoke(state, "save", form_data=IDENTITY_FORM | {"nationality": "Chile"})
    assert state.step == 1 and state.uid == ""


def test_no_step_moves_on_from_the_moment_photos_are_chosen(advertiser):
    """Chosen, not yet sent: no progress event came, and the upload's own handler has not started."""
    state = _wizard(advertiser)
    invoke(state, "start_upload")
    assert state.uploading is True and state.upload_percent == 0
    invoke(state, "show_upload_progress", progress={"progress": 1})
    invoke(state, "save", form_data=IDENTITY_FORM | {"nationality": "Chile"})
    assert state.step == 1 and state.uid == "" and state.uploading is True
    events = invoke(state, "upload_photos", files=[])
    assert state.processing is False and state.uploading is True  # until the upload's own follow-up event
    assert [event.fn.__name__ for event in events] == ["finish_upload"]
    invoke(state, "finish_upload")
    assert state.uploading is False and state.uploads == 1  # the pending photos' block mounts again
    invoke(state, "save", form_data=IDENTITY_FORM | {"nationality": "Chile"})
    assert state.step == 2


def test_files_the_browser_refused_are_listed_with_their_reason(advertiser):
    state = _wizard(advertiser)
    invoke(
        state,
        "refuse_files",
        files=[["./enorme.jpg", "file-too-large"], ["C:\\fotos\\nota.txt", "file-invalid-type"], ["x", "rare"], "bad"],
    )
    assert state.refused == [
        ["enorme.jpg", "pesa más de 15 MB."],
        ["nota.txt", "no es una foto JPEG, PNG, WebP o HEIC."],
        ["x", "no es una foto que podamos recibir."],
    ]
    assert state.refused_summary == "3 archivos no se subieron: el motivo de cada uno está en la lista de fotos."
