"""Photo pipeline benchmark: one 12-megapixel JPEG and one 12-megapixel HEIC (two layouts) into every size.

Prints the median and p95 processing time over several runs, the median CPU time
(all threads: it does not grow when other work shares the machine, the wall time
does) and the peak memory (the rise of the resident set's high-water mark while
processing, measured in a fresh child process per format so earlier work does not hide it).
Targets: median under 400 ms, peak under 300 MB.

    .venv/bin/python bench/bench_photos.py --runs 9
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import percentiles

SIZE = (4000, 3000)  # 12 megapixels


def _sample_image():
    """A photo-like 12 MP picture: smooth gradients with sensor-like noise (compresses like a photo)."""
    from PIL import Image, ImageFilter

    _width, _height = SIZE
    gradient = Image.linear_gradient("L").resize(SIZE)
    channels = []
    for sigma, blur in ((40, 1.2), (32, 1.0), (48, 1.5)):
        noise = Image.effect_noise(SIZE, sigma).filter(ImageFilter.GaussianBlur(blur))
        channels.append(Image.blend(gradient, noise, 0.5))
    image = Image.merge("RGB", channels)
    exif = Image.Exif()
    exif[0x010F] = "Bench"
    exif[0x0112] = 6
    exif[0x8825] = {1: "S", 2: (33.0, 26.0, 0.0), 3: "W", 4: (70.0, 39.0, 0.0)}
    return image, exif


def _write_samples(folder: Path) -> dict[str, Path]:
    import pillow_heif

    pillow_heif.register_heif_opener()
    image, exif = _sample_image()
    samples = {}
    # HEVC decoding time grows with the bitrate: quality 50 gives about the size of
    # a phone's 12 MP HEIC (2-3 MB); the figures print each file's size. A HEIC is
    # written twice: as one 12 MP picture, and as a grid of 512-pixel tiles, the
    # way iPhones store theirs (libheif decodes the tiles in parallel).
    for name, fmt, options, tile in (
        ("JPEG", "JPEG", {"quality": 90}, 0),
        ("HEIC", "HEIF", {"quality": 50}, 0),
        ("HEIC-grid", "HEIF", {"quality": 50}, 512),
    ):
        pillow_heif.options.GRID_TILE_SIZE = tile
        buffer = io.BytesIO()
        image.save(buffer, format=fmt, exif=exif.tobytes(), **options)
        path = folder / f"sample-{name.lower()}"
        path.write_bytes(buffer.getvalue())
        samples[name] = path
    pillow_heif.options.GRID_TILE_SIZE = 0
    return samples


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"{field} missing from /proc/self/status")


def _measure(path: Path, runs: int) -> dict:
    """Child process: time the pipeline and the rise of the maximum resident set."""
    from app.services.photos import process_photo

    data = path.read_bytes()
    # ru_maxrss survives fork and exec (it would report the parent's peak): reset
    # the kernel's high-water mark instead and read it back from /proc.
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_mb("VmHWM")
    process_photo(data)  # warm-up (and the first peak)
    samples, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        result = process_photo(data)
        samples.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    after = _status_mb("VmHWM")
    return {
        "bytes": len(data),
        "samples_ms": samples,
        "cpu_ms": statistics.median(cpu),
        "peak_mb": after - before,
        "rss_mb": after,
        "variants": [(v.width, v.height, len(v.data)) for v in result.variants],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(_measure(args.measure, args.runs)))
        return
    with tempfile.TemporaryDirectory() as folder:
        samples = _write_samples(Path(folder))
        print(
            f"photo pipeline, {SIZE[0]}x{SIZE[1]} ({SIZE[0] * SIZE[1] / 1e6:.0f} MP), {args.runs} runs each, "
            f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}"
        )
        print("format     file MB  median ms  p95 ms  CPU ms  peak MB (rise)  max RSS MB  variants")
        for name, path in samples.items():
            output = subprocess.run(
                [sys.executable, __file__, "--measure", str(path), "--runs", str(args.runs)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            figures = json.loads(output)
            median, p95 = percentiles(figures["samples_ms"])
            sizes = ", ".join(f"{w}x{h}" for w, h, _ in figures["variants"])
            print(
                f"{name:9}  {figures['bytes'] / 1e6:7.1f}  {median:9.0f}  {p95:6.0f}  {figures['cpu_ms']:6.0f}  "
                f"{figures['peak_mb']:14.0f}  {figures['rss_mb']:10.0f}  {sizes}"
            )
    print("targets: median < 400 ms, peak < 300 MB")


if __name__ == "__main__":
    main()
