"""The staff's second factor (issue 20 §1): TOTP (RFC 6238) set up at first sign-in, recovery codes, resets.

Administrators and secretaries pass a second factor in every session before it
grants anything (``app.identity.sessions``: such a session resolves to no actor
until ``second_factor_at`` is set). This module sets the factor up, checks codes
and resets it:

- setup: a secret made here, shown once as a QR code drawn on the server (segno)
  and as text; a first code confirms it and ten single-use recovery codes are
  given, stored as argon2 hashes (the project's password hasher);
- codes: a TOTP code of the current time step or the one before or after
  (``VALID_WINDOW``); the step of an accepted code is stored and a code of that
  step or an earlier one is refused, so a code is never accepted twice. A
  recovery code is accepted instead, once. Attempts go through the password
  limits' machinery with counters of their own (``app.identity.throttle.code_check``);
- reset: an administrator resets another staff member's factor (audited, its
  owner e-mailed after the commit, their sessions ended); nobody resets their
  own without a recovery code.

The secret is stored encrypted (Fernet, key derived from SECRET_KEY: changing
SECRET_KEY means every staff member sets the factor up again). It never goes
into Reflex state or a log line; the page receives the QR (as SVG path data:
the site's Content-Security-Policy allows no data: images) and the text in one
event's reply only.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import logging
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import pyotp
import segno
from cryptography.fernet import Fernet, InvalidToken
from pwdlib import PasswordHash
from sqlalchemy import delete, or_, update
from sqlmodel import Session, col, select

from app.content import mail
from app.core.actor import Actor
from app.core.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from app.db import commit, transaction
from app.identity import sessions, throttle
from app.identity.local import password_hasher
from app.models import RecoveryCode, StaffSecondFactor, User, utc_now
from app.services.mail import send_after_commit
from app.services.staff import audit
from app.services.staff.shared import ensure_admin
from app.settings import get_settings

log = logging.getLogger(__name__)

VALID_WINDOW = 1  # time steps accepted on each side of the current one (pyotp's valid_window)
RECOVERY_CODES = 10
RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i to misread
RECOVERY_LENGTH = 10
AUDIT_ENTITY = "usuarios"
AUDIT_ACTION = "restablecer_segundo_factor"

SETUP, VERIFY = "configurar", "verificar"
WRONG_CODE = "El código no es correcto o ya fue usado. Revisa tu app de autenticación e inténtalo de nuevo."
NOT_STAFF = "Solo el equipo del sitio usa segundo factor."
ALREADY_SET_UP = "Ya configuraste tu segundo factor."
NOT_SET_UP = "Aún no configuras tu segundo factor."
NOTHING_TO_RESET = "Esta cuenta no tiene segundo factor que restablecer."
OWN_RESET = (
    "No puedes restablecer tu propio segundo factor desde aquí: ingresa con un código de recuperación "
    "y configúralo de nuevo."
)
RECOVERY_ONLY = "Para configurar de nuevo tu segundo factor, escribe uno de tus códigos de recuperación."
CODE_FIELD = "code"


def _fernet() -> Fernet:
    key = hashlib.sha256(b"segundo-factor\x1f" + get_settings().secret_key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


def encrypt_secret(secret: str) -> str:
    """A TOTP secret as stored: Fernet-encrypted with a key derived from SECRET_KEY."""
    return _fernet().encrypt(secret.encode()).decode()


def _decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        # SECRET_KEY changed: the stored secret cannot be read, so no code can match it.
        log.error("a second-factor secret cannot be decrypted (SECRET_KEY changed?)")
        return ""


def _hasher() -> PasswordHash:
    return password_hasher(get_settings().password_hasher)


def _normalized(code: str) -> str:
    """A code as typed, without spaces or hyphens, lower-cased; "" for anything that is no text."""
    if not isinstance(code, str):
        return ""
    return re.sub(r"[\s-]", "", code)[:64].lower()


def _is_totp(code: object) -> bool:
    return isinstance(code, str) and len(code) == 6 and code.isascii() and code.isdigit()


def _ensure_staff_actor(actor: Actor) -> None:
    if not sessions.needs_second_factor(actor.profile_uid):
        raise ForbiddenError(NOT_STAFF)


def status(*, session: Session, user_uid: str) -> str:
    """SETUP when the user has no confirmed second factor, VERIFY otherwise."""
    row = session.get(StaffSecondFactor, user_uid)
    return VERIFY if row is not None and row.confirmed_at is not None else SETUP


@dataclass(frozen=True)
class SetupView:
    """What the setup page shows: the QR code (segno's SVG path, ``qr_size`` modules square with its quiet
    zone) and the secret as text, in groups of four."""

    qr_path: str = field(repr=False)
    qr_size: int
    secret: str = field(repr=False)


_SVG_PATH = re.compile(r'\sd="([^"]+)"')


def _qr(uri: str) -> tuple[str, int]:
    """The QR code of ``uri`` drawn by segno: its SVG path data and its size in modules."""
    qr = segno.make(uri, error="m")
    border = 4
    found = _SVG_PATH.search(qr.svg_inline(scale=1, border=border))
    if found is None:  # segno always draws one path; never happens
        raise RuntimeError("segno drew no path")
    return found.group(1), int(qr.symbol_size(scale=1, border=border)[0])


def begin_setup(*, session: Session, actor: Actor) -> SetupView:
    """The secret of a staff member's setup under way (made and stored encrypted the first time), to show.

    ConflictError once the factor is confirmed: a secret is shown only until then.
    """
    _ensure_staff_actor(actor)
    row = session.get(StaffSecondFactor, actor.uid)
    if row is None:
        session.add(StaffSecondFactor(user_uid=actor.uid, secret_encrypted=encrypt_secret(pyotp.random_base32())))
        with contextlib.suppress(ConflictError):  # another tab made it first (rolled back): show that one
            commit(session, conflict=True)
        row = session.get(StaffSecondFactor, actor.uid)
    if row is None or row.confirmed_at is not None:
        raise ConflictError(ALREADY_SET_UP)
    secret = _decrypt(row.secret_encrypted)
    uri = pyotp.TOTP(secret).provisioning_uri(name=actor.email, issuer_name=get_settings().site_name)
    path, size = _qr(uri)
    grouped = " ".join(secret[i : i + 4] for i in range(0, len(secret), 4))
    return SetupView(qr_path=path, qr_size=size, secret=grouped)


def matching_step(secret: str, code: str, now: datetime) -> int | None:
    """The time step ``code`` belongs to, within VALID_WINDOW steps of ``now``; None when it matches none."""
    if not secret or not _is_totp(code):
        return None
    totp = pyotp.TOTP(secret)
    current = totp.timecode(now)
    for step in range(current - VALID_WINDOW, current + VALID_WINDOW + 1):
        if secrets.compare_digest(totp.generate_otp(step), code):
            return step
    return None


def _take_step(session: Session, row: StaffSecondFactor, code: str, now: datetime) -> bool:
    """Accept a TOTP code once: its step is stored in the same statement that checks it is newer. Flushed."""
    step = matching_step(_decrypt(row.secret_encrypted), code, now)
    if step is None:
        return False
    taken = session.exec(
        update(StaffSecondFactor)
        .where(
            col(StaffSecondFactor.user_uid) == row.user_uid,
            or_(col(StaffSecondFactor.last_step).is_(None), col(StaffSecondFactor.last_step) < step),
        )
        .values(last_step=step)
    )
    return taken.rowcount == 1


def _take_recovery_code(session: Session, user_uid: str, code: str, now: datetime) -> bool:
    """Accept an unused recovery code of the user once (marked used in a conditional update). Flushed."""
    if len(code) != RECOVERY_LENGTH:
        return False
    hasher = _hasher()
    unused = session.exec(
        select(RecoveryCode).where(col(RecoveryCode.user_uid) == user_uid, col(RecoveryCode.used_at).is_(None))
    ).all()
    for stored in unused:
        if hasher.verify(code, stored.code_hash):
            used = session.exec(
                update(RecoveryCode)
                .where(col(RecoveryCode.uid) == stored.uid, col(RecoveryCode.used_at).is_(None))
                .values(used_at=now)
            )
            return used.rowcount == 1
    return False


def store_recovery_codes(session: Session, user_uid: str, codes: Sequence[str]) -> None:
    """Replace the user's recovery codes with ``codes`` (as typed), stored hashed. Flushed."""
    session.exec(delete(RecoveryCode).where(col(RecoveryCode.user_uid) == user_uid))
    hasher = _hasher()
    for code in codes:
        session.add(RecoveryCode(user_uid=user_uid, code_hash=hasher.hash(_normalized(code))))
    session.flush()


