"""The listing card: cover with a swipeable photo strip, name, badges, price."""

from __future__ import annotations

import reflex as rx

from app.models import ListingCard


def badges(card) -> rx.Component:
    """Tier, verified, video and available-now badges of a card or detail."""
    return rx.el.div(
        rx.el.span(card.tier_name, class_name="badge badge-tier badge-" + card.tier_slug),
        rx.cond(card.verified, rx.el.span("Verificada", class_name="badge badge-verified")),
        rx.cond(card.has_video, rx.el.span("Video", class_name="badge badge-video")),
        rx.cond(card.porn_actress, rx.el.span("Estrella XXX", class_name="badge badge-xxx")),
        rx.cond(card.available_now, rx.el.span("Disponible ahora", class_name="badge badge-now")),
        class_name="badges",
    )


def photo_strip(card) -> rx.Component:
    """The card's photos in a horizontal strip that swipes on touch screens."""
    return rx.el.div(
        rx.foreach(
            card.photos,
            lambda src, i: rx.el.img(
                src=src,
                alt="Foto de " + card.display_name,
                loading="lazy",
                class_name="strip-photo",
                width="300",
                height="400",
            ),
        ),
        class_name="strip",
        custom_attrs={"data-strip": ""},
    )


def listing_card(card: ListingCard) -> rx.Component:
    """A listing card linking to its detail page."""
    return rx.el.article(
        photo_strip(card),
        rx.link(
            rx.el.h3(card.display_name, class_name="card-name"),
            rx.el.p(card.age.to_string() + " años · " + card.commune, class_name="card-meta"),
            badges(card),
            rx.el.p(card.price, rx.el.span(" / hora", class_name="muted"), class_name="card-price"),
            href=card.url,
            class_name="card-body",
            aria_label="Ver " + card.display_name,
        ),
        class_name="card",
        custom_attrs={"data-testid": "listing-card"},
    )


def card_grid(cards) -> rx.Component:
    """A responsive grid of cards."""
    return rx.el.div(rx.foreach(cards, listing_card), class_name="grid")
