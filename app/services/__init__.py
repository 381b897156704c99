"""Data operations: plain functions taking a Session, no Reflex imports."""
