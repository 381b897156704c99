"""The administrator's settings page (/admin/ajustes): how to pay for an upgrade (issue 19 §4).

Only an administrator reads the form or changes it; each change is audited (auditoria, entity
``ajuste_sitio``) in the same transaction. Advertisers read the instructions through
:func:`payment_instructions` (their upgrade cards and the notice e-mail).
"""

from __future__ import annotations

from sqlmodel import Session

from app.core.actor import Actor
from app.core.errors import InvalidInputError
from app.db import commit
from app.models import SiteSetting, utc_now
from app.services.staff import audit
from app.services.staff.shared import ensure_admin

PAYMENT_INSTRUCTIONS = "instrucciones_pago"
INSTRUCTIONS_MAX = 2000
NO_INSTRUCTIONS = "Te enviaremos los datos para pagar; escríbenos si no los recibes."
SETTINGS_ADMIN_ONLY = "Solo un administrador puede cambiar los ajustes del sitio."


def payment_instructions(session: Session) -> str:
    """The payment instructions advertisers read (a placeholder until the administrator sets them)."""
    setting = session.get(SiteSetting, PAYMENT_INSTRUCTIONS)
    return setting.value if setting is not None and setting.value else NO_INSTRUCTIONS


def instructions_for_admin(*, session: Session, actor: Actor) -> str:
    """The instructions as set (empty when never set), for the administrator's form."""
    ensure_admin(session, actor.uid, SETTINGS_ADMIN_ONLY)
    setting = session.get(SiteSetting, PAYMENT_INSTRUCTIONS)
    return setting.value if setting is not None else ""


def set_payment_instructions(*, session: Session, actor: Actor, text: object) -> str:
    """Replace the payment instructions (administrators only, audited); the stored text."""
    ensure_admin(session, actor.uid, SETTINGS_ADMIN_ONLY)
    value = "\n".join(line.rstrip() for line in text.strip().splitlines()) if isinstance(text, str) else ""
    if not value:
        raise InvalidInputError("Escribe cómo pagar: datos de la transferencia u otro medio.", field="instructions")
    if len(value) > INSTRUCTIONS_MAX:
        raise InvalidInputError("Las instrucciones pueden tener hasta 2.000 caracteres.", field="instructions")
    setting = session.get(SiteSetting, PAYMENT_INSTRUCTIONS, with_for_update=True)
    before = audit.snapshot(setting)
    if setting is None:
        setting = SiteSetting(key=PAYMENT_INSTRUCTIONS)
    setting.value = value
    setting.updated_at = utc_now()
    session.add(setting)
    audit.record(
        session,
        actor_uid=actor.uid,
        action="editar",
        entity=SiteSetting.__tablename__,
        entity_uid=PAYMENT_INSTRUCTIONS,
        before=before,
        after=audit.snapshot(setting),
        now=setting.updated_at,
    )
    commit(session)
    return value
