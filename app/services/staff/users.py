"""The staff's users table (/admin/usuarios, /bbitamia/usuarios): list, change profile, ban, deactivate.

Every function checks that the caller is live staff (``ensure_staff``) and records each write
in the audit log in the same transaction. The account rules come from ``app.services.accounts``
(``accounts.staff_target``: the user exists and is not the caller; ``set_ban``: a ban disables the
account and ends all its sessions). A secretary never undoes an administrator's decision: staff
accounts (administrators and secretaries) are the administrators' alone (``accounts.ensure_may_manage``),
and she cannot lift a ban or a deactivation an administrator made (read from the audit log:
:func:`administrator_decisions`). A banned or deactivated user's listings leave the public site
by themselves: the public queries hide the listings of such owners.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass

from sqlmodel import Session, col, select

from app.core.actor import Actor
from app.core.errors import ForbiddenError, InvalidInputError, NotFoundError
from app.db import transaction
from app.identity import sessions
from app.identity.provider import IdentityProvider
from app.models import PROFILE_LABELS, STAFF_PROFILES, AuditEntry, ProfileId, User, UserPublic
from app.services import accounts, users
from app.services.staff import audit
from app.services.staff.shared import StaffPage, TableQuery, ensure_may, ensure_staff, fetch_page, sort_order
from app.services.staff.table_spec import ADMIN, SECRETARY, Column, Filter, FormField, TableSpec, sort_columns

log = logging.getLogger(__name__)

ENTITY = "usuarios"
PROFILE_FILTER, STATE_FILTER = "perfil", "estado"
# estado filter: value -> (label, condition)
STATES = {
    "activos": ("Activos", (col(User.activo) == True) & (col(User.ban) == False)),  # noqa: E712
    "suspendidos": ("Suspendidos", col(User.ban) == True),  # noqa: E712
    "desactivados": ("Desactivados", col(User.activo) == False),  # noqa: E712
}
PROFILE_OPTIONS = tuple((profile.value, label) for profile, label in PROFILE_LABELS.items())

USERS_SPEC = TableSpec(
    entity="usuario",
    title="Usuarios",
    columns=(
        Column("email", "Correo", sortable=True),
        Column("nombre", "Nombre", sortable=True),
        Column("perfil", "Perfil", sortable=True),
        Column("estado", "Estado"),
        Column("creado", "Creado", sortable=True),
    ),
    default_sort="creado",
    default_desc=True,
    filters=(
        Filter(PROFILE_FILTER, "Perfil", PROFILE_OPTIONS),
        Filter(STATE_FILTER, "Estado", tuple((value, label) for value, (label, _) in STATES.items())),
    ),
    form_fields=(
        FormField("perfil", "Perfil", kind="select", options=PROFILE_OPTIONS, required=True, on_create=False),
    ),
    search_label="Buscar por correo",
    profiles=(ADMIN, SECRETARY),
    actions=frozenset({"edit", "export"}),
    admin_only_actions=frozenset({"export"}),
    csv_name="usuarios",
    row_label_key="email",
)
SORT_COLUMNS = sort_columns(
    USERS_SPEC,
    {"email": User.email, "nombre": User.display_name, "perfil": User.profile_uid, "creado": User.created_at},
)
STAFF_PROFILE_MESSAGE = "Solo un administrador puede dar o quitar perfiles del equipo."
BAN, DEACTIVATION = ("banear", "desbanear"), ("desactivar", "activar")  # (the decision, its undoing) in the audit
ADMIN_BAN_MESSAGE = "Un administrador suspendió esta cuenta: solo un administrador puede quitar la suspensión."
ADMIN_DEACTIVATION_MESSAGE = "Un administrador desactivó esta cuenta: solo un administrador puede reactivarla."


@dataclass(frozen=True)
class UserRow:
    """One user as the staff table shows them (text only)."""

    uid: str
    email: str
    nombre: str
    perfil: str
    perfil_uid: str
    estado: str
    ban: str
    activo: str
    creado: str
    # "true" when the viewer may press the row's ban / deactivation button (suspend or lift, deactivate or
    # reactivate): what the service would allow them, so a secretary sees no button she would be refused.
    puede_suspender: str = ""
    puede_desactivar: str = ""

    def as_row(self) -> dict[str, str]:
        return dict(self.__dict__)


def state_label(user: User) -> str:
    """Activo, Suspendido or Desactivado."""
    if user.ban:
        return "Suspendido"
    return "Activo" if user.activo else "Desactivado"


def administrator_decisions(session: Session, user_uids: Collection[str], decision: tuple[str, str]) -> set[str]:
    """Of ``user_uids``, those whose standing ban (or deactivation: ``decision``) is an administrator's.

    Read from the audit log: the entries of the decision since it was last undone. It is an
    administrator's unless every one of them is a secretary's; one without any entry (made
    outside the staff table) counts as an administrator's too.
    """
    uids = [uid for uid in user_uids if isinstance(uid, str) and uid]
    if not uids:
        return set()
    made, undone = decision
    entries = session.exec(
        select(AuditEntry.entity_uid, AuditEntry.action, User.profile_uid)
        .join(User, col(User.uid) == col(AuditEntry.actor_uid), isouter=True)
        .where(
            AuditEntry.entity == ENTITY,
            col(AuditEntry.entity_uid).in_(uids),
            col(AuditEntry.action).in_(decision),
        )
        .order_by(col(AuditEntry.created_at).desc())
    ).all()
    by_secretary_only: dict[str, bool] = {}
    settled: set[str] = set()
    for uid, action, actor_profile in entries:
        if uid in settled:
            continue
        if action == undone:
            settled.add(uid)
        elif action == made:
            by_secretary_only[uid] = by_secretary_only.get(uid, True) and actor_profile == ProfileId.SECRETARIA
    return {uid for uid in uids if not by_secretary_only.get(uid, False)}


def _ensure_not_undoing(session: Session, actor: Actor, user: User, decision: tuple[str, str], message: str) -> None:
    """ForbiddenError (logged) when a secretary would undo an administrator's ban or deactivation of ``user``."""
    if actor.profile_uid == ProfileId.ADMINISTRADOR:
        return
    if user.uid in administrator_decisions(session, [user.uid], decision):
        log.warning(
            "%s refused: secretary %s on an administrator's decision (user %s)", decision[1], actor.uid, user.uid
        )
        raise ForbiddenError(message)


