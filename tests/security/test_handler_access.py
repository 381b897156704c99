"""Every event handler of every state of the app, called as every kind of caller.

Any client can call any handler with any arguments, so the server must check.
This test reads the handlers from Reflex's own registry, the table the server
dispatches incoming events by, so a handler of any state (a mixin, a
``ComponentState``, a state made at run time, any module) is found. Each
one is declared ``@public`` or ``@requires(...)``; ``@public`` is allowed only
on the explicit list below. Reflex's own handlers are allowed by name. Each
``@requires`` handler is then called for real, with the database on
PostgreSQL, by an anonymous client, by a user of every profile it does not
allow, by a banned user of a profile it allows, and by an administrator and a
secretary whose sessions have not passed the second factor (issue 20 §1: no
staff rights before it, on any handler): each must be refused (redirected
home, or to the second-factor page) with the database and the handler's state
unchanged. A signed-in user of an allowed profile must get through. The
second-factor step's own handlers (``@second_factor_step``) admit exactly the
staff sessions at that step (and past it), and refuse everyone else.

The callers are made once for the module; the database is compared before
and after each call by a digest of every row of every table, and restored
from a pristine copy whenever a test left it changed.
"""

from __future__ import annotations

import inspect
import logging
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import psycopg
import pytest
import reflex as rx
from reflex_base.registry import RegistrationContext
from sqlalchemy import text, update
from sqlalchemy.engine import make_url
from sqlmodel import Session, SQLModel, select

from app.db import get_engine
from app.identity.guards import HOME
from app.identity.local import LocalProvider
from app.models import STAFF_PROFILES, ProfileId, User, UserSession, utc_now
from app.routes import SECOND_FACTOR
from app.settings import get_settings
from app.states.auth import ACCESS_ATTR, PUBLIC, SECOND_FACTOR_STEP_ATTR, STALE_PAGE_MESSAGE, public
from tests.conftest import pg_server_url
from tests.factories import make_account, open_session
from tests.handlers import client_states, invoke

# Reflex's own handlers, by state and name, and why each is safe to leave unmarked.
FRAMEWORK_HANDLERS = {
    # Hydration sends the client's own stored values and runs the page's on_load list (each marked itself).
    "State.hydrate",
    "State.hydrate_and_load",
    "State.set_is_hydrated",
    "OnLoadInternalState.on_load_internal",
    "OnLoadInternalState.set_is_hydrated",
    # Writes the client's own router/query vars.
    "UpdateVarsInternalState.update_vars_internal",
    # Logs a browser-side error report.
    "FrontendEventExceptionState.handle_frontend_exception",
}
# setvar(name, value) only calls set_<name>; with auto-setters off that is a handler we wrote (and marked).
SETVAR = "setvar"
# The only handlers that may be @public: public pages, the age gate, the sign-in forms, the
# report form, the session check, and pure display toggles that touch no data.
PUBLIC_HANDLERS = {
    "AuthState.check_session",
    "AuthState.sign_out",
    "AuthState.signed_out",
    "AgeGateState.accept",
    "DirectoryState.load",
    "DirectoryState.next_page",
    "DirectoryState.previous_page",
    # The city page's filter form: public data only; field names and services come from whitelists.
    "DirectoryState.set_filter",
    "DirectoryState.toggle_service",
    "DirectoryState.apply_filters",
    # A visitor's contact click on the public listing shown: a daily counter, once per visitor, no data out.
    "DirectoryState.count_whatsapp",
    "DirectoryState.count_call",
    "LoginState.load",
    "LoginState.select_tab",
    "LoginState.sign_in",
    "LoginState.session_opened",
    "LoginState.sign_up",
    "LoginState.request_reset",
    "AccountActionState.load",
    "AccountActionState.reset_password",
    "ReportState.load",
    "ReportState.submit",
    "ReportState.write_again",
    # Hides an area page's content until its guarded open_* handler accepts the caller.
    "AreaState.close",
    # Open or close the password dialog; report a failed cookie renewal after a password change.
    "PasswordDialogState.set_open",
    "PasswordDialogState.session_renewed",
    # Shows how much of a photo upload has reached the server (a number from the browser, display only).
    "WizardState.show_upload_progress",
    # While a clip processes, asks the browser every few seconds for the guarded ClipsState.refresh; reads only
    # the tab's own vars (background event: it cannot resolve a session outside `async with self`).
    "ClipsState.watch",
    # The same for photos still processing (the guarded PendingPhotosState.refresh).
    "PendingPhotosState.watch",
    # Take away the message under a field the user just changed (the caller's own display only).
    "LoginState.clear_field_error",
    "AccountActionState.clear_field_error",
    "PasswordDialogState.clear_field_error",
    "PrivacyState.clear_field_error",
    "EmailChangeState.clear_field_error",
    "ReportState.clear_field_error",
    "WizardState.clear_field_error",
    "SecondFactorState.clear_field_error",
}


