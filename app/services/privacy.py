"""Privacy rights in self-service (issue 20 §2): download my data, delete my account, and retention.

- **Download my data.** :func:`request_export` records the request; the privacy job
  (``app.services.privacy_jobs``) builds a ZIP with ``datos.json`` (everything stored about the account:
  profile, advertiser record, listings with their review history, pending edit, services, statistics,
  upgrade and verification requests with their decisions, sessions' dates, favourites kept in the
  account, notice preferences and notices sent) and the account's own photos, keeps it in the
  private storage and e-mails a link with a random token (only its digest is stored). The ZIP is
  written to a temporary file, a chunk of each stored file at a time, and stored from it
  (:func:`write_zip`); the download reads it back a chunk at a time (:class:`ExportDownload`): no
  export is ever whole in memory. The link
  works for 48 hours, for the signed-in owner only (:func:`export_file`); then the ZIP is deleted
  (:func:`purge_expired_exports`). Left out: other people's data (reporters, reviewers' ids) and
  staff notes.
- **Delete my account.** :func:`delete_account`: the password (and the second factor for staff),
  then in one transaction every row of the account (listings and their records, verification
  requests, sessions, statistics, favourites, notices, exports, the identity provider's account);
  files of every storage go after the commit. Audit entries stay with an anonymous id in place of
  the account's ids; reports about its listings stay, unlinked. The last active administrator
  cannot delete themself.
- **Retention.** Drafts untouched for ``DRAFT_KEEP`` are deleted, after a warning e-mailed
  ``DRAFT_WARNING`` before (once per draft and untouched period); closed reports lose the reporter's
  contact after ``REPORT_CONTACT_KEEP``.
"""

from __future__ import annotations

import hashlib
import io
import json
import logging
import secrets
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import delete, func, or_, update
from sqlmodel import Session, SQLModel, col, select

from app.content import mail
from app.content.notices import NoticeKind
from app.core.actor import Actor
from app.core.dates import format_date
from app.core.errors import ConflictError, InvalidInputError, NotFoundError
from app.db import commit, transaction
from app.identity.provider import IdentityProvider
from app.models import (
    STAFF_PROFILES,
    Advertiser,
    AppService,
    AuditEntry,
    DataExport,
    ExportStatus,
    Favourite,
    FavouritesInAccount,
    Listing,
    ListingDailyStats,
    ListingPhoto,
    ListingReview,
    ListingStatus,
    ListingUpgrade,
    ListingVerification,
    ListingVideo,
    Notice,
    NoticeOptOut,
    NoticeStatus,
    ProfileId,
    Report,
    ReportStatus,
    SessionTicket,
    User,
    UserSession,
    new_uid,
    utc_now,
)
from app.routes import DATA_EXPORT_PREFIX
from app.services import accounts, notices, two_factor
from app.services.listing_photos import widths_of
from app.services.listings import service_names
from app.services.mail import queue_mail, send_after_commit
from app.services.my_listings import RemovedFiles, deletion_note, remove_listing_rows
from app.settings import get_settings
from app.storage import Storage
from app.task_queue import EXPORT, defer

log = logging.getLogger(__name__)

EXPORT_LINK_LIFETIME = timedelta(hours=48)
EXPORTS_PER_DAY = 3
EXPORT_PREFIX = "exportaciones"
EXPORT_FILE = "datos.json"
DRAFT_KEEP = timedelta(days=180)
DRAFT_WARNING = timedelta(days=14)
REPORT_CONTACT_KEEP = timedelta(days=365)
ANONYMOUS_PREFIX = "anonimo-"
DATE_FORMAT = "D [de] MMMM [de] YYYY"

