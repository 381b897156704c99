"""The city page's filters (comuna, hourly rate, age, services), read from the URL's query string.

Every filter lives in the query string of /escorts/{city} and /escorts/trans/{city} (and of their
tabs), so a filtered page can be shared, reloaded and reached with the back button. Reading it
never fails: each value is validated on its own, and a bad one (letters in a price, a minimum
above its maximum, a commune the city does not have, a service not in the catalogue) is left out,
the others still apply. What survives becomes the values of the query's bound parameters
(:meth:`ListingFilters.conditions` and :meth:`ListingFilters.params`); nothing from the URL is written into SQL.

Rates and ages are read by the same functions in the URL and in the filter form, as people type
them ("130.000", "$130.000", "130 mil": app.core.money.parse_clp); the form says what it cannot read
beside the field (:func:`read_typed_filters`) instead of leaving it out.

A page filtered by its commune alone is a page of its own (indexable, in the sitemap); any other
filter makes a variant that search engines are told not to index (app.seo).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, NamedTuple
from urllib.parse import parse_qsl, urlencode

from pydantic import Field, TypeAdapter, ValidationError
from sqlalchemy import ColumnElement, bindparam
from sqlmodel import col

from app.core.geo import Commune, city_communes
from app.core.money import format_currency, parse_clp
from app.models.listings import ADULT_AGE, MAX_AGE, Listing, offers_service, service_pattern

COMMUNE_PARAM = "comuna"
PRICE_MIN_PARAM = "precio_min"
PRICE_MAX_PARAM = "precio_max"
AGE_MIN_PARAM = "edad_min"
AGE_MAX_PARAM = "edad_max"
SERVICE_PARAM = "servicio"
FILTER_PARAMS = (COMMUNE_PARAM, PRICE_MIN_PARAM, PRICE_MAX_PARAM, AGE_MIN_PARAM, AGE_MAX_PARAM, SERVICE_PARAM)

MAX_PRICE_CLP = 99_999_999
MAX_SERVICES = 8
MAX_FILTER_VALUE = 12  # characters of one typed value; longer is not a price, an age or a commune
# Longer query strings are not ours: only this much of one is read.
MAX_QUERY_CHARS = 1024
# An age as typed: ASCII digits (str.isdigit() and int() would also take "١٢" or "1_000"), perhaps "años".
_AGE_TEXT = re.compile(r"([0-9]{1,3})(?:\s*años?)?", re.IGNORECASE)
_SLUG = TypeAdapter(Annotated[str, Field(pattern=r"^[a-z0-9-]{1,60}$")])

PRICE_MESSAGE = "Escribe la tarifa en pesos, por ejemplo 130.000 o 130 mil."
PRICE_TOO_HIGH_MESSAGE = f"La tarifa puede ser de hasta {format_currency(MAX_PRICE_CLP)}."
AGE_MESSAGE = f"Escribe la edad en años, entre {ADULT_AGE} y {MAX_AGE}."
RANGE_MESSAGE = "«Hasta» no puede ser menos que «Desde»."


def read_price(text: str) -> int:
    """An hourly rate as typed ("130000", "130.000", "$130.000", "130 mil"); ValueError with a Spanish message."""
    try:
        pesos = parse_clp(text)
    except ValueError:
        raise ValueError(PRICE_MESSAGE) from None
    if pesos > MAX_PRICE_CLP:
        raise ValueError(PRICE_TOO_HIGH_MESSAGE)
    return pesos


def read_age(text: str) -> int:
    """An age in years as typed ("25", "25 años"); ValueError with a Spanish message."""
    match = _AGE_TEXT.fullmatch(text.strip())
    if match is None or not ADULT_AGE <= int(match[1]) <= MAX_AGE:
        raise ValueError(AGE_MESSAGE)
    return int(match[1])


# The typed fields of the filter form, each with how its text is read, and the (from, to) pairs.
TYPED_FILTERS: dict[str, Callable[[str], int]] = {
    PRICE_MIN_PARAM: read_price,
    PRICE_MAX_PARAM: read_price,
    AGE_MIN_PARAM: read_age,
    AGE_MAX_PARAM: read_age,
}
RANGES = ((PRICE_MIN_PARAM, PRICE_MAX_PARAM), (AGE_MIN_PARAM, AGE_MAX_PARAM))


@dataclass(frozen=True)
class TypedFilters:
    """What the filter form's typed fields say: each value read (URL parameter -> number) and each refusal."""

    values: dict[str, int]
    errors: dict[str, str]  # URL parameter -> Spanish message for beside the field


