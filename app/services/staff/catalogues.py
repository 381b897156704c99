"""The catalogues administrators maintain, as data: tiers, agency categories, advertiser types,
advertiser services, the app's paid services and the user profiles.

Each catalogue is one :class:`Catalogue` record (its table, form, search and sort whitelist, and
where its entries are used); four functions serve them all: :func:`list_entries`,
:func:`create_entry`, :func:`update_entry` and :func:`delete_entry`. Only administrators may
read or change them (a secretary is refused here, not only in the page). Every write is
audited in the same transaction. An entry in use is never deleted: the refusal says where it
is used. Changing a tier's ``display_order`` (or :func:`reorder_tiers`) rewrites every
listing's ``tier_rank`` with one statement in the same transaction.

"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field, ValidationInfo, computed_field, field_validator
from sqlalchemy import func, or_, update
from sqlalchemy.orm import InstrumentedAttribute
from sqlmodel import Session, SQLModel, col, select

from app.core.actor import Actor
from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.core.text import slugify
from app.db import commit
from app.models import (
    Advertiser,
    AdvertiserService,
    AdvertiserType,
    Agency,
    AgencyCategory,
    AppService,
    Listing,
    ListingService,
    ListingUpgrade,
    Profile,
    ProfileId,
    Tier,
    UpgradeEffect,
    User,
    utc_now,
)
from app.services.staff import audit
from app.services.staff.shared import (
    StaffForm,
    StaffPage,
    TableQuery,
    count_message,
    ensure_admin,
    ensure_staff,
    fetch_page,
    plain,
    search_condition,
    sort_order,
    validated,
)
from app.services.staff.table_spec import ADMIN, Column, FormField, TableSpec, form_fields


def none_if_blank(value: Any) -> Any:
    """None for blank text (a select left empty), else the value."""
    return None if isinstance(value, str) and not value.strip() else value


class TierForm(StaffForm):
    """categoriaProfesor."""

    name: str = Field(min_length=1, max_length=60)
    slug: str = Field(default="", max_length=60)
    display_order: int = Field(ge=1, le=999)
    description: str = Field(default="", max_length=500)

    @field_validator("slug")
    @classmethod
    def _slug(cls, value: str, info: ValidationInfo) -> str:
        slug = slugify(value or info.data.get("name", ""))[:60]
        if not slug:
            raise ValueError("Escribe un nombre corto con letras o números.")
        return slug


class AgencyCategoryForm(StaffForm):
    """categoriaAgencia."""

    name: str = Field(min_length=1, max_length=60)
    display_order: int = Field(default=0, ge=0, le=999)


class NameForm(StaffForm):
    """tipoProfesor and servicioProfesor: a name only."""

    name: str = Field(min_length=1, max_length=60)


class AppServiceForm(StaffForm):
    """servicioApp: a paid upgrade; a tier upgrade names its tier (``tier_uid``)."""

    name: str = Field(min_length=1, max_length=80)
    description: str = Field(default="", max_length=500)
    price_clp: int = Field(ge=0, le=100_000_000)
    duration_days: int = Field(ge=1, le=3650)
    effect: UpgradeEffect | None = None
    tier_uid: str | None = Field(default=None, max_length=40)
    activo: bool = True

    _blank = field_validator("effect", "tier_uid", mode="before")(none_if_blank)

    @field_validator("tier_uid")
    @classmethod
    def _tier(cls, value: str | None, info: ValidationInfo) -> str | None:
        if info.data.get("effect") == UpgradeEffect.TIER:
            if not value:
                raise ValueError("Elige la categoría a la que sube la publicación.")
            return value
        return None


class ProfileCreateForm(StaffForm):
    """perfilUsuario (new): the fixed machine name and the label staff see."""

    uid: str = Field(min_length=2, max_length=40, pattern=r"^[a-z][a-z0-9_-]*$")
    label: str = Field(min_length=1, max_length=60)

    @computed_field  # type: ignore[prop-decorator]  # pydantic's documented form
    @property
    def name(self) -> str:
        return self.uid


class ProfileUpdateForm(StaffForm):
    """perfilUsuario (edit): only the label changes."""

    label: str = Field(min_length=1, max_length=60)


# --------------------------------------------------------------------------- catalogues as data


@dataclass(frozen=True)
class Usage:
    """Where entries of a catalogue are used: rows of ``model`` matching ``where(uid)``, counted."""

    model: type[SQLModel]
    where: Callable[[str], Any]
    singular: str
    plural: str


@dataclass(frozen=True)
class Catalogue:
    """One catalogue: its model, its staff table (columns, sort keys, form), forms, search columns and usages.

    The table's sortable columns are columns of ``model`` by the same name."""

    key: str
    model: type[SQLModel]
    table: TableSpec
    create_form: type[StaffForm]
    search: tuple[str, ...]
    usages: tuple[Usage, ...] = ()
    unique: tuple[tuple[str, str], ...] = ()
    update_form: type[StaffForm] | None = None
    fixed_uids: frozenset[str] = frozenset()
    prepare: Callable[[Session, dict[str, Any]], dict[str, Any]] | None = None
    """Turns the form's values into columns (e.g. a tier's name into its uid), or InvalidInputError."""
    extra: Callable[[Session, SQLModel], dict[str, Any]] | None = None
    """Values a row shows besides its columns (e.g. the name of a referenced entry)."""


