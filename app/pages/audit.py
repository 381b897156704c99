"""/admin/auditoria: who changed which record, from what to what, when (administrators only)."""

from __future__ import annotations

import reflex as rx

from app.components.staff_table import staff_table
from app.states.staff.audit import AuditTableState


def audit_page() -> rx.Component:
    """The audit log on the staff table."""
    return staff_table(AuditTableState)