def _registered() -> list[tuple[type, str, object]]:
    """(state class, handler name, handler) for every handler in Reflex's dispatch registry."""
    found = []
    for registered in RegistrationContext.get().event_handlers.values():
        name = registered.handler.fn.__name__
        found.extend(
            (state_cls, name, state_cls.event_handlers.get(name, registered.handler)) for state_cls in registered.states
        )
    return sorted(found, key=lambda item: (item[0].get_full_name(), item[1]))


def _is_framework(item) -> bool:
    cls, name, _ = item
    return name == SETVAR or f"{cls.__name__}.{name}" in FRAMEWORK_HANDLERS


HANDLERS = [item for item in _registered() if not _is_framework(item)]
GUARDED = [(cls, name, h) for cls, name, h in HANDLERS if getattr(h.fn, ACCESS_ATTR, None) not in (None, PUBLIC)]


def _id(item) -> str:
    cls, name, _ = item
    return f"{cls.__name__}.{name}"


def test_the_walk_finds_the_app_handlers():
    names = {_id(item) for item in HANDLERS}
    # A sample from every state module, so an empty walk cannot pass.
    for expected in (
        "DirectoryState.load",
        "ReportState.submit",
        "AuthState.sign_out",
        "LoginState.sign_in",
        "PasswordDialogState.change_password",
        "StaffOverviewState.open_page",
        "NoticePreferencesState.save",
        "SiteSettingsState.save",
        # Mi cuenta (issue 20 §2): every profile's own data, nobody else's.
        "PrivacyState.open_page",
        "PrivacyState.request_export",
        "PrivacyState.delete_account",
        "EmailChangeState.request_email_change",
    ):
        assert expected in names
    assert len(GUARDED) >= 4


def test_the_walk_sees_states_from_anywhere():
    """A state made at run time, outside app/, by a mixin, and a ComponentState are all found."""

    class Mixin(rx.State, mixin=True):
        @public
        def from_mixin(self):
            """A handler a mixin brings."""

    def stray(self):
        """A handler nobody marked."""

    with RegistrationContext.get().fork():
        made = type("MadeAtRunTime", (Mixin, rx.State), {"__module__": "somewhere.else", "stray": stray})

        class Widget(rx.ComponentState):
            def bump(self):
                """A ComponentState handler."""

            @classmethod
            def get_component(cls, **props):
                return rx.el.div()

        Widget.create()
        found = {_id(item) for item in _registered()}
        assert {"MadeAtRunTime.stray", "MadeAtRunTime.from_mixin"} <= found
        assert any(name.endswith(".bump") for name in found), found
    assert made.__name__ not in {cls.__name__ for cls, _, _ in _registered()}  # the fork is gone


def test_every_handler_declares_who_may_call_it():
    undeclared = [_id(item) for item in HANDLERS if getattr(item[2].fn, ACCESS_ATTR, None) is None]
    assert undeclared == [], f"handlers without @public or @requires: {undeclared}"


def test_public_only_where_the_list_allows_it():
    public_handlers = {_id(item) for item in HANDLERS if getattr(item[2].fn, ACCESS_ATTR, None) == PUBLIC}
    assert public_handlers - PUBLIC_HANDLERS == set(), "@public outside the public states"


def test_reflex_adds_no_unreviewed_handlers():
    framework = {_id(item) for item in _registered() if item[0].__module__.startswith("reflex") and item[1] != SETVAR}
    assert framework == FRAMEWORK_HANDLERS