def _row(
    user: User, viewer: User | None = None, admin_bans: Collection[str] = (), admin_offs: Collection[str] = ()
) -> UserRow:
    """The row as ``viewer`` sees it: the ban and deactivation buttons only where the services would let them."""
    manageable = (
        viewer is not None and user.uid != viewer.uid and accounts.may_manage(viewer.profile_uid, user.profile_uid)
    )
    secretary = viewer is not None and viewer.profile_uid != ProfileId.ADMINISTRADOR
    may_ban = manageable and not (secretary and user.ban and user.uid in admin_bans)
    may_deactivate = manageable and not (secretary and not user.activo and user.uid in admin_offs)
    return UserRow(
        uid=user.uid,
        email=user.email,
        nombre=user.display_name,
        perfil=PROFILE_LABELS.get(ProfileId(user.profile_uid), user.profile_uid),
        perfil_uid=user.profile_uid,
        estado=state_label(user),
        ban="true" if user.ban else "",
        activo="true" if user.activo else "",
        creado=user.created_at.strftime("%Y/%m/%d"),
        puede_suspender="true" if may_ban else "",
        puede_desactivar="true" if may_deactivate else "",
    )


def list_users(*, session: Session, actor: Actor, query: TableQuery) -> StaffPage:
    """One page of users (rows: UserRow): e-mail containing the search, filters ``perfil`` and ``estado``."""
    ensure_may(session, actor.uid, USERS_SPEC, "view")
    conditions = []
    if query.search:
        conditions.append(col(User.email).contains(query.search, autoescape=True))
    profile = USERS_SPEC.filter_value(PROFILE_FILTER, query.filter(PROFILE_FILTER))
    if profile:
        conditions.append(col(User.profile_uid) == profile)
    state = USERS_SPEC.filter_value(STATE_FILTER, query.filter(STATE_FILTER))
    if state:
        conditions.append(STATES[state][1])
    found, total = fetch_page(
        session, select(User).where(*conditions), query, sort_order(USERS_SPEC, SORT_COLUMNS, query, User.uid)
    )
    viewer = session.get(User, actor.uid)
    admin_bans = administrator_decisions(session, [user.uid for user in found if user.ban], BAN)
    admin_offs = administrator_decisions(session, [user.uid for user in found if not user.activo], DEACTIVATION)
    rows = [_row(user, viewer, admin_bans, admin_offs) for user in found]
    return StaffPage(rows, total, query.page, query.page_size)


