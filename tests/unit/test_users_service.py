"""The user and profile operations of SPEC §4 and §7, on the embedded SQLite."""

from __future__ import annotations

import time

import pytest
from sqlmodel import select

from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.models import Profile, ProfileId, User, UserPublic
from app.services import users


def _new(session, email="ana@example.cl", profile=ProfileId.CLIENTE.value, **extra):
    return users.create_user(
        session=session, data={"email": email, "display_name": "Ana", "profile_uid": profile, **extra}
    )


def test_migration_creates_the_four_fixed_profiles(session):
    profiles = users.list_profiles(session=session)
    assert [p.uid for p in profiles] == ["administrador", "cliente", "profesor", "secretaria"]
    assert session.get(Profile, "profesor").label == "Anunciante"


def test_create_writes_uid_and_created_at_and_lowercases_email(session):
    created = _new(session, email="  Ana@Example.CL ")
    assert len(created.uid) == 20 and created.uid.isalnum()
    assert created.created_at is not None and created.created_at.tzinfo is not None
    assert created.email == "ana@example.cl"
    assert UserPublic.model_validate(session.get(User, created.uid)) == created


def test_create_refuses_bad_email_duplicate_email_and_unknown_profile(session):
    _new(session)
    with pytest.raises(ConflictError, match="Ya existe una cuenta"):
        _new(session, email="ANA@example.cl")
    with pytest.raises(InvalidInputError, match="correo electrónico no es válido"):
        _new(session, email="no-es-correo")
    with pytest.raises(InvalidInputError, match="perfil indicado no existe"):
        _new(session, email="b@example.cl", profile="superusuario")
    assert len(session.exec(select(User)).all()) == 1


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
    session.expire_all()
    assert session.get(User, other.uid).email == "b@example.cl"


def test_find_by_email_returns_first_match_or_none(session):
    created = _new(session)
    assert users.find_user_by_email(session=session, email="ANA@example.cl").uid == created.uid
    assert users.find_user_by_email(session=session, email="otra@example.cl") is None
    assert users.find_user_by_email(session=session, email="") is None
