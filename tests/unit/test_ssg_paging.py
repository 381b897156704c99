"""The no-JavaScript pages' rules as pure functions: which ``pagina`` values
name a page, which redirect, which do not exist; where the age form may return."""

from __future__ import annotations

import pytest

from app.routes import SsgPage, resolve_ssg_page, safe_age_next, ssg_page_url

CITY = "/escorts-ssg/temuco"


@pytest.mark.parametrize(("value", "page"), [("2", 2), ("10", 10), ("9999", 9999)])
def test_canonical_page_numbers_are_shown(value, page):
    assert resolve_ssg_page(CITY, [value]) == SsgPage(page=page)


def test_no_pagina_is_the_first_page():
    assert resolve_ssg_page(CITY, []) == SsgPage(page=1)


@pytest.mark.parametrize(
    ("value", "target"),
    [("1", CITY), ("01", CITY), ("0001", CITY), ("02", f"{CITY}?pagina=2"), ("0120", f"{CITY}?pagina=120")],
)
def test_other_spellings_of_a_page_redirect_to_its_canonical_url(value, target):
    assert resolve_ssg_page(CITY, [value]) == SsgPage(redirect_to=target)


@pytest.mark.parametrize(
    "value",
    ["", " ", "abc", "2a", "+1", "-1", "1.0", "1e3", " 2", "2 ", "٣", "²", "２", "0", "00", "0000", "10000", "99999"],
)
def test_anything_else_does_not_exist(value):
    assert resolve_ssg_page(CITY, [value]) == SsgPage()


def test_pagina_given_twice_does_not_exist():
    assert resolve_ssg_page(CITY, ["2", "3"]) == SsgPage()


def test_canonical_urls_leave_out_the_first_page():
    assert ssg_page_url(CITY, 1) == CITY
    assert ssg_page_url(CITY, 3) == f"{CITY}?pagina=3"


@pytest.mark.parametrize(
    "target",
    [
        "/escorts-ssg",
        "/escorts-ssg/temuco",
        "/escorts-ssg/temuco?pagina=12",
        "/escorts-ssg/santiago-de-chile/providencia",
        "/escorts-ssg/santiago-de-chile/providencia?pagina=2",
        "/escorts",
        "/escorts/trans",
        "/escorts/temuco",
        "/escorts/temuco/verificadas",
        "/escorts/trans/temuco/lo-nuevo",
        "/escorts/temuco/catalina/abc123",
        "/escorts/santiago-de-chile?comuna=providencia&precio_max=80000&servicio=viajes",
        "/escorts/temuco/vip?edad_min=25",
    ],
)
def test_the_age_form_returns_to_ssg_and_directory_pages(target):
    assert safe_age_next(target) == target


@pytest.mark.parametrize(
    "target",
    [
        "//evil.example",
        "/escorts-ssg.evil.com",
        "/escorts-ssg@evil.com",
        "https://evil.example/escorts-ssg",
        "/\\evil.example",
        "/escorts-ssg/../login",
        "/escorts-ssg//evil.example",
        "/escorts-ssg/santiago-de-chile/providencia/mas",
        "/escorts-ssg/temuco?pagina=0",
        "/escorts-ssg/temuco?next=//evil.example",
        "/escorts-ssg/temuco\r\nSet-Cookie: x=1",
        "/escorts/atlantida",
        "/escorts/temuco/no-es-seccion/otra/mas",
        "/escorts/../login",
        "/escorts//evil.example",
        "/escorts/temuco?next=//evil.example",
        "/escorts/temuco?comuna=//evil.example",
        "/escorts/temuco?comuna=a&next=/login",
        "/escorts/temuco?",
        "/escorts/atlantida?comuna=a",
        "/escorts/temuco\r\nSet-Cookie: x=1",
        "/login",
        "/admin",
        "/my",
        "",
    ],
)
def test_the_age_form_never_leaves_the_public_pages(target):
    assert safe_age_next(target) == "/escorts-ssg"
