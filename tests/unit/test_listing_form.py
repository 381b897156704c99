"""The wizard's per-step checks: each bad value is refused under its own field with a Spanish message."""

from __future__ import annotations

import json
from datetime import date

import pytest

from app.core.errors import InvalidInputError
from app.core.phone import normalize_chilean_mobile
from app.services.listing_form import Catalogues, clean_step, nationalities, parse_schedule, years_between

TODAY = date(2026, 11, 21)
CATALOGUES = Catalogues(tiers=frozenset({"t1"}), types=frozenset({"k1"}), services=frozenset({"s1", "s2"}))


def _clean(step, values, **kwargs):
    return clean_step(step, values, today=TODAY, catalogues=CATALOGUES, **kwargs)


def _refused(step, values, **kwargs) -> str:
    with pytest.raises(InvalidInputError) as refused:
        _clean(step, values, **kwargs)
    assert refused.value.message
    return refused.value.field


IDENTITY = {"document": "rut", "rut": "11111111-1", "birth_date": "2000/02/29", "nationality": "Chile"}


def test_identity_accepts_a_valid_rut_or_passport_and_an_adult():
    clean = _clean(1, IDENTITY)
    assert clean.advertiser == {
        "rut": "11.111.111-1",
        "passport": None,
        "birth_date": date(2000, 2, 29),
        "nationality": "Chile",
    }
    passport = _clean(1, {**IDENTITY, "document": "pasaporte", "passport": "ab 123-456", "nationality": "Venezuela"})
    assert passport.advertiser["passport"] == "AB123456" and passport.advertiser["rut"] is None


def test_identity_checks_only_the_document_chosen():
    """The page shows only the chosen document's field: what the other one holds is neither checked nor kept."""
    assert _clean(1, {**IDENTITY, "passport": "x#"}).advertiser["passport"] is None
    chosen = _clean(1, {**IDENTITY, "document": "pasaporte", "passport": "AB123456", "rut": "11.111.111-2"})
    assert chosen.advertiser["passport"] == "AB123456" and chosen.advertiser["rut"] is None


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"rut": "11.111.111-2"}, "rut"),
        ({"rut": ""}, "rut"),
        ({"document": "pasaporte", "passport": "x"}, "passport"),
        ({"document": "otro"}, "document"),
        ({"birth_date": "2008/11/22"}, "birth_date"),  # 17 years and 364 days
        ({"birth_date": "2027/01/01"}, "birth_date"),
        ({"birth_date": "2000/02/30"}, "birth_date"),
        ({"birth_date": "22/11/2008"}, "birth_date"),
        ({"nationality": "Narnia"}, "nationality"),
    ],
)
def test_identity_refusals(change, field):
    assert _refused(1, {**IDENTITY, **change}) == field


def test_eighteen_today_is_old_enough():
    assert _clean(1, {**IDENTITY, "birth_date": "2008/11/21"}).advertiser["birth_date"] == date(2008, 11, 21)
    assert years_between(date(2008, 11, 22), TODAY) == 17


def test_location_checks_city_commune_and_section():
    assert _clean(2, {"city_slug": "talca", "commune": "Talca", "section": "trans"}).listing["section"] == "trans"
    assert _refused(2, {"city_slug": "gotham", "commune": "Talca", "section": "mujeres"}) == "city_slug"
    assert _refused(2, {"city_slug": "talca", "commune": "Providencia", "section": "mujeres"}) == "commune"
    assert _refused(2, {"city_slug": "talca", "commune": "Talca", "section": "hombres"}) == "section"


def test_category_only_from_the_catalogues():
    assert _clean(3, {"tier_uid": "t1", "type_uid": "k1"}).listing == {"base_tier_uid": "t1"}
    assert _refused(3, {"tier_uid": "diamante", "type_uid": "k1"}) == "tier_uid"
    assert _refused(3, {"tier_uid": "t1", "type_uid": "zz"}) == "type_uid"