def read_typed_filters(texts: Mapping[str, str]) -> TypedFilters:
    """The rates and ages typed in the filter form (URL parameter -> text; blank means none).

    A field that cannot be read gets its message and is left out; a "hasta" below its "desde" too.
    """
    values: dict[str, int] = {}
    errors: dict[str, str] = {}
    for name, read in TYPED_FILTERS.items():
        text = texts.get(name, "").strip()
        if not text:
            continue
        try:
            values[name] = read(text)
        except ValueError as refused:
            errors[name] = str(refused)
    for low, high in RANGES:
        if low in values and high in values and values[low] > values[high]:
            errors[high] = RANGE_MESSAGE
            del values[high]
    return TypedFilters(values=values, errors=errors)


@dataclass(frozen=True)
class ServiceOption:
    """A service of the catalogue as a filter: its URL value (slug of its name), uid and name."""

    slug: str
    uid: str
    name: str


class FilterShape(NamedTuple):
    """Which of the city page's filters apply (and how many services), not their values: filters of one shape have
    the same conditions, so a statement built with them once serves them all (app.services.listings)."""

    commune: bool = False
    price_min: bool = False
    price_max: bool = False
    age_min: bool = False
    age_max: bool = False
    services: int = 0

    def conditions(self) -> list[ColumnElement[bool]]:
        """The SQL conditions of filters of this shape, each value a bound parameter named as in
        :meth:`ListingFilters.params`."""
        conditions: list[ColumnElement[bool]] = []
        if self.commune:
            conditions.append(col(Listing.commune) == bindparam(COMMUNE_PARAM))
        if self.price_min:
            conditions.append(col(Listing.price_hour_clp) >= bindparam(PRICE_MIN_PARAM))
        if self.price_max:
            conditions.append(col(Listing.price_hour_clp) <= bindparam(PRICE_MAX_PARAM))
        if self.age_min:
            conditions.append(col(Listing.age) >= bindparam(AGE_MIN_PARAM))
        if self.age_max:
            conditions.append(col(Listing.age) <= bindparam(AGE_MAX_PARAM))
        # From the listing's row (services_text), not a probe of publicacion_servicio per listing of the city.
        conditions.extend(offers_service(bindparam(_service_param(number))) for number in range(self.services))
        return conditions