EXPORT_PENDING = "Estamos preparando tu archivo. Te enviaremos el enlace por correo en unos minutos."
EXPORT_TOO_MANY = "Ya pediste tus datos varias veces hoy. Vuelve a intentarlo mañana."
EXPORT_ALREADY_PENDING = "Ya estamos preparando tu archivo. Te enviaremos el enlace por correo."
LAST_ADMIN = "Eres el último administrador activo: nombra a otro administrador antes de eliminar tu cuenta."
SECOND_FACTOR_MISSING = "Escribe el código de tu aplicación de autenticación."
DELETED_LISTING_NOTE = "Se eliminó la publicación: su titular eliminó su cuenta."


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _local_date(value: datetime) -> str:
    return format_date(value.astimezone(ZoneInfo(get_settings().timezone)), DATE_FORMAT)


# --- download my data: the request ------------------------------------------------------------------


def request_export(*, session: Session, actor: Actor, now: datetime | None = None) -> str:
    """Record a request for the caller's data (one pending at a time, EXPORTS_PER_DAY a day); the notice to show."""
    now = now or utc_now()
    if session.get(User, actor.uid) is None:
        raise NotFoundError("Tu cuenta no existe.")
    mine = select(DataExport).where(DataExport.user_uid == actor.uid)
    if session.exec(mine.where(DataExport.status == ExportStatus.PENDING)).first() is not None:
        raise ConflictError(EXPORT_ALREADY_PENDING)
    today = session.exec(
        select(func.count())
        .select_from(DataExport)
        .where(DataExport.user_uid == actor.uid, col(DataExport.created_at) > now - timedelta(days=1))
    ).one()
    if today >= EXPORTS_PER_DAY:
        raise ConflictError(EXPORT_TOO_MANY)
    session.add(DataExport(user_uid=actor.uid, created_at=now))
    defer(session, EXPORT)  # built by a worker (app.tasks), queued with the request
    commit(session)
    log.info("data export requested by user %s", actor.uid)
    return EXPORT_PENDING


def export_notice(*, session: Session, user_uid: str, now: datetime | None = None) -> str:
    """What the account page says about the caller's latest export ("" when there is none to tell about)."""
    now = now or utc_now()
    latest = session.exec(
        select(DataExport).where(DataExport.user_uid == user_uid).order_by(col(DataExport.created_at).desc()).limit(1)
    ).first()
    if latest is None:
        return ""
    if latest.status == ExportStatus.PENDING:
        return EXPORT_PENDING
    if latest.expires_at is not None and latest.expires_at > now:
        return f"Te enviamos por correo el enlace a tu archivo; vale hasta el {_local_date(latest.expires_at)}."
    return ""


# --- download my data: the contents ----------------------------------------------------------------


def _plain(row: SQLModel, *, leave_out: Iterable[str] = ()) -> dict[str, Any]:
    """A row as JSON-ready data, without the columns named in ``leave_out``."""
    return row.model_dump(mode="json", exclude=set(leave_out))


def _listing_data(session: Session, listing: Listing) -> dict[str, Any]:
    """One listing as its owner may read it: the listing, its history and requests (no reviewer ids)."""
    services = service_names(session, listing.uid)
    photos = session.exec(
        select(ListingPhoto).where(ListingPhoto.listing_uid == listing.uid).order_by(col(ListingPhoto.position))
    ).all()
    reviews = session.exec(
        select(ListingReview).where(ListingReview.listing_uid == listing.uid).order_by(col(ListingReview.created_at))
    ).all()
    upgrades = session.exec(
        select(ListingUpgrade, AppService.name)
        .join(AppService, col(AppService.uid) == col(ListingUpgrade.app_service_uid))
        .where(ListingUpgrade.listing_uid == listing.uid)
        .order_by(col(ListingUpgrade.created_at))
    ).all()
    verifications = session.exec(
        select(ListingVerification)
        .where(ListingVerification.listing_uid == listing.uid)
        .order_by(col(ListingVerification.created_at))
    ).all()
    stats = session.exec(
        select(ListingDailyStats)
        .where(ListingDailyStats.listing_uid == listing.uid)
        .order_by(col(ListingDailyStats.day))
    ).all()
    data = _plain(listing, leave_out=("revision",))
    data["edicion_pendiente"] = json.loads(listing.revision) if listing.revision else None
    data["servicios"] = list(services)
    data["fotos"] = [{**_plain(photo, leave_out=("listing_uid",)), "archivo": _photo_file(photo)} for photo in photos]
    data["videos"] = [
        {**_plain(clip, leave_out=("listing_uid", "original_key")), "archivo": _clip_file(clip)}
        for clip in session.exec(
            select(ListingVideo).where(ListingVideo.listing_uid == listing.uid).order_by(col(ListingVideo.position))
        )
    ]
    data["historial_de_revision"] = [_plain(review, leave_out=("reviewer_uid", "listing_uid")) for review in reviews]
    data["mejoras"] = [
        {**_plain(upgrade, leave_out=("reviewer_uid", "listing_uid")), "servicio": name} for upgrade, name in upgrades
    ]
    data["verificaciones"] = [
        {
            **_plain(request, leave_out=("reviewer_uid", "storage_key", "listing_uid", "owner_uid")),
            "archivo": _verification_file(request),
        }
        for request in verifications
    ]
    data["estadisticas_diarias"] = [_plain(day, leave_out=("listing_uid",)) for day in stats]
    return data