ABOUT = {"display_name": "  Camila   Rosa ", "age": "27", "description": "x" * 40, "curvy": "on"}


def test_about_cleans_the_name_and_flags():
    clean = _clean(4, ABOUT, services=["s1", "s1"])
    assert clean.listing["display_name"] == "Camila Rosa" and clean.listing["name_slug"] == "camila-rosa"
    assert clean.listing["curvy"] is True and clean.listing["porn_actress"] is False
    assert clean.services == ["s1"]


@pytest.mark.parametrize(
    ("change", "services", "field"),
    [
        ({"age": "17"}, [], "age"),
        ({"age": "veinte"}, [], "age"),
        ({"display_name": "!"}, [], "display_name"),
        ({"description": "corta"}, [], "description"),
        ({"description": "x" * 4001}, [], "description"),
        ({}, ["no-existe"], "services"),
    ],
)
def test_about_refusals(change, services, field):
    assert _refused(4, {**ABOUT, **change}, services=services) == field


def test_rates_read_chilean_money_and_refuse_nonsense():
    clean = _clean(5, {"price_hour_clp": "$60.000", "price_night_clp": " 300000 "})
    assert clean.listing["price_hour_clp"] == 60000 and clean.listing["price_night_clp"] == 300000
    assert clean.listing["price_half_hour_clp"] is None
    assert _refused(5, {"price_hour_clp": ""}) == "price_hour_clp"
    assert _refused(5, {"price_hour_clp": "10"}) == "price_hour_clp"
    assert _refused(5, {"price_hour_clp": "50000", "price_two_hours_clp": "-1"}) == "price_two_hours_clp"


def test_availability_schedule_and_visiting_dates():
    clean = _clean(6, {"visiting_from": "2026/11/25", "visiting_until": "2026/11/28"}, schedule={"lun": "10:00-20:00"})
    assert json.loads(clean.listing["schedule"]) == {"lun": "10:00-20:00"}
    assert clean.listing["visiting_until"] == date(2026, 11, 28)
    assert parse_schedule(clean.listing["schedule"])["mar"] == ""
    assert _refused(6, {}, schedule={"lun": "diez a veinte"}) == "schedule"
    assert _refused(6, {}, schedule={"feriado": "10:00-12:00"}) == "schedule"
    assert _refused(6, {"visiting_from": "2026/11/25"}) == "visiting_until"
    assert _refused(6, {"visiting_from": "2026/11/25", "visiting_until": "2026/11/20"}) == "visiting_until"
    assert _refused(6, {"visiting_from": "2026/11/01", "visiting_until": "2026/11/10"}) == "visiting_until"


def test_photos_step_needs_one_to_twelve():
    assert _refused(7, {}, photo_count=0) == "photos"
    assert _refused(7, {}, photo_count=13) == "photos"
    _clean(7, {}, photo_count=12)


def test_contact_takes_chilean_mobiles_only():
    clean = _clean(8, {"phone": "9 8765 4321", "whatsapp": ""})
    assert clean.listing == {"phone": "+56 9 8765 4321", "whatsapp": ""}
    assert _refused(8, {"phone": "+56 2 2123 4567"}) == "phone"
    assert _refused(8, {"phone": "987654321", "whatsapp": "+1 202 555 0101"}) == "whatsapp"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("912345678", "+56 9 1234 5678"),
        ("(+56) 9 6123-4567", "+56 9 6123 4567"),
        ("56987654321", "+56 9 8765 4321"),
        ("221234567", None),
        ("9 1234 567", None),
        ("+56 9 1234 56789", None),
        ("", None),
        (None, None),
    ],
)
def test_chilean_mobile_numbers(text, expected):
    assert normalize_chilean_mobile(text) == expected


def test_unknown_step_and_non_mapping_input_are_refused():
    with pytest.raises(InvalidInputError):
        _clean(12, {})
    with pytest.raises(InvalidInputError):
        _clean(2, ["city_slug"])


