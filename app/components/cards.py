"""The listing card: cover with a swipeable photo strip, name, badges, price."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import reflex as rx
from reflex.vars import Var
from reflex_base.vars.object import ObjectVar
from reflex_base.vars.sequence import StringVar

from app.components.favourites import favourite_button
from app.core.photo_urls import has_srcset, srcset_of
from app.models import ListingCard

# The badges after the tier's, in order: the flag of the card (or detail) that shows it, its label, its class.
# The server-rendered cards (app/web/templates/cards.html) read the same list.
FLAG_BADGES: tuple[tuple[str, str, str], ...] = (
    ("verified", "Verificada", "badge-verified"),
    ("has_video", "Video", "badge-video"),
    ("porn_actress", "Estrella XXX", "badge-xxx"),
    ("available_now", "Disponible ahora", "badge-now"),
)
# What follows a card's price.
PRICE_UNIT = " / hora"


def badges(card: ObjectVar[ListingCard]) -> rx.Component:
    """The tier's badge, then one per flag of FLAG_BADGES that the card or detail has."""
    return rx.el.div(
        rx.el.span(card.tier_name, class_name="badge badge-tier badge-" + card.tier_slug.to(str)),
        *(
            rx.cond(getattr(card, flag), rx.el.span(label, class_name=f"badge {css}"))
            for flag, label, css in FLAG_BADGES
        ),
        class_name="badges",
    )


# A card's width: the grid's columns (assets/styles.css .grid) across the viewport.
CARD_SIZES = (
    "(min-width: 1920px) 17vw, (min-width: 1440px) 20vw, (min-width: 1024px) 25vw, (min-width: 600px) 33vw, 50vw"
)


def photo_srcset(src: StringVar[str]) -> StringVar[str]:
    """The srcset of a card photo (app.core.photo_urls, the server-rendered cards' rule too), else none."""
    return cast(StringVar[str], rx.cond(has_srcset(src), srcset_of(src), None).to(str))


def photo_sizes(src: StringVar[str], sizes: str) -> StringVar[str]:
    """``sizes`` for a photo that has a srcset; none otherwise (HTML allows sizes only with a srcset)."""
    return cast(StringVar[str], rx.cond(has_srcset(src), sizes, None).to(str))


def photo_strip(card: ObjectVar[ListingCard], lead: Var[bool] | bool = False) -> rx.Component:
    """The card's photos in a horizontal strip that swipes on touch screens.

    The cover of the ``lead`` card (the page's first) is fetched at once with high
    priority, as the likely largest paint; every other photo waits until it nears
    the screen, and comes with low priority even on the screen, after that one.
    Width and height give the 3:4 box before the file arrives; srcset lets a
    small card take the 400 px file. A strip of several photos scrolls sideways, so it takes
    the keyboard focus (arrow keys scroll it) and has a name.
    """
    name = card.display_name.to(str)
    return rx.el.div(
        rx.foreach(
            card.photos,
            lambda src, i: rx.el.img(
                src=src,
                src_set=photo_srcset(src),
                sizes=photo_sizes(src, CARD_SIZES),
                alt="Foto de " + name,
                loading=rx.cond((i == 0) & lead, "eager", "lazy"),
                decoding="async",
                class_name="strip-photo",
                width="300",
                height="400",
                custom_attrs={"fetchPriority": rx.cond((i == 0) & lead, "high", "low")},
            ),
        ),
        class_name="strip",
        role="group",
        aria_label="Fotos de " + name,
        tab_index=rx.cond(card.photos.length() > 1, 0, None).to(int),
        custom_attrs={"data-strip": ""},
    )


def listing_card(card: ObjectVar[ListingCard], lead: Var[bool] | bool = False) -> rx.Component:
    """A listing card linking to its detail page, with its heart (``lead``: the page's first card, see photo_strip)."""
    name = card.display_name.to(str)
    return rx.el.article(
        photo_strip(card, lead),
        favourite_button(card.uid, name),
        rx.link(
            rx.el.h3(name, class_name="card-name"),
            rx.el.p(card.age.to_string() + " años · " + card.commune.to(str), class_name="card-meta"),
            badges(card),
            rx.el.p(card.price, rx.el.span(PRICE_UNIT, class_name="muted"), class_name="card-price"),
            href=card.url,
            class_name="card-body",
        ),
        class_name="card",
        custom_attrs={"data-testid": "listing-card"},
    )


def card_grid(cards: Var[Sequence[ListingCard]] | Sequence[ListingCard], lead: Var[bool] | bool = True) -> rx.Component:
    """A responsive grid of cards; when ``lead``, its first card is the page's first (see photo_strip)."""
    return rx.el.div(rx.foreach(cards, lambda card, i: listing_card(card, (i == 0) & lead)), class_name="grid")
