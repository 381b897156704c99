"""Date formatting with dayjs-like tokens and Spanish (es_CL) names, and lenient date parsing.

Tokens for ``format_date`` (SPEC section 9):

====== ==========================================================
dddd   full weekday name ("viernes")
ddd    3-letter weekday ("vie"; Babel abbreviation, dot removed)
DD/D   day of month, zero-padded / plain
MMMM   full month name ("enero")
MMM    3-letter month ("ene"; Babel abbreviation, dot removed,
       cut to 3 letters, so September is "sep" not "sept")
MM/M   month number, zero-padded / plain
YYYY   4-digit year; YY: last 2 digits
HH     hours 00-23
mm     minutes 00-59
ss     seconds 00-59
A      "AM" before noon, "PM" from noon on
====== ==========================================================

Any other text is kept as is; text inside square brackets is always literal
("[de]" -> "de"), like dayjs. Names come from Babel's locale data, not a table.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, time, timedelta, timezone
from functools import lru_cache

from babel.dates import get_day_names, get_month_names
from babel.units import format_unit

INVALID_DATE = "Invalid Date"
LOCALE = "es_CL"

_TOKEN = re.compile(r"\[([^\]]*)\]|dddd|ddd|DD|D|MMMM|MMM|MM|M|YYYY|YY|HH|mm|ss|A")


def _short(name: str) -> str:
    """Turn a Babel abbreviation into a 3-letter name: drop the trailing dot, keep 3 chars."""
    return name.rstrip(".")[:3]


@lru_cache(maxsize=1)
def _names() -> dict[str, dict[int, str]]:
    """Load Spanish month names (1-12) and weekday names (0=Monday) from Babel."""
    return {
        "month_wide": dict(get_month_names("wide", locale=LOCALE)),
        "month_short": {k: _short(v) for k, v in get_month_names("abbreviated", locale=LOCALE).items()},
        "day_wide": dict(get_day_names("wide", locale=LOCALE)),
        "day_short": {k: _short(v) for k, v in get_day_names("abbreviated", locale=LOCALE).items()},
    }


def month_name(month: int, short: bool = False) -> str:
    """Spanish month name for 1-12, full ("enero") or 3 letters ("ene")."""
    return _names()["month_short" if short else "month_wide"][month]


def weekday_name(weekday: int, short: bool = False) -> str:
    """Spanish weekday name for 0=Monday..6=Sunday, full ("lunes") or 3 letters ("lun")."""
    return _names()["day_short" if short else "day_wide"][weekday]


def _render(token: re.Match[str], moment: datetime) -> str:
    """Render one matched token (or bracketed literal) for ``moment``."""
    if token.group(1) is not None:
        return token.group(1)
    tok = token.group(0)
    if tok == "dddd":
        return weekday_name(moment.weekday())
    if tok == "ddd":
        return weekday_name(moment.weekday(), short=True)
    if tok == "DD":
        return f"{moment.day:02d}"
    if tok == "D":
        return str(moment.day)
    if tok == "MMMM":
        return month_name(moment.month)
    if tok == "MMM":
        return month_name(moment.month, short=True)
    if tok == "MM":
        return f"{moment.month:02d}"
    if tok == "M":
        return str(moment.month)
    if tok == "YYYY":
        return f"{moment.year:04d}"
    if tok == "YY":
        return f"{moment.year % 100:02d}"
    if tok == "HH":
        return f"{moment.hour:02d}"
    if tok == "mm":
        return f"{moment.minute:02d}"
    if tok == "ss":
        return f"{moment.second:02d}"
    return "AM" if moment.hour < 12 else "PM"  # tok == "A"


# A day in a field where a person types one: day first, as Chileans write it ("12-04-1996").
# ``parse_date`` reads it back, and year first ("1996/04/12") as well.
TYPED_DAY_PATTERN = "DD-MM-YYYY"
TYPED_DAY_MASK = "dd-mm-aaaa"
CALENDAR_DAY_CHARS = len("1996-04-12")  # a day as a date picker sends it


def hours_text(span: timedelta) -> str:
    """A whole number of hours as a person reads it: "1 hora", "24 horas"."""
    return str(format_unit(int(span.total_seconds() // 3600), "duration-hour", length="long", locale=LOCALE))


def typed_day(value: object) -> str:
    """A date (or a text ``parse_date`` reads, such as a calendar's "1996-04-12") as "12-04-1996"; "" if unreadable."""
    text = format_date(value, TYPED_DAY_PATTERN)
    return "" if text == INVALID_DATE else text


def format_date(value: object, pattern: str) -> str:
    """Format a datetime, date or parseable string with the tokens above.

    A ``date`` is treated as midnight; an aware datetime is formatted in its own
    wall-clock time (no conversion). A string is read with ``parse_date``. Anything
    that is not a valid date gives "Invalid Date". Raises TypeError if ``pattern``
    is not a string.
    """
    if not isinstance(pattern, str):
        raise TypeError(f"pattern must be a str, got {type(pattern).__name__}")
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime.combine(value, time())
    elif isinstance(value, str):
        parsed = parse_date(value)
        if parsed is None:
            return INVALID_DATE
        moment = parsed
    else:
        return INVALID_DATE
    return _TOKEN.sub(lambda m: _render(m, moment), pattern)


_TIME = r"(?: (?P<H>[0-9]{1,2}):(?P<m>[0-9]{2})(?::(?P<s>[0-9]{2}))?)?"
_DMY = re.compile(r"(?P<d>[0-9]{1,2})(?P<sep>[-/.])(?P<M>[0-9]{1,2})(?P=sep)(?P<Y>[0-9]{4})" + _TIME)
_YMD = re.compile(r"(?P<Y>[0-9]{4})(?P<sep>[-/.])(?P<M>[0-9]{1,2})(?P=sep)(?P<d>[0-9]{1,2})" + _TIME)
_ISO = re.compile(
    r"(?P<Y>[0-9]{4})-(?P<M>[0-9]{2})-(?P<d>[0-9]{2})"
    r"T(?P<H>[0-9]{2}):(?P<m>[0-9]{2})(?::(?P<s>[0-9]{2})(?:[.,](?P<f>[0-9]{1,9}))?)?"
    r"(?P<tz>[Zz]|(?P<tzsign>[+-])(?P<tzh>[0-9]{2})(?::?(?P<tzm>[0-9]{2}))?)?"
)


def _build(match: re.Match[str]) -> datetime:
    """Build a datetime from named groups; raises ValueError/OverflowError if impossible."""
    g = match.groupdict()
    fraction = (g.get("f") or "").ljust(6, "0")[:6]
    moment = datetime(
        int(g["Y"]),
        int(g["M"]),
        int(g["d"]),
        int(g["H"] or 0),
        int(g["m"] or 0),
        int(g["s"] or 0),
        int(fraction or 0),
    )
    if g.get("tz"):
        if g["tz"] in ("Z", "z"):
            offset = timedelta(0)
        else:
            hours, minutes = int(g["tzh"]), int(g["tzm"] or 0)
            if hours > 23 or minutes > 59:
                raise ValueError("bad UTC offset")
            offset = timedelta(hours=hours, minutes=minutes)
            if g["tzsign"] == "-":
                offset = -offset
        moment = moment.replace(tzinfo=timezone(offset)).astimezone(UTC).replace(tzinfo=None)
    return moment


def parse_date(text: object) -> datetime | None:
    """Parse a date string into a naive datetime, or None if invalid.

    Accepted (surrounding whitespace ignored):

    * ISO timestamps "YYYY-MM-DDTHH:mm[:ss[.fraction]][Z|+HH:MM|+HHMM|+HH]";
      with "Z" or an offset the result is converted to UTC and returned naive,
      without one the wall-clock time is returned as is.
    * "DD-MM-YYYY", "DD/MM/YYYY", "DD.MM.YYYY", "YYYY-MM-DD", "YYYY/MM/DD",
      "YYYY.MM.DD" (day and month may have 1 or 2 digits, one separator kind
      per date), each optionally followed by
      a space and "HH:mm" or "HH:mm:ss"; the time defaults to 00:00:00.

    Impossible dates or times (31-02-2024, 24:00) and any other text give None,
    as does non-str input.
    """
    if not isinstance(text, str):
        return None
    candidate = text.strip()
    for regex in (_ISO, _YMD, _DMY):
        match = regex.fullmatch(candidate)
        if match is not None:
            try:
                return _build(match)
            except (ValueError, OverflowError):
                return None
    return None


def date_parts(text: object) -> tuple[int, int, int] | None:
    """(year, month, day) as written in a day/month/year or year/month/day text, even an impossible one.

    None when the text has neither shape. Lets a form say what it could not read (month 13, April 31).
    """
    if not isinstance(text, str):
        return None
    for regex in (_YMD, _DMY):
        match = regex.fullmatch(text.strip())
        if match is not None:
            return int(match["Y"]), int(match["M"]), int(match["d"])
    return None