def _photo_key(photo: ListingPhoto) -> str | None:
    """The largest stored file of an own (pipeline) photo; None for a demo photo of the shared pool."""
    widths = widths_of(photo)
    if not photo.stem or not widths:
        return None
    return f"{photo.stem}-{widths[-1]}.webp"


def _photo_file(photo: ListingPhoto) -> str | None:
    return f"fotos/{photo.listing_uid}/{photo.position:02d}-{photo.uid}.webp" if _photo_key(photo) else None


def _clip_file(clip: ListingVideo) -> str | None:
    """The served MP4 of a ready clip in the ZIP (the original upload is never kept once processed)."""
    return f"videos/{clip.listing_uid}/{clip.position:02d}-{clip.uid}.mp4" if clip.video_key else None


def _verification_file(request: ListingVerification) -> str | None:
    return f"verificacion/{request.uid}.webp" if request.storage_key else None


def account_data(*, session: Session, user_uid: str, now: datetime | None = None) -> dict[str, Any]:
    """Everything stored about the account, as the JSON of its export (nothing about other people)."""
    user = session.get(User, user_uid)
    if user is None:
        raise NotFoundError("Tu cuenta no existe.")
    advertiser = session.exec(select(Advertiser).where(Advertiser.user_uid == user_uid)).first()
    listings = session.exec(
        select(Listing).where(Listing.owner_uid == user_uid).order_by(col(Listing.created_at), col(Listing.uid))
    ).all()
    sessions = session.exec(
        select(UserSession).where(UserSession.user_uid == user_uid).order_by(col(UserSession.created_at))
    ).all()
    keeps_favourites = session.get(FavouritesInAccount, user_uid) is not None
    saved = session.exec(
        select(Favourite).where(Favourite.user_uid == user_uid).order_by(col(Favourite.created_at))
    ).all()
    turned_off = session.exec(select(NoticeOptOut.kind).where(NoticeOptOut.user_uid == user_uid)).all()
    sent = session.exec(select(Notice).where(Notice.user_uid == user_uid).order_by(col(Notice.created_at))).all()
    return {
        "generado": (now or utc_now()).isoformat(),
        "cuenta": _plain(user, leave_out=("identity_uid",)),
        "anunciante": _plain(advertiser) if advertiser else None,
        "publicaciones": [_listing_data(session, listing) for listing in listings],
        "sesiones": [
            {
                "inicio": row.created_at.isoformat(),
                "ultimo_uso": row.last_seen_at.isoformat(),
                "vence": row.expires_at.isoformat(),
                "cerrada": row.revoked_at.isoformat() if row.revoked_at else None,
            }
            for row in sessions
        ],
        "favoritas": {
            "guardadas_en_la_cuenta": keeps_favourites,
            "publicaciones": [_plain(row, leave_out=("user_uid",)) for row in saved],
        },
        "avisos_por_correo": {
            "desactivados": sorted(str(kind) for kind in turned_off),
            "enviados": [_plain(row, leave_out=("user_uid", "key")) for row in sent],
        },
    }


