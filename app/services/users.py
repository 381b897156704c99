"""User and profile operations (SPEC §4 and §7).

Every write commits or rolls back before returning: a failure raises a typed
ServiceError with a Spanish message and leaves the database unchanged.
``create_user`` and ``update_user`` also serve as inner steps of a larger
operation (app.services.accounts): with ``commit=False`` they only flush, and
the outermost operation commits once or rolls everything back.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlmodel import Session, col, select

from app import db
from app.core.errors import ConflictError, InvalidInputError, NotFoundError, StorageError, validated_input
from app.models import (
    PROFILE_LABELS,
    Profile,
    ProfileId,
    ProfilePublic,
    User,
    UserCreate,
    UserPublic,
    UserUpdate,
    new_uid,
    utc_now,
)


def _flush(session: Session, failure: str) -> None:
    """Flush inside the caller's transaction; a refusal raises a typed error (the caller rolls back)."""
    try:
        session.flush()
    except IntegrityError as exc:
        raise ConflictError(failure) from exc
    except SQLAlchemyError as exc:
        raise StorageError(failure) from exc


def _write(session: Session, failure: str, *, commit: bool) -> None:
    """Commit (a whole operation), or only flush (a step of the caller's transaction)."""
    if commit:
        db.commit(session, failure, conflict=True)
    else:
        _flush(session, failure)


M = TypeVar("M", bound=BaseModel)


def _validated(model: type[M], data: object) -> M:
    """Validate ``data`` (a dict, or a model to check again) into ``model``; a refusal becomes InvalidInputError."""
    if isinstance(data, model):
        data = data.model_dump(exclude_unset=True)
    return validated_input(model, data, fallback="Los datos ingresados no son válidos.")


# --- profiles ---------------------------------------------------------------


def ensure_fixed_profiles(*, session: Session) -> list[ProfilePublic]:
    """Create any of the four fixed profiles that is missing; return all four."""
    existing = {p.uid for p in session.exec(select(Profile)).all()}
    for profile_id in ProfileId:
        if profile_id.value not in existing:
            session.add(Profile(uid=profile_id.value, name=profile_id.value, label=PROFILE_LABELS[profile_id]))
    db.commit(session, "No se pudieron crear los perfiles de usuario.", conflict=True)
    return list_profiles(session=session)


def list_profiles(*, session: Session) -> list[ProfilePublic]:
    """All profiles, in a stable order."""
    rows = session.exec(select(Profile).order_by(Profile.uid)).all()
    return [ProfilePublic.model_validate(row) for row in rows]


# --- users ------------------------------------------------------------------


def create_user(*, session: Session, data: UserCreate | dict[str, Any], commit: bool = True) -> UserPublic:
    """Add a user, then write its uid and created_at (SPEC §4). ``commit=False``: flush only."""
    payload = _validated(UserCreate, data)
    if session.get(Profile, payload.profile_uid) is None:
        raise InvalidInputError("El perfil indicado no existe.")
    if find_user_by_email(session=session, email=payload.email) is not None:
        raise ConflictError("Ya existe una cuenta con ese correo electrónico.")
    now = utc_now()
    row = User(**payload.model_dump(), uid=new_uid(), created_at=now, updated_at=now)
    session.add(row)
    _write(session, "No se pudo crear el usuario.", commit=commit)
    return UserPublic.model_validate(row)


def update_user(*, session: Session, uid: str, data: UserUpdate | dict[str, Any], commit: bool = True) -> UserPublic:
    """Merge the given fields into the user and stamp updated_at. ``commit=False``: flush only."""
    payload = _validated(UserUpdate, data)
    row = session.get(User, uid)
    if row is None:
        raise NotFoundError("El usuario no existe.")
    changes = payload.model_dump(exclude_unset=True)
    if "profile_uid" in changes and session.get(Profile, changes["profile_uid"]) is None:
        raise InvalidInputError("El perfil indicado no existe.")
    if "email" in changes and changes["email"] != row.email:
        other = find_user_by_email(session=session, email=changes["email"])
        if other is not None:
            raise ConflictError("Ya existe una cuenta con ese correo electrónico.")
    for key, value in changes.items():
        setattr(row, key, value)
    row.updated_at = utc_now()
    session.add(row)
    _write(session, "No se pudo actualizar el usuario.", commit=commit)
    return UserPublic.model_validate(row)


def find_user_by_email(*, session: Session, email: str) -> UserPublic | None:
    """The first user with this e-mail (case-insensitive), or None."""
    if not isinstance(email, str) or not email.strip():
        return None
    row = session.exec(
        select(User).where(col(User.email) == email.strip().lower()).order_by(col(User.created_at)).limit(1)
    ).first()
    return UserPublic.model_validate(row) if row else None
