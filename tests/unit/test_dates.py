"""Unit tests for app.core.dates (SPEC section 9 tokens and parser, section 8 Invalid Date)."""

from datetime import date, datetime, timedelta, timezone

import pytest
from babel.dates import get_day_names, get_month_names

from app.core.dates import date_parts, format_date, month_name, parse_date, typed_day, weekday_name

MOMENT = datetime(2024, 1, 5, 9, 7, 3)  # a Friday
AFTERNOON = datetime(2023, 11, 26, 17, 45, 59)  # a Sunday


class TestBabelNames:
    def test_full_month_names(self):
        assert [month_name(m) for m in range(1, 13)] == [
            "enero",
            "febrero",
            "marzo",
            "abril",
            "mayo",
            "junio",
            "julio",
            "agosto",
            "septiembre",
            "octubre",
            "noviembre",
            "diciembre",
        ]

    def test_short_month_names_are_three_letters_without_dot(self):
        shorts = [month_name(m, short=True) for m in range(1, 13)]
        assert shorts == ["ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic"]
        assert all(len(s) == 3 and "." not in s for s in shorts)

    def test_short_month_names_derive_from_babel_abbreviations(self):
        babel_abbr = get_month_names("abbreviated", locale="es_CL")
        for m in range(1, 13):
            assert month_name(m, short=True) == babel_abbr[m].rstrip(".")[:3]
        # Babel's stand-alone abbreviations carry a dot; ours never do.
        assert get_month_names("abbreviated", context="stand-alone", locale="es_CL")[1] == "ene."

    def test_weekday_names(self):
        assert [weekday_name(d) for d in range(7)] == [
            "lunes",
            "martes",
            "miércoles",
            "jueves",
            "viernes",
            "sábado",
            "domingo",
        ]
        assert [weekday_name(d, short=True) for d in range(7)] == ["lun", "mar", "mié", "jue", "vie", "sáb", "dom"]

    def test_weekday_names_come_from_babel(self):
        wide = get_day_names("wide", locale="es_CL")
        assert all(weekday_name(d) == wide[d] for d in range(7))


class TestFormatTokens:
    @pytest.mark.parametrize(
        "pattern, expected",
        [
            ("dddd", "viernes"),
            ("ddd", "vie"),
            ("DD", "05"),
            ("D", "5"),
            ("MMMM", "enero"),
            ("MMM", "ene"),
            ("MM", "01"),
            ("M", "1"),
            ("YYYY", "2024"),
            ("YY", "24"),
            ("HH", "09"),
            ("mm", "07"),
            ("ss", "03"),
            ("A", "AM"),
        ],
    )
    def test_each_token(self, pattern, expected):
        assert format_date(MOMENT, pattern) == expected

    def test_tokens_on_other_date(self):
        assert format_date(AFTERNOON, "dddd ddd DD D MMMM MMM MM M YYYY YY HH mm ss A") == (
            "domingo dom 26 26 noviembre nov 11 11 2023 23 17 45 59 PM"
        )

    def test_spanish_long_date_with_escaped_literals(self):
        assert format_date(datetime(2024, 1, 5), "dddd D [de] MMMM [de] YYYY") == "viernes 5 de enero de 2024"

    def test_september_three_letters(self):
        assert format_date(datetime(2024, 9, 3), "ddd D MMM") == "mar 3 sep"

    def test_accented_names(self):
        assert format_date(datetime(2024, 1, 3), "dddd") == "miércoles"
        assert format_date(datetime(2024, 1, 6), "dddd ddd") == "sábado sáb"

    def test_common_patterns(self):
        assert format_date(AFTERNOON, "YYYY-MM-DD HH:mm:ss") == "2023-11-26 17:45:59"
        assert format_date(MOMENT, "DD/MM/YYYY") == "05/01/2024"
        assert format_date(MOMENT, "D-M-YY") == "5-1-24"

    def test_am_pm_boundaries(self):
        assert format_date(datetime(2024, 1, 1, 0, 0), "HH A") == "00 AM"
        assert format_date(datetime(2024, 1, 1, 11, 59), "HH A") == "11 AM"
        assert format_date(datetime(2024, 1, 1, 12, 0), "HH A") == "12 PM"
        assert format_date(datetime(2024, 1, 1, 23, 0), "HH A") == "23 PM"

    def test_two_digit_year_pads(self):
        assert format_date(datetime(2005, 1, 1), "YY") == "05"
        assert format_date(datetime(2000, 1, 1), "YY") == "00"

    def test_year_pads_to_four(self):
        assert format_date(datetime(987, 1, 1), "YYYY") == "0987"

    def test_non_token_text_kept(self):
        assert format_date(MOMENT, "Hoy es: D!") == "Hoy es: 5!"
        assert format_date(MOMENT, "") == ""
        assert format_date(MOMENT, "x/y, z") == "x/y, z"

    def test_brackets_escape_tokens(self):
        assert format_date(MOMENT, "[YYYY MM DD A] YYYY") == "YYYY MM DD A 2024"
        assert format_date(MOMENT, "[]D") == "5"

    def test_unescaped_token_letters_in_words_are_replaced(self):
        # Like dayjs: letters that form tokens must be bracketed to stay literal.
        assert format_date(MOMENT, "A las HH") == "AM las 09"
        assert format_date(MOMENT, "[A las] HH") == "A las 09"

    def test_longest_token_wins(self):
        assert format_date(MOMENT, "MMMMM") == "enero1"
        assert format_date(MOMENT, "YYY") == "24Y"