def _with_tier_uid(session: Session, values: dict[str, Any]) -> dict[str, Any]:
    if values["tier_uid"] and session.get(Tier, values["tier_uid"]) is None:
        raise InvalidInputError("Elige una categoría de la lista.", field="tier_uid")
    return values


def _tier_name(session: Session, tier_uid: str | None) -> str:
    tier = session.get(Tier, tier_uid) if tier_uid else None
    return tier.name if tier else ""


TIERS = "categoriaProfesor"
AGENCY_CATEGORIES = "categoriaAgencia"
ADVERTISER_TYPES = "tipoProfesor"
ADVERTISER_SERVICES = "servicioProfesor"
APP_SERVICES = "servicioApp"
PROFILES = "perfilUsuario"

EFFECT_OPTIONS: tuple[tuple[str, str], ...] = (
    (UpgradeEffect.TIER.value, "Sube de categoría"),
    (UpgradeEffect.VIP.value, "Pestaña VIP"),
    (UpgradeEffect.BUMP.value, "Primera de su categoría"),
)


def _table(entity: str, title: str, columns: tuple[Column, ...], fields: tuple[FormField, ...], sort: str) -> TableSpec:
    return TableSpec(
        entity=entity,
        title=title,
        columns=columns,
        default_sort=sort,
        form_fields=fields,
        profiles=(ADMIN,),
        actions=frozenset({"create", "edit", "delete", "export"}),
        csv_name=entity,
    )


NAME = FormField("name", "Nombre")

TIERS_SPEC = _table(
    TIERS,
    "Categorías de anunciantes",
    (
        Column("display_order", "Orden", sortable=True),
        Column("name", "Nombre", sortable=True),
        Column("slug", "Nombre corto"),
        Column("description", "Descripción"),
    ),
    form_fields(
        TierForm,
        NAME,
        FormField("slug", "Nombre corto (vacío: se toma del nombre)"),
        FormField("display_order", "Orden en la página de la ciudad (1 primero)", kind="number"),
        FormField("description", "Descripción", kind="textarea"),
    ),
    "display_order",
)
AGENCY_CATEGORIES_SPEC = _table(
    AGENCY_CATEGORIES,
    "Categorías de agencias",
    (Column("display_order", "Orden", sortable=True), Column("name", "Nombre", sortable=True)),
    form_fields(AgencyCategoryForm, NAME, FormField("display_order", "Orden", kind="number")),
    "display_order",
)
ADVERTISER_TYPES_SPEC = _table(
    ADVERTISER_TYPES,
    "Tipos de anunciante",
    (Column("name", "Nombre", sortable=True),),
    form_fields(NameForm, NAME),
    "name",
)
ADVERTISER_SERVICES_SPEC = _table(
    ADVERTISER_SERVICES,
    "Servicios de los anunciantes",
    (Column("name", "Nombre", sortable=True),),
    form_fields(NameForm, NAME),
    "name",
)
APP_SERVICES_SPEC = _table(
    APP_SERVICES,
    "Servicios del sitio",
    (
        Column("name", "Nombre", sortable=True),
        Column("price_clp", "Precio", sortable=True),
        Column("duration_days", "Días", sortable=True),
        Column("effect", "Efecto"),
        Column("tier", "Categoría"),
        Column("activo", "Activo"),
    ),
    form_fields(
        AppServiceForm,
        NAME,
        FormField("description", "Descripción", kind="textarea"),
        FormField("price_clp", "Precio en pesos", kind="number"),
        FormField("duration_days", "Duración en días", kind="number"),
        FormField("effect", "Efecto (vacío: lo vende el equipo a mano)", kind="select", options=EFFECT_OPTIONS),
        FormField("tier_uid", "Categoría a la que sube (solo «Sube de categoría»)", kind="select", from_data=True),
        FormField("activo", "Activo", kind="checkbox"),
    ),
    "name",
)
PROFILES_SPEC = _table(
    PROFILES,
    "Perfiles de usuario",
    (Column("uid", "Identificador", sortable=True), Column("label", "Nombre", sortable=True)),
    form_fields(
        ProfileCreateForm,
        FormField("uid", "Identificador (minúsculas, sin espacios)", on_edit=False),
        FormField("label", "Nombre"),
    ),
    "uid",
)

