"""Tests for the static legal pages in ``app.content.legal``."""

from __future__ import annotations

import pytest

from app.content.legal import LEGAL_BY_SLUG, LEGAL_PAGES, LegalPage, legal_page

EXPECTED_SLUGS = (
    "privacidad",
    "terminos",
    "acuerdos",
    "about",
    "dmca",
    "report",
    "aplicaciondelaley",
    "verificada",
)


def _text(page: LegalPage) -> str:
    return " ".join(p for s in page.sections for p in (s.heading, *s.paragraphs))


def test_exactly_the_eight_slugs_in_order() -> None:
    assert tuple(page.slug for page in LEGAL_PAGES) == EXPECTED_SLUGS
    assert tuple(LEGAL_BY_SLUG) == EXPECTED_SLUGS


@pytest.mark.parametrize("page", LEGAL_PAGES, ids=lambda p: p.slug)
def test_page_shape(page: LegalPage) -> None:
    assert page.title.strip()
    assert page.description.strip()
    assert len(page.description) <= 160
    assert len(page.sections) >= 3
    for section in page.sections:
        assert section.heading.strip()
        assert section.paragraphs
        for paragraph in section.paragraphs:
            assert paragraph.strip()
            assert "<" not in paragraph
            assert "lorem" not in paragraph.lower()


def test_report_page_mentions_emergency_numbers() -> None:
    text = _text(LEGAL_BY_SLUG["report"])
    assert "133" in text
    assert "134" in text


def test_legal_page_lookup() -> None:
    assert legal_page("nope") is None
    for slug in EXPECTED_SLUGS:
        page = legal_page(slug)
        assert page is not None and page.slug == slug
