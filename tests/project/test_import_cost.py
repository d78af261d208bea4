"""``import codex_nb`` stays cheap by design, not by luck.

The timing lives in tests/benchmarks/bench_import.py; these tests guard the design that makes
it hold on any machine: the package index loads no third-party machinery, the first
``cx.Session`` loads the runtime but no widget, V8, HTTP or text-width tables, and the lazy
names and their typed mirror cannot drift apart. Each probe runs in a fresh interpreter,
since this one has long imported everything.
"""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import codex_nb as cx

HEAVY = (
    "ipywidgets",
    "anywidget",
    "traitlets",
    "comm",
    "IPython",
    "py_mini_racer",
    "openai",
    "httpx",
    "httpx2",
    "wcwidth",
    "uniseg",
    "acp",
    "mcp",
    "bm25s",
    "numpy",
)


def loaded_after(statement: str) -> set[str]:
    """The modules a fresh interpreter holds after ``statement`` (startup's own included)."""
    code = f"import json, sys; {statement}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    return set(json.loads(out.stdout.splitlines()[-1]))


def under(modules: set[str], *packages: str) -> set[str]:
    return {m for m in modules if any(m == p or m.startswith(p + ".") for p in packages)}


def test_import_loads_only_the_package_index() -> None:
    modules = loaded_after("import codex_nb")
    assert under(modules, "codex_nb") == {
        "codex_nb",
        "codex_nb._front_end",
        "codex_nb._lazy",
        "codex_nb.errors",
    }
    assert under(modules, "pydantic", "pydantic_core", "asyncio", *HEAVY) == set()


def test_first_session_loads_the_runtime_but_no_frontend_machinery() -> None:
    modules = loaded_after("import codex_nb as cx; cx.Session")
    assert "codex_nb.runtime.session" in modules
    assert under(modules, *HEAVY) == set()
    assert (
        under(
            modules,
            "codex_nb.widgets",
            "codex_nb.render",
            "codex_nb.app_server",
            "codex_nb.acp",
            "codex_nb.responses",
            "codex_nb.mcp",
            "codex_nb.rollouts",
            "codex_nb.cassettes",
            "codex_nb.tools.notebook",
            "codex_nb.extension",
            "codex_nb.agent_server",
            "codex_nb.code_mode.host",
            "codex_nb.code_mode.runtime",
        )
        == set()
    )
    # hook inputs, decisions, runners and events wait for the first hook; TOML for the first document
    assert (
        under(
            modules,
            "codex_nb.hooks.types",
            "codex_nb.hooks.hook_events",
            "codex_nb.hooks.outputs",
            "codex_nb.hooks.python",
            "codex_nb.hooks.runner",
            "tomllib",
            "difflib",
        )
        == set()
    )


def test_a_new_session_loads_no_hook_runner_and_no_search_index() -> None:
    """Hooks load with the first hook run, numpy (the BM25 index) with the first deferred tool."""
    modules = loaded_after("import codex_nb as cx; cx.Session()")
    assert under(modules, "codex_nb.hooks.types", "codex_nb.hooks.python", "codex_nb.hooks.runner") == set()
    assert under(modules, "codex_nb.tools.search") == set()  # the index's own modules wait for it too
    assert under(modules, *HEAVY) == set()


def test_a_new_session_creates_no_request_or_permission_model() -> None:
    """The question, approval, permission and elicitation models (``protocol.frontend``) and the
    answer checks load with the first request a session opens, not with every ``Session()``:
    creating them was the largest share of codex_nb's own first-use cost after dataclasses."""
    modules = loaded_after("import codex_nb as cx; cx.Session()")
    assert (
        under(
            modules,
            "codex_nb.protocol.frontend",
            "codex_nb.frontend.normalize",
            "codex_nb.frontend.decisions",
            "codex_nb.frontend.elicitation",
        )
        == set()
    )
    assert "codex_nb.frontend.requests" in modules  # the broker itself is there, ready to be asked


def test_a_new_session_loads_no_handler_of_a_tool_its_config_leaves_out() -> None:
    """A default ``Config()`` declares none of these tools, so their handlers stay unimported
    (the gates are read before the import; a config that turns one on loads it)."""
    off = (
        "codex_nb.tools.handlers.web_run",
        "codex_nb.tools.handlers.web_run_commands",
        "codex_nb.tools.handlers.image_gen",
        "codex_nb.tools.handlers.request_permissions",
        "codex_nb.tools.handlers.view_image",
        "codex_nb.tools.handlers.plugin_install",
    )
    assert under(loaded_after("import codex_nb as cx; cx.Session()"), *off) == set()
    turned_on = "import codex_nb as cx; cx.Session(cx.Config(view_image=True, request_permissions_tool=True))"
    assert under(loaded_after(turned_on), *off) == {
        "codex_nb.tools.handlers.request_permissions",
        "codex_nb.tools.handlers.view_image",
    }


