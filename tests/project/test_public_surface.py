"""The public surface: ``codex_nb.__all__`` plus the public submodules, and nothing else.

Three guarantees. Every name that left the top level still works for one release as
``cx.X``, with a DeprecationWarning naming its new home. Every public submodule lists its
names in ``__all__`` and they resolve. And the README's code blocks and the notebooks' code
cells (read with ``ast``, after IPython's own magic transform) use only public names: a
reader copies what they see, so the docs must not teach an internal module.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from IPython.core.inputtransformer2 import TransformerManager

import codex_nb as cx
from helpers.paths import ROOT


# The modules a user may import from; every other codex_nb module is internal.
PUBLIC_MODULES = frozenset(
    {
        "codex_nb",
        "codex_nb.acp_client",
        "codex_nb.acp_server",
        "codex_nb.answers",
        "codex_nb.app_server",
        "codex_nb.config",
        "codex_nb.errors",
        "codex_nb.events",
        "codex_nb.extension",
        "codex_nb.history",
        "codex_nb.hooks",
        "codex_nb.mcp",
        "codex_nb.models",
        "codex_nb.plans",
        "codex_nb.rollouts",
        "codex_nb.testing",
        "codex_nb.timeline",
        "codex_nb.tools",
        "codex_nb.wire",
    }
)

# ``codex_nb.__all__`` of the last release (0.1.0): each name is public still, or moved with an alias.
RELEASED = (
    "TURN_ABORTED_MARKER AcpAgent AcpAuthError AcpError AnswerError AnswerPolicy AnswerPolicyError "
    "AppServerError AppServerExited AppServerProtocolError AppServerRpcError AppServerTimeout CodeModeSettings "
    "CodexAppServer CodexBinaryError CodexNbError CodexThread Config ConfigError Event EventSource Fatal HookError "
    "McpServers ModeKind Model ModelError ModelRequest PlanChecklist PlanItemArg PlanUpdate PromptsWidget "
    "RecordingSubscriber ReplayError ReplayScrubber RespondToModel ResponsesModel Rollout RolloutError RolloutReplay "
    "ScriptedModel ScriptedModelError Session StepStatus TokenUsage Tool ToolCallError ToolCollisionError "
    "ToolDefinitionError ToolExposure ToolInvocation ToolOutput Transcript TurnControls TurnError TurnInterrupted "
    "UpdatePlanArgs assistant_message custom_tool_call function_call hooks image_thumbnails list_rollouts "
    "load_ipython_extension read_rollout render_plan_text tool_search_call turn_plan_updated "
    "unload_ipython_extension user_message"
).split()
MOVED = [name for name in RELEASED if name not in cx.__all__]


def test_every_released_name_is_public_or_moved_with_an_alias() -> None:
    assert sorted(MOVED) == sorted(cx._MOVED)
    for name, home in cx._MOVED.items():
        assert home in PUBLIC_MODULES and name in importlib.import_module(home).__all__, (name, home)


@pytest.mark.parametrize("name", MOVED)
def test_a_moved_name_warns_with_its_new_home_and_is_the_same_object(name: str) -> None:
    home = cx._MOVED[name]
    with pytest.warns(DeprecationWarning, match=re.escape(f"codex_nb.{name} is deprecated; use {home}.{name}")):
        value = getattr(cx, name)
    assert value is getattr(importlib.import_module(home), name)
    assert name not in vars(cx) and name not in dir(cx), "an alias must not become a public name again"


def test_from_import_of_a_moved_name_warns_every_time() -> None:
    for _ in range(2):  # not cached: the second use warns as well
        with pytest.warns(DeprecationWarning, match=r"codex_nb\.Tool is deprecated; use codex_nb\.tools\.Tool"):
            from codex_nb import Tool
    assert Tool is importlib.import_module("codex_nb.tools.base").Tool


def test_a_star_import_loads_no_extension_and_warns_nothing() -> None:
    code = (
        "import sys, warnings; warnings.simplefilter('error'); from codex_nb import *; "
        "assert 'codex_nb.extension' not in sys.modules, 'a star import loaded the IPython extension'"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("module", sorted(PUBLIC_MODULES))
def test_a_public_module_lists_its_names_and_they_resolve(module: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no public module may be a deprecated alias
        loaded = importlib.import_module(module)
        names = loaded.__all__
        assert names and len(set(names)) == len(names)
        for name in names:
            assert getattr(loaded, name) is not None, f"{module}.{name}"


def test_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert cx.__version__ == version("codex_nb")


# --- the docs use public names only ---------------------------------------------------------


def public(module: str, attrs: list[str]) -> str | None:
    """None if ``module.attrs[0].attrs[1]...`` is public, else the first non-public dotted name.
    A public module's listed name ends the walk: what follows is that object's own attribute."""
    for attr in attrs:
        if f"{module}.{attr}" in PUBLIC_MODULES:
            module = f"{module}.{attr}"
            continue
        if module in PUBLIC_MODULES and attr in importlib.import_module(module).__all__:
            return None
        return f"{module}.{attr}"
    return None if module in PUBLIC_MODULES else module


def dotted(node: ast.expr) -> list[str] | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


def private_uses(source: str) -> list[str]:
    """Every codex_nb name ``source`` uses that is not public (``cx`` is ``codex_nb`` throughout)."""
    tree = ast.parse(TransformerManager().transform_cell(source))
    aliases = {"cx": "codex_nb", "codex_nb": "codex_nb"}
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "codex_nb":
                    top, *rest = alias.name.split(".")
                    if (bad := public(top, rest)) is not None:
                        found.append(bad)
                    if alias.asname:
                        aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "codex_nb" and not node.level:
            top, *rest = (node.module or "").split(".")
            for alias in node.names:
                if (bad := public(top, [*rest, alias.name])) is not None:
                    found.append(bad)
                elif f"{node.module}.{alias.name}" in PUBLIC_MODULES:
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (chain := dotted(node)) and chain[0] in aliases:
            module = aliases[chain[0]]
            if module in PUBLIC_MODULES and (bad := public(module, chain[1:])) is not None:
                found.append(bad)
    return sorted(set(found))


def doc_sources(root: Path) -> Iterator[tuple[str, str]]:
    """(where, source) for each python/ipython block of the README and the site's pages, and each
    notebook code cell."""
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        name = page.relative_to(root)
        for index, match in enumerate(re.finditer(r"```(?:python|ipython)\n(.*?)```", text, flags=re.S)):
            line = text.count("\n", 0, match.start()) + 1
            yield f"{name} block {index} (line {line})", match.group(1)
    for path in sorted((root / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for index, cell in enumerate(cells):
            if cell["cell_type"] == "code":
                yield f"{path.name} cell {index}", "".join(cell["source"])


def private_uses_in_docs(root: Path) -> dict[str, list[str]]:
    return {where: bad for where, source in doc_sources(root) if (bad := private_uses(source))}


def test_the_readme_docs_and_notebooks_use_only_public_names() -> None:
    sources = [where for where, _ in doc_sources(ROOT)]
    assert any(where.startswith("docs/") for where in sources)  # the site's pages are read too
    assert private_uses_in_docs(ROOT) == {}


def test_the_docs_check_catches_what_it_names() -> None:
    assert private_uses("import codex_nb as cx\ncx.Session(cx.Config())\ncx.app_server.CodexThread") == []
    assert private_uses("from codex_nb.hooks import Block\nimport codex_nb.testing as t\nt.ResponsesServer") == []
    assert private_uses("cx.Config.from_toml('')\ncx.extension.agent()\n%load_ext codex_nb") == []
    assert private_uses("cx.runtime.records.CallRecords") == ["codex_nb.runtime"]
    assert private_uses("from codex_nb.protocol.wire import dumps") == ["codex_nb.protocol"]
    assert private_uses("from codex_nb.hooks import _private") == ["codex_nb.hooks._private"]
    assert private_uses("import codex_nb\ncodex_nb.Event") == ["codex_nb.Event"]  # moved: not public any more
    assert private_uses("import codex_nb.acp") == ["codex_nb.acp"]  # the deprecated alias is not public
    assert private_uses("x = await cx.AcpAgent('a').new_session('/tmp')\nfrom codex_nb import tools") == []