def _new_recovery_codes(session: Session, user_uid: str) -> list[str]:
    """Ten fresh recovery codes (any earlier ones deleted), stored hashed; the codes in clear, to show once."""
    codes = ["".join(secrets.choice(RECOVERY_ALPHABET) for _ in range(RECOVERY_LENGTH)) for _ in range(RECOVERY_CODES)]
    store_recovery_codes(session, user_uid, codes)
    return [f"{code[:5]}-{code[5:]}" for code in codes]


def _accept(session: Session, user_uid: str, code: str, *, allow_totp: bool = True) -> None:
    """Accept a code of the user's confirmed factor (TOTP or a recovery code) or raise InvalidInputError. Flushed."""
    row = session.get(StaffSecondFactor, user_uid)
    if row is None or row.confirmed_at is None:
        raise ConflictError(NOT_SET_UP)
    typed, now = _normalized(code), utc_now()
    if allow_totp and _is_totp(typed):
        accepted = _take_step(session, row, typed, now)
    else:
        accepted = _take_recovery_code(session, user_uid, typed, now)
    if not accepted:
        raise InvalidInputError(WRONG_CODE if allow_totp else RECOVERY_ONLY, field=CODE_FIELD)


def confirm_setup(*, session: Session, actor: Actor, token_hash: str, code: str, client_hash: str) -> list[str]:
    """Confirm the setup with a first code; this session passes the factor. The ten recovery codes, to show once.

    The confirmation, the codes' hashes and the session's mark commit together.
    """
    _ensure_staff_actor(actor)
    with (
        throttle.code_check(user_uid=actor.uid, client=client_hash, secret=get_settings().secret_key),
        transaction(session),
    ):
        row = session.get(StaffSecondFactor, actor.uid)
        if row is None or row.confirmed_at is not None:
            raise ConflictError(ALREADY_SET_UP if row is not None else NOT_SET_UP)
        if not _take_step(session, row, _normalized(code), utc_now()):
            raise InvalidInputError(WRONG_CODE, field=CODE_FIELD)
        row.confirmed_at = utc_now()
        session.add(row)
        codes = _new_recovery_codes(session, actor.uid)
        sessions.pass_second_factor(session=session, token_hash=token_hash)
    log.info("second factor set up: user %s from client %s", actor.uid, client_hash)
    return codes


