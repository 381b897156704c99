"""The app's import graph read with ``ast`` (nothing is imported), its cycles, and the checks of its layers.

``python -m tests.layers [CHECKOUT]`` prints every import cycle (strongly connected component) of ``app/``.
The layers themselves, and where each module belongs, are in ``tests/unit/test_layers.py``, which
runs these checks in the test command and proves on a small synthetic tree that they catch a violation;
it also checks that the README and docs/ARCHITECTURE.md draw the same layers and name every module.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Import:
    """One import statement's target as the importing module sees it."""

    importer: str
    target: str  # the module imported (a submodule when ``from pkg import mod`` names one)
    names: tuple[str, ...]  # the names taken from ``target`` (empty for ``import target``)
    line: int
    in_function: bool


def module_name(path: Path, root: Path) -> str:
    """``app/identity/local.py`` -> ``app.identity.local``; a package's ``__init__`` is the package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules(root: Path, package: str) -> dict[str, Path]:
    """Every module of ``package`` under ``root``, by dotted name."""
    return {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}


def _resolve_from(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = importer.split(".") if is_package else importer.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _walk(tree: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """Every node with whether it sits inside a function body."""
    stack: list[tuple[ast.AST, bool]] = [(tree, False)]
    while stack:
        node, in_function = stack.pop()
        yield node, in_function
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def module_imports(root: Path, package: str) -> list[Import]:
    """Every import made by a module of ``package`` (of any module, the package's own or not), in file order.

    ``from pkg import name`` counts as an import of ``pkg.name`` when that is a module of the package.
    Imports inside functions count like the others: they run too, only later.
    """
    modules = package_modules(root, package)
    found: list[Import] = []
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node, in_function in _walk(tree):
            if isinstance(node, ast.Import):
                found.extend(Import(importer, alias.name, (), node.lineno, in_function) for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                source = _resolve_from(node, importer, is_package)
                submodules = [alias.name for alias in node.names if f"{source}.{alias.name}" in modules]
                found.extend(Import(importer, f"{source}.{name}", (), node.lineno, in_function) for name in submodules)
                plain = tuple(alias.name for alias in node.names if alias.name not in submodules)
                if plain:
                    found.append(Import(importer, source, plain, node.lineno, in_function))
    return sorted(found, key=lambda item: (item.importer, item.line))


def internal(imports: list[Import], package: str) -> list[Import]:
    """The imports of ``package``'s own modules."""
    return [item for item in imports if item.target == package or item.target.startswith(package + ".")]


def import_graph(imports: list[Import]) -> dict[str, set[str]]:
    """Importer -> the modules it imports (at any depth of its code)."""
    graph: dict[str, set[str]] = {}
    for item in imports:
        graph.setdefault(item.importer, set()).add(item.target)
        graph.setdefault(item.target, set())
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative Tarjan: (node, iterator over its successors).
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components, key=lambda component: (-len(component), component))


# --- The checks ----------------------------------------------------------------------------------

Layers = tuple[tuple[str, tuple[str, ...]], ...]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_of(module: str, layers: Layers) -> int | None:
    """The index of the layer holding ``module`` (its longest matching prefix decides), None if none does."""
    best: tuple[int, int] | None = None  # (prefix length, layer index)
    for number, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            if _within(module, prefix) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), number)
    return None if best is None else best[1]


def unplaced_modules(root: Path, package: str, layers: Layers) -> list[str]:
    """Modules of ``package`` (the package itself aside) that no layer holds."""
    return [name for name in package_modules(root, package) if name != package and layer_of(name, layers) is None]


def layer_violations(imports: list[Import], package: str, layers: Layers) -> list[str]:
    """Imports of a module in a higher layer than the importer's (a layer may import its own and lower ones)."""
    found = []
    for item in internal(imports, package):
        if item.target == package:
            continue
        mine, theirs = layer_of(item.importer, layers), layer_of(item.target, layers)
        if mine is not None and theirs is not None and theirs > mine:
            found.append(f"{item.importer}:{item.line} ({layers[mine][0]}) imports {item.target} ({layers[theirs][0]})")
    return found


def forbidden_imports(imports: list[Import], importers: Layers, banned: tuple[str, ...]) -> list[str]:
    """Imports of any module under ``banned`` (e.g. a framework) by modules under the ``importers`` prefixes."""
    prefixes = [prefix for _, group in importers for prefix in group]
    return [
        f"{item.importer}:{item.line} imports {item.target}"
        for item in imports
        if any(_within(item.importer, prefix) for prefix in prefixes)
        and any(_within(item.target, name) for name in banned)
    ]


