"""/my/publicacion/misPublicaciones: the advertiser's listings, their figures and actions (app.states.advertiser.my_listings)."""

from __future__ import annotations

from typing import Any, cast

import reflex as rx
from reflex_base.event import EventSpec
from reflex_base.vars.number import NumberVar
from reflex_base.vars.object import ObjectVar
from reflex_base.vars.sequence import StringVar

from app.components.forms import labelled_upload, upload_hint
from app.components.layout import guarded_content, page_frame
from app.components.staff_table import stacked_cell, stacked_row, stacked_table
from app.components.stats_chart import stats_chart
from app.pages.wizard import ACCEPTED_PHOTOS, refused_in_browser
from app.routes import ADVERTISER_NEW_LISTING, ADVERTISER_NOTICES, WIZARD_LISTING_PARAM
from app.services.my_listings import AVAILABLE_NOW_HOURS, MyListingRow
from app.services.photos import MAX_BYTES
from app.services.upgrades import UpgradeOption, UpgradeRow
from app.states.advertiser.my_listings import MyListingsState
from app.states.areas import AreaState

VERIFY_UPLOAD_ID = "verificacion"
HEADING = "Mis publicaciones"
# Under the greeting; static, so the page's document shows it before the app (app.web.preview).
INTRO = (
    "Aquí ves cada publicación con sus visitas y contactos de los últimos 7 y 30 días. Desde cada una puedes "
    "editarla, pausarla, renovarla o pedir una mejora; los cambios se revisan antes de publicarse."
)
VERIFY_INSTRUCTIONS = (
    "Sube una foto tuya sosteniendo un papel con el nombre del sitio y la fecha de hoy. "
    "Solo la ve el equipo del sitio, y la borramos en cuanto la revisamos."
)


def _wizard_href(uid: StringVar[str]) -> StringVar[str]:
    return f"{ADVERTISER_NEW_LISTING}?{WIZARD_LISTING_PARAM}=" + uid


def _figures(row: ObjectVar[MyListingRow]) -> rx.Component:
    return rx.el.dl(
        rx.el.dt("Visitas"),
        rx.el.dd(row.views_7, " en 7 días · ", row.views_30, " en 30 días"),
        rx.el.dt("Contactos"),
        rx.el.dd(row.clicks_7, " en 7 días · ", row.clicks_30, " en 30 días"),
        rx.el.dt("En favoritas"),
        rx.el.dd(row.saves, rx.cond(row.saves == 1, " cuenta la guarda", " cuentas la guardan")),
        class_name="listing-figures",
    )


def _available_now(row: ObjectVar[MyListingRow]) -> rx.Component:
    return rx.el.form(
        rx.el.input(type="hidden", name="uid", value=row.uid),
        rx.el.label(
            "Disponible AHORA por ",
            rx.el.select(
                *[rx.el.option(f"{hours} h", value=str(hours)) for hours in AVAILABLE_NOW_HOURS],
                name="hours",
                default_value="1",
            ),
        ),
        rx.el.button("Activar", type="submit", class_name="btn"),
        on_submit=MyListingsState.make_available_now,
        class_name="inline-form",
        aria_label="Disponible AHORA",
    )


def _copy(row: ObjectVar[MyListingRow]) -> rx.Component:
    return rx.el.form(
        rx.el.input(type="hidden", name="uid", value=row.uid),
        rx.el.label(
            "Copiar a ",
            rx.el.select(
                rx.el.option("Elige una ciudad", value=""),
                rx.foreach(MyListingsState.cities, lambda city: rx.el.option(city[1], value=city[0])),
                name="city_slug",
                required=True,
            ),
        ),
        rx.el.button("Copiar", type="submit", class_name="btn"),
        on_submit=MyListingsState.copy_to_city,
        no_validate=True,
        class_name="inline-form",
        aria_label="Copiar a otra ciudad",
    )


def _delete(row: ObjectVar[MyListingRow]) -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.trigger(rx.el.button("Eliminar", type="button", class_name="btn")),
        rx.alert_dialog.content(
            rx.alert_dialog.title("¿Eliminar esta publicación?"),
            rx.alert_dialog.description(
                "Se borran la publicación «", row.title, "» y todas sus fotos. No se puede deshacer."
            ),
            rx.el.div(
                rx.alert_dialog.cancel(rx.el.button("Cancelar", type="button", class_name="btn")),
                rx.alert_dialog.action(
                    rx.el.button(
                        "Sí, eliminar",
                        type="button",
                        on_click=MyListingsState.delete(row.uid),
                        class_name="btn btn-primary",
                    )
                ),
                class_name="dialog-actions",
            ),
        ),
    )


def _action(label: str, shown: rx.Var[Any], event: EventSpec) -> rx.Component:
    return cast(rx.Component, rx.cond(shown, rx.el.button(label, type="button", on_click=event, class_name="btn")))


