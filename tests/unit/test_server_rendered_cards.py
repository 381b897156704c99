"""The server-rendered documents (app.web): one card markup for the preview and the SSG pages, every
user-written value escaped, and the rules the Reflex card states read from the same place."""

from __future__ import annotations

import re

import pytest

from app.components.cards import FLAG_BADGES, PRICE_UNIT
from app.models import Section
from app.pages.public import ALL_TAB_LABEL, FILTER_CHIPS, REMOVE_FILTER
from app.routes import ALL_SEGMENT
from app.services.directory_view import FilterChip, tab_links
from app.services.listings import COUNT_CAP, CardPage
from app.web import preview, ssg
from tests.factories import card_view, detail_view

HOSTILE_NAME = "Ana <script>alert(\"x\")</script> 'Talquina' & co"
HOSTILE_COMMUNE = 'Ñuñoa "centro" <b>'
ESCAPED_NAME = "Ana &lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &#39;Talquina&#39; &amp; co"
_CARD = re.compile(r'<article class="card" data-testid="listing-card">.*?</article>', re.S)


def _hostile_card(**changes):
    return card_view(display_name=HOSTILE_NAME, commune=HOSTILE_COMMUNE, photos=["/media/a-800.webp"], **changes)


def _city_preview(cards) -> str:
    return preview.city_preview(
        section=Section.MUJERES.value,
        city_slug="talca",
        heading="Escorts en Talca",
        tabs=tab_links(section=Section.MUJERES.value, city_slug="talca", active_slug="todas"),
        path="/escorts/talca",
        listings=preview.CityListings(total=len(cards), cards=cards, groups=None, total_label=f"{len(cards)} avisos"),
    )


def _ssg_city(cards, *, adult_ok: bool = True, path: str = "/escorts-ssg/talca") -> str:
    return ssg.render_page(
        title="Escorts en Talca",
        description="Avisos",
        canonical="http://localhost/escorts-ssg/talca",
        heading="Escorts en Talca",
        body=ssg.city_body(CardPage(cards=cards, total=len(cards), page=1, page_size=24), "/escorts-ssg/talca"),
        adult_ok=adult_ok,
        path=path,
    )


def _documents(card) -> dict[str, str]:
    return {
        "preview city": _city_preview([card]),
        "preview home": preview.home_preview(
            section=Section.MUJERES.value, heading="Escorts en Chile", featured=[card], path="/escorts"
        ),
        "ssg city": _ssg_city([card]),
        "ssg home": ssg.render_page(
            title="Escorts en Chile",
            description="Avisos",
            canonical="http://localhost/escorts-ssg",
            heading="Escorts en Chile",
            body=ssg.home_body([card]),
            adult_ok=True,
            path="/escorts-ssg",
        ),
    }


@pytest.mark.parametrize("where", ["preview city", "preview home", "ssg city", "ssg home"])
def test_user_written_text_is_escaped_in_every_card(where):
    document = _documents(_hostile_card())[where]
    assert "<script>" not in document and "<b>" not in document
    assert f'<h3 class="card-name">{ESCAPED_NAME}</h3>' in document
    assert f'alt="Foto de {ESCAPED_NAME}"' in document and f'aria-label="Fotos de {ESCAPED_NAME}"' in document
    assert "Ñuñoa &#34;centro&#34; &lt;b&gt;" in document


def test_the_preview_and_the_ssg_pages_render_the_same_card():
    card = _hostile_card(verified=True, has_video=True, porn_actress=True, available_now=True)
    cards = {where: _CARD.findall(document) for where, document in _documents(card).items()}
    assert all(len(found) == 1 for found in cards.values()), cards
    assert len({found[0] for found in cards.values()}) == 1
    shown = cards["ssg city"][0]
    for _, label, css in FLAG_BADGES:
        assert f'<span class="badge {css}">{label}</span>' in shown
    assert f'<span class="muted">{PRICE_UNIT}</span>' in shown
    # The page's first card is its likely largest paint: fetched at once, in the 400 px file on a small card.
    assert 'loading="eager"' in shown and 'fetchpriority="high"' in shown
    assert 'srcset="/media/a-400.webp 400w, /media/a-800.webp 800w"' in shown


