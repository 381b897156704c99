"""The interface both identity providers implement (``app.identity.factory`` chooses the configured one).

An identity provider owns e-mail + password accounts: it checks passwords,
sends the verification and reset e-mails, applies their one-time codes, and
can disable an account. It knows nothing about profiles, listings or sessions;
``app.services.accounts`` combines it with the users table.

Every method is blocking (database or HTTP): states call them off the event
loop (``app.states.offload.run_service``). Every failure is an :class:`AuthError`.

One transaction per operation. An account operation opens the project's unit
of work (``app.db.transaction``) on its database session and works through
``provider.bound(tx)``:

- the local provider then writes with that session and only flushes, so its
  credential, codes and password hashes commit (or roll back) with the users
  row and the sessions in one commit;
- Firebase cannot join our transaction, so it compensates: an account it
  creates is deleted if the transaction does not commit, and its other
  changes (e-mailed links, passwords, disabling, claims) are deferred until
  every local write has been flushed, just before the commit. Only a failure
  of the commit itself can then leave Firebase changed and our tables not.

E-mail justified by a write is queued through the transaction
(``app.services.mail.send_after_commit``): its place in the mail queue is
taken at once, the message leaves only after the commit. Unbound, each
provider method is a transaction of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from app.core.text import is_valid_email
from app.db import Transaction
from app.identity.common_passwords import is_common_password
from app.identity.errors import AuthError

MIN_PASSWORD_LENGTH = 8
MAX_PASSWORD_LENGTH = 128


@dataclass(frozen=True)
class Identity:
    """An account as the provider knows it."""

    uid: str
    email: str
    email_verified: bool
    # Firebase only: the ID token from the sign-in, needed to send a
    # verification e-mail. Never stored, never sent to a browser.
    id_token: str = field(default="", repr=False)


class IdentityProvider(Protocol):
    """E-mail + password accounts. Codes of e-mailed links use Firebase's names.

    The links sent by e-mail open ``/login/accion?mode=<verifyEmail|resetPassword>&oobCode=<code>``
    on this site, whichever provider sent them.
    """

    name: str

    def bound(self, tx: Transaction) -> IdentityProvider:
        """This provider working inside ``tx``: local writes flush into its session (the caller commits),
        remote ones are deferred to just before the commit or undone after a rollback."""
        ...

    def sign_up(self, *, email: str, password: str) -> Identity:
        """Create an unverified account and e-mail its verification link.

        Raises email-already-in-use, weak-password or invalid-email.
        """
        ...

    def create_account(self, *, email: str, password: str) -> Identity:
        """Create an already-verified account (administrators, the create-admin command)."""
        ...

    def mimic_sign_up(self, *, email: str) -> None:
        """Take about the time of a sign-up and change nothing: a sign-up for an address that
        already has an account must not be told apart by its answer time."""
        ...

    def sign_in(self, *, email: str, password: str) -> Identity:
        """Check the password. Unknown e-mail and wrong password both raise invalid-credential;
        a disabled account raises user-disabled (only after a correct password)."""
        ...

    def send_verification(self, *, identity: Identity) -> None:
        """E-mail a fresh verification link to an account that just signed in unverified
        (app.services.accounts decides how often)."""
        ...

    def confirm_email(self, *, code: str) -> str:
        """Apply a verification code; return the verified e-mail.

        Raises invalid-action-code or expired-action-code."""
        ...

    def send_password_reset(self, *, email: str) -> None:
        """E-mail a reset link. Silent for an unknown e-mail (no account enumeration); the
        cap per address is app.services.accounts' job."""
        ...

    def confirm_password_reset(self, *, code: str, new_password: str) -> str:
        """Set a new password with a reset code; return the account's uid.

        Raises invalid-action-code, expired-action-code or weak-password."""
        ...

    def send_email_change(self, *, identity: Identity, new_email: str) -> None:
        """E-mail a link to ``new_email`` that changes the account's address to it (``identity`` just signed in
        with its password). Raises invalid-email."""
        ...

    def confirm_email_change(self, *, code: str) -> tuple[str, str]:
        """Apply an e-mail change code: the account's uid and its new, verified address.

        Raises invalid-action-code, expired-action-code or email-already-in-use."""
        ...

    def change_password(self, *, uid: str, email: str, current_password: str, new_password: str) -> None:
        """Change the password of a signed-in user who proves the current one (wrong-password otherwise)."""
        ...

    def set_disabled(self, *, uid: str, disabled: bool) -> None:
        """Disable (ban) or re-enable an account; disabling also revokes its provider tokens."""
        ...

    def set_profile(self, *, uid: str, profile: str) -> None:
        """Record the user's profile with the account (a custom claim on Firebase)."""
        ...

    def delete_account(self, *, uid: str) -> None:
        """Delete the account for good (its owner deleted it): the address may sign up again afterwards.

        A missing account is not an error (nothing is left to delete)."""
        ...


def normalized_email(email: str) -> str:
    """Trimmed, lower-cased e-mail; invalid-email when it does not look like one."""
    email = (email or "").strip().lower()
    if not is_valid_email(email) or len(email) > 254:
        raise AuthError("invalid-email")
    return email


def check_password_rules(password: str) -> None:
    """Raise weak-password unless the password is long enough and not a common one."""
    if not (MIN_PASSWORD_LENGTH <= len(password) <= MAX_PASSWORD_LENGTH) or is_common_password(password):
        raise AuthError("weak-password")