def _payment_due(upgrade: ObjectVar[UpgradeRow]) -> rx.Component:
    return rx.el.li(
        rx.el.p("Mejora «", upgrade.name, "»: esperando tu pago"),
        rx.el.dl(
            rx.el.dt("Referencia de pago"),
            rx.el.dd(rx.el.strong(upgrade.payment_code)),
            rx.el.dt("Monto"),
            rx.el.dd(upgrade.amount),
            class_name="listing-figures",
        ),
        key=upgrade.uid,
    )


def _upgrade_state(row: ObjectVar[MyListingRow]) -> rx.Component:
    """The card's upgrades: each request waiting for payment with its reference and amount, how to pay, and the
    state of the upgrade in force (or of the latest)."""
    return rx.fragment(
        rx.cond(
            row.waiting_payments.length() > 0,
            rx.el.div(
                rx.el.ul(
                    rx.foreach(row.waiting_payments, _payment_due),
                    class_name="payments-due",
                    aria_label="Mejoras por pagar",
                ),
                rx.el.dl(
                    rx.el.dt("Cómo pagar"),
                    rx.el.dd(MyListingsState.payment_instructions, class_name="payment-instructions"),
                    class_name="listing-figures",
                ),
                class_name="form-notice",
            ),
        ),
        rx.cond(
            row.upgrade_label != "",
            rx.el.p(
                row.upgrade_label,
                rx.cond(row.upgrade_reason != "", rx.fragment(". ", row.upgrade_reason)),
                class_name="form-notice",
            ),
        ),
    )


# The covers of the first screen load at once (the largest thing it shows); the rest when scrolled to.
EAGER_COVERS = 2


def _card(row: ObjectVar[MyListingRow], index: NumberVar[int]) -> rx.Component:
    first_screen = index < EAGER_COVERS
    return rx.el.article(
        rx.cond(
            row.cover_url != "",
            rx.el.img(
                src=row.cover_url,
                alt="",
                class_name="listing-cover",
                width="120",
                height="160",
                loading=rx.cond(first_screen, "eager", "lazy"),
                custom_attrs={"fetchPriority": rx.cond(first_screen, "high", "auto")},
            ),
        ),
        rx.el.div(
            rx.el.h2(row.title),
            rx.el.p(row.city_name, " · ", row.section_label, class_name="muted"),
            rx.el.p(rx.el.span(row.status_label, class_name="badge status-" + row.status.to(str)), class_name="badges"),
            rx.cond(
                row.rejection_reason != "",
                rx.el.p("Motivo del rechazo: ", row.rejection_reason, class_name="form-error"),
            ),
            rx.cond(
                row.pending_revision,
                rx.el.p(
                    "Tienes cambios en revisión; mientras tanto se sigue viendo la versión publicada.",
                    class_name="form-notice",
                ),
            ),
            rx.cond(row.verified_label != "", rx.el.p(row.verified_label, class_name="badge badge-verified")),
            rx.cond(row.available_until_label != "", rx.el.p(row.available_until_label, class_name="badge badge-now")),
            rx.cond(row.expires_label != "", rx.el.p(row.expires_label, class_name="muted")),
            _upgrade_state(row),
            rx.cond(
                row.verification_label != "",
                rx.el.p(
                    row.verification_label,
                    rx.cond(row.verification_reason != "", rx.fragment(" Motivo: ", row.verification_reason)),
                    class_name="muted",
                ),
            ),
            _figures(row),
            rx.el.div(
                rx.cond(
                    row.can_continue,
                    rx.link("Continuar", href=_wizard_href(row.uid.to(str)), class_name="btn btn-primary"),
                ),
                rx.cond(row.can_edit, rx.link("Editar", href=_wizard_href(row.uid.to(str)), class_name="btn")),
                rx.cond(
                    row.public_url != "", rx.link("Ver publicación", href=row.public_url, class_name="btn btn-ghost")
                ),
                _action("Pausar", row.can_pause, MyListingsState.pause(row.uid)),
                _action("Reanudar", row.can_resume, MyListingsState.resume(row.uid)),
                _action("Renovar", row.can_renew, MyListingsState.renew(row.uid)),
                _action("Mejorar", row.can_upgrade, MyListingsState.open_upgrades(row.uid)),
                _action("Verificar", row.can_verify, MyListingsState.open_verification(row.uid)),
                _action("Estadísticas", row.can_stats, MyListingsState.open_stats(row.uid)),
                _delete(row),
                class_name="listing-actions",
            ),
            rx.cond(row.can_available_now, _available_now(row)),
            rx.cond(row.can_copy, _copy(row)),
            class_name="listing-body",
        ),
        class_name="my-listing",
        aria_label=row.title,
        # Keyed by the listing, not its place: when the list reorders (the changed one goes first),
        # a city or hours chosen and not yet sent stay on their own card.
        key=row.uid,
    )


