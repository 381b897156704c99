"""Command line for operators.

- ``python -m app.cli create-admin EMAIL`` creates the first administrator with the configured
  identity provider. The password is asked for twice on a terminal, read from standard input with
  ``--password-stdin``, or generated (and printed once) with ``--generate``. There is no default
  password anywhere.
- ``python -m app.cli backup DEST`` and ``python -m app.cli restore SRC [--replace]`` back up and
  restore the database and both photo stores (app/services/backup.py). With ``BACKUP_KEY`` in the
  environment the files are encrypted (age); ``python -m app.cli backup-key`` makes such a key.
  The key is read from the environment only: the running site never needs it, so it is not a setting.
"""

from __future__ import annotations

import argparse
import getpass
import os
import secrets
import sys
from collections.abc import Callable

from app import logs, task_queue, tasks
from app.core.errors import ServiceError
from app.db import session_scope
from app.identity.factory import get_provider
from app.services import accounts, backup
from app.settings import get_settings


def _password(args: argparse.Namespace) -> tuple[str, bool]:
    """The password to use, and whether it was generated here."""
    if args.generate:
        return secrets.token_urlsafe(18), True
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n"), False
    if not sys.stdin.isatty():
        raise SystemExit("Sin terminal: usa --password-stdin o --generate.")
    first = getpass.getpass("Contraseña: ")
    if first != getpass.getpass("Repite la contraseña: "):
        raise SystemExit("Las contraseñas no coinciden.")
    return first, False


def create_admin(args: argparse.Namespace) -> int:
    """Create the administrator account; print where to sign in."""
    password, generated = _password(args)
    try:
        with session_scope() as session:
            user = accounts.create_administrator(
                session=session, provider=get_provider(), email=args.email, password=password, display_name=args.name
            )
    except ServiceError as exc:
        print(f"No se creó el administrador: {exc.message}", file=sys.stderr)
        return 1
    print(f"Administrador creado: {user.email}")
    print("Al primer ingreso configurarás el segundo factor; ten a mano una app de autenticación (TOTP).")
    if generated:
        print(f"Contraseña generada (se muestra solo esta vez): {password}")
    return 0


def _backup_key() -> str | None:
    # Not a Settings field on purpose: the operator gives the key to these commands alone, and the site
    # never holds it (docs/deployment.md, "Backups").
    return os.environ.get("BACKUP_KEY", "").strip() or None


def _summary(verb: str, summary: backup.BackupSummary) -> str:
    files = summary.files
    encrypted = "cifrado con BACKUP_KEY" if summary.encrypted else "sin cifrar (define BACKUP_KEY para cifrarlo)"
    return (
        f"{verb} {summary.place}: base de datos {summary.database} ({len(summary.tables)} tablas, "
        f"{sum(summary.tables.values())} filas), {files['public']} fotos públicas y {files['private']} privadas; "
        f"{encrypted}."
    )


def run_backup(args: argparse.Namespace) -> int:
    """Write a backup to DEST (a new folder or an empty s3:// prefix)."""
    try:
        summary = backup.create_backup(settings=get_settings(), dest=args.dest, key=_backup_key())
    except ServiceError as exc:
        print(f"No se hizo el respaldo: {exc.message}", file=sys.stderr)
        return 1
    print(_summary("Respaldo completo en", summary))
    return 0


def run_restore(args: argparse.Namespace) -> int:
    """Restore the backup at SRC into the configured (empty) database and stores."""
    try:
        summary = backup.restore_backup(settings=get_settings(), src=args.src, key=_backup_key(), replace=args.replace)
    except ServiceError as exc:
        print(f"No se restauró el respaldo: {exc.message}", file=sys.stderr)
        return 1
    print(_summary("Restaurado desde", summary))
    return 0


def make_backup_key(_args: argparse.Namespace) -> int:
    """Print a new age key for BACKUP_KEY, and its public half."""
    secret, public = backup.new_key()
    print(f"BACKUP_KEY={secret}")
    print(f"# Clave pública (basta para respaldar, no para restaurar): {public}")
    print("# Guárdala fuera del servidor y de los respaldos: sin ella no se pueden restaurar.")
    return 0


def run_task_worker(_args: argparse.Namespace) -> int:
    """Run background jobs until stopped (SIGTERM lets the jobs under way finish)."""
    if not task_queue.is_durable():
        print("Un trabajador aparte necesita PostgreSQL (DATABASE_URL): con SQLite la aplicación ejecuta sus trabajos.")
        return 2
    tasks.run_worker()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and run the chosen command."""
    parser = argparse.ArgumentParser(prog="python -m app.cli")
    commands = parser.add_subparsers(dest="command", required=True)
    admin = commands.add_parser("create-admin", help="crea un administrador")
    admin.add_argument("email")
    admin.add_argument("--name", default="", help="nombre visible")
    source = admin.add_mutually_exclusive_group()
    source.add_argument("--password-stdin", action="store_true", help="lee la contraseña de la entrada estándar")
    source.add_argument("--generate", action="store_true", help="genera una contraseña aleatoria y la muestra")
    admin.set_defaults(run=create_admin)
    dump = commands.add_parser("backup", help="respalda la base de datos y las fotos")
    dump.add_argument("dest", help="carpeta nueva o prefijo s3://bucket/prefijo")
    dump.set_defaults(run=run_backup)
    load = commands.add_parser("restore", help="restaura un respaldo en una base y un almacenamiento vacíos")
    load.add_argument("src", help="carpeta o prefijo s3://bucket/prefijo del respaldo")
    load.add_argument("--replace", action="store_true", help="reemplaza el contenido actual de la base y las fotos")
    load.set_defaults(run=run_restore)
    keygen = commands.add_parser("backup-key", help="crea una clave para cifrar los respaldos (BACKUP_KEY)")
    keygen.set_defaults(run=make_backup_key)
    worker = commands.add_parser("worker", help="ejecuta los trabajos en segundo plano (correo, exportaciones, videos)")
    worker.set_defaults(run=run_task_worker)
    args = parser.parse_args(argv)
    logs.configure()
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
