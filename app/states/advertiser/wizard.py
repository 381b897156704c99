"""/my/publicacion/nuevaPublicacion: the listing wizard, nine steps, each saved as a draft on the server.

The steps and their fields come from ``app.services.listing_form.STEPS``.
Every "Guardar y seguir" saves the step through ``save_step`` (a closed tab or
another device resumes at the first unsaved step); the last step sends the
listing to review, which validates the whole draft again. Photos (step 7)
arrive through Reflex's upload endpoint, which hands the handler the
upload request's session (``app.web.cookies.upload_endpoint``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import reflex as rx
from reflex_base.event import EventSpec

from app.core.dates import CALENDAR_DAY_CHARS, typed_day
from app.core.errors import ServiceError
from app.core.money import format_currency
from app.models import PendingPhotoPublic, PendingPhotoStatus, ProfileId
from app.routes import ADVERTISER_HOME, WIZARD_LISTING_PARAM
from app.services import listing_drafts, listing_photos, photo_uploads
from app.services.listing_drafts import WizardDraft
from app.services.listing_form import PHOTO_STEP, SEND_STEP, STEP_BY_NUMBER
from app.services.listing_photos import OwnerPhoto
from app.states.advertiser.my_listings import read_upload
from app.states.advertiser.watching import watch_on_wizard
from app.states.areas import enter_area
from app.states.auth import current_actor, public, requires
from app.states.forms import ClearingFormState
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service
from app.storage.factory import get_private_storage, get_storage

SENT_TO_REVIEW = "Tu publicación quedó en revisión."
# How often photos still processing are read again, and for how long at most (five minutes).
WATCH_SECONDS = 1.0
WATCH_ROUNDS = 300
# What a handler answers: events, or handlers the browser calls next.
Events = list[EventSpec | Callable[..., Any]]
CHECKBOX_FIELDS = ("porn_actress", "curvy")
RATE_FIELDS = STEP_BY_NUMBER[5].fields
SERVICE_PREFIX = "service_"
MAX_FORM_VALUE = 5000
UNREADABLE = "No pudimos leer el formulario. Inténtalo de nuevo."
# The hidden field naming the step a submitted form belongs to.
STEP_FIELD = "step"
# Why the browser refused a file (react-dropzone's codes), said to the person.
BROWSER_REFUSALS = {
    "file-invalid-type": "no es una foto JPEG, PNG, WebP o HEIC.",
    "file-too-large": "pesa más de 15 MB.",
    "file-too-small": "el archivo está vacío.",
    "too-many-files": "son demasiados archivos a la vez.",
}
MAX_REFUSED = 20


def _file_name(name: object) -> str:
    """A file's own name as the person knows it: no folder, no "./"."""
    text = str(name or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    return text[:80] or "Archivo sin nombre"


def _form_values(form_data: Any, step: int) -> tuple[dict[str, str], list[str], dict[str, str]]:
    """A step's submitted form as (values, services, schedule): strings only, checkboxes as "true" or ""."""
    data = form_data if isinstance(form_data, dict) else {}

    def text(name: str) -> str:
        value = data.get(name, "")
        return value[:MAX_FORM_VALUE] if isinstance(value, str) else ""

    values = {name: text(name) for name in STEP_BY_NUMBER[step].fields if name not in ("services", "schedule")}
    for name in CHECKBOX_FIELDS:
        if name in values:
            values[name] = "true" if values[name] else ""
    services = [str(key)[len(SERVICE_PREFIX) :] for key in data if str(key).startswith(SERVICE_PREFIX)]
    schedule: dict[str, str] = {}
    for key in data:
        if str(key).startswith("from_"):
            day = str(key).removeprefix("from_")
            start, end = text(f"from_{day}"), text(f"to_{day}")
            schedule[day] = "" if text(f"closed_{day}") or not (start or end) else f"{start}-{end}"
    return values, services, schedule


def _hours(value: str) -> list[str]:
    """A day's "10:00-20:00" as [from, to, closed]: ["10:00", "20:00", ""], or ["", "", "true"] when closed."""
    start, _, end = value.partition("-")
    return [start, end, ""] if start and end else ["", "", "true"]


def _rate_label(value: str) -> str:
    digits = "".join(ch for ch in value if ch.isdigit())[:12]
    return format_currency(int(digits)) if digits else ""


class WizardState(ClearingFormState, rx.State):
    """The draft being written: its values, the step shown, and its photos."""

    loaded: bool = False
    uid: str = ""
    step: int = 1
    furthest: int = 1
    editing_published: bool = False
    identity: str = ""  # listing_drafts.IDENTITY_PENDING, IDENTITY_REVIEWED or "" (step 1's notice)
    # A listing that exists beyond a first draft (sent once, rejected, published): "Editar publicación".
    editing: bool = False
    # Remounts the step's form when the values it starts from change.
    form_key: int = 0
    values: dict[str, str] = {}
    services: rx.Field[list[str]] = rx.field(default_factory=list)
    schedule: dict[str, str] = {}
    rate_labels: dict[str, str] = {}
    cities: list[list[str]] = []
    communes: list[list[str]] = []
    sections: list[list[str]] = []
    tiers: list[list[str]] = []
    types: list[list[str]] = []
    service_options: list[list[str]] = []
    nationalities: list[list[str]] = []
    # [weekday key, label, from, to, "true" when closed] for step 6.
    schedule_rows: list[list[str]] = []
    photos: rx.Field[list[OwnerPhoto]] = rx.field(default_factory=list)
    # From the moment photos are chosen (start_upload) until they are added (finish_upload): the step waits.
    uploading: bool = False
    processing: bool = False
    upload_percent: int = 0
    # Uploads finished in this tab: part of the pending photos' block's key, so that it mounts again after each
    # one and its on_mount (a websocket event, not chained to the upload: the upload's request lasts until the
    # events it chains end, and a watch would hold it) reads and watches the photos just received.
    uploads: rx.Field[int] = rx.field(0)
    # [file name, why it was not added]: files the browser refused in the last drop, and the server in the last upload.
    browser_refused: list[list[str]] = []
    server_refused: list[list[str]] = []
    summary: list[list[str]] = []
    _communes: dict[str, list[str]] = {}
    _weekdays: list[tuple[str, str]] = []

    def _forget_refused(self) -> None:
        self.browser_refused, self.server_refused = [], []

    def _commune_pairs(self, city_slug: str) -> list[list[str]]:
        return [[name, name] for name in self._communes.get(city_slug, [])]

    @rx.var
    def refused(self) -> list[list[str]]:
        """Every file not added, with why."""
        return [*self.browser_refused, *self.server_refused]

    @rx.var
    def refused_summary(self) -> str:
        """One line telling that some files were not added; each one's reason is in the photo list."""
        count = len(self.browser_refused) + len(self.server_refused)
        if not count:
            return ""
        if count == 1:
            return "1 archivo no se subió: el motivo está en la lista de fotos."
        return f"{count} archivos no se subieron: el motivo de cada uno está en la lista de fotos."

    @rx.var
    def step_title(self) -> str:
        """The title of the step shown."""
        return STEP_BY_NUMBER[self.step].title if self.step in STEP_BY_NUMBER else ""

    def _show(self, draft: WizardDraft, step: int) -> None:
        self.uid = draft.uid
        self.editing_published = draft.editing_published
        self.identity = draft.identity
        self.values = dict(draft.values)
        self.services = list(draft.services)
        self.schedule = dict(draft.schedule)
        self.rate_labels = {name: _rate_label(self.values.get(name, "")) for name in RATE_FIELDS}
        self.communes = self._commune_pairs(self.values.get("city_slug", ""))
        self.schedule_rows = [[key, label, *_hours(self.schedule.get(key, ""))] for key, label in self._weekdays]
        # A listing that went through every step once (draft.step 1 with a uid) may jump anywhere.
        self.furthest = SEND_STEP if draft.uid and draft.step == 1 else max(draft.step, 1)
        self.editing = draft.editing_published or bool(draft.uid and draft.step == 1)
        self.step = min(max(step, 1), self.furthest)
        self.form_key += 1

    async def _enter_step(self) -> None:
        """Read what the step shows besides the form: the photos (7), or the summary and its photos (9)."""
        owner = current_actor().uid
        if self.step in (PHOTO_STEP, SEND_STEP) and self.uid:
            self.photos = await run_service(listing_photos.list_photos, owner_uid=owner, uid=self.uid)
        if self.step == SEND_STEP and self.uid:
            rows = await run_service(listing_drafts.review_summary, owner_uid=owner, uid=self.uid)
            self.summary = [[label, value] for label, value in rows]

    @requires(ProfileId.PROFESOR)
    async def open_page(self) -> list[EventSpec]:
        """Enter the page: the draft named by ?id= (or the newest unfinished one) at its first unsaved step."""
        events = await enter_area(self)
        self.loaded = False
        self._clear_errors()
        self._forget_refused()
        self.uploading, self.processing, self.upload_percent = False, False, 0
        wanted = self.router.url.query_parameters.get(WIZARD_LISTING_PARAM, "")
        owner = current_actor().uid
        try:
            options = await run_service(listing_drafts.wizard_options)
            draft = await run_service(
                listing_drafts.load_wizard, owner_uid=owner, uid=wanted if isinstance(wanted, str) else ""
            )
        except ServiceError as exc:
            return [*events, notify_error(exc.message), rx.redirect(ADVERTISER_HOME)]
        self.cities = [list(pair) for pair in options.cities]
        self.sections = [list(pair) for pair in options.sections]
        self.tiers = [list(pair) for pair in options.tiers]
        self.types = [list(pair) for pair in options.types]
        self.service_options = [list(pair) for pair in options.services]
        self.nationalities = [[name, name] for name in options.nationalities]
        self._weekdays = [(key, label) for key, label in options.weekdays]
        self._communes = options.communes
        self._show(draft, draft.step)
        await self._enter_step()
        self.loaded = True
        return events

    @requires(ProfileId.PROFESOR)
    async def go_to(self, step: int) -> EventSpec | None:
        """Show an earlier step (or any step up to the first unsaved one)."""
        if isinstance(step, int) and 1 <= step <= self.furthest:
            self.step = step
            self._clear_errors()
            self._forget_refused()
            self.form_key += 1
            try:
                await self._enter_step()
            except ServiceError as exc:
                return notify_error(exc.message)
        return None

    @requires(ProfileId.PROFESOR)
    async def save(self, form_data: dict[str, Any]) -> AsyncIterator[EventSpec | None]:
        """Validate and save the step shown, then show the next one.

        A submit of another step (a double click landing after the step moved on) is ignored,
        as is one while photos are still uploading; the button shows busy until the answer.
        """
        if self.busy or self.uploading or self.processing or self.step not in STEP_BY_NUMBER:
            return
        if self.step == SEND_STEP:
            return
        if not isinstance(form_data, dict):
            self.error = UNREADABLE
            return
        if form_data.get(STEP_FIELD) != str(self.step):
            return
        step = self.step
        self.busy = True
        yield None
        values, services, schedule = _form_values(form_data, step)
        owner = current_actor().uid

        async def save_and_reload() -> WizardDraft:
            uid = await run_service(
                listing_drafts.save_step,
                owner_uid=owner,
                uid=self.uid or None,
                step=step,
                values=values,
                services=services if step == 4 else None,
                schedule=schedule if step == 6 else None,
            )
            return await run_service(listing_drafts.load_wizard, owner_uid=owner, uid=uid)

        outcome = await self._submit(save_and_reload(), fields=STEP_BY_NUMBER[step].fields)
        if not outcome.ok:
            return  # the form stays mounted with what was typed, every message under its field
        draft = outcome.value
        self._show(draft, step + 1)
        self.furthest = max(self.furthest, step + 1)
        self.step = step + 1
        self._forget_refused()
        try:
            await self._enter_step()
        except ServiceError as exc:
            yield notify_error(exc.message)

    @requires(ProfileId.PROFESOR)
    def choose_city(self, city_slug: str) -> None:
        """List the communes of the city just chosen (step 2)."""
        self.communes = self._commune_pairs(city_slug) if isinstance(city_slug, str) else []

    @requires(ProfileId.PROFESOR)
    def preview_rate(self, field: str, value: str) -> None:
        """Show a rate as money next to its input (step 5)."""
        if field in RATE_FIELDS and isinstance(value, str):
            self.rate_labels = {**self.rate_labels, field: _rate_label(value)}

    @requires(ProfileId.PROFESOR)
    def pick_date(self, field: str, value: str) -> None:
        """Write the date chosen in the picker (YYYY-MM-DD) into its field as día-mes-año."""
        if field in ("birth_date", "visiting_from", "visiting_until") and isinstance(value, str):
            self.values = {**self.values, field: typed_day(value[:CALENDAR_DAY_CHARS])}
            self._forget_field_error(field)

    @requires(ProfileId.PROFESOR)
    def start_upload(self) -> None:
        """Photos were chosen: until ``finish_upload``, after they are added, the step does not move on."""
        self.uploading, self.upload_percent = True, 0

    @public
    def show_upload_progress(self, progress: dict[str, Any]) -> None:
        """How much of the upload has reached the server: display only, ``uploading`` holds the step."""
        share = progress.get("progress", 0) if isinstance(progress, dict) else 0
        if isinstance(share, int | float):
            self.upload_percent = max(0, min(100, int(share * 100)))

    async def _photo_call(self, fn: Callable[..., object], **kwargs: Any) -> list[EventSpec]:
        try:
            await run_service(fn, owner_uid=current_actor().uid, **kwargs)
            self.photos = await run_service(listing_photos.list_photos, owner_uid=current_actor().uid, uid=self.uid)
        except ServiceError as exc:
            return [notify_error(exc.message)]
        return []

    @requires(ProfileId.PROFESOR)
    def refuse_files(self, files: list[Any]) -> None:
        """List the files the browser refused (type or size) with their reason, in the photo list."""
        rows = files if isinstance(files, list) else []
        self.browser_refused = [
            [_file_name(row[0]), BROWSER_REFUSALS.get(str(row[1]), "no es una foto que podamos recibir.")]
            for row in rows[:MAX_REFUSED]
            if isinstance(row, list | tuple) and len(row) == 2
        ]

    @requires(ProfileId.PROFESOR)
    async def upload_photos(
        self, files: list[rx.UploadFile]
    ) -> AsyncIterator[Callable[..., Any] | None]:  # None flushes the state; then the next handler
        """Receive the uploaded photos one by one for a worker to process; each refused file keeps its own message."""
        uploads = files if isinstance(files, list) else []
        errors: list[list[str]] = []
        owner = current_actor().uid
        private_storage = get_private_storage()
        self.processing, self.server_refused = True, []
        yield None
        try:
            for upload in uploads:
                name = _file_name(getattr(upload, "name", ""))
                data = await run_service(read_upload, upload=upload, with_session=False)
                try:
                    if data is None:
                        raise ServiceError("No recibimos el archivo: vuelve a elegirlo.")
                    await run_service(
                        photo_uploads.receive_photo,
                        private_storage=private_storage,
                        owner_uid=owner,
                        uid=self.uid,
                        data=data,
                        file_name=name,
                    )
                except ServiceError as exc:
                    errors.append([name, exc.message])
            if self.uid:
                self.photos = await run_service(listing_photos.list_photos, owner_uid=owner, uid=self.uid)
        except ServiceError as exc:
            errors.append(["", exc.message])
        finally:
            self.processing = False
        self.server_refused = errors[:MAX_REFUSED]
        self._forget_field_error("photos")
        # An event of its own: a long upload can outlive its lock on the tab's state (Redis), and then
        # what this handler wrote is lost on the server, though the browser saw it; the step must not
        # stay held by a flag that only this handler would clear.
        yield WizardState.finish_upload

    @requires(ProfileId.PROFESOR)
    async def finish_upload(self) -> None:
        """The upload is over: the step may move on, with the photos the listing now has; the pending photos'
        block mounts again (``uploads``) and reads the photos just received."""
        self.uploading = self.processing = False
        self.uploads += 1
        if self.uid:
            self.photos = await run_service(listing_photos.list_photos, owner_uid=current_actor().uid, uid=self.uid)

    @requires(ProfileId.PROFESOR)
    async def reload_photos(self) -> None:
        """Read the photos again: one received earlier has been processed (PendingPhotosState.refresh)."""
        if self.uid:
            self.photos = await run_service(listing_photos.list_photos, owner_uid=current_actor().uid, uid=self.uid)

    @requires(ProfileId.PROFESOR)
    async def move_photo(self, photo_uid: str, offset: int) -> list[EventSpec]:
        """Move a photo one place before (-1) or after (+1)."""
        step = offset if isinstance(offset, int) and not isinstance(offset, bool) else 0
        return await self._photo_call(listing_photos.move_photo, photo_uid=str(photo_uid)[:64], offset=step)

    @requires(ProfileId.PROFESOR)
    async def make_cover(self, photo_uid: str) -> list[EventSpec]:
        """Make a photo the cover."""
        return await self._photo_call(listing_photos.set_cover, photo_uid=str(photo_uid)[:64])

    @requires(ProfileId.PROFESOR)
    async def delete_photo(self, photo_uid: str) -> list[EventSpec]:
        """Delete a photo and its stored files."""
        return await self._photo_call(
            listing_photos.delete_listing_photo, storage=get_storage(), photo_uid=str(photo_uid)[:64]
        )

    @requires(ProfileId.PROFESOR)
    async def send(self) -> list[EventSpec] | None:
        """Send the listing to review (everything is validated again), then go to my listings."""
        if self.busy or not self.uid:
            return None
        outcome = await self._submit(
            run_service(listing_drafts.send_to_review, owner_uid=current_actor().uid, uid=self.uid)
        )
        if not outcome.ok:
            return None
        return [notify_success(SENT_TO_REVIEW), rx.redirect(ADVERTISER_HOME)]


class PendingPhotosState(rx.State):
    """The photos of the wizard's listing received and not processed yet, or refused: a state of its own, small,
    so that reading them every WATCH_SECONDS while one is processing rewrites only this (as ClipsState does).

    The block mounts when the photo step (or the summary) shows, and again after every upload (its key counts
    them: ``WizardState.uploads``). While a photo is processing, a background event (:meth:`watch`) asks the
    browser to call :meth:`refresh`, a guarded handler; whenever a photo that was processing no longer is, and
    once on each mount, the wizard reads its photos again (``WizardState.reload_photos``). The watch stops once
    none is processing, when the tab has left the wizard, when a newer watch replaced it, or after WATCH_ROUNDS.
    """

    pending: rx.Field[list[PendingPhotoPublic]] = rx.field(default_factory=list)
    _listing_uid: str = ""
    _watch_id: str = ""

    @rx.var
    def processing_count(self) -> int:
        """How many photos are still being processed."""
        return sum(1 for photo in self.pending if photo.status == PendingPhotoStatus.PROCESANDO)

    async def _read(self) -> Events:
        """Read the pending photos again; the wizard's photos too when one has been processed meanwhile."""
        before = self._processing_uids()
        self.pending = (
            await run_service(photo_uploads.list_pending, owner_uid=current_actor().uid, uid=self._listing_uid)
            if self._listing_uid
            else []
        )
        return [WizardState.reload_photos] if before - self._processing_uids() else []

    def _processing_uids(self) -> set[str]:
        return {photo.uid for photo in self.pending if photo.status == PendingPhotoStatus.PROCESANDO}

    def _watch_if_processing(self) -> Events:
        return [PendingPhotosState.watch] if self.processing_count else []

    @requires(ProfileId.PROFESOR)
    async def open_listing(self, listing_uid: str) -> Events:
        """Show the pending photos of the caller's listing ``listing_uid`` (the block's mount), watched; the wizard
        reads its photos again too: one received by the upload that remounted the block may be done already."""
        uid = listing_uid if isinstance(listing_uid, str) else ""  # the service refuses a malformed one
        self._listing_uid, self.pending, self._watch_id = "", [], ""
        if not uid:
            return []
        try:
            self.pending = await run_service(photo_uploads.list_pending, owner_uid=current_actor().uid, uid=uid)
        except ServiceError as exc:
            return [notify_error(exc.message)]
        self._listing_uid = uid
        return [WizardState.reload_photos, *self._watch_if_processing()]

    @requires(ProfileId.PROFESOR)
    async def refresh(self) -> Events:
        """Read the pending photos again (the watch asks for it while one is processing)."""
        try:
            return await self._read()
        except ServiceError as exc:
            self._watch_id = ""
            return [notify_error(exc.message)]

    @requires(ProfileId.PROFESOR)
    async def dismiss(self, pending_uid: str) -> Events:
        """Take away a refused photo's message."""
        try:
            await run_service(
                photo_uploads.dismiss_pending,
                private_storage=get_private_storage(),
                owner_uid=current_actor().uid,
                pending_uid=pending_uid,
            )
            await self._read()
        except ServiceError as exc:
            return [notify_error(exc.message)]
        return []

    @rx.event(background=True)
    @public
    async def watch(self) -> AsyncIterator[EventSpec | None]:
        """Every WATCH_SECONDS, while a photo is processing and the tab shows the wizard, ask for ``refresh``.

        Public: it reads nothing but this tab's own vars; the reading itself is the guarded ``refresh``.
        """
        watch = watch_on_wizard(
            self,
            busy=lambda: self.processing_count > 0,
            refresh=PendingPhotosState.refresh,
            seconds=WATCH_SECONDS,
            rounds=WATCH_ROUNDS,
        )
        async for event in watch:
            yield event
