"""The sign-up's proof of work: a challenge only this server could sign, answered once, before it expires."""

from __future__ import annotations

import hashlib

from app.core import proof_of_work as pow_

SECRET = "clave-de-prueba-para-el-servidor-0123456789"
NOW = 1_800_000_000.0


def _challenge(bits: int = 8, purpose: str = "registro", ttl: int = 600) -> str:
    return pow_.issue(secret=SECRET, purpose=purpose, bits=bits, now=NOW, ttl_seconds=ttl)


def _verify(proof: str, now: float = NOW) -> str | None:
    return pow_.verify(proof, secret=SECRET, purpose="registro", now=now)


def test_a_solved_challenge_verifies_to_its_id_and_the_hash_has_the_zero_bits():
    challenge = _challenge(bits=10)
    nonce = pow_.solve(challenge)
    digest = hashlib.sha256(f"{challenge}:{nonce}".encode()).digest()
    assert pow_.leading_zero_bits(digest) >= 10
    assert _verify(f"{challenge}~{nonce}") == challenge.split(".")[4]
    assert _challenge() != _challenge()  # every challenge is new


def test_a_wrong_nonce_is_refused():
    challenge = _challenge(bits=12)
    nonce = int(pow_.solve(challenge))
    wrong = next(str(n) for n in range(nonce + 1, nonce + 100_000) if not pow_.solved(challenge, str(n), 12))
    assert _verify(f"{challenge}~{wrong}") is None


def test_a_challenge_the_server_did_not_sign_is_refused():
    challenge = _challenge(bits=12)
    easier = challenge.replace(".12.", ".1.", 1)  # fewer zero bits asked: the MAC no longer matches
    assert _verify(f"{easier}~{pow_.solve(easier)}") is None
    other = pow_.issue(secret="otra-clave", purpose="registro", bits=1, now=NOW, ttl_seconds=600)
    assert _verify(f"{other}~{pow_.solve(other)}") is None


def test_an_expired_or_other_purpose_challenge_is_refused():
    challenge = _challenge(ttl=600)
    proof = f"{challenge}~{pow_.solve(challenge)}"
    assert _verify(proof, now=NOW + 599) is not None
    assert _verify(proof, now=NOW + 601) is None
    elsewhere = _challenge(purpose="denuncia")
    assert _verify(f"{elsewhere}~{pow_.solve(elsewhere)}") is None


def test_garbage_is_refused_without_raising():
    challenge = _challenge()
    for proof in (
        "",
        "~",
        "x" * 1000,
        challenge,
        f"{challenge}~",
        f"{challenge}~-1",
        f"{challenge}~1e3",
        "a.b~1",
        None,
        5,
    ):
        assert _verify(proof) is None  # type: ignore[arg-type]
