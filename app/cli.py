"""Command line for operators: ``python -m app.cli create-admin EMAIL``.

Creates the first administrator with the configured identity provider. The
password is asked for twice on a terminal, read from standard input with
``--password-stdin``, or generated (and printed once) with ``--generate``.
There is no default password anywhere.
"""

from __future__ import annotations

import argparse
import getpass
import secrets
import sys

from app.core.errors import ServiceError
from app.db import session_scope
from app.identity.factory import get_provider
from app.services import accounts


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
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