CATALOGUES: dict[str, Catalogue] = {
    c.key: c
    for c in (
        Catalogue(
            key=TIERS,
            model=Tier,
            table=TIERS_SPEC,
            create_form=TierForm,
            search=("name", "slug"),
            usages=(
                Usage(
                    Listing,
                    lambda uid: or_(col(Listing.tier_uid) == uid, col(Listing.base_tier_uid) == uid),
                    "Esta categoría la usa 1 publicación.",
                    "Esta categoría la usan {n} publicaciones.",
                ),
                Usage(
                    AppService,
                    lambda uid: AppService.tier_uid == uid,
                    "Esta categoría la usa 1 servicio de la app.",
                    "Esta categoría la usan {n} servicios de la app.",
                ),
            ),
            unique=(("slug", "Ya existe una categoría con ese nombre corto."),),
        ),
        Catalogue(
            key=AGENCY_CATEGORIES,
            model=AgencyCategory,
            table=AGENCY_CATEGORIES_SPEC,
            create_form=AgencyCategoryForm,
            search=("name",),
            usages=(
                Usage(
                    Agency,
                    lambda uid: Agency.category_uid == uid,
                    "Esta categoría la usa 1 agencia.",
                    "Esta categoría la usan {n} agencias.",
                ),
            ),
        ),
        Catalogue(
            key=ADVERTISER_TYPES,
            model=AdvertiserType,
            table=ADVERTISER_TYPES_SPEC,
            create_form=NameForm,
            search=("name",),
            usages=(
                Usage(
                    Advertiser,
                    lambda uid: Advertiser.type_uid == uid,
                    "Este tipo lo usa 1 anunciante.",
                    "Este tipo lo usan {n} anunciantes.",
                ),
            ),
        ),
        Catalogue(
            key=ADVERTISER_SERVICES,
            model=AdvertiserService,
            table=ADVERTISER_SERVICES_SPEC,
            create_form=NameForm,
            search=("name",),
            usages=(
                Usage(
                    ListingService,
                    lambda uid: ListingService.service_uid == uid,
                    "Este servicio está en 1 publicación.",
                    "Este servicio está en {n} publicaciones.",
                ),
            ),
            unique=(("name", "Ya existe un servicio con ese nombre."),),
        ),
        Catalogue(
            key=APP_SERVICES,
            model=AppService,
            table=APP_SERVICES_SPEC,
            create_form=AppServiceForm,
            search=("name", "description"),
            usages=(
                Usage(
                    ListingUpgrade,
                    lambda uid: ListingUpgrade.app_service_uid == uid,
                    "Este servicio está en 1 mejora.",
                    "Este servicio está en {n} mejoras.",
                ),
            ),
            prepare=lambda session, values: _with_tier_uid(session, values),
            extra=lambda session, entry: {"tier": _tier_name(session, entry.tier_uid)},  # type: ignore[attr-defined]  # a Usage row
        ),
        Catalogue(
            key=PROFILES,
            model=Profile,
            table=PROFILES_SPEC,
            create_form=ProfileCreateForm,
            update_form=ProfileUpdateForm,
            search=("uid", "label"),
            usages=(
                Usage(
                    User,
                    lambda uid: User.profile_uid == uid,
                    "Este perfil lo tiene 1 usuario.",
                    "Este perfil lo tienen {n} usuarios.",
                ),
            ),
            unique=(("uid", "Ya existe un perfil con ese identificador."),),
            fixed_uids=frozenset(p.value for p in ProfileId),
        ),
    )
}


