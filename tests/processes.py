"""Stopping the servers the tests start in process groups of their own (``start_new_session=True``)."""

from __future__ import annotations

import os
import signal
import subprocess

GRACE_S = 30


def stop_process_group(process: subprocess.Popen) -> None:
    """Ask the server's whole process group to stop (SIGTERM); kill it if it has not within ``GRACE_S``."""
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