def test_a_card_shows_only_the_badges_it_has():
    shown = _CARD.findall(_ssg_city([_hostile_card(verified=False, has_video=True)]))[0]
    assert "badge-verified" not in shown and "badge-xxx" not in shown and "badge-video" in shown


def test_detail_preview_escapes_what_the_advertiser_wrote():
    detail = detail_view(
        display_name=HOSTILE_NAME,
        description="Hola <img src=x onerror=alert(1)>",
        services=["<u>Masajes</u>"],
        rates=[("<1 hora>", "$50.000")],
        visiting="De visita <hoy>",
    )
    document = preview.detail_preview(detail, adult=True, path="/escorts/talca/ana/x")
    assert "<img src=x" not in document and "<u>" not in document and "<1 hora>" not in document
    assert f"<h1>{ESCAPED_NAME}</h1>" in document
    assert "Hola &lt;img src=x onerror=alert(1)&gt;" in document and "De visita &lt;hoy&gt;" in document


def test_the_age_notice_keeps_a_hostile_return_path_a_value():
    for document in (
        _ssg_city([], adult_ok=False, path='/escorts-ssg/talca"><script>x</script>'),
        preview.home_preview(
            section=Section.MUJERES.value, heading="Escorts", featured=None, path='/escorts"><script>x</script>'
        ),
    ):
        assert "<script>" not in document
        assert '&#34;&gt;&lt;script&gt;x&lt;/script&gt;"' in document


def test_the_preview_links_every_listing_of_a_city_where_the_app_does():
    document = _city_preview([])
    assert f'<a href="/escorts/talca/{ALL_SEGMENT}" class="tab tab-all">{ALL_TAB_LABEL}</a>' in document


def test_the_preview_shows_the_filters_as_the_app_does_each_a_link_without_it():
    chips = [FilterChip(label="Tarifa hasta $60.000", url="/escorts/talca?edad_min=20&x=<b>")]
    document = preview.city_preview(
        section=Section.MUJERES.value,
        city_slug="talca",
        heading="Escorts en Talca",
        tabs=[],
        path="/escorts/talca",
        listings=preview.CityListings(total=0, cards=[], groups=None, total_label="0 avisos"),
        filtered=True,
        chips=chips,
    )
    assert (
        f'<ul class="filter-chips" aria-label="{FILTER_CHIPS}"><li><a href="/escorts/talca?edad_min=20&amp;x=&lt;b&gt;"'
        f' class="chip"><span class="visually-hidden">{REMOVE_FILTER}</span>Tarifa hasta $60.000'
        '<span aria-hidden="true"> ×</span></a></li>'
    ) in document
    assert "filter-chips" not in _city_preview([])


def test_the_ssg_pager_links_canonical_urls():
    body = ssg.city_body(CardPage(cards=[], total=30, page=2, page_size=12), "/escorts-ssg/talca")
    assert "<p>30 avisos · página 2 de 3</p>" in body
    assert '<a rel="prev" href="/escorts-ssg/talca">Anterior</a>' in body
    assert '<a rel="next" href="/escorts-ssg/talca?pagina=3">Siguiente</a>' in body


def test_the_ssg_pager_past_the_count_cap_has_no_last_page():
    """Past the count's cap the last page is not known: "Más de 1.000 avisos · página 2", a next page link."""
    result = CardPage(cards=[], total=COUNT_CAP + 1, page=2, page_size=24, exact=False)
    body = ssg.city_body(result, "/escorts-ssg/talca")
    assert "<p>Más de 1.000 avisos · página 2</p>" in body
    assert '<a rel="next" href="/escorts-ssg/talca?pagina=3">Siguiente</a>' in body


def test_the_not_found_page_escapes_its_values():
    document = ssg.not_found_page(city_path='/escorts-ssg/x"y', city_name="<Talca>", site_name="Escorts & Co")
    assert '<a href="/escorts-ssg/x&#34;y">Ver los avisos de &lt;Talca&gt;</a>' in document
    assert "<title>Página no encontrada | Escorts &amp; Co</title>" in document
