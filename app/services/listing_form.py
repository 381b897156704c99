"""The listing wizard's steps as data, and the server-side check of each step.

Pure functions: a step's form values (strings, as a browser sends them) go in,
the cleaned column values come out, or an InvalidInputError naming the field
with a Spanish message for each refused field. ``app.services.my_listings`` stores what comes out
(a draft after every step) and runs every step again before sending, since a
client can skip steps or send anything.
"""

from __future__ import annotations

import json
import re
from calendar import monthrange
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from typing import Any

from babel import Locale

from app.core.dates import date_parts, month_name, parse_date
from app.core.errors import InvalidInputError
from app.core.geo import city_by_slug, commune_names_for_city
from app.core.phone import normalize_chilean_mobile
from app.core.rut import format_rut, is_valid_rut
from app.core.text import slugify
from app.models import Section
from app.models.advertisers import PASSPORT_MAX
from app.models.listings import ADULT_AGE, DESCRIPTION_MAX, DISPLAY_NAME_MAX, MAX_AGE


@dataclass(frozen=True)
class WizardStep:
    number: int
    title: str
    fields: tuple[str, ...]


STEPS: tuple[WizardStep, ...] = (
    WizardStep(1, "Identidad", ("document", "rut", "passport", "birth_date", "nationality")),
    WizardStep(2, "Ubicación", ("city_slug", "commune", "section")),
    WizardStep(3, "Categoría", ("tier_uid", "type_uid")),
    WizardStep(4, "Tu aviso", ("display_name", "age", "description", "porn_actress", "curvy", "services")),
    WizardStep(5, "Tarifas", ("price_hour_clp", "price_half_hour_clp", "price_two_hours_clp", "price_night_clp")),
    WizardStep(6, "Disponibilidad", ("schedule", "visiting_from", "visiting_until")),
    WizardStep(7, "Fotos y video", ("photos",)),
    WizardStep(8, "Contacto", ("phone", "whatsapp")),
    WizardStep(9, "Revisar y enviar", ()),
)
STEP_BY_NUMBER = {step.number: step for step in STEPS}
PHOTO_STEP = 7
SEND_STEP = 9

MAX_SERVICES = 20
MIN_PRICE = 1_000
MAX_PRICE = 10_000_000
MAX_VISIT_DAYS = 60
DESCRIPTION_MIN = 30
PASSPORT = re.compile(rf"[A-Z0-9]{{5,{PASSPORT_MAX}}}")
# Characters of a typed RUT, passport or day the rules read: room for the dots, dashes and spaces people type.
RUT_TYPED_MAX = 20
PASSPORT_TYPED_MAX = 40
DAY_TYPED_MAX = 20
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


class _Problems:
    """Every refused field of a step, so the form shows them all at once (first message per field)."""

    def __init__(self) -> None:
        self.messages: dict[str, str] = {}

    def check(self, read: Callable[..., Any], *args: Any) -> Any:
        """``read(*args)``, or None with its message kept when it refuses the value."""
        try:
            return read(*args)
        except InvalidInputError as exc:
            if not exc.fields:
                raise
            for field, message in exc.fields.items():
                self.messages.setdefault(field, message)
            return None

    def add(self, field: str, message: str) -> None:
        self.messages.setdefault(field, message)

    def raise_any(self) -> None:
        if self.messages:
            raise InvalidInputError(fields=self.messages)


