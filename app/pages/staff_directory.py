"""/admin/profesor and /bbitamia/profesor (advertisers), /admin/agencia (agencies), on the staff table."""

from __future__ import annotations

from collections.abc import Callable

import reflex as rx

from app.components.staff_layout import staff_frame
from app.components.staff_table import staff_table
from app.models import ProfileId
from app.states.staff.directory import AdvertisersTableState, AgenciesTableState


def _advertisers_page(area: ProfileId) -> Callable[[], rx.Component]:
    def component() -> rx.Component:
        return staff_frame(staff_table(AdvertisersTableState), area)

    return component


admin_advertisers_page = _advertisers_page(ProfileId.ADMINISTRADOR)
secretary_advertisers_page = _advertisers_page(ProfileId.SECRETARIA)


def agencies_page() -> rx.Component:
    """The administrator's agencies."""
    return staff_frame(staff_table(AgenciesTableState), ProfileId.ADMINISTRADOR)
