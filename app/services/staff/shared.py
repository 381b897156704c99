"""What every back-office service shares: who counts as staff (and who may use what of a table, from
its spec: :func:`ensure_may`), the query a staff table asks (:class:`TableQuery`) and the page it gets back (:class:`StaffPage`, :func:`fetch_page`), and
form validation with Spanish messages (:class:`StaffForm`, :func:`validated`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict
from sqlalchemy import ColumnElement, func, or_
from sqlmodel import Session, select
from sqlmodel.sql.expression import Select, SelectOfScalar

from app.core.errors import ForbiddenError, InvalidInputError, validated_input
from app.models import STAFF_PROFILES, ProfileId, User
from app.services.staff.table_spec import ADMIN, MAX_SEARCH, PAGE_SIZE, TableSpec

STAFF_ONLY_MESSAGE = "Solo el equipo del sitio puede hacer esto."
ADMIN_ONLY_MESSAGE = "Solo un administrador puede hacer esto."
MAX_QUERY_ROWS = 1_000
"""The most rows one query reads: a table shows PAGE_SIZE at most, a CSV export reads this many at a time."""

# --------------------------------------------------------------------------- who


def ensure_staff(session: Session, user_uid: object, message: str = STAFF_ONLY_MESSAGE) -> User:
    """The active, non-banned administrator or secretary ``user_uid``, or ForbiddenError."""
    user = session.get(User, user_uid) if isinstance(user_uid, str) and user_uid else None
    if user is None or user.ban or not user.activo or user.profile_uid not in STAFF_PROFILES:
        raise ForbiddenError(message)
    return user


def ensure_admin(session: Session, user_uid: object, message: str = ADMIN_ONLY_MESSAGE) -> User:
    """The active administrator ``user_uid``; a secretary or anyone else gets ForbiddenError."""
    user = ensure_staff(session, user_uid, message)
    if user.profile_uid != ProfileId.ADMINISTRADOR:
        raise ForbiddenError(message)
    return user


# --------------------------------------------------------------------------- tables


@dataclass(frozen=True)
class TableQuery:
    """What a staff table asks for: search text, a sort key and direction, filters and one page.

    Values are cleaned when the query is made: the search is one lower-case line of at most 100
    characters, the page 1 or more, the page size 1 to MAX_QUERY_ROWS, and filters keep only text values.
    The sort key is checked by each list service against its own whitelist.
    """

    search: str = ""
    sort: str = ""
    descending: bool = False
    filters: Mapping[str, str] = field(default_factory=dict)
    page: int = 1
    page_size: int = PAGE_SIZE

    def __post_init__(self) -> None:
        search = " ".join(self.search.split()).lower()[:MAX_SEARCH] if isinstance(self.search, str) else ""
        filters = self.filters if isinstance(self.filters, Mapping) else {}
        page = self.page if isinstance(self.page, int) and self.page > 0 else 1
        size = self.page_size if isinstance(self.page_size, int) and self.page_size > 0 else PAGE_SIZE
        object.__setattr__(self, "search", search)
        object.__setattr__(self, "sort", self.sort if isinstance(self.sort, str) else "")
        object.__setattr__(self, "descending", self.descending is True)
        object.__setattr__(self, "filters", {k: v for k, v in filters.items() if isinstance(v, str) and v})
        object.__setattr__(self, "page", page)
        object.__setattr__(self, "page_size", min(size, MAX_QUERY_ROWS))

    def filter(self, key: str) -> str:
        """The value of filter ``key`` ("" when it is not set)."""
        return self.filters.get(key, "")


@dataclass(frozen=True)
class StaffPage:
    """One page of a staff table: its rows, the total, and which page it is."""

    rows: list[Any]
    total: int
    page: int
    page_size: int


def search_condition(columns: Sequence[Any], query: TableQuery) -> ColumnElement[bool] | None:
    """Case-insensitive "contains" of the query's search over ``columns`` (None when there is nothing to search)."""
    if not query.search:
        return None
    return or_(*(func.lower(column).contains(query.search, autoescape=True) for column in columns))


