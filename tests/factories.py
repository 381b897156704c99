"""Test data written through the data layer (never through the UI)."""

from __future__ import annotations

import dataclasses
from datetime import date, datetime, timedelta
from pathlib import Path

from sqlmodel import Session, select

from app.core.actor import Actor
from app.core.text import slugify
from app.models import (
    WIZARD_DONE,
    AdvertiserService,
    AdvertiserType,
    AppService,
    ClipStatus,
    Listing,
    ListingCard,
    ListingDetail,
    ListingPhoto,
    ListingService,
    ListingStatus,
    ListingVideo,
    ProfileId,
    Section,
    StaffSecondFactor,
    Tier,
    User,
    new_uid,
    utc_now,
)
from app.models.listings import services_text
from app.services import listing_drafts, listing_photos, listing_videos
from app.services.ownership import locked_owned_listing
from app.services.photos import store_photo
from app.services.users import create_user
from app.storage import Storage


def add_photo(
    *, session: Session, storage: Storage, owner_uid: str, uid: str | None, data: bytes
) -> listing_photos.OwnerPhoto:
    """A photo processed and added to the owner's listing at once, as the worker adds one
    (app.services.photo_uploads.process_pending), without the queue."""
    stored = store_photo(storage=storage, data=data, prefix=listing_photos.PHOTO_PREFIX)
    listing = locked_owned_listing(session=session, owner_uid=owner_uid, uid=uid)
    photo = listing_photos.insert_photo(session, listing, stored, photo_uid=new_uid())
    session.commit()
    return next(
        item
        for item in listing_photos.list_photos(session=session, owner_uid=owner_uid, uid=listing.uid)
        if item.uid == photo.uid
    )


def _with_changes(session: Session, uid: str, changes: dict) -> User:
    """The user row, with ``changes`` (activo, ban…) written after creation."""
    user = session.get(User, uid)
    for key, value in changes.items():
        setattr(user, key, value)
    session.add(user)
    session.commit()
    return user


def make_owner(session: Session, email: str, **changes) -> User:
    """An advertiser user; ``changes`` (activo, ban) are applied after creation."""
    public = create_user(
        session=session, data={"email": email, "display_name": "Dueña", "profile_uid": ProfileId.PROFESOR.value}
    )
    return _with_changes(session, public.uid, changes)


def make_staff(session: Session, email: str, profile: str, **changes) -> User:
    """A user of ``profile`` (a ProfileId, or a profile staff created) named after the e-mail's local part;
    ``changes`` (activo, ban) are applied after creation."""
    data = {"email": email, "display_name": email.split("@")[0], "profile_uid": str(profile)}
    return _with_changes(session, create_user(session=session, data=data).uid, changes)


def tier_of(session: Session, slug: str) -> Tier:
    """The tier with this slug."""
    return session.exec(select(Tier).where(Tier.slug == slug)).one()


def tier_upgrade(session: Session, slug: str, *, name: str, price_clp: int) -> AppService:
    """A 30-day upgrade to the tier ``slug``, like app/seed.py's; not yet added to the session."""
    return AppService(
        name=name, price_clp=price_clp, duration_days=30, effect="nivel", tier_uid=tier_of(session, slug).uid
    )


