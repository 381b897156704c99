"""The configured identity provider: local unless IDENTITY_PROVIDER says firebase (firebase-admin is loaded only then)."""

from __future__ import annotations

from app.db import get_engine
from app.identity.local import LocalProvider
from app.identity.provider import IdentityProvider
from app.settings import get_settings


def get_provider() -> IdentityProvider:
    """The provider chosen by IDENTITY_PROVIDER (local unless configured otherwise)."""
    settings = get_settings()
    if settings.identity_provider == "firebase":
        from app.identity.firebase import FirebaseProvider

        return FirebaseProvider.from_settings(settings)
    return LocalProvider(engine=get_engine())
