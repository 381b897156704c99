"""/admin/profesor and /bbitamia/profesor (advertisers), /admin/agencia (agencies), on the staff table."""

from __future__ import annotations

import reflex as rx

from app.components.staff_table import staff_table
from app.states.staff.directory import AdvertisersTableState, AgenciesTableState


def advertisers_page() -> rx.Component:
    """The advertisers (of either staff area)."""
    return staff_table(AdvertisersTableState)


def agencies_page() -> rx.Component:
    """The administrator's agencies."""
    return staff_table(AgenciesTableState)