def verify_sign_in(*, session: Session, actor: Actor, token_hash: str, code: str, client_hash: str) -> None:
    """The sign-in's second step: a TOTP or recovery code of the user; this session then grants staff rights."""
    _ensure_staff_actor(actor)
    try:
        with (
            throttle.code_check(user_uid=actor.uid, client=client_hash, secret=get_settings().secret_key),
            transaction(session),
        ):
            _accept(session, actor.uid, code)
            sessions.pass_second_factor(session=session, token_hash=token_hash)
    except InvalidInputError:
        log.warning("second factor refused: user %s from client %s", actor.uid, client_hash)
        raise
    log.info("second factor passed: user %s from client %s", actor.uid, client_hash)


def check_second_factor(session: Session, user: User | Actor, code: str, *, client_hash: str = "") -> None:
    """Check a code of ``user``'s second factor (staff account deletion asks for it); InvalidInputError if wrong.

    Limited like sign-in attempts (``client_hash``: the caller's client key). The used step or
    recovery code is flushed with the caller's transaction; the caller commits.
    """
    with throttle.code_check(user_uid=user.uid, client=client_hash, secret=get_settings().secret_key):
        row = session.get(StaffSecondFactor, user.uid)
        if row is None or row.confirmed_at is None:
            raise InvalidInputError(NOT_SET_UP, field=CODE_FIELD)
        _accept(session, user.uid, code)


