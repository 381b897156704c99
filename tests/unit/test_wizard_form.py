"""How the wizard reads a submitted step form: strings only, checkboxes as "true"/"", services and schedule."""

from __future__ import annotations

from app.states.advertiser.wizard import WizardState, _form_values, _hours, _rate_label


def test_only_the_steps_fields_as_strings():
    values, services, schedule = _form_values(
        {"display_name": "Rocío", "age": "27", "rut": "1-9", "description": ["not", "text"], "extra": "x"}, 4
    )
    assert values == {
        "display_name": "Rocío",
        "age": "27",
        "description": "",
        "porn_actress": "",
        "curvy": "",
    }
    assert services == [] and schedule == {}


def test_checkboxes_and_services():
    values, services, _ = _form_values({"curvy": "on", "service_abc": "on", "service_def": "on"}, 4)
    assert values["curvy"] == "true" and values["porn_actress"] == ""
    assert services == ["abc", "def"]


def test_schedule_rows_become_ranges_or_closed_days():
    form = {
        "from_lun": "10:00",
        "to_lun": "20:00",
        "from_mar": "10:00",
        "to_mar": "20:00",
        "closed_mar": "on",
        "from_mie": "",
        "to_mie": "",
    }
    _, _, schedule = _form_values(form, 6)
    assert schedule == {"lun": "10:00-20:00", "mar": "", "mie": ""}


def test_anything_but_a_dict_reads_as_empty():
    assert _form_values("x", 8) == ({"phone": "", "whatsapp": ""}, [], {})


def test_hours_and_rates_for_display():
    assert _hours("10:00-20:00") == ["10:00", "20:00", ""]
    assert _hours("") == ["", "", "true"]
    assert _rate_label("85000") == "$85.000"
    assert _rate_label("85.000 pesos") == "$85.000"
    assert _rate_label("") == ""


def _input_props(component) -> str:
    return str(component.render())


def test_form_fields_leave_out_empty_attributes():
    from app.components.forms import text_field

    plain = _input_props(text_field("f", "Nombre", "name"))
    assert "aria-describedby" not in plain and "autoComplete" not in plain
    with_errors = _input_props(
        text_field("f", "Correo", "email", auto_complete="email", errors=WizardState.field_errors)
    )
    assert 'autoComplete:"email"' in with_errors
    # The attribute is null (left out by React) while there is no message, never "".
    assert '? "f-email-error" : null)' in with_errors


def test_the_file_input_of_an_upload_zone_has_a_name():
    import reflex as rx

    from app.components.forms import labelled_upload

    assert '"aria-label":"Elegir fotos"' in _input_props(labelled_upload("Elegir fotos", rx.el.p("Arrastra"), id="x"))