def profile_of(*, session: Session, actor: Actor, user_uid: str) -> str:
    """The profile of a user, for the change-profile form."""
    ensure_may(session, actor.uid, USERS_SPEC, "edit")
    user = session.get(User, user_uid) if isinstance(user_uid, str) and user_uid else None
    if user is None:
        raise NotFoundError("El usuario no existe.")
    return user.profile_uid


def change_profile(
    *, session: Session, provider: IdentityProvider, actor: Actor, user_uid: str, profile: str
) -> UserPublic:
    """Give a user another profile. A secretary may only move a user between the non-staff profiles.

    Like ``accounts.set_profile`` (which is the administrator's alone): the user row and the
    provider's profile claim change together, with the audit entry.
    """
    ensure_staff(session, actor.uid)
    user = accounts.staff_target(session=session, actor=actor, allowed=STAFF_PROFILES, user_uid=user_uid)
    if profile not in {p.value for p in ProfileId}:
        raise InvalidInputError("Elige un perfil de la lista.", field="perfil")
    if actor.profile_uid != ProfileId.ADMINISTRADOR and (
        user.profile_uid in STAFF_PROFILES or profile in STAFF_PROFILES
    ):
        log.warning("profile change refused: secretary %s and staff profile (user %s)", actor.uid, user.uid)
        raise ForbiddenError(STAFF_PROFILE_MESSAGE)
    before = audit.snapshot(user)
    with transaction(session) as tx:
        updated = users.update_user(session=session, uid=user.uid, data={"profile_uid": profile}, commit=False)
        if user.identity_uid:
            provider.bound(tx).set_profile(uid=user.identity_uid, profile=profile)
        audit.record(
            session,
            actor_uid=actor.uid,
            action="cambiar_perfil",
            entity=ENTITY,
            entity_uid=user.uid,
            before=before,
            after=audit.snapshot(session.get(User, user.uid)),
        )
    log.warning("user %s given profile %s by %s", user.uid, profile, actor.uid)
    return updated


def set_ban(*, session: Session, provider: IdentityProvider, actor: Actor, user_uid: str, banned: bool) -> UserPublic:
    """Ban or lift a ban through ``accounts.set_ban`` (all the user's sessions end at once), audited.

    The audit entry is added to the session first, so ``set_ban``'s one commit writes both.
    """
    ensure_staff(session, actor.uid)
    user = accounts.staff_target(session=session, actor=actor, allowed=STAFF_PROFILES, user_uid=user_uid)
    accounts.ensure_may_manage(actor, user)
    if not banned and user.ban:
        _ensure_not_undoing(session, actor, user, BAN, ADMIN_BAN_MESSAGE)
    before = audit.snapshot(user)
    after = {**before, "ban": banned, "online": False if banned else user.online}
    audit.record(
        session,
        actor_uid=actor.uid,
        action="banear" if banned else "desbanear",
        entity=ENTITY,
        entity_uid=user.uid,
        before=before,
        after=after,
    )
    try:
        return accounts.set_ban(session=session, provider=provider, actor=actor, user_uid=user.uid, banned=banned)
    except BaseException:
        session.rollback()  # the audit entry goes with the refused change
        raise


def set_active(*, session: Session, actor: Actor, user_uid: str, active: bool) -> UserPublic:
    """Deactivate (hidden from lists, signed out, listings off the site) or reactivate a user, audited."""
    ensure_staff(session, actor.uid)
    user = accounts.staff_target(session=session, actor=actor, allowed=STAFF_PROFILES, user_uid=user_uid)
    accounts.ensure_may_manage(actor, user)
    if active and not user.activo:
        _ensure_not_undoing(session, actor, user, DEACTIVATION, ADMIN_DEACTIVATION_MESSAGE)
    before = audit.snapshot(user)
    with transaction(session):
        updated = users.update_user(
            session=session,
            uid=user.uid,
            data={"activo": active, "online": False if not active else user.online},
            commit=False,
        )
        if not active:
            sessions.revoke_user_sessions(session=session, user_uid=user.uid)
        audit.record(
            session,
            actor_uid=actor.uid,
            action="activar" if active else "desactivar",
            entity=ENTITY,
            entity_uid=user.uid,
            before=before,
            after=audit.snapshot(session.get(User, user.uid)),
        )
    log.warning("user %s %s by %s", user.uid, "reactivated" if active else "deactivated", actor.uid)
    return updated
