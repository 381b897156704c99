"""Video clips on disk: check an upload, transcode it to what visitors get, and take its poster frame.

PyAV (FFmpeg's libraries in a pip wheel, with libx264 and AAC) does the work in-process: no
Debian package is needed where the app runs. An upload is never trusted by its name: its first
bytes choose the only demuxer that sees it (ISO media for MP4/MOV, Matroska for WebM), and only
the decoders of the accepted formats are allowed. The served MP4 is H.264 (yuv420p) and AAC,
upright, at most CLIP_SERVED_HEIGHT on its shorter side, with the index before the media
(faststart), and carries none of the upload's metadata: no location, device, dates, chapters,
subtitle or data tracks. Every step runs on one thread (decoder, filters, encoder): the worker's
budget is one core. No database, no storage, no Reflex: the caller stores the results.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import NamedTuple

import av
import av.error
import av.filter
from av.audio.frame import AudioFrame
from av.audio.stream import AudioStream
from av.container import InputContainer
from av.stream import Disposition
from av.video.frame import VideoFrame
from av.video.stream import VideoStream

from app.core.errors import VideoRejectedError
from app.models.videos import CLIP_MAX_BYTES, CLIP_MAX_FRAME, CLIP_MAX_SECONDS, CLIP_SERVED_HEIGHT

# Containers round their durations; a phone's "1:00" clip may last a few hundredths more.
DURATION_SLACK_S = 0.5
# A clip whose packets end this much before its header's duration was cut short.
TRUNCATION_SLACK_S = 0.5
# Where the poster is taken, when the clip is long enough; else its first frame.
POSTER_AT_S = 1.0
# Frames a second of the served clip: a 60 fps phone clip is halved (half the encoding work).
SERVED_MAX_FPS = 30
# libx264: "veryfast" keeps a 1080p minute under 1.5x its length on one core; CRF 23 is x264's
# default quality, capped so a busy scene does not exceed what a phone on 4G plays smoothly.
X264_OPTIONS: dict[str, object] = {
    "preset": "veryfast",
    "crf": "23",
    "profile": "high",
    "maxrate": "2500k",
    "bufsize": "5000k",
}
# A keyframe every 2 s at 30 fps, so a phone seeking with range requests lands close to where it asked.
KEYFRAME_INTERVAL = 60
AUDIO_BIT_RATE = 128_000
AUDIO_RATES = (44_100, 48_000)
AUDIO_RATE = 48_000

# The first bytes of a file -> the one demuxer that may read it.
_ISO_BOXES = (b"ftyp", b"moov", b"mdat", b"wide", b"free", b"skip", b"pnot")
_EBML_MAGIC = b"\x1a\x45\xdf\xa3"
_VIDEO_CODECS = frozenset({"h264", "hevc", "vp8", "vp9", "av1"})
_AUDIO_CODECS = frozenset(
    {"aac", "mp3", "opus", "vorbis", "alac", "flac", "ac3", "eac3"}
    | {f"pcm_{kind}" for kind in ("s16le", "s16be", "s24le", "s24be", "s32le", "f32le", "f32be")}
)
# libdav1d decodes AV1. Only these decoders are opened, even while the demuxer probes the streams.
_VIDEO_DECODERS = _VIDEO_CODECS | {"libdav1d"}
_DECODERS = ",".join(sorted(_VIDEO_DECODERS | _AUDIO_CODECS))

_MB = 1024 * 1024
_MAX_LONG_SIDE, _MAX_SHORT_SIDE = CLIP_MAX_FRAME
_MESSAGES = {
    "empty": "El archivo está vacío. Elige otro video.",
    "too_large": f"El video pesa más de {CLIP_MAX_BYTES // _MB} MB. Recórtalo o grábalo en menor calidad.",
    "not_a_video": "Este archivo no es un video. Sube un video MP4, MOV o WebM.",
    "unsupported": "No podemos leer la compresión de este video. Sube un MP4 o MOV (H.264 o HEVC) o un WebM.",
    "no_video": "Este archivo no tiene imagen, solo sonido. Sube un video.",
    "too_long": f"El video dura más de {CLIP_MAX_SECONDS} segundos. Recórtalo y vuelve a subirlo.",
    "too_many_pixels": (
        f"El video tiene una resolución mayor que {_MAX_LONG_SIDE}×{_MAX_SHORT_SIDE} (4K). "
        "Grábalo o expórtalo en 4K o menos."
    ),
    "damaged": "El video está dañado o incompleto. Vuelve a exportarlo desde tu teléfono y súbelo otra vez.",
}


class ClipInfo(NamedTuple):
    """What a clip is: its length, its upright frame size, and whether it has sound."""

    duration_s: float
    width: int
    height: int
    has_audio: bool


@dataclass(frozen=True)
class _Inspected:
    info: ClipInfo
    demuxer: str
    rotation: int  # clockwise quarter turns that make the picture upright: 0, 90, 180 or 270
    frame_rate: float


def _reject(reason: str) -> VideoRejectedError:
    return VideoRejectedError(_MESSAGES[reason], reason=reason)


def _demuxer(path: Path) -> str:
    with path.open("rb") as file:
        head = file.read(8)
    if head[4:8] in _ISO_BOXES:
        return "mov"
    if head[:4] == _EBML_MAGIC:
        return "matroska"
    raise _reject("not_a_video")


@contextmanager
def _opened(path: Path, demuxer: str) -> Iterator[InputContainer]:
    options = {"codec_whitelist": _DECODERS, "protocol_whitelist": "file"}
    try:
        container = av.open(str(path), "r", format=demuxer, options=options)
    except av.error.FFmpegError as error:
        raise _reject("damaged") from error
    with container:
        yield container


def _video_stream(container: InputContainer) -> VideoStream:
    streams = [s for s in container.streams.video if not s.disposition & Disposition.attached_pic]
    if not streams:
        raise _reject("no_video")
    stream = streams[0]
    if stream.codec_context.codec.name not in _VIDEO_DECODERS:
        raise _reject("unsupported")
    stream.codec_context.thread_count = 1
    return stream


def _audio_stream(container: InputContainer) -> AudioStream | None:
    for stream in container.streams.audio:
        if stream.codec_context.codec.name in _AUDIO_CODECS:
            stream.codec_context.thread_count = 1
            return stream
    return None


def _seconds(value: int | None, time_base: Fraction | None) -> float | None:
    return float(value * time_base) if value is not None and time_base is not None else None


def _header_duration(container: InputContainer, stream: VideoStream) -> float | None:
    durations = [
        d
        for d in (_seconds(stream.duration, stream.time_base), _seconds(container.duration, Fraction(1, av.time_base)))
        if d
    ]
    return max(durations) if durations else None


def _packets_end(container: InputContainer, stream: VideoStream) -> float:
    """Read every packet of the video stream (no decoding): where the last one ends, in seconds.

    A packet cut short means a truncated file; a clip without a duration in its header (a WebM
    recorded in a browser) is refused as too long as soon as its packets pass the limit.
    """
    start = _seconds(stream.start_time, stream.time_base) or 0.0
    end = 0.0
    try:
        for packet in container.demux(stream):
            if packet.is_corrupt:
                raise _reject("damaged")
            if packet.pts is None or packet.time_base is None:
                continue
            end = max(end, float((packet.pts + (packet.duration or 0)) * packet.time_base) - start)
            if end > CLIP_MAX_SECONDS + DURATION_SLACK_S:
                raise _reject("too_long")
    except av.error.FFmpegError as error:
        raise _reject("damaged") from error
    return end


def _decoded(container: InputContainer, stream: VideoStream) -> Iterator[VideoFrame]:
    try:
        for packet in container.demux(stream):
            if packet.is_corrupt:
                raise _reject("damaged")
            yield from packet.decode()
    except av.error.FFmpegError as error:
        raise _reject("damaged") from error


def _first_frame(container: InputContainer, stream: VideoStream) -> VideoFrame:
    for frame in _decoded(container, stream):
        return frame
    raise _reject("damaged")


def _upright_turn(frame: VideoFrame) -> int:
    """The clockwise turn that shows a frame upright (its display matrix holds the counter-clockwise one)."""
    return (-round(frame.rotation / 90) * 90) % 360


def _inspect(path: Path) -> _Inspected:
    try:
        size = path.stat().st_size
    except OSError as error:
        raise _reject("damaged") from error
    if size == 0:
        raise _reject("empty")
    if size > CLIP_MAX_BYTES:
        raise _reject("too_large")
    demuxer = _demuxer(path)
    with _opened(path, demuxer) as container:
        stream = _video_stream(container)
        width, height = stream.codec_context.width, stream.codec_context.height
        if width <= 0 or height <= 0:
            raise _reject("damaged")
        if max(width, height) > _MAX_LONG_SIDE or min(width, height) > _MAX_SHORT_SIDE:
            raise _reject("too_many_pixels")
        declared = _header_duration(container, stream)
        if declared is not None and declared > CLIP_MAX_SECONDS + DURATION_SLACK_S:
            raise _reject("too_long")
        has_audio = _audio_stream(container) is not None
        rate = float(stream.guessed_rate or stream.average_rate or SERVED_MAX_FPS)
        end = _packets_end(container, stream)
        video_declared = _seconds(stream.duration, stream.time_base)
        if end <= 0 or (video_declared is not None and end < video_declared - TRUNCATION_SLACK_S):
            raise _reject("damaged")
    with _opened(path, demuxer) as container:
        rotation = _upright_turn(_first_frame(container, _video_stream(container)))
    if rotation in (90, 270):
        width, height = height, width
    info = ClipInfo(duration_s=round(end, 3), width=width, height=height, has_audio=has_audio)
    return _Inspected(info=info, demuxer=demuxer, rotation=rotation, frame_rate=rate)


def probe_clip(path: Path) -> ClipInfo:
    """Check an uploaded clip without decoding it whole, or raise VideoRejectedError (Spanish message).

    Refuses an empty, oversized, non-video, truncated or audio-only file, a clip longer than
    CLIP_MAX_SECONDS (from its header, before reading its media) and a frame beyond CLIP_MAX_FRAME.
    Width and height are the upright picture's (a phone's portrait clip is taller than wide).
    """
    return _inspect(path).info


def _served_size(width: int, height: int) -> tuple[int, int]:
    """Shorter side at most CLIP_SERVED_HEIGHT, never upscaled, both sides even."""
    scale = min(1.0, CLIP_SERVED_HEIGHT / min(width, height))
    return max(2, int(width * scale + 0.5) // 2 * 2), max(2, int(height * scale + 0.5) // 2 * 2)


def _picture_graph(stream: VideoStream, inspected: _Inspected, pix_fmt: str, fps: int | None) -> av.filter.Graph:
    """Filters: at most ``fps``, scaled to the served size, in ``pix_fmt``, upright; one thread."""
    graph = av.filter.Graph()
    graph.threads = 1
    chain = [graph.add_buffer(template=stream)]
    if fps is not None:
        chain.append(graph.add("fps", str(fps)))
    # Scaled first, turned after: turning the smaller picture costs less.
    width, height = _served_size(inspected.info.width, inspected.info.height)
    if inspected.rotation in (90, 270):
        width, height = height, width
    chain.append(graph.add("scale", f"{width}:{height}:flags=bicubic"))
    chain.append(graph.add("format", pix_fmt))
    if inspected.rotation == 90:
        chain.append(graph.add("transpose", "clock"))
    elif inspected.rotation == 180:
        chain += [graph.add("hflip"), graph.add("vflip")]
    elif inspected.rotation == 270:
        chain.append(graph.add("transpose", "cclock"))
    chain.append(graph.add("buffersink"))
    graph.link_nodes(*chain).configure()
    return graph


def _pulled(graph: av.filter.Graph) -> Iterator[VideoFrame]:
    while True:
        try:
            yield graph.vpull()
        except (av.error.BlockingIOError, av.error.EOFError):
            return


def _shifted(frame: VideoFrame | AudioFrame, start_s: float) -> bool:
    """Move a frame's time so the clip starts at 0; False for a frame to drop (untimed, or before the start)."""
    if frame.pts is None or frame.time_base is None:
        return False
    offset = round(start_s / frame.time_base)
    if frame.pts < offset:
        return False
    frame.pts -= offset
    if frame.time is not None and frame.time > CLIP_MAX_SECONDS + DURATION_SLACK_S:
        raise _reject("too_long")
    return True


