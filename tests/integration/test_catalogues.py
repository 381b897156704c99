"""Catalogues for administrators: CRUD with Spanish field errors, audit entries, in-use refusals,
tier reordering that rewrites every listing's tier_rank in one statement, and the secretary refused."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import event
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError
from app.db import get_engine
from app.models import (
    AdvertiserService,
    AppService,
    AuditEntry,
    Listing,
    ListingService,
    ListingUpgrade,
    Profile,
    Tier,
    UpgradeEffect,
    utc_now,
)
from app.services.staff import catalogues
from app.services.staff.catalogues import (
    ADVERTISER_SERVICES,
    ADVERTISER_TYPES,
    APP_SERVICES,
    PROFILES,
    TIERS,
    create_entry,
    delete_entry,
    list_entries,
    reorder_tiers,
    update_entry,
)
from app.services.staff.shared import TableQuery
from tests.factories import actor_of, claiming_staff, make_listing, make_owner, make_staff, tier_of


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


@pytest.fixture
def admin(db):
    return make_staff(db, "admin@example.cl", "administrador")


@pytest.fixture
def secretary(db):
    return make_staff(db, "secretaria@example.cl", "secretaria")


def _service_in_use(db, name: str = "Masajes") -> AdvertiserService:
    service = AdvertiserService(name=name)
    db.add(service)
    db.commit()
    listing = make_listing(db, make_owner(db, f"duena-{name.lower()}@example.cl"))
    db.add(ListingService(listing_uid=listing.uid, service_uid=service.uid))
    db.commit()
    return service


def test_an_administrator_creates_edits_and_deletes_an_entry_each_write_audited(db, admin):
    created = create_entry(session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, data={"name": " Cena "})
    assert created["name"] == "Cena"
    update_entry(
        session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, uid=created["uid"], data={"name": "Cenas"}
    )
    assert db.get(AdvertiserService, created["uid"]).name == "Cenas"
    delete_entry(session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, uid=created["uid"])
    assert db.get(AdvertiserService, created["uid"]) is None
    entries = db.exec(select(AuditEntry).where(AuditEntry.entity_uid == created["uid"])).all()
    by_action = {entry.action: entry for entry in entries}
    assert set(by_action) == {"crear", "editar", "eliminar"}
    assert all(entry.actor_uid == admin.uid and entry.entity == ADVERTISER_SERVICES for entry in entries)
    assert json.loads(by_action["editar"].before_json)["name"] == "Cena"
    assert json.loads(by_action["editar"].after_json)["name"] == "Cenas"
    assert json.loads(by_action["eliminar"].before_json)["name"] == "Cenas"


def test_the_secretary_and_other_profiles_are_refused_by_the_service(db, secretary):
    owner = make_owner(db, "duena@example.cl")
    service = _service_in_use(db)
    for caller in (secretary.uid, owner.uid, "", None):
        with pytest.raises(ForbiddenError):
            list_entries(session=db, actor=claiming_staff(caller), catalogue=TIERS, query=TableQuery())
        with pytest.raises(ForbiddenError):
            create_entry(
                session=db, actor=claiming_staff(caller), catalogue=ADVERTISER_TYPES, data={"name": "Independiente"}
            )
        with pytest.raises(ForbiddenError):
            update_entry(
                session=db,
                actor=claiming_staff(caller),
                catalogue=ADVERTISER_SERVICES,
                uid=service.uid,
                data={"name": "X"},
            )
        with pytest.raises(ForbiddenError):
            delete_entry(session=db, actor=claiming_staff(caller), catalogue=ADVERTISER_SERVICES, uid=service.uid)
        with pytest.raises(ForbiddenError):
            reorder_tiers(session=db, actor=claiming_staff(caller), ordered_uids=[])
    assert db.get(AdvertiserService, service.uid).name == "Masajes"
    assert db.exec(select(AuditEntry)).all() == []


def test_an_entry_in_use_is_not_deleted_and_the_message_says_where(db, admin):
    service = _service_in_use(db)
    with pytest.raises(ConflictError, match=r"^Este servicio está en 1 publicación\.$"):
        delete_entry(session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, uid=service.uid)
    owner = make_owner(db, "otra@example.cl")
    platino = tier_of(db, "platino")
    used_before = db.exec(select(Listing).where(Listing.tier_uid == platino.uid)).all()
    make_listing(db, owner, name="Dos")
    lifted = make_listing(db, owner, name="Tres", tier="ruby")
    lifted.base_tier_uid = platino.uid  # shown in Ruby by an upgrade, its own tier is Platino
    db.add(lifted)
    db.commit()
    with pytest.raises(ConflictError, match=rf"^Esta categoría la usan {len(used_before) + 2} publicaciones\.$"):
        delete_entry(session=db, actor=actor_of(admin), catalogue=TIERS, uid=platino.uid)
    upgrade_service = AppService(name="Subir", price_clp=5000, duration_days=7, effect=UpgradeEffect.BUMP)
    db.add(upgrade_service)
    db.commit()
    listing = db.exec(select(Listing)).first()
    for _ in range(2):
        db.add(
            ListingUpgrade(
                listing_uid=listing.uid,
                app_service_uid=upgrade_service.uid,
                requested_by_uid=listing.owner_uid,
                amount_clp=5000,
            )
        )
    db.commit()
    with pytest.raises(ConflictError, match=r"^Este servicio está en 2 mejoras\.$"):
        delete_entry(session=db, actor=actor_of(admin), catalogue=APP_SERVICES, uid=upgrade_service.uid)
    with pytest.raises(ConflictError, match="perfiles fijos"):
        delete_entry(session=db, actor=actor_of(admin), catalogue=PROFILES, uid="secretaria")
    db.rollback()
    assert db.get(AdvertiserService, service.uid) is not None and db.get(Tier, platino.uid) is not None
    assert db.exec(select(AuditEntry)).all() == []


def test_profiles_are_created_labelled_and_deleted_when_nobody_holds_them(db, admin):
    created = create_entry(
        session=db, actor=actor_of(admin), catalogue=PROFILES, data={"uid": "moderador", "label": "Moderación"}
    )
    assert created["name"] == "moderador"
    update_entry(session=db, actor=actor_of(admin), catalogue=PROFILES, uid="moderador", data={"label": "Moderadora"})
    assert db.get(Profile, "moderador").label == "Moderadora"
    make_staff(db, "mod@example.cl", "moderador")
    with pytest.raises(ConflictError, match=r"^Este perfil lo tiene 1 usuario\.$"):
        delete_entry(session=db, actor=actor_of(admin), catalogue=PROFILES, uid="moderador")
    with pytest.raises(InvalidInputError) as clash:
        create_entry(session=db, actor=actor_of(admin), catalogue=PROFILES, data={"uid": "moderador", "label": "Otra"})
    assert clash.value.field == "uid"


def test_forms_answer_with_a_spanish_message_for_the_field(db, admin):
    cases = [
        (TIERS, {"name": "", "display_order": "5"}, "name", "Completa este campo."),
        (TIERS, {"name": "Oro", "display_order": "cinco"}, "display_order", "Escribe un número entero."),
        (TIERS, {"name": "Oro", "display_order": "0"}, "display_order", "Escribe un número mayor o igual a 1."),
        (TIERS, {"name": "Otro", "slug": "platino", "display_order": "5"}, "slug", "nombre corto"),
        (ADVERTISER_TYPES, {"name": "x" * 61}, "name", "Escribe como máximo 60 caracteres."),
        (
            APP_SERVICES,
            {"name": "Nivel", "price_clp": "1000", "duration_days": "7", "effect": "nivel", "tier_uid": ""},
            "tier_uid",
            "Elige la categoría",
        ),
        (
            APP_SERVICES,
            {"name": "Nivel", "price_clp": "1000", "duration_days": "7", "effect": "nivel", "tier_uid": "nada"},
            "tier_uid",
            "Elige una categoría de la lista.",
        ),
        (PROFILES, {"uid": "Con Espacios", "label": "X"}, "uid", "minúsculas"),
    ]
    for catalogue, data, field, message in cases:
        with pytest.raises(InvalidInputError) as refused:
            create_entry(session=db, actor=actor_of(admin), catalogue=catalogue, data=data)
        assert refused.value.field == field, (catalogue, data)
        assert message in refused.value.message
    assert db.exec(select(AuditEntry)).all() == []


def test_a_tier_upgrade_service_keeps_its_tier_and_other_effects_drop_it(db, admin):
    ruby = tier_of(db, "ruby")
    upgrade = create_entry(
        session=db,
        actor=actor_of(admin),
        catalogue=APP_SERVICES,
        data={
            "name": "Sube a Ruby",
            "price_clp": "9990",
            "duration_days": "30",
            "effect": "nivel",
            "tier_uid": ruby.uid,
        },
    )
    assert upgrade["tier_uid"] == ruby.uid and upgrade["tier"] == "Ruby" and upgrade["effect"] == "nivel"
    assert (
        catalogues.get_entry(session=db, actor=actor_of(admin), catalogue=APP_SERVICES, uid=upgrade["uid"]) == upgrade
    )
    bump = create_entry(
        session=db,
        actor=actor_of(admin),
        catalogue=APP_SERVICES,
        data={"name": "Subir", "price_clp": "990", "duration_days": "1", "effect": "subir", "tier_uid": ruby.uid},
    )
    assert bump["tier_uid"] == "" and bump["activo"] is True


def _count_listing_updates(engine):
    statements: list[str] = []

    def before(conn, cursor, statement, parameters, context, executemany):
        if statement.lstrip().upper().startswith("UPDATE PUBLICACION"):
            statements.append(statement)

    event.listen(engine, "before_cursor_execute", before)
    return statements, lambda: event.remove(engine, "before_cursor_execute", before)


def test_reordering_the_tiers_rewrites_every_listing_rank_in_one_statement(db, admin):
    owner = make_owner(db, "duena@example.cl")
    diamante, ruby, platino, chicas = (tier_of(db, slug) for slug in ("diamante", "ruby", "platino", "chicas-del-dia"))
    in_platino = [make_listing(db, owner, name=f"P{i}", tier="platino") for i in range(3)]
    in_diamante = make_listing(db, owner, name="D", tier="diamante")
    draft = make_listing(db, owner, name="B", status="borrador", tier="ruby")
    statements, stop = _count_listing_updates(get_engine())
    try:
        reorder_tiers(session=db, actor=actor_of(admin), ordered_uids=[platino.uid, diamante.uid, ruby.uid, chicas.uid])
    finally:
        stop()
    assert len(statements) == 1
    ranks = {listing.uid: listing.tier_rank for listing in db.exec(select(Listing)).all()}
    assert {ranks[listing.uid] for listing in in_platino} == {1}
    assert ranks[in_diamante.uid] == 2 and ranks[draft.uid] == 3
    moved = db.exec(select(AuditEntry).where(AuditEntry.action == "ordenar")).all()
    assert {entry.entity_uid for entry in moved} == {platino.uid, diamante.uid, ruby.uid}
    with pytest.raises(InvalidInputError):
        reorder_tiers(session=db, actor=actor_of(admin), ordered_uids=[platino.uid, diamante.uid])


def test_moving_a_tier_up_swaps_it_with_the_one_above(db, admin):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, tier="ruby")
    catalogues.move_tier(session=db, actor=actor_of(admin), uid=tier_of(db, "ruby").uid, step=-1)
    tiers = list_entries(session=db, actor=actor_of(admin), catalogue=TIERS, query=TableQuery())
    assert [row["slug"] for row in tiers.rows] == ["ruby", "diamante", "platino", "chicas-del-dia"]
    db.expire_all()
    assert db.get(Listing, listing.uid).tier_rank == 1


def test_editing_a_tier_display_order_rewrites_ranks_with_the_edit(db, admin):
    owner = make_owner(db, "duena@example.cl")
    listing = make_listing(db, owner, tier="chicas-del-dia")
    chicas = tier_of(db, "chicas-del-dia")
    data = {"name": chicas.name, "slug": chicas.slug, "display_order": "9", "description": ""}
    update_entry(session=db, actor=actor_of(admin), catalogue=TIERS, uid=chicas.uid, data=data)
    db.expire_all()
    assert db.get(Listing, listing.uid).tier_rank == 9
    assert db.get(Tier, chicas.uid).display_order == 9


def test_a_page_of_fifty_rows_searched_and_sorted_on_whitelisted_columns(db, admin):
    for i in range(60):
        db.add(AdvertiserService(name=f"Servicio {i:02d}", created_at=utc_now() - timedelta(minutes=i)))
    db.commit()
    first = list_entries(session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, query=TableQuery())
    assert len(first.rows) == 50 and first.total == 60 and first.page_size == 50
    second = list_entries(session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, query=TableQuery(page=2))
    assert len(second.rows) == 10 and second.rows[-1]["name"] == "Servicio 59"
    newest = list_entries(
        session=db,
        actor=actor_of(admin),
        catalogue=ADVERTISER_SERVICES,
        query=TableQuery(sort="name", descending=True, page_size=3),
    )
    assert [row["name"] for row in newest.rows] == ["Servicio 59", "Servicio 58", "Servicio 57"]
    unknown = list_entries(
        session=db,
        actor=actor_of(admin),
        catalogue=ADVERTISER_SERVICES,
        query=TableQuery(sort="uid; drop", page_size=1),
    )
    assert unknown.rows[0]["name"] == "Servicio 00"
    found = list_entries(
        session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, query=TableQuery(search="icio 4")
    )
    assert found.total == 10
    assert (
        list_entries(
            session=db, actor=actor_of(admin), catalogue=ADVERTISER_SERVICES, query=TableQuery(search="100%")
        ).total
        == 0
    )
    tiers = list_entries(session=db, actor=actor_of(admin), catalogue=TIERS, query=TableQuery())
    assert [row["slug"] for row in tiers.rows] == ["diamante", "ruby", "platino", "chicas-del-dia"]


def test_an_unknown_catalogue_is_not_found(db, admin):
    with pytest.raises(catalogues.NotFoundError):
        list_entries(session=db, actor=actor_of(admin), catalogue="usuarios", query=TableQuery())


def test_every_sortable_column_of_a_catalogue_page_sorts_in_the_service():
    from app.states.staff.catalogues import CATALOGUE_STATES

    assert set(CATALOGUE_STATES) == set(catalogues.CATALOGUES)
    for key, state in CATALOGUE_STATES.items():
        assert state._spec is catalogues.CATALOGUES[key].table, key
        assert {field.key for field in state._spec.form_fields} <= set(
            catalogues.CATALOGUES[key].create_form.model_fields
        )
