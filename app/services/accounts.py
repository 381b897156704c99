"""Account operations: the identity provider and the users table, kept in step.

Sign-up, the sign-in flow of SPEC §4 (throttle, password, verified e-mail,
ban, online, new session), sign-out, password change and reset, bans and
profile changes by staff, and the first administrator. Plain functions that
take a database session and a provider; no Reflex here. The abuse limits are
in app.identity.throttle; ``client_hash`` is app.services.abuse.client_key.

One transaction per operation: sign-up, password change and reset, bans,
profile changes and the first administrator each run in one
``app.db.transaction`` and commit once, at its end. The
provider works inside it (``provider.bound(tx)``), users rows are written
with ``commit=False``, and any failure rolls back the credential, the user,
the codes and the session revocations together (Firebase, which cannot join
the transaction, is compensated: see app.identity.firebase). E-mail leaves
only after the commit.

Nothing tells whether an address has an account: a sign-up for a used
address is answered like a new one (its owner gets an e-mail instead), and
reset requests look alike. Security events are logged with user ids, client
keys and masked addresses, never passwords, tokens or whole addresses.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator
from sqlmodel import Session, select

from app.content import mail
from app.core.actor import Actor
from app.core.errors import (
    ConflictError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    validated_input,
)
from app.core.text import EMAIL_MAX, is_valid_email, mask_email
from app.db import Transaction, commit, transaction
from app.identity import sessions, throttle
from app.identity.errors import AuthError
from app.identity.provider import Identity, IdentityProvider, check_password_rules, normalized_email
from app.models import STAFF_PROFILES, ProfileId, User, UserPublic, utc_now
from app.models.users import USER_NAME_MAX
from app.services import users
from app.services.mail import MailError, queue_email
from app.settings import Settings, get_settings

log = logging.getLogger(__name__)

SELF_SERVICE_PROFILES = (ProfileId.CLIENTE, ProfileId.PROFESOR)


class SignUpInput(BaseModel):
    """The sign-up form."""

    email: str = Field(max_length=EMAIL_MAX)
    display_name: str = Field(default="", max_length=USER_NAME_MAX)
    password: str  # length and strength: check_password_rules (weak-password)
    password_confirm: str
    profile: str
    adult: bool = False

    @field_validator("email")
    @classmethod
    def _email(cls, value: str) -> str:
        value = value.strip().lower()
        if not is_valid_email(value):
            raise ValueError("El correo electrónico no es válido.")
        return value

    @field_validator("display_name")
    @classmethod
    def _name(cls, value: str) -> str:
        return " ".join(value.split())

    @field_validator("profile")
    @classmethod
    def _profile(cls, value: str) -> str:
        if value not in {p.value for p in SELF_SERVICE_PROFILES}:
            raise ValueError("Elige si quieres ver avisos o publicar avisos.")
        return value

    @field_validator("adult")
    @classmethod
    def _adult(cls, value: bool) -> bool:
        if not value:
            raise ValueError("Debes confirmar que eres mayor de 18 años.")
        return value

    @model_validator(mode="after")
    def _same_passwords(self) -> SignUpInput:
        if self.password != self.password_confirm:
            raise ValueError("Las contraseñas no coinciden.")
        return self


def _matching(password: str, confirm: str) -> None:
    if password != confirm:
        raise InvalidInputError("Las contraseñas no coinciden.")


def _user_by_identity(session: Session, identity_uid: str) -> User | None:
    return session.exec(select(User).where(User.identity_uid == identity_uid)).first()


# --- self-service ---------------------------------------------------------------


def sign_up(
    *, session: Session, provider: IdentityProvider, data: dict[str, Any], client_hash: str, proof: str = ""
) -> UserPublic | None:
    """Create a visitor or advertiser account and e-mail its verification link.

    ``proof``: the browser's proof of work, needed past the client's hourly limit
    (throttle.check_sign_up raises ProofRequired with a challenge without one).

    The credential, its verification code and the user row commit together
    (or not at all), and the link is e-mailed after that commit. For an
    address that already has an account nothing is created and its owner is
    e-mailed instead (None is returned); the caller answers both alike.
    """
    form = validated_input(SignUpInput, data)
    check_password_rules(form.password)
    settings = get_settings()
    secret = settings.secret_key
    throttle.check_sign_up(
        email=form.email, client=client_hash, secret=secret, proof=proof, bits=settings.sign_up_proof_bits
    )
    if users.find_user_by_email(session=session, email=form.email) is None:
        try:
            with transaction(session) as tx:
                user = _new_account(tx, provider, form)
        except AuthError as exc:
            if exc.code != "email-already-in-use":
                raise
        else:
            throttle.take_address_mail(form.email, secret)  # the verification link just sent counts
            log.info("sign-up: user %s created from client %s", user.uid, client_hash)
            return user
    else:
        provider.mimic_sign_up(email=form.email)
    log.warning("sign-up for %s, which has an account, from client %s", mask_email(form.email), client_hash)
    if throttle.take_address_mail(form.email, secret):
        _e_mail_owner(form.email, *mail.sign_up_attempt())
    return None


def _new_account(tx: Transaction, provider: IdentityProvider, form: SignUpInput) -> UserPublic:
    """The steps of a sign-up inside its transaction: credential and verification code, profile, user row."""
    bound = provider.bound(tx)
    identity = bound.sign_up(email=form.email, password=form.password)
    bound.set_profile(uid=identity.uid, profile=form.profile)
    return users.create_user(
        session=tx.session,
        data={
            "email": form.email,
            "display_name": form.display_name or form.email.split("@")[0],
            "profile_uid": form.profile,
            "identity_uid": identity.uid,
        },
        commit=False,
    )


@dataclass(frozen=True)
class SignedIn:
    """A completed sign-in: who, and the single-use ticket their browser exchanges for the session cookie."""

    actor: Actor
    ticket: str = field(repr=False)


def sign_in(
    *,
    session: Session,
    provider: IdentityProvider,
    settings: Settings,
    email: str,
    password: str,
    client_hash: str,
) -> SignedIn:
    """The sign-in flow: limits, password, verified e-mail, ban, online, a ticket for a new session.

    The browser's previous session, if any, ends when it exchanges the ticket.
    An unverified account gets a new verification link only as often as
    throttle.ADDRESS_MAIL_RULES allow (email-not-verified-resent when one went
    out, email-not-verified otherwise).
    """
    email = (email or "").strip().lower()
    try:
        with throttle.password_check(email=email, client=client_hash, secret=settings.secret_key):
            identity = provider.sign_in(email=email, password=password)
    except AuthError as exc:
        if exc.code == "invalid-credential":
            _log_failure(session, "sign-in failed: wrong e-mail or password", email, client_hash)
        raise
    if not identity.email_verified:
        log.info("sign-in refused: %s from client %s has not confirmed the address", mask_email(email), client_hash)
        if throttle.take_address_mail(email, settings.secret_key):
            provider.send_verification(identity=identity)
            raise AuthError("email-not-verified-resent")
        raise AuthError("email-not-verified")
    user = _user_by_identity(session, identity.uid)
    if user is None:
        raise AuthError("user-not-found")
    if user.ban or not user.activo:
        log.warning("sign-in refused: user %s is banned or inactive (client %s)", user.uid, client_hash)
        raise AuthError("user-disabled")
    user.online = True
    user.updated_at = utc_now()
    session.add(user)
    ticket = sessions.issue_ticket(session=session, user_uid=user.uid)
    commit(session)
    log.info("signed in: user %s from client %s", user.uid, client_hash)
    actor = Actor(uid=user.uid, email=user.email, display_name=user.display_name, profile_uid=user.profile_uid)
    return SignedIn(actor=actor, ticket=ticket)


def sign_out(*, session: Session, token_hash: str) -> None:
    """End this browser's session (every tab shares the cookie) and mark the user offline."""
    user_uid = sessions.revoke_session(session=session, token_hash=token_hash)
    user = session.get(User, user_uid) if user_uid else None
    if user is not None:
        user.online = False
        session.add(user)
    commit(session)


