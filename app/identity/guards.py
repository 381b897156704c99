"""Who may enter which area, and where each profile lands after sign-in (SPEC §4, §6).

Pure rules, no Reflex: the states enforce them on the server at every event.
Both tables derive from ``app.routes.AREAS``, the data the route table
(``app.route_table``) builds its guarded pages from: an area's one profile,
and its landing page. Everyone else lands on the public home.
"""

from __future__ import annotations

from app.models import ProfileId
from app.routes import AREAS, LOGIN, PUBLIC_HOME

HOME = PUBLIC_HOME
__all__ = ["ALL_PROFILES", "AREA_PROFILES", "HOME", "LANDING", "LOGIN", "area_profile", "landing_path"]

LANDING: dict[str, str] = {
    ProfileId.CLIENTE.value: HOME,
    **{area.profile.value: area.home for area in AREAS},
}

AREA_PROFILES: dict[str, ProfileId] = {area.prefix: area.profile for area in AREAS}

ALL_PROFILES: tuple[ProfileId, ...] = tuple(ProfileId)


def landing_path(profile_uid: str) -> str:
    """Where a user of this profile goes after signing in (home for anything unknown)."""
    return LANDING.get(profile_uid, HOME)


def area_profile(path: str) -> ProfileId | None:
    """The only profile allowed under a guarded area, or None for a public path."""
    for prefix, profile in AREA_PROFILES.items():
        if path == prefix or path.startswith(prefix + "/"):
            return profile
    return None
