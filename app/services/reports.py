"""The public report form's storage, with validation and anti-spam rules.

Spam defences (all server-side): a hidden honeypot field that people leave
empty, a minimum time between showing the form and sending it, a cap on
links in the message, and a per-client cap on reports in a time window
(an atomic counter of app.services.abuse: concurrent sends cannot all pass).

A trafficking or minor-safety report, once stored, is e-mailed to every
active administrator through the mail queue: its kind, when it arrived, the
listing and a link to /admin/reportes; never the reporter's message or contact.
"""

from __future__ import annotations

import logging
from typing import Any
from zoneinfo import ZoneInfo

from pydantic import BaseModel, field_validator
from sqlmodel import Session, select

from app.content import mail
from app.core.errors import InvalidInputError, RateLimitedError, validated_input
from app.core.text import is_valid_email, spanish_duration
from app.db import commit
from app.models import REPORT_KIND_LABELS, Listing, ProfileId, Report, ReportKind, User
from app.routes import ADMIN_REPORTS
from app.services.abuse import Rule, limiter
from app.services.listings import listing_path
from app.services.mail import MailError, queue_email
from app.settings import get_settings

log = logging.getLogger(__name__)

MESSAGE_MIN = 20
MESSAGE_MAX = 5000
MIN_FILL_SECONDS = 3.0
MAX_LINKS = 3
# At most three reports per client (app.services.abuse.client_key) in any ten minutes.
REPORTS_PER_CLIENT = Rule("reportes", 3, 600)
# Trafficking and minor-safety reports: first on the staff desk, e-mailed to the administrators on arrival.
URGENT_KINDS = frozenset({ReportKind.TRATA.value, ReportKind.MENOR.value})


class ReportInput(BaseModel):
    """What a person sends through the report form."""

    kind: ReportKind
    message: str
    contact: str = ""
    listing_uid: str | None = None

    @field_validator("kind", mode="before")
    @classmethod
    def _kind(cls, value: object) -> object:
        if value not in {k.value for k in ReportKind}:
            raise ValueError("Elige el tipo de problema que quieres reportar.")
        return value

    @field_validator("message")
    @classmethod
    def _message(cls, value: str) -> str:
        value = value.strip()
        if len(value) < MESSAGE_MIN:
            raise ValueError(f"Describe la situación con al menos {MESSAGE_MIN} caracteres.")
        if len(value) > MESSAGE_MAX:
            raise ValueError(f"El mensaje no puede superar los {MESSAGE_MAX} caracteres.")
        if value.lower().count("http") > MAX_LINKS:
            raise ValueError(f"El mensaje no puede tener más de {MAX_LINKS} enlaces.")
        return value

    @field_validator("contact")
    @classmethod
    def _contact(cls, value: str) -> str:
        value = value.strip()
        if len(value) > 254:
            raise ValueError("El dato de contacto es demasiado largo.")
        digits = sum(ch.isdigit() for ch in value)
        if value and not is_valid_email(value) and digits < 8:
            raise ValueError("Indica un correo electrónico o un teléfono válido, o deja el contacto vacío.")
        return value

    @field_validator("listing_uid")
    @classmethod
    def _listing(cls, value: str | None) -> str | None:
        value = (value or "").strip()
        if len(value) > 40:
            raise ValueError("La publicación indicada no es válida.")
        return value or None


def create_report(
    *,
    session: Session,
    data: dict[str, Any],
    client_key: str,
    honeypot: str = "",
    seconds_on_form: float = 0.0,
) -> Report:
    """Validate and store a report for staff; raise a typed error otherwise.

    ``client_key`` comes from app.services.abuse.client_key.
    """
    if honeypot or seconds_on_form < MIN_FILL_SECONDS:
        raise InvalidInputError("No pudimos aceptar el reporte. Revisa el formulario e inténtalo de nuevo.")
    payload = validated_input(ReportInput, data)
    if payload.listing_uid and session.get(Listing, payload.listing_uid) is None:
        raise InvalidInputError("La publicación indicada no existe.", field="listing_uid")
    wait = limiter().hit([(REPORTS_PER_CLIENT, client_key)])
    if wait:
        log.warning("report refused: too many from client %s", client_key)
        raise RateLimitedError(
            f"Enviaste varios reportes seguidos. Espera {spanish_duration(wait)} e inténtalo de nuevo."
        )
    report = Report(
        kind=payload.kind.value,
        message=payload.message,
        contact=payload.contact,
        listing_uid=payload.listing_uid,
        client_hash=client_key,
    )
    session.add(report)
    commit(session, "No se pudo guardar el reporte. Inténtalo de nuevo en unos minutos.")
    if report.kind in URGENT_KINDS:
        _alert_administrators(session, report)
    return report


def _alert_mail(report: Report, listing: Listing | None, name: str) -> tuple[str, str]:
    """The urgent-report e-mail to administrator ``name`` (app.content.mail)."""
    received = report.created_at.astimezone(ZoneInfo(get_settings().timezone))
    path = (
        listing_path(section=listing.section, city_slug=listing.city_slug, name_slug=listing.name_slug, uid=listing.uid)
        if listing is not None
        else ""
    )
    return mail.urgent_report(
        name=name,
        kind=REPORT_KIND_LABELS[ReportKind(report.kind)],
        received=f"{received:%Y/%m/%d %H:%M}",
        listing=(listing.display_name or "") if listing is not None else "",
        listing_path=path,
        desk_path=ADMIN_REPORTS,
    )


def _alert_administrators(session: Session, report: Report) -> None:
    """E-mail every active administrator that an urgent report arrived (the report is already stored)."""
    admins = session.exec(
        select(User).where(
            User.profile_uid == ProfileId.ADMINISTRADOR.value,
            User.activo == True,  # noqa: E712
            User.ban == False,  # noqa: E712
        )
    ).all()
    listing = session.get(Listing, report.listing_uid) if report.listing_uid else None
    for admin in admins:
        subject, body = _alert_mail(report, listing, admin.display_name)
        try:
            queue_email(to=admin.email, subject=subject, body=body)
        except MailError:
            # The report is stored and first on the desk; the mail module logged the refusal.
            log.error("urgent report %s: an administrator could not be e-mailed", report.uid)