def change_password(
    *,
    session: Session,
    provider: IdentityProvider,
    actor: Actor,
    current_password: str,
    new_password: str,
    confirm_password: str,
    client_hash: str,
) -> str:
    """Change the actor's password; end all their sessions and return a ticket for a new one in this browser.

    The current password is checked under the sign-in limits (a wrong one
    counts as a failed sign-in), and the owner is e-mailed about the change.
    """
    _matching(new_password, confirm_password)
    user = session.get(User, actor.uid)
    if user is None or not user.identity_uid:
        raise AuthError("user-not-found")
    with transaction(session) as tx:
        try:
            with throttle.password_check(email=user.email, client=client_hash, secret=get_settings().secret_key):
                provider.bound(tx).change_password(
                    uid=user.identity_uid,
                    email=user.email,
                    current_password=current_password,
                    new_password=new_password,
                )
        except AuthError as exc:
            if exc.code == "wrong-password":
                _log_failure(session, "password change refused: wrong current password", user.email, client_hash)
            raise
        sessions.revoke_user_sessions(session=session, user_uid=user.uid)
        # The caller's session passed the second factor (a guarded handler let them in): the new one keeps it.
        ticket = sessions.issue_ticket(session=session, user_uid=user.uid, second_factor_at=utc_now())
    log.info("password changed: user %s from client %s", user.uid, client_hash)
    _e_mail_owner(user.email, *mail.password_changed(), required=False)
    return ticket