class TestFormatInputs:
    def test_date_is_midnight(self):
        assert format_date(date(2024, 2, 29), "YYYY-MM-DD HH:mm:ss A") == "2024-02-29 00:00:00 AM"

    def test_string_is_parsed(self):
        assert format_date("05-01-2024", "dddd D [de] MMMM") == "viernes 5 de enero"
        assert format_date("2024-01-05T12:30:00Z", "HH:mm A") == "12:30 PM"

    def test_aware_datetime_keeps_wall_clock(self):
        aware = datetime(2024, 1, 5, 22, 0, tzinfo=timezone(timedelta(hours=-3)))
        assert format_date(aware, "DD HH") == "05 22"

    @pytest.mark.parametrize(
        "value", [None, "", "not a date", "31-02-2024", "2024-13-01", 1704412800, 3.5, True, [2024, 1, 5]]
    )
    def test_invalid_gives_invalid_date(self, value):
        assert format_date(value, "YYYY-MM-DD") == "Invalid Date"

    def test_non_str_pattern_raises(self):
        with pytest.raises(TypeError):
            format_date(MOMENT, None)


class TestParseDate:
    @pytest.mark.parametrize(
        "text, expected",
        [
            ("2024-01-05T10:20:30", datetime(2024, 1, 5, 10, 20, 30)),
            ("2024-01-05T10:20", datetime(2024, 1, 5, 10, 20)),
            ("2024-01-05T10:20:30.5", datetime(2024, 1, 5, 10, 20, 30, 500000)),
            ("2024-01-05T10:20:30.123", datetime(2024, 1, 5, 10, 20, 30, 123000)),
            ("2024-01-05T10:20:30.123456789", datetime(2024, 1, 5, 10, 20, 30, 123456)),
            ("2024-01-05T10:20:30Z", datetime(2024, 1, 5, 10, 20, 30)),
            ("2024-01-05T10:20:30.000Z", datetime(2024, 1, 5, 10, 20, 30)),
            ("2024-01-05T10:20:30z", datetime(2024, 1, 5, 10, 20, 30)),
        ],
    )
    def test_iso(self, text, expected):
        assert parse_date(text) == expected

    @pytest.mark.parametrize(
        "text, expected",
        [
            ("2024-01-05T10:20:30-03:00", datetime(2024, 1, 5, 13, 20, 30)),
            ("2024-01-05T10:20:30+02:00", datetime(2024, 1, 5, 8, 20, 30)),
            ("2024-01-05T10:20:30+0530", datetime(2024, 1, 5, 4, 50, 30)),
            ("2024-01-05T10:20:30-04", datetime(2024, 1, 5, 14, 20, 30)),
            ("2024-01-05T22:00:00-03:00", datetime(2024, 1, 6, 1, 0, 0)),  # crosses midnight
            ("2024-01-01T01:00:00+02:00", datetime(2023, 12, 31, 23, 0, 0)),  # crosses year
        ],
    )
    def test_iso_offset_converted_to_naive_utc(self, text, expected):
        result = parse_date(text)
        assert result == expected
        assert result.tzinfo is None

    @pytest.mark.parametrize(
        "text",
        [
            "05-01-2024",
            "05/01/2024",
            "05.01.2024",
            "2024-01-05",
            "2024/01/05",
            "2024.01.05",
            "5-1-2024",
            "5/1/2024",
            "2024-1-5",
            "  05-01-2024  ",
        ],
    )
    def test_date_only_shapes_default_to_midnight(self, text):
        result = parse_date(text)
        assert result == datetime(2024, 1, 5, 0, 0, 0)
        assert (result.hour, result.minute, result.second, result.microsecond) == (0, 0, 0, 0)

    @pytest.mark.parametrize(
        "text, expected",
        [
            ("05-01-2024 13:45", datetime(2024, 1, 5, 13, 45)),
            ("05/01/2024 13:45:09", datetime(2024, 1, 5, 13, 45, 9)),
            ("2024-01-05 13:45", datetime(2024, 1, 5, 13, 45)),
            ("2024/01/05 23:59:59", datetime(2024, 1, 5, 23, 59, 59)),
            ("2024-01-05 00:00:00", datetime(2024, 1, 5)),
            ("2024-01-05 7:05", datetime(2024, 1, 5, 7, 5)),
        ],
    )
    def test_shapes_with_time(self, text, expected):
        assert parse_date(text) == expected

    def test_leap_day(self):
        assert parse_date("29-02-2024") == datetime(2024, 2, 29)
        assert parse_date("29-02-2023") is None

    @pytest.mark.parametrize(
        "text",
        [
            "31-02-2024",
            "2024-02-30",
            "31/04/2024",
            "00-01-2024",
            "05-13-2024",
            "2024-00-10",
            "05-01-2024 24:00",
            "05-01-2024 12:60",
            "05-01-2024 12:30:60",
            "2024-01-05T25:00:00",
            "2024-01-05T10:00:00+24:00",
            "0001-01-01T00:00:00+01:00",  # out of range after UTC conversion
            "05-01/2024",  # mixed separators
            "2024/01-05",
            "05.01-2024",
            "05-01-24",
            "20240105",
            "2024-01-05T",
            "2024-01-05 10",
            "2024-01-05  10:00",
            "2024-01-05 10:00 PM",
            "2024-01-05Tfoo",
            "ayer",
            "",
            "   ",
        ],
    )
    def test_invalid_gives_none(self, text):
        assert parse_date(text) is None

    @pytest.mark.parametrize("value", [None, 20240105, datetime(2024, 1, 5), date(2024, 1, 5), b"2024-01-05"])
    def test_non_str_gives_none(self, value):
        assert parse_date(value) is None

    def test_round_trip_with_format(self):
        moment = datetime(2023, 11, 26, 17, 45, 59)
        assert parse_date(format_date(moment, "YYYY-MM-DD HH:mm:ss")) == moment
        assert parse_date(format_date(moment, "DD/MM/YYYY HH:mm:ss")) == moment


