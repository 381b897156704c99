"""Abuse limits of the account flows, written as data; the counters live in app.services.abuse.

Sign-in, and the current password of a password change, per password check:

- per account and client: three free failures, then each attempt waits for
  a delay that doubles (2 s, 4 s, 8 s … about 17 minutes), and at most 20 a
  day. A correct password clears them. Another client's failures never lock
  the owner out;
- per account, from every client together: 100 failures an hour, which only
  an attack from many addresses reaches;
- per client, across accounts: 30 failures an hour (credential stuffing).

A staff member's second-factor code (issue 20 §1) is limited the same way, with
counters of its own: per account and client (the same progressive delays),
per account (100 failures an hour) and per client (30 an hour).

A slot is taken before the password (or code) is checked, so concurrent guesses cannot
all reach the check; it stays as a failure when the password is wrong and is
given back otherwise.

Sign-up: 10 an hour per client, 5 a day per address. Many people share one client
address (mobile carriers, offices, cafés): past its 10 an hour a sign-up is not
refused but must bring a proof of work (app.core.proof_of_work; the browser
computes it), each proof good for one sign-up. The limit per address stays. E-mails to an address
that were not asked for by its owner (verification links, "someone tried to
sign up with your address"): one per 10 minutes, five a day. Password-reset
e-mails: three an hour per address.

Counter keys are keyed hashes (``secret``: SECRET_KEY): no address is stored in clear.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator

from app.core import proof_of_work
from app.core.errors import InvalidInputError
from app.core.text import mask_email
from app.identity.errors import AuthError, ProofRequired
from app.services.abuse import Check, Rule, keyed, limiter

log = logging.getLogger(__name__)

FREE_FAILURES = 3
LONGEST_DELAY_STEP = 10  # the last step waits 2**10 s, about 17 minutes

# Step k allows FREE_FAILURES + k - 1 attempts in 2**k seconds: after three quick
# failures the next attempt waits 2 s, then 4 s, 8 s … (a moving window each).
PAIR_RULES: tuple[Rule, ...] = (
    *(Rule(f"acceso-par-{k}", FREE_FAILURES + k - 1, 2**k) for k in range(1, LONGEST_DELAY_STEP + 1)),
    Rule("acceso-par-dia", 20, 86_400),
)
ACCOUNT_CEILING = Rule("acceso-cuenta", 100, 3_600, refundable=True)
CLIENT_CEILING = Rule("acceso-cliente", 30, 3_600, refundable=True)

# The second factor's code: the same limits as the password's, counted apart.
CODE_PAIR_RULES: tuple[Rule, ...] = (
    *(Rule(f"factor-par-{k}", FREE_FAILURES + k - 1, 2**k) for k in range(1, LONGEST_DELAY_STEP + 1)),
    Rule("factor-par-dia", 20, 86_400),
)
CODE_ACCOUNT_CEILING = Rule("factor-cuenta", 100, 3_600, refundable=True)
CODE_CLIENT_CEILING = Rule("factor-cliente", 30, 3_600, refundable=True)

SIGN_UPS_PER_CLIENT = Rule("registro-cliente", 10, 3_600)
SIGN_UPS_PER_ADDRESS = Rule("registro-correo", 5, 86_400)
PROOF_PURPOSE = "registro"
PROOF_SECONDS = 600  # a challenge's lifetime
# Each proof counts once: its challenge id is remembered a little longer than the challenge lives.
PROOF_USED = Rule("registro-prueba", 1, PROOF_SECONDS + 60)

ADDRESS_MAIL_RULES: tuple[Rule, ...] = (Rule("correo-10min", 1, 600), Rule("correo-dia", 5, 86_400))
RESET_MAILS_PER_ADDRESS = Rule("correo-clave", 3, 3_600)

# Provider answers that mean "the password was wrong" (a failure that counts).
WRONG_PASSWORD = frozenset({"invalid-credential", "wrong-password"})


def _address(email: str, secret: str) -> str:
    return keyed(secret, "address", email)


@contextlib.contextmanager
def password_check(*, email: str, client: str, secret: str) -> Iterator[None]:
    """Wrap one password check of ``email`` from ``client``: refuse it or take a slot, then settle it.

    Raises too-many-requests (with the wait) when a limit is reached. A wrong
    password (AuthError invalid-credential or wrong-password) keeps the slot
    as a failure; a right one clears this client's delays for the account;
    anything else gives the slot back.
    """
    account = _address(email, secret)
    pair: list[Check] = [(rule, keyed(secret, "pair", account, client)) for rule in PAIR_RULES]
    ceilings: list[Check] = [(ACCOUNT_CEILING, account), (CLIENT_CEILING, client)]
    with _attempt(
        pair,
        ceilings,
        failed=lambda exc: isinstance(exc, AuthError) and exc.code in WRONG_PASSWORD,
        what="sign-in",
        who=mask_email(email),
        client=client,
    ):
        yield


@contextlib.contextmanager
def code_check(*, user_uid: str, client: str, secret: str) -> Iterator[None]:
    """Wrap one check of a staff member's second-factor code from ``client``, as :func:`password_check` does.

    A wrong code (an InvalidInputError out of the block) keeps the slot as a failure.
    """
    account = keyed(secret, "second-factor", user_uid)
    pair: list[Check] = [(rule, keyed(secret, "pair", account, client)) for rule in CODE_PAIR_RULES]
    ceilings: list[Check] = [(CODE_ACCOUNT_CEILING, account), (CODE_CLIENT_CEILING, client)]
    with _attempt(
        pair,
        ceilings,
        failed=lambda exc: isinstance(exc, InvalidInputError),
        what="second factor",
        who=f"user {user_uid}",
        client=client,
    ):
        yield


@contextlib.contextmanager
def _attempt(
    pair: list[Check],
    ceilings: list[Check],
    *,
    failed: Callable[[BaseException], bool],
    what: str,
    who: str,
    client: str,
) -> Iterator[None]:
    """Take a slot of every check or raise too-many-requests; keep it for a failure (``failed``), else settle."""
    counters = limiter()
    wait = counters.hit(pair + ceilings)
    if wait:
        log.warning("%s throttled for %s from client %s: wait %.0f s", what, who, client, wait)
        raise AuthError("too-many-requests", wait_seconds=wait)
    try:
        yield
    except BaseException as exc:
        if not failed(exc):
            counters.refund(ceilings)
        raise
    counters.refund(ceilings)
    counters.clear(pair)


def check_sign_up(*, email: str, client: str, secret: str, proof: str = "", bits: int = 18) -> None:
    """Count a sign-up from ``client`` for ``email``.

    Too-many-requests (with the wait) past the address's limit. Past the client's
    hourly limit, :class:`ProofRequired` with a new challenge of ``bits`` unless
    ``proof`` answers an unused one; a proof is spent once it is accepted.
    """
    counters = limiter()
    address: Check = (SIGN_UPS_PER_ADDRESS, _address(email, secret))
    if not counters.hit([(SIGN_UPS_PER_CLIENT, client), address]):
        return
    wait = counters.wait([address])
    if not wait:
        challenge = proof_of_work.verify(proof, secret=secret, purpose=PROOF_PURPOSE, now=time.time())
        if challenge is None or counters.hit([(PROOF_USED, keyed(secret, "prueba", challenge))]):
            log.warning(
                "sign-up from client %s past its hourly limit: proof of work %s",
                client,
                "missing or invalid" if challenge is None else "already used",
            )
            raise ProofRequired(
                proof_of_work.issue(
                    secret=secret, purpose=PROOF_PURPOSE, bits=bits, now=time.time(), ttl_seconds=PROOF_SECONDS
                )
            )
        wait = counters.hit([address])
        if not wait:
            log.info("sign-up from client %s past its hourly limit, with a proof of work", client)
            return
    log.warning("sign-up throttled for %s from client %s: wait %.0f s", mask_email(email), client, wait)
    raise AuthError("too-many-requests", wait_seconds=wait)


def take_address_mail(email: str, secret: str) -> bool:
    """Count an unrequested e-mail to ``email`` if the cap allows one now; False when it does not."""
    return not limiter().hit([(rule, _address(email, secret)) for rule in ADDRESS_MAIL_RULES])


def take_reset_mail(email: str, secret: str) -> bool:
    """Count a password-reset e-mail to ``email`` if the cap allows one now; False when it does not."""
    return not limiter().hit([(RESET_MAILS_PER_ADDRESS, _address(email, secret))])