def request_password_reset(*, provider: IdentityProvider, email: str) -> None:
    """E-mail a reset link if the account exists (three an hour per address); the caller always hears the same."""
    email = normalized_email(email)
    if throttle.take_reset_mail(email, get_settings().secret_key):
        provider.send_password_reset(email=email)
    else:
        log.warning("password reset for %s refused: too many requests", mask_email(email))


def reset_password(
    *, session: Session, provider: IdentityProvider, code: str, new_password: str, confirm_password: str
) -> None:
    """Set a new password from an e-mailed code, end every session of that user and tell them by e-mail."""
    _matching(new_password, confirm_password)
    with transaction(session) as tx:
        identity_uid = provider.bound(tx).confirm_password_reset(code=code, new_password=new_password)
        user = _user_by_identity(session, identity_uid)
        if user is not None:
            sessions.revoke_user_sessions(session=session, user_uid=user.uid)
    if user is not None:
        log.info("password reset: user %s", user.uid)
        _e_mail_owner(user.email, *mail.password_changed(), required=False)


WRONG_PASSWORD = "La contraseña no es correcta."
EMAIL_CHANGE_SENT = (
    "Te enviamos un enlace a la nueva dirección. Ábrelo en 24 horas para confirmar el cambio; hasta entonces "
    "sigues usando tu correo actual."
)


def check_own_password(*, provider: IdentityProvider, user: User, password: str, client_hash: str) -> Identity:
    """The account's own password, checked under the sign-in limits (a wrong one is a field error ``password``)."""
    if not isinstance(password, str) or not password or not user.identity_uid:
        raise InvalidInputError(WRONG_PASSWORD, field="password")
    try:
        with throttle.password_check(email=user.email, client=client_hash, secret=get_settings().secret_key):
            identity = provider.sign_in(email=user.email, password=password[:256])
    except AuthError as exc:
        if exc.code in {"invalid-credential", "wrong-password"}:
            log.warning("password check failed for user %s (client %s)", user.uid, client_hash)
            raise InvalidInputError(WRONG_PASSWORD, field="password") from exc
        raise
    if identity.uid != user.identity_uid:
        raise InvalidInputError(WRONG_PASSWORD, field="password")
    return identity


def request_email_change(
    *, session: Session, provider: IdentityProvider, actor: Actor, new_email: str, password: str, client_hash: str
) -> str:
    """E-mail a confirmation link to the caller's new address (after their password); the notice to show.

    The change happens only when the link is opened (:func:`confirm_email_change`). An address that
    already has an account is answered alike, and nothing is sent to it. The current address is told.
    """
    user = session.get(User, actor.uid)
    if user is None:
        raise AuthError("user-not-found")
    wanted = (new_email or "").strip().lower() if isinstance(new_email, str) else ""
    if not is_valid_email(wanted) or len(wanted) > EMAIL_MAX:
        raise InvalidInputError("El correo electrónico no es válido.", field="new_email")
    if wanted == user.email:
        raise InvalidInputError("Ese ya es tu correo.", field="new_email")
    identity = check_own_password(provider=provider, user=user, password=password, client_hash=client_hash)
    secret = get_settings().secret_key
    if users.find_user_by_email(session=session, email=wanted) is not None:
        log.warning("e-mail change of user %s to an address in use refused quietly", user.uid)
    elif throttle.take_address_mail(wanted, secret):
        provider.send_email_change(identity=identity, new_email=wanted)
        log.info("e-mail change requested by user %s", user.uid)
    _e_mail_owner(user.email, *mail.email_change_requested(wanted), required=False)
    return EMAIL_CHANGE_SENT


def confirm_email_change(*, session: Session, provider: IdentityProvider, code: str) -> str:
    """Apply an e-mail change link: the account and its user row take the new address; the old one is told."""
    with transaction(session) as tx:
        identity_uid, new_email = provider.bound(tx).confirm_email_change(code=code)
        user = _user_by_identity(session, identity_uid)
        if user is None:
            raise AuthError("user-not-found")
        old_email = user.email
        users.update_user(session=session, uid=user.uid, data={"email": new_email}, commit=False)
    log.warning("user %s changed their e-mail address", user.uid)
    _e_mail_owner(old_email, *mail.email_changed(new_email), required=False)
    return new_email


def _log_failure(session: Session, event: str, email: str, client_hash: str) -> None:
    """Log a failed password check with the user id when the address has an account."""
    user = users.find_user_by_email(session=session, email=email)
    log.warning("%s for %s (user %s) from client %s", event, mask_email(email), user.uid if user else "-", client_hash)


