"""The staff's users table: what a secretary is refused on the server, bans that end sessions and hide listings,
and an audit entry for every change."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select

from app.core.errors import ConflictError, ForbiddenError, InvalidInputError
from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import AuditEntry, ProfileId, User
from app.services import accounts, listings
from app.services.staff import users as staff_users
from app.services.staff.shared import TableQuery
from tests.factories import actor_of, check_session, make_account, make_listing, open_session


@pytest.fixture
def db(db_on_both: Session) -> Session:
    """SQLite, then PostgreSQL."""
    return db_on_both


@pytest.fixture
def local(db) -> LocalProvider:
    return LocalProvider(engine=get_engine())


@pytest.fixture
def people(db, local) -> dict[str, User]:
    made = {
        name: make_account(db, local, f"{name}@example.cl", profile=profile)
        for name, profile in (
            ("admin", ProfileId.ADMINISTRADOR),
            ("admin2", ProfileId.ADMINISTRADOR),
            ("secre", ProfileId.SECRETARIA),
            ("secre2", ProfileId.SECRETARIA),
            ("duena", ProfileId.PROFESOR),
            ("cliente", ProfileId.CLIENTE),
        )
    }
    return made


def _entries(db, uid: str) -> list[AuditEntry]:
    db.expire_all()
    return list(db.exec(select(AuditEntry).where(AuditEntry.entity_uid == uid)).all())


def _users(db, admin: User, **query) -> tuple[list, int]:
    found = staff_users.list_users(session=db, actor=actor_of(admin), query=TableQuery(**query))
    return found.rows, found.total


def _profile(db, uid: str) -> str:
    db.expire_all()
    return db.get(User, uid).profile_uid


@pytest.mark.parametrize(
    ("target", "profile"),
    [("cliente", "secretaria"), ("cliente", "administrador"), ("secre2", "cliente"), ("admin", "profesor")],
)
def test_a_secretary_cannot_give_or_remove_staff_profiles(db, local, people, target, profile):
    user = people[target]
    before = user.profile_uid
    with pytest.raises(ForbiddenError):
        staff_users.change_profile(
            session=db, provider=local, actor=actor_of(people["secre"]), user_uid=user.uid, profile=profile
        )
    db.rollback()
    assert _profile(db, user.uid) == before
    assert _entries(db, user.uid) == []


def test_a_secretary_moves_a_user_between_visitor_and_advertiser_and_it_is_audited(db, local, people):
    user = people["cliente"]
    staff_users.change_profile(
        session=db, provider=local, actor=actor_of(people["secre"]), user_uid=user.uid, profile="profesor"
    )
    assert _profile(db, user.uid) == "profesor"
    (entry,) = _entries(db, user.uid)
    assert (entry.action, entry.entity, entry.actor_uid) == ("cambiar_perfil", "usuarios", people["secre"].uid)
    assert json.loads(entry.before_json)["profile_uid"] == "cliente"
    assert json.loads(entry.after_json)["profile_uid"] == "profesor"


def test_an_administrator_gives_a_staff_profile(db, local, people):
    user = people["cliente"]
    staff_users.change_profile(
        session=db, provider=local, actor=actor_of(people["admin"]), user_uid=user.uid, profile="secretaria"
    )
    assert _profile(db, user.uid) == "secretaria"


def test_an_unknown_profile_is_a_field_error(db, local, people):
    with pytest.raises(InvalidInputError) as refused:
        staff_users.change_profile(
            session=db, provider=local, actor=actor_of(people["admin"]), user_uid=people["cliente"].uid, profile="rey"
        )
    assert refused.value.field == "perfil"


def test_a_secretary_cannot_ban_or_deactivate_an_administrator(db, local, people):
    admin = people["admin"]
    token = open_session(db, admin.uid)
    with pytest.raises(ForbiddenError):
        staff_users.set_ban(
            session=db, provider=local, actor=actor_of(people["secre"]), user_uid=admin.uid, banned=True
        )
    db.rollback()
    with pytest.raises(ForbiddenError):
        staff_users.set_active(session=db, actor=actor_of(people["secre"]), user_uid=admin.uid, active=False)
    db.rollback()
    db.expire_all()
    stored = db.get(User, admin.uid)
    assert (stored.ban, stored.activo) == (False, True)
    assert check_session(db, token).actor is not None
    assert _entries(db, admin.uid) == []


def _standing(db, uid: str) -> tuple[bool, bool]:
    db.expire_all()
    user = db.get(User, uid)
    return user.ban, user.activo


def test_a_secretary_cannot_ban_or_deactivate_another_secretary(db, local, people):
    other = people["secre2"]
    secretary = actor_of(people["secre"])
    for change in (
        lambda: staff_users.set_ban(session=db, provider=local, actor=secretary, user_uid=other.uid, banned=True),
        lambda: staff_users.set_active(session=db, actor=secretary, user_uid=other.uid, active=False),
        lambda: accounts.set_ban(session=db, provider=local, actor=secretary, user_uid=other.uid, banned=True),
    ):
        with pytest.raises(ForbiddenError) as refused:
            change()
        assert "Solo un administrador" in refused.value.message
        db.rollback()
    assert _standing(db, other.uid) == (False, True)
    assert _entries(db, other.uid) == []
    # An administrator manages staff accounts.
    staff_users.set_active(session=db, actor=actor_of(people["admin"]), user_uid=other.uid, active=False)
    assert _standing(db, other.uid) == (False, False)


def test_a_secretary_cannot_lift_an_administrators_ban_or_deactivation(db, local, people):
    owner, secretary, admin = people["duena"], actor_of(people["secre"]), actor_of(people["admin"])
    staff_users.set_ban(session=db, provider=local, actor=admin, user_uid=owner.uid, banned=True)
    staff_users.set_active(session=db, actor=admin, user_uid=owner.uid, active=False)
    # Banning again herself does not make the ban hers.
    staff_users.set_ban(session=db, provider=local, actor=secretary, user_uid=owner.uid, banned=True)
    entries = len(_entries(db, owner.uid))
    with pytest.raises(ForbiddenError) as refused:
        staff_users.set_ban(session=db, provider=local, actor=secretary, user_uid=owner.uid, banned=False)
    assert refused.value.message == staff_users.ADMIN_BAN_MESSAGE
    db.rollback()
    with pytest.raises(ForbiddenError) as refused:
        staff_users.set_active(session=db, actor=secretary, user_uid=owner.uid, active=True)
    assert refused.value.message == staff_users.ADMIN_DEACTIVATION_MESSAGE
    db.rollback()
    assert _standing(db, owner.uid) == (True, False)
    assert len(_entries(db, owner.uid)) == entries
    # The administrator undoes their own decisions; a later ban of the secretary's is hers to lift.
    staff_users.set_ban(session=db, provider=local, actor=admin, user_uid=owner.uid, banned=False)
    staff_users.set_active(session=db, actor=admin, user_uid=owner.uid, active=True)
    staff_users.set_ban(session=db, provider=local, actor=secretary, user_uid=owner.uid, banned=True)
    staff_users.set_active(session=db, actor=secretary, user_uid=owner.uid, active=False)
    staff_users.set_ban(session=db, provider=local, actor=secretary, user_uid=owner.uid, banned=False)
    staff_users.set_active(session=db, actor=secretary, user_uid=owner.uid, active=True)
    assert _standing(db, owner.uid) == (False, True)


def test_a_ban_nobody_recorded_is_the_administrators_to_lift(db, local, people):
    owner = people["cliente"]
    owner.ban = True
    db.add(owner)
    db.commit()
    with pytest.raises(ForbiddenError):
        staff_users.set_ban(
            session=db, provider=local, actor=actor_of(people["secre"]), user_uid=owner.uid, banned=False
        )
    db.rollback()
    assert _standing(db, owner.uid) == (True, True)


def test_the_table_offers_a_secretary_only_the_buttons_she_may_press(db, local, people):
    admin, secretary = actor_of(people["admin"]), actor_of(people["secre"])
    staff_users.set_ban(session=db, provider=local, actor=admin, user_uid=people["duena"].uid, banned=True)
    staff_users.set_ban(session=db, provider=local, actor=secretary, user_uid=people["cliente"].uid, banned=True)

    def buttons(viewer: User) -> dict[str, tuple[str, str]]:
        rows, _ = _users(db, viewer, page_size=50)
        return {row.email.split("@")[0]: (row.puede_suspender, row.puede_desactivar) for row in rows}

    assert buttons(people["secre"]) == {
        "admin": ("", ""),
        "admin2": ("", ""),
        "secre": ("", ""),
        "secre2": ("", ""),
        "duena": ("", "true"),  # the administrator's ban is not hers to lift
        "cliente": ("true", "true"),
    }
    assert buttons(people["admin"]) == {
        "admin": ("", ""),  # oneself
        "admin2": ("true", "true"),
        "secre": ("true", "true"),
        "secre2": ("true", "true"),
        "duena": ("true", "true"),
        "cliente": ("true", "true"),
    }


def test_someone_not_staff_is_refused(db, local, people):
    for who in ("duena", "cliente"):
        with pytest.raises(ForbiddenError):
            staff_users.set_ban(
                session=db, provider=local, actor=actor_of(people[who]), user_uid=people["secre2"].uid, banned=True
            )
        db.rollback()
        with pytest.raises(ForbiddenError):
            staff_users.list_users(session=db, actor=actor_of(people[who]), query=TableQuery())


def test_a_ban_ends_every_session_at_once_hides_the_listings_and_is_audited(db, local, people):
    owner = people["duena"]
    listing = make_listing(db, owner)
    db.commit()
    phone, laptop = open_session(db, owner.uid), open_session(db, owner.uid)
    assert listings.public_listing(session=db, uid=listing.uid) is not None
    staff_users.set_ban(session=db, provider=local, actor=actor_of(people["secre"]), user_uid=owner.uid, banned=True)
    db.expire_all()
    for token in (phone, laptop):
        check = check_session(db, token)
        assert check.actor is None and check.banned
    assert listings.public_listing(session=db, uid=listing.uid) is None
    (entry,) = _entries(db, owner.uid)
    assert (entry.action, entry.actor_uid) == ("banear", people["secre"].uid)
    assert json.loads(entry.before_json)["ban"] is False and json.loads(entry.after_json)["ban"] is True
    staff_users.set_ban(session=db, provider=local, actor=actor_of(people["admin"]), user_uid=owner.uid, banned=False)
    assert listings.public_listing(session=db, uid=listing.uid) is not None
    assert sorted(e.action for e in _entries(db, owner.uid)) == ["banear", "desbanear"]


def test_deactivation_signs_out_hides_listings_and_is_audited(db, local, people):
    owner = people["duena"]
    listing = make_listing(db, owner)
    db.commit()
    token = open_session(db, owner.uid)
    staff_users.set_active(session=db, actor=actor_of(people["secre"]), user_uid=owner.uid, active=False)
    db.expire_all()
    assert check_session(db, token).actor is None
    assert listings.public_listing(session=db, uid=listing.uid) is None
    (entry,) = _entries(db, owner.uid)
    assert entry.action == "desactivar"
    assert json.loads(entry.after_json)["activo"] is False


def test_staff_cannot_change_their_own_account(db, local, people):
    me = people["admin"]
    with pytest.raises(ConflictError):
        staff_users.set_ban(session=db, provider=local, actor=actor_of(me), user_uid=me.uid, banned=True)


def test_the_list_searches_by_e_mail_filters_and_sorts(db, people):
    admin = people["admin"]
    rows, total = _users(db, admin, search="SECRE")
    assert total == 2 and {row.email for row in rows} == {"secre@example.cl", "secre2@example.cl"}
    rows, total = _users(db, admin, filters={"perfil": "administrador"})
    assert total == 2
    rows, _ = _users(db, admin, sort="email", descending=False)
    assert [row.email for row in rows] == sorted(row.email for row in rows)
    # A sort key outside the whitelist sorts by the default; LIKE wildcards are plain characters.
    rows, total = _users(db, admin, sort="password; drop", search="%")
    assert (rows, total) == ([], 0)
    rows, total = _users(db, admin, page=1, page_size=2)
    assert len(rows) == 2 and total == 6
