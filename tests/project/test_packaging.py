"""What a packager and a first-time user of ``.ci/lab`` see: license, URLs, packages, no news toast."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata

import pytest
from helpers.paths import NOTEBOOKS, ROOT
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name


def test_the_license_the_metadata_names_ships():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert project["urls"] and all(url.startswith("https://") for url in project["urls"].values())


def test_every_package_directory_is_a_regular_package():
    for directory in (ROOT / "codex_nb").rglob("*"):
        if directory.is_dir() and any(directory.glob("*.py")):
            assert (directory / "__init__.py").exists(), f"{directory.relative_to(ROOT)} has no __init__.py"


def test_ci_lab_turns_off_the_jupyterlab_news_toast(tmp_path):
    """Run the part of .ci/lab before `exec jupyter lab` in a scratch copy and read what it wrote."""
    script = (ROOT / ".ci" / "lab").read_text()
    head = script[script.index('# No "Would you like') : script.index("extra=()")]
    subprocess.run(["bash", "-c", head], cwd=tmp_path, check=True, env={**os.environ})
    overrides = json.loads((tmp_path / ".venv/share/jupyter/lab/settings/overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


def test_node_loads_the_widget_modules_as_es_modules_without_a_warning():
    """js/package.json declares "type": "module": without it node re-parses every widget module
    and prints MODULE_TYPELESS_PACKAGE_JSON once per file into the test log."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (.ci/setup installs it)")
    run = subprocess.run(
        [node, "--test", "js/tests/plan_view.test.mjs"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "MODULE_TYPELESS_PACKAGE_JSON" not in run.stdout + run.stderr
    assert "Warning" not in run.stderr


def test_the_wheel_marks_the_package_typed():
    """PEP 561: without ``py.typed`` a user's type checker ignores codex_nb's annotations."""
    marker = ROOT / "codex_nb" / "py.typed"
    assert marker.is_file() and marker.read_bytes() == b""
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert "codex_nb" in wheel["include"]
    assert not any(pattern.startswith("codex_nb") for pattern in wheel.get("exclude", []))


def test_every_path_mypy_is_told_to_check_exists():
    """A renamed module must not silently drop out of the type check."""
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert mypy["python_version"] == "3.11"
    missing = [path for path in mypy["files"] if not (ROOT / path).exists()]
    assert not missing, f"[tool.mypy] files names paths that do not exist: {missing}"


def test_the_version_comes_from_the_package_metadata() -> None:
    """``codex_nb.__version__`` is the installed distribution's version (pyproject.toml's), read
    on first use: ``import codex_nb`` does not load importlib.metadata."""
    code = "import sys, codex_nb; loaded = 'codex_nb._version' in sys.modules; print(loaded, codex_nb.__version__)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded, version = run.stdout.split()
    assert loaded == "False"
    assert version == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _lab_extras() -> list[str]:
    """The extras .ci/setup installs for .ci/lab (its line `pip install -e ".[lab,...]"`)."""
    script = (ROOT / ".ci" / "setup").read_text()
    block = script[script.index('if [ "${CODEX_NB_SETUP:-test}" = "lab" ]') :]
    extras = re.search(r'pip install -q -e "\.\[([\w,]+)\]"', block)
    assert extras, "the lab profile of .ci/setup names no extras"
    return extras.group(1).split(",")


def _own_requires(extras: set[str]) -> list[str]:
    """codex_nb's requirements with these extras, read from this tree's pyproject.toml (the
    installed metadata may be another checkout's: the editable install of a shared venv)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lines = list(project.get("dependencies", []))
    for extra in sorted(extras):
        lines += project["optional-dependencies"][extra]
    return lines


def _closure(requirements: list[str]) -> set[str]:
    """Every distribution these requirements pull in (read from the installed metadata; codex_nb's
    own from pyproject.toml, its extras naming each other included)."""
    seen: set[str] = set()
    own_extras: set[str] = set()
    todo = [Requirement(line) for line in requirements]
    while todo:
        req = todo.pop()
        name = canonicalize_name(req.name)
        if name == "codex-nb":
            new = set(req.extras) - own_extras
            if new or name not in seen:
                own_extras |= new
                seen.add(name)
                todo += [Requirement(line) for line in _own_requires(new or set())]
            continue
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.distribution(name).requires or []:
            child = Requirement(line)
            extra_of = [e for e in req.extras] or [""]
            if child.marker is None or any(child.marker.evaluate({"extra": e}) for e in extra_of):
                todo.append(child)
    return seen


def _notebook_imports() -> set[str]:
    """The top-level modules the notebooks (and the MCP servers a notebook starts) import."""
    sources = [cell for nb in sorted(NOTEBOOKS.glob("*.ipynb")) for cell in _code_cells(nb)]
    sources += [path.read_text() for path in (ROOT / "tests" / "mcp_servers").glob("*.py")]
    return {
        str(node.module if isinstance(node, ast.ImportFrom) else alias.name).partition(".")[0]
        for source in sources
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0)
        for alias in node.names
    }


def _missing_from(installed: set[str]) -> dict[str, list[str]]:
    owners = metadata.packages_distributions()
    return {
        top: owners[top]
        for top in _notebook_imports()
        if top in owners and not {canonicalize_name(d) for d in owners[top]} & installed
    }


def test_ci_lab_installs_the_lab_extra_alone() -> None:
    """.ci/lab installs codex_nb[lab], not the test set: the one extra README names for the notebooks."""
    assert _lab_extras() == ["lab"]


def test_the_lab_extra_covers_every_notebook_import() -> None:
    """``pip install 'codex_nb[lab]'`` (the wheel's extra README names) is enough for every notebook:
    every module a notebook (or an MCP server a notebook starts) imports comes from a distribution
    it pulls in (Pillow for notebook 15 once was not)."""
    missing = _missing_from(_closure(["codex_nb[lab]"]))
    assert not missing, f"notebooks import modules the [lab] extra does not install: {missing}"


def test_the_lab_extra_installs_notebook_7() -> None:
    """README and the notebooks describe JupyterLab and Notebook 7: `bash .ci/lab` once served no
    `/tree` (Notebook 7 was only in the test set)."""
    installed = _closure(["codex_nb[lab]"])
    assert {"jupyterlab", "notebook"} <= installed
    lab = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["lab"]
    notebook = next(Requirement(line) for line in lab if canonicalize_name(Requirement(line).name) == "notebook")
    assert notebook.specifier.contains("7.2") and not notebook.specifier.contains("6.5")


def _code_cells(path) -> list[str]:
    """The Python of a notebook's code cells, magics and shell lines dropped."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [
        "\n".join(line for line in "".join(c["source"]).splitlines() if not line.lstrip().startswith(("%", "!")))
        for c in cells
        if c["cell_type"] == "code" and not "".join(c["source"]).startswith("%%")
    ]