@dataclass(frozen=True)
class ListingFilters:
    """The filters a city page applies; empty means none. Hashable: part of the page cache's keys."""

    commune: Commune | None = None
    price_min: int | None = None
    price_max: int | None = None
    age_min: int | None = None
    age_max: int | None = None
    services: tuple[ServiceOption, ...] = field(default=())

    @property
    def active(self) -> bool:
        """True when any filter applies."""
        return self != NO_FILTERS

    @property
    def commune_only(self) -> bool:
        """True for a commune's own page: the commune and nothing else (the one indexable filtered page)."""
        return self.commune is not None and self == ListingFilters(commune=self.commune)

    def query_string(self) -> str:
        """The canonical query string (no "?"), in a fixed order; "" without filters."""
        pairs: list[tuple[str, str | int]] = []
        if self.commune is not None:
            pairs.append((COMMUNE_PARAM, self.commune.id))
        for name, value in (
            (PRICE_MIN_PARAM, self.price_min),
            (PRICE_MAX_PARAM, self.price_max),
            (AGE_MIN_PARAM, self.age_min),
            (AGE_MAX_PARAM, self.age_max),
        ):
            if value is not None:
                pairs.append((name, value))
        pairs += [(SERVICE_PARAM, service.slug) for service in self.services]
        return urlencode(pairs)

    def url(self, path: str) -> str:
        """``path`` with these filters."""
        query = self.query_string()
        return f"{path}?{query}" if query else path

    @property
    def shape(self) -> FilterShape:
        """Which filters apply, and how many services: the filters' :meth:`conditions`, without their values."""
        return FilterShape(
            commune=self.commune is not None,
            price_min=self.price_min is not None,
            price_max=self.price_max is not None,
            age_min=self.age_min is not None,
            age_max=self.age_max is not None,
            services=len(self.services),
        )

    def conditions(self) -> list[ColumnElement[bool]]:
        """The SQL conditions of these filters, each value a bound parameter named as in :meth:`params` (those of
        their :attr:`shape`)."""
        return self.shape.conditions()

    def params(self) -> dict[str, str | int]:
        """The values of :meth:`conditions`' bound parameters."""
        values: dict[str, str | int | None] = {
            COMMUNE_PARAM: self.commune.name if self.commune is not None else None,
            PRICE_MIN_PARAM: self.price_min,
            PRICE_MAX_PARAM: self.price_max,
            AGE_MIN_PARAM: self.age_min,
            AGE_MAX_PARAM: self.age_max,
        }
        values.update(
            (_service_param(number), service_pattern(service.uid)) for number, service in enumerate(self.services)
        )
        return {name: value for name, value in values.items() if value is not None}


def _service_param(number: int) -> str:
    return f"{SERVICE_PARAM}_{number}"


NO_FILTERS = ListingFilters()


def _number(values: Sequence[str], read: Callable[[str], int]) -> int | None:
    """The one value of a numeric parameter, or None when absent, repeated or not valid."""
    if len(values) != 1:
        return None
    try:
        return read(values[0])
    except ValueError:
        return None


def _slugs(values: Sequence[str]) -> list[str]:
    valid = []
    for value in values:
        try:
            valid.append(_SLUG.validate_python(value))
        except ValidationError:
            continue
    return valid


def _range(low: int | None, high: int | None) -> tuple[int | None, int | None]:
    """A minimum above its maximum says nothing sensible: both are ignored."""
    if low is not None and high is not None and low > high:
        return None, None
    return low, high


def parse_filters(query: str, *, city_slug: str, catalogue: Sequence[ServiceOption]) -> ListingFilters:
    """The filters in a page's query string (without "?"), for a city and the services catalogue.

    Never raises: what is not valid is left out (see the module's docstring). Other parameters are
    none of this function's business.
    """
    values: dict[str, list[str]] = {name: [] for name in FILTER_PARAMS}
    for name, value in parse_qsl(query[:MAX_QUERY_CHARS], keep_blank_values=False):
        if name in values:
            values[name].append(value)
    communes = {commune.id: commune for commune in city_communes(city_slug)}
    commune_values = _slugs(values[COMMUNE_PARAM])
    commune = communes.get(commune_values[0]) if len(values[COMMUNE_PARAM]) == 1 and commune_values else None
    price_min, price_max = _range(
        _number(values[PRICE_MIN_PARAM], read_price), _number(values[PRICE_MAX_PARAM], read_price)
    )
    age_min, age_max = _range(_number(values[AGE_MIN_PARAM], read_age), _number(values[AGE_MAX_PARAM], read_age))
    by_slug = {service.slug: service for service in catalogue}
    wanted = {by_slug[slug] for slug in _slugs(values[SERVICE_PARAM]) if slug in by_slug}
    services = tuple(sorted(wanted, key=lambda service: service.slug))[:MAX_SERVICES]
    return ListingFilters(
        commune=commune,
        price_min=price_min,
        price_max=price_max,
        age_min=age_min,
        age_max=age_max,
        services=services,
    )
