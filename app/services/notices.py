"""E-mail notices to advertisers (issue 19 §3): recorded once per event, sent after the change commits.

A service that changes something an advertiser must hear about calls :func:`notify_owner` (or
:func:`notify`) in the same transaction, before it commits:

- the notice is recorded in ``aviso`` under a key naming the event (``INSERT … ON CONFLICT DO NOTHING``
  on a unique column): a second call with the same key, from a retry or from another worker running
  the same clock job at the same time, records nothing and sends nothing;
- its e-mail is a job of the task queue deferred in the same transaction (``mail.queue_mail``): it
  leaves when the transaction commits, never when it rolls back;
- it is not sent, and recorded with the reason, when the advertiser turned that kind off
  (optional kinds only), when the recipient already had ``NOTICES_PER_DAY`` notices e-mailed in the
  last 24 hours. A notice over the cap is not sent later: what it
  says is on the listing's card in "Mis publicaciones" too, and staff can count them by status.

The texts live in ``app.content.notices``; links are absolute, from SITE_URL.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from pydantic import BaseModel
from sqlalchemy import delete, func
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from app.content.notices import NOTICES, OPTIONAL_KINDS, NoticeKind, render_notice
from app.core.errors import InvalidInputError
from app.core.text import mask_email
from app.db import commit
from app.models import Listing, Notice, NoticeOptOut, NoticeStatus, User, utc_now
from app.routes import ADVERTISER_HOME, ADVERTISER_NOTICES
from app.services.mail import queue_mail
from app.settings import get_settings

log = logging.getLogger(__name__)

CAP_WINDOW = timedelta(days=1)


def _record_once(session: Session, notice: Notice) -> bool:
    """Insert the notice unless its key is already recorded (by anyone, committed or not); True if inserted."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    values = {column: getattr(notice, column) for column in ("uid", "key", "user_uid", "kind", "status", "created_at")}
    statement = (
        insert(Notice).values(**values).on_conflict_do_nothing(index_elements=["key"]).returning(col(Notice.uid))
    )
    return session.execute(statement).first() is not None


def _sent_recently(session: Session, user_uid: str, now: datetime) -> int:
    return session.exec(
        select(func.count())
        .select_from(Notice)
        .where(
            Notice.user_uid == user_uid,
            Notice.status == NoticeStatus.SENT,
            col(Notice.created_at) > now - CAP_WINDOW,
        )
    ).one()


def _turned_off(session: Session, user_uid: str, kind: NoticeKind) -> bool:
    if not NOTICES[kind].optional:
        return False
    return session.get(NoticeOptOut, (user_uid, kind.value)) is not None


def notify(
    *,
    session: Session,
    user_uid: str,
    kind: NoticeKind,
    key: str,
    values: dict[str, object],
    now: datetime | None = None,
) -> NoticeStatus | None:
    """Record the notice ``kind`` about event ``key`` for ``user_uid`` and e-mail it once the session commits.

    Returns what became of it, or None when the key was already recorded (nothing sent).
    ``values`` fill the text; the site's name and links are added here.
    """
    now = now or utc_now()
    key = f"{kind.value}:{key}"
    user = session.get(User, user_uid)
    if user is None or session.exec(select(Notice.uid).where(Notice.key == key)).first() is not None:
        return None
    settings = get_settings()
    if _turned_off(session, user_uid, kind):
        status = NoticeStatus.TURNED_OFF
    elif _sent_recently(session, user_uid, now) >= settings.notices_per_day:
        status = NoticeStatus.OVER_LIMIT
    else:
        status = NoticeStatus.SENT
    notice = Notice(key=key, user_uid=user_uid, kind=kind, status=status, created_at=now)
    if not _record_once(session, notice):
        return None
    if status == NoticeStatus.OVER_LIMIT:
        log.warning("notice %s to %s not sent: daily cap reached", kind.value, mask_email(user.email))
    if status != NoticeStatus.SENT:
        return status
    subject, body = render_notice(
        kind,
        {
            **values,
            "site_name": settings.site_name,
            "link": settings.site_url + ADVERTISER_HOME,
            "preferences_link": settings.site_url + ADVERTISER_NOTICES,
        },
    )
    queue_mail(session, to=user.email, subject=subject, body=body)
    return status


def notify_owner(
    *, session: Session, listing: Listing, kind: NoticeKind, key: str, now: datetime | None = None, **values: object
) -> NoticeStatus | None:
    """:func:`notify` the owner of ``listing``, whose public name the text shows."""
    return notify(
        session=session,
        user_uid=listing.owner_uid,
        kind=kind,
        key=key,
        values={"listing": listing.display_name, **values},
        now=now,
    )


class NoticeChoice(BaseModel):
    """One optional notice on the preferences page: whether the advertiser gets it by e-mail."""

    kind: str
    label: str
    enabled: bool


def notice_choices(*, session: Session, user_uid: str) -> list[NoticeChoice]:
    """The optional notices, each with whether ``user_uid`` gets it."""
    off = set(session.exec(select(NoticeOptOut.kind).where(NoticeOptOut.user_uid == user_uid)))
    return [
        NoticeChoice(kind=kind.value, label=NOTICES[kind].label, enabled=kind not in off) for kind in OPTIONAL_KINDS
    ]


def set_notice_choices(*, session: Session, user_uid: str, enabled: list[str]) -> list[NoticeChoice]:
    """Keep only the optional notices in ``enabled`` (kind values) on for ``user_uid``; others are turned off.

    Decisions on listings and account notices are always sent: naming them changes nothing.
    """
    if not isinstance(enabled, list) or not all(isinstance(kind, str) for kind in enabled):
        raise InvalidInputError("Elige los avisos de la lista.", field="enabled")
    known = {kind.value for kind in OPTIONAL_KINDS}
    if not set(enabled) <= known | {kind.value for kind in NoticeKind}:
        raise InvalidInputError("Elige los avisos de la lista.", field="enabled")
    session.exec(delete(NoticeOptOut).where(col(NoticeOptOut.user_uid) == user_uid))
    session.add_all(
        [NoticeOptOut(user_uid=user_uid, kind=kind) for kind in OPTIONAL_KINDS if kind.value not in set(enabled)]
    )
    commit(session)
    return notice_choices(session=session, user_uid=user_uid)