def test_load_ext_loads_no_widget_machinery() -> None:
    """``%load_ext codex_nb`` registers the magics and the default session; ipywidgets and anywidget
    load with the first view a magic shows."""
    modules = loaded_after(
        "from IPython.core.interactiveshell import InteractiveShell; "
        "InteractiveShell.instance().run_line_magic('load_ext', 'codex_nb')"
    )
    assert "codex_nb.extension.magics" in modules
    assert under(modules, "ipywidgets", "anywidget", "codex_nb.widgets", "codex_nb.extension.turn_view") == set()


def test_the_session_path_builds_no_pydantic_schema() -> None:
    """Models declare ``defer_build=True``: building a validator at import costs ~1 ms per model and
    the first one loads pydantic's plugin machinery (``importlib.metadata`` over every installed
    distribution), which belongs to the first validation, not to ``import``."""
    code = """
import codex_nb as cx, pydantic
from codex_nb.protocol.events import PlanUpdate
from codex_nb.protocol.plan import UpdatePlanArgs
cx.Session, cx.Config, cx.ScriptedModel, PlanUpdate, UpdatePlanArgs, cx.hooks
def walk(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from walk(sub)
print(sorted({f"{m.__module__}.{m.__qualname__}" for m in walk(pydantic.BaseModel)
              if m.__module__.startswith("codex_nb") and m.__pydantic_complete__}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", f"models built at import (add defer_build=True): {out.stdout}"


def test_a_scripted_turn_runs_from_a_bare_import() -> None:
    """The lazy names resolve to working classes in a fresh interpreter, not only in this warm one."""
    code = """
import asyncio
import codex_nb as cx

async def main():
    session = cx.Session()
    seen = []
    session.subscribe(lambda event: seen.append(event.msg.type))
    model = cx.ScriptedModel([[cx.function_call("update_plan", {"plan": [{"step": "read", "status": "in_progress"}]},
                                                call_id="c1")], [cx.assistant_message("done")]])
    result = await session.run_turn("plan it", model=model)
    print(result.status, "plan_update" in seen)

asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[:2] == ["completed", "True"], out.stdout


def typed_mirror(path: Path, package: str) -> tuple[dict[str, str], set[str]]:
    """The ``TYPE_CHECKING`` imports of a package's ``__init__`` as ``{name: module}``, and the
    names it imports eagerly (outside that block)."""
    tree = ast.parse(path.read_text())
    if path.name != "__init__.py":  # a plain module: ``.`` is the package that holds it
        package = package.rpartition(".")[0]
    block = next(node for node in tree.body if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test))
    typed: dict[str, str] = {}
    for node in block.body:
        assert isinstance(node, ast.ImportFrom) and node.level, ast.unparse(node)
        base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
        for alias in node.names:
            typed[alias.name] = f"{base}.{node.module}" if node.module else f"{base}.{alias.name}"
    eager = {
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
        for alias in node.names
        if not (alias.asname or alias.name).startswith("_")
    }
    return typed, eager


@pytest.mark.parametrize(
    "package",
    [
        "codex_nb",
        "codex_nb.events",
        "codex_nb.hooks",
        "codex_nb.testing",
        "codex_nb.tools",
    ],
)
def test_lazy_names_and_their_typed_mirror_agree(package: str) -> None:
    """``_LAZY`` (what runs) and the ``TYPE_CHECKING`` imports (what editors see) name the same
    objects from the same modules, and with the eager names they make up ``__all__``."""
    module = importlib.import_module(package)
    typed, eager = typed_mirror(Path(module.__file__), package)
    submodules = getattr(module, "_LAZY_MODULES", ())
    assert {name: typed.pop(name) for name in submodules} == {name: f"{package}.{name}" for name in submodules}
    assert typed == module._LAZY
    # Public submodules are reachable; of the root's, only ``hooks`` is in ``__all__``, and
    # ``cx.extension`` never is: a star import must not load IPython.
    assert "extension" not in module.__all__
    reachable = set(module.__all__) | set(submodules)
    assert reachable == set(module._LAZY) | set(submodules) | (eager - {"TYPE_CHECKING"}) | (
        {"load_ipython_extension", "unload_ipython_extension"} if package == "codex_nb" else set()
    )
    for name in module.__all__:
        assert getattr(module, name) is not None


def test_lazy_lookup_errors_and_dir() -> None:
    assert "Session" in dir(cx) and "hooks" in dir(cx)
    try:
        cx.NoSuchThing  # noqa: B018
    except AttributeError as error:
        assert "no attribute 'NoSuchThing'" in str(error)
    else:
        raise AssertionError("an unknown name must raise AttributeError")
