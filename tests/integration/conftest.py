"""Fixtures shared by the account tests: the app's database session, the local provider, the SMTP mailbox."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlmodel import Session

from app.db import get_engine
from app.identity.local import LocalProvider
from app.settings import get_settings
from tests.mailbox import Mailbox


@pytest.fixture
def db(app_database) -> Iterator[Session]:
    """A session on the app's own database for this test (seed and inspect through it)."""
    with Session(get_engine(), expire_on_commit=False) as session:
        yield session


@pytest.fixture
def provider(app_database) -> LocalProvider:
    """The local identity provider on the app's database."""
    return LocalProvider(engine=get_engine())


@pytest.fixture
def mailbox(app_database, smtp_server, monkeypatch) -> Mailbox:
    """The app sends through the loopback SMTP server for this test."""
    port, box = smtp_server
    monkeypatch.setenv("SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("SMTP_PORT", str(port))
    monkeypatch.setenv("SMTP_STARTTLS", "false")
    get_settings.cache_clear()
    return box
