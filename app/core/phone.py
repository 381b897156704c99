"""Chilean mobile numbers: checked and written one way, through Google's libphonenumber.

A listing's phone and WhatsApp must be Chilean mobiles (+56 9 XXXX XXXX). People
type them many ways ("912345678", "+56 9 1234 5678", "56-9-1234-5678"); each is
stored in the one international form the detail page links from.
"""

from __future__ import annotations

import re

import phonenumbers
from phonenumbers import NumberParseException

REGION = "CL"
MAX_INPUT_LENGTH = 30
# Every Chilean mobile is 9 followed by eight digits. libphonenumber's own type check cannot tell
# them from landlines here (both come back FIXED_LINE_OR_MOBILE), and its assigned ranges lag behind.
_MOBILE = re.compile(r"9\d{8}")


def normalize_chilean_mobile(text: object) -> str | None:
    """``"+56 9 1234 5678"`` for a valid Chilean mobile number, else None."""
    if not isinstance(text, str) or not text.strip() or len(text) > MAX_INPUT_LENGTH:
        return None
    try:
        number = phonenumbers.parse(text, REGION)
    except NumberParseException:
        return None
    if number.country_code != 56 or not _MOBILE.fullmatch(str(number.national_number)):
        return None
    digits = str(number.national_number)
    return f"+56 {digits[0]} {digits[1:5]} {digits[5:]}"
