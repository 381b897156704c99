"""The brand name is written once, as the default of ``Settings.site_name``; everything else reads the setting."""

from __future__ import annotations

from pathlib import Path

from app.settings import Settings
from tests.layers import ROOT

BRAND = Settings.model_fields["site_name"].default


def brand_literals(root: Path) -> list[str]:
    """Every source file or template of ``root/app`` but settings.py that spells the brand out."""
    return sorted(
        str(path.relative_to(root))
        for path in (root / "app").rglob("*")
        if path.suffix in {".py", ".html", ".css"}
        and path != root / "app" / "settings.py"
        and BRAND in path.read_text(encoding="utf-8")
    )


def test_only_the_settings_spell_the_brand_name():
    assert brand_literals(ROOT) == []