class _StoredEntry(NamedTuple):
    """One stored file of the account that goes into its export: its name in the ZIP and where it is kept."""

    name: str
    storage: Storage
    key: str


def _stored_entries(
    session: Session, storage: Storage, private_storage: Storage, listing_uids: list[str]
) -> Iterator[_StoredEntry]:
    """The account's own stored files, each kind of file from its rows (one more kind is one more loop)."""
    if not listing_uids:
        return
    for photo in session.exec(select(ListingPhoto).where(col(ListingPhoto.listing_uid).in_(listing_uids))):
        key = _photo_key(photo)
        name = _photo_file(photo)
        if key and name:
            yield _StoredEntry(name, storage, key)
    for clip in session.exec(select(ListingVideo).where(col(ListingVideo.listing_uid).in_(listing_uids))):
        name = _clip_file(clip)
        if clip.video_key and name:
            yield _StoredEntry(name, storage, clip.video_key)
    for request in session.exec(
        select(ListingVerification).where(col(ListingVerification.listing_uid).in_(listing_uids))
    ):
        name = _verification_file(request)
        if request.storage_key and name:
            yield _StoredEntry(name, private_storage, request.storage_key)


def write_zip(
    *, session: Session, storage: Storage, private_storage: Storage, user_uid: str, now: datetime, path: Path
) -> None:
    """Write the export's ZIP to ``path``: ``datos.json`` and the account's own stored files, each copied in a
    chunk at a time, so memory stays bounded whatever their number and size."""
    data = account_data(session=session, user_uid=user_uid, now=now)
    listing_uids = [listing["uid"] for listing in data["publicaciones"]]
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        json_entry = _zip_entry(EXPORT_FILE, now, zipfile.ZIP_DEFLATED)
        with archive.open(json_entry, "w") as entry, io.TextIOWrapper(entry, encoding="utf-8") as text:
            json.dump(data, text, ensure_ascii=False, indent=2)
        for stored in _stored_entries(session, storage, private_storage, listing_uids):
            _copy_in(archive, stored, now)


def _zip_entry(name: str, now: datetime, compress_type: int, size: int = 0) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=now.timetuple()[:6])
    info.compress_type = compress_type
    info.file_size = size  # when known ahead, zipfile picks ZIP64 for a large file from it
    return info


def _copy_in(archive: zipfile.ZipFile, stored: _StoredEntry, now: datetime) -> None:
    """Copy one stored file into the archive as it is (photos and videos are compressed already)."""
    try:
        size = stored.storage.size(stored.key)
        chunks = stored.storage.read_range(stored.key, 0, size) if size else iter(())
    except NotFoundError:
        log.warning("data export: stored file %s is missing; left out", stored.key)
        return
    with archive.open(_zip_entry(stored.name, now, zipfile.ZIP_STORED, size), "w") as entry:
        for chunk in chunks:
            entry.write(chunk)


# --- download my data: the job's side ---------------------------------------------------------------


