"""The clips of the listing open in the wizard (step 7, "Fotos y video"): their states, retry, delete, and a watch.

A clip's file does not go through this state: assets/clips.js sends it straight to the upload route
(``app.web.video_api``, ``POST CLIP_UPLOAD_PREFIX/<listing uid>``) with the page's session cookie, shows the
upload's progress, and on success clicks the hidden button that calls :meth:`ClipsState.uploaded`. A state of its
own, small, so that reading the clips every few seconds while one is processing rewrites only this.

While a clip is ``procesando`` a background event (:meth:`ClipsState.watch`) asks the browser every
WATCH_SECONDS to call :meth:`ClipsState.refresh`, a guarded handler, so each reading checks the caller's session
again. It stops once no clip is processing, when the tab has left the wizard, when a newer watch replaced it, or
after WATCH_ROUNDS.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import reflex as rx
from reflex_base.event import EventSpec

from app.core.errors import ServiceError
from app.models import ClipStatus, ListingVideoPublic, ProfileId
from app.models.videos import CLIPS_PER_LISTING
from app.routes import CLIP_UPLOAD_PREFIX
from app.services import listing_videos
from app.states.advertiser.watching import watch_on_wizard
from app.states.auth import current_actor, public, requires
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service
from app.storage.factory import get_private_storage, get_storage

# How often the clips are read again while one is processing, and for how long at most (ten minutes).
WATCH_SECONDS = 2.0
WATCH_ROUNDS = 300
DELETED = "Eliminaste el video."
RETRYING = "Volvimos a procesar el video."


class ClipsState(rx.State):
    """The clips of one listing of the caller, as its owner sees them."""

    clips: rx.Field[list[ListingVideoPublic]] = rx.field(default_factory=list)
    _listing_uid: str = ""
    # The watch that may run: a newer one replaces it (and an older loop, seeing another id, ends).
    _watch_id: str = ""

    @rx.var
    def upload_url(self) -> str:
        """Where assets/clips.js sends a clip of this listing ("" before the listing exists)."""
        return f"{CLIP_UPLOAD_PREFIX}/{self._listing_uid}" if self._listing_uid else ""

    @rx.var
    def full(self) -> bool:
        """The listing has as many clips as it may."""
        return len(self.clips) >= CLIPS_PER_LISTING

    @rx.var
    def processing(self) -> bool:
        """Some clip is still being processed."""
        return any(clip.status == ClipStatus.PROCESANDO for clip in self.clips)

    async def _read(self) -> None:
        if not self._listing_uid:
            self.clips = []
            return
        self.clips = await run_service(listing_videos.list_clips, owner_uid=current_actor().uid, uid=self._listing_uid)

    def _watch_if_processing(self) -> list[EventSpec]:
        return [ClipsState.watch] if self.processing else []

    @requires(ProfileId.PROFESOR)
    async def open_listing(self, listing_uid: str) -> list[EventSpec]:
        """Show the clips of the caller's listing ``listing_uid`` (the block's mount), watched while one processes."""
        uid = listing_uid if isinstance(listing_uid, str) else ""  # the service refuses a malformed one
        self._listing_uid, self.clips, self._watch_id = "", [], ""
        if not uid:
            return []
        try:
            self.clips = await run_service(listing_videos.list_clips, owner_uid=current_actor().uid, uid=uid)
        except ServiceError as exc:
            return [notify_error(exc.message)]
        self._listing_uid = uid
        return self._watch_if_processing()

    @requires(ProfileId.PROFESOR)
    async def uploaded(self) -> list[EventSpec]:
        """A clip was just received (assets/clips.js): read the clips again and watch its processing."""
        try:
            await self._read()
        except ServiceError as exc:
            return [notify_error(exc.message)]
        return self._watch_if_processing()

    @requires(ProfileId.PROFESOR)
    async def refresh(self) -> EventSpec | None:
        """Read the clips again (the watch asks for it while one is processing)."""
        try:
            await self._read()
        except ServiceError as exc:
            self._watch_id = ""
            return notify_error(exc.message)
        return None

    @requires(ProfileId.PROFESOR)
    async def retry(self, clip_uid: str) -> list[EventSpec]:
        """Process a failed clip again, and watch it."""
        try:
            await run_service(listing_videos.retry_clip, owner_uid=current_actor().uid, clip_uid=clip_uid)
            await self._read()
        except ServiceError as exc:
            return [notify_error(exc.message)]
        return [notify_success(RETRYING), *self._watch_if_processing()]

    @requires(ProfileId.PROFESOR)
    async def delete(self, clip_uid: str) -> list[EventSpec]:
        """Delete a clip, whatever its state, with its files."""
        try:
            await run_service(
                listing_videos.delete_clip,
                storage=get_storage(),
                private_storage=get_private_storage(),
                owner_uid=current_actor().uid,
                clip_uid=clip_uid,
            )
            await self._read()
        except ServiceError as exc:
            return [notify_error(exc.message)]
        return [notify_success(DELETED)]

    @rx.event(background=True)
    @public
    async def watch(self) -> AsyncIterator[EventSpec | None]:
        """Every WATCH_SECONDS, while a clip is processing and the tab shows the wizard, ask for ``refresh``.

        Public: it reads nothing but this tab's own vars; the reading itself is the guarded ``refresh``.
        """
        watch = watch_on_wizard(
            self,
            busy=lambda: self.processing,
            refresh=ClipsState.refresh,
            seconds=WATCH_SECONDS,
            rounds=WATCH_ROUNDS,
        )
        async for event in watch:
            yield event
