"""The upload zone's file input gets an accessible name."""

from __future__ import annotations

import reflex as rx

from app.components.uploads import named_file_input


def test_the_file_input_of_an_upload_zone_is_named():
    zone = named_file_input(rx.upload(rx.el.p("Arrastra aquí"), id="prueba"), "Foto de verificación")
    rendered = str(zone.render())
    assert '"aria-label":"Foto de verificaci\\\\u00f3n"' in rendered
    assert rendered.index("aria-label") < rendered.index("Arrastra")  # on the input, which comes first