def test_no_state_has_automatic_setters():
    # setvar(name, value) calls set_<name>; only handlers we wrote (and marked) may answer it.
    for state_cls in {cls for cls, _, _ in _registered()}:
        for var_name in state_cls.base_vars:
            setter = state_cls.event_handlers.get(f"set_{var_name}")
            if setter is not None and f"{state_cls.__name__}.set_{var_name}" not in FRAMEWORK_HANDLERS:
                assert getattr(setter.fn, ACCESS_ATTR, None) is not None, f"{state_cls.__name__}.set_{var_name}"


def _dummy_args(fn) -> dict:
    args = {}
    for param in list(inspect.signature(fn).parameters.values())[1:]:
        annotation = param.annotation
        if annotation in (dict, "dict"):
            args[param.name] = {"email": "x@example.cl", "password": "x"}
        elif annotation in (bool, "bool"):
            args[param.name] = True
        elif annotation in (int, "int"):
            args[param.name] = 1
        else:
            args[param.name] = "x"
    return args


def _redirects_home(events: list, *, to: tuple[str, ...] = (HOME,)) -> bool:
    for event in events:
        handler = getattr(event, "handler", None)
        if handler is not None and handler.fn.__qualname__ == "_redirect":
            path = {str(k): str(v) for k, v in event.args}.get("path", "")
            if path.strip('"') in to:
                return True
    return False


PENDING = [f"pending-{p.value}" for p in sorted(STAFF_PROFILES)]


def _is_second_factor_step(handler) -> bool:
    return bool(getattr(handler.fn, SECOND_FACTOR_STEP_ATTR, False))


# Every table of the schema (as listed when it runs), with its row count and a digest of all its rows: one statement.
FINGERPRINT = """
SELECT tablename::text, (xpath('/row/n/text()', x))[1]::text, (xpath('/row/d/text()', x))[1]::text
FROM pg_tables, LATERAL query_to_xml(format(
    'SELECT count(*) AS n, md5(coalesce(string_agg(r::text, '','' ORDER BY r::text), '''')) AS d FROM %I.%I AS r',
    schemaname, tablename), false, true, '') AS x
WHERE schemaname = current_schema()
"""


def _state_values(state) -> dict:
    return {name: repr(getattr(state, name)) for name in state.base_vars}


def _make_callers(engine) -> dict[str, str]:
    """A session token for one user of each profile, one banned user per profile, and none.

    Staff also get one whose session has not passed the second factor (``pending-…``: no factor set up yet).
    """
    provider = LocalProvider(engine=engine)
    tokens = {"anonymous": ""}
    with Session(engine, expire_on_commit=False) as session:
        for profile in ProfileId:
            user = make_account(session, provider, f"{profile.value}@example.cl", profile=profile)
            tokens[profile.value] = open_session(session, user.uid)
            if profile in STAFF_PROFILES:
                pending = make_account(session, provider, f"pending-{profile.value}@example.cl", profile=profile)
                tokens[f"pending-{profile.value}"] = open_session(session, pending.uid, second_factor=False)
            banned = make_account(session, provider, f"ban-{profile.value}@example.cl", profile=profile, ban=True)
            tokens[f"banned-{profile.value}"] = open_session(session, banned.uid)
    return tokens


def _admin() -> psycopg.Connection:
    server = make_url(pg_server_url()).set(drivername="postgresql").render_as_string(hide_password=False)
    return psycopg.connect(server, autocommit=True, connect_timeout=5)


def _database_url(name: str) -> str:
    return make_url(pg_server_url()).set(database=name).render_as_string(hide_password=False)


