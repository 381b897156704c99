"""Lighthouse (mobile) on a detail page with a clip beside the same kind of page without one, in the same run.

Issue 35 asks that a listing's clip cost the detail page no more than 0.05 of Lighthouse's performance score.
Serves the demo data as bench/lighthouse.py does, takes two public listings of the busiest city alike in what
their page shows (same tier, same number of photos, none with a clip), gives the second an approved clip made
by the worker's own service (a 10 s portrait phone clip, 1080x1920, from tests/video_samples.py) before either
page is asked for, then runs bench/lighthouse.mjs as a returning visitor on the two pages alternately, ``--runs``
times each (default 3). Prints each run's scores and metrics and the medians side by side, and the difference
of the performance medians.

    flock /tmp/e2e.lock .venv/bin/python bench/lighthouse_clip.py [--runs 3] [--listings 3000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_page_ratio import demo_site
from bench.lighthouse import METRICS, prepare, run, summary

# The bound on what a clip may cost the detail page's performance score.
ALLOWED_DROP = 0.05


def _pair(city: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """Two public listings of ``city`` alike (tier, photo count, no clip): (name, detail path) of each."""
    from sqlalchemy import func
    from sqlmodel import Session, col, select

    from app.db import get_engine
    from app.models import Listing, ListingPhoto, ListingStatus, Section
    from app.services.listings import listing_path

    with Session(get_engine()) as session:
        photos = (
            select(func.count())
            .where(col(ListingPhoto.listing_uid) == col(Listing.uid), col(ListingPhoto.approved) == True)  # noqa: E712
            .scalar_subquery()
        )
        rows = session.exec(
            select(Listing, photos)
            .where(
                Listing.city_slug == city,
                Listing.section == Section.MUJERES.value,
                Listing.status == ListingStatus.PUBLICADA.value,
                col(Listing.owner_hidden) == False,  # noqa: E712
                col(Listing.has_video) == False,  # noqa: E712
            )
            .order_by(col(Listing.tier_rank), col(Listing.uid))
        ).all()
        seen: dict[tuple[int, int], Listing] = {}
        for listing, count in rows:
            key = (listing.tier_rank, count)
            if count and key in seen:
                return tuple(  # type: ignore[return-value]
                    (
                        row.display_name,
                        listing_path(
                            section=row.section, city_slug=row.city_slug, name_slug=row.name_slug, uid=row.uid
                        ),
                    )
                    for row in (seen[key], listing)
                )
            seen[key] = listing
    raise SystemExit(f"no two alike public listings in {city}")


def _add_clip(path: str, folder: Path) -> None:
    """An approved clip for the listing at ``path``, stored in the served media folder."""
    from sqlmodel import Session

    from app.db import get_engine
    from app.storage.local import LocalStorage, PrivateLocalStorage
    from tests.factories import processed_clip
    from tests.video_samples import h264_mp4

    source = h264_mp4(folder, size="1080x1920", seconds=10)
    with Session(get_engine(), expire_on_commit=False) as session:
        clip = processed_clip(
            session,
            path.rsplit("/", 1)[-1],
            storage=LocalStorage(Path(os.environ["MEDIA_DIR"])),
            private_storage=PrivateLocalStorage(folder / "private"),
            source=source,
        )
    print(f"clip: {clip.width}x{clip.height}, {clip.duration_s:.1f} s, poster widths {clip.poster_widths}")
    get_engine().dispose()


def _figures(report: dict) -> dict[str, float]:
    figures = {"performance": report["categories"]["performance"]["score"]}
    figures.update({name: report["audits"][key]["numericValue"] for name, key in METRICS.items()})
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lh-dir", type=Path, default=Path("/tmp/lh"), help="where `npm install lighthouse` ran")
    parser.add_argument("--out", type=Path, default=Path("/tmp/lh/reports"), help="where the JSON reports go")
    parser.add_argument("--listings", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=3, help="runs of each page, alternately")
    args = parser.parse_args()
    if not prepare(args.lh_dir, args.out):
        return 2
    with demo_site(args.listings, 1) as (site, city, _), tempfile.TemporaryDirectory() as tmp:
        (plain_name, plain), (clip_name, with_clip) = _pair(city)
        _add_clip(with_clip, Path(tmp))
        print(f"without a clip: {plain_name} {plain}\nwith a clip:    {clip_name} {with_clip}")
        pages = {"sin video": plain, "con video": with_clip}
        figures: dict[str, list[dict[str, float]]] = {label: [] for label in pages}
        for index in range(args.runs):
            for label, path in pages.items():
                out = args.out / f"detail-{'clip' if label == 'con video' else 'plain'}-{index + 1}.json"
                report = run(args.lh_dir, site + path, "returning", out)
                figures[label].append(_figures(report))
                print(f"{label:<10} run {index + 1}: {summary(report)}", flush=True)
    medians = {
        label: {name: statistics.median(run[name] for run in runs) for name in runs[0]}
        for label, runs in figures.items()
    }
    print(f"{'medians':<10} perf  " + "  ".join(f"{name} ms" if name != "CLS" else name for name in METRICS))
    for label, values in medians.items():
        metrics = "  ".join(f"{values[name]:.3f}" if name == "CLS" else f"{values[name]:.0f}" for name in METRICS)
        print(f"{label:<10} {values['performance']:.2f}  {metrics}")
    drop = medians["sin video"]["performance"] - medians["con video"]["performance"]
    verdict = "within" if drop <= ALLOWED_DROP else "OVER"
    print(f"performance drop with a clip: {drop:+.2f} ({verdict} the {ALLOWED_DROP} the issue allows)")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
