"""Video clip benchmark: a 60 s 1080p phone clip transcoded to the served MP4 and its poster, on one core.

Makes the clip with Debian's ffmpeg (test pattern with sensor-like noise, 30 fps, a phone's
bitrate, AAC sound, turned as a portrait phone clip is; a 10 s piece repeated by stream copy), then processes it in a child process
pinned to one core (``os.sched_setaffinity``): ``transcode_clip`` then ``poster_frame`` on the
served file, as the worker does. Prints wall and CPU time, their ratio to the clip's length,
and the peak memory (the rise of the resident set's high-water mark while processing).
Target (issue 35): done in under 1.5x the clip's length on one core.

    .venv/bin/python bench/bench_video.py --codec hevc
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET_RATIO = 1.5
PIECE_SECONDS = 10
# Bitrates of a phone's 1080p30 recording.
PHONE = {
    "h264": ["-c:v", "libx264", "-b:v", "16M", "-maxrate", "16M", "-bufsize", "32M"],
    "hevc": ["-c:v", "libx265", "-b:v", "8M", "-tag:v", "hvc1", "-x265-params", "log-level=error"],
}


def _make_clip(folder: Path, codec: str, seconds: int, rotation: int) -> Path:
    """A 10 s piece encoded once and repeated by stream copy: decoding costs what a whole clip's would."""
    from tests.video_samples import ffmpeg

    piece_s = min(seconds, PIECE_SECONDS)
    piece = folder / f"piece.{codec}.mov"
    ffmpeg(
        "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30:duration={piece_s}",
        "-f", "lavfi", "-i", f"sine=frequency=440:sample_rate=48000:duration={piece_s}",
        "-vf", "noise=alls=12:allf=t", *PHONE[codec], "-preset", "ultrafast", "-pix_fmt", "yuv420p",
        "-c:a", "aac", "-b:a", "128k", piece,
    )  # fmt: skip
    clip = folder / f"phone.{codec}.mov"
    repeats = str(-(-seconds // piece_s) - 1)
    ffmpeg(
        "-stream_loop", repeats, "-i", piece, "-t", str(seconds), "-c", "copy",
        "-metadata:s:v:0", f"rotate={rotation}", clip,
    )  # fmt: skip
    piece.unlink()
    return clip


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} missing from /proc/self/status")


def _measure(source: Path) -> dict:
    """Child process, pinned to one core: process the clip as the worker does."""
    from app.services.video_processing import poster_frame, transcode_clip

    core = min(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    target = source.with_name("served.mp4")
    # ru_maxrss survives fork and exec: reset the kernel's high-water mark and read it back from /proc.
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_mb("VmHWM")
    start, start_cpu = time.perf_counter(), time.process_time()
    info = transcode_clip(source, target)
    transcode_s, transcode_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    start, start_cpu = time.perf_counter(), time.process_time()
    poster = poster_frame(target)
    poster_s, poster_cpu = time.perf_counter() - start, time.process_time() - start_cpu
    after = _status_mb("VmHWM")
    return {
        "core": core,
        "threads_allowed": len(os.sched_getaffinity(0)),
        "transcode_s": transcode_s,
        "transcode_cpu_s": transcode_cpu,
        "poster_s": poster_s,
        "poster_cpu_s": poster_cpu,
        "peak_mb": after - before,
        "rss_mb": after,
        "served": info._asdict(),
        "served_bytes": target.stat().st_size,
        "poster_bytes": len(poster),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codec", choices=sorted(PHONE), default="h264")
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--rotation", type=int, default=90)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_measure(args.measure)))
        return
    print(f"video pipeline, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        clip = _make_clip(Path(folder), args.codec, args.seconds, args.rotation)
        print(
            f"clip: {args.seconds} s 1080p30 {args.codec} + AAC, turned {args.rotation}°, "
            f"{clip.stat().st_size / 1e6:.1f} MB (made in {time.perf_counter() - started:.0f} s)"
        )
        print("run  transcode s  CPU s  poster s  total/length  CPU/length  peak MB (rise)  max RSS MB  served")
        for run in range(1, args.runs + 1):
            output = subprocess.run(
                [sys.executable, __file__, "--measure", str(clip)], check=True, capture_output=True, text=True
            ).stdout
            figures = json.loads(output)
            total = figures["transcode_s"] + figures["poster_s"]
            cpu = figures["transcode_cpu_s"] + figures["poster_cpu_s"]
            served = figures["served"]
            print(
                f"{run:3}  {figures['transcode_s']:11.1f}  {figures['transcode_cpu_s']:5.1f}  {figures['poster_s']:8.2f}  "
                f"{total / args.seconds:12.2f}  {cpu / args.seconds:10.2f}  {figures['peak_mb']:14.0f}  "
                f"{figures['rss_mb']:10.0f}  {served['width']}x{served['height']} {served['duration_s']:.1f} s, "
                f"{figures['served_bytes'] / 1e6:.1f} MB, poster PNG {figures['poster_bytes'] / 1e3:.0f} kB"
            )
    print(f"target: total/length < {TARGET_RATIO} on one core")


if __name__ == "__main__":
    main()