def _catalogue(key: object) -> Catalogue:
    found = CATALOGUES.get(key) if isinstance(key, str) else None
    if found is None:
        raise NotFoundError("Ese catálogo no existe.")
    return found


def _column(model: type[SQLModel], name: str) -> InstrumentedAttribute[Any]:
    column: InstrumentedAttribute[Any] = getattr(model, name)
    return column


def _row(session: Session, catalogue: Catalogue, entry: SQLModel) -> dict[str, Any]:
    values = {column.name: plain(getattr(entry, column.name)) for column in entry.__table__.columns}  # type: ignore[attr-defined]  # a table class has one
    return values | (catalogue.extra(session, entry) if catalogue.extra else {})


# --------------------------------------------------------------------------- reading


def list_entries(*, session: Session, actor: Actor, catalogue: str, query: TableQuery) -> StaffPage:
    """One page of a catalogue, searched and sorted on a whitelisted column (administrators only)."""
    ensure_admin(session, actor.uid)
    spec = _catalogue(catalogue)
    model = spec.model
    condition = search_condition([_column(model, name) for name in spec.search], query)
    statement = select(model).where(*([condition] if condition is not None else []))
    sorts = {name: _column(model, name) for name in spec.table.sort_keys}
    entries, total = fetch_page(session, statement, query, sort_order(spec.table, sorts, query, _column(model, "uid")))
    return StaffPage([_row(session, spec, entry) for entry in entries], total, query.page, query.page_size)


def entry_options(*, session: Session, actor: Actor, catalogue: str) -> list[tuple[str, str]]:
    """(uid, name) of every entry of a small catalogue, for a select in a staff form (staff only)."""
    ensure_staff(session, actor.uid)
    spec = _catalogue(catalogue)
    label = _column(spec.model, "label" if spec.model is Profile else "name")
    order = _column(spec.model, spec.table.default_sort)
    rows = session.exec(select(_column(spec.model, "uid"), label).order_by(order).limit(500)).all()
    return [(uid, name) for uid, name in rows]


# --------------------------------------------------------------------------- writing


def _values(session: Session, spec: Catalogue, form: type[StaffForm], data: Mapping[str, Any]) -> dict[str, Any]:
    values = validated(form, data).model_dump()
    return spec.prepare(session, values) if spec.prepare else values


def _check(session: Session, spec: Catalogue, values: dict[str, Any], uid: str | None) -> None:
    for name, message in spec.unique:
        if name not in values:
            continue
        column = _column(spec.model, name)
        clash = session.exec(select(_column(spec.model, "uid")).where(column == values[name])).first()
        if clash is not None and clash != uid:
            raise InvalidInputError(message, field=name)


def rewrite_tier_ranks(session: Session) -> None:
    """Every listing's ``tier_rank`` := its tier's ``display_order``, in one UPDATE (not committed)."""
    rank = select(Tier.display_order).where(Tier.uid == Listing.tier_uid).scalar_subquery()
    session.execute(
        update(Listing).where(col(Listing.tier_uid).is_not(None)).values(tier_rank=rank),
        execution_options={"synchronize_session": "fetch"},
    )


