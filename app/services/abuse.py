"""Abuse limits: counters shared by every request, and the client key they count by.

Counters live in Redis when REDIS_URL is set (several workers share them) and
in this process's memory otherwise. A :class:`Rule` says "at most N hits per
window"; every hit is one atomic operation of the ``limits`` library, so
concurrent requests can never all slip under a limit. A check hits a whole
list of rules or none of them (see :meth:`Limiter.hit`).

Two kinds of window:

- moving (exact): a hit is allowed while fewer than N hits are younger than
  the window; used where timing matters (progressive delays, e-mail caps);
- sliding counter (``refundable``): an approximation that can give a hit
  back, so a ceiling can count failures only: reserve a slot before the
  check, give it back when the check succeeds.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from limits import RateLimitItem, RateLimitItemPerSecond
from limits.errors import StorageError as LimitsStorageError
from limits.storage import MemoryStorage, RedisStorage, Storage
from limits.strategies import MovingWindowRateLimiter, SlidingWindowCounterRateLimiter

from app.core.errors import ServiceError
from app.settings import Settings, get_settings

log = logging.getLogger(__name__)

REDIS_KEY_PREFIX = "limites"
REDIS_TIMEOUT_S = 2.0


class LimiterUnavailable(ServiceError):
    """The counters cannot be reached (Redis down): refuse rather than let everything through."""

    def __init__(self) -> None:
        super().__init__("No pudimos procesar tu solicitud en este momento. Inténtalo de nuevo en unos minutos.")


@dataclass(frozen=True)
class Rule:
    """At most ``amount`` hits per ``seconds`` for one key; ``refundable`` rules can give a hit back."""

    name: str
    amount: int
    seconds: int
    refundable: bool = False

    @property
    def item(self) -> RateLimitItem:
        return RateLimitItemPerSecond(self.amount, self.seconds, namespace=self.name)


Check = tuple[Rule, str]  # a rule and the key it counts for


@contextlib.contextmanager
def _reachable() -> Iterator[None]:
    try:
        yield
    except LimitsStorageError as exc:
        log.error("abuse counters unreachable: %s", exc.storage_error)
        raise LimiterUnavailable() from exc


class Limiter:
    """Hits, refunds and clears counters in one storage."""

    def __init__(self, storage: Storage) -> None:
        self._moving = MovingWindowRateLimiter(storage)
        self._sliding = SlidingWindowCounterRateLimiter(storage)
        # In memory, one lock makes "test every rule, then hit every rule" atomic.
        # In Redis each hit is atomic on the server: of two processes racing for
        # the last slot one loses its hit and gives back what it took before.
        self._lock = threading.Lock() if isinstance(storage, MemoryStorage) else contextlib.nullcontext()

    def _strategy(self, rule: Rule) -> MovingWindowRateLimiter | SlidingWindowCounterRateLimiter:
        return self._sliding if rule.refundable else self._moving

    def _wait(self, rule: Rule, key: str) -> float:
        """Seconds until ``rule`` has room again for ``key`` (at least one)."""
        stats = self._strategy(rule).get_window_stats(rule.item, key)
        return max(1.0, stats.reset_time - time.time())

    def hit(self, checks: Sequence[Check]) -> float:
        """Count one hit for every check, or none: 0.0 when allowed, else the seconds to wait."""
        with self._lock, _reachable():
            waits = [self._wait(rule, key) for rule, key in checks if not self._strategy(rule).test(rule.item, key)]
            if waits:
                return max(waits)
            for done, (rule, key) in enumerate(checks):
                if not self._strategy(rule).hit(rule.item, key):
                    self._refund(checks[:done])
                    return self._wait(rule, key)
            return 0.0

    def take(self, rule: Rule, key: str) -> bool:
        """One hit of one rule in one atomic operation: True when it had room, else nothing is counted.

        For a single rule whose caller needs no wait time (a view counted once a day): one round
        trip to Redis where :meth:`hit` makes two or three (test, hit, and the wait of a refusal)."""
        with self._lock, _reachable():
            return self._strategy(rule).hit(rule.item, key)

    def wait(self, checks: Sequence[Check]) -> float:
        """Seconds until every check has room again (0.0 when all have); nothing is counted."""
        with self._lock, _reachable():
            return max(
                (self._wait(rule, key) for rule, key in checks if not self._strategy(rule).test(rule.item, key)),
                default=0.0,
            )

    def refund(self, checks: Sequence[Check]) -> None:
        """Give back one hit of each refundable check (moving windows keep theirs)."""
        with self._lock, _reachable():
            self._refund(checks)

    def _refund(self, checks: Sequence[Check]) -> None:
        for rule, key in checks:
            if rule.refundable:
                # A negative cost decrements the current window's counter.
                self._sliding.hit(rule.item, key, cost=-1)

    def clear(self, checks: Sequence[Check]) -> None:
        """Forget every hit of these checks."""
        with self._lock, _reachable():
            for rule, key in checks:
                self._strategy(rule).clear(rule.item, key)


def _storage(settings: Settings) -> Storage:
    if settings.redis_url:
        return RedisStorage(
            settings.redis_url,
            key_prefix=REDIS_KEY_PREFIX,
            wrap_exceptions=True,
            socket_timeout=REDIS_TIMEOUT_S,
            socket_connect_timeout=REDIS_TIMEOUT_S,
        )
    return MemoryStorage()


_built: tuple[Settings, Limiter] | None = None
_built_lock = threading.Lock()


def limiter() -> Limiter:
    """The limiter for the current settings (a new one, with empty memory, when settings are reloaded)."""
    global _built
    settings = get_settings()
    with _built_lock:
        if _built is None or _built[0] is not settings:
            _built = (settings, Limiter(_storage(settings)))
        return _built[1]


def keyed(secret: str, *parts: str) -> str:
    """A keyed hash of ``parts``: counters and logs never hold an address in clear."""
    return hmac.new(secret.encode(), "\x1f".join(parts).encode(), hashlib.sha256).hexdigest()


def client_key(address: str, secret: str) -> str:
    """The key of one client: its IPv4 address, or the /64 network of an IPv6 one, keyed-hashed.

    A household or phone gets a whole /64, so counting single IPv6 addresses
    would let one client rotate through millions of them. An IPv4-mapped IPv6
    address counts as its IPv4 address; anything unparsable counts as itself.
    """
    text = (address or "").strip()
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return keyed(secret, "client", text)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv6Address):
        network = ipaddress.IPv6Network((int(ip) >> 64 << 64, 64))
        return keyed(secret, "client", str(network))
    return keyed(secret, "client", str(ip))
