"""Reflex states: thin layers that authorize, validate and call services."""