def _text(values: Mapping[str, Any], field: str, limit: int = 200) -> str:
    value = values.get(field, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        value = str(value)
    value = value.strip()
    if len(value) > limit:
        raise _fail(field, f"El texto es demasiado largo: tiene {len(value)} caracteres y el máximo es {limit}.")
    return value


def _flag(values: Mapping[str, Any], field: str) -> bool:
    value = values.get(field, "")
    return value is True or (isinstance(value, str) and value.strip().lower() in TRUE_VALUES)


def _unreadable_date(text: str) -> str:
    """What could not be read in a typed date."""
    parts = date_parts(text)
    example = "escribe día, mes y año, por ejemplo 12-04-1996 o 1996/04/12"
    if parts is None:
        return f"No entendemos «{text}» como fecha: {example}."
    year, month, day = parts
    if not 1 <= month <= 12:
        return f"En «{text}» el mes {month} no existe: los meses van del 1 al 12."
    if year >= 1 and not 1 <= day <= monthrange(year, month)[1]:
        return f"En «{text}» el día {day} no existe: {month_name(month)} de {year} tiene {monthrange(year, month)[1]} días."
    return f"No entendemos «{text}» como fecha: {example}."


def _day(values: Mapping[str, Any], field: str, required: bool) -> date | None:
    text = _text(values, field, DAY_TYPED_MAX)
    if not text:
        if required:
            raise _fail(field, "Indica la fecha, por ejemplo 12-04-1996.")
        return None
    parsed = parse_date(text)
    if parsed is None:
        raise _fail(field, _unreadable_date(text))
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


def _rut(values: Mapping[str, Any]) -> str:
    rut = _text(values, "rut", RUT_TYPED_MAX)
    if not rut:
        raise _fail("rut", "Escribe tu RUT.")
    if not is_valid_rut(rut):
        raise _fail("rut", f"El RUT «{rut}» no es válido: revisa los números y el dígito verificador.")
    return format_rut(rut)


def _passport(values: Mapping[str, Any]) -> str:
    passport = re.sub(r"[\s.-]", "", _text(values, "passport", PASSPORT_TYPED_MAX)).upper()
    if not passport:
        raise _fail("passport", "Escribe tu número de pasaporte.")
    if not passport.isascii() or not passport.isalnum():
        raise _fail("passport", "El pasaporte puede tener solo letras sin tilde y números.")
    if not PASSPORT.fullmatch(passport):
        size = "corto" if len(passport) < 5 else "largo"
        raise _fail(
            "passport", f"El pasaporte es demasiado {size}: tiene {len(passport)} caracteres y debe tener de 5 a 20."
        )
    return passport


def _birth_date(values: Mapping[str, Any], today: date) -> date:
    born = _day(values, "birth_date", required=True)
    assert born is not None
    age = years_between(born, today)
    if born > today:
        raise _fail("birth_date", "La fecha de nacimiento no puede ser futura.")
    if age > 110:
        raise _fail("birth_date", f"Revisa el año de nacimiento: {born.year} daría {age} años.")
    if age < ADULT_AGE:
        raise _fail("birth_date", f"Debes tener 18 años o más para publicar: con esa fecha tienes {age}.")
    return born


def _identity(values: Mapping[str, Any], today: date) -> CleanStep:
    problems = _Problems()
    document = _text(values, "document", 20) or DOCUMENT_RUT
    advertiser: dict[str, Any] = {}
    if document == DOCUMENT_RUT:
        advertiser.update(rut=problems.check(_rut, values), passport=None)
    elif document == DOCUMENT_PASSPORT:
        advertiser.update(passport=problems.check(_passport, values), rut=None)
    else:
        problems.add("document", "Elige RUT o pasaporte.")
    born = problems.check(_birth_date, values, today)
    nationality = _text(values, "nationality", 60)
    if nationality not in nationalities():
        problems.add("nationality", "Elige tu nacionalidad de la lista.")
    problems.raise_any()
    advertiser.update(birth_date=born, nationality=nationality)
    return CleanStep(listing={}, advertiser=advertiser)


def _location(values: Mapping[str, Any]) -> CleanStep:
    problems = _Problems()
    city = city_by_slug(_text(values, "city_slug", 40))
    if city is None:
        problems.add("city_slug", "Elige una ciudad de la lista.")
    commune = _text(values, "commune", 60)
    if city is not None and commune not in set(commune_names_for_city(city.slug)) | {city.name}:
        problems.add("commune", f"Elige una comuna de {city.name}.")
    if city is None:
        problems.add("commune", "Elige primero la ciudad y luego su comuna.")
    section = _text(values, "section", 10)
    if section not in {s.value for s in Section}:
        problems.add("section", "Elige la sección: mujeres o trans.")
    problems.raise_any()
    assert city is not None
    return CleanStep(listing={"city_slug": city.slug, "commune": commune, "section": section}, advertiser={})


def _category(values: Mapping[str, Any], catalogues: Catalogues) -> CleanStep:
    problems = _Problems()
    tier = _text(values, "tier_uid", 40)
    if tier not in catalogues.tiers:
        problems.add("tier_uid", "Elige una categoría de la lista.")
    kind = _text(values, "type_uid", 40)
    if kind not in catalogues.types:
        problems.add("type_uid", "Elige cómo trabajas.")
    problems.raise_any()
    return CleanStep(listing={"base_tier_uid": tier}, advertiser={"type_uid": kind})


def _whole_number(values: Mapping[str, Any], field: str, required: bool, low: int, high: int, what: str) -> int | None:
    text = _text(values, field, 20)
    digits = re.sub(r"[\s.$]", "", text)
    if not digits:
        if required:
            raise _fail(field, f"Indica {what}.")
        return None
    if not digits.isdigit():
        raise _fail(field, f"Escribe {what} solo con números: «{text}» tiene otros caracteres.")
    number = int(digits)
    if not low <= number <= high:
        raise _fail(field, f"{what[0].upper()}{what[1:]} debe estar entre {low:,} y {high:,}.".replace(",", "."))
    return number


def _display_name(values: Mapping[str, Any]) -> str:
    name = re.sub(r"\s+", " ", _text(values, "display_name", 200))
    if not name:
        raise _fail("display_name", "Escribe el nombre que verán en tu aviso.")
    if len(name) < 2:
        raise _fail("display_name", f"El nombre «{name}» es demasiado corto: al menos 2 caracteres.")
    if len(name) > DISPLAY_NAME_MAX:
        raise _fail(
            "display_name",
            f"El nombre es demasiado largo: tiene {len(name)} caracteres y el máximo es {DISPLAY_NAME_MAX}.",
        )
    if not slugify(name):
        raise _fail("display_name", f"El nombre «{name}» no sirve: debe tener letras.")
    return name


def _age(values: Mapping[str, Any]) -> int | None:
    age = _whole_number(values, "age", True, 0, 200, "la edad")
    if age is not None and age < ADULT_AGE:
        raise _fail("age", f"La edad del aviso debe ser 18 años o más: escribiste {age}.")
    if age is not None and age > MAX_AGE:
        raise _fail("age", f"Revisa la edad: {age} es más de {MAX_AGE}.")
    return age


def _description(values: Mapping[str, Any]) -> str:
    description = _text(values, "description", DESCRIPTION_MAX + 1000)
    if not description:
        raise _fail("description", f"Escribe una descripción de al menos {DESCRIPTION_MIN} caracteres.")
    if len(description) < DESCRIPTION_MIN:
        raise _fail(
            "description",
            f"La descripción es demasiado corta: tiene {len(description)} caracteres y debe tener al menos "
            f"{DESCRIPTION_MIN}.",
        )
    if len(description) > DESCRIPTION_MAX:
        raise _fail(
            "description",
            f"La descripción es demasiado larga: tiene {len(description)} caracteres y el máximo es {DESCRIPTION_MAX}.",
        )
    return description


def _about(values: Mapping[str, Any], services: list[str] | None, catalogues: Catalogues) -> CleanStep:
    problems = _Problems()
    name = problems.check(_display_name, values)
    age = problems.check(_age, values)
    description = problems.check(_description, values)
    chosen = list(dict.fromkeys(services or []))
    if len(chosen) > MAX_SERVICES:
        problems.add("services", f"Elige como máximo {MAX_SERVICES} servicios: marcaste {len(chosen)}.")
    elif any(not isinstance(uid, str) or uid not in catalogues.services for uid in chosen):
        problems.add("services", "Elige los servicios de la lista.")
    problems.raise_any()
    listing = {
        "display_name": name,
        "name_slug": slugify(name)[:60],
        "age": age,
        "description": description,
        "porn_actress": _flag(values, "porn_actress"),
        "curvy": _flag(values, "curvy"),
    }
    return CleanStep(listing=listing, advertiser={}, services=chosen)


RATES: tuple[tuple[str, bool, str], ...] = (
    ("price_hour_clp", True, "la tarifa por hora"),
    ("price_half_hour_clp", False, "la tarifa por 30 minutos"),
    ("price_two_hours_clp", False, "la tarifa por 2 horas"),
    ("price_night_clp", False, "la tarifa por noche"),
)


def _rates(values: Mapping[str, Any]) -> CleanStep:
    problems = _Problems()
    listing = {
        field: problems.check(_whole_number, values, field, required, MIN_PRICE, MAX_PRICE, what)
        for field, required, what in RATES
    }
    problems.raise_any()
    return CleanStep(listing=listing, advertiser={})


def clean_schedule(schedule: Mapping[str, Any] | None) -> dict[str, str]:
    """The weekly schedule as {weekday key: "HH:MM-HH:MM"}, closed days left out."""
    clean: dict[str, str] = {}
    unset: list[str] = []
    equal: list[str] = []
    for key, value in (schedule or {}).items():
        if key not in WEEKDAY_LABELS:
            raise _fail("schedule", "El horario tiene un día que no existe.")
        text = re.sub(r"\s", "", str(value or ""))
        if not text:
            continue
        if HOUR_RANGE.fullmatch(text) is None:
            unset.append(WEEKDAY_LABELS[key])
        elif text[:5] == text[6:]:
            equal.append(WEEKDAY_LABELS[key])
        else:
            clean[key] = text
    messages = []
    if unset:
        messages.append(f"{_days(unset)}: elige la hora de inicio y la de término, o marca «No atiendo».")
    if equal:
        messages.append(f"{_days(equal)}: la hora de inicio y la de término no pueden ser iguales.")
    if messages:
        raise _fail("schedule", " ".join(messages))
    return clean


def _days(labels: list[str]) -> str:
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} y {labels[-1]}"