def build_next_export(
    *, session: Session, storage: Storage, private_storage: Storage, now: datetime | None = None
) -> bool:
    """Build one pending export, store it privately and e-mail its link after the commit; False if none waits."""
    now = now or utc_now()
    export = session.exec(
        select(DataExport)
        .where(DataExport.status == ExportStatus.PENDING)
        .order_by(col(DataExport.created_at))
        .limit(1)
        .with_for_update(skip_locked=True)
    ).first()
    if export is None:
        return False
    user = session.get(User, export.user_uid)
    if user is None:  # the account went meanwhile
        session.delete(export)
        commit(session)
        return True
    key = f"{EXPORT_PREFIX}/{export.uid[:2]}/{export.uid}.zip"
    # Built in a file on disk and stored from it (S3: a multipart upload): never whole in memory.
    with tempfile.TemporaryDirectory(prefix="exportacion-") as folder:
        path = Path(folder) / "datos.zip"
        write_zip(
            session=session, storage=storage, private_storage=private_storage, user_uid=user.uid, now=now, path=path
        )
        size = path.stat().st_size
        private_storage.put_file(key, path, "application/zip")
    try:
        token = secrets.token_urlsafe(32)
        export.status = ExportStatus.READY
        export.storage_key = key
        export.token_hash = _digest(token)
        export.ready_at = now
        export.expires_at = now + EXPORT_LINK_LIFETIME
        session.add(export)
        subject, body = mail.data_export_ready(export_link(token), _local_date(export.expires_at), EXPORT_LINK_LIFETIME)
        queue_mail(session, to=user.email, subject=subject, body=body)
        commit(session)
    except BaseException:
        session.rollback()
        private_storage.delete(key)
        raise
    log.info("data export %s of user %s built (%d bytes)", export.uid, user.uid, size)
    return True


def export_link(token: str) -> str:
    """The absolute address of an export's download."""
    return f"{get_settings().site_url}{DATA_EXPORT_PREFIX}/{token}"


@dataclass(frozen=True)
class ExportDownload:
    """A valid link's ZIP in the private storage: its length, and its bytes read a chunk at a time."""

    storage: Storage
    key: str
    size: int

    def chunks(self) -> Iterator[bytes]:
        """The whole file, a chunk at a time; the storage is first read at the first chunk (off the event loop)."""
        if self.size:
            yield from self.storage.read_range(self.key, 0, self.size)


def export_file(
    *, session: Session, private_storage: Storage, token: str, user_uid: str, now: datetime | None = None
) -> ExportDownload | None:
    """The ZIP behind a link's token, for its signed-in owner while the link is valid; None otherwise."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    export = session.exec(select(DataExport).where(DataExport.token_hash == _digest(token))).first()
    now = now or utc_now()
    if (
        export is None
        or export.user_uid != user_uid
        or export.status != ExportStatus.READY
        or not export.storage_key
        or export.expires_at is None
        or export.expires_at <= now
    ):
        return None
    try:
        size = private_storage.size(export.storage_key)
    except NotFoundError:
        return None
    return ExportDownload(private_storage, export.storage_key, size)


def purge_expired_exports(*, session: Session, private_storage: Storage, now: datetime | None = None) -> int:
    """Delete the exports whose link expired, with their files; return how many."""
    now = now or utc_now()
    expired = session.exec(
        select(DataExport)
        .where(DataExport.status == ExportStatus.READY, col(DataExport.expires_at) <= now)
        .with_for_update(skip_locked=True)
    ).all()
    keys = [export.storage_key for export in expired if export.storage_key]
    for export in expired:
        session.delete(export)
    commit(session)
    for key in keys:
        private_storage.delete(key)
    return len(expired)


# --- delete my account --------------------------------------------------------------------------------


def _check_second_factor(session: Session, user: User, code: str, client_hash: str) -> None:
    """Staff prove the second factor too (limited like sign-in attempts, per account and per client)."""
    code = code.strip() if isinstance(code, str) else ""
    if not code:
        raise InvalidInputError(SECOND_FACTOR_MISSING, field="code")
    two_factor.check_second_factor(session, user, code, client_hash=client_hash)


def _check_not_last_admin(session: Session, user: User) -> None:
    """The last active administrator stays: someone must be able to run the site."""
    if user.profile_uid != ProfileId.ADMINISTRADOR:
        return
    # Locked in a fixed order, so two administrators deleting themselves at once cannot both pass.
    admins = session.exec(
        select(User.uid)
        .where(User.profile_uid == ProfileId.ADMINISTRADOR.value, col(User.activo), ~col(User.ban))
        .order_by(col(User.uid))
        .with_for_update()
    ).all()
    if not [uid for uid in admins if uid != user.uid]:
        raise ConflictError(LAST_ADMIN)


def _anonymise_audit(session: Session, *, user_uid: str, record_uids: set[str], anonymous: str) -> None:
    """The account's audit entries keep only ``anonymous``: as actor, and as the record changed (contents dropped)."""
    session.exec(update(AuditEntry).where(col(AuditEntry.actor_uid) == user_uid).values(actor_uid=anonymous))
    if record_uids:
        session.exec(
            update(AuditEntry)
            .where(col(AuditEntry.entity_uid).in_(record_uids))
            .values(entity_uid=anonymous, before_json="", after_json="")
        )


