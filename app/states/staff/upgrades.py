"""/admin/mejorasPublicacion: upgrade requests on the staff table; approve with dates and payment, or deny.

The table's handlers come from its spec (``UPGRADES_SPEC``, beside the desk's service); the decision handlers below
are for administrators only, and the services refuse anyone else too. A decision names a row of
the page shown; the services look the upgrade up again and refuse one already decided.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import reflex as rx
from reflex_base.event import EventSpec
from sqlmodel import Session

from app.core.actor import Actor
from app.core.dates import CALENDAR_DAY_CHARS, typed_day
from app.models import UpgradeStatus
from app.models.listings import PAYMENT_REFERENCE_MAX, REASON_MAX
from app.services import upgrades
from app.services.listing_form import DAY_TYPED_MAX
from app.services.staff import upgrades as staff_upgrades
from app.services.staff.shared import TableQuery
from app.services.staff.table_spec import ADMIN, TableSpec
from app.services.staff.upgrades import UPGRADES_SPEC
from app.states.auth import current_actor, requires
from app.states.notify import notify_error, notify_success
from app.states.offload import run_service
from app.states.staff.table import GONE_MESSAGE, StaffTableState

APPROVE, DENY = "aprobar", "rechazar"
STATUS_FILTER = staff_upgrades.STATUS_FILTER
PENDING = UpgradeStatus.SOLICITADA.value
APPROVE_FIELDS = ("starts_on", "ends_on", "payment_reference")
DENY_FIELDS = ("reason",)


def _text(value: Any, limit: int) -> str:
    return value[:limit] if isinstance(value, str) else ""


class StaffUpgradesState(StaffTableState, rx.State):
    """The administrator's upgrade desk: the table, and the approve or deny dialog of one pending row."""

    _spec: ClassVar[TableSpec] = UPGRADES_SPEC

    decision: str = ""
    decision_uid: str = ""
    decision_title: str = ""
    starts_on: str = ""
    ends_on: str = ""

    @staticmethod
    def _query(session: Session, *, actor: Actor, query: TableQuery) -> tuple[list[dict[str, str]], int]:
        found = staff_upgrades.list_upgrades(session=session, actor=actor, query=query)
        rows = []
        for row in found.rows:
            values = row.model_dump()
            values["decision"] = row.payment_reference or row.reason
            rows.append({key: str(value) for key, value in values.items()})
        return rows, found.total

    def _close_decision(self) -> None:
        self.decision, self.decision_uid, self.decision_title = "", "", ""
        self.starts_on, self.ends_on = "", ""
        self._clear_errors()

    @requires(ADMIN)
    async def open_admin(self) -> list[EventSpec]:
        """Enter the page (the area guard): the pending requests, oldest first."""
        events = await self._load()
        self._close_decision()
        if self.loaded:
            self.filters = {STATUS_FILTER: PENDING}
            await self._refresh()
        return events

    async def _open(self, kind: str, uid: Any) -> EventSpec | None:
        self._close_decision()
        row = next((row for row in self.rows if row.get("uid") == uid), None) if isinstance(uid, str) else None
        if row is None or row.get("status") != PENDING:
            await self._refresh()
            return notify_error(GONE_MESSAGE)
        self.decision, self.decision_uid = kind, uid
        self.decision_title = f"{row.get('service', '')} para {row.get('listing_name', '')}"
        self.starts_on, self.ends_on = row.get("starts", ""), row.get("ends", "")
        return None

    @requires(ADMIN)
    async def open_approve(self, uid: str) -> EventSpec | None:
        """Open the approval dialog of a pending row, with the period the advertiser asked for."""
        return await self._open(APPROVE, uid)

    @requires(ADMIN)
    async def open_deny(self, uid: str) -> EventSpec | None:
        """Open the denial dialog of a pending row."""
        return await self._open(DENY, uid)

    @requires(ADMIN)
    def close_decision(self, is_open: bool) -> None:
        """Close the decision dialog (its open state changed to closed)."""
        if not is_open:
            self._close_decision()

    @requires(ADMIN)
    def pick_day(self, field: str, value: str) -> None:
        """Write a day chosen in the calendar (YYYY-MM-DD) into its field as día-mes-año."""
        if field in ("starts_on", "ends_on") and isinstance(value, str):
            setattr(self, field, typed_day(value[:CALENDAR_DAY_CHARS]))

    async def _decide(
        self, fn: Callable[..., object], fields: tuple[str, ...], success: str, **kwargs: Any
    ) -> EventSpec | None:
        if not self.decision_uid:
            return notify_error("Elige una mejora de la lista.")
        outcome = await self._submit(
            run_service(fn, actor=current_actor(), upgrade_uid=self.decision_uid, **kwargs),
            fields=fields,
        )
        if not outcome.ok:
            return None
        self._close_decision()
        await self._refresh()
        return notify_success(success)

    @requires(ADMIN)
    async def approve(self, form_data: dict[str, Any]) -> EventSpec | None:
        """Approve the open request for the days typed (día-mes-año, both included) and the payment checked."""
        data = form_data if isinstance(form_data, dict) else {}
        self.starts_on, self.ends_on = (
            _text(data.get("starts_on"), DAY_TYPED_MAX),
            _text(data.get("ends_on"), DAY_TYPED_MAX),
        )
        return await self._decide(
            staff_upgrades.approve_request,
            APPROVE_FIELDS,
            "Aprobaste la mejora.",
            starts_on=self.starts_on,
            ends_on=self.ends_on,
            payment_reference=_text(data.get("payment_reference"), PAYMENT_REFERENCE_MAX + 1),
        )

    @requires(ADMIN)
    async def deny(self, form_data: dict[str, Any]) -> EventSpec | None:
        """Deny the open request with the reason the advertiser will read."""
        data = form_data if isinstance(form_data, dict) else {}
        return await self._decide(
            upgrades.deny_upgrade,
            DENY_FIELDS,
            "Rechazaste la mejora.",
            reason=_text(data.get("reason"), REASON_MAX + 1),
        )

    # --- handlers (marked from the spec by StaffTableState) ---

    async def search(self, form_data: dict[str, Any]) -> None:
        return await self._search(form_data)

    async def sort(self, key: str) -> None:
        return await self._sort(key)

    async def set_filter(self, key: str, value: str) -> None:
        return await self._set_filter(key, value)

    async def next_page(self) -> None:
        return await self._next_page()

    async def prev_page(self) -> None:
        return await self._prev_page()

    def close_dialog(self, is_open: bool) -> None:
        return self._close_dialog(is_open)

    async def export_csv(self) -> EventSpec:
        return await self._export_csv()
