"""Listings' video clips: the limits an upload must keep (issue 35)."""

from __future__ import annotations

# A listing shows at most this many clips.
CLIPS_PER_LISTING = 2
# The longest clip accepted, in seconds.
CLIP_MAX_SECONDS = 60
# The largest upload accepted, in bytes (200 MB).
CLIP_MAX_BYTES = 200 * 1024 * 1024
# The largest frame accepted: 4K from a phone is fine, 8K is refused (longer side, shorter side, in pixels).
CLIP_MAX_FRAME = (4096, 2304)
# What visitors get: an H.264 MP4 whose shorter side is at most this many pixels (720p).
CLIP_SERVED_HEIGHT = 720
