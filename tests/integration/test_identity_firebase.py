"""The Firebase identity provider against the real Firebase Auth emulator."""

from __future__ import annotations

import time
import uuid

import pytest
from firebase_admin import auth

from app.identity.errors import AuthError
from app.identity.firebase import FirebaseProvider
from tests.ports import free_port

PASSWORD = "caballo-azul-2024"
NEW_PASSWORD = "tren-del-sur-1987"
WEAK_PASSWORDS = ["corta1", "12345678", "password123"]


def new_email() -> str:
    # Unique per test: the emulator keeps its e-mailed codes when accounts are wiped.
    return f"u{uuid.uuid4().hex[:10]}@example.com"


def auth_error(call, **kwargs) -> str:
    with pytest.raises(AuthError) as caught:
        call(**kwargs)
    return caught.value.code


def claims(provider: FirebaseProvider, token: str) -> dict:
    return auth.verify_id_token(token, app=provider.app, check_revoked=True)


# --- sign-up and e-mail verification ------------------------------------------


def test_sign_up_sends_verification_and_confirming_verifies(firebase_provider, firebase_oob_codes):
    email = new_email()
    identity = firebase_provider.sign_up(email=email.upper(), password=PASSWORD)
    assert identity.email == email and not identity.email_verified and identity.uid
    code = firebase_oob_codes(email, "VERIFY_EMAIL")
    assert code

    unverified = firebase_provider.sign_in(email=email, password=PASSWORD)
    assert unverified.uid == identity.uid and unverified.email_verified is False and unverified.id_token

    assert firebase_provider.confirm_email(code=code) == email
    assert firebase_provider.sign_in(email=email, password=PASSWORD).email_verified is True
    assert auth_error(firebase_provider.confirm_email, code=code) == "invalid-action-code"
    assert auth_error(firebase_provider.confirm_email, code="not-a-code") == "invalid-action-code"


def test_send_verification_sends_a_fresh_code(firebase_provider, firebase_oob_codes):
    email = new_email()
    firebase_provider.sign_up(email=email, password=PASSWORD)
    first = firebase_oob_codes(email, "VERIFY_EMAIL")
    firebase_provider.send_verification(identity=firebase_provider.sign_in(email=email, password=PASSWORD))
    second = firebase_oob_codes(email, "VERIFY_EMAIL")
    assert second and second != first
    assert firebase_provider.confirm_email(code=second) == email


def test_sign_up_without_its_email_leaves_no_account(firebase_emulator, firebase_provider, caplog):
    # The emulator refuses to send a link whose continue URL is not absolute.
    broken = FirebaseProvider(project_id="demo-escorts", api_key="fake-api-key", site_url="sin-esquema")
    email = new_email()
    assert auth_error(broken.sign_up, email=email, password=PASSWORD) == "internal-error"
    assert "INVALID_CONTINUE_URI" in caplog.text
    assert auth_error(firebase_provider.sign_in, email=email, password=PASSWORD) == "invalid-credential"
    firebase_provider.sign_up(email=email, password=PASSWORD)


def test_duplicate_sign_up_is_refused(firebase_provider):
    email = new_email()
    firebase_provider.sign_up(email=email, password=PASSWORD)
    assert auth_error(firebase_provider.sign_up, email=email, password=NEW_PASSWORD) == "email-already-in-use"
    assert auth_error(firebase_provider.create_account, email=email, password=NEW_PASSWORD) == "email-already-in-use"


def test_invalid_email_is_refused(firebase_provider):
    assert auth_error(firebase_provider.sign_up, email="no-es-correo", password=PASSWORD) == "invalid-email"


