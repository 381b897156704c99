"""The staff table base (app/states/staff/table.py) through the users table, called as the browser would.

The state holds one page of at most 50 rows; a sort key outside the spec's sortable columns
sorts by the default; the search is trimmed; a filter value the spec does not offer clears the
filter; the create/edit dialog shows the service's refusal; CSV export is the administrator's.
The audit table shows filters whose options are read from the data, and the forms' selects of
linked records (an advertiser's agency, a listing's tier) offer the records that exist.
"""

from __future__ import annotations

import base64
import csv
import io
from datetime import date

import pytest
from sqlmodel import Session, select

from app.db import get_engine
from app.identity.local import LocalProvider
from app.models import Advertiser, AdvertiserType, Agency, Listing, ProfileId, User
from app.services.staff import users as staff_users
from app.services.staff.table_spec import OPTION_MESSAGE, PAGE_SIZE, Column, FormField, TableSpec
from app.states.staff.audit import AuditTableState, changes
from app.states.staff.directory import AdvertisersTableState
from app.states.staff.listings import StaffListingsState
from app.states.staff.table import csv_cell
from app.states.staff.users import UsersTableState
from tests.factories import actor_of, make_account, make_listing, make_owner, open_session, tier_of
from tests.handlers import client_states, invoke

EXTRA_USERS = 57  # with the two staff accounts: 59 users, two pages


@pytest.fixture
def tokens(db: Session) -> dict[str, str]:
    provider = LocalProvider(engine=get_engine())
    admin = make_account(db, provider, "admin@example.cl", profile=ProfileId.ADMINISTRADOR)
    secre = make_account(db, provider, "secre@example.cl", profile=ProfileId.SECRETARIA)
    for number in range(EXTRA_USERS):
        db.add(User(email=f"persona{number:02d}@example.cl", display_name=f"P{number}", profile_uid="cliente"))
    db.add(User(email="=cmd@example.cl", display_name="=HYPERLINK()", profile_uid="profesor"))
    db.commit()
    return {"admin": open_session(db, admin.uid), "secre": open_session(db, secre.uid)}


def _opened(token: str, opener: str = "open_admin") -> UsersTableState:
    state, _ = client_states(UsersTableState, token)
    invoke(state, opener)
    assert state.loaded
    return state


def _redirected_home(events) -> bool:
    return any(getattr(getattr(event, "handler", None), "fn", None).__qualname__ == "_redirect" for event in events)


def test_the_state_holds_one_page_of_at_most_fifty_rows(tokens):
    state = _opened(tokens["admin"])
    assert (state.total, state.page, state.page_count) == (EXTRA_USERS + 3, 1, 2)
    assert len(state.rows) == PAGE_SIZE
    assert all(set(row) >= {"uid", "email", "perfil", "estado"} for row in state.rows)
    invoke(state, "next_page")
    assert state.page == 2 and len(state.rows) == EXTRA_USERS + 3 - PAGE_SIZE
    invoke(state, "next_page")
    assert state.page == 2
    invoke(state, "prev_page")
    invoke(state, "prev_page")
    assert state.page == 1


def test_sorting_only_by_whitelisted_columns(tokens):
    state = _opened(tokens["admin"])
    invoke(state, "sort", key="email")
    assert (state.sort_key, state.sort_desc) == ("email", False)
    emails = [row["email"] for row in state.rows]
    assert emails == sorted(emails)
    invoke(state, "sort", key="email")
    assert state.sort_desc is True
    for refused in ("estado", "password", "email; DROP TABLE usuarios", ""):
        invoke(state, "sort", key=refused)
        assert state.sort_key == UsersTableState._spec.default_sort


def test_search_is_trimmed_and_filters_take_only_offered_values(tokens):
    state = _opened(tokens["admin"])
    invoke(state, "search", form_data={"q": "  persona0  "})
    assert state.search_text == "persona0" and state.total == 10
    invoke(state, "search", form_data={"q": "x" * 500})
    assert len(state.search_text) == 100 and state.total == 0
    invoke(state, "search", form_data={"q": ""})
    invoke(state, "set_filter", key="perfil", value="secretaria")
    assert state.total == 1 and state.rows[0]["email"] == "secre@example.cl"
    invoke(state, "set_filter", key="perfil", value="rey")
    assert state.filters["perfil"] == "" and state.total == EXTRA_USERS + 3
    invoke(state, "set_filter", key="not-a-filter", value="x")
    assert "not-a-filter" not in state.filters


