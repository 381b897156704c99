"""Reusable page pieces: layout, listing cards, carousel, age notice."""
