"""The public directory page: home, city, section, /all and listing detail,
for both the mujeres and the trans sections. Which one shows is decided by
DirectoryState.load from the browser path (see app.routes)."""

from __future__ import annotations

from typing import cast

import reflex as rx
from reflex_base.vars.number import NumberVar
from reflex_base.vars.object import ObjectVar
from reflex_base.vars.sequence import ArrayVar

from app.components.age_gate import adults_only, age_notice_first
from app.components.cards import badges, card_grid
from app.components.carousel import carousel
from app.components.clips import clip_list
from app.components.favourites import favourite_button
from app.components.forms import checkbox_field, select_field, text_field
from app.components.layout import READY_ATTRIBUTE, page_frame
from app.core.geo import cities_by_region
from app.models import ListingDetail, PublicClip
from app.models.listing_filters import (
    AGE_MAX_PARAM,
    AGE_MIN_PARAM,
    COMMUNE_PARAM,
    MAX_FILTER_VALUE,
    PRICE_MAX_PARAM,
    PRICE_MIN_PARAM,
    SERVICE_PARAM,
)
from app.routes import ALL_SEGMENT, REPORT_LISTING_PARAM, REPORT_PATH
from app.services.directory_view import TierGroup
from app.states.public import FILTER_FORM, AgeGateState, DirectoryState

# The tab of a city's every listing, and the hidden h2 over its cards, whose names are h3 (no tier headings
# there); the first screen in the document (app.web.preview) shows the same.
ALL_TAB_LABEL = "Ver todas"
ALL_HEADING = "Todos los avisos"
# The filters' texts, shared with the first screen in the document (app.web.preview).
FILTERS_BUTTON = "Filtros"
FILTERS_ACTIVE_BUTTON = "Filtros activos"
CLEAR_FILTERS = "Limpiar filtros"
NO_MATCH = "No hay avisos que coincidan con estos filtros."
# The applied filters as chips: the list's name, and what each chip's name says before the filter.
FILTER_CHIPS = "Filtros aplicados"
REMOVE_FILTER = "Quitar filtro: "
# The detail read on the class: a var of the model to Reflex, the declared `ListingDetail | None` to mypy
# (docs/ARCHITECTURE.md, "Types").
DETAIL = cast(ObjectVar[ListingDetail], DirectoryState.detail)


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


def _range_fields(
    legend: str, low: str, high: str, low_var: rx.Var[str] | str, high_var: rx.Var[str] | str
) -> rx.Component:
    """A "desde / hasta" pair of the filter form; each keeps its value when the field is left, and says
    beside it what it could not read."""
    return rx.el.fieldset(
        rx.el.legend(legend),
        *[
            text_field(
                FILTER_FORM,
                label,
                name,
                default_value=var,
                input_mode="numeric",
                auto_complete="off",
                max_length=MAX_FILTER_VALUE,
                errors=DirectoryState.filter_errors,
                # A new field when the applied filters change (a link, the back button): it shows theirs.
                key=DirectoryState.unfiltered_url + "?" + DirectoryState.filter_query + "#" + name,
                on_blur=lambda value, name=name: DirectoryState.set_filter(name, value),
            )
            for label, name, var in (("Desde", low, low_var), ("Hasta", high, high_var))
        ],
        class_name="filter-range",
    )


def _filters() -> rx.Component:
    """The filters of a city page, behind one button: comuna, hourly rate, age and services.

    The form's changes are counted as they are made ("Ver 12 avisos") and shown by its button, which puts
    them in the URL; "Limpiar filtros" goes back to the page without any.
    """
    return rx.el.details(
        rx.el.summary(
            rx.cond(DirectoryState.filtered, FILTERS_ACTIVE_BUTTON, FILTERS_BUTTON), class_name="btn filters-toggle"
        ),
        rx.el.div(
            select_field(
                FILTER_FORM,
                "Comuna",
                COMMUNE_PARAM,
                DirectoryState.commune_options,
                placeholder="Todas las comunas",
                value=DirectoryState.draft_commune,
                on_change=lambda value: DirectoryState.set_filter(COMMUNE_PARAM, value),
            ),
            _range_fields(
                "Tarifa por hora (CLP)",
                PRICE_MIN_PARAM,
                PRICE_MAX_PARAM,
                DirectoryState.draft_price_min,
                DirectoryState.draft_price_max,
            ),
            _range_fields(
                "Edad", AGE_MIN_PARAM, AGE_MAX_PARAM, DirectoryState.draft_age_min, DirectoryState.draft_age_max
            ),
            rx.el.fieldset(
                rx.el.legend("Servicios"),
                rx.foreach(
                    DirectoryState.services,
                    lambda service: checkbox_field(
                        service.label,
                        SERVICE_PARAM,
                        value=service.value,
                        default_checked=DirectoryState.draft_services.contains(service.value),
                        key=DirectoryState.unfiltered_url + "?" + DirectoryState.filter_query + "#" + service.value,
                        on_change=lambda checked: DirectoryState.toggle_service(service.value, checked),
                    ),
                ),
                class_name="filter-services",
            ),
            rx.el.div(
                rx.el.button(
                    DirectoryState.draft_label,
                    type="button",
                    on_click=DirectoryState.apply_filters,
                    class_name="btn btn-primary",
                    custom_attrs={"aria-live": "polite"},
                ),
                rx.link(CLEAR_FILTERS, href=DirectoryState.unfiltered_url, class_name="btn btn-ghost"),
                class_name="filter-actions",
            ),
            class_name="filter-panel",
        ),
        class_name="filters",
    )


