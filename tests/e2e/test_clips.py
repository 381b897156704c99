"""A visitor plays a listing's clip on its detail page on a phone (390 px wide), and the served MP4 answers a
range request with 206, as a phone's player asks it. The clip was made by the worker's own service (conftest)."""

from __future__ import annotations

import httpx
import pytest
from playwright.sync_api import Browser, expect

from app.states.public import AGE_COOKIE
from tests.e2e.conftest import CITY, Site

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}


def test_a_visitor_plays_the_clip_on_a_phone_and_the_mp4_answers_ranges(browser: Browser, site: Site):
    context = browser.new_context(base_url=site.url, locale="es-CL", viewport=PHONE)
    context.add_cookies([{"name": AGE_COOKIE, "value": "1", "url": site.url}])
    try:
        page = context.new_page()
        page.goto(f"/escorts/{CITY}/luciana/{site.uids['video']}")
        page.locator("#vista-previa").wait_for(state="detached")  # the app has taken over
        video = page.get_by_label("Video de Luciana (1 de 1)")
        expect(video).to_be_visible()
        # Nothing loads before a tap, nothing plays on its own, the frame's ratio is known beforehand.
        assert video.get_attribute("preload") == "none"
        assert video.get_attribute("autoplay") is None
        assert (video.get_attribute("width"), video.get_attribute("height")) == ("640", "360")
        box = video.bounding_box()
        assert box is not None and box["width"] > 300 and abs(box["height"] - box["width"] * 360 / 640) < 2
        assert video.evaluate("v => v.paused && v.currentTime === 0 && v.readyState === 0")
        video.focus()
        page.keyboard.press("Space")  # the browser's own controls: the keyboard plays it
        page.wait_for_function("v => v.currentTime > 0", arg=video.element_handle())
        src = video.get_attribute("src")
    finally:
        context.close()
    assert src and src.startswith("/media/videos/")
    whole = httpx.get(site.url + src, timeout=20)
    assert whole.status_code == 200 and whole.headers["content-type"] == "video/mp4"
    part = httpx.get(site.url + src, headers={"Range": "bytes=100-199"}, timeout=20)
    assert part.status_code == 206
    assert part.headers["content-range"] == f"bytes 100-199/{len(whole.content)}"
    assert part.content == whole.content[100:200]
