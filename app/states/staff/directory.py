"""Advertisers (profesor: /admin and /bbitamia) and agencies (agencia: /admin) on the one staff table.

Staff see an advertiser's private fields (e-mail, RUT or passport, birth date, nationality) here
and nowhere else; only an administrator deletes an advertiser or touches agencies. The services
(``app.services.staff.directory``) check all of this again and audit every write.
"""

from __future__ import annotations

from datetime import date
from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session

from app.core.actor import Actor
from app.core.dates import format_date
from app.services.listing_form import DOCUMENT_PASSPORT, DOCUMENT_RUT, nationalities
from app.services.staff import catalogues
from app.services.staff import directory as staff_directory
from app.services.staff.shared import TableQuery
from app.states.staff.catalogues import catalogue_options, form_values, table_cells
from app.states.staff.table import ADMIN, SECRETARY, Column, Filter, FormField, StaffTableState, TableSpec

ADVERTISERS_SPEC = TableSpec(
    entity=staff_directory.ADVERTISERS,
    title="Anunciantes",
    columns=(
        Column("display_name", "Nombre", sortable=True),
        Column("email", "Correo", sortable=True),
        Column("document_label", "Documento"),
        Column("birth_date", "Nacimiento", sortable=True),
        Column("nationality", "Nacionalidad"),
        Column("verified", "Verificado", sortable=True),
        Column("agency", "Agencia"),
        Column("type", "Tipo"),
    ),
    default_sort="display_name",
    filters=(Filter("verified", "Verificación", (("si", "Verificados"), ("no", "Sin verificar"))),),
    form_fields=(
        FormField("email", "Correo de la cuenta del anunciante", required=True, max_length=254, on_edit=False),
        FormField("display_name", "Nombre", required=True, max_length=80),
        FormField(
            "document",
            "Documento",
            kind="select",
            options=((DOCUMENT_RUT, "RUT"), (DOCUMENT_PASSPORT, "Pasaporte")),
            required=True,
        ),
        FormField("rut", "RUT", max_length=20),
        FormField("passport", "Pasaporte", max_length=40),
        FormField("birth_date", "Fecha de nacimiento (año/mes/día)", required=True, max_length=20),
        FormField(
            "nationality",
            "Nacionalidad",
            kind="select",
            options=tuple((name, name) for name in nationalities()),
            required=True,
        ),
        FormField("phone", "Celular", max_length=40),
        FormField("verified", "Identidad verificada", kind="checkbox"),
        FormField("agency_uid", "Agencia", kind="select", from_data=True),
        FormField("type_uid", "Tipo de anunciante", kind="select", from_data=True),
    ),
    search_label="Buscar por nombre, correo, RUT, pasaporte o celular",
    profiles=(ADMIN, SECRETARY),
    actions=frozenset({"create", "edit", "delete", "export"}),
    admin_only_actions=frozenset({"delete", "export"}),
    csv_name="anunciantes",
)


def site_day(iso_day: str) -> str:
    """A day as the rest of the site writes it, año/mes/día ("1994/09/30"), like the wizard's date fields."""
    return format_date(date.fromisoformat(iso_day), "YYYY/MM/DD")


def _document_label(row: dict[str, Any]) -> str:
    return f"Pasaporte {row['passport']}" if row["document"] == DOCUMENT_PASSPORT else f"RUT {row['rut']}"


class AdvertisersTableState(StaffTableState, rx.State):
    """profesor, for both staff areas."""

    _spec: ClassVar[TableSpec] = ADVERTISERS_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_directory.list_advertisers(session=session, actor_uid=actor.uid, query=query)
        return [
            table_cells(row, {"birth_date": site_day}) | {"document_label": _document_label(row)} for row in found.rows
        ], found.total

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        return {
            "agency_uid": [
                list(option) for option in staff_directory.agency_options(session=session, actor_uid=actor.uid)
            ],
            "type_uid": catalogue_options(session, actor, catalogues.ADVERTISER_TYPES),
        }

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        row = staff_directory.get_advertiser(session=session, actor_uid=actor.uid, uid=uid)
        return form_values(row | {"birth_date": site_day(row["birth_date"])})

    @staticmethod
    def _create(session: Session, *, actor: Actor, values: dict[str, Any]) -> None:
        staff_directory.create_advertiser(session=session, actor_uid=actor.uid, data=values)

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_directory.update_advertiser(session=session, actor_uid=actor.uid, uid=uid, data=values)

    @staticmethod
    def _delete(session: Session, *, actor: Actor, uid: str) -> None:
        staff_directory.delete_advertiser(session=session, actor_uid=actor.uid, uid=uid)


AGENCIES_SPEC = TableSpec(
    entity=staff_directory.AGENCIES,
    title="Agencias",
    columns=(
        Column("name", "Nombre", sortable=True),
        Column("category", "Categoría"),
        Column("email", "Correo", sortable=True),
        Column("phone", "Teléfono"),
        Column("activo", "Activa"),
    ),
    default_sort="name",
    filters=(Filter("category", "Categoría", from_data=True),),
    form_fields=(
        FormField("name", "Nombre", required=True, max_length=120),
        FormField("category_uid", "Categoría", kind="select", from_data=True),
        FormField("email", "Correo", max_length=254),
        FormField("phone", "Teléfono", max_length=30),
        FormField("activo", "Activa", kind="checkbox"),
    ),
    search_label="Buscar por nombre, correo o teléfono",
    profiles=(ADMIN,),
    csv_name="agencias",
)


class AgenciesTableState(StaffTableState, rx.State):
    """agencia, the administrator's only."""

    _spec: ClassVar[TableSpec] = AGENCIES_SPEC

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_directory.list_agencies(session=session, actor_uid=actor.uid, query=query)
        return [table_cells(row) for row in found.rows], found.total

    @staticmethod
    def _options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        categories = catalogue_options(session, actor, catalogues.AGENCY_CATEGORIES)
        return {"category": categories, "category_uid": categories}

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return form_values(staff_directory.get_agency(session=session, actor_uid=actor.uid, uid=uid))

    @staticmethod
    def _create(session: Session, *, actor: Actor, values: dict[str, Any]) -> None:
        staff_directory.create_agency(session=session, actor_uid=actor.uid, data=values)

    @staticmethod
    def _update(session: Session, *, actor: Actor, uid: str, values: dict[str, Any]) -> None:
        staff_directory.update_agency(session=session, actor_uid=actor.uid, uid=uid, data=values)

    @staticmethod
    def _delete(session: Session, *, actor: Actor, uid: str) -> None:
        staff_directory.delete_agency(session=session, actor_uid=actor.uid, uid=uid)