def make_listing(
    session: Session,
    owner: User,
    *,
    name: str = "Valentina",
    city: str = "santiago-de-chile",
    section: str = Section.MUJERES.value,
    tier: str = "platino",
    status: str = ListingStatus.PUBLICADA.value,
    published_at: datetime | None = None,
    photos: int = 2,
    **fields,
) -> Listing:
    """A listing with ``photos`` photo rows; any column can be overridden. ``has_video=True`` gives it an approved,
    ready clip (the database then sets its flag: migration 0018's triggers)."""
    now = utc_now()
    has_video = fields.pop("has_video", False)
    chosen_tier = tier_of(session, tier)
    if published_at is None and status == ListingStatus.PUBLICADA.value:
        published_at = now - timedelta(days=10)
    listing = Listing(
        owner_uid=owner.uid,
        section=section,
        city_slug=city,
        commune=fields.pop("commune", "Providencia"),
        tier_uid=chosen_tier.uid,
        base_tier_uid=chosen_tier.uid,
        tier_rank=chosen_tier.display_order,
        display_name=name,
        name_slug=slugify(name),
        age=fields.pop("age", 25),
        description=fields.pop("description", f"Hola, soy {name}."),
        price_hour_clp=fields.pop("price_hour_clp", 80000),
        phone=fields.pop("phone", "+56 9 1234 5678"),
        whatsapp=fields.pop("whatsapp", "+56 9 1234 5678"),
        status=status,
        published_at=published_at,
        ranked_at=published_at,
        wizard_step=WIZARD_DONE,
        **fields,
    )
    session.add(listing)
    session.flush()
    for position in range(photos):
        session.add(
            ListingPhoto(listing_uid=listing.uid, position=position, path=f"photos/demo/placeholder-{position:02d}.jpg")
        )
    if has_video:
        session.add(ready_clip(listing.uid))
    session.commit()
    return listing


def ready_clip(listing_uid: str, *, approved: bool = True, status: ClipStatus = ClipStatus.LISTA) -> ListingVideo:
    """A clip row of a listing, ready and approved unless told (no files: for the listing's flag and queries)."""
    clip = ListingVideo(
        listing_uid=listing_uid, status=status, approved=approved, duration_s=5.0, width=1280, height=720
    )
    if status == ClipStatus.LISTA:
        clip.video_key = f"videos/{clip.uid[:2]}/{clip.uid}.mp4"
        clip.poster_stem, clip.poster_widths = f"videos/{clip.uid[:2]}/{clip.uid}-poster", "400,800"
    return clip


def processed_clip(
    session: Session,
    listing_uid: str,
    *,
    storage: Storage,
    private_storage: Storage,
    source: Path,
    approved: bool = True,
) -> ListingVideo:
    """A clip of the file ``source`` made by the worker's own service (its MP4 and poster stored in ``storage``),
    after the listing's other clips; approved with the listing's ready clips unless told."""
    position = len(session.exec(select(ListingVideo).where(ListingVideo.listing_uid == listing_uid)).all())
    clip = ListingVideo(listing_uid=listing_uid, position=position, status=ClipStatus.PROCESANDO, approved=False)
    clip.original_key = listing_videos.original_key(clip.uid)
    private_storage.put_file(clip.original_key, source, listing_videos.ORIGINAL_CONTENT_TYPE)
    session.add(clip)
    session.commit()
    listing_videos.process_clip(session=session, storage=storage, private_storage=private_storage, clip_uid=clip.uid)
    if approved:
        listing_videos.approve_ready_clips(session, listing_uid)
        session.commit()
    done = session.get(ListingVideo, clip.uid)
    assert done is not None and done.status == ClipStatus.LISTA, "the sample clip was not processed"
    session.refresh(done)
    return done


def make_account(
    session: Session, provider, email: str, *, profile: ProfileId, password: str = "clave-de-prueba-91", **changes
) -> User:
    """A verified account of this profile at ``provider``, linked to its user row."""
    identity = provider.create_account(email=email, password=password)
    public = create_user(
        session=session,
        data={
            "email": email,
            "display_name": email.split("@")[0],
            "profile_uid": profile.value,
            "identity_uid": identity.uid,
        },
    )
    return _with_changes(session, public.uid, changes)


def open_session(session: Session, user_uid: str, days: int = 1, *, second_factor: bool = True) -> str:
    """A live session for this user, opened the way a browser does (ticket, then exchange); its raw token.

    ``second_factor``: the session passed the second factor, as a staff member's does once they typed
    their code (issue 20 §1); False leaves a staff session at that step, granting nothing.
    """
    from app.identity.sessions import digest, issue_ticket, pass_second_factor, redeem_ticket

    ticket = issue_ticket(session=session, user_uid=user_uid)
    token = redeem_ticket(session=session, ticket=ticket, days=days)
    if second_factor:
        pass_second_factor(session=session, token_hash=digest(token))
    session.commit()
    return token