def _transcode(source: Path, target: Path, inspected: _Inspected) -> None:
    capped = inspected.frame_rate > SERVED_MAX_FPS + 0.5
    with (
        _opened(source, inspected.demuxer) as src,
        av.open(str(target), "w", format="mp4", container_options={"movflags": "+faststart"}) as out,
    ):
        video_in = _video_stream(src)
        audio_in = _audio_stream(src)
        graph = _picture_graph(video_in, inspected, "yuv420p", SERVED_MAX_FPS if capped else None)
        width, height = _served_size(inspected.info.width, inspected.info.height)
        video_out = out.add_stream("libx264", rate=round(min(inspected.frame_rate, SERVED_MAX_FPS)) or SERVED_MAX_FPS)
        video_out.width, video_out.height, video_out.pix_fmt = width, height, "yuv420p"
        video_out.time_base = Fraction(1, SERVED_MAX_FPS) if capped else video_in.time_base
        video_out.codec_context.thread_count = 1
        video_out.codec_context.gop_size = KEYFRAME_INTERVAL
        video_out.options = dict(X264_OPTIONS)
        audio_out = None
        if audio_in is not None:
            rate = audio_in.rate if audio_in.rate in AUDIO_RATES else AUDIO_RATE
            audio_out = out.add_stream("aac", rate=rate)
            audio_out.layout = "mono" if audio_in.codec_context.layout.nb_channels == 1 else "stereo"
            audio_out.bit_rate = AUDIO_BIT_RATE
            audio_out.codec_context.thread_count = 1
        # Every stream starts where the earliest one does, so sound and picture stay together.
        start_s = (src.start_time or 0) / av.time_base
        encoded = 0

        def encode_pictures(frames: Iterator[VideoFrame]) -> None:
            nonlocal encoded
            for frame in frames:
                frame.pict_type = av.video.frame.PictureType.NONE
                out.mux(video_out.encode(frame))
                encoded += 1

        streams = [video_in] if audio_in is None else [video_in, audio_in]
        try:
            for packet in src.demux(*streams):
                if packet.is_corrupt:
                    raise _reject("damaged")
                for frame in packet.decode():
                    if not isinstance(frame, VideoFrame | AudioFrame) or not _shifted(frame, start_s):
                        continue
                    if isinstance(frame, VideoFrame):
                        graph.push(frame)
                        encode_pictures(_pulled(graph))
                    elif audio_out is not None:
                        out.mux(audio_out.encode(frame))
            graph.push(None)
            encode_pictures(_pulled(graph))
        except av.error.FFmpegError as error:
            raise _reject("damaged") from error
        out.mux(video_out.encode(None))
        if audio_out is not None:
            out.mux(audio_out.encode(None))
        if encoded == 0:
            raise _reject("damaged")


