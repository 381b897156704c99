"""The same listings drawn by the Reflex card (the running app's city page) and by the Jinja2 card (the city's
/escorts-ssg page over HTTP) show a visitor the same thing: per card, the text, the links and the photos.

The server-rendered card is one template for the preview and the SSG pages (tests/unit/
test_server_rendered_cards.py compares those two); this compares it with the app's own. One difference is
deliberate and left out: the app's card has the favourites heart, a button that needs the app's script,
which the SSG pages do not run.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from playwright.sync_api import Page, expect
from sqlmodel import Session, select

from app.models import ListingPhoto, utc_now
from tests.e2e.conftest import accept_age
from tests.factories import make_listing, make_owner

pytestmark = pytest.mark.e2e

CARDS_CITY = "valparaiso"  # no other test file shows listings there
# Per card: its text without the heart's button, the links, and each photo's src, srcset, sizes and alt.
CARD_CONTENT = """cards => cards.map(card => {
  const shown = card.cloneNode(true);  // innerText of a clone: laid out as the card, without the heart
  shown.querySelectorAll("button").forEach(button => button.remove());
  card.after(shown);
  const text = shown.innerText.replace(/\\s+/g, " ").trim();
  shown.remove();
  return {
    text,
    links: [...card.querySelectorAll("a")].map(link => link.getAttribute("href")),
    photos: [...card.querySelectorAll("img")].map(img =>
      ["src", "srcset", "sizes", "alt"].map(name => img.getAttribute(name))),
  };
})"""


@pytest.fixture
def listed(db: Session) -> list[str]:
    """Three listings of CARDS_CITY: every badge on one, photos the pipeline stored in two widths on another."""
    owner = make_owner(db, "tarjetas@example.cl")
    long_ago = utc_now() - timedelta(days=40)  # last among the home's featured cards
    every_badge = make_listing(
        db,
        owner,
        name="Sofía & Co",
        city=CARDS_CITY,
        commune="Valparaíso",
        tier="ruby",
        published_at=long_ago,
        verified=True,
        has_video=True,
        porn_actress=True,
        available_until=utc_now() + timedelta(hours=5),
    )
    pipeline = make_listing(
        db, owner, name="Trinidad", city=CARDS_CITY, commune="Valparaíso", tier="chicas-del-dia", published_at=long_ago
    )
    for photo in db.exec(select(ListingPhoto).where(ListingPhoto.listing_uid == pipeline.uid)).all():
        photo.path = f"photos/tr/foto-{photo.position}-800.webp"
    db.commit()
    single = make_listing(
        db, owner, name="Úrsula", city=CARDS_CITY, commune="Valparaíso", tier="chicas-del-dia", photos=1
    )
    return [listing.display_name for listing in (every_badge, pipeline, single)]


def test_the_app_and_the_ssg_page_draw_the_same_cards(page: Page, site, listed):
    page.goto(f"/escorts/{CARDS_CITY}")
    accept_age(page)
    cards = page.get_by_test_id("listing-card")
    expect(cards).to_have_count(len(listed))
    in_app = cards.evaluate_all(CARD_CONTENT)

    response = page.goto(f"/escorts-ssg/{CARDS_CITY}")  # the 18+ cookie the app's notice set
    assert response is not None and response.status == 200
    served = page.get_by_test_id("listing-card").evaluate_all(CARD_CONTENT)

    assert served == in_app
    # The comparison saw what it is about: every card, a badge of each kind, and a srcset.
    assert len(in_app) == len(listed) and all(any(name in card["text"] for card in in_app) for name in listed)
    everything = next(card for card in in_app if "Sofía & Co" in card["text"])
    for badge in ("Verificada", "Video", "Estrella XXX", "Disponible ahora"):
        assert badge in everything["text"]
    srcsets = [photo[1] for card in in_app for photo in card["photos"] if photo[1]]
    assert srcsets and all(" 400w, " in srcset and srcset.endswith(" 800w") for srcset in srcsets)
    assert all(card["links"] and card["links"][0].startswith(f"/escorts/{CARDS_CITY}/") for card in in_app)