def reset_own_with_recovery_code(
    *, session: Session, actor: Actor, token_hash: str, code: str, client_hash: str
) -> None:
    """A staff member who lost their authenticator starts the setup again, with one of their recovery codes.

    The factor and its codes are deleted, every session of the user ends but this one, which goes back to
    the setup step; the owner is e-mailed.
    """
    _ensure_staff_actor(actor)
    with (
        throttle.code_check(user_uid=actor.uid, client=client_hash, secret=get_settings().secret_key),
        transaction(session) as tx,
    ):
        _accept(session, actor.uid, code, allow_totp=False)
        _delete_factor(session, actor.uid)
        sessions.restart_second_factor(session=session, user_uid=actor.uid, token_hash=token_hash)
        _audit(session, actor=actor, user_uid=actor.uid)
        subject, body = mail.second_factor_reset()
        send_after_commit(tx, to=actor.email, subject=subject, body=body)
    log.warning("second factor reset by its owner with a recovery code: user %s from client %s", actor.uid, client_hash)


def reset_second_factor(*, session: Session, actor: Actor, user_uid: str) -> None:
    """An administrator resets another staff member's second factor: audited, the owner e-mailed after the commit.

    Their sessions end; at their next sign-in they set the factor up again. Nobody resets their own here.
    """
    ensure_admin(session, actor.uid)
    if user_uid == actor.uid:
        raise ConflictError(OWN_RESET)
    user = session.get(User, user_uid) if isinstance(user_uid, str) and user_uid else None
    if user is None:
        raise NotFoundError("El usuario no existe.")
    if session.get(StaffSecondFactor, user.uid) is None:
        raise ConflictError(NOTHING_TO_RESET)
    with transaction(session) as tx:
        _delete_factor(session, user.uid)
        sessions.revoke_user_sessions(session=session, user_uid=user.uid)
        _audit(session, actor=actor, user_uid=user.uid)
        subject, body = mail.second_factor_reset()
        send_after_commit(tx, to=user.email, subject=subject, body=body)
    log.warning("second factor of user %s reset by %s", user.uid, actor.uid)


def _delete_factor(session: Session, user_uid: str) -> None:
    session.exec(delete(RecoveryCode).where(col(RecoveryCode.user_uid) == user_uid))
    session.exec(delete(StaffSecondFactor).where(col(StaffSecondFactor.user_uid) == user_uid))


def _audit(session: Session, *, actor: Actor, user_uid: str) -> None:
    audit.record(
        session,
        actor_uid=actor.uid,
        action=AUDIT_ACTION,
        entity=AUDIT_ENTITY,
        entity_uid=user_uid,
        before={"segundo_factor": "configurado"},
        after={"segundo_factor": "sin configurar"},
    )


__all__ = [
    "SETUP",
    "VERIFY",
    "SetupView",
    "begin_setup",
    "check_second_factor",
    "confirm_setup",
    "encrypt_secret",
    "matching_step",
    "reset_own_with_recovery_code",
    "reset_second_factor",
    "status",
    "store_recovery_codes",
    "verify_sign_in",
]
