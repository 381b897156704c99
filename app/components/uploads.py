"""Helpers for Reflex's upload zone."""

from __future__ import annotations

import reflex as rx


def named_file_input(upload: rx.Component, name: str) -> rx.Component:
    """Give the file input inside ``rx.upload`` an accessible name (Reflex offers no prop for it).

    rx.upload builds Upload > dropzone div > (file input, children...): the input comes first.
    """
    zone = upload.children[0]
    file_input = zone.children[0]
    if getattr(file_input, "tag", None) != "input":
        raise TypeError("rx.upload changed shape: its first child is no longer the file input")
    file_input.custom_attrs["aria-label"] = name
    return upload