def transcode_clip(source: Path, target: Path) -> ClipInfo:
    """Write the served MP4 of an upload to ``target`` and return what it is, or raise VideoRejectedError.

    H.264 (yuv420p) and AAC (no audio track when the upload has no sound), upright, at most
    CLIP_SERVED_HEIGHT on the shorter side, faststart; none of the upload's metadata or extra
    tracks. A clip that fails to decode midway raises VideoRejectedError and leaves no ``target``.
    CPU-bound, one thread: run it in a worker, never on the event loop.
    """
    inspected = _inspect(source)
    try:
        _transcode(source, target, inspected)
        return probe_clip(target)
    except BaseException:
        target.unlink(missing_ok=True)
        raise


def poster_frame(path: Path) -> bytes:
    """One upright frame of a clip (about POSTER_AT_S in, or the first) as PNG bytes, at most the served size.

    Made for ``app.services.photos.store_photo``, which turns it into the listing's WebP sizes.
    Raises VideoRejectedError for a clip ``probe_clip`` refuses.
    """
    inspected = _inspect(path)
    at = POSTER_AT_S if inspected.info.duration_s > 2 * POSTER_AT_S else 0.0
    with _opened(path, inspected.demuxer) as container:
        stream = _video_stream(container)
        start = _seconds(stream.start_time, stream.time_base) or 0.0
        chosen: VideoFrame | None = None
        for frame in _decoded(container, stream):
            chosen = frame
            if (frame.time or 0.0) - start >= at:
                break
        if chosen is None:
            raise _reject("damaged")
        graph = _picture_graph(stream, inspected, "rgb24", None)
        graph.push(chosen)
        picture = graph.vpull().to_image()  # type: ignore[no-untyped-call]  # PyAV 18 leaves it unannotated
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()
