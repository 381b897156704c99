"""Who may enter which area, and where each profile lands after sign-in (SPEC §4, §6).

Pure rules, no Reflex: the states enforce them on the server at every event.
"""

from __future__ import annotations

from app.models import ProfileId

HOME = "/escorts"
LOGIN = "/login"

LANDING: dict[str, str] = {
    ProfileId.ADMINISTRADOR.value: "/admin/escorts",
    ProfileId.CLIENTE.value: HOME,
    ProfileId.PROFESOR.value: "/my/publicacion/misPublicaciones",
    # A deliberate correction: the original sent the secretary to /my, which its own guard refuses.
    ProfileId.SECRETARIA.value: "/bbitamia/publicacion",
}

AREA_PROFILES: dict[str, ProfileId] = {
    "/admin": ProfileId.ADMINISTRADOR,
    "/bbitamia": ProfileId.SECRETARIA,
    "/my": ProfileId.PROFESOR,
}

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