def _erase_rows(session: Session, user: User, now: datetime) -> RemovedFiles:
    """Delete every row of the account (flushed); the files to remove after the commit (public, private)."""
    uid = user.uid
    files = RemovedFiles()
    record_uids = {uid}
    advertiser = session.exec(select(Advertiser).where(Advertiser.user_uid == uid)).first()
    if advertiser is not None:
        record_uids.add(advertiser.uid)
    listings = session.exec(select(Listing).where(Listing.owner_uid == uid).with_for_update()).all()
    note = deletion_note(DELETED_LISTING_NOTE, now)
    for listing in listings:
        record_uids.add(listing.uid)
        for table in (ListingUpgrade, ListingVerification, ListingReview):
            record_uids.update(session.exec(select(table.uid).where(col(table.listing_uid) == listing.uid)))
        removed = remove_listing_rows(session=session, listing=listing, note=note, now=now)
        files.photos.extend(removed.photos)
        files.private_keys.extend(removed.private_keys)
        files.clips.extend(removed.clips)
    # Requests the account made or decided on other listings (staff): theirs go, decisions stay unsigned.
    files.private_keys.extend(
        key
        for key in session.exec(select(ListingVerification.storage_key).where(ListingVerification.owner_uid == uid))
        if key
    )
    session.exec(delete(ListingVerification).where(col(ListingVerification.owner_uid) == uid))
    session.exec(delete(ListingUpgrade).where(col(ListingUpgrade.requested_by_uid) == uid))
    for table in (ListingReview, ListingUpgrade, ListingVerification):
        session.exec(update(table).where(col(table.reviewer_uid) == uid).values(reviewer_uid=None))
    if advertiser is not None:
        session.delete(advertiser)
    export_keys = [key for key in session.exec(select(DataExport.storage_key).where(DataExport.user_uid == uid)) if key]
    for own in (UserSession, SessionTicket, Favourite, FavouritesInAccount, Notice, NoticeOptOut, DataExport):
        session.exec(delete(own).where(col(own.user_uid) == uid))
    _anonymise_audit(session, user_uid=uid, record_uids=record_uids, anonymous=ANONYMOUS_PREFIX + new_uid())
    session.flush()
    session.delete(user)
    session.flush()
    files.private_keys.extend(export_keys)
    return files


def delete_account(
    *,
    session: Session,
    provider: IdentityProvider,
    storage: Storage,
    private_storage: Storage,
    actor: Actor,
    password: str,
    code: str = "",
    client_hash: str,
    now: datetime | None = None,
) -> None:
    """Delete the caller's account for good, after their password (and second factor, for staff).

    Rows and the identity provider's account go in one transaction; the files of every storage after
    its commit; a last e-mail confirms it. The address may sign up again afterwards.
    """
    now = now or utc_now()
    user = session.get(User, actor.uid)
    if user is None:
        raise NotFoundError("Tu cuenta no existe.")
    accounts.check_own_password(provider=provider, user=user, password=password, client_hash=client_hash)
    if user.profile_uid in STAFF_PROFILES:
        _check_second_factor(session, user, code, client_hash)
    email, identity_uid = user.email, user.identity_uid
    with transaction(session) as tx:
        _check_not_last_admin(session, user)
        files = _erase_rows(session, user, now)
        if identity_uid:
            provider.bound(tx).delete_account(uid=identity_uid)
        subject, body = mail.account_deleted()
        send_after_commit(tx, to=email, subject=subject, body=body)
    log.warning("account %s deleted by its owner", actor.uid)
    files.remove(storage=storage, private=private_storage)