class SharedCallers:
    """The callers, made once (passwords are hashed slowly) in a database every test of this module shares.

    A pristine copy holds them. Before each test the shared database is compared
    with how the last check left it; if a test (an allowed caller gets through
    and may ban, end sessions, write rows…) changed anything, it is copied
    again from the pristine one. Sessions are marked as just used from time to
    time, so a guard never records a use (a write) during a test.
    """

    FRESH_FOR = timedelta(minutes=1)

    def __init__(self, pristine: str, working: str, tokens: dict[str, str]) -> None:
        self.pristine, self.working, self.tokens = pristine, working, tokens
        self.expected: dict | None = None
        self.refreshed_at = datetime.min.replace(tzinfo=UTC)

    def fingerprint(self) -> dict[str, tuple[int, str]]:
        """Row count and content digest of every table, in one round trip."""
        with get_engine().connect() as connection:
            return {name: (count, digest) for name, count, digest in connection.execute(text(FINGERPRINT))}

    def _copy_pristine(self) -> None:
        get_engine().dispose()
        with _admin() as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{self.working}" WITH (FORCE)')
            admin.execute(f'CREATE DATABASE "{self.working}" TEMPLATE "{self.pristine}"')

    def ready(self) -> dict[str, str]:
        """The callers' tokens, with the shared database as the callers left it and their sessions fresh."""
        now = datetime.now(UTC)
        if self.expected is not None and self.fingerprint() != self.expected:
            self._copy_pristine()
            self.refreshed_at = datetime.min.replace(tzinfo=UTC)
        if now - self.refreshed_at > self.FRESH_FOR:
            with Session(get_engine()) as session:
                session.execute(update(UserSession).values(last_seen_at=utc_now()))
                session.commit()
            self.refreshed_at = now
            self.expected = self.fingerprint()
        return self.tokens


@pytest.fixture(scope="module")
def shared_callers(pg_template: str, tmp_path_factory) -> Iterator[SharedCallers]:
    """The app pointed at a PostgreSQL database of this module's own, holding the callers."""
    suffix = uuid.uuid4().hex[:12]
    pristine, working = f"callers_{suffix}", f"access_{suffix}"
    patch = pytest.MonkeyPatch()
    try:
        with _admin() as admin:
            admin.execute(f'CREATE DATABASE "{pristine}" TEMPLATE "{pg_template}"')
        patch.setenv("DATABASE_URL", _database_url(pristine))
        patch.setenv("OUTBOX_DIR", str(tmp_path_factory.mktemp("outbox")))
        patch.setenv("SMTP_HOST", "")
        get_settings.cache_clear()
        get_engine.cache_clear()
        tokens = _make_callers(get_engine())
        get_engine().dispose()
        get_engine.cache_clear()
        with _admin() as admin:
            admin.execute(f'CREATE DATABASE "{working}" TEMPLATE "{pristine}"')
        patch.setenv("DATABASE_URL", _database_url(working))
        get_settings.cache_clear()
        yield SharedCallers(pristine, working, tokens)
    finally:
        get_engine().dispose()
        patch.undo()
        get_settings.cache_clear()
        get_engine.cache_clear()
        with _admin() as admin:
            for name in (working, pristine):
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def callers(shared_callers: SharedCallers) -> dict[str, str]:
    """A session token for one user of each profile, one banned user per profile, and none ("")."""
    return shared_callers.ready()


def test_the_fingerprint_sees_every_change(shared_callers, callers):
    """An insert, an update, a delete and a new table each change the fingerprint; nothing else does."""
    tables = {table.name for table in SQLModel.metadata.sorted_tables}
    assert tables <= set(shared_callers.fingerprint())
    before = shared_callers.fingerprint()
    assert shared_callers.fingerprint() == before
    with Session(get_engine()) as session:
        user = session.exec(select(User).where(User.email == "cliente@example.cl")).one()
        for change in (
            lambda: session.add(UserSession(token_hash="0" * 64, user_uid=user.uid, expires_at=utc_now())),
            lambda: setattr(user, "display_name", "otra"),
            lambda: session.delete(session.get(UserSession, "0" * 64)),
            lambda: session.execute(text("CREATE TABLE stray (x integer)")),
        ):
            change()
            session.add(user)
            session.commit()
            after = shared_callers.fingerprint()
            assert after != before
            before = after
    # The next test gets the callers back as they were.
    assert shared_callers.ready() == callers
    assert shared_callers.fingerprint() == shared_callers.expected
    with Session(get_engine()) as session:
        assert session.exec(select(User).where(User.email == "cliente@example.cl")).one().display_name == "cliente"


def _wrong_callers(handler) -> list[str]:
    allowed = getattr(handler.fn, ACCESS_ATTR)
    wrong = ["anonymous"] + [p.value for p in ProfileId if p.value not in allowed] + [f"banned-{p}" for p in allowed]
    # No staff rights before the second factor: every handler but the second-factor step refuses such a session.
    return wrong if _is_second_factor_step(handler) else wrong + PENDING


