"""Video clips on disk (issue 35): bad uploads refused with a Spanish message, good ones served as an
upright H.264/AAC MP4 of at most 720p with faststart and no metadata, checked with ffprobe and
exiftool (tools this project did not write), and a poster the photo pipeline accepts."""

from __future__ import annotations

import io
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from app.core.errors import InvalidInputError, VideoRejectedError
from app.models.videos import CLIP_MAX_BYTES, CLIP_MAX_FRAME, CLIP_MAX_SECONDS, CLIP_SERVED_HEIGHT
from app.services.photos import store_photo
from app.services.video_processing import ClipInfo, poster_frame, probe_clip, transcode_clip
from app.storage.local import LocalStorage
from tests import video_samples
from tests.video_samples import ffprobe

Maker = Callable[[Path], Path]

REFUSED: list[tuple[str, Maker, str, str]] = [
    ("empty", video_samples.empty, "empty", "El archivo está vacío"),
    ("jpeg renamed .mp4", video_samples.jpeg_renamed, "not_a_video", "no es un video"),
    ("text renamed .mp4", video_samples.text_renamed, "not_a_video", "no es un video"),
    ("truncated, index at the end", lambda d: video_samples.truncated(d, faststart=False), "damaged", "dañado"),
    ("truncated, index first", lambda d: video_samples.truncated(d, faststart=True), "damaged", "incompleto"),
    ("audio only", video_samples.audio_only, "no_video", "solo sonido"),
    ("ProRes MOV", video_samples.prores_mov, "unsupported", "H.264 o HEVC"),
    ("two hours", video_samples.two_hours, "too_long", f"dura más de {CLIP_MAX_SECONDS} segundos"),
    (
        "no duration in the header, too long",
        lambda d: video_samples.streamed_webm(d, 2 * CLIP_MAX_SECONDS),
        "too_long",
        f"dura más de {CLIP_MAX_SECONDS} segundos",
    ),
    ("8K", video_samples.eight_k, "too_many_pixels", f"{CLIP_MAX_FRAME[0]}×{CLIP_MAX_FRAME[1]} (4K)"),
    (
        "over the size limit",
        lambda d: video_samples.oversized(d, CLIP_MAX_BYTES),
        "too_large",
        f"pesa más de {CLIP_MAX_BYTES // (1024 * 1024)} MB",
    ),
]

ACCEPTED: list[tuple[str, Maker, tuple[int, int], bool]] = [
    ("iPhone HEVC MOV, portrait", video_samples.iphone_mov, (360, 640), True),
    ("iPhone HDR HEVC, 10-bit", video_samples.hevc_hdr_mov, (640, 360), False),
    ("H.264 MP4 1080p", video_samples.h264_mp4, (1280, 720), True),
    ("H.264 MP4 without sound", lambda d: video_samples.h264_mp4(d, size="640x360", audio=False), (640, 360), False),
    ("VP8 WebM", lambda d: video_samples.webm(d, codec="libvpx"), (640, 360), True),
    ("VP9 WebM", video_samples.webm, (640, 360), True),
    ("AV1 WebM", lambda d: video_samples.webm(d, codec="libsvtav1"), (640, 360), True),
]


def exiftool(path: Path) -> dict[str, Any]:
    result = subprocess.run(["exiftool", "-j", "-a", "-G1", str(path)], check=True, capture_output=True, text=True)
    return json.loads(result.stdout)[0]  # type: ignore[no-any-return]


def top_level_boxes(path: Path) -> list[str]:
    """The ISO media file's top-level box types, in file order."""
    boxes = []
    with path.open("rb") as file:
        while header := file.read(8):
            size, kind = int.from_bytes(header[:4], "big"), header[4:8].decode("latin-1")
            if size == 1:
                size = int.from_bytes(file.read(8), "big") - 8
            boxes.append(kind)
            file.seek(size - 8, io.SEEK_CUR)
    return boxes


def bright_corner(png: bytes) -> tuple[int, int]:
    """Which quarter of a picture holds the white mark: (column, row), each 0 or 1."""
    image = Image.open(io.BytesIO(png)).convert("L").resize((2, 2), Image.Resampling.BOX)
    pixels = {(x, y): image.getpixel((x, y)) for x in range(2) for y in range(2)}
    return max(pixels, key=lambda corner: pixels[corner])  # type: ignore[arg-type,return-value]


@pytest.mark.parametrize(("maker", "reason", "message"), [case[1:] for case in REFUSED], ids=[c[0] for c in REFUSED])
def test_a_bad_upload_is_refused_with_its_spanish_message(
    tmp_path: Path, maker: Maker, reason: str, message: str
) -> None:
    clip = maker(tmp_path)
    with pytest.raises(VideoRejectedError) as refused:
        probe_clip(clip)
    assert refused.value.reason == reason
    assert message in refused.value.message
    assert isinstance(refused.value, InvalidInputError)
    target = tmp_path / "served.mp4"
    with pytest.raises(VideoRejectedError):
        transcode_clip(clip, target)
    assert not target.exists()


