"""Every e-mail notice to advertisers (issue 19 §3): its kind, whether it can be turned off, and its Spanish text.

The texts are Jinja2 templates of plain text (``render_notice``), one place for all of them. Each
receives only what the notice needs: the listing's public name, the link into "Mis publicaciones",
and, depending on the kind, the reviewer's reason, dates, the amount and payment reference of an
upgrade, the payment instructions. Nothing else about the advertiser goes into a mail.

``optional`` notices (reminders and the clock's news) can be turned off from the advertiser's
account; decisions on their listings and account notices cannot.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from jinja2 import Environment, StrictUndefined


class NoticeKind(StrEnum):
    """What happened; stored with each notice sent (``aviso.kind``)."""

    LISTING_APPROVED = "publicacion_aprobada"
    LISTING_REJECTED = "publicacion_rechazada"
    EDIT_APPROVED = "edicion_aprobada"
    EDIT_REJECTED = "edicion_rechazada"
    LISTING_TAKEN_DOWN = "publicacion_despublicada"
    UPGRADE_REQUESTED = "mejora_solicitada"
    UPGRADE_APPROVED = "mejora_aprobada"
    UPGRADE_DENIED = "mejora_rechazada"
    UPGRADE_UNPAID = "mejora_sin_pago"
    UPGRADE_STARTED = "mejora_iniciada"
    UPGRADE_ENDED = "mejora_terminada"
    VERIFICATION_APPROVED = "verificacion_aprobada"
    VERIFICATION_REJECTED = "verificacion_rechazada"
    LISTING_EXPIRING = "publicacion_por_vencer"
    LISTING_EXPIRED = "publicacion_vencida"
    DRAFT_PURGE_WARNING = "borrador_por_eliminar"


@dataclass(frozen=True)
class NoticeText:
    """One notice: its subject and body templates, and the label and switch of the preferences page."""

    subject: str
    body: str
    label: str
    optional: bool = False


_SIGNATURE = "\n\nEquipo de {{ site_name }}"
_OPT_OUT = "\n\nPuedes dejar de recibir este tipo de aviso en tu cuenta: {{ preferences_link }}"
_PAYMENT = (
    "Para activarla, paga {{ amount }} indicando la referencia {{ reference }}.\n\n"
    "{{ instructions }}\n\n"
    "La activaremos en cuanto confirmemos tu pago. Si no recibimos el pago en {{ unpaid_days }} días, "
    "la solicitud vence y puedes pedirla de nuevo."
)

NOTICES: dict[NoticeKind, NoticeText] = {
    NoticeKind.LISTING_APPROVED: NoticeText(
        subject="Tu publicación «{{ listing }}» fue aprobada",
        body="Hola:\n\nRevisamos tu publicación «{{ listing }}» y ya está publicada en el sitio.\n\n"
        "Mírala en Mis publicaciones: {{ link }}",
        label="Publicación aprobada",
    ),
    NoticeKind.LISTING_REJECTED: NoticeText(
        subject="Tu publicación «{{ listing }}» no fue aprobada",
        body="Hola:\n\nRevisamos tu publicación «{{ listing }}» y no pudimos aprobarla.\n\n"
        "Motivo: {{ reason }}\n\nCorrígela y envíala de nuevo desde Mis publicaciones: {{ link }}",
        label="Publicación rechazada",
    ),
    NoticeKind.EDIT_APPROVED: NoticeText(
        subject="Aprobamos los cambios de «{{ listing }}»",
        body="Hola:\n\nRevisamos los cambios de tu publicación «{{ listing }}» y ya se ven en el sitio.\n\n"
        "Mírala en Mis publicaciones: {{ link }}",
        label="Cambios aprobados",
    ),
    NoticeKind.EDIT_REJECTED: NoticeText(
        subject="No aprobamos los cambios de «{{ listing }}»",
        body="Hola:\n\nRevisamos los cambios de tu publicación «{{ listing }}» y no pudimos aprobarlos; "
        "se sigue viendo la versión anterior.\n\nMotivo: {{ reason }}\n\n"
        "Puedes editarla de nuevo desde Mis publicaciones: {{ link }}",
        label="Cambios rechazados",
    ),
    NoticeKind.LISTING_TAKEN_DOWN: NoticeText(
        subject="Despublicamos tu publicación «{{ listing }}»",
        body="Hola:\n\nEl equipo del sitio despublicó tu publicación «{{ listing }}».\n\nMotivo: {{ reason }}\n\n"
        "Revísala en Mis publicaciones: {{ link }}",
        label="Publicación despublicada",
    ),
    NoticeKind.UPGRADE_REQUESTED: NoticeText(
        subject="Cómo pagar la mejora «{{ upgrade }}» (referencia {{ reference }})",
        body="Hola:\n\nRecibimos tu solicitud de la mejora «{{ upgrade }}» para «{{ listing }}».\n\n"
        + _PAYMENT
        + "\n\nLa ves en Mis publicaciones: {{ link }}",
        label="Cómo pagar una mejora",
    ),
    NoticeKind.UPGRADE_APPROVED: NoticeText(
        subject="Aprobamos la mejora «{{ upgrade }}» de «{{ listing }}»",
        body="Hola:\n\nConfirmamos tu pago y aprobamos la mejora «{{ upgrade }}» para «{{ listing }}», "
        "del {{ starts }} al {{ ends }}.\n\nLa ves en Mis publicaciones: {{ link }}",
        label="Mejora aprobada",
    ),
    NoticeKind.UPGRADE_DENIED: NoticeText(
        subject="No aprobamos la mejora «{{ upgrade }}» de «{{ listing }}»",
        body="Hola:\n\nNo aprobamos la mejora «{{ upgrade }}» para «{{ listing }}».\n\nMotivo: {{ reason }}\n\n"
        "La ves en Mis publicaciones: {{ link }}",
        label="Mejora rechazada",
    ),
    NoticeKind.UPGRADE_UNPAID: NoticeText(
        subject="Venció tu solicitud de la mejora «{{ upgrade }}»",
        body="Hola:\n\nNo recibimos el pago de la mejora «{{ upgrade }}» para «{{ listing }}» "
        "(referencia {{ reference }}) en {{ unpaid_days }} días, así que la solicitud venció.\n\n"
        "Si todavía la quieres, pídela de nuevo desde Mis publicaciones: {{ link }}",
        label="Solicitud de mejora vencida sin pago",
        optional=True,
    ),
    NoticeKind.UPGRADE_STARTED: NoticeText(
        subject="Comenzó la mejora «{{ upgrade }}» de «{{ listing }}»",
        body="Hola:\n\nDesde hoy tu publicación «{{ listing }}» tiene la mejora «{{ upgrade }}», "
        "hasta el {{ ends }}.\n\nMírala en Mis publicaciones: {{ link }}",
        label="Comienzo de una mejora",
        optional=True,
    ),
    NoticeKind.UPGRADE_ENDED: NoticeText(
        subject="Terminó la mejora «{{ upgrade }}» de «{{ listing }}»",
        body="Hola:\n\nTerminó la mejora «{{ upgrade }}» de tu publicación «{{ listing }}».\n\n"
        "Puedes pedir otra desde Mis publicaciones: {{ link }}",
        label="Término de una mejora",
        optional=True,
    ),
    NoticeKind.VERIFICATION_APPROVED: NoticeText(
        subject="Tu publicación «{{ listing }}» está verificada",
        body="Hola:\n\nRevisamos tu foto de verificación: «{{ listing }}» ya muestra la marca de verificada.\n\n"
        "Mírala en Mis publicaciones: {{ link }}",
        label="Verificación aprobada",
    ),
    NoticeKind.VERIFICATION_REJECTED: NoticeText(
        subject="No pudimos verificar «{{ listing }}»",
        body="Hola:\n\nRevisamos tu foto de verificación de «{{ listing }}» y no pudimos aprobarla.\n\n"
        "Motivo: {{ reason }}\n\nPuedes enviar otra foto desde Mis publicaciones: {{ link }}",
        label="Verificación rechazada",
    ),
    NoticeKind.LISTING_EXPIRING: NoticeText(
        subject="Tu publicación «{{ listing }}» vence el {{ expires }}",
        body="Hola:\n\nTu publicación «{{ listing }}» vence el {{ expires }}. Cuando venza dejará de verse "
        "en el sitio hasta que la renueves.\n\nRenuévala desde Mis publicaciones: {{ link }}",
        label="Publicación por vencer (3 días antes)",
        optional=True,
    ),
    NoticeKind.LISTING_EXPIRED: NoticeText(
        subject="Tu publicación «{{ listing }}» venció",
        body="Hola:\n\nTu publicación «{{ listing }}» venció y ya no se ve en el sitio.\n\n"
        "Renuévala desde Mis publicaciones con el botón «Renovar»: {{ link }}",
        label="Publicación vencida",
        optional=True,
    ),
    # Retention (issue 20 §2): a draft untouched for long is deleted; its owner is told beforehand.
    NoticeKind.DRAFT_PURGE_WARNING: NoticeText(
        subject="Eliminaremos tu borrador «{{ listing }}» el {{ deletion }}",
        body="Hola:\n\nTu borrador «{{ listing }}» lleva {{ idle_days }} días sin cambios. Guardamos los borradores "
        "sin cambios durante {{ keep_days }} días: lo eliminaremos, con sus fotos, el {{ deletion }}.\n\n"
        "Si quieres conservarlo, ábrelo y guarda cualquier paso antes de esa fecha desde Mis publicaciones: {{ link }}",
        label="Borrador por eliminar",
    ),
}

OPTIONAL_KINDS: tuple[NoticeKind, ...] = tuple(kind for kind, text in NOTICES.items() if text.optional)

# Plain text for e-mail bodies: nothing is HTML, so nothing is escaped.
_ENV = Environment(autoescape=False, undefined=StrictUndefined)  # nosec B701


def render_notice(kind: NoticeKind, values: dict[str, object]) -> tuple[str, str]:
    """The notice's subject and plain-text body with ``values`` (a missing value raises: no half-filled mail).

    ``values`` always holds ``site_name`` and ``link``; optional notices also ``preferences_link``.
    """
    text = NOTICES[kind]
    subject = _ENV.from_string(text.subject).render(values)
    body = text.body + (_OPT_OUT if text.optional else "") + _SIGNATURE
    return " ".join(subject.split()), _ENV.from_string(body).render(values)