# --- retention ----------------------------------------------------------------------------------------


def _draft_key(listing: Listing) -> str:
    """One warning per draft and untouched period: saving the draft starts a new period."""
    return f"{listing.uid}:{listing.updated_at:%Y%m%dT%H%M%S}"


def _stale_drafts(session: Session, idle: timedelta, now: datetime, *, lock: bool = False) -> list[Listing]:
    query = (
        select(Listing)
        .where(Listing.status == ListingStatus.BORRADOR, col(Listing.updated_at) <= now - idle)
        .order_by(col(Listing.uid))
    )
    return list(session.exec(query.with_for_update(skip_locked=True) if lock else query).all())


def warn_stale_drafts(*, session: Session, now: datetime | None = None) -> int:
    """E-mail the owners of drafts that will be deleted in DRAFT_WARNING (once per draft); return how many."""
    now = now or utc_now()
    warned = 0
    for draft in _stale_drafts(session, DRAFT_KEEP - DRAFT_WARNING, now):
        deletion = max(draft.updated_at + DRAFT_KEEP, now + DRAFT_WARNING)
        status = notices.notify(
            session=session,
            user_uid=draft.owner_uid,
            kind=NoticeKind.DRAFT_PURGE_WARNING,
            key=_draft_key(draft),
            values={
                "listing": draft.display_name or "sin nombre",
                "idle_days": (now - draft.updated_at).days,
                "keep_days": DRAFT_KEEP.days,
                "deletion": _local_date(deletion),
            },
            now=now,
        )
        warned += status == NoticeStatus.SENT
    commit(session)
    return warned


def purge_stale_drafts(
    *, session: Session, storage: Storage, private_storage: Storage, now: datetime | None = None
) -> int:
    """Delete drafts untouched for DRAFT_KEEP whose owner was warned at least DRAFT_WARNING ago; return how many.

    A draft whose warning was not sent (daily cap, full queue) stays: nobody loses a draft unwarned.
    """
    now = now or utc_now()
    files = RemovedFiles()
    deleted = 0
    note = deletion_note("Se eliminó un borrador sin cambios por el plazo de conservación.", now)
    for draft in _stale_drafts(session, DRAFT_KEEP, now, lock=True):
        warning = session.exec(
            select(Notice.uid).where(
                Notice.key == f"{NoticeKind.DRAFT_PURGE_WARNING.value}:{_draft_key(draft)}",
                Notice.status == NoticeStatus.SENT,
                col(Notice.created_at) <= now - DRAFT_WARNING,
            )
        ).first()
        if warning is None:
            continue
        removed = remove_listing_rows(session=session, listing=draft, note=note, now=now)
        files.photos.extend(removed.photos)
        files.private_keys.extend(removed.private_keys)
        files.clips.extend(removed.clips)
        deleted += 1
    commit(session)
    files.remove(storage=storage, private=private_storage)
    return deleted


def scrub_closed_reports(*, session: Session, now: datetime | None = None) -> int:
    """Closed reports lose the reporter's contact (and address hash) after REPORT_CONTACT_KEEP; return how many."""
    now = now or utc_now()
    closed_at = func.coalesce(col(Report.updated_at), col(Report.created_at))
    result = session.exec(
        update(Report)
        .where(
            col(Report.status) == ReportStatus.CERRADO.value,
            closed_at <= now - REPORT_CONTACT_KEEP,
            or_(col(Report.contact) != "", col(Report.client_hash) != ""),
        )
        .values(contact="", client_hash="")
    )
    commit(session)
    return int(result.rowcount or 0)