def _e_mail_owner(email: str, subject: str, body: str, *, required: bool = True) -> None:
    """Queue a notice to an account's owner; a full queue fails the request only when ``required``."""
    try:
        queue_email(to=email, subject=subject, body=body)
    except MailError:
        if required:
            raise
        log.error("notice to %s not sent: the mail queue is full", mask_email(email))


# --- staff ------------------------------------------------------------------------


def staff_target(*, session: Session, actor: Actor, allowed: Collection[ProfileId], user_uid: str) -> User:
    """The user a staff member (one of ``allowed`` profiles) is about to change: it exists and is not the caller.

    ForbiddenError for any other profile, NotFoundError for an unknown uid, ConflictError for oneself.
    """
    if actor.profile_uid not in {p.value for p in allowed}:
        log.warning("staff operation refused: user %s (%s) may not change user accounts", actor.uid, actor.profile_uid)
        raise ForbiddenError("No tienes permiso para esta acción.")
    user = session.get(User, user_uid) if isinstance(user_uid, str) and user_uid else None
    if user is None:
        raise NotFoundError("El usuario no existe.")
    if user.uid == actor.uid:
        raise ConflictError("No puedes cambiar tu propia cuenta desde aquí.")
    return user


STAFF_ACCOUNTS_MESSAGE = "Solo un administrador puede suspender, desactivar o cambiar las cuentas del equipo."


def may_manage(actor_profile: str, user_profile: str) -> bool:
    """Whether staff of ``actor_profile`` may ban or deactivate a ``user_profile`` account.

    Staff accounts (administrators and secretaries) are the administrators' alone.
    """
    return actor_profile == ProfileId.ADMINISTRADOR or user_profile not in STAFF_PROFILES


def ensure_may_manage(actor: Actor, user: User) -> None:
    """ForbiddenError (logged) when a secretary reaches for a staff account (an administrator or a secretary)."""
    if not may_manage(actor.profile_uid, user.profile_uid):
        log.warning("staff account change refused: %s %s on user %s", actor.profile_uid, actor.uid, user.uid)
        raise ForbiddenError(STAFF_ACCOUNTS_MESSAGE)


def set_ban(*, session: Session, provider: IdentityProvider, actor: Actor, user_uid: str, banned: bool) -> UserPublic:
    """Ban or lift a ban (administrator, or secretary on a non-staff account). A ban ends every session at once.

    The user row, the account's disabled flag and the revocation of its
    sessions commit together.
    """
    user = staff_target(session=session, actor=actor, allowed=STAFF_PROFILES, user_uid=user_uid)
    ensure_may_manage(actor, user)
    with transaction(session) as tx:
        updated = users.update_user(
            session=session,
            uid=user.uid,
            data={"ban": banned, "online": False if banned else user.online},
            commit=False,
        )
        if user.identity_uid:
            provider.bound(tx).set_disabled(uid=user.identity_uid, disabled=banned)
        if banned:
            sessions.revoke_user_sessions(session=session, user_uid=user.uid)
    log.warning("user %s %s by %s", user.uid, "banned" if banned else "unbanned", actor.uid)
    return updated


def set_profile(
    *, session: Session, provider: IdentityProvider, actor: Actor, user_uid: str, profile: str
) -> UserPublic:
    """Give a user another profile; only an administrator may, and staff profiles come only this way."""
    user = staff_target(session=session, actor=actor, allowed=(ProfileId.ADMINISTRADOR,), user_uid=user_uid)
    if profile not in {p.value for p in ProfileId}:
        raise InvalidInputError("El perfil indicado no existe.")
    with transaction(session) as tx:
        # Takes effect at the user's next action: sessions read the profile from the users table.
        updated = users.update_user(session=session, uid=user.uid, data={"profile_uid": profile}, commit=False)
        if user.identity_uid:
            provider.bound(tx).set_profile(uid=user.identity_uid, profile=profile)
    log.warning("user %s given profile %s by %s", user.uid, profile, actor.uid)
    return updated


def create_administrator(
    *, session: Session, provider: IdentityProvider, email: str, password: str, display_name: str = ""
) -> UserPublic:
    """The first administrator (the create-admin command): a verified account with the staff profile.

    The account and its user row commit together (a Firebase account is deleted if the row is not written).
    """
    email = normalized_email(email)
    if users.find_user_by_email(session=session, email=email) is not None:
        raise AuthError("email-already-in-use")
    with transaction(session) as tx:
        bound = provider.bound(tx)
        identity = bound.create_account(email=email, password=password)
        bound.set_profile(uid=identity.uid, profile=ProfileId.ADMINISTRADOR.value)
        user = users.create_user(
            session=session,
            data={
                "email": email,
                "display_name": display_name or "Administrador",
                "profile_uid": ProfileId.ADMINISTRADOR.value,
                "identity_uid": identity.uid,
            },
            commit=False,
        )
    return user
