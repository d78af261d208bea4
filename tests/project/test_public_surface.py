"""The public surface: ``codex_nb.__all__`` plus the public packages, and nothing else.

Two guarantees. Every public package that gathers names lists them in ``__all__`` and they
resolve; a name is imported from the package (or module) that defines it, and a leading underscore
marks what is internal. And the README's code blocks and the notebooks' code cells (read with
``ast``, after IPython's own magic transform) use only public names: a reader copies what they
see, so the docs must not teach an internal module.
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


# The packages a user may import from (each module in them too, unless its name starts with "_");
# the rest of codex_nb (``_process``, ``_lazy``, ``_records``, ``_front_end`` ...) is internal.
PUBLIC_PACKAGES = frozenset(
    {
        "acp",
        "agent_server",
        "app_server",
        "cassettes",
        "config",
        "errors",
        "events",
        "extension",
        "frontend",
        "hooks",
        "mcp",
        "protocol",
        "render",
        "responses",
        "rollouts",
        "runtime",
        "testing",
        "timeline",
        "tools",
        "widgets",
    }
)

# The modules that gather a package's public names in ``__all__``.
PUBLIC_MODULES = frozenset(
    {
        "codex_nb",
        "codex_nb.acp",
        "codex_nb.agent_server",
        "codex_nb.app_server",
        "codex_nb.config",
        "codex_nb.errors",
        "codex_nb.events",
        "codex_nb.extension",
        "codex_nb.hooks",
        "codex_nb.render",
        "codex_nb.rollouts",
        "codex_nb.testing",
        "codex_nb.timeline",
        "codex_nb.tools",
    }
)


def test_the_removed_names_are_gone() -> None:
    """0.2.0 ended the 0.1 aliases: the old top-level names and modules are not there any more."""
    for name in ("Tool", "Event", "CodexThread", "TokenUsage", "TURN_ABORTED_MARKER", "_MOVED"):
        assert not hasattr(cx, name), name
    for module in ("plans", "models", "history", "answers", "wire", "acp_client", "acp_server", "sources", "notebook"):
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(f"codex_nb.{module}")


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
    """None if ``module.attrs[0].attrs[1]...`` is public, else the first non-public dotted name: at
    the top level a name of ``codex_nb.__all__`` or a public package; below it, any name without a
    leading underscore."""
    parts = [*module.split("."), *attrs]
    if parts[0] != "codex_nb" or len(parts) == 1:
        return None
    head = parts[1]
    if head not in PUBLIC_PACKAGES:
        return None if head in cx.__all__ else f"codex_nb.{head}"
    for index, part in enumerate(parts[2:], start=2):
        if part.startswith("_"):
            return ".".join(parts[: index + 1])
    return None


def is_package_path(dotted_name: str) -> bool:
    parts = dotted_name.split(".")
    return parts[0] == "codex_nb" and (len(parts) == 1 or parts[1] in PUBLIC_PACKAGES)


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
                elif (alias.name == alias.name.lower()) and is_package_path(f"{node.module}.{alias.name}"):
                    aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and (chain := dotted(node)) and chain[0] in aliases:
            module = aliases[chain[0]]
            if (bad := public(module, chain[1:])) is not None:
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
    assert private_uses("cx.runtime.call_records.CallRecords\nfrom codex_nb.protocol.wire import dumps") == []
    assert private_uses("from codex_nb.hooks import _private") == ["codex_nb.hooks._private"]
    assert private_uses("from codex_nb._process import spawn") == ["codex_nb._process"]
    assert private_uses("import codex_nb\ncodex_nb.Event") == ["codex_nb.Event"]  # removed in 0.2.0
    assert private_uses("cx.protocol._fast.trusted") == ["codex_nb.protocol._fast"]
    assert private_uses("x = await cx.AcpAgent('a').new_session('/tmp')\nfrom codex_nb import tools") == []
