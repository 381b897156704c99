"""The head's color-mode script (app.components.color_mode): a fixed mode set without reading the browser's storage.

tests/e2e/test_first_screen.py checks the built site: dark, and no storage read before the app starts."""

from __future__ import annotations

import pytest
from reflex.compiler.compiler import _compile_document_root
from reflex.compiler.utils import create_document_root
from reflex.utils import misc

from app.components import color_mode


@pytest.fixture
def install(monkeypatch):
    """``color_mode.install``, undone after the test; until called, Reflex's own script (another test may have
    imported the app, which installs it)."""
    monkeypatch.setattr(misc, "preload_color_theme", color_mode.reflex_color_mode_script)
    return color_mode.install


def _document(default_color_mode: str) -> str:
    """The compiled document root (every page's <html> and <head>) for ``default_color_mode``."""
    return _compile_document_root(
        create_document_root(head_components=[], html_lang="es-CL", default_color_mode=default_color_mode)
    )


@pytest.mark.parametrize("mode", ["dark", "light"])
def test_a_fixed_mode_is_set_at_once_where_reflex_alone_reads_storage(install, mode):
    """Reflex's own script reads the saved mode first (this fails once an upgrade stops that); installed, the
    compiled mode's class and color scheme are set at once."""
    assert 'localStorage.getItem(\\"theme\\")' in _document(mode)
    install()
    document = _document(mode)
    assert "localStorage" not in document
    assert f'classList.add(\\"{mode}\\");document.documentElement.style.colorScheme=\\"{mode}\\";' in document


def test_the_systems_mode_keeps_reflexs_script(install):
    """ "system" needs the browser's preference, and a saved choice: Reflex's own script."""
    reflexs = _document("system")
    install()
    assert _document("system") == reflexs
    assert "localStorage" in reflexs