def imports_of(imports: list[Import], module: str) -> list[str]:
    """Every import of ``module`` (or a name from it), at module level or inside a function."""
    return [
        f"{item.importer}:{item.line} imports {module}{' inside a function' if item.in_function else ''}"
        for item in imports
        if item.target == module
    ]


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_name_uses(root: Path, package: str) -> list[str]:
    """Uses of another module's ``_private`` name: ``from mod import _name`` or ``mod._name`` on an imported module."""
    modules = package_modules(root, package)
    found = [
        f"{item.importer}:{item.line} imports {item.target}.{name}"
        for item in internal(module_imports(root, package), package)
        for name in item.names
        if _private(name)
    ]
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        bound: dict[str, str] = {}  # local name -> the package's module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                bound.update(
                    (alias.asname, alias.name) for alias in node.names if alias.asname and alias.name in modules
                )
            elif isinstance(node, ast.ImportFrom):
                source = _resolve_from(node, importer, is_package)
                bound.update(
                    (alias.asname or alias.name, f"{source}.{alias.name}")
                    for alias in node.names
                    if f"{source}.{alias.name}" in modules
                )
        found.extend(
            f"{importer}:{node.lineno} uses {bound[node.value.id]}.{node.attr}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and bound[node.value.id] != importer
            and _private(node.attr)
        )
    return found


# --- The documents' map -------------------------------------------------------------------------

# A document's layer line: "`core/ < settings.py, content/ < models/ < … < app.py, cli.py, seed.py`".
_LAYER_LINE = re.compile(r"`(core/ <[^`]*)`")


def _module_of(entry: str, package: str) -> str:
    """``services/mail.py`` -> ``app.services.mail``; ``core/`` -> ``app.core``."""
    return ".".join([package, *entry.removesuffix(".py").strip("/").split("/")])


def documented_layers(text: str, package: str = "app") -> list[tuple[tuple[str, ...], ...]]:
    """Each layer line of a document, parsed into its layers' modules, bottom up."""
    return [
        tuple(
            tuple(_module_of(entry.strip(), package) for entry in layer.split(","))
            for layer in " ".join(line.split()).split(" < ")
        )
        for line in _LAYER_LINE.findall(text)
    ]


def top_level_entries(root: Path, package: str) -> set[str]:
    """The modules and packages directly in ``package``, spelt as a map names them: ``seo.py``, ``content/``."""
    return {
        f"{path.name}/" if path.is_dir() else path.name
        for path in (root / package).iterdir()
        if (path.suffix == ".py" and path.name != "__init__.py") or (path / "__init__.py").is_file()
    }


def mapped_entries(text: str, package: str = "app") -> set[str]:
    """The names a document's map gives at the top level of ``package/``.

    The map is a block starting with a line ``app/``; its entries are indented two spaces, each name
    (or names, comma-separated) followed by two spaces and its description; deeper lines are ignored.
    """
    lines = text.splitlines()
    names: set[str] = set()
    for line in lines[lines.index(f"{package}/") + 1 :]:
        if not line.startswith(" "):
            break
        if not line.startswith("   "):
            names.update(name.strip() for name in re.split(r"\s{2,}", line.strip())[0].split(","))
    return names


def raw_commits(root: Path, package: str, unit_of_work: str) -> list[str]:
    """Calls of ``x.commit()`` without arguments (a session's own commit) outside ``unit_of_work``, the one
    module allowed to commit; everyone else commits through it (``commit(session)``, ``transaction``)."""
    return [
        f"{name}:{node.lineno} calls {ast.unparse(node.func)}()"
        for name, path in package_modules(root, package).items()
        if name != unit_of_work
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "commit"
        and not node.args
        and not node.keywords
    ]


def report_cycles(root: Path = ROOT, package: str = "app", out: Callable[[str], object] = print) -> int:
    """Print the import graph's size and its cycles; return how many cycles there are."""
    graph = import_graph(internal(module_imports(root, package), package))
    found = cycles(graph)
    edges = sum(len(targets) for targets in graph.values())
    out(f"{package}: {len(package_modules(root, package))} modules, {edges} import edges, {len(found)} cycles")
    for component in found:
        out(f"- cycle of {len(component)} modules: {', '.join(component)}")
    return len(found)


if __name__ == "__main__":
    # ``python -m tests.layers [CHECKOUT]``: this checkout's app/, or another's (e.g. an older commit's worktree).
    sys.exit(1 if report_cycles(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT) else 0)