def test_the_edit_dialog_shows_the_services_refusal_and_changes_nothing(tokens, db):
    state = _opened(tokens["secre"], "open_secretary")
    invoke(state, "set_filter", key="perfil", value="administrador")
    admin_uid = state.rows[0]["uid"]
    invoke(state, "open_edit", uid=admin_uid)
    assert state.dialog == "editar" and state.form_values == {"perfil": "administrador"}
    invoke(state, "save", form_data={"perfil": "cliente"})
    assert "administrador" in state.error and state.busy is False and state.dialog == "editar"
    invoke(state, "save", form_data={"perfil": "emperador"})
    assert state.field_errors == {"perfil": "Elige una opción de la lista."}
    db.expire_all()
    assert db.get(User, admin_uid).profile_uid == "administrador"


def test_a_row_not_on_the_page_cannot_be_acted_on(tokens, db):
    state = _opened(tokens["admin"])
    invoke(state, "search", form_data={"q": "persona01"})
    hidden = db.exec(User.__table__.select().where(User.email == "persona02@example.cl")).first()
    invoke(state, "ban", uid=hidden.uid)
    invoke(state, "open_edit", uid=hidden.uid)
    assert state.dialog == ""
    db.expire_all()
    assert db.get(User, hidden.uid).ban is False


def test_csv_export_is_the_administrators_and_has_every_matching_row(tokens):
    secretary = _opened(tokens["secre"], "open_secretary")
    assert secretary.can_export is False
    assert _redirected_home(invoke(secretary, "export_csv"))
    state = _opened(tokens["admin"])
    assert state.can_export is True
    invoke(state, "set_filter", key="perfil", value="cliente")
    (download,) = invoke(state, "export_csv")
    url = str({str(k): v for k, v in download.args}["url"]).strip('"')
    text = base64.b64decode(url.split("base64,", 1)[1]).decode("utf-8").lstrip("\ufeff")
    lines = list(csv.reader(io.StringIO(text)))
    assert lines[0] == [column.label for column in UsersTableState._spec.columns]
    assert len(lines) == 1 + EXTRA_USERS
    invoke(state, "set_filter", key="perfil", value="profesor")
    (download,) = invoke(state, "export_csv")
    url = str({str(k): v for k, v in download.args}["url"]).strip('"')
    text = base64.b64decode(url.split("base64,", 1)[1]).decode("utf-8")
    assert "'=cmd@example.cl" in text and "'=HYPERLINK()" in text


def test_a_spec_refuses_more_than_fifty_rows_a_page_or_an_unsortable_default():
    columns = (Column("a", "A", sortable=True), Column("b", "B"))
    with pytest.raises(ValueError):
        TableSpec(entity="x", title="X", columns=columns, default_sort="a", page_size=51)
    with pytest.raises(ValueError):
        TableSpec(entity="x", title="X", columns=columns, default_sort="b")
    with pytest.raises(ValueError):
        TableSpec(entity="x", title="X", columns=columns, default_sort="a", admin_only_actions=frozenset())
    assert FormField("n", "N", kind="number").clean("12") == (12, "")
    assert FormField("n", "N", kind="number").clean("١٢")[1]
    # Too long is refused with the limit, never cut: nothing a person wrote is lost without a word.
    assert FormField("t", "T", kind="textarea", max_length=5).clean("seis c") == (
        None,
        "Escribe como máximo 5 caracteres.",
    )
    assert FormField("t", "T", max_length=5).clean("  cinco  ") == ("cinco", "")
    assert csv_cell("+56 9 1234") == "'+56 9 1234" and csv_cell("hola") == "hola"


