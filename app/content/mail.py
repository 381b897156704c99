"""Every e-mail but the advertisers' notices (those are in ``app.content.notices``): its Spanish subject and
plain-text body, one function each, in one place.

Each function takes only the values its text needs (a link, an address, a date already written for a
person) and returns ``(subject, body)``; the site's name and address come from the settings. Services
and the identity adapters call them and hand the result to the mail queue; none of them writes a text.
"""

from __future__ import annotations

from datetime import timedelta

from app.core.dates import hours_text
from app.core.text import mask_email
from app.settings import get_settings


def _recover_link() -> str:
    return f"{get_settings().site_url}/login?modo=recuperar"


# --- one-time links (the local identity provider) ------------------------------------------------------


def _one_time_link(intro: str, link: str, valid_for: timedelta, ending: str) -> str:
    """The body of a one-time link's e-mail: ``intro`` says what the link does, ``ending`` what to do if unasked."""
    return f"Hola:\n\n{intro} (vale por {hours_text(valid_for)} y se puede usar una sola vez):\n\n{link}\n\n{ending}\n"


def verify_email(link: str, valid_for: timedelta) -> tuple[str, str]:
    """The link that activates a new account."""
    site = get_settings().site_name
    return (
        f"Confirma tu correo en {site}",
        _one_time_link(
            f"Para activar tu cuenta en {site}, confirma tu correo abriendo este enlace",
            link,
            valid_for,
            "Si no creaste una cuenta, ignora este mensaje.",
        ),
    )


def confirm_new_email(link: str, valid_for: timedelta) -> tuple[str, str]:
    """The link, sent to the new address, that makes it the account's e-mail."""
    site = get_settings().site_name
    return (
        f"Confirma tu nuevo correo en {site}",
        _one_time_link(
            f"Pediste usar este correo en tu cuenta de {site}. Confírmalo abriendo este enlace",
            link,
            valid_for,
            "Si no lo pediste, ignora este mensaje: nada cambia.",
        ),
    )


def reset_password(link: str, valid_for: timedelta) -> tuple[str, str]:
    """The link that lets the owner choose a new password."""
    site = get_settings().site_name
    return (
        f"Restablece tu contraseña de {site}",
        _one_time_link(
            f"Pediste restablecer tu contraseña en {site}. Abre este enlace para elegir una nueva",
            link,
            valid_for,
            "Si no lo pediste, ignora este mensaje: tu contraseña no cambia.",
        ),
    )


# --- account security notices -------------------------------------------------------------------------


def sign_up_attempt() -> tuple[str, str]:
    """To an address that already has an account, when someone tries to sign up with it."""
    site = get_settings().site_name
    return (
        f"Intento de registro en {site}",
        f"Hola:\n\nAlguien intentó crear una cuenta en {site} con este correo, pero ya tienes una. "
        "No cambiamos nada en tu cuenta.\n\n"
        f"Si fuiste tú y no recuerdas tu contraseña, elige una nueva aquí:\n\n{_recover_link()}\n\n"
        "Si no fuiste tú, ignora este mensaje.\n",
    )


def password_changed() -> tuple[str, str]:
    """After the password changed (and the other sessions ended)."""
    site = get_settings().site_name
    return (
        f"Tu contraseña de {site} cambió",
        f"Hola:\n\nLa contraseña de tu cuenta en {site} acaba de cambiar y cerramos tus sesiones en otros "
        "dispositivos.\n\nSi fuiste tú, no tienes que hacer nada. Si no fuiste tú, elige una nueva contraseña "
        f"ahora mismo en {_recover_link()} y escríbenos desde la página de contacto.\n",
    )


def email_change_requested(new_email: str) -> tuple[str, str]:
    """To the current address, when a change to ``new_email`` (shown masked) was asked for."""
    site = get_settings().site_name
    return (
        f"Pediste cambiar tu correo en {site}",
        f"Hola:\n\nPediste cambiar el correo de tu cuenta en {site} a {mask_email(new_email)}. "
        "El cambio se hace cuando abras el enlace que enviamos a esa dirección.\n\nSi no fuiste tú, cambia tu "
        f"contraseña ahora en {_recover_link()}.\n",
    )


def email_changed(new_email: str) -> tuple[str, str]:
    """To the old address, once the account's e-mail is ``new_email`` (shown masked)."""
    site = get_settings().site_name
    return (
        f"Tu correo de {site} cambió",
        f"Hola:\n\nEl correo de tu cuenta en {site} ahora es {mask_email(new_email)}; desde hoy "
        "ingresas con esa dirección.\n\nSi no fuiste tú, escríbenos desde la página de contacto.\n",
    )


def second_factor_reset() -> tuple[str, str]:
    """To a staff member whose second factor was reset (by an administrator or a recovery code)."""
    settings = get_settings()
    site = settings.site_name
    return (
        f"Se restableció tu segundo factor en {site}",
        f"Hola:\n\nSe restableció el segundo factor de tu cuenta del equipo de {site} y cerramos tus sesiones. "
        "La próxima vez que ingreses, configúralo de nuevo con tu app de autenticación.\n\n"
        f"Si no lo pediste, escríbele a un administrador del sitio de inmediato.\n\n{settings.site_url}/login\n",
    )


# --- my data ------------------------------------------------------------------------------------------


def data_export_ready(link: str, valid_until: str, valid_for: timedelta) -> tuple[str, str]:
    """The download link of a data export, valid for ``valid_for``, until the day ``valid_until`` (already written
    for a person)."""
    site = get_settings().site_name
    return (
        f"Tus datos de {site} están listos",
        f"Hola:\n\nPreparamos el archivo con los datos de tu cuenta en {site}. Descárgalo aquí, "
        f"con la sesión de tu cuenta iniciada:\n\n{link}\n\nEl enlace vale hasta el {valid_until} "
        f"({hours_text(valid_for)}); después eliminamos el archivo. Si no pediste tus datos, cambia tu contraseña.\n\n"
        f"Equipo de {site}",
    )


def account_deleted() -> tuple[str, str]:
    """The last e-mail, once the account was deleted as its owner asked."""
    site = get_settings().site_name
    return (
        f"Eliminamos tu cuenta de {site}",
        f"Hola:\n\nEliminamos tu cuenta de {site} como pediste: tus datos, publicaciones y fotos "
        "ya no están en el sitio. Si quieres volver, puedes crear una cuenta nueva con este correo cuando quieras.\n\n"
        "Si no fuiste tú, escríbenos desde la página de contacto.\n\n"
        f"Equipo de {site}",
    )


# --- staff --------------------------------------------------------------------------------------------


def urgent_report(
    *, name: str, kind: str, received: str, listing: str, listing_path: str, desk_path: str
) -> tuple[str, str]:
    """To administrator ``name``: a report of ``kind`` arrived at ``received`` about ``listing`` (its public
    name; empty when the report names none) at ``listing_path``; the reports desk is at ``desk_path``."""
    site = get_settings().site_url.rstrip("/")
    about = f"{listing}: {site}{listing_path}" if listing_path else "no indica una publicación"
    return (
        f"Reporte urgente: {kind}",
        f"Hola, {name}:\n\n"
        "Llegó un reporte que necesita atención pronto.\n\n"
        f"Tipo: {kind}\n"
        f"Recibido: {received}\n"
        f"Publicación: {about}\n\n"
        f"Revísalo en {site}{desk_path} (ingresa con tu cuenta de administrador).\n"
        "El mensaje y el contacto de quien reportó están solo en ese panel.\n",
    )
