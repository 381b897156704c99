"""Background work on a task queue (issue 35 §2): Procrastinate's tables, and the periodic tasks' last outcomes.

- On PostgreSQL, Procrastinate's schema as of its migration 03.04.00 (Procrastinate 3.10.0), kept beside the
  migrations in alembic/procrastinate/: jobs, events, periodic defers and workers. A later Procrastinate with
  schema changes comes with a migration of ours that runs its files from procrastinate/sql/migrations/.
  SQLite (the embedded default) keeps its jobs in the app's memory and gets none of these tables.
- trabajo_periodico on both: each periodic task's last success and failure.
- correo_saliente on both: the e-mails waiting for delivery; their jobs carry only the row's uid.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-28 14:30:00
"""

from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UTC_DATETIME = sqlmodel.sql.sqltypes.UTCDateTime
PROCRASTINATE_SCHEMA = Path(__file__).parent.parent / "procrastinate" / "schema-03.04.00.sql"


def upgrade() -> None:
    op.create_table(
        "trabajo_periodico",
        sa.Column("name", sa.String(length=80), primary_key=True),
        sa.Column("last_success_at", UTC_DATETIME(), nullable=True),
        sa.Column("last_failure_at", UTC_DATETIME(), nullable=True),
    )
    op.create_table(
        "correo_saliente",
        sa.Column("uid", sa.String(length=40), primary_key=True),
        sa.Column("to", sa.String(length=254), nullable=False),
        sa.Column("subject", sa.String(length=300), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", UTC_DATETIME(), nullable=False),
    )
    op.create_index("ix_correo_saliente_created_at", "correo_saliente", ["created_at"])
    if op.get_bind().dialect.name == "postgresql":
        # One script of many statements, with $$ bodies and % signs: psycopg sends a query without
        # parameters as it is (the simple protocol), which SQLAlchemy's execute would not.
        op.get_bind().connection.driver_connection.execute(PROCRASTINATE_SCHEMA.read_text())


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for table in ("procrastinate_events", "procrastinate_periodic_defers", "procrastinate_jobs"):
            op.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
        op.execute("DROP TABLE IF EXISTS procrastinate_workers CASCADE")
        for kind in ("procrastinate_job_status", "procrastinate_job_event_type"):
            op.execute(f"DROP TYPE IF EXISTS {kind} CASCADE")
        op.execute("DROP TYPE IF EXISTS procrastinate_job_to_defer_v1 CASCADE")
        # The functions go with the types and tables they take or touch (CASCADE above); the rest:
        op.execute(
            "DO $$ DECLARE f record; BEGIN FOR f IN SELECT oid::regprocedure AS sig FROM pg_proc "
            "WHERE proname LIKE 'procrastinate\\_%' LOOP EXECUTE 'DROP FUNCTION ' || f.sig || ' CASCADE'; END LOOP; END $$"
        )
    op.drop_index("ix_correo_saliente_created_at", table_name="correo_saliente")
    op.drop_table("correo_saliente")
    op.drop_table("trabajo_periodico")
