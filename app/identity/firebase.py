"""The Firebase identity provider: Firebase Authentication through its REST API and firebase-admin.

Passwords, e-mail links and sign-in go through the Identity Toolkit REST API
(with the web API key); account administration and ID-token verification go
through firebase-admin. With ``FIREBASE_AUTH_EMULATOR_HOST`` set, both talk to
the Auth emulator instead and no credentials are needed.

Firebase cannot join our database transaction, so a bound provider
(``bound(tx)``, see app.identity.provider) compensates instead: an account it
creates is deleted if the transaction rolls back, and changes to existing
accounts (and the verification e-mail of a new one) wait until every local
write of the operation has been flushed, just before the commit. Unbound,
every call takes effect at once.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import firebase_admin
import httpx
from firebase_admin import auth, credentials, exceptions

from app.db import Transaction
from app.identity.errors import AuthError
from app.identity.provider import Identity, check_password_rules, normalized_email
from app.settings import Settings

logger = logging.getLogger(__name__)

PRODUCTION_BASE = "https://identitytoolkit.googleapis.com/v1"

# Identity Toolkit error reasons (the part of the message before " : ") and our codes.
_REST_ERRORS: dict[str, str] = {
    "EMAIL_EXISTS": "email-already-in-use",
    "WEAK_PASSWORD": "weak-password",
    "INVALID_EMAIL": "invalid-email",
    "MISSING_EMAIL": "invalid-email",
    "EMAIL_NOT_FOUND": "user-not-found",
    "USER_NOT_FOUND": "user-not-found",
    "INVALID_PASSWORD": "invalid-credential",
    "INVALID_LOGIN_CREDENTIALS": "invalid-credential",
    "USER_DISABLED": "user-disabled",
    "TOO_MANY_ATTEMPTS_TRY_LATER": "too-many-requests",
    "OPERATION_NOT_ALLOWED": "operation-not-allowed",
    "PASSWORD_LOGIN_DISABLED": "operation-not-allowed",
    "UNAUTHORIZED_DOMAIN": "unauthorized-domain",
    "CREDENTIAL_TOO_OLD_LOGIN_AGAIN": "requires-recent-login",
    "TOKEN_EXPIRED": "requires-recent-login",
    "INVALID_ID_TOKEN": "requires-recent-login",
    "INVALID_OOB_CODE": "invalid-action-code",
    "MISSING_OOB_CODE": "invalid-action-code",
    "EXPIRED_OOB_CODE": "expired-action-code",
}
# Sign-in never tells an unknown e-mail from a wrong password.
_SIGN_IN_ERRORS = dict.fromkeys(
    (
        "EMAIL_NOT_FOUND",
        "INVALID_PASSWORD",
        "INVALID_LOGIN_CREDENTIALS",
        "INVALID_EMAIL",
        "MISSING_EMAIL",
        "MISSING_PASSWORD",
    ),
    "invalid-credential",
)
_CURRENT_PASSWORD_ERRORS = dict.fromkeys(_SIGN_IN_ERRORS, "wrong-password")

_apps_lock = threading.Lock()


def rest_base() -> str:
    """The Identity Toolkit base URL: the emulator's when FIREBASE_AUTH_EMULATOR_HOST is set."""
    # Firebase's own variable, which firebase-admin reads too (tests and local runs), not a setting of the site.
    emulator = os.environ.get("FIREBASE_AUTH_EMULATOR_HOST")
    if emulator:
        return f"http://{emulator}/identitytoolkit.googleapis.com/v1"
    return PRODUCTION_BASE


def _firebase_app(*, project_id: str, credentials_path: str, timeout: float) -> firebase_admin.App:
    """The firebase-admin app of a project, created on first use and shared afterwards."""
    name = f"identity-{project_id}"
    with _apps_lock:
        try:
            return firebase_admin.get_app(name)
        except ValueError:
            credential = credentials.Certificate(credentials_path) if credentials_path else None  # None: ADC
            options = {"projectId": project_id, "httpTimeout": timeout}
            return firebase_admin.initialize_app(credential, options, name=name)


@contextmanager
def _admin_errors() -> Iterator[None]:
    """Translate firebase-admin failures into AuthError."""
    try:
        yield
    except AuthError:
        raise
    except auth.UserNotFoundError as exc:
        raise AuthError("user-not-found") from exc
    except auth.EmailAlreadyExistsError as exc:
        raise AuthError("email-already-in-use") from exc
    except auth.UserDisabledError as exc:
        raise AuthError("user-disabled") from exc
    except auth.TooManyAttemptsTryLaterError as exc:
        raise AuthError("too-many-requests") from exc
    except (exceptions.UnavailableError, exceptions.DeadlineExceededError, auth.CertificateFetchError) as exc:
        raise AuthError("network-request-failed") from exc
    except Exception as exc:
        logger.exception("firebase-admin call failed")
        raise AuthError("internal-error") from exc


