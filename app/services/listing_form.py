"""The listing wizard's steps as data, and the server-side check of each step.

Pure functions: a step's form values (strings, as a browser sends them) go in,
the cleaned column values come out, or an InvalidInputError naming the field
with a Spanish message. ``app.services.my_listings`` stores what comes out
(a draft after every step) and runs every step again before sending, since a
client can skip steps or send anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from typing import Any

from babel import Locale

from app.core.dates import parse_date
from app.core.geo import city_by_slug, commune_names_for_city
from app.core.phone import normalize_chilean_mobile
from app.core.rut import format_rut, is_valid_rut
from app.core.text import slugify
from app.models import Section
from app.services.errors import InvalidInputError


@dataclass(frozen=True)
class WizardStep:
    number: int
    title: str
    fields: tuple[str, ...]


STEPS: tuple[WizardStep, ...] = (
    WizardStep(1, "Identidad", ("document", "rut", "passport", "birth_date", "nationality")),
    WizardStep(2, "Ubicación", ("city_slug", "commune", "section")),
    WizardStep(3, "Categoría", ("tier_uid", "type_uid")),
    WizardStep(4, "Tu aviso", ("display_name", "age", "description", "porn_actress", "curvy", "has_video", "services")),
    WizardStep(5, "Tarifas", ("price_hour_clp", "price_half_hour_clp", "price_two_hours_clp", "price_night_clp")),
    WizardStep(6, "Disponibilidad", ("schedule", "visiting_from", "visiting_until")),
    WizardStep(7, "Fotos", ("photos",)),
    WizardStep(8, "Contacto", ("phone", "whatsapp")),
    WizardStep(9, "Revisar y enviar", ()),
)
STEP_BY_NUMBER = {step.number: step for step in STEPS}
PHOTO_STEP = 7
SEND_STEP = 9

ADULT_AGE = 18
MAX_AGE = 99
MAX_SERVICES = 20
MIN_PRICE = 1_000
MAX_PRICE = 10_000_000
MAX_VISIT_DAYS = 60
DISPLAY_NAME_MAX = 60
DESCRIPTION_MIN = 30
DESCRIPTION_MAX = 4000
PASSPORT = re.compile(r"[A-Z0-9]{5,20}")
HOUR_RANGE = re.compile(r"([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]|24):([0-5]\d)")
WEEKDAYS: tuple[tuple[str, str], ...] = (
    ("lun", "Lunes"),
    ("mar", "Martes"),
    ("mie", "Miércoles"),
    ("jue", "Jueves"),
    ("vie", "Viernes"),
    ("sab", "Sábado"),
    ("dom", "Domingo"),
)
WEEKDAY_LABELS = dict(WEEKDAYS)
DOCUMENT_RUT = "rut"
DOCUMENT_PASSPORT = "pasaporte"
TRUE_VALUES = ("true", "on", "1", "si", "sí")


def _fail(field: str, message: str) -> InvalidInputError:
    return InvalidInputError(message, field=field)


def _text(values: Mapping[str, Any], field: str, limit: int = 200) -> str:
    value = values.get(field, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        value = str(value)
    value = value.strip()
    if len(value) > limit:
        raise _fail(field, f"El texto es demasiado largo: como máximo {limit} caracteres.")
    return value


def _flag(values: Mapping[str, Any], field: str) -> bool:
    value = values.get(field, "")
    return value is True or (isinstance(value, str) and value.strip().lower() in TRUE_VALUES)


def _day(values: Mapping[str, Any], field: str, required: bool) -> date | None:
    text = _text(values, field, 20)
    if not text:
        if required:
            raise _fail(field, "Indica la fecha (año/mes/día).")
        return None
    parsed = parse_date(text)
    if parsed is None:
        raise _fail(field, "La fecha no es válida: usa el formato año/mes/día, por ejemplo 2026/12/24.")
    return parsed.date()


@cache
def nationalities() -> tuple[str, ...]:
    """Country names in Spanish (Babel's CLDR data), Chile first, then alphabetical."""
    names = {
        name
        for code, name in Locale("es").territories.items()
        if len(code) == 2 and code.isalpha() and code not in ("ZZ", "EU", "EZ", "UN", "QO", "XA", "XB")
    }
    names.discard("Chile")
    return ("Chile", *sorted(names, key=lambda name: slugify(name)))


def years_between(born: date, today: date) -> int:
    """Completed years from ``born`` to ``today``."""
    return today.year - born.year - ((today.month, today.day) < (born.month, born.day))


@dataclass(frozen=True)
class Catalogues:
    """What steps 3 and 4 check against: the ids that exist (and may be chosen)."""

    tiers: frozenset[str]
    types: frozenset[str]
    services: frozenset[str]


@dataclass(frozen=True)
class CleanStep:
    """A validated step: columns of the listing, of the advertiser, and the chosen services (step 4)."""

    listing: dict[str, Any]
    advertiser: dict[str, Any]
    services: list[str] | None = None


def _identity(values: Mapping[str, Any], today: date) -> CleanStep:
    document = _text(values, "document", 20) or DOCUMENT_RUT
    advertiser: dict[str, Any] = {}
    if document == DOCUMENT_RUT:
        rut = _text(values, "rut", 20)
        if not rut:
            raise _fail("rut", "Escribe tu RUT.")
        if not is_valid_rut(rut):
            raise _fail("rut", "El RUT no es válido: revisa los números y el dígito verificador.")
        advertiser.update(rut=format_rut(rut), passport=None)
    elif document == DOCUMENT_PASSPORT:
        passport = re.sub(r"[\s.-]", "", _text(values, "passport", 40)).upper()
        if not PASSPORT.fullmatch(passport):
            raise _fail("passport", "Escribe tu número de pasaporte: entre 5 y 20 letras o números.")
        advertiser.update(passport=passport, rut=None)
    else:
        raise _fail("document", "Elige RUT o pasaporte.")
    born = _day(values, "birth_date", required=True)
    assert born is not None
    age = years_between(born, today)
    if born > today or age > 110:
        raise _fail("birth_date", "Revisa tu fecha de nacimiento.")
    if age < ADULT_AGE:
        raise _fail("birth_date", "Debes tener 18 años o más para publicar.")
    nationality = _text(values, "nationality", 60)
    if nationality not in nationalities():
        raise _fail("nationality", "Elige tu nacionalidad de la lista.")
    advertiser.update(birth_date=born, nationality=nationality)
    return CleanStep(listing={}, advertiser=advertiser)


def _location(values: Mapping[str, Any]) -> CleanStep:
    city = city_by_slug(_text(values, "city_slug", 40))
    if city is None:
        raise _fail("city_slug", "Elige una ciudad de la lista.")
    commune = _text(values, "commune", 60)
    allowed = set(commune_names_for_city(city.slug)) | {city.name}
    if commune not in allowed:
        raise _fail("commune", f"Elige una comuna de {city.name}.")
    section = _text(values, "section", 10)
    if section not in {s.value for s in Section}:
        raise _fail("section", "Elige la sección: mujeres o trans.")
    return CleanStep(listing={"city_slug": city.slug, "commune": commune, "section": section}, advertiser={})


def _category(values: Mapping[str, Any], catalogues: Catalogues) -> CleanStep:
    tier = _text(values, "tier_uid", 40)
    if tier not in catalogues.tiers:
        raise _fail("tier_uid", "Elige una categoría de la lista.")
    kind = _text(values, "type_uid", 40)
    if kind not in catalogues.types:
        raise _fail("type_uid", "Elige cómo trabajas.")
    return CleanStep(listing={"base_tier_uid": tier}, advertiser={"type_uid": kind})


def _whole_number(values: Mapping[str, Any], field: str, required: bool, low: int, high: int, what: str) -> int | None:
    text = _text(values, field, 20)
    digits = re.sub(r"[\s.$]", "", text)
    if not digits:
        if required:
            raise _fail(field, f"Indica {what}.")
        return None
    if not digits.isdigit():
        raise _fail(field, f"Escribe {what} solo con números.")
    number = int(digits)
    if not low <= number <= high:
        raise _fail(field, f"{what[0].upper()}{what[1:]} debe estar entre {low:,} y {high:,}.".replace(",", "."))
    return number


def _about(values: Mapping[str, Any], services: list[str] | None, catalogues: Catalogues) -> CleanStep:
    name = re.sub(r"\s+", " ", _text(values, "display_name", 200))
    if len(name) < 2:
        raise _fail("display_name", "Escribe el nombre que verán en tu aviso.")
    if len(name) > DISPLAY_NAME_MAX:
        raise _fail("display_name", f"El nombre es demasiado largo: como máximo {DISPLAY_NAME_MAX} caracteres.")
    if not slugify(name):
        raise _fail("display_name", "El nombre debe tener letras.")
    age = _whole_number(values, "age", True, 0, 200, "la edad")
    if age is not None and age < ADULT_AGE:
        raise _fail("age", "La edad del aviso debe ser 18 años o más.")
    if age is not None and age > MAX_AGE:
        raise _fail("age", "Revisa la edad.")
    description = _text(values, "description", DESCRIPTION_MAX + 1000)
    if len(description) < DESCRIPTION_MIN:
        raise _fail("description", f"Cuéntanos un poco más: al menos {DESCRIPTION_MIN} caracteres.")
    if len(description) > DESCRIPTION_MAX:
        raise _fail("description", f"La descripción es demasiado larga: como máximo {DESCRIPTION_MAX} caracteres.")
    chosen = list(dict.fromkeys(services or []))
    if len(chosen) > MAX_SERVICES or any(not isinstance(uid, str) or uid not in catalogues.services for uid in chosen):
        raise _fail("services", "Elige los servicios de la lista.")
    listing = {
        "display_name": name,
        "name_slug": slugify(name)[:60],
        "age": age,
        "description": description,
        "porn_actress": _flag(values, "porn_actress"),
        "curvy": _flag(values, "curvy"),
        "has_video": _flag(values, "has_video"),
    }
    return CleanStep(listing=listing, advertiser={}, services=chosen)


def _rates(values: Mapping[str, Any]) -> CleanStep:
    listing = {
        "price_hour_clp": _whole_number(values, "price_hour_clp", True, MIN_PRICE, MAX_PRICE, "la tarifa por hora"),
        "price_half_hour_clp": _whole_number(
            values, "price_half_hour_clp", False, MIN_PRICE, MAX_PRICE, "la tarifa por 30 minutos"
        ),
        "price_two_hours_clp": _whole_number(
            values, "price_two_hours_clp", False, MIN_PRICE, MAX_PRICE, "la tarifa por 2 horas"
        ),
        "price_night_clp": _whole_number(values, "price_night_clp", False, MIN_PRICE, MAX_PRICE, "la tarifa por noche"),
    }
    return CleanStep(listing=listing, advertiser={})


def clean_schedule(schedule: Mapping[str, Any] | None) -> dict[str, str]:
    """The weekly schedule as {weekday key: "HH:MM-HH:MM"}, closed days left out."""
    clean: dict[str, str] = {}
    for key, value in (schedule or {}).items():
        if key not in WEEKDAY_LABELS:
            raise _fail("schedule", "El horario tiene un día que no existe.")
        text = re.sub(r"\s", "", str(value or ""))
        if not text:
            continue
        match = HOUR_RANGE.fullmatch(text)
        if match is None:
            raise _fail("schedule", f"{WEEKDAY_LABELS[key]}: escribe el horario como 10:00-20:00.")
        if text[:5] == text[6:]:
            raise _fail("schedule", f"{WEEKDAY_LABELS[key]}: la hora de inicio y de término no pueden ser iguales.")
        clean[key] = text
    return clean


def _availability(values: Mapping[str, Any], schedule: Mapping[str, Any] | None, today: date) -> CleanStep:
    clean = clean_schedule(schedule)
    start = _day(values, "visiting_from", required=False)
    end = _day(values, "visiting_until", required=False)
    if (start is None) != (end is None):
        field = "visiting_until" if start else "visiting_from"
        raise _fail(field, "Para «De pasada» indica la fecha de llegada y la de salida.")
    if start and end:
        if end < start:
            raise _fail("visiting_until", "La fecha de salida debe ser posterior a la de llegada.")
        if end < today:
            raise _fail("visiting_until", "La fecha de salida ya pasó.")
        if (end - start) > timedelta(days=MAX_VISIT_DAYS):
            raise _fail("visiting_until", f"Una visita puede durar como máximo {MAX_VISIT_DAYS} días.")
    listing = {
        "schedule": json.dumps(clean, separators=(",", ":")) if clean else "",
        "visiting_from": start,
        "visiting_until": end,
    }
    return CleanStep(listing=listing, advertiser={})


def _photos(photo_count: int) -> CleanStep:
    if photo_count < 1:
        raise _fail("photos", "Sube al menos una foto.")
    if photo_count > 12:
        raise _fail("photos", "Puedes tener como máximo 12 fotos.")
    return CleanStep(listing={}, advertiser={})


def _contact(values: Mapping[str, Any]) -> CleanStep:
    phone = normalize_chilean_mobile(_text(values, "phone", 40))
    if phone is None:
        raise _fail("phone", "Escribe un celular chileno válido, por ejemplo +56 9 1234 5678.")
    whatsapp_text = _text(values, "whatsapp", 40)
    whatsapp = normalize_chilean_mobile(whatsapp_text) if whatsapp_text else ""
    if whatsapp is None:
        raise _fail("whatsapp", "Escribe un WhatsApp chileno válido, por ejemplo +56 9 1234 5678, o déjalo vacío.")
    return CleanStep(listing={"phone": phone, "whatsapp": whatsapp}, advertiser={})


def clean_step(
    step: int,
    values: Mapping[str, Any],
    *,
    today: date,
    catalogues: Catalogues,
    services: list[str] | None = None,
    schedule: Mapping[str, Any] | None = None,
    photo_count: int = 0,
) -> CleanStep:
    """Validate one step's values; raise InvalidInputError(field=...) on the first problem."""
    if not isinstance(values, Mapping):
        raise InvalidInputError("El formulario llegó incompleto. Vuelve a intentarlo.")
    handlers: dict[int, Callable[[], CleanStep]] = {
        1: lambda: _identity(values, today),
        2: lambda: _location(values),
        3: lambda: _category(values, catalogues),
        4: lambda: _about(values, services, catalogues),
        5: lambda: _rates(values),
        6: lambda: _availability(values, schedule, today),
        7: lambda: _photos(photo_count),
        8: lambda: _contact(values),
        9: lambda: CleanStep(listing={}, advertiser={}),
    }
    handler = handlers.get(step) if isinstance(step, int) else None
    if handler is None:
        raise InvalidInputError("Ese paso no existe.")
    return handler()


def parse_schedule(stored: str) -> dict[str, str]:
    """The stored schedule JSON as a dict for every weekday ("" when closed)."""
    try:
        data = json.loads(stored) if stored else {}
    except ValueError:
        data = {}
    return {key: str(data.get(key, "")) if isinstance(data, dict) else "" for key, _ in WEEKDAYS}


def schedule_text(stored: str) -> str:
    """A one-line Spanish summary of the weekly schedule."""
    days = [f"{WEEKDAY_LABELS[key]} {hours}" for key, hours in parse_schedule(stored).items() if hours]
    return ", ".join(days) if days else "Sin horario fijo"
