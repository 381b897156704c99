"""Column types shared by the tables.

``EnumString`` stores a ``StrEnum`` as its plain string value in a
``VARCHAR(length)`` column: the SQL type stays exactly what the migrations
created (``AutoString(length)``), so typing a status column with its enum
needs no migration, and the stored strings are the enum values
(``"publicada"``, not ``"PUBLICADA"``). Reads give enum members back; writes
accept a member or its string value and refuse any other string before it
reaches the database.

``EnumColumns`` makes the Python side agree: assigning
``listing.status = "pausada"`` stores ``ListingStatus.PAUSADA`` on the
instance at once, and an unknown value raises ``ValueError`` right there.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, ClassVar, TypeVar

from sqlalchemy.types import TypeDecorator
from sqlmodel.sql.sqltypes import AutoString

E = TypeVar("E", bound=StrEnum)


class EnumString(TypeDecorator[E]):
    """A StrEnum stored as its value in ``VARCHAR(length)``."""

    impl = AutoString
    cache_ok = True

    def __init__(self, enum_cls: type[E], length: int) -> None:
        longest = max(len(member.value) for member in enum_cls)
        if longest > length:
            raise ValueError(f"{enum_cls.__name__} has a value longer than {length} characters")
        super().__init__(length=length)
        self.enum_cls = enum_cls

    def process_bind_param(self, value: Any, dialect: Any) -> str | None:
        if value is None:
            return None
        return self.enum_cls(value).value

    def process_result_value(self, value: Any, dialect: Any) -> E | None:
        if value is None:
            return None
        return self.enum_cls(value)

    @property
    def python_type(self) -> type[E]:
        return self.enum_cls


class EnumColumns:
    """Mixin for a table: assigning to a column named in ``__enum_columns__`` stores the enum member.

    SQLModel writes an assigned value into the instance as given (also at
    construction), so ``listing.status = "pausada"`` would otherwise keep a
    plain string until the row is read back. Unknown values raise ``ValueError``.
    """

    __enum_columns__: ClassVar[dict[str, type[StrEnum]]] = {}

    def __setattr__(self, name: str, value: Any) -> None:
        enum_cls = self.__enum_columns__.get(name)
        if enum_cls is not None and value is not None:
            value = enum_cls(value)
        super().__setattr__(name, value)
