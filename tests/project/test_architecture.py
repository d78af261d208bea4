"""Layers run one way, and no module imports itself back through others.

Every import in codex_nb is read with ``ast``: module level, inside functions (lazy)
and under ``TYPE_CHECKING`` alike. The layers, lowest first (an arrow points at
what a layer may import):

    protocol/, errors, _lazy, _process, _interrupt, _version  <-  frontend/, events/, config/  <-  tools/
        <-  hooks/, code_mode/, sources/  <-  runtime/, timeline/  <-  render/, widgets/, extension/, notebook, acp_server/
        and the thin public modules (app_server, acp_client, rollouts, mcp, models, plans, ...)

A module may import its own layer and the layers below it, never a layer above.
``codex_nb/__init__.py`` (the public API) and ``codex_nb.testing`` may import anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from helpers.paths import PACKAGE

ROOT = PACKAGE

# The thin public modules that re-export from the internal packages (``codex_nb.app_server`` ...):
# they stand at the top, so no internal module can import through them.
PUBLIC_FACADES = ("acp_client", "answers", "app_server", "history", "mcp", "models", "plans", "rollouts", "wire")

LAYERS: list[tuple[str, ...]] = [
    ("protocol", "errors", "_lazy", "_process", "_interrupt", "_version"),
    ("frontend", "events", "config"),
    ("tools",),
    ("hooks", "code_mode", "sources"),
    ("runtime", "timeline"),
    ("render", "widgets", "extension", "notebook", "acp_server", "acp", *PUBLIC_FACADES),
]
ANYTHING_GOES = {"codex_nb", "codex_nb.testing"}


def free(name: str) -> bool:
    """The public API root and the testing package (all its modules) may import anything."""
    return name in ANYTHING_GOES or name.startswith("codex_nb.testing.")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Every codex_nb module ``name`` imports, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # ``from pkg import sub`` imports the submodule ``pkg.sub`` when there is one
            targets = [f"{target}.{a.name}" if f"{target}.{a.name}" in known else target for a in node.names]
        else:
            continue
        found.update(t for t in targets if t == "codex_nb" or t.startswith("codex_nb."))
    found.discard(name)
    return found


def layer_of(name: str) -> int | None:
    if free(name):
        return None
    top = name.split(".")[1]
    for index, members in enumerate(LAYERS):
        if top in members:
            return index
    raise AssertionError(f"{name} belongs to no layer: add its package to LAYERS in {__file__}")


GRAPH = {name: imports_of(name, path, set(modules())) for name, path in modules().items()}


def test_every_module_has_a_layer() -> None:
    for name in GRAPH:
        layer_of(name)


@pytest.mark.parametrize("name", sorted(n for n in GRAPH if not free(n)))
def test_no_import_goes_up(name: str) -> None:
    own = layer_of(name)
    assert own is not None
    upward = sorted(t for t in GRAPH[name] if t != "codex_nb" and (layer_of(t) or 0) > own)
    assert "codex_nb" not in GRAPH[name], f"{name} imports the package root (import from the module instead)"
    assert not upward, f"{name} (layer {LAYERS[own]}) imports upward: {upward}"


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target) :] + [target]
            if target not in state and (cycle := visit(target)) is not None:
                return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)) is not None:
            return cycle
    return None


def test_no_import_cycle() -> None:
    graph = {n: {t for t in ts if t in GRAPH} for n, ts in GRAPH.items() if not free(n)}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checks_catch_what_they_name(tmp_path: Path) -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    lazy = "def f():\n    from ..runtime.session import Session\n"
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..widgets import checklist\n"
    for text in (lazy, typed):
        # read as if it stood in tools/, but written outside the source tree: a run that dies
        # here must not leave a stray module in the package
        probe = tmp_path / "_probe.py"
        probe.write_text(text)
        found = imports_of("codex_nb.tools._probe", probe, set(modules()))
        assert any(layer_of(t) > layer_of("codex_nb.tools") for t in found), found  # type: ignore[operator]


def test_update_plan_reaches_the_bus_without_runtime() -> None:
    """The call path of ``update_plan`` (planner -> call runner -> pipeline -> handler -> bus)
    stands entirely below runtime/."""
    path = [
        "codex_nb.tools.planner",
        "codex_nb.tools.calls",
        "codex_nb.tools.pipeline",
        "codex_nb.tools.handlers.update_plan",
        "codex_nb.tools.invocation",
        "codex_nb.events.bus",
    ]
    seen: set[str] = set()
    todo = list(path)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo.extend(GRAPH[name])
    assert not {n for n in seen if n.startswith(("codex_nb.runtime", "codex_nb.hooks", "codex_nb.code_mode"))}
