"""The import graph of the emulator's package, built with ``ast``: no module may import itself
back, at run time or in type annotations (a cycle makes the import order matter and breaks on
the first reshuffle), and the domain reaches nothing of the HTTP side.

``import_graph()`` leaves out imports under ``if TYPE_CHECKING:`` (they are not run);
``import_graph(typing=True)`` keeps them.
"""

from __future__ import annotations

import ast
import pathlib

import cloudcompute_emulator

SOURCE = pathlib.Path(cloudcompute_emulator.__file__).parent
PACKAGE = "cloudcompute_emulator"


def _module_name(path: pathlib.Path) -> str:
    parts = (PACKAGE, *path.relative_to(SOURCE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    path = SOURCE.joinpath(*name.split(".")[1:])
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def _imports(node: ast.AST, typing: bool):
    if isinstance(node, ast.If) and not typing and "TYPE_CHECKING" in ast.unparse(node.test):
        for child in node.orelse:
            yield from _imports(child, typing)
        return
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names if alias.name.startswith(PACKAGE))
    elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(PACKAGE):
        for alias in node.names:
            name = f"{node.module}.{alias.name}"
            yield name if _is_module(name) else node.module
    for child in ast.iter_child_nodes(node):
        yield from _imports(child, typing)


def import_graph(typing: bool = False) -> dict[str, set[str]]:
    return {_module_name(path): set(_imports(ast.parse(path.read_text()), typing)) for path in SOURCE.rglob("*.py")}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph[module]:
            if imported not in graph:
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in graph:
        if module not in index:
            visit(module)
    return found


def test_the_checker_finds_cycles() -> None:
    graph = import_graph()
    assert len(graph) > 50 and f"{PACKAGE}.kinds" in graph[f"{PACKAGE}.resources.secrets"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_at_run_time() -> None:
    assert cycles(import_graph()) == []


def test_domain_leaf_modules_import_nothing_above_them() -> None:
    graph = import_graph(typing=True)
    for leaf in ("ports", "store", "clock", "kinds", "errors", "resources.secrets"):
        reachable, todo = set(), [f"{PACKAGE}.{leaf}"]
        while todo:
            for imported in graph.get(todo.pop(), ()):
                if imported not in reachable:
                    reachable.add(imported)
                    todo.append(imported)
        assert not reachable & {f"{PACKAGE}.{name}" for name in ("state", "context", "app", "routes")}, leaf


# The domain: records, rules and state machines, reached through ports.Domain and plain arguments.
DOMAIN = (
    "ports", "store", "clock", "kinds", "errors", "catalog", "timing", "settings",
    "lifecycle", "projects", "tags", "audit", "capacity", "resources", "schemas",
)
HTTP_LIBRARIES = ("fastapi", "starlette", "uvicorn", "requests")


def _is_domain(module: str) -> bool:
    return any(module == f"{PACKAGE}.{name}" or module.startswith(f"{PACKAGE}.{name}.") for name in DOMAIN)


def _libraries(module: str) -> set[str]:
    path = SOURCE.joinpath(*module.split(".")[1:])
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_no_import_cycle_in_type_annotations_either() -> None:
    assert cycles(import_graph(typing=True)) == []


def test_the_domain_imports_nothing_from_routes_or_http() -> None:
    graph = import_graph(typing=True)
    domain = [module for module in graph if _is_domain(module)]
    assert f"{PACKAGE}.resources.volumes" in domain and f"{PACKAGE}.routes.volumes" not in domain
    for module in domain:
        outside = sorted(imported for imported in graph[module] if imported in graph and not _is_domain(imported))
        assert outside == [], f"{module} imports {outside}"
        assert not _libraries(module) & set(HTTP_LIBRARIES), module
