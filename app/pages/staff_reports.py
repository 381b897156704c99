"""/admin/reportes: the reports from the public form on the staff table; the table's edit dialog changes
their state and adds a note."""

from __future__ import annotations

import reflex as rx

from app.components.staff_table import staff_table
from app.states.staff.reports import StaffReportsState


def staff_reports_page() -> rx.Component:
    """The administrator's reports desk."""
    return staff_table(StaffReportsState)
