"""/admin/revisarPublicacion and /bbitamia/revisarPublicacion: the review queue (app.services.staff.review_queue).

The state holds one page of the queue. Every handler is for staff
(administrator or secretary); the services check staff again and audit each
decision. A decision names a queue item by its uid, which must be on the page
this client was shown: the uid and the version of the content shown come from
that item, never from the browser, and one service (``reviews.decide_review``)
finds whether it is a listing or a verification request. If the content changed
since (the owner edited it), the service refuses and the page is read again.
"""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex_base.event import EventSpec

from app.core.errors import ConflictError, ServiceError
from app.models import ProfileId, ReviewDecision
from app.models.listings import REASON_MAX
from app.services.staff import review_queue, reviews
from app.services.staff.review_queue import QueueItem
from app.states.areas import enter_area
from app.states.auth import current_actor, requires
from app.states.notify import Events, notify_error, notify_success
from app.states.offload import run_service
from app.storage.factory import get_private_storage, get_storage

STAFF = (ProfileId.ADMINISTRADOR, ProfileId.SECRETARIA)
GONE = "Ese elemento ya no está en la cola: alguien más lo revisó. Actualizamos la lista."


def _text(value: object, limit: int = 64) -> str:
    return value[:limit] if isinstance(value, str) else ""


class ReviewQueueState(rx.State):
    """One page of the queue, and the rejection dialog open over one item."""

    loaded: bool = False
    items: rx.Field[list[QueueItem]] = rx.field(default_factory=list)
    total: int = 0
    page: int = 1
    page_count: int = 1
    oldest: str = ""
    reject_uid: str = ""
    reject_title: str = ""
    reject_reasons: list[str] = []
    reject_error: str = ""
    busy: bool = False

    async def _reload(self) -> None:
        found = await run_service(review_queue.list_queue, actor=current_actor(), page=self.page)
        if not found.items and found.page > 1 and found.total:
            self.page = max(1, -(-found.total // found.page_size))
            found = await run_service(review_queue.list_queue, actor=current_actor(), page=self.page)
        self.items = found.items
        self.total = found.total
        self.page_count = max(1, -(-found.total // found.page_size))
        self.oldest = found.oldest
        self.loaded = True

    async def _open(self) -> list[EventSpec]:
        events = await enter_area(self)
        self.page = 1
        self._close_reject()
        await self._reload()
        return events

    @requires(ProfileId.ADMINISTRADOR)
    async def open_admin(self) -> list[EventSpec]:
        """Enter the administrator's queue page."""
        return await self._open()

    @requires(ProfileId.SECRETARIA)
    async def open_secretary(self) -> list[EventSpec]:
        """Enter the secretary's queue page."""
        return await self._open()

    @requires(*STAFF)
    async def refresh(self) -> None:
        """Read the current page again."""
        await self._reload()

    @requires(*STAFF)
    async def next_page(self) -> None:
        """The next page of the queue."""
        if self.page < self.page_count:
            self.page += 1
        await self._reload()

    @requires(*STAFF)
    async def previous_page(self) -> None:
        """The previous page of the queue."""
        self.page = max(1, self.page - 1)
        await self._reload()

    def _item(self, uid: object) -> QueueItem | None:
        uid = _text(uid)
        return next((item for item in self.items if item.uid == uid), None) if uid else None

    async def _decide(self, item: QueueItem, decision: ReviewDecision, reason: str = "") -> None:
        """The caller's decision on an item of this page, with the version of it they were shown."""
        await run_service(
            reviews.decide_review,
            storage=get_storage(),
            private=get_private_storage(),
            actor=current_actor(),
            item_uid=item.uid,
            decision=decision,
            reason=reason,
            expected_version=item.version,
        )

    async def _decided(self, message: str) -> list[EventSpec]:
        await self._reload()
        return [notify_success(message)]

    @requires(*STAFF)
    async def approve(self, uid: str) -> Events:
        """Approve the item ``uid`` of this page: publish the listing, apply the edit, or grant the badge."""
        item = self._item(uid)
        if item is None:
            await self._reload()
            return notify_error(GONE)
        try:
            await self._decide(item, ReviewDecision.APROBADA)
        except ServiceError as exc:
            await self._reload()
            return notify_error(exc.message)
        return await self._decided(f"Aprobaste «{item.title}».")

    def _close_reject(self) -> None:
        self.reject_uid = self.reject_title = self.reject_error = ""
        self.reject_reasons = []

    @requires(*STAFF)
    def open_reject(self, uid: str) -> EventSpec | None:
        """Open the rejection dialog for the item ``uid`` of this page, with the reasons that fit its kind."""
        item = self._item(uid)
        if item is None:
            return notify_error(GONE)
        self.reject_uid, self.reject_title, self.reject_error = item.uid, item.title, ""
        self.reject_reasons = list(review_queue.rejection_reasons(item.kind))
        return None

    @requires(*STAFF)
    def close_reject(self, open_: bool = False) -> None:
        """Close the rejection dialog."""
        if not open_:
            self._close_reject()

    @requires(*STAFF)
    async def reject(self, form_data: dict[str, Any]) -> Events:
        """Reject the item whose dialog is open, with a reason from the list and words the advertiser reads."""
        data = form_data if isinstance(form_data, dict) else {}
        item = self._item(self.reject_uid)
        if item is None:
            self._close_reject()
            return notify_error(GONE)
        self.busy = True
        try:
            reason = reviews.rejection_text(
                _text(data.get("reason"), 120),
                _text(data.get("detail"), REASON_MAX + 1),
                review_queue.rejection_reasons(item.kind),
            )
            await self._decide(item, ReviewDecision.RECHAZADA, reason)
        except ConflictError as exc:
            # Changed or decided meanwhile: close the dialog and show the queue as it is now.
            self._close_reject()
            await self._reload()
            return notify_error(exc.message)
        except ServiceError as exc:
            self.reject_error = exc.message
            return notify_error(exc.message)
        finally:
            self.busy = False
        self._close_reject()
        return await self._decided(f"Rechazaste «{item.title}». Le mostraremos el motivo.")
