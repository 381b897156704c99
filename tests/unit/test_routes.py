"""Every public path and redirect rule of SPEC §2, as pure functions."""

from __future__ import annotations

import re

import pytest

from app.routes import (
    PUBLIC_ROUTES,
    city_path,
    is_pretty_detail_path,
    login_path,
    resolve_public_path,
    resolve_ssg_city,
    safe_return_path,
)

UID = "AbCdEfGhIjKlMnOpQrSt"


def _redirect(path: str) -> str:
    view = resolve_public_path(path)
    assert view.kind == "redirect", (path, view)
    return view.redirect_to


@pytest.mark.parametrize(
    ("path", "target"),
    [
        ("/", "/escorts"),
        ("/santiago", "/escorts/santiago-de-chile"),
        ("/temuco", "/escorts/temuco"),
        ("/no-existe", "/escorts"),
        ("/login-viejo/otra/cosa", "/escorts"),
        ("/escorts/santiago", "/escorts/santiago-de-chile"),
        ("/escorts/santiago/vip", "/escorts/santiago-de-chile/vip"),
        ("/escorts/santiago/all", "/escorts/santiago-de-chile/all"),
        ("/escorts/atlantida", "/escorts"),
        ("/escorts/atlantida/vip", "/escorts"),
        ("/escorts/temuco/no-es-seccion", "/escorts/temuco"),
        ("/escorts/temuco/todas", "/escorts/temuco"),
        ("/escorts/temuco/a/b/c", "/escorts/temuco"),
        ("/escorts/trans/atlantida", "/escorts/trans"),
        ("/escorts/trans/santiago", "/escorts/trans/santiago-de-chile"),
        ("/escorts/trans/santiago/vip", "/escorts/trans/santiago-de-chile/vip"),
        ("/escorts/trans/temuco/sincodigo", "/escorts/trans/temuco"),
        ("/escorts/inicio/generated", "/escorts"),
        ("/escorts/trans/inicio/generated/temuco", "/escorts/trans"),
    ],
)
def test_redirects(path, target):
    assert _redirect(path) == target


def test_homes():
    assert resolve_public_path("/escorts").kind == "home"
    trans = resolve_public_path("/escorts/trans/")
    assert (trans.kind, trans.section) == ("home", "trans")


def test_city_section_and_all_pages():
    city = resolve_public_path("/escorts/vina-del-mar")
    assert (city.kind, city.section, city.city_slug, city.tab_slug) == ("city", "mujeres", "vina-del-mar", "todas")
    tab = resolve_public_path("/escorts/vina-del-mar/lo-nuevo")
    assert (tab.kind, tab.tab_slug) == ("city", "lo-nuevo")
    all_ = resolve_public_path("/escorts/trans/temuco/all")
    assert (all_.kind, all_.section, all_.city_slug) == ("all", "trans", "temuco")
    trans_tab = resolve_public_path("/escorts/trans/temuco/disponible-ahora?x=1")
    assert (trans_tab.kind, trans_tab.section, trans_tab.tab_slug) == ("city", "trans", "disponible-ahora")


@pytest.mark.parametrize(
    ("path", "section"),
    [
        (f"/escorts/temuco/valentina/{UID}", "mujeres"),
        (f"/escort/{UID}", "mujeres"),
        (f"/escorts/inicio/generated/temuco/{UID}", "mujeres"),
        (f"/escorts/trans/temuco/maria-jose-{UID}", "trans"),
        (f"/escorts/trans/inicio/generated/temuco/{UID}", "trans"),
    ],
)
def test_every_detail_url_shape(path, section):
    view = resolve_public_path(path)
    assert (view.kind, view.uid, view.section) == ("detail", UID, section)


def test_ssg_city_rules():
    assert resolve_ssg_city("temuco") == ("temuco", None)
    assert resolve_ssg_city("santiago") == (None, "/escorts-ssg/santiago-de-chile")
    assert resolve_ssg_city("atlantida") == (None, "/escorts-ssg")


def test_city_path():
    assert city_path("mujeres", "temuco") == "/escorts/temuco"
    assert city_path("trans", "temuco", "vip") == "/escorts/trans/temuco/vip"


def test_route_table_covers_every_public_shape():
    assert {"/escorts", "/escort/[uid]", "/escorts/trans/[city]/[slug]"} <= set(PUBLIC_ROUTES)


def test_no_app_page_takes_any_one_segment_path():
    """The old /{city} is the server's (301 or 404): a Reflex page there served 200 for /favicon.ico, /_event…"""
    assert not any(re.fullmatch(r"/\[[a-z_]+\]", route) for route in PUBLIC_ROUTES)


def test_pretty_detail_paths_are_the_ones_with_city_and_name():
    assert is_pretty_detail_path(f"/escorts/temuco/valentina/{UID}")
    assert is_pretty_detail_path(f"/escorts/trans/temuco/maria-{UID}")
    assert not is_pretty_detail_path(f"/escort/{UID}")
    assert not is_pretty_detail_path(f"/escorts/inicio/generated/temuco/{UID}")
    assert not is_pretty_detail_path("/escorts/temuco")


@pytest.mark.parametrize(
    "target",
    ["/mi-cuenta/datos/Ab3_x-9Zq", "/my/publicacion/misPublicaciones", "/mi-cuenta"],
)
def test_login_returns_to_a_path_of_this_site(target):
    assert safe_return_path(target) == target
    assert login_path(target) == f"/login?volver={target}"


@pytest.mark.parametrize(
    "target",
    [
        "",
        "//evil.example",
        "//evil.example/mi-cuenta",
        "https://evil.example/x",
        "/\\evil.example",
        "/mi-cuenta/../admin",
        "/mi-cuenta?x=1",
        "/mi-cuenta#x",
        "mi-cuenta",
        "/mi-cuenta/",
        "/" + "a" * 300,
    ],
)
def test_login_refuses_to_return_anywhere_else(target):
    assert safe_return_path(target) == ""
    assert login_path(target) == "/login"
