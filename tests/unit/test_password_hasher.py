"""Password hashing on the real argon2 (the rest of the suite runs with PASSWORD_HASHER=fast).

The fast hasher is argon2 at its lowest cost: its hashes are ordinary argon2 strings that the
real hasher verifies, and strengthens, so a test-made hash can never stay weak in production.
"""

from __future__ import annotations

from sqlmodel import Session

from app.db import make_engine
from app.identity.local import (
    FAST_ARGON2_MEMORY_KIB,
    FAST_ARGON2_PARALLELISM,
    FAST_ARGON2_TIME_COST,
    LocalProvider,
    password_hasher,
)
from app.models import LocalCredential
from app.settings import get_settings

RECOMMENDED = "$argon2id$v=19$m=65536,t=3,p=4$"


def test_the_real_hasher_is_argon2id_with_the_recommended_parameters():
    hashed = password_hasher("argon2").hash("una clave larga")
    assert hashed.startswith(RECOMMENDED)
    assert password_hasher("argon2").verify("una clave larga", hashed)
    assert not password_hasher("argon2").verify("otra clave", hashed)


def test_a_fast_hash_is_argon2_that_the_real_hasher_verifies_and_strengthens():
    weak = password_hasher("fast").hash("una clave larga")
    m, t, p = FAST_ARGON2_MEMORY_KIB, FAST_ARGON2_TIME_COST, FAST_ARGON2_PARALLELISM
    assert weak.startswith(f"$argon2id$v=19$m={m},t={t},p={p}$")
    valid, stronger = password_hasher("argon2").verify_and_update("una clave larga", weak)
    assert valid and stronger is not None and stronger.startswith(RECOMMENDED)


def test_sign_up_and_sign_in_store_and_check_real_argon2_hashes(real_argon2, sqlite_url, monkeypatch, tmp_path):
    monkeypatch.setenv("OUTBOX_DIR", str(tmp_path / "outbox"))
    monkeypatch.setenv("SMTP_HOST", "")
    get_settings.cache_clear()
    engine = make_engine(sqlite_url)
    provider = LocalProvider(engine=engine)
    identity = provider.sign_up(email="real@correo.cl", password="una clave larga")
    with Session(engine) as session:
        assert session.get(LocalCredential, identity.uid).password_hash.startswith(RECOMMENDED)
    assert provider.sign_in(email="real@correo.cl", password="una clave larga").uid == identity.uid
    engine.dispose()
