"""The app's import graph read with ``ast`` (nothing is imported), its cycles and its layer rules.

``python -m tests.layers`` prints every import cycle (strongly connected component) of ``app/``;
:mod:`tests.unit.test_layers` holds the rules and fails on any violation.
"""

from __future__ import annotations

import ast
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
    """Every import of a module of ``package`` by a module of ``package``, in file order."""
    modules = package_modules(root, package)
    found: list[Import] = []
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node, in_function in _walk(tree):
            if isinstance(node, ast.Import):
                found.extend(
                    Import(importer, alias.name, (), node.lineno, in_function)
                    for alias in node.names
                    if alias.name.split(".")[0] == package
                )
            elif isinstance(node, ast.ImportFrom):
                source = _resolve_from(node, importer, is_package)
                if source.split(".")[0] != package:
                    continue
                plain = [alias.name for alias in node.names if f"{source}.{alias.name}" not in modules]
                found.extend(
                    Import(importer, f"{source}.{alias.name}", (), node.lineno, in_function)
                    for alias in node.names
                    if f"{source}.{alias.name}" in modules
                )
                if plain:
                    found.append(Import(importer, source, tuple(plain), node.lineno, in_function))
    return sorted(found, key=lambda item: (item.importer, item.line))


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


def report_cycles(root: Path = ROOT, package: str = "app", out: Callable[[str], object] = print) -> int:
    """Print the import graph's size and its cycles; return how many cycles there are."""
    imports = module_imports(root, package)
    graph = import_graph(imports)
    found = cycles(graph)
    edges = sum(len(targets) for targets in graph.values())
    out(f"{package}: {len(package_modules(root, package))} modules, {edges} import edges, {len(found)} cycles")
    for component in found:
        out(f"- cycle of {len(component)} modules: {', '.join(component)}")
    return len(found)


if __name__ == "__main__":
    sys.exit(1 if report_cycles() else 0)
