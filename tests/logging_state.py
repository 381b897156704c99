"""The process's logging put back as it was: app.logs.configure changes the root logger and a few others."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

from app import logs


@contextmanager
def logging_restored() -> Iterator[None]:
    """Run the block, then give the root logger and the loggers that configure touches their handlers and levels back."""
    names = ["", *logs.SERVER_LOGGERS, *logs.CHATTY_LOGGERS]
    saved = {
        name: (list(logging.getLogger(name).handlers), logging.getLogger(name).level, logging.getLogger(name).propagate)
        for name in names
    }
    try:
        yield
    finally:
        for name, (handlers, level, propagate) in saved.items():
            logger = logging.getLogger(name)
            logger.handlers[:] = handlers
            logger.setLevel(level)
            logger.propagate = propagate