def _filter_chips() -> rx.Component:
    """The applied filters, each a link to the page without it ("Quitar filtro: Tarifa hasta $130.000")."""
    return cast(
        rx.Component,
        rx.cond(
            DirectoryState.chips.length() > 0,
            rx.el.ul(
                rx.foreach(
                    DirectoryState.chips,
                    lambda chip: rx.el.li(
                        rx.link(
                            rx.el.span(REMOVE_FILTER, class_name="visually-hidden"),
                            chip.label,
                            rx.el.span(" ×", custom_attrs={"aria-hidden": "true"}),
                            href=chip.url,
                            class_name="chip",
                        ),
                        key=chip.url,
                    ),
                ),
                class_name="filter-chips",
                aria_label=FILTER_CHIPS,
            ),
        ),
    )


def _group(group: ObjectVar[TierGroup], index: NumberVar[int]) -> rx.Component:
    return rx.el.section(
        rx.el.h2(group.name, class_name="tier-heading tier-" + group.slug.to(str)),
        card_grid(group.cards, lead=index == 0),
        class_name="tier-group",
    )


def _pager() -> rx.Component:
    return cast(
        rx.Component,
        rx.cond(
            DirectoryState.page_count > 1,
            rx.el.nav(
                rx.el.button(
                    "Anterior",
                    on_click=DirectoryState.previous_page,
                    disabled=DirectoryState.page <= 1,
                    class_name="btn",
                ),
                rx.el.span(DirectoryState.page_label),
                rx.el.button(
                    "Siguiente",
                    on_click=DirectoryState.next_page,
                    disabled=DirectoryState.page >= DirectoryState.page_count,
                    class_name="btn",
                ),
                class_name="pager",
                aria_label="Páginas",
            ),
        ),
    )


def _listing_area() -> rx.Component:
    return rx.fragment(
        rx.el.p(
            DirectoryState.total_label,
            class_name="muted",
            custom_attrs={"data-testid": "total", READY_ATTRIBUTE: DirectoryState.shown_path},
        ),
        rx.cond(
            DirectoryState.total == 0,
            rx.cond(
                DirectoryState.filtered,
                rx.el.div(
                    rx.el.p(NO_MATCH, class_name="empty"),
                    rx.link(CLEAR_FILTERS, href=DirectoryState.unfiltered_url, class_name="btn btn-primary"),
                    class_name="no-match",
                ),
                rx.el.p("No hay avisos que coincidan con este filtro.", class_name="empty"),
            ),
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
        adults_only(rx.fragment(_filters(), _filter_chips(), _listing_area())),
    )


def _detail() -> rx.Component:
    d = DETAIL
    name = d.display_name.to(str)
    return rx.fragment(
        rx.el.p(
            rx.link(d.city_name, href=DirectoryState.section_home + "/" + d.city_slug.to(str)),
            class_name="crumbs",
        ),
        adults_only(
            rx.el.article(
                rx.el.div(
                    carousel(d.photos, name),
                    clip_list(cast(ArrayVar[list[PublicClip]], d.clips)),
                    class_name="detail-media",
                ),
                rx.el.div(
                    rx.el.div(rx.el.h1(name), favourite_button(d.uid, name), class_name="detail-title"),
                    rx.el.p(
                        d.age.to_string() + " años · " + d.commune.to(str) + ", " + d.city_name.to(str),
                        class_name="card-meta",
                    ),
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
                                "Llamar " + d.phone.to(str),
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
                    rx.el.p("Publicado el " + d.published.to(str), class_name="muted"),
                    rx.cond(d.verified_on != "", rx.el.p("Verificada el " + d.verified_on.to(str), class_name="muted")),
                    rx.el.p(
                        rx.link(
                            "Reportar esta publicación",
                            href=f"{REPORT_PATH}?{REPORT_LISTING_PARAM}=" + d.uid.to(str),
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
        cast(
            rx.Component,
            rx.match(
                DirectoryState.view,
                ("home", _home()),
                ("city", _city()),
                ("all", _city()),
                ("detail", rx.cond(DirectoryState.detail, _detail(), rx.fragment())),
                ("missing", _missing()),
                rx.el.p("Cargando…", class_name="loading"),
            ),
        )
    )
