"""The Jinja2 environment of the server-rendered HTML: the preview documents and the /escorts-ssg pages.

Autoescape is on for every template: a value is escaped (MarkupSafe) unless it is
already :class:`markupsafe.Markup`, so user-written text is never emitted as HTML.

Templates are written one element per line for reading, and served as one line:
a line break and the indentation after it are dropped when a template is loaded
(:class:`JoinLines`), so the documents keep the compact bytes the tests and the
browser's layout expect. A space that must stand at a line's end is written
before the break as ``{{ " " }}``, and a Jinja tag never spans two lines.
"""

from __future__ import annotations

import re

from jinja2 import Environment, PackageLoader, StrictUndefined
from jinja2.ext import Extension

from app import routes
from app.components.age_gate import AGE_ACCEPT, AGE_LEAVE_URL, AGE_TEXT, AGE_TITLE
from app.components.cards import CARD_SIZES, FLAG_BADGES, PRICE_UNIT
from app.components.carousel import SLIDE_SIZES
from app.components.favourites import HEART_ATTRIBUTE, HEART_CLASS, HEART_LABEL, HEART_NAME_ATTRIBUTE
from app.components.layout import ACCESS_CHECK
from app.core.photo_urls import photo_srcset
from app.settings import get_settings

_LINE_BREAK = re.compile(r"\n[ \t]*")


class JoinLines(Extension):
    """Drops every line break of a template's source with the indentation that follows it."""

    def preprocess(self, source: str, name: str | None, filename: str | None = None) -> str:
        """The template's source as one line."""
        return _LINE_BREAK.sub("", source)


ENVIRONMENT = Environment(
    loader=PackageLoader("app.web", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    extensions=[JoinLines],
    auto_reload=False,
)
ENVIRONMENT.filters["srcset"] = photo_srcset
ENVIRONMENT.globals.update(
    routes=routes,
    site_name=get_settings().site_name,
    age_title=AGE_TITLE,
    age_text=AGE_TEXT,
    age_accept=AGE_ACCEPT,
    age_leave_url=AGE_LEAVE_URL,
    access_check=ACCESS_CHECK,
    card_sizes=CARD_SIZES,
    slide_sizes=SLIDE_SIZES,
    flag_badges=FLAG_BADGES,
    price_unit=PRICE_UNIT,
    heart_label=HEART_LABEL,
    heart_class=HEART_CLASS,
    heart_attribute=HEART_ATTRIBUTE,
    heart_name_attribute=HEART_NAME_ATTRIBUTE,
)


def render(template: str, **context: object) -> str:
    """The HTML of ``template`` (a path under app/web/templates) with ``context``."""
    return ENVIRONMENT.get_template(template).render(**context)
