"""The review queue page (revisarPublicacion) of /admin and /bbitamia (app.states.staff.review_queue)."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex_base.vars.object import ObjectVar

from app.components.forms import form_alert
from app.models import ClipStatus
from app.models.listings import REASON_MAX
from app.services.identity_review import STATUS_CHANGED as IDENTITY_CHANGED
from app.services.identity_review import STATUS_NEW as IDENTITY_NEW
from app.services.staff.review_queue import QueueClip, QueueItem, QueuePhoto, QueueRow
from app.services.staff.review_signals import QueueSignal
from app.states.areas import AreaState
from app.states.staff.review_queue import ReviewQueueState

TITLE = "Revisión de publicaciones"


def _signal(signal: ObjectVar[QueueSignal]) -> rx.Component:
    return rx.el.li(signal.text, class_name=rx.cond(signal.alert, "queue-signal queue-alert", "queue-signal"))


def _signals(item: ObjectVar[QueueItem]) -> rx.Component:
    return rx.el.section(
        rx.el.h3("Señales"),
        rx.cond(
            item.signals.length() > 0,
            rx.el.ul(rx.foreach(item.signals, _signal), class_name="queue-signals", aria_label="Señales"),
            rx.el.p(
                "Nada que señalar: ni teléfono ni fotos en otras cuentas, ni rechazos, bans o denuncias.",
                class_name="muted",
            ),
        ),
        class_name="queue-section",
    )


def _field(row: ObjectVar[QueueRow]) -> rx.Component:
    return rx.el.tr(rx.el.th(row.label, scope="row"), rx.el.td(row.published, class_name="queue-value"))


def _change(row: ObjectVar[QueueRow]) -> rx.Component:
    """A field's two values; only a field that changed has its old value struck out and its new one marked."""
    return rx.el.tr(
        rx.el.th(row.label, scope="row"),
        rx.el.td(
            rx.cond(row.changed, rx.el.del_(row.published, class_name="queue-old"), row.published),
            class_name="queue-value",
        ),
        rx.el.td(
            rx.cond(row.changed, rx.el.ins(row.proposed, class_name="queue-new"), row.proposed),
            class_name="queue-value",
        ),
    )


def _comparison(rows: rx.Var[Any], before: str, after: str, label: str) -> rx.Component:
    """A table of ``rows`` with each value as it stands (``before``) beside the one to decide (``after``)."""
    return rx.el.table(
        rx.el.thead(
            rx.el.tr(rx.el.th("Dato", scope="col"), rx.el.th(before, scope="col"), rx.el.th(after, scope="col"))
        ),
        rx.el.tbody(rx.foreach(rows, _change)),
        class_name="queue-table",
        aria_label=label,
    )


def _identity(item: ObjectVar[QueueItem]) -> rx.Component:
    """The owner's identity to check: as one column, or the approved values beside the new ones."""
    changed = item.identity_status == IDENTITY_CHANGED
    return cast(
        rx.Component,
        rx.cond(
            item.identity.length() > 0,
            rx.el.section(
                rx.el.h3(item.identity_label),
                rx.cond(
                    changed,
                    _comparison(item.identity, "Aprobada", "Nueva", "Identidad"),
                    rx.el.table(
                        rx.el.tbody(rx.foreach(item.identity, _field)), class_name="queue-table", aria_label="Identidad"
                    ),
                ),
                rx.match(
                    item.identity_status,
                    (
                        IDENTITY_CHANGED,
                        rx.el.p(
                            "Si apruebas la publicación, se aplica la identidad nueva; si la rechazas, se descarta.",
                            class_name="muted",
                        ),
                    ),
                    (
                        IDENTITY_NEW,
                        rx.el.p("Primera identidad de la cuenta: se aprueba con esta publicación.", class_name="muted"),
                    ),
                    rx.fragment(),
                ),
                class_name="queue-section",
            ),
        ),
    )


