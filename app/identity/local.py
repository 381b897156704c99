"""The local identity provider: accounts in our own database, passwords hashed with argon2.

One-time codes (e-mail verification: 24 hours, password reset: 1 hour) are
random, stored as SHA-256 digests, single-use, and e-mailed as links to
``/login/accion``. Any successful reset or change of password invalidates the
account's other unused reset codes; once the address is verified (by a
verification or a reset link) its other verification codes stop working.

Argon2 runs on a pool of its own with ARGON2_WORKERS threads: each hash
takes most of a core, so a flood of sign-ups queues there instead of taking
every core and every shared worker thread.
"""

from __future__ import annotations

import copy
import functools
import secrets
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timedelta
from urllib.parse import urlencode

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import Engine, delete, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.content import mail
from app.db import Transaction, transaction
from app.identity.errors import AuthError
from app.identity.provider import Identity, check_password_rules, normalized_email
from app.identity.sessions import digest
from app.models import ActionCode, ActionPurpose, LocalCredential, utc_now
from app.services.mail import send_after_commit
from app.settings import PasswordHasherKind, get_settings

CODE_LIFETIME = {
    ActionPurpose.VERIFY_EMAIL: timedelta(hours=24),
    ActionPurpose.RESET_PASSWORD: timedelta(hours=1),
    ActionPurpose.CHANGE_EMAIL: timedelta(hours=24),
}
# The e-mail carrying each kind of one-time link (app.content.mail).
ACTION_MAILS = {
    ActionPurpose.VERIFY_EMAIL: mail.verify_email,
    ActionPurpose.RESET_PASSWORD: mail.reset_password,
    ActionPurpose.CHANGE_EMAIL: mail.confirm_new_email,
}

ARGON2_WORKERS = 2
_argon2 = ThreadPoolExecutor(max_workers=ARGON2_WORKERS, thread_name_prefix="argon2")
# PASSWORD_HASHER=fast (tests only; the settings refuse it in production): argon2 at its
# lowest cost, so the thousands of accounts the tests create take microseconds each.
# Its hashes are ordinary argon2 strings, and the real hasher strengthens them at sign-in.
FAST_ARGON2_TIME_COST, FAST_ARGON2_MEMORY_KIB, FAST_ARGON2_PARALLELISM = 1, 8, 1


@functools.cache
def password_hasher(kind: PasswordHasherKind) -> PasswordHash:
    """The hasher of PASSWORD_HASHER: argon2 with the recommended parameters, or the test-only fast one."""
    if kind == "fast":
        fast = Argon2Hasher(
            time_cost=FAST_ARGON2_TIME_COST, memory_cost=FAST_ARGON2_MEMORY_KIB, parallelism=FAST_ARGON2_PARALLELISM
        )
        return PasswordHash((fast,))
    return PasswordHash.recommended()


def _hasher() -> PasswordHash:
    return password_hasher(get_settings().password_hasher)


@functools.cache
def _dummy_hash(kind: PasswordHasherKind) -> str:
    """Verified against when the e-mail is unknown, so both failures cost the same time."""
    return password_hasher(kind).hash(secrets.token_urlsafe(16))


def _hash(password: str) -> str:
    """Argon2 hash of a password, computed on the argon2 pool."""
    return _argon2.submit(_hasher().hash, password).result()


def _verify(password: str, password_hash: str) -> tuple[bool, str | None]:
    """(matches, a stronger hash to store or None), computed on the argon2 pool."""
    return _argon2.submit(_hasher().verify_and_update, password, password_hash).result()


def action_link(*, mode: ActionPurpose, code: str) -> str:
    """The address e-mailed for a one-time code."""
    query = urlencode({"mode": mode.value, "oobCode": code})
    return f"{get_settings().site_url}/login/accion?{query}"


def _identity(credential: LocalCredential) -> Identity:
    return Identity(uid=credential.uid, email=credential.email, email_verified=credential.email_verified)


