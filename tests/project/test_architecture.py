"""Layers run one way, no module imports itself back through others, and one name is one thing.

Every import in codex_nb is read with ``ast``: module level, inside functions (lazy)
and under ``TYPE_CHECKING`` alike. The layers, lowest first (an arrow points at
what a layer may import):

    protocol/, errors, _files, _lazy, _process/, _interrupt, _start_gate, _secrets, _version, _front_end
        <-  frontend/, events/, config/  <-  tools/ (with tools/notebook/)
        <-  hooks/, code_mode/, app_server/, acp/, responses/, mcp/, rollouts/, cassettes/
        <-  runtime/, timeline/  <-  render/, widgets/, extension/, agent_server/

A module may import its own layer and the layers below it, never a layer above.
``codex_nb/__init__.py`` (the public API) and ``codex_nb.testing`` may import anything.

And the names: a public module is where its code lives (no facade module whose body only
re-imports names from another package), and no two modules of codex_nb share a file name
(``__init__.py`` and ``__main__.py`` aside), so a name in a traceback or a search is one file.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from helpers.paths import PACKAGE

ROOT = PACKAGE

LAYERS: list[tuple[str, ...]] = [
    (
        "protocol",
        "errors",
        "_files",
        "_lazy",
        "_process",
        "_interrupt",
        "_start_gate",
        "_secrets",
        "_version",
        "_front_end",
    ),
    ("frontend", "events", "config"),
    ("tools",),
    # hooks, Code Mode and the adapters that bring a conversation in
    ("hooks", "code_mode", "app_server", "acp", "responses", "mcp", "rollouts", "cassettes"),
    ("runtime", "timeline"),
    ("render", "widgets", "extension", "agent_server"),
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


# Plain Python: code is not written as text and compiled at run time, and pydantic models are
# built through pydantic's public API (validation, ``model_construct``, ``TypeAdapter``), never
# by writing the slots it keeps for itself.
RUNS_CODE = {
    # the notebook tool runs the Python a model (or person) sends to the kernel: its purpose
    "codex_nb.tools.notebook.run",
}
PYDANTIC_PRIVATE = re.compile(r"__pydantic_\w+__")


def clever_spots(tree: ast.AST) -> list[str]:
    """What ``tree`` does that the rule above forbids, one line each. A frozen dataclass's
    ``__post_init__`` may set its own fields with ``object.__setattr__`` (dataclasses' documented way)."""
    found: list[str] = []
    post_init = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef) and node.name == "__post_init__"
        for inner in ast.walk(node)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "builtins":
                name = func.attr
            if name in ("exec", "eval", "compile"):
                found.append(f"line {node.lineno}: {name}() of code")
            if name in ("setattr", "delattr") and any(
                isinstance(a, ast.Constant) and isinstance(a.value, str) and PYDANTIC_PRIVATE.fullmatch(a.value)
                for a in node.args
            ):
                found.append(f"line {node.lineno}: {name}() of a pydantic private attribute")
            if isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__", "__set__"):
                owner = ast.unparse(func.value)
                own_fields = id(node) in post_init and ast.unparse(node.args[:1]) == "self"
                if (
                    owner in ("object", "BaseModel") or "pydantic" in owner or func.attr == "__set__"
                ) and not own_fields:
                    found.append(f"line {node.lineno}: {owner}.{func.attr}() bypasses the class's own setattr")
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            if PYDANTIC_PRIVATE.fullmatch(node.attr) or node.attr == "__dict__":
                found.append(f"line {node.lineno}: writes .{node.attr}")
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call):
            call = node.value
            if isinstance(call.func, ast.Name) and call.func.id == "vars" and "BaseModel" in ast.unparse(call.args):
                found.append(f"line {node.lineno}: reaches into BaseModel's own descriptors")
    return found


@pytest.mark.parametrize("name", sorted(GRAPH))
def test_no_code_compiled_at_run_time_and_no_write_to_pydantic_private_slots(name: str) -> None:
    spots = clever_spots(ast.parse(modules()[name].read_text()))
    if name in RUNS_CODE:
        spots = [s for s in spots if "of code" not in s]
    assert not spots, f"{name}: " + "; ".join(spots)


