"""Staff operations: the staff tables and their specs, the review queue and decisions, catalogues, the audit log."""
