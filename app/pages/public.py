"""The public directory page: home, city, section, /all and listing detail,
for both the mujeres and the trans sections. Which one shows is decided by
DirectoryState.load from the browser path (see app.routes)."""

from __future__ import annotations

import reflex as rx

from app.components.age_gate import adults_only, age_notice_first
from app.components.cards import badges, card_grid
from app.components.carousel import carousel
from app.components.favourites import favourite_button
from app.components.layout import READY_ATTRIBUTE, page_frame
from app.core.geo import cities_by_region
from app.routes import ALL_SEGMENT, REPORT_LISTING_PARAM, REPORT_PATH
from app.states.public import AgeGateState, DirectoryState, TierGroup

# The tab of a city's every listing, and the hidden h2 over its cards, whose names are h3 (no tier headings
# there); the first screen in the document (app.web.preview) shows the same.
ALL_TAB_LABEL = "Ver todas"
ALL_HEADING = "Todos los avisos"


def _city_links() -> rx.Component:
    """The 25 cities grouped by region; links follow the current section."""
    return rx.el.nav(
        *[
            rx.el.div(
                rx.el.h2(region.name, class_name="region-name"),
                rx.el.ul(
                    *[
                        rx.el.li(rx.link(city.name, href=DirectoryState.section_home + "/" + city.slug))
                        for city in cities
                    ],
                    class_name="city-list",
                ),
                class_name="region",
            )
            for region, cities in cities_by_region()
        ],
        class_name="regions",
        aria_label="Ciudades",
    )


def _home() -> rx.Component:
    # A first visit meets the 18+ notice before the long list of cities (the featured cards wait for it).
    return rx.fragment(
        rx.el.h1(DirectoryState.heading),
        age_notice_first(),
        rx.el.p("Elige tu ciudad para ver los avisos publicados.", class_name="lead"),
        _city_links(),
        rx.cond(
            rx.State.is_hydrated,
            rx.cond(
                AgeGateState.accepted,
                rx.fragment(
                    rx.el.h2("Destacadas"),
                    rx.el.div(
                        rx.cond(
                            DirectoryState.featured.length() > 0,
                            card_grid(DirectoryState.featured),
                            rx.el.p("Aún no hay avisos destacados.", class_name="empty"),
                        ),
                        custom_attrs={READY_ATTRIBUTE: DirectoryState.shown_path},
                    ),
                ),
            ),
            rx.el.p("Cargando…", class_name="loading"),
        ),
    )


def _tabs() -> rx.Component:
    return rx.el.nav(
        rx.foreach(
            DirectoryState.tabs,
            lambda tab: rx.link(
                tab.label,
                href=tab.url,
                class_name=rx.cond(tab.active, "tab tab-active", "tab"),
                custom_attrs={"aria-current": rx.cond(tab.active, "page", "false")},
            ),
        ),
        rx.link(
            ALL_TAB_LABEL,
            href=DirectoryState.section_home + "/" + DirectoryState.city_slug + "/" + ALL_SEGMENT,
            class_name="tab tab-all",
        ),
        class_name="tabs",
        aria_label="Filtros",
    )


def _group(group: TierGroup, index) -> rx.Component:
    return rx.el.section(
        rx.el.h2(group.name, class_name="tier-heading tier-" + group.slug),
        card_grid(group.cards, lead=index == 0),
        class_name="tier-group",
    )


def _pager() -> rx.Component:
    return rx.cond(
        DirectoryState.page_count > 1,
        rx.el.nav(
            rx.el.button(
                "Anterior", on_click=DirectoryState.previous_page, disabled=DirectoryState.page <= 1, class_name="btn"
            ),
            rx.el.span("Página " + DirectoryState.page.to_string() + " de " + DirectoryState.page_count.to_string()),
            rx.el.button(
                "Siguiente",
                on_click=DirectoryState.next_page,
                disabled=DirectoryState.page >= DirectoryState.page_count,
                class_name="btn",
            ),
            class_name="pager",
            aria_label="Páginas",
        ),
    )