# The known TOTP secret staff get from :func:`enrol_staff` (base32), for tests that type real codes.
STAFF_TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"


def enrol_staff(session: Session, user_uid: str, *, secret: str = STAFF_TOTP_SECRET, recovery_codes=()) -> str:
    """Give a staff member a confirmed second factor with a known secret; the secret (pyotp.TOTP(secret).now())."""
    from app.services import two_factor

    existing = session.get(StaffSecondFactor, user_uid)
    if existing is not None:
        session.delete(existing)
        session.flush()
    session.add(
        StaffSecondFactor(user_uid=user_uid, secret_encrypted=two_factor.encrypt_secret(secret), confirmed_at=utc_now())
    )
    two_factor.store_recovery_codes(session, user_uid, recovery_codes)
    session.commit()
    return secret


def exchange_ticket(session: Session, ticket: str, days: int = 1) -> str:
    """What the browser does with a sign-in ticket: exchange it for a session; the raw token."""
    from app.identity.sessions import redeem_ticket

    token = redeem_ticket(session=session, ticket=ticket, days=days)
    session.commit()
    assert token is not None, "the ticket was refused"
    return token


def check_session(session: Session, token: str):
    """What a guarded handler sees for a connection carrying this session cookie."""
    from app.identity.sessions import digest, resolve_session

    return resolve_session(session=session, token_hash=digest(token), idle_days=7)


def actor_of(user: User) -> Actor:
    """The server-side Actor of a user row (what a guarded handler would pass to services)."""
    return Actor(uid=user.uid, email=user.email, display_name=user.display_name, profile_uid=user.profile_uid)


def claiming_staff(uid: str | None) -> Actor:
    """An Actor with this uid (or none) claiming a secretary's profile: services must believe the database instead."""
    return Actor(uid=uid or "", email="", display_name="", profile_uid=ProfileId.SECRETARIA)


def make_wizard_catalogue(session: Session) -> dict:
    """An advertiser type and three services the wizard offers: {"type", "services", "tier"} uids."""
    kind = AdvertiserType(name="Independiente")
    services = [AdvertiserService(name=f"Servicio {i}") for i in range(3)]
    session.add_all([kind, *services])
    session.commit()
    options = listing_drafts.wizard_options(session=session)
    return {"type": kind.uid, "services": [s.uid for s in services], "tier": options.tiers[0][0]}


def wizard_steps(catalogue: dict, city: str = "talca") -> dict[int, dict]:
    """Valid values of each wizard step (1–8) for a listing in ``city`` (its commune: Talca)."""
    return {
        1: {
            "document": "rut",
            "rut": "11.111.111-1",
            "birth_date": f"{date.today().year - 30}/01/15",
            "nationality": "Chile",
        },
        2: {"city_slug": city, "commune": "Talca", "section": "mujeres"},
        3: {"tier_uid": catalogue["tier"], "type_uid": catalogue["type"]},
        4: {
            "display_name": "Camila Rosa",
            "age": "27",
            "description": "Hola, soy Camila: simpática, puntual y discreta. Atiendo con cita previa.",
            "curvy": "true",
        },
        5: {"price_hour_clp": "$60.000", "price_half_hour_clp": "40000"},
        6: {"visiting_from": "", "visiting_until": ""},
        7: {},
        8: {"phone": "+56 9 8765 4321", "whatsapp": "987654321"},
    }


VIEW_UID = "AbCdEfGhIjKlMnOpQrSt"


