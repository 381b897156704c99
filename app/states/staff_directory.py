"""Advertisers (profesor: /admin and /bbitamia) and agencies (agencia: /admin) on the one staff table.

Staff see an advertiser's private fields (e-mail, RUT or passport, birth date, nationality) here
and nowhere else; only an administrator deletes an advertiser or touches agencies. The services
(``app.services.staff_directory``) check all of this again and audit every write.
"""

from __future__ import annotations

from typing import Any, ClassVar

import reflex as rx
from sqlmodel import Session

from app.core.actor import Actor
from app.services import catalogues, staff_directory
from app.services.listing_form import DOCUMENT_PASSPORT, DOCUMENT_RUT, nationalities
from app.states.staff_catalogues import form_values, table_cells
from app.states.staff_table import ADMIN, SECRETARY, Column, Filter, FormField, StaffTableState, TableSpec

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
        FormField("display_name", "Nombre", required=True, max_length=80, on_create=False),
        FormField(
            "document",
            "Documento",
            kind="select",
            options=((DOCUMENT_RUT, "RUT"), (DOCUMENT_PASSPORT, "Pasaporte")),
            required=True,
            on_create=False,
        ),
        FormField("rut", "RUT", max_length=20, on_create=False),
        FormField("passport", "Pasaporte", max_length=40, on_create=False),
        FormField("birth_date", "Fecha de nacimiento (año/mes/día)", required=True, max_length=20, on_create=False),
        FormField(
            "nationality",
            "Nacionalidad",
            kind="select",
            options=tuple((name, name) for name in nationalities()),
            required=True,
            on_create=False,
        ),
        FormField("phone", "Celular", max_length=40, on_create=False),
        FormField("verified", "Identidad verificada", kind="checkbox", on_create=False),
        FormField("agency", "Agencia (nombre; vacío: ninguna)", max_length=120, on_create=False),
        FormField("type", "Tipo de anunciante (nombre; vacío: ninguno)", max_length=60, on_create=False),
    ),
    search_label="Buscar por nombre, correo, RUT, pasaporte o celular",
    profiles=(ADMIN, SECRETARY),
    actions=frozenset({"edit", "delete", "export"}),
    admin_only_actions=frozenset({"delete", "export"}),
    csv_name="anunciantes",
)


def _document_label(row: dict[str, Any]) -> str:
    return f"Pasaporte {row['passport']}" if row["document"] == DOCUMENT_PASSPORT else f"RUT {row['rut']}"


class AdvertisersTableState(StaffTableState, rx.State):
    """profesor, for both staff areas."""

    _spec: ClassVar[TableSpec] = ADVERTISERS_SPEC
    _export_chunk: ClassVar[int] = catalogues.PAGE_SIZE

    @staticmethod
    def _query(
        session: Session,
        *,
        actor: Actor,
        search: str,
        sort_key: str,
        desc: bool,
        filters: dict[str, str],
        page: int,
        page_size: int,
    ) -> tuple[list[dict[str, str]], int]:
        found = staff_directory.list_advertisers(
            session=session,
            actor_uid=actor.uid,
            search=search,
            verified=filters.get("verified", ""),
            sort=sort_key,
            descending=desc,
            page=page,
            page_size=page_size,
        )
        return [table_cells(row) | {"document_label": _document_label(row)} for row in found.rows], found.total

    @staticmethod
    def _read(session: Session, *, actor: Actor, uid: str) -> dict[str, str]:
        return form_values(staff_directory.get_advertiser(session=session, actor_uid=actor.uid, uid=uid))

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
        FormField("category", "Categoría (nombre; vacío: ninguna)", max_length=60),
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
    _export_chunk: ClassVar[int] = catalogues.PAGE_SIZE

    @staticmethod
    def _query(
        session: Session,
        *,
        actor: Actor,
        search: str,
        sort_key: str,
        desc: bool,
        filters: dict[str, str],
        page: int,
        page_size: int,
    ) -> tuple[list[dict[str, str]], int]:
        found = staff_directory.list_agencies(
            session=session,
            actor_uid=actor.uid,
            search=search,
            category=filters.get("category", ""),
            sort=sort_key,
            descending=desc,
            page=page,
            page_size=page_size,
        )
        return [table_cells(row) for row in found.rows], found.total

    @staticmethod
    def _filter_options(session: Session, *, actor: Actor) -> dict[str, list[list[str]]]:
        options = catalogues.entry_options(session=session, actor_uid=actor.uid, catalogue=catalogues.AGENCY_CATEGORIES)
        return {"category": [[uid, name] for uid, name in options]}

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