def _content(item: ObjectVar[QueueItem]) -> rx.Component:
    return cast(
        rx.Component,
        rx.match(
            item.kind,
            (
                "edicion",
                rx.cond(
                    item.rows.length() > 0,
                    _comparison(item.rows, "Publicado", "Propuesto", "Cambios propuestos"),
                    rx.el.p(
                        rx.cond(
                            item.identity_status == IDENTITY_CHANGED,
                            "Sin cambios en los datos de la publicación; revisa la identidad.",
                            "Sin cambios en los datos; revisa las fotos nuevas.",
                        ),
                        class_name="muted",
                    ),
                ),
            ),
            (
                "verificacion",
                rx.el.figure(
                    rx.el.img(
                        src=item.verification_photo_url,
                        alt="Foto de verificación de " + item.title.to(str),
                        class_name="queue-verification-photo",
                    ),
                    rx.el.figcaption("Foto de verificación (privada: se borra al decidir)."),
                ),
            ),
            rx.el.table(
                rx.el.tbody(rx.foreach(item.rows, _field)),
                class_name="queue-table",
                aria_label="Datos de la publicación",
            ),
        ),
    )


def _photo(photo: ObjectVar[QueuePhoto]) -> rx.Component:
    return rx.el.li(
        rx.el.img(src=photo.url, alt="", loading="lazy"),
        rx.cond(photo.label != "", rx.el.span(photo.label, class_name="badge")),
        rx.cond(photo.flagged, rx.el.span("Repetida en otra cuenta", class_name="badge queue-alert")),
        class_name=rx.cond(photo.flagged, "queue-photo queue-photo-flagged", "queue-photo"),
    )


def _photos(item: ObjectVar[QueueItem]) -> rx.Component:
    return rx.el.section(
        rx.el.h3("Fotos de la publicación"),
        rx.cond(
            item.photos.length() > 0,
            rx.el.ul(rx.foreach(item.photos, _photo), class_name="queue-photos", aria_label="Fotos de la publicación"),
            rx.el.p("Sin fotos.", class_name="muted"),
        ),
        class_name="queue-section",
    )


def _clip(clip: ObjectVar[QueueClip]) -> rx.Component:
    """A sent clip: playable (never preloaded) once ready, else "Procesando video…" or why it failed."""
    return rx.el.li(
        rx.cond(
            clip.status == ClipStatus.LISTA.value,
            rx.el.video(
                src=clip.video_url,
                poster=clip.poster_url,
                controls=True,
                preload="none",
                plays_inline=True,
                custom_attrs={"width": clip.width, "height": clip.height},
                aria_label=clip.label,
                class_name="queue-video",
            ),
            rx.el.p(
                rx.el.strong(clip.label, ": "),
                clip.note,
                class_name=rx.cond(clip.status == ClipStatus.FALLIDA.value, "queue-alert", "muted"),
            ),
        ),
        rx.cond(clip.new, rx.el.span("Video nuevo", class_name="badge")),
        class_name="queue-clip",
    )


def _clips(item: ObjectVar[QueueItem]) -> rx.Component:
    return cast(
        rx.Component,
        rx.cond(
            item.clips.length() > 0,
            rx.el.section(
                rx.el.h3("Videos de la publicación"),
                rx.el.ul(
                    rx.foreach(item.clips, _clip), class_name="queue-clips", aria_label="Videos de la publicación"
                ),
                class_name="queue-section",
            ),
        ),
    )


def _item(item: ObjectVar[QueueItem]) -> rx.Component:
    return rx.el.article(
        rx.el.header(
            rx.el.p(item.kind_label, class_name="badge queue-kind-" + item.kind.to(str)),
            rx.el.h2(item.title),
            rx.el.p(item.subtitle, class_name="muted"),
            rx.el.p(item.waiting, class_name="muted"),
            class_name="queue-head",
        ),
        _signals(item),
        _identity(item),
        _content(item),
        _photos(item),
        _clips(item),
        rx.el.div(
            rx.el.button(
                "Aprobar",
                type="button",
                on_click=ReviewQueueState.approve(item.uid),
                disabled=ReviewQueueState.busy,
                class_name="btn btn-primary",
            ),
            rx.el.button("Rechazar", type="button", on_click=ReviewQueueState.open_reject(item.uid), class_name="btn"),
            class_name="listing-actions",
        ),
        class_name="queue-item",
        aria_label=item.title,
    )


