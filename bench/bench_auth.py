"""Benchmark: what signing in and checking a session cost, on PostgreSQL.

    .venv/bin/python bench/bench_auth.py --sessions 20000 --runs 500

Every guarded event handler resolves the caller's session from the database,
so ``resolve_session`` runs on every staff or advertiser action; sign-in pays
for one argon2 verification plus the abuse-limit counters (in memory here;
Redis when REDIS_URL is set). Creates a scratch database with that many users
and live sessions, prints p50/p95 in ms, and drops the database. Not part of
the tests.
"""

from __future__ import annotations

import argparse
import random
import sys
from datetime import timedelta

from common import percentiles, scratch_database, timed
from sqlalchemy import insert
from sqlmodel import Session

from app.db import make_engine, migrate
from app.identity import sessions, throttle
from app.identity.local import LocalProvider, digest
from app.models import ProfileId, User, UserSession, new_uid, utc_now
from app.services import accounts
from app.services.users import create_user
from app.settings import Settings

PASSWORD = "bench-clave-segura-2026"


def _fill(session: Session, count: int) -> list[str]:
    """``count`` users with one live session each; return the raw tokens."""
    now = utc_now()
    users, rows, tokens = [], [], []
    for index in range(count):
        uid, token = new_uid(), new_uid() + new_uid()
        users.append(
            {
                "uid": uid,
                "email": f"u{index}@bench.cl",
                "display_name": f"U{index}",
                "profile_uid": "profesor",
                "activo": True,
                "ban": index % 500 == 0,
                "online": False,
                "created_at": now,
                "updated_at": now,
            }
        )
        rows.append(
            {"token_hash": digest(token), "user_uid": uid, "created_at": now, "expires_at": now + timedelta(days=30)}
        )
        tokens.append(token)
    session.execute(insert(User), users)
    session.execute(insert(UserSession), rows)
    session.commit()
    return tokens


def _limits_only(email: str, client: str, secret: str) -> None:
    """Take and give back one sign-in slot (a right password), without the password check."""
    with throttle.password_check(email=email, client=client, secret=secret):
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--runs", type=int, default=500)
    args = parser.parse_args()
    settings = Settings()
    with scratch_database() as url:
        migrate(url)
        engine = make_engine(url)
        provider = LocalProvider(engine=engine)
        with Session(engine, expire_on_commit=False) as session:
            tokens = _fill(session, args.sessions)
            identity = provider.create_account(email="bench@bench.cl", password=PASSWORD)
            create_user(
                session=session,
                data={"email": "bench@bench.cl", "profile_uid": ProfileId.CLIENTE.value, "identity_uid": identity.uid},
            )
        with engine.connect() as conn:
            conn.exec_driver_sql("ANALYZE")
            conn.commit()
        rng = random.Random(1)
        with Session(engine) as session:
            cases = {
                "resolve_session (every guarded action)": lambda: sessions.resolve_session(
                    session=session, token_hash=digest(rng.choice(tokens)), idle_days=settings.session_idle_days
                ),
                "sign-in limits (throttle.password_check)": lambda: _limits_only(
                    f"u{rng.randrange(args.sessions)}@bench.cl", f"c{rng.randrange(997)}", settings.secret_key
                ),
                "argon2 password check (provider.sign_in)": lambda: provider.sign_in(
                    email="bench@bench.cl", password=PASSWORD
                ),
                "whole sign-in (limits, password, session)": lambda: accounts.sign_in(
                    session=session,
                    provider=provider,
                    settings=settings,
                    email="bench@bench.cl",
                    password=PASSWORD,
                    client_hash=f"bench{rng.randrange(10**9)}",
                ),
            }
            print(f"{args.sessions} users with live sessions; times in ms")
            for label, fn in cases.items():
                runs = args.runs if "argon2" not in label and "whole" not in label else max(20, args.runs // 10)
                timed(fn, 5)  # warm-up
                p50, p95 = percentiles(timed(fn, runs))
                print(f"{label:44s} p50 {p50:7.2f}   p95 {p95:7.2f}   ({runs} runs)")
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
