"""Reading a Prometheus scrape in tests: each sample's value by name and labels."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.parser import text_string_to_metric_families

from app import metrics
from app.services import monitoring


def samples(text: str) -> Iterator[tuple[str, dict[str, str], float]]:
    """Every sample of a scrape's text: its name, labels and value."""
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            yield sample.name, dict(sample.labels), sample.value


def scrape(*, figures: bool = False) -> str:
    """What /metrics would answer now (with the database's figures if ``figures``)."""
    return metrics.exposition(monitoring.read_site_figures if figures else None).decode()


def value(name: str, text: str | None = None, **labels: str) -> float:
    """The value of the sample ``name`` with exactly ``labels`` in a scrape (now, unless ``text``); 0 if absent."""
    for sample_name, sample_labels, sample_value in samples(scrape() if text is None else text):
        if sample_name == name and sample_labels == labels:
            return sample_value
    return 0.0