def test_the_plain_python_check_catches_each_trick() -> None:
    tricks = [
        "exec('def f(): pass', {}, ns)",
        "f = compile(text, '<x>', 'exec')",
        "builtins.eval('1')",
        "object.__setattr__(model, '__pydantic_fields_set__', set())",
        "setattr(model, '__pydantic_extra__', None)",
        "model.__pydantic_private__ = None",
        "model.__dict__ = values",
        "_SET = vars(BaseModel)['__dict__'].__set__",
        "vars(cls)[name].__set__(obj, value)",
        "def __post_init__(self):\n    object.__setattr__(other, 'kind', 'all')",
    ]
    for trick in tricks:
        assert clever_spots(ast.parse(trick)), trick
    plain = (
        "re.compile('x')\nmodel = Model.model_construct(**values)\nself.eval('js')\nsuper().__setattr__(n, v)\n"
        "def __post_init__(self):\n    object.__setattr__(self, 'kind', 'all')\n"
    )
    assert clever_spots(ast.parse(plain)) == []


def is_facade(name: str, path: Path) -> bool:
    """A module whose body, besides its docstring and ``__all__``, only imports names, and imports
    at least one from outside its own package: a second spelling of code that lives elsewhere. A
    package's ``__init__`` gathering its own modules' names is not one."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if package == "codex_nb":  # a top-level module's own package is itself
        package = name
    body = [
        node
        for node in tree.body
        if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
        and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
        and not (isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"])
    ]
    if not body or not all(isinstance(node, (ast.Import, ast.ImportFrom)) for node in body):
        return False
    own = set(modules())
    return any(not t.startswith(package + ".") and t != package for t in imports_of(name, path, own))


def test_no_facade_module() -> None:
    facades = sorted(name for name, path in modules().items() if is_facade(name, path))
    assert not facades, f"modules that only re-import names from elsewhere (import from where the code is): {facades}"


def duplicate_basenames(package: Path) -> dict[str, list[str]]:
    seen: dict[str, list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        if path.name not in ("__init__.py", "__main__.py"):
            seen.setdefault(path.name, []).append(str(path.relative_to(package)))
    return {base: where for base, where in seen.items() if len(where) > 1}


def test_no_two_modules_share_a_file_name() -> None:
    twice = duplicate_basenames(ROOT)
    assert not twice, f"module file names used twice in codex_nb (name each for what it holds): {twice}"


def test_the_name_checks_catch_what_they_name(tmp_path: Path) -> None:
    package = tmp_path / "codex_nb"
    (package / "a").mkdir(parents=True)
    (package / "b").mkdir()
    for path in (package / "a" / "events.py", package / "b" / "events.py", package / "a" / "__init__.py"):
        path.write_text("")
    (package / "b" / "__init__.py").write_text("")
    assert duplicate_basenames(package) == {"events.py": ["a/events.py", "b/events.py"]}
    facade = tmp_path / "facade.py"
    facade.write_text(
        '"""Doc."""\n\nfrom .runtime.turn import TURN_ABORTED_MARKER\n\n__all__ = ["TURN_ABORTED_MARKER"]\n'
    )
    assert is_facade("codex_nb.history", facade)
    gathering = tmp_path / "__init__.py"
    gathering.write_text('"""Doc."""\n\nfrom .manager import McpServers\n\n__all__ = ["McpServers"]\n')
    assert not is_facade("codex_nb.mcp", gathering)


JS_PATH = re.compile(r"^(\.\./)*js(/[\w./-]*)?$")


def paths_into_js(path: Path) -> list[str]:
    """String constants of ``path`` (docstrings aside) that name the js/ source folder by path."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
        if JS_PATH.match(node.value)
    ]


def test_no_arrow_from_the_package_into_js(tmp_path: Path) -> None:
    """js/ holds the widgets' sources; the package loads only its built bundle
    (codex_nb/widgets/static/), so an installed codex_nb never reaches out of itself."""
    probe = tmp_path / "probe.py"
    probe.write_text('"""Reads js/ (a docstring may say so)."""\nJS = ROOT.parent / "js"\n')
    assert paths_into_js(probe) == ["js"]
    offenders = {name: found for name, path in modules().items() if (found := paths_into_js(path))}
    assert not offenders, f"modules that read js/ by path (load codex_nb/widgets/static/ instead): {offenders}"