def _upgrade_option(option: ObjectVar[UpgradeOption]) -> rx.Component:
    return rx.el.li(
        rx.el.strong(option.name),
        " · ",
        option.price_label,
        " · ",
        option.duration_days,
        " días",
        rx.el.p(option.description, class_name="muted"),
        rx.cond(
            option.waiting_code != "",
            rx.el.p("Ya la pediste: paga con la referencia ", rx.el.strong(option.waiting_code), "."),
            rx.el.button(
                "Pedir " + option.name.to(str),
                type="button",
                on_click=MyListingsState.request_upgrade(option.uid),
                class_name="btn",
            ),
        ),
    )


UPGRADE_COLUMNS = ("Mejora", "Estado", "Desde", "Hasta", "Monto")


def _upgrade_row(row: ObjectVar[UpgradeRow]) -> rx.Component:
    values = (row.name, row.status_label, row.starts, row.ends, row.amount)
    return stacked_row(*[stacked_cell(value, label) for value, label in zip(values, UPGRADE_COLUMNS, strict=True)])


def _upgrades() -> rx.Component:
    return rx.el.div(
        rx.el.ul(rx.foreach(MyListingsState.upgrade_options, _upgrade_option), class_name="upgrade-options"),
        # The dialog's title is its h1.
        rx.el.h2("Tus mejoras"),
        rx.cond(
            MyListingsState.upgrades.length() > 0,
            stacked_table(
                "Tus mejoras",
                [rx.el.th(label, scope="col", role="columnheader") for label in UPGRADE_COLUMNS],
                rx.foreach(MyListingsState.upgrades, _upgrade_row),
                class_name="upgrades-table",
            ),
            rx.el.p("Todavía no pediste mejoras para esta publicación.", class_name="muted"),
        ),
    )


def _verification() -> rx.Component:
    return rx.el.div(
        rx.el.p(VERIFY_INSTRUCTIONS),
        rx.cond(
            MyListingsState.verification_label != "",
            rx.el.p("Estado de tu solicitud: ", MyListingsState.verification_label, role="status"),
        ),
        rx.cond(
            MyListingsState.verification_reason != "",
            rx.el.p("Motivo: ", MyListingsState.verification_reason, class_name="muted"),
        ),
        labelled_upload(
            "Foto de verificación",
            upload_hint("Arrastra la foto aquí o haz clic para elegirla.", "Elige la foto"),
            id=VERIFY_UPLOAD_ID,
            multiple=False,
            max_files=1,
            max_size=MAX_BYTES,
            accept=ACCEPTED_PHOTOS,
            disabled=MyListingsState.sending,
            on_drop=MyListingsState.send_verification(rx.upload_files(upload_id=VERIFY_UPLOAD_ID)),
            on_drop_rejected=refused_in_browser,
            class_name="upload-zone",
        ),
        rx.cond(MyListingsState.sending, rx.el.p("Enviando tu foto…", role="status")),
    )


def _dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title(
                rx.match(
                    MyListingsState.dialog,
                    ("mejorar", "Mejorar"),
                    ("verificar", "Verificar"),
                    "Estadísticas",
                ),
                ": ",
                MyListingsState.dialog_title,
            ),
            rx.match(
                MyListingsState.dialog,
                ("mejorar", _upgrades()),
                ("verificar", _verification()),
                ("estadisticas", stats_chart(MyListingsState.stats_series)),
                rx.fragment(),
            ),
            rx.dialog.close(rx.el.button("Cerrar", type="button", class_name="btn")),
            class_name="my-dialog",
        ),
        open=MyListingsState.dialog != "",
        on_open_change=MyListingsState.close_dialog,
    )


def _listings() -> rx.Component:
    return rx.el.section(
        rx.el.h1(HEADING),
        rx.el.p(AreaState.greeting, class_name="lead"),
        rx.el.p(INTRO, class_name="lead"),
        rx.el.div(
            rx.link("Nueva publicación", href=ADVERTISER_NEW_LISTING, class_name="btn btn-primary"),
            rx.link("Mi cuenta: avisos por correo", href=ADVERTISER_NOTICES, class_name="btn btn-ghost"),
            class_name="listing-actions",
        ),
        rx.cond(
            MyListingsState.rows.length() > 0,
            rx.el.div(rx.foreach(MyListingsState.rows, _card), class_name="my-listings"),
            rx.el.p("Todavía no tienes publicaciones. Crea la primera con «Nueva publicación».", class_name="muted"),
        ),
        _dialog(),
        class_name="area",
    )


def my_listings_page() -> rx.Component:
    """The page, shown once the server accepted the advertiser and read their listings."""
    return page_frame(guarded_content(AreaState.ready & MyListingsState.loaded, _listings()))