def create_entry(*, session: Session, actor: Actor, catalogue: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """Add an entry to a catalogue (administrators only); the new row's values."""
    ensure_admin(session, actor.uid)
    spec = _catalogue(catalogue)
    values = _values(session, spec, spec.create_form, data)
    _check(session, spec, values, None)
    now = utc_now()
    entry = spec.model(**values, created_at=now, updated_at=now)
    audit.created(session, entry, actor_uid=actor.uid, entity=spec.key)
    commit(session)
    return _row(session, spec, entry)


def _entry(session: Session, spec: Catalogue, uid: object) -> SQLModel:
    entry = session.get(spec.model, uid) if isinstance(uid, str) and uid else None
    if entry is None:
        raise NotFoundError("No encontramos ese registro.")
    return entry


def get_entry(*, session: Session, actor: Actor, catalogue: str, uid: str) -> dict[str, Any]:
    """One entry's values, for its edit form (administrators only)."""
    ensure_admin(session, actor.uid)
    spec = _catalogue(catalogue)
    return _row(session, spec, _entry(session, spec, uid))


def update_entry(
    *, session: Session, actor: Actor, catalogue: str, uid: str, data: Mapping[str, Any]
) -> dict[str, Any]:
    """Edit an entry (administrators only). A tier's new display order reorders every listing's tier_rank."""
    ensure_admin(session, actor.uid)
    spec = _catalogue(catalogue)
    values = _values(session, spec, spec.update_form or spec.create_form, data)
    entry = _entry(session, spec, uid)
    _check(session, spec, values, entry.uid)  # type: ignore[attr-defined]  # every catalogue row has a uid
    reordered = spec.model is Tier and values["display_order"] != entry.display_order  # type: ignore[attr-defined]  # a Tier
    audit.updated(session, entry, values, actor_uid=actor.uid, entity=spec.key)
    if reordered:
        rewrite_tier_ranks(session)
    commit(session)
    return _row(session, spec, entry)


def usage_message(session: Session, catalogue: str, uid: str) -> str:
    """Where an entry is used, as the Spanish refusal of its deletion ("" when unused)."""
    spec = _catalogue(catalogue)
    for usage in spec.usages:
        count = session.exec(select(func.count()).select_from(usage.model).where(usage.where(uid))).one()
        if count:
            return count_message(count, usage.singular, usage.plural)
    return ""


def delete_entry(*, session: Session, actor: Actor, catalogue: str, uid: str) -> None:
    """Delete an entry no record uses (administrators only); one in use is refused saying where."""
    ensure_admin(session, actor.uid)
    spec = _catalogue(catalogue)
    entry = _entry(session, spec, uid)
    if entry.uid in spec.fixed_uids:  # type: ignore[attr-defined]  # every catalogue row has a uid
        raise ConflictError("Los perfiles fijos no se pueden eliminar.")
    used = usage_message(session, spec.key, entry.uid)  # type: ignore[attr-defined]  # every catalogue row has a uid
    if used:
        raise ConflictError(used)
    audit.deleted(session, entry, actor_uid=actor.uid, entity=spec.key)
    commit(session)


def reorder_tiers(*, session: Session, actor: Actor, ordered_uids: list[str]) -> None:
    """Give the tiers the display orders 1, 2, 3… in ``ordered_uids`` order (every tier, once), and
    rewrite every listing's tier_rank, all in one transaction (administrators only)."""
    ensure_admin(session, actor.uid)
    tiers = {tier.uid: tier for tier in session.exec(select(Tier)).all()}
    if not isinstance(ordered_uids, list) or sorted(map(str, ordered_uids)) != sorted(tiers):
        raise InvalidInputError("El orden debe nombrar cada categoría una vez.")
    now = utc_now()
    for position, uid in enumerate(ordered_uids, start=1):
        tier = tiers[uid]
        if tier.display_order == position:
            continue
        before = audit.snapshot(tier)
        tier.display_order = position
        tier.updated_at = now
        session.add(tier)
        audit.record(
            session,
            actor_uid=actor.uid,
            action="ordenar",
            entity=TIERS,
            entity_uid=uid,
            before=before,
            after=audit.snapshot(tier),
            now=now,
        )
    session.flush()
    rewrite_tier_ranks(session)
    commit(session)


def move_tier(*, session: Session, actor: Actor, uid: str, step: int) -> None:
    """Move a tier ``step`` places up (negative) or down the city page order, then reorder (administrators only)."""
    ensure_admin(session, actor.uid)
    order = list(session.exec(select(col(Tier.uid)).order_by(col(Tier.display_order), col(Tier.name), col(Tier.uid))))
    if uid not in order or step not in (-1, 1):
        raise NotFoundError("No encontramos esa categoría.")
    here = order.index(uid)
    there = min(max(here + step, 0), len(order) - 1)
    order[here], order[there] = order[there], order[here]
    reorder_tiers(session=session, actor=actor, ordered_uids=order)