def _listing_area() -> rx.Component:
    return rx.fragment(
        rx.el.p(
            DirectoryState.total.to_string() + " avisos",
            class_name="muted",
            custom_attrs={"data-testid": "total", READY_ATTRIBUTE: DirectoryState.shown_path},
        ),
        rx.cond(
            DirectoryState.total == 0,
            rx.el.p("No hay avisos que coincidan con este filtro.", class_name="empty"),
            rx.cond(
                DirectoryState.view == "all",
                # The cards' names are h3, under an h2 as on the tier tabs.
                rx.fragment(rx.el.h2(ALL_HEADING, class_name="visually-hidden"), card_grid(DirectoryState.cards)),
                rx.foreach(DirectoryState.groups, _group),
            ),
        ),
        _pager(),
    )


def _city() -> rx.Component:
    return rx.fragment(
        rx.el.p(rx.link("← Todas las ciudades", href=DirectoryState.section_home), class_name="crumbs"),
        rx.el.h1(DirectoryState.heading),
        _tabs(),
        adults_only(_listing_area()),
    )


def _detail() -> rx.Component:
    d = DirectoryState.detail
    return rx.fragment(
        rx.el.p(
            rx.link(d.city_name, href=DirectoryState.section_home + "/" + d.city_slug),
            class_name="crumbs",
        ),
        adults_only(
            rx.el.article(
                carousel(d.photos, d.display_name),
                rx.el.div(
                    rx.el.div(
                        rx.el.h1(d.display_name), favourite_button(d.uid, d.display_name), class_name="detail-title"
                    ),
                    rx.el.p(d.age.to_string() + " años · " + d.commune + ", " + d.city_name, class_name="card-meta"),
                    badges(d),
                    rx.cond(d.available_until != "", rx.el.p(d.available_until, class_name="notice-now")),
                    rx.cond(d.visiting != "", rx.el.p(d.visiting, class_name="notice-visiting")),
                    rx.el.div(
                        rx.cond(
                            d.whatsapp_url != "",
                            rx.el.a(
                                "WhatsApp",
                                href=d.whatsapp_url,
                                target="_blank",
                                rel="noopener noreferrer",
                                class_name="btn btn-whatsapp",
                                on_click=DirectoryState.count_whatsapp,
                            ),
                        ),
                        rx.cond(
                            d.tel_url != "",
                            rx.el.a(
                                "Llamar " + d.phone,
                                href=d.tel_url,
                                class_name="btn btn-primary",
                                on_click=DirectoryState.count_call,
                            ),
                        ),
                        class_name="contact",
                    ),
                    rx.el.h2("Descripción"),
                    rx.el.p(d.description, class_name="description"),
                    rx.el.h2("Tarifas"),
                    rx.el.table(
                        rx.el.tbody(
                            rx.foreach(
                                d.rates, lambda rate: rx.el.tr(rx.el.th(rate[0], scope="row"), rx.el.td(rate[1]))
                            )
                        ),
                        class_name="rates",
                    ),
                    rx.cond(
                        d.services.length() > 0,
                        rx.fragment(
                            rx.el.h2("Servicios"),
                            rx.el.ul(rx.foreach(d.services, lambda s: rx.el.li(s)), class_name="services"),
                        ),
                    ),
                    rx.el.p("Publicado el " + d.published, class_name="muted"),
                    rx.cond(d.verified_on != "", rx.el.p("Verificada el " + d.verified_on, class_name="muted")),
                    rx.el.p(
                        rx.link(
                            "Reportar esta publicación",
                            href=f"{REPORT_PATH}?{REPORT_LISTING_PARAM}=" + d.uid,
                            class_name="report-link",
                        ),
                    ),
                    class_name="detail-info",
                ),
                class_name="detail",
                custom_attrs={READY_ATTRIBUTE: DirectoryState.shown_path},
            )
        ),
    )


def _missing() -> rx.Component:
    return rx.fragment(
        rx.el.h1("Publicación no disponible", custom_attrs={READY_ATTRIBUTE: DirectoryState.shown_path}),
        rx.el.p("Este aviso no existe o ya no está publicado."),
        rx.link("Volver al inicio", href=DirectoryState.section_home, class_name="btn btn-primary"),
    )


def directory_page() -> rx.Component:
    """The one component behind every public route."""
    return page_frame(
        rx.match(
            DirectoryState.view,
            ("home", _home()),
            ("city", _city()),
            ("all", _city()),
            ("detail", rx.cond(DirectoryState.detail, _detail(), rx.fragment())),
            ("missing", _missing()),
            rx.el.p("Cargando…", class_name="loading"),
        )
    )
