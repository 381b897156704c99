"""The back office's states: the staff tables, the review queue, the overview and the audit log."""
