"""The city page's filters (comuna, hourly rate, age, services), read from the URL's query string.

Every filter lives in the query string of /escorts/{city} and /escorts/trans/{city} (and of their
tabs), so a filtered page can be shared, reloaded and reached with the back button. Reading it
never fails: each value is validated on its own by pydantic, and a bad one (letters in a price, a
minimum above its maximum, a commune the city does not have, a service not in the catalogue) is
left out, the others still apply. What survives becomes bound parameters of the query
(:meth:`ListingFilters.conditions`); nothing from the URL is written into SQL.

A page filtered by its commune alone is a page of its own (indexable, in the sitemap); any other
filter makes a variant that search engines are told not to index (app.seo).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated
from urllib.parse import parse_qsl, urlencode

from pydantic import AfterValidator, Field, TypeAdapter, ValidationError
from sqlalchemy import ColumnElement
from sqlmodel import col

from app.core.geo import Commune, city_communes
from app.models.listings import Listing, offers_service

COMMUNE_PARAM = "comuna"
PRICE_MIN_PARAM = "precio_min"
PRICE_MAX_PARAM = "precio_max"
AGE_MIN_PARAM = "edad_min"
AGE_MAX_PARAM = "edad_max"
SERVICE_PARAM = "servicio"
FILTER_PARAMS = (COMMUNE_PARAM, PRICE_MIN_PARAM, PRICE_MAX_PARAM, AGE_MIN_PARAM, AGE_MAX_PARAM, SERVICE_PARAM)

MAX_PRICE_CLP = 99_999_999
MIN_AGE, MAX_AGE = 18, 99
MAX_SERVICES = 8
# Longer query strings are not ours: only this much of one is read.
MAX_QUERY_CHARS = 1024
_ASCII_DIGITS = re.compile(r"[0-9]{1,8}")


def _ascii_digits(value: str) -> str:
    # str.isdigit() and int() would also take "١٢", "1_000" or " 12".
    if not _ASCII_DIGITS.fullmatch(value):
        raise ValueError("solo dígitos")
    return value


_Digits = Annotated[str, AfterValidator(_ascii_digits)]
_PRICE = TypeAdapter(Annotated[int, Field(ge=0, le=MAX_PRICE_CLP)])
_AGE = TypeAdapter(Annotated[int, Field(ge=MIN_AGE, le=MAX_AGE)])
_DIGITS = TypeAdapter(_Digits)
_SLUG = TypeAdapter(Annotated[str, Field(pattern=r"^[a-z0-9-]{1,60}$")])


@dataclass(frozen=True)
class ServiceOption:
    """A service of the catalogue as a filter: its URL value (slug of its name), uid and name."""

    slug: str
    uid: str
    name: str


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

    def conditions(self) -> list[ColumnElement[bool]]:
        """The SQL conditions of these filters (values bound as parameters)."""
        conditions: list[ColumnElement[bool]] = []
        if self.commune is not None:
            conditions.append(col(Listing.commune) == self.commune.name)
        if self.price_min is not None:
            conditions.append(col(Listing.price_hour_clp) >= self.price_min)
        if self.price_max is not None:
            conditions.append(col(Listing.price_hour_clp) <= self.price_max)
        if self.age_min is not None:
            conditions.append(col(Listing.age) >= self.age_min)
        if self.age_max is not None:
            conditions.append(col(Listing.age) <= self.age_max)
        # From the listing's row (services_text), not a probe of publicacion_servicio per listing of the city.
        conditions.extend(offers_service(service.uid) for service in self.services)
        return conditions


NO_FILTERS = ListingFilters()


def _number(values: Sequence[str], adapter: TypeAdapter[int]) -> int | None:
    """The one value of a numeric parameter, or None when absent, repeated or not valid."""
    if len(values) != 1:
        return None
    try:
        return adapter.validate_python(int(_DIGITS.validate_python(values[0])))
    except ValidationError:
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
    price_min, price_max = _range(_number(values[PRICE_MIN_PARAM], _PRICE), _number(values[PRICE_MAX_PARAM], _PRICE))
    age_min, age_max = _range(_number(values[AGE_MIN_PARAM], _AGE), _number(values[AGE_MAX_PARAM], _AGE))
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
