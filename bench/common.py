"""Shared pieces of the benchmarks: a scratch PostgreSQL database and timing helpers."""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

SERVER = os.environ.get("BENCH_DATABASE_URL", "postgresql+psycopg://postgres:postgres@127.0.0.1:5432/postgres")


@contextmanager
def scratch_database() -> Iterator[str]:
    """A new, empty database on the BENCH_DATABASE_URL server, dropped afterwards; yields its URL."""
    name = f"bench_{uuid.uuid4().hex[:10]}"
    libpq = make_url(SERVER).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(libpq, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield make_url(SERVER).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(libpq, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def percentiles(samples: list[float]) -> tuple[float, float]:
    """(p50, p95) of the samples."""
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered), p95


def timed(fn: Callable[[], object], runs: int) -> list[float]:
    """Milliseconds taken by each of ``runs`` calls of ``fn``."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples
