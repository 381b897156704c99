"""Test clips made on the spot with Debian's ffmpeg (test sources testsrc2, color and sine): an
iPhone-like MOV carrying its place and device, an H.264 MP4, WebMs, and the bad uploads the
pipeline refuses. Nothing binary is committed; each clip takes well under two seconds to make."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.photo_samples import jpeg_with_gps

# Where the iPhone-like clip was shot (Santiago), written the ways an iPhone writes it.
LOCATION = "+33.4489-070.6693/"
LOCATION_ISO6709 = "+33.4489-070.6693+570.000/"
MAKE = "Apple"
MODEL = "iPhone 15 Pro"
CREATED = "2026-01-01T10:00:00Z"
# A white box in the top-left corner of the stored (not yet upright) picture shows which way it turns.
MARKED = "drawbox=x=0:y=0:w=iw/4:h=ih/4:color=white:t=fill"


def ffmpeg(*args: str | Path) -> None:
    subprocess.run(
        ["ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin", "-y", *map(str, args)],
        check=True,
        timeout=120,
    )


def ffprobe(path: Path) -> dict[str, Any]:
    """What Debian's ffprobe reads in a file: format, streams and chapters (its JSON)."""
    result = subprocess.run(
        ["ffprobe", "-v", "error", "-show_format", "-show_streams", "-show_chapters", "-of", "json", str(path)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def _picture(size: str, seconds: float, rate: int = 30, source: str = "testsrc2") -> list[str]:
    separator = ":" if "=" in source else "="
    return ["-f", "lavfi", "-i", f"{source}{separator}size={size}:rate={rate}:duration={seconds}"]


def _sound(seconds: float) -> list[str]:
    return ["-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={seconds}"]


def iphone_mov(folder: Path, *, rotation: int = 90, seconds: float = 2.0, size: str = "640x360") -> Path:
    """An iPhone-like HEVC MOV: GPS as the ©xyz atom and as com.apple.quicktime.location.ISO6709,
    make, model and creation date keys, a display matrix turning it ``rotation`` degrees, a
    chapter, a subtitle track and a timecode data track."""
    plain = folder / "plain.mov"
    ffmpeg(
        *_picture(size, seconds, source="color=c=0x3050a0"),
        *_sound(seconds),
        "-vf", MARKED,
        "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
        "-c:a", "aac",
        plain,
    )  # fmt: skip
    chapters = folder / "chapters.txt"
    chapters.write_text(";FFMETADATA1\n[CHAPTER]\nTIMEBASE=1/1000\nSTART=0\nEND=1000\ntitle=Casa de Ana\n")
    subtitles = folder / "subtitles.srt"
    subtitles.write_text("1\n00:00:00,000 --> 00:00:01,000\nCalle Secreta 123\n")
    clip = folder / "iphone.mov"
    ffmpeg(
        "-i", plain, "-i", chapters, "-i", subtitles,
        "-map", "0", "-map", "2", "-map_chapters", "1",
        "-c", "copy", "-c:s", "mov_text",
        "-metadata:s:v:0", f"rotate={rotation}",
        "-metadata", f"location={LOCATION}",
        "-metadata", f"com.apple.quicktime.location.ISO6709={LOCATION_ISO6709}",
        "-metadata", f"com.apple.quicktime.make={MAKE}",
        "-metadata", f"com.apple.quicktime.model={MODEL}",
        "-metadata", f"com.apple.quicktime.creationdate={CREATED}",
        "-metadata", f"creation_time={CREATED}",
        "-timecode", "01:00:00:00",
        "-movflags", "use_metadata_tags",
        clip,
    )  # fmt: skip
    return clip


def h264_mp4(
    folder: Path,
    *,
    name: str = "clip.mp4",
    size: str = "1920x1080",
    seconds: float = 2.0,
    rate: int = 30,
    audio: bool = True,
    faststart: bool = False,
    noise: bool = False,
) -> Path:
    """An H.264/AAC MP4 like a phone's (the index after the media unless ``faststart``)."""
    clip = folder / name
    ffmpeg(
        *_picture(size, seconds, rate),
        *(_sound(seconds) if audio else []),
        *(["-vf", "noise=alls=12:allf=t"] if noise else []),
        "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p",
        *(["-c:a", "aac"] if audio else []),
        *(["-movflags", "+faststart"] if faststart else []),
        clip,
    )  # fmt: skip
    return clip


def webm(folder: Path, *, codec: str = "libvpx-vp9", seconds: float = 1.0, size: str = "640x360") -> Path:
    """A WebM with Opus sound, as a browser records it (VP8, VP9 or AV1 by ``codec``)."""
    clip = folder / f"clip-{codec}.webm"
    speed = {
        "libvpx": ["-deadline", "realtime", "-cpu-used", "8"],
        "libvpx-vp9": ["-deadline", "realtime", "-cpu-used", "8"],
        "libsvtav1": ["-preset", "12"],
    }[codec]
    ffmpeg(*_picture(size, seconds), *_sound(seconds), "-c:v", codec, *speed, "-c:a", "libopus", clip)
    return clip


def hevc_hdr_mov(folder: Path) -> Path:
    """A 10-bit HLG HEVC MOV, as recent iPhones record by default (no sound)."""
    clip = folder / "hdr.mov"
    ffmpeg(
        *_picture("640x360", 1),
        "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "log-level=error", "-tag:v", "hvc1",
        "-pix_fmt", "yuv420p10le", "-color_primaries", "bt2020", "-color_trc", "arib-std-b67", "-colorspace", "bt2020nc",
        clip,
    )  # fmt: skip
    return clip


def prores_mov(folder: Path) -> Path:
    """A MOV in a camera's editing codec (ProRes): a video, but not one of the accepted formats."""
    clip = folder / "prores.mov"
    ffmpeg(*_picture("320x240", 0.5), "-c:v", "prores_ks", clip)
    return clip


def empty(folder: Path) -> Path:
    clip = folder / "empty.mp4"
    clip.write_bytes(b"")
    return clip


def jpeg_renamed(folder: Path) -> Path:
    clip = folder / "photo.mp4"
    clip.write_bytes(jpeg_with_gps((320, 240)))
    return clip


def text_renamed(folder: Path) -> Path:
    clip = folder / "notes.mp4"
    clip.write_text("Esto no es un video, es una lista de compras.\n" * 50)
    return clip


def truncated(folder: Path, *, faststart: bool) -> Path:
    """The first half of an MP4: without its index (a phone's layout), or with it and half the media."""
    whole = h264_mp4(folder, name=f"whole-{faststart}.mp4", size="320x240", seconds=3, faststart=faststart)
    clip = folder / f"truncated-{faststart}.mp4"
    data = whole.read_bytes()
    clip.write_bytes(data[: len(data) // 2])
    return clip


def garbled(folder: Path) -> Path:
    """An MP4 whose index is whole but whose media is overwritten midway: it only fails while decoding."""
    whole = h264_mp4(folder, name="to-garble.mp4", size="320x240", seconds=3, audio=False, faststart=True)
    data = bytearray(whole.read_bytes())
    middle = len(data) // 2
    data[middle : middle + len(data) // 4] = b"\xff" * (len(data) // 4)
    clip = folder / "garbled.mp4"
    clip.write_bytes(bytes(data))
    return clip


def audio_only(folder: Path) -> Path:
    clip = folder / "voice.mp4"
    ffmpeg(*_sound(2), "-c:a", "aac", clip)
    return clip


def two_hours(folder: Path) -> Path:
    """A 2-hour clip made cheaply: 16x16 pixels, one frame a second, no sound."""
    clip = folder / "two-hours.mp4"
    ffmpeg(*_picture("16x16", 7200, rate=1, source="color=c=black"), "-c:v", "libx264", "-preset", "ultrafast", clip)
    return clip


def streamed_webm(folder: Path, seconds: float) -> Path:
    """A WebM written as a browser's recorder streams it: no duration in its header, only in its packets."""
    clip = folder / f"streamed-{seconds}.webm"
    with clip.open("wb") as file:
        subprocess.run(
            [
                "ffmpeg", "-hide_banner", "-loglevel", "error", "-nostdin",
                *_picture("16x16", seconds, rate=1, source="color=c=black"),
                "-c:v", "libvpx", "-deadline", "realtime", "-f", "webm", "pipe:1",
            ],
            stdout=file,
            check=True,
            timeout=120,
        )  # fmt: skip
    return clip


def eight_k(folder: Path) -> Path:
    """An 8K clip made cheaply: one frame."""
    clip = folder / "eight-k.mp4"
    ffmpeg(*_picture("7680x4320", 0.04, rate=25, source="color=c=gray"), "-frames:v", "1", "-c:v", "libx264", "-preset", "ultrafast", clip)  # fmt: skip
    return clip


def oversized(folder: Path, limit: int) -> Path:
    """A real clip padded (sparsely, nothing written) to one byte over ``limit``."""
    clip = h264_mp4(folder, name="oversized.mp4", size="320x240", seconds=1)
    with clip.open("r+b") as file:
        file.truncate(limit + 1)
    return clip


def upright_reference(clip: Path, folder: Path) -> Path:
    """The clip's first frame as ffmpeg shows it (ffmpeg applies the display matrix itself): the oracle."""
    frame = folder / "reference.png"
    ffmpeg("-i", clip, "-frames:v", "1", frame)
    return frame
