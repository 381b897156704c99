"""The owner's clips of a listing (the wizard's "Fotos y video" step): each clip's state, and "Agregar video".

The file input carries the upload address in ``data-clip-upload``; assets/clips.js sends the chosen file there,
draws the progress into ``data-clip-progress``, writes a refusal into ``data-clip-error`` and, once the clip is
received, clicks the hidden ``data-clip-uploaded`` button (app.states.advertiser.clips). Those three live in
:func:`clip_upload_status`, on every step of the wizard; the last step lists the clips too
(:func:`clip_summary`). The input has neither name nor id, so the step's form never sends it.
"""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex_base.vars.object import ObjectVar

from app.components.forms import thumbnail_list
from app.models import ClipStatus, ListingVideoPublic
from app.models.videos import CLIP_MAX_BYTES, CLIP_MAX_SECONDS, CLIPS_PER_LISTING
from app.states.advertiser.clips import ClipsState

# What the file chooser offers; the server probes the content and trusts neither name nor type.
ACCEPTED_CLIPS = ".mp4,.mov,.webm,video/mp4,video/quicktime,video/webm"
ADD_LABEL = "Agregar video"
PROCESSING = "Procesando video…"
WAITING_REVIEW = "Listo; se publicará cuando lo revisemos."
APPROVED = "Listo y publicado."
FULL = f"Ya tienes {CLIPS_PER_LISTING} videos: elimina uno para subir otro."
HINT = (
    f"Puedes agregar hasta {CLIPS_PER_LISTING} videos MP4, MOV o WebM de hasta {CLIP_MAX_SECONDS} segundos y "
    f"{CLIP_MAX_BYTES // (1024 * 1024)} MB. Quitamos la ubicación y los datos ocultos de cada video. "
    "Puedes seguir con los pasos siguientes mientras se procesa."
)
# The markers assets/clips.js reads.
UPLOAD_ATTRIBUTE = "data-clip-upload"
PROGRESS_ATTRIBUTE = "data-clip-progress"
ERROR_ATTRIBUTE = "data-clip-error"
UPLOADED_ATTRIBUTE = "data-clip-uploaded"


def _clip(clip: ObjectVar[ListingVideoPublic]) -> rx.Component:
    name = "video " + (clip.position.to(int) + 1).to_string()
    return rx.el.li(
        rx.el.p(rx.el.strong("Video ", (clip.position.to(int) + 1).to_string())),
        rx.match(
            clip.status.to(str),
            (ClipStatus.PROCESANDO.value, rx.el.p(PROCESSING, class_name="clip-state")),
            (
                ClipStatus.LISTA.value,
                rx.fragment(
                    rx.el.img(src=clip.poster_url, alt="Portada del " + name, loading="lazy"),
                    rx.el.p(rx.cond(clip.approved, APPROVED, WAITING_REVIEW), class_name="clip-state"),
                ),
            ),
            rx.fragment(
                rx.el.p(clip.failure, class_name="field-error"),
                rx.el.button(
                    "Reintentar",
                    type="button",
                    on_click=ClipsState.retry(clip.uid),
                    custom_attrs={"aria-label": "Reintentar " + name},
                    class_name="btn",
                ),
            ),
        ),
        rx.el.button(
            "Eliminar",
            type="button",
            on_click=ClipsState.delete(clip.uid),
            custom_attrs={"aria-label": "Eliminar " + name},
            class_name="btn",
        ),
        key=clip.uid,
        class_name="photo clip",
    )


def _add() -> rx.Component:
    return cast(
        rx.Component,
        rx.cond(
            ClipsState.full,
            rx.el.p(FULL, class_name="muted"),
            rx.el.label(
                ADD_LABEL,
                rx.el.input(
                    type="file",
                    accept=ACCEPTED_CLIPS,
                    disabled=ClipsState.upload_url == "",
                    custom_attrs={UPLOAD_ATTRIBUTE: ClipsState.upload_url},
                ),
                class_name="clip-add",
            ),
        ),
    )


def owner_clips(listing_uid: rx.Var[str] | str) -> rx.Component:
    """The clips of the caller's listing ``listing_uid``, read when the block appears, and the upload of another.

    The upload's progress and outcome are drawn by :func:`clip_upload_status`, which the wizard shows on every
    step: an advertiser who goes on while a clip uploads still sees it finish, or why it was refused.
    """
    return rx.el.section(
        rx.el.h3("Video"),
        rx.el.p(HINT, class_name="muted"),
        rx.el.div(
            rx.el.ol(rx.foreach(ClipsState.clips, _clip), class_name="photo-grid", aria_label="Tus videos"),
            # The clips' states change while they process: screen readers hear it.
            aria_live="polite",
        ),
        _add(),
        on_mount=ClipsState.open_listing(listing_uid),
        key=listing_uid,
        class_name="clips",
        aria_label="Videos",
    )


def clip_upload_status() -> rx.Component:
    """Where assets/clips.js draws a clip's upload: its progress, a refusal, and the hidden button that asks the
    server to read the clips once the file is received (the same on every step of the wizard)."""
    return rx.el.div(
        # A labelled <progress> with the percentage while a clip uploads.
        rx.el.div(custom_attrs={PROGRESS_ATTRIBUTE: ""}, class_name="upload-progress"),
        rx.el.p(aria_live="polite", custom_attrs={ERROR_ATTRIBUTE: ""}, class_name="field-error"),
        rx.el.button(
            type="button",
            hidden=True,
            tab_index=-1,
            on_click=ClipsState.uploaded,
            custom_attrs={UPLOADED_ATTRIBUTE: ""},
        ),
        class_name="clip-upload",
    )


def _summary_clip(clip: ObjectVar[ListingVideoPublic]) -> rx.Component:
    number = (clip.position.to(int) + 1).to_string()
    return rx.el.li(
        rx.match(
            clip.status.to(str),
            (ClipStatus.LISTA.value, rx.el.img(src=clip.poster_url, alt="Portada del video " + number, loading="lazy")),
            (ClipStatus.PROCESANDO.value, rx.el.p("Video ", number, ": ", PROCESSING)),
            rx.el.p("Video ", number, ": ", clip.failure, class_name="field-error"),
        ),
        key=clip.uid,
    )


def clip_summary(listing_uid: rx.Var[str] | str) -> rx.Component:
    """The clips in the wizard's last step, each as its state says: its poster, still processing, or why it
    failed (nothing when the listing has none)."""
    return rx.el.div(
        thumbnail_list(ClipsState.clips, _summary_clip, "Videos de tu publicación"),
        aria_live="polite",
        on_mount=ClipsState.open_listing(listing_uid),
        key=listing_uid,
    )
