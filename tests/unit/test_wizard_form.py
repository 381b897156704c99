"""How the wizard reads a submitted step form: strings only, checkboxes as "true"/"", services and schedule."""

from __future__ import annotations

from app.states.wizard import _form_values, _hours, _rate_label


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
        "has_video": "",
    }
    assert services == [] and schedule == {}


def test_checkboxes_and_services():
    values, services, _ = _form_values({"curvy": "on", "service_abc": "on", "service_def": "on"}, 4)
    assert values["curvy"] == "true" and values["has_video"] == ""
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