def _availability(values: Mapping[str, Any], schedule: Mapping[str, Any] | None, today: date) -> CleanStep:
    problems = _Problems()
    clean = problems.check(clean_schedule, schedule)
    start = problems.check(_day, values, "visiting_from", False)
    end = problems.check(_day, values, "visiting_until", False)
    unread = {"visiting_from", "visiting_until"} & set(problems.messages)
    if not unread and (start is None) != (end is None):
        field = "visiting_until" if start else "visiting_from"
        problems.add(field, "Para «De pasada» indica la fecha de llegada y la de salida.")
    if start and end:
        if end < start:
            problems.add("visiting_until", "La fecha de salida debe ser posterior a la de llegada.")
        elif end < today:
            problems.add("visiting_until", "La fecha de salida ya pasó.")
        elif (end - start) > timedelta(days=MAX_VISIT_DAYS):
            problems.add("visiting_until", f"Una visita puede durar como máximo {MAX_VISIT_DAYS} días.")
    problems.raise_any()
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
        raise _fail("photos", f"Puedes tener como máximo 12 fotos: tienes {photo_count}.")
    return CleanStep(listing={}, advertiser={})


def _phone(values: Mapping[str, Any], field: str, required: bool) -> str:
    text = _text(values, field, 40)
    if not text:
        if required:
            raise _fail(field, "Escribe tu celular, por ejemplo +56 9 1234 5678.")
        return ""
    phone = normalize_chilean_mobile(text)
    if phone is None:
        raise _fail(field, f"«{text}» no es un celular chileno: escríbelo como +56 9 1234 5678.")
    return phone


def _contact(values: Mapping[str, Any]) -> CleanStep:
    problems = _Problems()
    phone = problems.check(_phone, values, "phone", True)
    whatsapp = problems.check(_phone, values, "whatsapp", False)
    problems.raise_any()
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
    """Validate one step's values; raise InvalidInputError naming every refused field (``fields``)."""
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