def test_a_clip_that_fails_while_decoding_is_refused_and_leaves_nothing(tmp_path: Path) -> None:
    clip = video_samples.garbled(tmp_path)
    probe_clip(clip)  # its index is whole: only decoding finds the damage
    target = tmp_path / "served.mp4"
    with pytest.raises(VideoRejectedError) as refused:
        transcode_clip(clip, target)
    assert refused.value.reason == "damaged"
    assert "dañado" in refused.value.message
    assert not target.exists()


@pytest.mark.parametrize(("maker", "size", "has_audio"), [case[1:] for case in ACCEPTED], ids=[c[0] for c in ACCEPTED])
def test_each_format_becomes_an_h264_aac_mp4_of_at_most_720p(
    tmp_path: Path, maker: Maker, size: tuple[int, int], has_audio: bool
) -> None:
    source = maker(tmp_path)
    before = probe_clip(source)
    target = tmp_path / "served.mp4"

    info = transcode_clip(source, target)

    assert info == ClipInfo(duration_s=pytest.approx(before.duration_s, abs=0.1), width=size[0], height=size[1], has_audio=has_audio)  # type: ignore[arg-type]  # fmt: skip
    probed = ffprobe(target)
    streams = probed["streams"]
    assert [s["codec_type"] for s in streams] == (["video", "audio"] if has_audio else ["video"])
    video = streams[0]
    assert (video["codec_name"], video["pix_fmt"]) == ("h264", "yuv420p")
    assert (video["width"], video["height"]) == size
    assert min(size) <= CLIP_SERVED_HEIGHT and size[0] % 2 == size[1] % 2 == 0
    assert "side_data_list" not in video  # upright already: no display matrix left to apply
    if has_audio:
        assert streams[1]["codec_name"] == "aac"
    assert float(probed["format"]["duration"]) == pytest.approx(before.duration_s, abs=0.1)
    boxes = top_level_boxes(target)
    assert boxes.index("moov") < boxes.index("mdat"), boxes


def test_an_iphone_clip_keeps_no_place_device_date_or_extra_track(tmp_path: Path) -> None:
    source = video_samples.iphone_mov(tmp_path)
    original = ffprobe(source)
    assert {s["codec_type"] for s in original["streams"]} == {"video", "audio", "subtitle", "data"}
    assert original["chapters"] and original["format"]["tags"]["location"] == video_samples.LOCATION
    target = tmp_path / "served.mp4"

    transcode_clip(source, target)

    probed = ffprobe(target)
    assert probed["chapters"] == []
    assert [s["codec_type"] for s in probed["streams"]] == ["video", "audio"]
    tags = [probed["format"].get("tags", {})] + [s.get("tags", {}) for s in probed["streams"]]
    kept = {key for tag in tags for key in tag}
    assert kept <= {"major_brand", "minor_version", "compatible_brands", "encoder", "language", "handler_name", "vendor_id"}  # fmt: skip
    exif = exiftool(target)
    for key, value in exif.items():
        assert not any(word in key for word in ("GPS", "Location", "Make", "Model", "Software", "Chapter")), key
        assert not any(word in str(value) for word in ("33.4489", "33 deg", video_samples.MODEL, "2026:01:01")), (key, value)  # fmt: skip
    data = target.read_bytes()
    for secret in (b"33.4489", b"iPhone", b"com.apple.quicktime", b"Calle Secreta", b"Casa de Ana", b"\xa9xyz"):
        assert secret not in data


def test_a_turned_phone_clip_is_served_upright(tmp_path: Path) -> None:
    for rotation in (90, 180, 270):
        folder = tmp_path / str(rotation)
        folder.mkdir()
        source = video_samples.iphone_mov(folder, rotation=rotation)
        reference = bright_corner(video_samples.upright_reference(source, folder).read_bytes())
        target = folder / "served.mp4"

        info = transcode_clip(source, target)

        assert (info.width > info.height) == (rotation == 180)
        assert bright_corner(poster_frame(target)) == reference
        assert bright_corner(poster_frame(source)) == reference


def test_a_60_fps_clip_is_served_at_30(tmp_path: Path) -> None:
    source = video_samples.h264_mp4(tmp_path, size="640x360", seconds=2, rate=60)
    target = tmp_path / "served.mp4"

    transcode_clip(source, target)

    video = ffprobe(target)["streams"][0]
    assert video["avg_frame_rate"] == "30/1"
    assert int(video["nb_frames"]) == pytest.approx(60, abs=2)


def test_the_poster_is_a_png_the_photo_pipeline_stores(tmp_path: Path) -> None:
    source = video_samples.h264_mp4(tmp_path, size="1920x1080", seconds=3)

    png = poster_frame(source)

    image = Image.open(io.BytesIO(png))
    assert (image.format, image.size) == ("PNG", (1280, 720))
    stored = store_photo(storage=LocalStorage(tmp_path / "store"), data=png)
    assert stored.variants and all(v.key.endswith(".webp") for v in stored.variants)


def test_the_poster_of_a_short_clip_is_its_first_frame(tmp_path: Path) -> None:
    source = video_samples.webm(tmp_path, seconds=0.2)
    assert Image.open(io.BytesIO(poster_frame(source))).size == (640, 360)


def test_a_refused_clip_has_no_poster(tmp_path: Path) -> None:
    with pytest.raises(VideoRejectedError):
        poster_frame(video_samples.audio_only(tmp_path))