class LocalProvider:
    """Accounts in the ``credencial_local`` table; e-mail through app.services.mail.

    Unbound, every method is a transaction of its own. ``bound(tx)`` returns
    the same provider writing through ``tx.session`` and only flushing: the
    caller's transaction commits it with everything else, and the e-mail it
    sends (``send_after_commit``) leaves only after that commit.
    """

    name = "local"

    def __init__(self, *, engine: Engine) -> None:
        self._engine = engine
        self._tx: Transaction | None = None

    def bound(self, tx: Transaction) -> LocalProvider:
        bound = copy.copy(self)
        bound._tx = tx
        return bound

    @contextmanager
    def _work(self) -> Iterator[Transaction]:
        """The caller's transaction when bound (nothing committed here); otherwise one of our own."""
        if self._tx is not None:
            yield self._tx
            return
        with Session(self._engine, expire_on_commit=False) as session, transaction(session) as tx:
            yield tx

    # --- accounts -------------------------------------------------------------

    def _create(self, tx: Transaction, *, email: str, password: str, verified: bool) -> LocalCredential:
        email = normalized_email(email)
        check_password_rules(password)
        credential = LocalCredential(email=email, password_hash=_hash(password), email_verified=verified)
        tx.session.add(credential)
        try:
            tx.session.flush()
        except IntegrityError as exc:  # the transaction is spoilt: the caller's rollback follows
            raise AuthError("email-already-in-use") from exc
        return credential

    def sign_up(self, *, email: str, password: str) -> Identity:
        with self._work() as tx:
            # No account without its e-mail: a full mail queue fails the whole sign-up.
            credential = self._create(tx, email=email, password=password, verified=False)
            self._send_code(tx, credential, ActionPurpose.VERIFY_EMAIL)
            return _identity(credential)

    def create_account(self, *, email: str, password: str) -> Identity:
        with self._work() as tx:
            return _identity(self._create(tx, email=email, password=password, verified=True))

    def mimic_sign_up(self, *, email: str) -> None:
        """Spend a sign-up's hash, so an address that has an account is answered as fast as a new one."""
        _hash(secrets.token_urlsafe(16))

    def sign_in(self, *, email: str, password: str) -> Identity:
        email = (email or "").strip().lower()
        with self._work() as tx:
            session = tx.session
            credential = session.exec(select(LocalCredential).where(LocalCredential.email == email)).first()
            if credential is None:
                _verify(password or "", _dummy_hash(get_settings().password_hasher))
                raise AuthError("invalid-credential")
            valid, new_hash = _verify(password or "", credential.password_hash)
            if not valid:
                raise AuthError("invalid-credential")
            if credential.disabled:
                raise AuthError("user-disabled")
            if new_hash:  # parameters got stronger since this hash was made
                credential.password_hash = new_hash
                session.add(credential)
                session.flush()
            return _identity(credential)

    def set_disabled(self, *, uid: str, disabled: bool) -> None:
        with self._work() as tx:
            credential = tx.session.get(LocalCredential, uid)
            if credential is None:
                raise AuthError("user-not-found")
            credential.disabled = disabled
            tx.session.add(credential)
            tx.session.flush()

    def set_profile(self, *, uid: str, profile: str) -> None:
        """Nothing to record: the local provider reads profiles from the users table."""
        with self._work() as tx:
            if tx.session.get(LocalCredential, uid) is None:
                raise AuthError("user-not-found")

    def delete_account(self, *, uid: str) -> None:
        with self._work() as tx:
            tx.session.exec(delete(ActionCode).where(col(ActionCode.credential_uid) == uid))
            tx.session.exec(delete(LocalCredential).where(col(LocalCredential.uid) == uid))
            tx.session.flush()

    # --- passwords ------------------------------------------------------------

    def change_password(self, *, uid: str, email: str, current_password: str, new_password: str) -> None:
        with self._work() as tx:
            credential = tx.session.get(LocalCredential, uid)
            if credential is None or credential.disabled:
                raise AuthError("user-disabled")
            if not _verify(current_password or "", credential.password_hash)[0]:
                raise AuthError("wrong-password")
            check_password_rules(new_password)
            self._set_password(tx.session, credential, new_password)

    def send_password_reset(self, *, email: str) -> None:
        email = (email or "").strip().lower()
        with self._work() as tx:
            credential = tx.session.exec(select(LocalCredential).where(LocalCredential.email == email)).first()
            if credential is not None and not credential.disabled:
                self._send_code(tx, credential, ActionPurpose.RESET_PASSWORD)

    def confirm_password_reset(self, *, code: str, new_password: str) -> str:
        check_password_rules(new_password)
        with self._work() as tx:
            credential = self._redeem(tx.session, code, ActionPurpose.RESET_PASSWORD)
            if credential.disabled:
                raise AuthError("user-disabled")
            # Following a reset link proves the mailbox too.
            credential.email_verified = True
            _void_codes(tx.session, credential.uid, ActionPurpose.VERIFY_EMAIL, utc_now())
            self._set_password(tx.session, credential, new_password)
            return credential.uid

    def _set_password(self, session: Session, credential: LocalCredential, password: str) -> None:
        """Store a new hash and void every unused reset code of the account (flushed, not committed)."""
        now = utc_now()
        credential.password_hash = _hash(password)
        credential.password_changed_at = now
        session.add(credential)
        _void_codes(session, credential.uid, ActionPurpose.RESET_PASSWORD, now)
        session.flush()

    # --- e-mail verification --------------------------------------------------

    def send_verification(self, *, identity: Identity) -> None:
        with self._work() as tx:
            credential = tx.session.get(LocalCredential, identity.uid)
            if credential is None:
                raise AuthError("user-not-found")
            if not credential.email_verified:
                self._send_code(tx, credential, ActionPurpose.VERIFY_EMAIL)

    def confirm_email(self, *, code: str) -> str:
        with self._work() as tx:
            credential = self._redeem(tx.session, code, ActionPurpose.VERIFY_EMAIL)
            credential.email_verified = True
            tx.session.add(credential)
            _void_codes(tx.session, credential.uid, ActionPurpose.VERIFY_EMAIL, utc_now())
            tx.session.flush()
            return credential.email

    # --- one-time codes -------------------------------------------------------

    def send_email_change(self, *, identity: Identity, new_email: str) -> None:
        new_email = normalized_email(new_email)
        with self._work() as tx:
            credential = tx.session.get(LocalCredential, identity.uid)
            if credential is None or credential.disabled:
                raise AuthError("user-not-found")
            _void_codes(tx.session, credential.uid, ActionPurpose.CHANGE_EMAIL, utc_now())
            self._send_code(tx, credential, ActionPurpose.CHANGE_EMAIL, new_email=new_email)

    def confirm_email_change(self, *, code: str) -> tuple[str, str]:
        with self._work() as tx:
            pending = tx.session.get(ActionCode, digest(code or ""))
            new_email = pending.new_email if pending is not None else None
            credential = self._redeem(tx.session, code, ActionPurpose.CHANGE_EMAIL)
            if not new_email:
                raise AuthError("invalid-action-code")
            taken = tx.session.exec(
                select(LocalCredential.uid).where(
                    LocalCredential.email == new_email, col(LocalCredential.uid) != credential.uid
                )
            ).first()
            if taken is not None:
                raise AuthError("email-already-in-use")
            credential.email = new_email
            credential.email_verified = True
            tx.session.add(credential)
            tx.session.flush()
            return credential.uid, new_email

    def _send_code(
        self, tx: Transaction, credential: LocalCredential, purpose: ActionPurpose, *, new_email: str | None = None
    ) -> None:
        """Store a new code (flushed) and e-mail its link once the transaction commits (to ``new_email`` if given).

        The e-mail's place in the mail queue is taken now: a full queue raises
        MailError and the transaction rolls back with its code.
        """
        code = secrets.token_urlsafe(32)
        now = utc_now()
        tx.session.add(
            ActionCode(
                code_hash=digest(code),
                credential_uid=credential.uid,
                purpose=purpose.value,
                new_email=new_email,
                created_at=now,
                expires_at=now + CODE_LIFETIME[purpose],
            )
        )
        tx.session.flush()
        subject, body = ACTION_MAILS[purpose](action_link(mode=purpose, code=code), CODE_LIFETIME[purpose])
        send_after_commit(tx, to=new_email or credential.email, subject=subject, body=body)

    def _redeem(self, session: Session, code: str, purpose: ActionPurpose) -> LocalCredential:
        """Mark a code used (in the caller's transaction) and return its account."""
        row = session.get(ActionCode, digest(code or ""))
        if row is None or row.purpose != purpose.value or row.used_at is not None:
            raise AuthError("invalid-action-code")
        now = utc_now()
        if row.expires_at <= now:
            raise AuthError("expired-action-code")
        # Claim the code atomically: of two concurrent uses only one updates a row.
        claimed = session.exec(
            update(ActionCode)
            .where(col(ActionCode.code_hash) == row.code_hash, col(ActionCode.used_at).is_(None))
            .values(used_at=now)
        )
        if claimed.rowcount != 1:
            raise AuthError("invalid-action-code")
        credential = session.get(LocalCredential, row.credential_uid)
        if credential is None:
            raise AuthError("user-not-found")
        return credential


def _void_codes(session: Session, credential_uid: str, purpose: ActionPurpose, now: datetime) -> None:
    """Mark every unused code of this purpose of the account used (in the caller's transaction)."""
    session.exec(
        update(ActionCode)
        .where(
            col(ActionCode.credential_uid) == credential_uid,
            col(ActionCode.purpose) == purpose.value,
            col(ActionCode.used_at).is_(None),
        )
        .values(used_at=now)
    )