def save_wizard_step(session: Session, owner: User, uid: str, catalogue: dict, step: int, **values) -> str:
    """Save one wizard step of the draft ``uid`` ("" for a new one) with valid values, ``values`` overriding them."""
    return listing_drafts.save_step(
        session=session,
        owner_uid=owner.uid,
        uid=uid,
        step=step,
        values={**wizard_steps(catalogue)[step], **values},
        services=catalogue["services"][:2] if step == 4 else None,
        schedule={"lun": "10:00-20:00"} if step == 6 else None,
    )


def wizard_draft(
    session: Session,
    storage,
    owner: User,
    *,
    name: str,
    city: str,
    phone: str,
    photo: bytes,
    identity: dict[str, str] | None = None,
) -> str:
    """A draft filled through the wizard's eight steps with the catalogue's own type, services and top tier
    (step 1: ``identity`` over RUT 11.111.111-1, born 15 January 30 years ago, Chile), with one photo; its uid."""
    from app.core.geo import commune_names_for_city
    from app.models import AdvertiserService, AdvertiserType

    options = listing_drafts.wizard_options(session=session)
    kind = session.exec(select(AdvertiserType).limit(1)).first()
    services = [row.uid for row in session.exec(select(AdvertiserService).limit(2)).all()]
    steps = {
        1: {
            "document": "rut",
            "rut": "11.111.111-1",
            "birth_date": f"{date.today().year - 30}/01/15",
            "nationality": "Chile",
            **(identity or {}),
        },
        2: {"city_slug": city, "commune": commune_names_for_city(city)[0], "section": "mujeres"},
        3: {"tier_uid": options.tiers[-1][0], "type_uid": kind.uid},
        4: {"display_name": name, "age": "29", "description": f"Hola, soy {name}: puntual, simpática y discreta."},
        5: {"price_hour_clp": "70000"},
        6: {"visiting_from": "", "visiting_until": ""},
        7: {},
        8: {"phone": phone, "whatsapp": ""},
    }
    uid = None
    for number, values in steps.items():
        if number == 7:
            add_photo(session=session, storage=storage, owner_uid=owner.uid, uid=uid, data=photo)
        uid = listing_drafts.save_step(
            session=session,
            owner_uid=owner.uid,
            uid=uid,
            step=number,
            values=values,
            services=services if number == 4 else None,
            schedule={"lun": "10:00-20:00"} if number == 6 else None,
        )
    return uid


def card_view(**changes) -> ListingCard:
    """A public card as the listing services return it (no database); any field can be overridden."""
    fields = {
        "uid": VIEW_UID,
        "commune": "Centro",
        "display_name": "Valentina",
        "age": 25,
        "tier_name": "Platino",
        "tier_slug": "platino",
        "verified": False,
        "has_video": False,
        "porn_actress": False,
        "available_now": False,
        "price": "$80.000",
        "url": f"/escorts/temuco/valentina/{VIEW_UID}",
        "photos": ("/media/ab/cover-800.webp", "/media/ab/other-800.webp"),
    }
    return ListingCard(**{**fields, **changes})


def detail_view(**changes) -> ListingDetail:
    """A public detail page's data (no database); any field can be overridden."""
    fields = dict(
        dataclasses.asdict(card_view()),
        section=Section.MUJERES.value,
        city_slug="temuco",
        city_name="Temuco",
        description="Hola " * 100,
        services=(),
        rates=(),
        phone="",
        whatsapp_url="",
        tel_url="",
        available_until="",
        visiting="",
        published="",
    )
    return ListingDetail(**{**fields, **changes})


def services_disagreeing(session: Session) -> list[str]:
    """The listings whose ``service_uids`` (what the services filter reads) is not their publicacion_servicio
    rows (what the detail shows, as ``services_text`` writes them); [] when every listing agrees."""
    offered: dict[str, list[str]] = {}
    for listing_uid, service_uid in session.exec(select(ListingService.listing_uid, ListingService.service_uid)):
        offered.setdefault(listing_uid, []).append(service_uid)
    return [
        uid
        for uid, kept in session.exec(select(Listing.uid, Listing.service_uids))
        if kept != services_text(offered.get(uid, []))
    ]