def _reject_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Rechazar: ", ReviewQueueState.reject_title),
            rx.dialog.description("El motivo y tu texto los verá quien publicó.", class_name="muted"),
            rx.el.form(
                rx.el.label(
                    "Motivo",
                    rx.el.select(
                        rx.el.option("Elige un motivo", value=""),
                        rx.foreach(ReviewQueueState.reject_reasons, lambda reason: rx.el.option(reason, value=reason)),
                        name="reason",
                        required=True,
                    ),
                    class_name="field",
                ),
                rx.el.label(
                    "Explícale qué debe corregir",
                    rx.el.textarea(name="detail", rows=4, max_length=REASON_MAX),
                    class_name="field",
                ),
                form_alert(ReviewQueueState.reject_error),
                rx.el.div(
                    rx.el.button(
                        "Rechazar", type="submit", disabled=ReviewQueueState.busy, class_name="btn btn-primary"
                    ),
                    rx.dialog.close(rx.el.button("Cancelar", type="button", class_name="btn")),
                    class_name="dialog-actions",
                ),
                on_submit=ReviewQueueState.reject,
                no_validate=True,
                class_name="staff-form",
            ),
            class_name="staff-dialog queue-dialog",
        ),
        open=ReviewQueueState.reject_uid != "",
        on_open_change=ReviewQueueState.close_reject,
    )


def _pager() -> rx.Component:
    return cast(
        rx.Component,
        rx.cond(
            ReviewQueueState.page_count > 1,
            rx.el.nav(
                rx.el.button(
                    "Anterior",
                    type="button",
                    on_click=ReviewQueueState.previous_page,
                    disabled=ReviewQueueState.page <= 1,
                    class_name="btn",
                ),
                rx.el.span("Página ", ReviewQueueState.page, " de ", ReviewQueueState.page_count),
                rx.el.button(
                    "Siguiente",
                    type="button",
                    on_click=ReviewQueueState.next_page,
                    disabled=ReviewQueueState.page >= ReviewQueueState.page_count,
                    class_name="btn",
                ),
                class_name="queue-pager",
                aria_label="Páginas de la cola",
            ),
        ),
    )


def _queue() -> rx.Component:
    return rx.el.section(
        rx.el.h1(TITLE),
        rx.el.p(AreaState.greeting, class_name="lead"),
        rx.el.div(
            rx.el.p(
                rx.cond(
                    ReviewQueueState.total == 1,
                    "1 elemento por revisar",
                    rx.el.span(ReviewQueueState.total, " elementos por revisar"),
                ),
                rx.cond(ReviewQueueState.oldest != "", rx.el.span(" · el más antiguo: ", ReviewQueueState.oldest)),
                role="status",
            ),
            rx.el.button("Actualizar", type="button", on_click=ReviewQueueState.refresh, class_name="btn btn-ghost"),
            class_name="queue-summary",
        ),
        rx.cond(
            ReviewQueueState.items.length() > 0,
            rx.el.div(rx.foreach(ReviewQueueState.items, _item), class_name="queue-items"),
            rx.el.p("No hay nada por revisar.", class_name="muted"),
        ),
        _pager(),
        _reject_dialog(),
        class_name="area queue",
    )


def review_queue_page() -> rx.Component:
    """The queue (of the administrator's or the secretary's area), shown once the first page is read."""
    return cast(
        rx.Component,
        rx.cond(ReviewQueueState.loaded, _queue(), rx.el.p("Leyendo la cola…", class_name="loading")),
    )