@pytest.mark.parametrize("weak", WEAK_PASSWORDS)
def test_weak_passwords_are_refused_everywhere(firebase_provider, firebase_oob_codes, weak):
    email = new_email()
    assert auth_error(firebase_provider.sign_up, email=email, password=weak) == "weak-password"
    assert auth_error(firebase_provider.create_account, email=email, password=weak) == "weak-password"

    identity = firebase_provider.create_account(email=email, password=PASSWORD)
    firebase_provider.send_password_reset(email=email)
    code = firebase_oob_codes(email, "PASSWORD_RESET")
    assert auth_error(firebase_provider.confirm_password_reset, code=code, new_password=weak) == "weak-password"
    change = {"uid": identity.uid, "email": email, "current_password": PASSWORD, "new_password": weak}
    assert auth_error(firebase_provider.change_password, **change) == "weak-password"
    # Nothing changed: the old password still works and the reset code is still good.
    firebase_provider.sign_in(email=email, password=PASSWORD)
    assert firebase_provider.confirm_password_reset(code=code, new_password=NEW_PASSWORD) == identity.uid


def test_create_account_is_verified_immediately(firebase_provider, firebase_oob_codes):
    email = new_email()
    identity = firebase_provider.create_account(email=email, password=PASSWORD)
    assert identity.email_verified is True
    signed_in = firebase_provider.sign_in(email=email, password=PASSWORD)
    assert signed_in.uid == identity.uid and signed_in.email_verified is True
    assert firebase_oob_codes(email, "VERIFY_EMAIL") is None


# --- sign-in ------------------------------------------------------------------


def test_wrong_password_and_unknown_email_look_the_same(firebase_provider):
    email = new_email()
    firebase_provider.create_account(email=email, password=PASSWORD)
    wrong = auth_error(firebase_provider.sign_in, email=email, password="otra-clave-cualquiera")
    unknown = auth_error(firebase_provider.sign_in, email=new_email(), password=PASSWORD)
    assert wrong == unknown == "invalid-credential"
    assert auth_error(firebase_provider.sign_in, email="no-es-correo", password=PASSWORD) == "invalid-credential"
    assert auth_error(firebase_provider.sign_in, email=email, password="") == "invalid-credential"


def test_sign_in_token_is_verified_and_normalises_email(firebase_provider):
    email = new_email()
    identity = firebase_provider.create_account(email=email, password=PASSWORD)
    signed_in = firebase_provider.sign_in(email=f"  {email.upper()} ", password=PASSWORD)
    assert signed_in.uid == identity.uid and signed_in.email == email
    assert claims(firebase_provider, signed_in.id_token)["uid"] == identity.uid


# --- password reset and change ------------------------------------------------


def test_password_reset(firebase_provider, firebase_oob_codes):
    email = new_email()
    identity = firebase_provider.sign_up(email=email, password=PASSWORD)
    firebase_provider.send_password_reset(email=email)
    code = firebase_oob_codes(email, "PASSWORD_RESET")
    assert code

    assert firebase_provider.confirm_password_reset(code=code, new_password=NEW_PASSWORD) == identity.uid
    assert auth_error(firebase_provider.sign_in, email=email, password=PASSWORD) == "invalid-credential"
    # Following the reset link proved the mailbox.
    assert firebase_provider.sign_in(email=email, password=NEW_PASSWORD).email_verified is True
    assert (
        auth_error(firebase_provider.confirm_password_reset, code=code, new_password="otra-clave-nueva-9")
        == "invalid-action-code"
    )


def test_verification_code_is_not_a_reset_code(firebase_provider, firebase_oob_codes):
    email = new_email()
    firebase_provider.sign_up(email=email, password=PASSWORD)
    code = firebase_oob_codes(email, "VERIFY_EMAIL")
    refused = auth_error(firebase_provider.confirm_password_reset, code=code, new_password=NEW_PASSWORD)
    assert refused == "invalid-action-code"
    firebase_provider.sign_in(email=email, password=PASSWORD)


def test_password_reset_for_unknown_email_is_silent(firebase_provider, firebase_oob_codes):
    email = new_email()
    firebase_provider.send_password_reset(email=email)
    firebase_provider.send_password_reset(email="no-es-correo")
    assert firebase_oob_codes(email, "PASSWORD_RESET") is None


