"""/my/publicacion/misPublicaciones: the advertiser's listings and what they can do with each.

Every handler is for advertisers only and acts as ``current_actor()``: a
listing id from the browser goes only to the services, which look it up
with the caller as owner (someone else's listing answers like a missing
one). Each service error becomes a Spanish notice; after a change the list
is read again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx
from reflex_base.event import EventSpec

from app.core.errors import ServiceError
from app.models import ProfileId, utc_now
from app.routes import wizard_path
from app.services import listing_drafts, my_listings, upgrades, verification
from app.services.listings import clock
from app.services.my_listings import AVAILABLE_NOW_HOURS, MyListingRow
from app.services.photos import MAX_BYTES
from app.services.staff.site_settings import payment_instructions
from app.services.stats import DayStat, daily_series
from app.services.upgrades import UpgradeOption, UpgradeRow
from app.states.areas import enter_area
from app.states.auth import current_actor, requires
from app.states.notify import Events, notify_error, notify_success
from app.states.offload import run_service
from app.storage.factory import get_private_storage, get_storage

NO_FILE = "Elige una foto para enviar."


def read_upload(upload: Any) -> bytes | None:
    """The bytes of one uploaded file, at most one past the size limit (the service refuses more)."""
    reader = getattr(getattr(upload, "file", None), "read", None)
    if reader is None:
        return None
    data = reader(MAX_BYTES + 1)
    return data if isinstance(data, bytes) else None


def _text(value: Any, limit: int = 64) -> str:
    return value[:limit] if isinstance(value, str) else ""


class MyListingsState(rx.State):
    """The listings of the signed-in advertiser, and the one dialog open over them."""

    loaded: bool = False
    rows: rx.Field[list[MyListingRow]] = rx.field(default_factory=list)
    cities: list[list[str]] = []
    dialog: str = ""
    dialog_uid: str = ""
    dialog_title: str = ""
    upgrade_options: list[UpgradeOption] = []
    upgrades: rx.Field[list[UpgradeRow]] = rx.field(default_factory=list)
    verification_label: str = ""
    verification_reason: str = ""
    stats_series: rx.Field[list[DayStat]] = rx.field(default_factory=list)
    sending: bool = False
    # How to pay (set by the administrator), shown on the cards of requests waiting for payment.
    payment_instructions: str = ""

    async def _reload(self) -> None:
        owner = current_actor().uid
        self.rows = await run_service(my_listings.list_my_listings, owner_uid=owner)
        if any(row.waiting_payments for row in self.rows):
            self.payment_instructions = await run_service(payment_instructions)
        self.loaded = True

    async def _act(self, fn: Callable[..., object], success: str, **kwargs: Any) -> list[EventSpec]:
        """Run one ownership-checked service call for the caller; a notice either way, then a fresh list."""
        try:
            await run_service(fn, owner_uid=current_actor().uid, **kwargs)
        except ServiceError as exc:
            return [notify_error(exc.message)]
        await self._reload()
        return [notify_success(success)]

    @requires(ProfileId.PROFESOR)
    async def open_page(self) -> list[EventSpec]:
        """Enter the page: show the area, then the caller's listings."""
        events = await enter_area(self)
        self.dialog = ""
        options = await run_service(listing_drafts.wizard_options)
        self.cities = [[slug, name] for slug, name in options.cities]
        await self._reload()
        return events

    @requires(ProfileId.PROFESOR)
    async def pause(self, uid: str) -> list[EventSpec]:
        """Take a published listing off the site for now."""
        return await self._act(my_listings.pause_listing, "Pausaste tu publicación.", uid=_text(uid))

    @requires(ProfileId.PROFESOR)
    async def resume(self, uid: str) -> list[EventSpec]:
        """Put a paused listing back on the site."""
        return await self._act(my_listings.resume_listing, "Tu publicación volvió a estar visible.", uid=_text(uid))

    @requires(ProfileId.PROFESOR)
    async def renew(self, uid: str) -> list[EventSpec]:
        """Renew an expired listing."""
        return await self._act(my_listings.renew_listing, "Renovaste tu publicación.", uid=_text(uid))

    @requires(ProfileId.PROFESOR)
    async def delete(self, uid: str) -> list[EventSpec]:
        """Delete a listing and its photo files (the page asked for confirmation first)."""
        return await self._act(
            my_listings.delete_listing, "Eliminaste la publicación.", uid=_text(uid), storage=get_storage()
        )

    @requires(ProfileId.PROFESOR)
    async def make_available_now(self, form_data: dict[str, Any]) -> Events:
        """Switch "Disponible AHORA" on for the chosen number of hours (the form sends uid and hours)."""
        data = form_data if isinstance(form_data, dict) else {}
        hours = _text(data.get("hours"), 2)
        if not hours.isdigit() or int(hours) not in AVAILABLE_NOW_HOURS:
            return notify_error("Elige por cuántas horas estás disponible.")
        return await self._act(
            my_listings.set_available_now,
            f"Quedaste disponible ahora por {hours} h.",
            uid=_text(data.get("uid")),
            hours=int(hours),
        )

    @requires(ProfileId.PROFESOR)
    async def copy_to_city(self, form_data: dict[str, Any]) -> Events:
        """Copy a listing as a new draft in another city, then continue that draft in the wizard."""
        data = form_data if isinstance(form_data, dict) else {}
        try:
            new_uid = await run_service(
                my_listings.copy_to_city,
                owner_uid=current_actor().uid,
                storage=get_storage(),
                uid=_text(data.get("uid")),
                city_slug=_text(data.get("city_slug")),
            )
        except ServiceError as exc:
            return notify_error(exc.message)
        return [
            notify_success("Copiamos tu publicación: revisa los datos y envíala."),
            rx.redirect(wizard_path(new_uid)),
        ]

    def _open_dialog(self, kind: str, uid: str) -> None:
        row = next((row for row in self.rows if row.uid == uid), None)
        self.dialog, self.dialog_uid = kind, uid
        self.dialog_title = row.title if row else ""

    @requires(ProfileId.PROFESOR)
    async def open_upgrades(self, uid: str) -> EventSpec | None:
        """The upgrades that can be asked for, with their prices, and this listing's upgrades."""
        uid = _text(uid)
        try:
            owner = current_actor().uid
            self.upgrades = await run_service(upgrades.my_upgrades, owner_uid=owner, listing_uid=uid)
            self.upgrade_options = await run_service(upgrades.upgrade_choices, owner_uid=owner, listing_uid=uid)
        except ServiceError as exc:
            return notify_error(exc.message)
        self._open_dialog("mejorar", uid)
        return None

    @requires(ProfileId.PROFESOR)
    async def request_upgrade(self, service_uid: str) -> EventSpec:
        """Ask for one upgrade of the listing whose dialog is open; the dialog closes on the card, which keeps
        the request's reference and amount until it is paid."""
        try:
            requested = await run_service(
                upgrades.request_upgrade,
                owner_uid=current_actor().uid,
                listing_uid=self.dialog_uid,
                app_service_uid=_text(service_uid),
            )
        except ServiceError as exc:
            return notify_error(exc.message)
        self._clear_dialog()
        await self._reload()
        return notify_success(
            f"Pediste la mejora «{requested.name}». Tu referencia de pago, {requested.payment_code}, queda en la "
            "tarjeta de tu publicación con el monto y cómo pagar; también te la enviamos por correo."
        )

    async def _show_verification(self, uid: str) -> None:
        found = await run_service(verification.my_verification, owner_uid=current_actor().uid, listing_uid=uid)
        self.verification_label = verification.VERIFICATION_LABELS[found.status] if found else ""
        self.verification_reason = found.reason if found else ""

    @requires(ProfileId.PROFESOR)
    async def open_verification(self, uid: str) -> EventSpec | None:
        """The instructions for the verification photo and the state of this listing's request."""
        uid = _text(uid)
        try:
            await self._show_verification(uid)
        except ServiceError as exc:
            return notify_error(exc.message)
        self._open_dialog("verificar", uid)
        return None

    @requires(ProfileId.PROFESOR)
    async def send_verification(self, files: list[rx.UploadFile]) -> EventSpec:
        """Send the verification photo of the listing whose dialog is open (kept privately)."""
        uploads = files if isinstance(files, list) else []
        data = await run_service(read_upload, upload=uploads[0], with_session=False) if uploads else None
        if data is None:
            return notify_error(NO_FILE)
        self.sending = True
        try:
            await run_service(
                verification.request_verification,
                storage=get_private_storage(),
                owner_uid=current_actor().uid,
                listing_uid=self.dialog_uid,
                data=data,
            )
            await self._show_verification(self.dialog_uid)
        except ServiceError as exc:
            return notify_error(exc.message)
        finally:
            self.sending = False
        return notify_success("Recibimos tu foto de verificación.")

    @requires(ProfileId.PROFESOR)
    async def open_stats(self, uid: str) -> EventSpec | None:
        """Daily views and contact clicks of the last 30 days of one listing."""
        uid = _text(uid)
        try:
            self.stats_series = await run_service(
                daily_series, owner_uid=current_actor().uid, listing_uid=uid, today=clock(utc_now()).today
            )
        except ServiceError as exc:
            return notify_error(exc.message)
        self._open_dialog("estadisticas", uid)
        return None

    def _clear_dialog(self) -> None:
        self.dialog = self.dialog_uid = self.dialog_title = ""
        self.upgrades, self.upgrade_options, self.stats_series = [], [], []
        self.verification_label = self.verification_reason = ""

    @requires(ProfileId.PROFESOR)
    def close_dialog(self, open_: bool = False) -> None:
        """Close the open dialog (its data goes with it)."""
        if not open_:
            self._clear_dialog()