class TestDateParts:
    @pytest.mark.parametrize(
        "text, expected",
        [
            ("12-04-1996", (1996, 4, 12)),
            ("12/04/1996", (1996, 4, 12)),
            ("12.4.1996", (1996, 4, 12)),
            ("1996/04/12", (1996, 4, 12)),
            ("31/04/2024", (2024, 4, 31)),  # impossible, still read as written
            ("05-13-2024", (2024, 13, 5)),
        ],
    )
    def test_what_was_written(self, text, expected):
        assert date_parts(text) == expected

    @pytest.mark.parametrize("text", ["ayer", "12-04-96", "1996", "12/04-1996", "", None, 19960412])
    def test_no_shape_gives_none(self, text):
        assert date_parts(text) is None


class TestTypedDay:
    @pytest.mark.parametrize(
        "value",
        [date(1996, 4, 12), datetime(1996, 4, 12, 23, 59), "1996-04-12", "1996/4/12", "12-04-1996", "12.4.1996"],
    )
    def test_day_first_as_chileans_write_it(self, value):
        assert typed_day(value) == "12-04-1996"

    def test_reads_back_as_the_same_day(self):
        assert parse_date(typed_day(date(2001, 1, 2))) == datetime(2001, 1, 2)

    @pytest.mark.parametrize("value", ["", "ayer", "31-04-2024", None, 19960412])
    def test_unreadable_gives_empty(self, value):
        assert typed_day(value) == ""