def _allowed_callers(handler) -> list[str]:
    allowed = sorted(getattr(handler.fn, ACCESS_ATTR))
    return allowed + [f"pending-{p}" for p in allowed] if _is_second_factor_step(handler) else allowed


@pytest.mark.parametrize("item", GUARDED, ids=[_id(item) for item in GUARDED])
def test_guarded_handler_refuses_every_wrong_caller(item, callers, shared_callers):
    state_cls, name, handler = item
    before_db = shared_callers.fingerprint()
    for caller in _wrong_callers(handler):
        state, auth = client_states(state_cls, callers[caller])
        auth.user = '{"uid": "shown-before"}'  # what the browser displayed before the call
        before_state = _state_values(state)
        events = invoke(state, name, **_dummy_args(handler.fn))
        after_db = shared_callers.fingerprint()
        changed = sorted(t for t in after_db.keys() | before_db.keys() if after_db.get(t) != before_db.get(t))
        refused_to = (SECOND_FACTOR,) if caller.startswith("pending-") else (HOME,)
        assert _redirects_home(events, to=refused_to), f"{_id(item)} did not refuse {caller}: {events}"
        assert changed == [], f"{_id(item)} changed the database for {caller}: tables {changed}"
        assert _state_values(state) == before_state, f"{_id(item)} changed its state for {caller}"
        if caller.startswith("banned-"):
            assert auth.user == "", "a banned caller must be signed out"
        if caller.startswith("pending-"):
            assert auth.user == "", "a session before its second factor shows nobody signed in"


@pytest.mark.parametrize("item", GUARDED, ids=[_id(item) for item in GUARDED])
def test_guarded_handler_lets_allowed_profiles_in(item, callers):
    state_cls, name, handler = item
    for caller in _allowed_callers(handler):
        state, _ = client_states(state_cls, callers[caller])
        events = invoke(state, name, **_dummy_args(handler.fn))
        assert not _redirects_home(events, to=(HOME, SECOND_FACTOR)), f"{_id(item)} refused an allowed {caller}"


def test_staff_handlers_are_many_and_the_second_factor_step_is_few():
    """The walk covers every staff handler with the pending callers; only the second-factor page's are exempt."""
    staff = {p.value for p in STAFF_PROFILES}
    staff_handlers = [item for item in GUARDED if staff & set(getattr(item[2].fn, ACCESS_ATTR))]
    steps = {_id(item) for item in GUARDED if _is_second_factor_step(item[2])}
    assert len(staff_handlers) > 50
    assert steps == {
        "SecondFactorState.load",
        "SecondFactorState.confirm",
        "SecondFactorState.verify",
        "SecondFactorState.recover",
    }


def _caller_for(handler) -> str:
    """A caller the handler lets in: anonymous for a public one, an allowed profile otherwise."""
    access = getattr(handler.fn, ACCESS_ATTR)
    return "anonymous" if access == PUBLIC else sorted(access)[0]


@pytest.mark.parametrize("item", HANDLERS, ids=[_id(item) for item in HANDLERS])
def test_a_call_with_an_unknown_argument_is_refused_cleanly(item, callers, shared_callers, caplog):
    """A client sending an argument the handler does not take: a warning (no traceback), nothing changed."""
    state_cls, name, handler = item
    before_db = shared_callers.fingerprint()
    state, _ = client_states(state_cls, callers[_caller_for(handler)])
    before_state = _state_values(state)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="app.states.auth"):
        events = invoke(state, name, **_dummy_args(handler.fn), basura="<script>")
    refusals = [r for r in caplog.records if "do not fit" in r.getMessage()]
    assert len(refusals) == 1, f"{_id(item)}: {[r.getMessage() for r in caplog.records]}"
    (record,) = refusals
    assert record.levelno == logging.WARNING and record.exc_info is None
    assert "basura" in record.getMessage() and "<script>" not in record.getMessage()
    assert STALE_PAGE_MESSAGE in repr(events)
    assert _state_values(state) == before_state
    assert shared_callers.fingerprint() == before_db