def test_password_reset_for_disabled_account(firebase_provider, firebase_oob_codes):
    email = new_email()
    identity = firebase_provider.create_account(email=email, password=PASSWORD)
    firebase_provider.send_password_reset(email=email)
    code = firebase_oob_codes(email, "PASSWORD_RESET")
    firebase_provider.set_disabled(uid=identity.uid, disabled=True)
    # No new code for a disabled account, and a code sent before the ban is refused.
    firebase_provider.send_password_reset(email=email)
    assert firebase_oob_codes(email, "PASSWORD_RESET") == code
    assert auth_error(firebase_provider.confirm_password_reset, code=code, new_password=NEW_PASSWORD) == "user-disabled"


def test_change_password(firebase_provider):
    email = new_email()
    identity = firebase_provider.create_account(email=email, password=PASSWORD)
    change = {"uid": identity.uid, "email": email, "new_password": NEW_PASSWORD}
    wrong = auth_error(firebase_provider.change_password, current_password="no-es-la-clave", **change)
    assert wrong == "wrong-password"
    firebase_provider.sign_in(email=email, password=PASSWORD)

    firebase_provider.change_password(current_password=PASSWORD, **change)
    assert auth_error(firebase_provider.sign_in, email=email, password=PASSWORD) == "invalid-credential"
    assert firebase_provider.sign_in(email=email, password=NEW_PASSWORD).uid == identity.uid


# --- administration -----------------------------------------------------------


def test_disabling_blocks_sign_in_and_revokes_tokens(firebase_provider):
    email = new_email()
    identity = firebase_provider.create_account(email=email, password=PASSWORD)
    old_token = firebase_provider.sign_in(email=email, password=PASSWORD).id_token
    time.sleep(1.1)  # revocation is to the second: the ban must come after the token's second

    firebase_provider.set_disabled(uid=identity.uid, disabled=True)
    assert auth_error(firebase_provider.sign_in, email=email, password=PASSWORD) == "user-disabled"
    with pytest.raises(auth.UserDisabledError):
        claims(firebase_provider, old_token)

    firebase_provider.set_disabled(uid=identity.uid, disabled=False)
    with pytest.raises(auth.RevokedIdTokenError):
        claims(firebase_provider, old_token)
    again = firebase_provider.sign_in(email=email, password=PASSWORD)
    assert claims(firebase_provider, again.id_token)["uid"] == identity.uid


def test_set_profile_becomes_a_token_claim(firebase_provider):
    email = new_email()
    identity = firebase_provider.create_account(email=email, password=PASSWORD)
    assert "perfil" not in claims(firebase_provider, firebase_provider.sign_in(email=email, password=PASSWORD).id_token)
    firebase_provider.set_profile(uid=identity.uid, profile="agencia")
    token = firebase_provider.sign_in(email=email, password=PASSWORD).id_token
    assert claims(firebase_provider, token)["perfil"] == "agencia"


def test_unknown_uid_is_user_not_found(firebase_provider):
    assert auth_error(firebase_provider.set_disabled, uid="no-such-uid", disabled=True) == "user-not-found"
    assert auth_error(firebase_provider.set_profile, uid="no-such-uid", profile="agencia") == "user-not-found"


def test_unreachable_service_is_a_network_error(firebase_emulator, monkeypatch):
    monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", f"127.0.0.1:{free_port()}")
    provider = FirebaseProvider(project_id="demo-unreachable", api_key="fake-api-key", timeout=5)
    email = new_email()
    assert auth_error(provider.sign_in, email=email, password=PASSWORD) == "network-request-failed"
    assert auth_error(provider.sign_up, email=email, password=PASSWORD) == "network-request-failed"
    assert auth_error(provider.create_account, email=email, password=PASSWORD) == "network-request-failed"