def test_the_audit_table_filters_by_person_entity_and_day_with_options_from_the_data(tokens, db):
    admin = db.exec(select(User).where(User.email == "admin@example.cl")).one()
    target = db.exec(select(User).where(User.email == "persona00@example.cl")).one()
    staff_users.set_active(session=db, actor=actor_of(admin), user_uid=target.uid, active=False)
    state, _ = client_states(AuditTableState, tokens["admin"])
    invoke(state, "open_admin")
    assert state.options == {"entidad": [["usuarios", "usuarios"]]}
    assert state.total == 1
    (row,) = state.rows
    assert (row["persona"], row["accion"], row["registro"]) == ("admin@example.cl", "desactivar", target.uid)
    assert "activo: true → false" in row["cambios"]
    invoke(state, "set_filter", key="entidad", value="publicacion")  # not among the options read
    assert state.filters["entidad"] == "" and state.total == 1
    invoke(state, "search", form_data={"q": "secre@example.cl"})
    assert state.total == 0
    invoke(state, "search", form_data={"q": "ADMIN@example.cl"})
    assert state.total == 1
    invoke(state, "set_filter", key="desde", value="2999-01-01")
    assert state.total == 0
    invoke(state, "set_filter", key="desde", value="no-es-fecha")
    assert state.filters["desde"] == "" and state.total == 1
    assert changes("", '{"a": 1}') == "Creado" and changes('{"a": 1}', "") == "Eliminado"


def test_linked_records_are_chosen_in_selects_whose_options_come_from_the_data(tokens, db):
    """The advertiser's agency and type, and a listing's tier: selects of the records that exist;
    a value outside them is refused under its field and changes nothing."""
    agency, kind = Agency(name="Agencia Sur"), AdvertiserType(name="Independiente")
    db.add_all([agency, kind])
    owner = make_owner(db, "duena@example.cl")
    advertiser = Advertiser(
        user_uid=owner.uid, display_name="Dueña", rut="11.111.111-1", birth_date=date(1990, 5, 1), nationality="Chile"
    )
    db.add(advertiser)
    db.commit()
    listing = make_listing(db, owner, name="Con categoría", tier="platino")

    state, _ = client_states(AdvertisersTableState, tokens["secre"])
    invoke(state, "open_secretary")
    assert state.rows[0]["birth_date"] == "01-05-1990"  # day first, as the wizard writes it
    invoke(state, "open_edit", uid=advertiser.uid)
    assert state.form_values["birth_date"] == "01-05-1990"
    assert state.options["agency_uid"] == [[agency.uid, "Agencia Sur"]]
    assert [kind.uid, "Independiente"] in state.options["type_uid"]
    form = {**state.form_values, "agency_uid": "otra-agencia", "type_uid": kind.uid}
    invoke(state, "save", form_data=form)
    assert state.field_errors == {"agency_uid": OPTION_MESSAGE}
    db.expire_all()
    assert db.get(Advertiser, advertiser.uid).agency_uid is None
    invoke(state, "save", form_data={**form, "agency_uid": agency.uid})
    assert state.dialog == "" and state.field_errors == {}
    db.expire_all()
    stored = db.get(Advertiser, advertiser.uid)
    assert (stored.agency_uid, stored.type_uid) == (agency.uid, kind.uid)
    assert state.rows[0]["agency"] == "Agencia Sur"

    listings, _ = client_states(StaffListingsState, tokens["secre"])
    invoke(listings, "open_secretary")
    invoke(listings, "open_edit", uid=listing.uid)
    ruby = tier_of(db, "ruby")
    assert listings.form_values["tier_uid"] == tier_of(db, "platino").uid
    assert [ruby.uid, ruby.name] in listings.options["tier_uid"]
    invoke(listings, "save", form_data={**listings.form_values, "tier_uid": "no-existe"})
    assert listings.field_errors == {"tier_uid": OPTION_MESSAGE}
    about = "Una descripción con bastante detalle para la revisión."
    invoke(listings, "save", form_data={**listings.form_values, "tier_uid": ruby.uid, "description": about})
    assert listings.field_errors == {} and listings.dialog == ""
    db.expire_all()
    assert db.get(Listing, listing.uid).base_tier_uid == ruby.uid
