"""/my/publicacion/nuevaPublicacion: the listing wizard, one form per step (app.states.advertiser.wizard)."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex_base.event import EventSpec
from reflex_base.vars.object import ObjectVar
from reflex_base.vars.sequence import ArrayVar, StringVar

from app.components.forms import (
    checkbox_field,
    date_field,
    form_alert,
    labelled_upload,
    select_field,
    text_field,
    textarea_field,
    thumbnail_list,
    upload_hint,
)
from app.components.layout import guarded_content, page_frame
from app.components.owner_clips import clip_summary, clip_upload_status, owner_clips
from app.models import PendingPhotoPublic, PendingPhotoStatus
from app.models.advertisers import PASSPORT_MAX, RUT_MAX
from app.models.listings import DISPLAY_NAME_MAX, MAX_AGE
from app.routes import ADVERTISER_HOME
from app.services.listing_drafts import IDENTITY_PENDING, IDENTITY_REVIEWED
from app.services.listing_form import STEP_BY_NUMBER, STEPS
from app.services.listing_photos import MAX_PHOTOS, OwnerPhoto
from app.services.photos import MAX_BYTES
from app.states.advertiser.wizard import STEP_FIELD, PendingPhotosState, WizardState
from app.states.areas import AreaState

FORM = "wizard"
UPLOAD_ID = "fotos"
# What the file chooser offers; the server decodes the content and trusts neither name nor type.
ACCEPTED_PHOTOS = {
    "image/jpeg": [".jpg", ".jpeg"],
    "image/png": [".png"],
    "image/webp": [".webp"],
    "image/heic": [".heic"],
    "image/heif": [".heif"],
}
EDITING_NOTE = "Tus cambios se revisarán antes de publicarse; mientras tanto se sigue viendo la versión publicada."
UPLOAD_LABEL = "Elegir fotos para subir"
# Under the title on every step; static, so the page's document shows it before the app (app.web.preview).
WIZARD_INTRO = (
    f"Son {len(STEPS)} pasos y cada uno se guarda al apretar «Guardar y seguir»: puedes dejar tu publicación a "
    "medias y seguir después desde «Mis publicaciones». Antes de publicarse, el equipo del sitio la revisa."
)
PHOTO_PROCESSING = "Procesando foto…"
REFUSED_PHOTO = "No se pudo procesar: "
# The photos step and the summary say how many photos are still processing, and what that means there.
GO_ON_MEANWHILE = "puedes seguir con los pasos siguientes mientras tanto."
SEND_AFTERWARDS = "podrás enviar tu publicación cuando terminen."
REFUSED_IN_BROWSER = "No se aceptaron algunos archivos: sube fotos JPEG, PNG, WebP o HEIC de hasta 15 MB. "


def _value(name: str) -> rx.Var[Any] | str:
    return WizardState.values.get(name, "")


FIELD_MESSAGES: dict[str, Any] = {"errors": WizardState.field_errors, "on_clear": WizardState.clear_field_error}


def _text(label: str, name: str, **props: Any) -> rx.Component:
    return text_field(FORM, label, name, default_value=_value(name), **FIELD_MESSAGES, **props)


def _select(label: str, name: str, options: rx.Var[Any] | list[list[str]], **props: Any) -> rx.Component:
    return select_field(FORM, label, name, options, default_value=_value(name), **FIELD_MESSAGES, **props)


def _date(label: str, name: str) -> rx.Component:
    return date_field(
        FORM,
        label,
        name,
        on_pick=lambda day: WizardState.pick_date(name, day),
        default_value=_value(name),
        # A date picked in the calendar changes the value: the input remounts showing it.
        key=_value(name),
        **FIELD_MESSAGES,
    )


def _choices(legend: str, name: str, options: rx.Var[Any] | list[list[str]]) -> rx.Component:
    """Radio buttons from [value, text] pairs."""
    return rx.el.fieldset(
        rx.el.legend(legend),
        rx.foreach(
            options,
            lambda option: rx.el.label(
                rx.el.input(
                    type="radio",
                    name=name,
                    value=option[0],
                    default_checked=_value(name) == option[0],
                    on_change=_forget(name),
                ),
                " ",
                option[1],
            ),
        ),
        _field_error(name),
        class_name="choices",
    )


def _forget(name: str) -> rx.Var[Any]:
    """Take a message away when its field changes (no event at all while it has none)."""
    return cast(
        rx.Var[Any],
        rx.cond(WizardState.field_errors.get(name, "") != "", WizardState.clear_field_error(name), rx.noop()),
    )


def _field_error(name: str) -> rx.Component:
    message = WizardState.field_errors.get(name, "")
    return cast(rx.Component, rx.cond(message != "", rx.el.p(message, role="alert", class_name="field-error")))


def _stepper() -> rx.Component:
    return rx.el.nav(
        rx.el.p("Paso ", WizardState.step, f" de {len(STEPS)}: ", WizardState.step_title, class_name="wizard-progress"),
        rx.el.ol(
            *[
                rx.el.li(
                    rx.el.button(
                        f"{step.number}. {step.title}",
                        type="button",
                        on_click=WizardState.go_to(step.number),
                        disabled=step.number > WizardState.furthest,
                        custom_attrs={"aria-current": rx.cond(WizardState.step == step.number, "step", "false")},
                        class_name=rx.cond(
                            WizardState.step == step.number, "wizard-step wizard-step-current", "wizard-step"
                        ),
                    )
                )
                for step in STEPS
            ],
            class_name="wizard-steps",
        ),
        aria_label="Pasos de la publicación",
    )


def _nav(number: int) -> rx.Component:
    back = (
        rx.el.button("Atrás", type="button", on_click=WizardState.go_to(number - 1), class_name="btn")
        if number > 1
        else rx.link("Volver a mis publicaciones", href=ADVERTISER_HOME, class_name="btn btn-ghost")
    )
    return rx.el.div(
        back,
        rx.el.button(
            "Guardar y seguir",
            type="submit",
            # Busy until the server answers, and while photos upload: the step waits for them.
            disabled=WizardState.busy | WizardState.uploading | WizardState.processing,
            custom_attrs={"aria-busy": rx.cond(WizardState.busy, "true", "false")},
            class_name="btn btn-primary",
        ),
        class_name="wizard-nav",
    )


def _step_form(number: int, *children: rx.Component | rx.Var[Any]) -> rx.Component:
    step = STEP_BY_NUMBER[number]
    return rx.el.form(
        rx.el.h2(step.title),
        # The step this form saves: a late second submit of an earlier step is ignored by the server.
        rx.el.input(type="hidden", name=STEP_FIELD, value=str(number)),
        *children,
        form_alert(WizardState.error),
        _nav(number),
        on_submit=WizardState.save,
        no_validate=True,
        key=WizardState.form_key,
        class_name="wizard-form",
        aria_label=step.title,
    )


def _identity() -> rx.Component:
    return _step_form(
        1,
        rx.el.p(
            "Estos datos son privados: los ve solo el equipo del sitio para comprobar que eres mayor de edad.",
            class_name="muted",
        ),
        rx.match(
            WizardState.identity,
            (
                IDENTITY_PENDING,
                rx.el.p(
                    "Estos datos de identidad esperan revisión. Hasta que el equipo los apruebe, tus publicaciones "
                    "mantienen los datos aprobados. Si rechazamos la publicación con la que los envías, se descartan.",
                    role="note",
                    class_name="form-notice",
                ),
            ),
            (
                IDENTITY_REVIEWED,
                rx.el.p(
                    "Tu identidad ya fue revisada. Si la cambias, el cambio espera la revisión del equipo junto con "
                    "la próxima publicación que envíes.",
                    role="note",
                    class_name="form-notice",
                ),
            ),
            rx.fragment(),
        ),
        _choices("Documento", "document", [["rut", "RUT chileno"], ["pasaporte", "Pasaporte"]]),
        _text("RUT", "rut", placeholder="12.345.678-5", max_length=RUT_MAX),
        _text("Número de pasaporte", "passport", max_length=PASSPORT_MAX),
        _date("Fecha de nacimiento", "birth_date"),
        _select("Nacionalidad", "nationality", WizardState.nationalities),
    )


def _location() -> rx.Component:
    return _step_form(
        2,
        _select("Ciudad", "city_slug", WizardState.cities, on_change=WizardState.choose_city),
        _select("Comuna", "commune", WizardState.communes),
        _choices("Sección", "section", WizardState.sections),
    )


def _category() -> rx.Component:
    return _step_form(
        3,
        _select("Categoría", "tier_uid", WizardState.tiers),
        _select("Tipo", "type_uid", WizardState.types),
    )


def _about() -> rx.Component:
    return _step_form(
        4,
        _text("Nombre del aviso", "display_name", max_length=DISPLAY_NAME_MAX),
        # One digit more than the oldest age, so "100" reaches the rule that says why it is refused.
        _text("Edad", "age", input_mode="numeric", max_length=len(str(MAX_AGE)) + 1),
        textarea_field(
            FORM,
            "Descripción",
            "description",
            default_value=_value("description"),
            rows=6,
            **FIELD_MESSAGES,
        ),
        rx.el.div(
            checkbox_field("Actriz porno", "porn_actress", default_checked=_value("porn_actress") == "true"),
            checkbox_field("Culonas", "curvy", default_checked=_value("curvy") == "true"),
            class_name="choices",
        ),
        rx.el.fieldset(
            rx.el.legend("Servicios"),
            rx.el.div(
                rx.foreach(
                    WizardState.service_options,
                    lambda option: checkbox_field(
                        option[1],
                        "service_" + option[0],
                        default_checked=WizardState.services.contains(option[0]),
                        on_change=_forget("services"),
                    ),
                ),
                class_name="wizard-services",
            ),
            _field_error("services"),
        ),
    )


def _rate(label: str, name: str) -> rx.Component:
    return rx.el.div(
        _text(label, name, input_mode="numeric", on_blur=lambda value: WizardState.preview_rate(name, value)),
        rx.el.p(WizardState.rate_labels.get(name, ""), class_name="rate-preview", aria_live="polite"),
        class_name="rate",
    )


def _rates() -> rx.Component:
    return _step_form(
        5,
        rx.el.p("Escribe solo números, en pesos chilenos. Solo la tarifa por hora es obligatoria.", class_name="muted"),
        _rate("Tarifa por hora", "price_hour_clp"),
        _rate("Tarifa por 30 minutos (opcional)", "price_half_hour_clp"),
        _rate("Tarifa por 2 horas (opcional)", "price_two_hours_clp"),
        _rate("Tarifa por noche (opcional)", "price_night_clp"),
    )


def _schedule_time(word: str, name: StringVar[str], value: StringVar[str], day: StringVar[str]) -> rx.Component:
    """A time picker of a day ("Desde", "Hasta"), named for screen readers with its day."""
    return rx.el.label(
        word + " ",
        rx.el.input(
            type="time",
            name=name,
            default_value=value,
            on_change=_forget("schedule"),
            custom_attrs={"aria-label": word + " el " + day},
        ),
        class_name="schedule-time",
    )


def _schedule_row(row: ArrayVar[list[str]]) -> rx.Component:
    """One day: its name, from and to pickers, and "No atiendo"; wraps onto two lines on a phone."""
    key, label = row[0], row[1]
    forget = _forget("schedule")
    return rx.el.fieldset(
        rx.el.legend(label, class_name="schedule-day"),
        _schedule_time("Desde", "from_" + key, row[2], label),
        _schedule_time("Hasta", "to_" + key, row[3], label),
        rx.el.label(
            rx.el.input(
                type="checkbox",
                name="closed_" + key,
                default_checked=row[4] == "true",
                on_change=forget,
                custom_attrs={"aria-label": "No atiendo el " + label},
            ),
            " No atiendo",
            class_name="check",
        ),
        class_name="schedule-row",
    )


def _availability() -> rx.Component:
    return _step_form(
        6,
        rx.el.div(
            rx.el.p(
                "Para cada día elige la hora de inicio y la de término, o marca «No atiendo».",
                class_name="muted",
            ),
            rx.foreach(WizardState.schedule_rows, _schedule_row),
            role="group",
            aria_label="Horario semanal",
            class_name="wizard-schedule",
        ),
        _field_error("schedule"),
        rx.el.h3("De pasada"),
        rx.el.p("Si estás de visita en la ciudad, indica desde y hasta qué día (opcional).", class_name="muted"),
        _date("Llego el", "visiting_from"),
        _date("Me voy el", "visiting_until"),
    )


def _photo(photo: ObjectVar[OwnerPhoto]) -> rx.Component:
    return rx.el.li(
        rx.el.img(src=photo.url, alt="Foto " + (photo.position.to(int) + 1).to_string(), loading="lazy"),
        rx.cond(photo.is_cover, rx.el.span("Portada", class_name="badge badge-cover")),
        rx.cond(~photo.approved, rx.el.span("En revisión", class_name="badge")),
        rx.el.div(
            rx.el.button(
                "←",
                type="button",
                on_click=WizardState.move_photo(photo.uid, -1),
                custom_attrs={"aria-label": "Mover antes"},
                class_name="btn",
            ),
            rx.el.button(
                "→",
                type="button",
                on_click=WizardState.move_photo(photo.uid, 1),
                custom_attrs={"aria-label": "Mover después"},
                class_name="btn",
            ),
            rx.cond(
                ~photo.is_cover,
                rx.el.button(
                    "Hacer portada", type="button", on_click=WizardState.make_cover(photo.uid), class_name="btn"
                ),
            ),
            rx.el.button("Eliminar", type="button", on_click=WizardState.delete_photo(photo.uid), class_name="btn"),
            class_name="photo-actions",
        ),
        class_name="photo",
    )


def _rejected_files(rejected: rx.Var[Any]) -> rx.Var[Any]:
    """[file name, first reason code] of each file react-dropzone refused."""
    return cast(
        rx.Var[Any],
        rejected.to(list).map(
            lambda item: [
                item.to(dict)["file"].to(dict)["name"].to(str),
                item.to(dict)["errors"].to(list)[0].to(dict)["code"].to(str),
            ]
        ),
    )


def refused_in_browser(rejected: rx.Var[Any]) -> EventSpec:
    """The notice for files the browser refused before sending them (type or size), naming them."""
    names = rejected.to(list).map(lambda item: item.to(dict)["file"].to(dict)["name"].to(str)).join(", ")
    return rx.toast.error(REFUSED_IN_BROWSER + names, duration=8000, position="bottom-center")


def _refused(item: ArrayVar[list[str]]) -> rx.Component:
    """A file that was not added, with why, in the photo list."""
    return rx.el.li(
        rx.el.p(rx.el.strong(item[0]), class_name="refused-name"),
        rx.el.p("No se subió: ", item[1], class_name="field-error"),
        class_name="photo photo-refused",
    )


def _pending(photo: ObjectVar[PendingPhotoPublic]) -> rx.Component:
    """A photo received and not processed yet (a placeholder), or refused by processing (why, and "Descartar")."""
    return rx.el.li(
        rx.cond(
            photo.status.to(str) == PendingPhotoStatus.PROCESANDO.value,
            rx.el.p(PHOTO_PROCESSING),
            rx.fragment(
                rx.el.p(rx.el.strong(photo.file_name), class_name="refused-name"),
                rx.el.p(REFUSED_PHOTO, photo.failure, class_name="field-error"),
                rx.el.button(
                    "Descartar",
                    type="button",
                    on_click=PendingPhotosState.dismiss(photo.uid),
                    custom_attrs={"aria-label": "Descartar " + photo.file_name.to(str)},
                    class_name="btn",
                ),
            ),
        ),
        key=photo.uid,
        class_name=rx.cond(
            photo.status.to(str) == PendingPhotoStatus.PROCESANDO.value, "photo photo-pending", "photo photo-refused"
        ),
    )


def _processing_note(meanwhile: str) -> rx.Component:
    """How many photos are still processing, then ``meanwhile`` (read by screen readers as it changes). Its mount
    reads them and watches them while any is processing: after every upload too, as the key of the block around
    it changes (a key on the note itself would remount its element, not the component that runs its on_mount)."""
    count = PendingPhotosState.processing_count
    note = rx.el.p(
        rx.match(
            count,
            (0, ""),
            (1, "1 foto se está procesando; " + meanwhile),
            count.to_string() + " fotos se están procesando; " + meanwhile,
        ),
        role="status",
        class_name="muted",
        on_mount=PendingPhotosState.open_listing(WizardState.uid),
    )
    return rx.el.div(note, key=WizardState.uid + "-" + WizardState.uploads.to_string())


def _upload_zone() -> rx.Component:
    return labelled_upload(
        UPLOAD_LABEL,
        upload_hint("Arrastra tus fotos aquí o haz clic para elegirlas.", "Elige fotos"),
        id=UPLOAD_ID,
        multiple=True,
        accept=ACCEPTED_PHOTOS,
        # No max_files: past it the browser would refuse every file; the server refuses only the extra ones.
        max_size=MAX_BYTES,
        disabled=WizardState.uploading | WizardState.processing,
        # The server hears of the upload before it starts, so a submit sent after it waits for the photos;
        # assets/site.js disables "Guardar y seguir" as the files are chosen, before either answer.
        on_drop=[
            WizardState.start_upload,
            WizardState.upload_photos(
                rx.upload_files(upload_id=UPLOAD_ID, on_upload_progress=WizardState.show_upload_progress)
            ),
        ],
        on_drop_rejected=lambda rejected: WizardState.refuse_files(_rejected_files(rejected)),
        class_name="upload-zone",
    )


def _photos() -> rx.Component:
    return _step_form(
        7,
        rx.el.p(
            f"Sube entre 1 y {MAX_PHOTOS} fotos JPEG, PNG, WebP o HEIC, de hasta 15 MB cada una. "
            "La primera es la portada; quitamos la ubicación y todos los datos ocultos de cada foto.",
            class_name="muted",
        ),
        _upload_zone(),
        rx.cond(
            WizardState.uploading & ~WizardState.processing,
            rx.el.div(
                rx.el.label("Subiendo fotos… ", WizardState.upload_percent, " %", html_for="upload-progress"),
                rx.el.progress(id="upload-progress", value=WizardState.upload_percent, max=100),
                class_name="upload-progress",
            ),
        ),
        rx.cond(WizardState.processing, rx.el.p("Recibiendo tus fotos…", role="status")),
        rx.el.p(WizardState.refused_summary, role="status", class_name="field-error"),
        _field_error("photos"),
        _processing_note(GO_ON_MEANWHILE),
        rx.el.ol(
            rx.foreach(WizardState.photos, _photo),
            rx.foreach(PendingPhotosState.pending, _pending),
            rx.foreach(WizardState.refused, _refused),
            class_name="photo-grid",
            aria_label="Tus fotos",
        ),
        owner_clips(WizardState.uid),
    )


def _contact() -> rx.Component:
    return _step_form(
        8,
        _text("Teléfono celular", "phone", type_="tel", auto_complete="tel", placeholder="+56 9 1234 5678"),
        _text("WhatsApp (opcional)", "whatsapp", type_="tel", placeholder="+56 9 1234 5678"),
    )


def _thumbnail(photo: ObjectVar[OwnerPhoto]) -> rx.Component:
    """A photo in the summary, named by its place (and as the cover)."""
    number = "Foto " + (photo.position.to(int) + 1).to_string()
    return rx.el.li(rx.el.img(src=photo.url, alt=rx.cond(photo.is_cover, number + ", portada", number), loading="lazy"))


def _review() -> rx.Component:
    return rx.el.section(
        rx.el.h2(STEP_BY_NUMBER[9].title),
        rx.el.table(
            rx.el.tbody(
                rx.foreach(WizardState.summary, lambda row: rx.el.tr(rx.el.th(row[0], scope="row"), rx.el.td(row[1])))
            ),
            class_name="wizard-summary",
            aria_label="Resumen de tu publicación",
        ),
        thumbnail_list(WizardState.photos, _thumbnail, "Fotos de tu publicación"),
        _processing_note(SEND_AFTERWARDS),
        clip_summary(WizardState.uid),
        form_alert(WizardState.error),
        rx.el.div(
            rx.el.button("Atrás", type="button", on_click=WizardState.go_to(8), class_name="btn"),
            rx.el.button(
                "Enviar a revisión",
                type="button",
                on_click=WizardState.send,
                disabled=WizardState.busy,
                class_name="btn btn-primary",
            ),
            class_name="wizard-nav",
        ),
        class_name="wizard-form",
    )


def _wizard() -> rx.Component:
    return rx.el.section(
        rx.el.h1(rx.cond(WizardState.editing, "Editar publicación", "Nueva publicación")),
        rx.el.p(WIZARD_INTRO, class_name="lead"),
        rx.cond(WizardState.editing_published, rx.el.p(EDITING_NOTE, role="note", class_name="form-notice")),
        _stepper(),
        rx.match(
            WizardState.step,
            (1, _identity()),
            (2, _location()),
            (3, _category()),
            (4, _about()),
            (5, _rates()),
            (6, _availability()),
            (7, _photos()),
            (8, _contact()),
            _review(),
        ),
        clip_upload_status(),
        class_name="area wizard",
    )


def wizard_page() -> rx.Component:
    """The wizard, shown once the server accepted the advertiser and read the draft."""
    return page_frame(guarded_content(AreaState.ready & WizardState.loaded, _wizard()))