def sort_order(spec: TableSpec, sorts: Mapping[str, Any], query: TableQuery, tiebreak: Any) -> list[Any]:
    """ORDER BY the query's sort key when it is a sortable column of ``spec`` (else the spec's default sort),
    then ``tiebreak``, both in the query's direction. ``sorts``: each sortable column's SQL column
    (checked against the spec by :func:`~app.services.staff.table_spec.sort_columns`)."""
    column = sorts[spec.clean_sort(query.sort)]
    return [column.desc(), tiebreak.desc()] if query.descending else [column.asc(), tiebreak.asc()]


def ensure_may(session: Session, user_uid: object, spec: TableSpec, action: str) -> User:
    """The live staff member ``user_uid`` when the spec lets their profile use ``action`` of its table
    (view, create, edit, delete, export); ForbiddenError otherwise, as ``ensure_admin`` words it for an
    administrator's table or action."""
    if spec.profiles_for(action) == (ADMIN,):
        return ensure_admin(session, user_uid)
    user = ensure_staff(session, user_uid)
    if user.profile_uid not in spec.profiles_for(action):
        raise ForbiddenError(STAFF_ONLY_MESSAGE)
    return user


def fetch_page(
    session: Session,
    statement: Select[*tuple[Any, ...]] | SelectOfScalar[Any],
    query: TableQuery,
    order_by: Sequence[Any],
) -> tuple[list[Any], int]:
    """(the rows of the query's page of ``statement`` in ``order_by`` order, the total number of rows)."""
    total = session.exec(select(func.count()).select_from(statement.order_by(None).subquery())).one()
    rows = session.exec(
        statement.order_by(*order_by).offset((query.page - 1) * query.page_size).limit(query.page_size)
    ).all()
    return list(rows), total


def plain(value: Any) -> Any:
    """A column value as a table cell or form value: None becomes "", enums their value."""
    if value is None:
        return ""
    if isinstance(value, Enum):
        return value.value
    return value


def count_message(count: int, singular: str, plural: str) -> str:
    """``singular`` or ``plural`` with ``{n}`` filled in."""
    return (singular if count == 1 else plural).format(n=count)


# --------------------------------------------------------------------------- forms

_MESSAGES: dict[str, str] = {
    "missing": "Completa este campo.",
    "string_too_short": "Completa este campo.",
    "string_too_long": "Escribe como máximo {max_length} caracteres.",
    "string_type": "Escribe un texto.",
    "int_parsing": "Escribe un número entero.",
    "int_type": "Escribe un número entero.",
    "int_from_float": "Escribe un número entero.",
    "greater_than_equal": "Escribe un número mayor o igual a {ge}.",
    "less_than_equal": "Escribe un número menor o igual a {le}.",
    "bool_parsing": "Elige sí o no.",
    "bool_type": "Elige sí o no.",
    "enum": "Elige una opción de la lista.",
    "literal_error": "Elige una opción de la lista.",
    "string_pattern_mismatch": "Usa solo letras minúsculas, números y guiones.",
    "date_parsing": "Escribe una fecha válida (aaaa-mm-dd).",
    "date_from_datetime_parsing": "Escribe una fecha válida (aaaa-mm-dd).",
}


F = TypeVar("F", bound=BaseModel)


class StaffForm(BaseModel):
    """Base of the staff forms: text stripped, unknown keys ignored."""

    model_config = ConfigDict(str_strip_whitespace=True, extra="ignore")


def validated(form: type[F], data: object, *, context: dict[str, Any] | None = None) -> F:
    """``data`` validated by ``form``; the first problem becomes InvalidInputError with a Spanish message and field."""
    if not isinstance(data, Mapping):
        raise InvalidInputError("El formulario llegó incompleto. Vuelve a intentarlo.")
    return validated_input(form, dict(data), context=context, fallback="Revisa este campo.", messages=_MESSAGES)
