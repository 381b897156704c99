"""Application settings, read from environment variables (see .env.example).

With no configuration at all the app runs on the embedded default: a SQLite
file and photos on local disk under ``data/``. Setting ``DATABASE_URL`` to a
``postgresql+psycopg://`` URL switches to PostgreSQL with no code change.
"""

from __future__ import annotations

import functools
from pathlib import Path

from pydantic import field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
_DEV_SECRET = "development-only-secret"


class Settings(BaseSettings):
    """Every setting of the product, one environment variable each."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    environment: str = "development"
    database_url: str = f"sqlite:///{PROJECT_ROOT / 'data' / 'app.db'}"
    media_dir: Path = PROJECT_ROOT / "data" / "media"
    site_url: str = "http://localhost:3000"
    site_name: str = "Escorts Chile"
    timezone: str = "America/Santiago"
    page_size: int = 24
    secret_key: str = _DEV_SECRET

    @field_validator("environment")
    @classmethod
    def _known_environment(cls, value: str) -> str:
        if value not in {"development", "test", "production"}:
            raise ValueError("ENVIRONMENT must be development, test or production")
        return value

    @field_validator("site_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @field_validator("page_size")
    @classmethod
    def _sane_page_size(cls, value: int) -> int:
        if not 1 <= value <= 100:
            raise ValueError("PAGE_SIZE must be between 1 and 100")
        return value

    @model_validator(mode="after")
    def _real_secret_in_production(self) -> Settings:
        if self.environment == "production" and (self.secret_key == _DEV_SECRET or len(self.secret_key) < 32):
            raise ValueError("SECRET_KEY must be set to a random value of at least 32 characters in production")
        return self

    @property
    def is_sqlite(self) -> bool:
        """True when the configured database is the embedded SQLite file."""
        return self.database_url.startswith("sqlite")


@functools.lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