class FirebaseProvider:
    """Accounts in Firebase Authentication; Firebase sends the e-mails.

    The e-mail templates of the Firebase project must point their action URL
    at ``{site_url}/login/accion``.
    """

    name = "firebase"

    def __init__(
        self,
        *,
        project_id: str,
        api_key: str,
        credentials_path: str = "",
        site_url: str = "",
        timeout: float = 30.0,
    ) -> None:
        """Bind to a project. ``credentials_path`` "" means Application Default Credentials;
        ``site_url`` (optional) becomes the continue URL of the e-mailed links. The REST
        base is fixed here, from FIREBASE_AUTH_EMULATOR_HOST as it is now."""
        self._api_key = api_key
        self._timeout = timeout
        self._base = rest_base()
        self._continue_url = f"{site_url}/login" if site_url else ""
        #: The firebase-admin app of the project (``auth.verify_id_token(..., app=provider.app)``).
        self.app = _firebase_app(project_id=project_id, credentials_path=credentials_path, timeout=timeout)
        self._tx: Transaction | None = None
        self._created: frozenset[str] = frozenset()  # accounts created in self._tx (deleted if it rolls back)

    def bound(self, tx: Transaction) -> FirebaseProvider:
        """This provider inside ``tx``: new accounts are deleted if it rolls back, other changes wait for its commit."""
        bound = copy.copy(self)
        bound._tx = tx
        bound._created = frozenset()
        return bound

    @classmethod
    def from_settings(cls, settings: Settings) -> FirebaseProvider:
        """The provider configured by the FIREBASE_* settings."""
        return cls(
            project_id=settings.firebase_project_id,
            api_key=settings.firebase_api_key,
            credentials_path=settings.firebase_credentials,
            site_url=settings.site_url,
        )

    # --- our transaction ------------------------------------------------------

    def _change(self, uid: str, change: Callable[[], None]) -> None:
        """Apply a change to an account: at once when unbound, or when the account was created in this
        transaction (its deletion undoes everything); otherwise just before the transaction commits."""
        if self._tx is None or uid in self._created:
            change()
        else:
            self._tx.before_commit(change)

    def _discard(self, uid: str) -> None:
        """Delete an account whose operation did not complete; a failure is logged (the operation's own
        error is the one to report)."""
        try:
            with _admin_errors():
                auth.delete_user(uid, app=self.app)
        except AuthError:
            logger.exception("could not delete the Firebase account %s of a failed operation", uid)
        else:
            logger.info("Firebase account %s deleted: its operation did not complete", uid)

    def _created_here(self, uid: str) -> None:
        """Bound: the account just created is deleted if the transaction rolls back."""
        if self._tx is not None:
            self._created = self._created | {uid}
            self._tx.on_rollback(lambda: self._discard(uid))

    # --- REST -----------------------------------------------------------------

    def _call(self, endpoint: str, payload: dict[str, Any], errors: Mapping[str, str] | None = None) -> dict[str, Any]:
        """POST to ``accounts:<endpoint>``; a Firebase error becomes an AuthError (``errors`` overrides the codes)."""
        try:
            response = httpx.post(
                f"{self._base}/accounts:{endpoint}", params={"key": self._api_key}, json=payload, timeout=self._timeout
            )
        except httpx.TransportError as exc:
            raise AuthError("network-request-failed") from exc
        try:
            body = response.json()
        except ValueError:
            body = {}
        if response.is_success and isinstance(body, dict):
            return body
        error = body.get("error") if isinstance(body, dict) else None
        message = str(error.get("message", "")) if isinstance(error, dict) else ""
        reason = message.split(" : ", 1)[0].strip()
        code = (errors or {}).get(reason) or _REST_ERRORS.get(reason)
        if code is None:
            logger.error("Identity Toolkit accounts:%s failed: HTTP %s %s", endpoint, response.status_code, message)
            code = "internal-error"
        raise AuthError(code)

    def _send_oob(self, payload: dict[str, Any]) -> None:
        if self._continue_url:
            payload = {**payload, "continueUrl": self._continue_url}
        self._call("sendOobCode", payload)

    def _verified(self, id_token: str, email: str) -> Identity:
        """Verify an ID token just issued by a sign-in (signature, expiry, revocation, disabled)."""
        with _admin_errors():
            claims = auth.verify_id_token(id_token, app=self.app, check_revoked=True)
        return Identity(
            uid=claims["uid"],
            email=claims.get("email") or email,
            email_verified=bool(claims.get("email_verified")),
            id_token=id_token,
        )

    def _password_sign_in(self, email: str, password: str, errors: Mapping[str, str]) -> Identity:
        email = (email or "").strip().lower()
        if not email or not password:
            raise AuthError(errors["MISSING_PASSWORD"])
        payload = {"email": email, "password": password, "returnSecureToken": True}
        body = self._call("signInWithPassword", payload, errors)
        return self._verified(body["idToken"], email)

    # --- accounts -------------------------------------------------------------

    def sign_up(self, *, email: str, password: str) -> Identity:
        email = normalized_email(email)
        check_password_rules(password)
        body = self._call("signUp", {"email": email, "password": password, "returnSecureToken": True})
        uid = str(body["localId"])
        # No account without its e-mail: if the link cannot be sent (or, bound, the transaction
        # does not commit) the account is deleted, and the person can simply try again.
        try:
            identity = self._verified(body["idToken"], email)
            verify = {"requestType": "VERIFY_EMAIL", "idToken": identity.id_token}
            if self._tx is None:
                self._send_oob(verify)
        except BaseException:
            self._discard(uid)
            raise
        self._created_here(uid)
        if self._tx is not None:  # the last step before the commit: no link for an account rolled back
            self._tx.before_commit(lambda: self._send_oob(verify))
        return identity

    def create_account(self, *, email: str, password: str) -> Identity:
        email = normalized_email(email)
        check_password_rules(password)
        with _admin_errors():
            user = auth.create_user(email=email, password=password, email_verified=True, app=self.app)
        self._created_here(user.uid)
        return Identity(uid=user.uid, email=user.email or email, email_verified=True)

    def sign_in(self, *, email: str, password: str) -> Identity:
        return self._password_sign_in(email, password, _SIGN_IN_ERRORS)

    def mimic_sign_up(self, *, email: str) -> None:
        """One round trip to Firebase (a look-up that changes nothing), as a sign-up makes."""
        # The answer is not used: only the time it takes.
        with _admin_errors(), contextlib.suppress(auth.UserNotFoundError):
            auth.get_user_by_email(normalized_email(email), app=self.app)

    def set_disabled(self, *, uid: str, disabled: bool) -> None:
        def change() -> None:
            with _admin_errors():
                auth.update_user(uid, disabled=disabled, app=self.app)
                if disabled:
                    auth.revoke_refresh_tokens(uid, app=self.app)

        self._change(uid, change)

    def set_profile(self, *, uid: str, profile: str) -> None:
        """Store the profile as the ``perfil`` custom claim (seen in tokens issued from now on)."""

        def change() -> None:
            with _admin_errors():
                auth.set_custom_user_claims(uid, {"perfil": profile}, app=self.app)

        self._change(uid, change)

    # --- passwords ------------------------------------------------------------

    def delete_account(self, *, uid: str) -> None:
        def change() -> None:
            try:
                with _admin_errors():
                    auth.delete_user(uid, app=self.app)
            except AuthError as exc:
                if exc.code != "user-not-found":
                    raise

        self._change(uid, change)

    def change_password(self, *, uid: str, email: str, current_password: str, new_password: str) -> None:
        identity = self._password_sign_in(email, current_password, _CURRENT_PASSWORD_ERRORS)
        if identity.uid != uid:
            raise AuthError("wrong-password")
        check_password_rules(new_password)

        def change() -> None:
            with _admin_errors():
                auth.update_user(uid, password=new_password, app=self.app)
                auth.revoke_refresh_tokens(uid, app=self.app)

        self._change(uid, change)

    def send_password_reset(self, *, email: str) -> None:
        try:
            email = normalized_email(email)
        except AuthError:
            return  # silent, like an unknown e-mail
        with _admin_errors():
            try:
                user = auth.get_user_by_email(email, app=self.app)
            except auth.UserNotFoundError:
                return
        if not user.disabled:
            self._send_oob({"requestType": "PASSWORD_RESET", "email": email})

    def confirm_password_reset(self, *, code: str, new_password: str) -> str:
        check_password_rules(new_password)
        if not code:
            raise AuthError("invalid-action-code")
        # Without a new password, resetPassword only reads the code (it stays usable).
        pending = self._call("resetPassword", {"oobCode": code})
        if pending.get("requestType") != "PASSWORD_RESET" or not pending.get("email"):
            raise AuthError("invalid-action-code")
        with _admin_errors():
            user = auth.get_user_by_email(pending["email"], app=self.app)
        if user.disabled:
            raise AuthError("user-disabled")
        uid: str = user.uid  # firebase-admin is untyped

        def change() -> None:
            self._call("resetPassword", {"oobCode": code, "newPassword": new_password})
            with _admin_errors():
                auth.revoke_refresh_tokens(uid, app=self.app)

        self._change(uid, change)
        return uid

    # --- e-mail verification --------------------------------------------------

    def send_verification(self, *, identity: Identity) -> None:
        if identity.email_verified:
            return
        if not identity.id_token:
            raise AuthError("requires-recent-login")
        self._send_oob({"requestType": "VERIFY_EMAIL", "idToken": identity.id_token})

    def send_email_change(self, *, identity: Identity, new_email: str) -> None:
        new_email = normalized_email(new_email)
        self._send_oob({"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": identity.id_token, "newEmail": new_email})

    def confirm_email_change(self, *, code: str) -> tuple[str, str]:
        email = self.confirm_email(code=code)
        with _admin_errors():
            user = auth.get_user_by_email(email, app=self.app)
        return str(user.uid), email

    def confirm_email(self, *, code: str) -> str:
        if not code:
            raise AuthError("invalid-action-code")
        body = self._call("update", {"oobCode": code})
        email = body.get("email")
        if not email:
            raise AuthError("invalid-action-code")
        return str(email)
