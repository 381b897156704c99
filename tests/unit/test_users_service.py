"""The user and profile operations of SPEC §4 and §7, on the embedded SQLite."""

from __future__ import annotations

import time

import pytest

from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.models import ProfileId, User
from app.services import users
from tests.factories import make_listing, make_owner


def _new(session, email="ana@example.cl", profile=ProfileId.CLIENTE.value, **extra):
    return users.create_user(
        session=session, data={"email": email, "display_name": "Ana", "profile_uid": profile, **extra}
    )


def test_migration_creates_the_four_fixed_profiles(session):
    profiles = users.list_profiles(session=session)
    assert [p.uid for p in profiles] == ["administrador", "cliente", "profesor", "secretaria"]
    assert users.get_profile(session=session, uid="profesor").label == "Anunciante"


def test_create_writes_uid_and_created_at_and_lowercases_email(session):
    created = _new(session, email="  Ana@Example.CL ")
    assert len(created.uid) == 20 and created.uid.isalnum()
    assert created.created_at is not None and created.created_at.tzinfo is not None
    assert created.email == "ana@example.cl"
    assert users.get_user(session=session, uid=created.uid) == created


def test_create_refuses_bad_email_duplicate_email_and_unknown_profile(session):
    _new(session)
    with pytest.raises(ConflictError, match="Ya existe una cuenta"):
        _new(session, email="ANA@example.cl")
    with pytest.raises(InvalidInputError, match="correo electrónico no es válido"):
        _new(session, email="no-es-correo")
    with pytest.raises(InvalidInputError, match="perfil indicado no existe"):
        _new(session, email="b@example.cl", profile="superusuario")
    assert len(users.list_active_users(session=session)) == 1


def test_update_merges_and_stamps_updated_at(session):
    created = _new(session)
    time.sleep(0.01)
    updated = users.update_user(session=session, uid=created.uid, data={"online": True})
    assert updated.online is True
    assert updated.display_name == "Ana"  # untouched fields survive the merge
    assert updated.updated_at > created.updated_at


def test_update_of_missing_user_is_not_found(session):
    with pytest.raises(NotFoundError, match="El usuario no existe"):
        users.update_user(session=session, uid="nadie", data={"online": True})


def test_update_refuses_taking_another_users_email(session):
    _new(session, email="a@example.cl")
    other = _new(session, email="b@example.cl")
    with pytest.raises(ConflictError):
        users.update_user(session=session, uid=other.uid, data={"email": "A@example.cl"})
    assert users.get_user(session=session, uid=other.uid).email == "b@example.cl"


def test_only_active_users_are_listed(session):
    active = _new(session, email="a@example.cl")
    inactive = _new(session, email="b@example.cl")
    users.update_user(session=session, uid=inactive.uid, data={"activo": False})
    assert [u.uid for u in users.list_active_users(session=session)] == [active.uid]


def test_find_by_email_returns_first_match_or_none(session):
    created = _new(session)
    assert users.find_user_by_email(session=session, email="ANA@example.cl").uid == created.uid
    assert users.find_user_by_email(session=session, email="otra@example.cl") is None
    assert users.find_user_by_email(session=session, email="") is None


def test_advertisers_are_the_users_with_the_profesor_profile(session):
    _new(session, email="cliente@example.cl")
    advertiser = _new(session, email="anunciante@example.cl", profile=ProfileId.PROFESOR.value)
    assert [u.uid for u in users.list_advertiser_users(session=session)] == [advertiser.uid]


def test_get_missing_user_or_profile_is_none(session):
    assert users.get_user(session=session, uid="no-existe") is None
    assert users.get_profile(session=session, uid="no-existe") is None


def test_delete_user_and_refusals(session):
    created = _new(session)
    users.delete_user(session=session, uid=created.uid)
    assert users.get_user(session=session, uid=created.uid) is None
    with pytest.raises(NotFoundError):
        users.delete_user(session=session, uid=created.uid)
    owner = make_owner(session, "duena@example.cl")
    make_listing(session, owner)
    with pytest.raises(ConflictError, match="tiene publicaciones"):
        users.delete_user(session=session, uid=owner.uid)
    assert session.get(User, owner.uid) is not None


def test_profile_create_update_delete(session):
    created = users.create_profile(
        session=session, data={"uid": "moderador", "name": "moderador", "label": "Moderador"}
    )
    assert created.created_at == created.updated_at
    time.sleep(0.01)
    updated = users.update_profile(session=session, uid="moderador", data={"label": "Moderación"})
    assert updated.label == "Moderación" and updated.updated_at > created.updated_at
    with pytest.raises(ConflictError):
        users.create_profile(session=session, data={"uid": "moderador", "name": "moderador", "label": "Otro"})
    users.delete_profile(session=session, uid="moderador")
    assert users.get_profile(session=session, uid="moderador") is None
    with pytest.raises(NotFoundError):
        users.update_profile(session=session, uid="moderador", data={"label": "x"})


def test_fixed_profiles_cannot_be_deleted(session):
    for profile in ProfileId:
        with pytest.raises(ConflictError, match="perfiles fijos"):
            users.delete_profile(session=session, uid=profile.value)
    assert len(users.list_profiles(session=session)) == 4
