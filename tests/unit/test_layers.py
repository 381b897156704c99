"""Imports go one way: the layers of ``app/``, checked on the source with ``ast`` (tests/layers.py).

From the bottom up; a module may import its own layer and the ones below, never one above:

1. core: ``app.core`` (pure helpers and the typed errors) imports nothing of the app.
2. settings and texts: ``app.settings`` (configuration) and ``app.content`` (the site's fixed texts):
   plain data that every layer may read, importing only core.
3. models: ``app.models`` (tables, schemas, status transitions and the directory's filter tabs as data).
4. URL rules: ``app.routes`` (the paths and the pure redirect rules) and ``app.seo`` (head tags,
   sitemap XML): pure functions of paths and models, which services (links in e-mails and
   reports), states and the web adapters all read.
5. infrastructure: ``app.db`` (engine, sessions, the one unit of work), ``app.task_queue`` (jobs
   deferred by task name in the caller's transaction) ``app.logs`` (log lines and error reports) and
   ``app.metrics`` (the Prometheus metrics).
6. adapters: ``app.storage`` (photo storage), ``app.identity`` (providers, sessions, sign-in
   throttle, area guards, the purge job), ``app.services.mail`` (the mail queue) and
   ``app.services.abuse`` (the rate limiter the throttle uses): they talk to the world outside
   the database and know nothing of the use cases.
7. services: the rest of ``app.services``, the use cases.
8. states: ``app.states``.
9. components: ``app.components``.
10. pages: ``app.pages`` and ``app.route_table`` (the route table of page functions, states and
    guards, which the composition root and the web adapters read).
11. web: ``app.web``, the HTTP and ASGI adapters.
12. entry points: ``app.app`` (the one composition root), ``app.cli`` and ``app.seed``
    (command-line tools, started by hand, imported by nobody in the app) and ``app.tasks`` (what each
    background task does, run by the worker the app or ``app.cli worker`` starts).

Besides the layers: nothing imports ``app.app`` (it hands the ``rx.App`` to whoever needs it),
below the states nothing imports Reflex, no module uses another module's ``_private`` name,
only ``app.db`` calls a session's ``commit()`` (the one unit of work), and the import graph has no
cycle. A new module outside every layer fails the check until it is placed here. The README and
docs/ARCHITECTURE.md write these layers in one line, and their maps name every top-level module
and package of ``app/``: both are checked against the code here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.layers import (
    ROOT,
    cycles,
    documented_layers,
    forbidden_imports,
    import_graph,
    imports_of,
    internal,
    layer_violations,
    mapped_entries,
    module_imports,
    private_name_uses,
    raw_commits,
    top_level_entries,
    unplaced_modules,
)

PACKAGE = "app"
COMPOSITION_ROOT = "app.app"
UNIT_OF_WORK = "app.db"
LAYERS = (
    ("core", ("app.core",)),
    ("settings and texts", ("app.settings", "app.content")),
    ("models", ("app.models",)),
    ("URL rules", ("app.routes", "app.seo")),
    ("infrastructure", ("app.db", "app.task_queue", "app.logs", "app.metrics")),
    ("adapters", ("app.storage", "app.identity", "app.services.mail", "app.services.abuse")),
    ("services", ("app.services",)),
    ("states", ("app.states",)),
    ("components", ("app.components",)),
    ("pages", ("app.pages", "app.route_table")),
    ("web", ("app.web",)),
    ("entry points", ("app.app", "app.cli", "app.seed", "app.tasks")),
)
# The documents that draw the layers in one line and map app/'s top level.
DOCUMENTS = ("README.md", "docs/ARCHITECTURE.md")
# Below the states, no module imports the web framework.
FRAMEWORK_FREE = LAYERS[: [name for name, _ in LAYERS].index("states")]
FRAMEWORK = ("reflex", "reflex_base")


@pytest.fixture(scope="module")
def imports():
    return module_imports(ROOT, PACKAGE)


def test_every_module_has_a_layer():
    assert unplaced_modules(ROOT, PACKAGE, LAYERS) == []


def test_no_module_imports_a_higher_layer(imports):
    assert layer_violations(imports, PACKAGE, LAYERS) == []


def test_nothing_imports_the_composition_root(imports):
    assert imports_of(imports, COMPOSITION_ROOT) == []


def test_below_the_states_nothing_imports_reflex(imports):
    assert forbidden_imports(imports, FRAMEWORK_FREE, FRAMEWORK) == []


def test_no_module_uses_another_modules_private_name():
    assert private_name_uses(ROOT, PACKAGE) == []


def test_only_the_unit_of_work_commits():
    assert raw_commits(ROOT, PACKAGE, UNIT_OF_WORK) == []


def test_the_import_graph_has_no_cycle(imports):
    assert cycles(import_graph(internal(imports, PACKAGE))) == []


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_documents_draw_the_checked_layers(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    assert documented_layers(text, PACKAGE) == [tuple(prefixes for _, prefixes in LAYERS)]


@pytest.mark.parametrize("document", DOCUMENTS)
def test_the_documents_map_names_every_top_level_module(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    assert mapped_entries(text, PACKAGE) == top_level_entries(ROOT, PACKAGE)


# --- The checks catch what they should, on a small tree made for it -----------------------------


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in {"app/__init__.py": "", **files}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


@pytest.fixture
def violations(tmp_path) -> Path:
    """A core module importing a service, a function-level import of the composition root, a service
    reading another's private name (both ways), a model importing Reflex, a cycle, a module in no layer,
    a service committing its session itself."""
    return _tree(
        tmp_path,
        {
            "app/core/__init__.py": "",
            "app/core/money.py": "from app.services import listings\n",
            "app/models/__init__.py": "import reflex as rx\n",
            "app/services/__init__.py": "",
            "app/services/listings.py": (
                "from app.core import money\n\ndef _public():\n    return 1\n\n"
                "def upload():\n    from app.app import app\n    return app\n"
            ),
            "app/services/photos.py": (
                "from app.services.listings import _public\n\ndef save(session):\n    session.commit()\n"
            ),
            "app/services/sitemap.py": "from app.services import listings\n\nWHERE = listings._public()\n",
            "app/app.py": "",
            "app/stray.py": "",
        },
    )


def test_a_deliberate_violation_fails_each_check(violations):
    imports = module_imports(violations, PACKAGE)
    assert layer_violations(imports, PACKAGE, LAYERS) == [
        "app.core.money:1 (core) imports app.services.listings (services)",
        "app.services.listings:7 (services) imports app.app (entry points)",
    ]
    assert imports_of(imports, COMPOSITION_ROOT) == ["app.services.listings:7 imports app.app inside a function"]
    assert forbidden_imports(imports, FRAMEWORK_FREE, FRAMEWORK) == ["app.models:1 imports reflex"]
    assert private_name_uses(violations, PACKAGE) == [
        "app.services.photos:1 imports app.services.listings._public",
        "app.services.sitemap:3 uses app.services.listings._public",
    ]
    assert cycles(import_graph(internal(imports, PACKAGE))) == [["app.core.money", "app.services.listings"]]
    assert unplaced_modules(violations, PACKAGE, LAYERS) == ["app.stray"]
    assert raw_commits(violations, PACKAGE, UNIT_OF_WORK) == ["app.services.photos:4 calls session.commit()"]


def test_a_clean_tree_passes_every_check(tmp_path):
    root = _tree(
        tmp_path,
        {
            "app/core/__init__.py": "",
            "app/core/money.py": "",
            "app/services/__init__.py": "",
            "app/services/listings.py": "from app.core import money\n\ndef _own():\n    return money\n",
            "app/db.py": "def commit(session):\n    session.commit()\n",
            "app/services/photos.py": "from app.db import commit\n\ndef save(session):\n    commit(session)\n",
            "app/app.py": "import reflex as rx\n\nfrom app.services import listings\n",
        },
    )
    imports = module_imports(root, PACKAGE)
    assert layer_violations(imports, PACKAGE, LAYERS) == []
    assert imports_of(imports, COMPOSITION_ROOT) == []
    assert forbidden_imports(imports, FRAMEWORK_FREE, FRAMEWORK) == []
    assert private_name_uses(root, PACKAGE) == []
    assert cycles(import_graph(internal(imports, PACKAGE))) == []
    assert unplaced_modules(root, PACKAGE, LAYERS) == []
    assert raw_commits(root, PACKAGE, UNIT_OF_WORK) == []


def test_a_stale_document_fails_the_map_checks(tmp_path):
    root = _tree(tmp_path, {"app/core/__init__.py": "", "app/db.py": "", "app/app.py": ""})
    stale = "Imports: `core/ < models/ <\n  app.py`.\n\n```\napp/\n  app.py     the root\n  core/      pure\n```\n"
    assert documented_layers(stale, PACKAGE) == [(("app.core",), ("app.models",), ("app.app",))]
    assert documented_layers(stale, PACKAGE) != [tuple(prefixes for _, prefixes in LAYERS)]
    assert top_level_entries(root, PACKAGE) - mapped_entries(stale, PACKAGE) == {"db.py"}
