"""Hashcash-style proofs of work: a challenge the server signs, a nonce the browser finds.

A challenge is ``1.<purpose>.<expires>.<bits>.<random>.<mac>``: the MAC (keyed with
SECRET_KEY) makes it the server's, so nothing is stored until it is used. A proof is
``<challenge>~<nonce>``, valid while the challenge is unexpired and
SHA-256(``<challenge>:<nonce>``) starts with ``bits`` zero bits (about 2**bits tries;
assets/proof.js finds it in the browser). One-time use is the caller's: :func:`verify`
returns the challenge's random part to count it by.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

VERSION = "1"
SEPARATOR = "~"
MAX_PROOF_LENGTH = 300
MAX_NONCE_DIGITS = 16


def _mac(secret: str, body: str) -> str:
    return hmac.new(secret.encode(), f"prueba\x1f{body}".encode(), hashlib.sha256).hexdigest()[:32]


def issue(*, secret: str, purpose: str, bits: int, now: float, ttl_seconds: int) -> str:
    """A new challenge for ``purpose`` asking for ``bits`` zero bits, valid ``ttl_seconds`` from ``now``."""
    body = f"{VERSION}.{purpose}.{int(now) + ttl_seconds}.{bits}.{secrets.token_hex(12)}"
    return f"{body}.{_mac(secret, body)}"


def leading_zero_bits(digest: bytes) -> int:
    """How many zero bits ``digest`` starts with."""
    value = int.from_bytes(digest, "big")
    return len(digest) * 8 - value.bit_length()


def solved(challenge: str, nonce: str, bits: int) -> bool:
    """Whether ``nonce`` answers ``challenge`` with at least ``bits`` zero bits."""
    return leading_zero_bits(hashlib.sha256(f"{challenge}:{nonce}".encode()).digest()) >= bits


def solve(challenge: str) -> str:
    """The first nonce that answers ``challenge`` (what the browser does; for tests and tools)."""
    bits = int(challenge.split(".")[3])
    nonce = 0
    while not solved(challenge, str(nonce), bits):
        nonce += 1
    return str(nonce)


def verify(proof: str, *, secret: str, purpose: str, now: float) -> str | None:
    """The challenge's random id when ``proof`` is a valid, unexpired answer for ``purpose``; None otherwise."""
    if not isinstance(proof, str) or not proof or len(proof) > MAX_PROOF_LENGTH:
        return None
    challenge, _, nonce = proof.partition(SEPARATOR)
    parts = challenge.split(".")
    if len(parts) != 6 or not nonce.isascii() or not nonce.isdigit() or len(nonce) > MAX_NONCE_DIGITS:
        return None
    version, for_purpose, expires, bits, random_id, mac = parts
    if not hmac.compare_digest(mac, _mac(secret, ".".join(parts[:5]))):
        return None
    if version != VERSION or for_purpose != purpose or not expires.isdigit() or not bits.isdigit():
        return None
    if int(expires) < now or not solved(challenge, nonce, int(bits)):
        return None
    return random_id
