"""Application settings, read from environment variables (see .env.example).

With no configuration at all the app runs on the embedded default: a SQLite
file and photos on local disk under ``data/``. Setting ``DATABASE_URL`` to a
``postgresql+psycopg://`` URL switches to PostgreSQL with no code change.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent
_DEV_SECRET = "development-only-secret"
_DEFAULT_PORTS = {"http": 80, "https": 443}
PasswordHasherKind = Literal["argon2", "fast"]


def origin_of(url: str) -> str:
    """The origin of an http(s) URL as a browser writes it in the Origin header.

    Lower case, IPv6 hosts in brackets, the scheme's default port left out:
    ``HTTPS://Example.cl:443/x`` -> ``https://example.cl``.
    """
    parts = urlsplit(url.strip())
    try:
        port = parts.port
    except ValueError as error:
        raise ValueError(f"{url!r} has an invalid port") from error
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"{url!r} is not an http:// or https:// address")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    if port is None or port == _DEFAULT_PORTS[parts.scheme]:
        return f"{parts.scheme}://{host}"
    return f"{parts.scheme}://{host}:{port}"


class Settings(BaseSettings):
    """Every setting of the product, one environment variable each."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    environment: str = "development"
    database_url: str = f"sqlite:///{PROJECT_ROOT / 'data' / 'app.db'}"
    media_dir: Path = PROJECT_ROOT / "data" / "media"
    site_url: str = "http://localhost:3000"
    # Extra origins (comma-separated, e.g. https://www.example.cl) allowed for
    # CORS, the websocket and the Host check besides SITE_URL's.
    allowed_origins: Annotated[list[str], NoDecode] = []
    site_name: str = "Escorts Chile"
    timezone: str = "America/Santiago"
    page_size: int = 24
    # Seconds a server-rendered public page stays in the cache at most (app.services.page_cache): the bound on
    # staleness for writes the cache's listener cannot see; 0 turns the cache off.
    page_cache_seconds: float = Field(default=30, ge=0)
    secret_key: str = _DEV_SECRET

    # Identity: "local" (passwords hashed here, the embedded default) or
    # "firebase" (Firebase Authentication; needs the project id and web API key).
    identity_provider: Literal["local", "firebase"] = "local"
    firebase_project_id: str = ""
    firebase_api_key: str = ""
    # Path to a service-account JSON; empty = Application Default Credentials.
    firebase_credentials: str = ""
    # "argon2" (the recommended parameters) or "fast" (argon2 at its lowest cost, for the
    # test suite only: refused in production).
    password_hasher: PasswordHasherKind = "argon2"
    session_days: int = 30
    # A session also ends after this many days without use.
    session_idle_days: int = 7
    # Zero bits of the proof of work a sign-up past the hourly limit of its client address
    # must bring (app.core.proof_of_work): about 2**bits hashes in assets/proof.js; at 18,
    # under a second on a desktop (about 350 000 a second measured) and a few on a phone.
    sign_up_proof_bits: int = 18

    # PostgreSQL limits: a connection attempt, one statement, and the wait for
    # a free pooled connection each fail with an error instead of hanging.
    db_connect_timeout_s: int = 5
    db_statement_timeout_ms: int = 15_000
    db_pool_timeout_s: float = 10.0
    # A statement slower than this is counted (escorts_db_slow_statements_total, app.metrics).
    db_slow_statement_ms: int = Field(default=500, ge=1)

    # Prometheus metrics (app.metrics): GET /metrics on the app's port and, in worker processes
    # (python -m app.cli worker), on METRICS_PORT, both with the header "Authorization: Bearer METRICS_TOKEN".
    # Empty token: /metrics answers 404 and workers serve nothing. METRICS_PORT=0: workers serve nothing.
    metrics_token: str = ""
    metrics_port: int = Field(default=9464, ge=0, le=65535)

    # Redis: Reflex's state manager and the abuse limits when set (several
    # workers); otherwise state and limits live in this one process's memory.
    redis_url: str = ""
    # Who runs background jobs (app.tasks): "in-process", the web app itself (the embedded default);
    # "separate", only worker processes (python -m app.cli worker): web nodes then never transcode.
    task_worker: Literal["in-process", "separate"] = "in-process"
    # Jobs one worker runs at a time.
    task_concurrency: int = Field(default=2, ge=1)
    # Backend worker processes (WEB_WORKERS): 0 = Reflex's choice, two per core
    # plus one with Redis and one without. More than one needs REDIS_URL, where
    # tab state and the abuse counters are shared (docs/deployment.md, "Several workers").
    web_workers: int = 0

    # Outgoing e-mail: SMTP when SMTP_HOST is set, otherwise files in OUTBOX_DIR.
    smtp_host: str = ""
    smtp_port: int = 587
    smtp_user: str = ""
    smtp_password: str = ""
    smtp_starttls: bool = True
    # Implicit TLS from the first byte (port 465) instead of STARTTLS.
    smtp_ssl: bool = False
    # PEM file of a private CA that signed the SMTP server's certificate;
    # empty = the system's trusted CAs. The certificate is always verified.
    smtp_tls_ca_file: str = ""
    mail_from: str = "Escorts Chile <no-responder@localhost>"
    outbox_dir: Path = PROJECT_ROOT / "data" / "outbox"
    # Notices to advertisers (app.services.notices) e-mailed to one recipient in 24 hours; past it they
    # are recorded as not sent (aviso.status "sobre_limite").
    notices_per_day: int = Field(default=20, ge=1)

    # Photo storage: S3-compatible object storage when S3_BUCKET is set (needed
    # with several app servers), otherwise files under MEDIA_DIR.
    s3_endpoint_url: str = ""
    s3_bucket: str = ""
    s3_access_key: str = ""
    s3_secret_key: str = ""
    s3_region: str = "us-east-1"

    # Private files (verification photos), shown only to staff through an authorized
    # route: a folder outside MEDIA_DIR and Reflex's upload folder, or with S3 a bucket
    # of their own (empty = S3_BUCKET + "-private"), never the public one.
    private_media_dir: Path = PROJECT_ROOT / "data" / "private"
    s3_private_bucket: str = ""

    # Logs (app.logs): "text" lines for a person (scripts/run.sh) or "json", one object a line for a collector;
    # the level of the app's loggers (DEBUG, INFO, WARNING, ERROR). NODE_NAME names this machine in every
    # line and error report (empty = the host name).
    log_format: Literal["text", "json"] = "text"
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    node_name: str = ""
    # Error reports to Sentry or any server that speaks its protocol, only when SENTRY_DSN is set.
    sentry_dsn: str = ""
    sentry_environment: str = ""
    # Share of requests and events traced for performance (0 to 1); 0 sends errors only.
    sentry_traces_sample_rate: float = Field(default=0.0, ge=0.0, le=1.0)

    @field_validator("environment")
    @classmethod
    def _known_environment(cls, value: str) -> str:
        if value not in {"development", "test", "production"}:
            raise ValueError("ENVIRONMENT must be development, test or production")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper_case_level(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("site_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @field_validator("site_url")
    @classmethod
    def _http_site_url(cls, value: str) -> str:
        origin_of(value)  # raises on anything but an http(s) address
        return value

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _comma_separated_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [item for item in (part.strip() for part in value.split(",")) if item]
        return value

    @field_validator("allowed_origins")
    @classmethod
    def _bare_origins(cls, value: list[str]) -> list[str]:
        origins = []
        for item in value:
            parts = urlsplit(item)
            if parts.path not in ("", "/") or parts.query or parts.fragment or parts.username:
                raise ValueError(f"ALLOWED_ORIGINS entries are scheme://host[:port] only, not {item!r}")
            origins.append(origin_of(item))
        return origins

    @field_validator("sign_up_proof_bits")
    @classmethod
    def _sane_proof_bits(cls, value: int) -> int:
        if not 1 <= value <= 28:
            raise ValueError("SIGN_UP_PROOF_BITS must be between 1 and 28")
        return value

    @field_validator("page_size")
    @classmethod
    def _sane_page_size(cls, value: int) -> int:
        if not 1 <= value <= 100:
            raise ValueError("PAGE_SIZE must be between 1 and 100")
        return value

    @field_validator("db_connect_timeout_s")
    @classmethod
    def _libpq_connect_timeout(cls, value: int) -> int:
        if value < 2:
            raise ValueError("DB_CONNECT_TIMEOUT_S must be at least 2 seconds (the PostgreSQL client's minimum)")
        return value

    @field_validator("db_statement_timeout_ms", "db_pool_timeout_s")
    @classmethod
    def _positive_timeout(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("DB_STATEMENT_TIMEOUT_MS and DB_POOL_TIMEOUT_S must be positive")
        return value

    @field_validator("web_workers")
    @classmethod
    def _non_negative_workers(cls, value: int) -> int:
        if value < 0:
            raise ValueError("WEB_WORKERS must be 0 (Reflex's choice) or a number of worker processes")
        return value

    @field_validator("smtp_tls_ca_file")
    @classmethod
    def _readable_ca_file(cls, value: str) -> str:
        if value and not Path(value).is_file():
            raise ValueError(
                f"SMTP_TLS_CA_FILE={value} is not a file: point it at the PEM certificate of the mail server's CA"
            )
        return value

    @model_validator(mode="after")
    def _private_files_apart(self) -> Settings:
        if self.s3_bucket and not self.s3_private_bucket:
            self.s3_private_bucket = f"{self.s3_bucket}-private"
        if self.s3_bucket and self.s3_private_bucket == self.s3_bucket:
            raise ValueError("S3_PRIVATE_BUCKET must differ from S3_BUCKET: the public bucket's objects are public")
        private = self.private_media_dir.resolve()
        upload_dir = Path(os.environ.get("REFLEX_UPLOADED_FILES_DIR") or "uploaded_files").resolve()
        for public in (self.media_dir.resolve(), upload_dir):
            if private.is_relative_to(public) or public.is_relative_to(private):
                raise ValueError(
                    f"PRIVATE_MEDIA_DIR ({private}) must be apart from {public}: "
                    "that folder is served to anyone, and verification photos are for staff only"
                )
        return self

    @model_validator(mode="after")
    def _shared_state_for_several_workers(self) -> Settings:
        if self.web_workers > 1 and not self.redis_url:
            raise ValueError(
                "WEB_WORKERS above 1 needs REDIS_URL: without Redis every worker keeps its own tabs' state and "
                "abuse counters, and a tab whose requests reach two workers breaks"
            )
        return self

    @model_validator(mode="after")
    def _real_secret_in_production(self) -> Settings:
        if self.environment == "production" and (self.secret_key == _DEV_SECRET or len(self.secret_key) < 32):
            raise ValueError("SECRET_KEY must be set to a random value of at least 32 characters in production")
        if self.environment == "production" and os.environ.get("FIREBASE_AUTH_EMULATOR_HOST"):
            raise ValueError(
                "FIREBASE_AUTH_EMULATOR_HOST is set: the emulator's tokens are unsigned, so production refuses to start"
            )
        if self.identity_provider == "firebase" and not (self.firebase_project_id and self.firebase_api_key):
            raise ValueError("IDENTITY_PROVIDER=firebase needs FIREBASE_PROJECT_ID and FIREBASE_API_KEY")
        return self

    @model_validator(mode="after")
    def _mail_and_proxy_hops_in_production(self) -> Settings:
        if self.environment != "production":
            return self
        if not self.smtp_host:
            raise ValueError(
                "SMTP_HOST must be set in production: account notices (password changed, sign-up attempts on a "
                "used address, and with IDENTITY_PROVIDER=local the confirmation and reset links) are e-mailed, "
                "and the outbox folder is for development and tests only"
            )
        if not re.fullmatch(r"[0-9]+", os.environ.get("REFLEX_TRUSTED_PROXY_HOPS", "").strip()):
            raise ValueError(
                "REFLEX_TRUSTED_PROXY_HOPS must be set in production to the number of reverse proxies in front of "
                "the app (0 when clients connect directly): the abuse limits count per client address, and a wrong "
                "value makes every visitor share the proxy's address"
            )
        return self

    @model_validator(mode="after")
    def _real_password_hashing_in_production(self) -> Settings:
        if self.environment == "production" and self.password_hasher != "argon2":
            raise ValueError(
                "PASSWORD_HASHER=fast is for the test suite only: production hashes passwords with argon2's "
                "recommended parameters"
            )
        return self

    @property
    def is_https(self) -> bool:
        """True when the public address is https (cookies get Secure, HSTS is sent)."""
        return self.site_url.startswith("https://")

    @property
    def backend_workers(self) -> int | None:
        """Worker processes to ask Reflex for: 1 without Redis, WEB_WORKERS with it (None = Reflex's choice)."""
        if not self.redis_url:
            return 1
        return self.web_workers or None

    @property
    def is_sqlite(self) -> bool:
        """True when the configured database is the embedded SQLite file."""
        return self.database_url.startswith("sqlite")


@functools.lru_cache
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