def test_nationalities_come_from_cldr_with_chile_first():
    names = nationalities()
    assert names[0] == "Chile" and "Perú" in names and "Venezuela" in names and len(names) > 200


def _problems(step, values, **kwargs) -> dict[str, str]:
    with pytest.raises(InvalidInputError) as refused:
        _clean(step, values, **kwargs)
    return refused.value.fields


@pytest.mark.parametrize("written", ["12-04-1996", "12/04/1996", "12.04.1996", "1996/04/12", "1996-4-12"])
def test_birth_date_as_chileans_write_it(written):
    assert _clean(1, {**IDENTITY, "birth_date": written}).advertiser["birth_date"] == date(1996, 4, 12)


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("12-13-1996", "el mes 13 no existe"),
        ("31/04/1996", "el día 31 no existe: abril de 1996 tiene 30 días"),
        ("29.02.2023", "febrero de 2023 tiene 28 días"),
        ("doce de abril", "No entendemos «doce de abril» como fecha"),
        ("12/04/96", "No entendemos «12/04/96» como fecha"),
    ],
)
def test_an_unreadable_date_says_what_was_not_understood(written, says):
    assert says in _problems(1, {**IDENTITY, "birth_date": written})["birth_date"]


def test_under_age_says_the_age_the_date_gives():
    assert _problems(1, {**IDENTITY, "birth_date": "12-04-2010"}) == {
        "birth_date": "Debes tener 18 años o más para publicar: con esa fecha tienes 16."
    }


def test_every_problem_of_a_step_at_once():
    assert set(_problems(1, {"document": "rut", "rut": "1-2", "birth_date": "x", "nationality": ""})) == {
        "rut",
        "birth_date",
        "nationality",
    }
    assert set(_problems(2, {})) == {"city_slug", "commune", "section"}
    assert set(_problems(3, {})) == {"tier_uid", "type_uid"}
    assert set(_problems(4, {}, services=["no-existe"])) == {"display_name", "age", "description", "services"}
    assert set(_problems(5, {"price_half_hour_clp": "5", "price_night_clp": "mil"})) == {
        "price_hour_clp",
        "price_half_hour_clp",
        "price_night_clp",
    }
    assert set(_problems(6, {"visiting_from": "ayer"}, schedule={"lun": "10:00-"})) == {"schedule", "visiting_from"}
    assert set(_problems(8, {"phone": "", "whatsapp": "123"})) == {"phone", "whatsapp"}


def test_messages_name_what_is_wrong_with_the_value_given():
    messages = _problems(4, {"display_name": "A", "age": "17", "description": "corta"})
    assert messages == {
        "display_name": "El nombre «A» es demasiado corto: al menos 2 caracteres.",
        "age": "La edad del aviso debe ser 18 años o más: escribiste 17.",
        "description": "La descripción es demasiado corta: tiene 5 caracteres y debe tener al menos 30.",
    }
    assert "demasiado largo: tiene 61 caracteres" in _problems(4, {**ABOUT, "display_name": "n" * 61})["display_name"]
    assert _problems(1, {**IDENTITY, "document": "pasaporte", "passport": "AB12"})["passport"] == (
        "El pasaporte es demasiado corto: tiene 4 caracteres y debe tener de 5 a 20."
    )
    assert "solo letras" in _problems(1, {**IDENTITY, "document": "pasaporte", "passport": "AB12#45"})["passport"]
    assert "«+1 202» no es un celular chileno" in _problems(8, {"phone": "+1 202"})["phone"]


def test_the_schedule_is_explained_in_the_time_pickers_terms():
    message = _problems(6, {}, schedule={"lun": "10:00-", "mar": "-20:00", "mie": "10:00-20:00"})["schedule"]
    assert message == "Lunes y Martes: elige la hora de inicio y la de término, o marca «No atiendo»."
    assert "10:00-20:00" not in message
