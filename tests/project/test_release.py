"""The release candidate: ``python -m build`` makes a wheel and an sdist that ``twine check``
accepts, and the wheel, installed with the README's extras into a venv outside this checkout,
runs the quickstart under nbval with the widget code of its own bundle.

Marked ``release`` (about two minutes the first time, see helpers/release.py); ``.ci/test`` runs it,
``-m "not release"`` leaves it out of an inner loop.
"""

from __future__ import annotations

import email
import json
import shutil
import sys
import tomllib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from helpers.paths import NOTEBOOKS, PACKAGE, ROOT
from helpers.release import build_dist, release_venv, run, venv_python

pytestmark = pytest.mark.release

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_dist(tmp_path_factory.mktemp("release") / "dist")


@pytest.fixture(scope="module")
def venv(dist: tuple[Path, Path]) -> Iterator[Path]:
    yield release_venv(dist[0])


def test_build_makes_a_wheel_and_an_sdist_that_twine_accepts(dist: tuple[Path, Path]) -> None:
    wheel, sdist = dist
    assert wheel.name == f"codex_nb-{VERSION}-py3-none-any.whl" and sdist.name == f"codex_nb-{VERSION}.tar.gz"
    out = run([sys.executable, "-m", "twine", "check", "--strict", wheel, sdist], cwd=wheel.parent)
    assert out.count("PASSED") == 2, out
    names = zipfile.ZipFile(wheel).namelist()
    bundle = sorted(p.relative_to(PACKAGE.parent).as_posix() for p in (PACKAGE / "widgets" / "static").iterdir())
    assert set(bundle) <= set(names), "the wheel lacks files of the widget bundle"
    assert not [n for n in names if n.startswith(("js/", "codex_nb/_static/", "tests/"))], "sources beside the package"


def test_the_wheel_declares_every_extra_the_readme_names(dist: tuple[Path, Path]) -> None:
    """`pip install 'codex_nb[model]'` and the others: each extra of pyproject.toml is in the wheel's
    metadata with its requirements (the venv fixture installs [lab,model] from it for real)."""
    wheel = zipfile.ZipFile(dist[0])
    text = wheel.read(f"codex_nb-{VERSION}.dist-info/METADATA").decode()
    metadata = email.message_from_string(text)
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert sorted(metadata.get_all("Provides-Extra") or []) == sorted(extras)
    requires = metadata.get_all("Requires-Dist") or []

    def normal(line: str) -> str:
        req = Requirement(line)
        return f"{canonicalize_name(req.name)}{sorted(req.extras)}{req.specifier}"

    def expected(extra: str) -> set[str]:
        """The extra's requirements, with ``codex_nb[other]`` replaced by other's (as hatchling writes them)."""
        out: set[str] = set()
        for line in extras[extra]:
            req = Requirement(line)
            out |= set().union(*map(expected, req.extras)) if req.name == "codex_nb" else {normal(line)}
        return out

    for extra in extras:
        declared = {normal(r.partition(";")[0]) for r in requires if f"extra == '{extra}'" in r}
        assert declared == expected(extra), extra
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert all(f"[{extra}]" in readme for extra in ("lab", "model", "tools", "rollouts", "docs", "test"))


def test_the_sdist_carries_the_bundle_so_installing_it_needs_no_node(dist: tuple[Path, Path]) -> None:
    import tarfile

    with tarfile.open(dist[1]) as sdist:
        names = {name.partition("/")[2] for name in sdist.getnames()}
    assert {"codex_nb/widgets/static/plan_checklist.js", "js/build.mjs", ".ci/hatch_build.py"} <= names
    assert not [n for n in names if n.startswith(("js/node_modules", "tests/", "notebooks/"))]


def test_the_installed_wheel_loads_its_own_bundle(venv: Path, tmp_path: Path) -> None:
    """Run from a folder outside the checkout: codex_nb, and the checklist's _esm, come from the venv."""
    code = (
        "import json, codex_nb\n"
        "from codex_nb.widgets._static import asset\n"
        "from codex_nb.widgets.checklist import PlanChecklist\n"
        "print(json.dumps({'package': codex_nb.__file__, 'version': codex_nb.__version__,"
        " 'esm_file': str(asset('plan_checklist.js')), 'esm': str(PlanChecklist._esm),"
        " 'esm_file_text': asset('plan_checklist.js').read_text(encoding='utf-8')}))\n"
    )
    found = json.loads(run([venv_python(venv), "-c", code], cwd=tmp_path))
    site = venv / "lib"
    assert Path(found["package"]).is_relative_to(site), found["package"]
    assert found["version"] == VERSION
    esm_file = Path(found["esm_file"])
    assert esm_file.is_relative_to(site) and esm_file.name == "plan_checklist.js", esm_file
    assert found["esm"] == found["esm_file_text"]  # the class sends the installed file
    assert found["esm"] == (PACKAGE / "widgets" / "static" / "plan_checklist.js").read_text(encoding="utf-8")
    assert not (Path(found["package"]).parent / "_static").exists()


def test_the_quickstart_runs_under_nbval_from_the_installed_wheel(venv: Path, tmp_path: Path) -> None:
    """The quickstart, copied out of the checkout, under nbval in the venv with the sanitizer rules the
    wheel ships (codex_nb.testing.NBVAL_SANITIZE) and its nbval plugin (codex_nb.testing.nbval_displays)."""
    notebook = shutil.copy(NOTEBOOKS / "00_quickstart.ipynb", tmp_path)
    # pytest's own, empty configuration: it would otherwise look for one above the rules file too
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    python = venv_python(venv)
    rules = run(
        [python, "-c", "from codex_nb.testing.nbval import NBVAL_SANITIZE; print(NBVAL_SANITIZE)"], cwd=tmp_path
    )
    # the shipped plugin compares the widgets' displays at their final state, as the notebook stores them
    plugin = ["-p", "codex_nb.testing.nbval_displays"]
    command = [python, "-m", "pytest", "-p", "no:cacheprovider", *plugin, "-q", "--nbval", notebook]
    out = run([*command, "--nbval-sanitize-with", rules.strip()], cwd=tmp_path, timeout=300)
    assert " passed" in out and "failed" not in out, out


def test_the_readme_installs_this_version_s_wheel() -> None:
    """The README's wheel line names the file ``python -m build`` writes for this version."""
    for doc in (ROOT / "README.md", ROOT / "docs" / "getting-started.md"):
        text = doc.read_text(encoding="utf-8")
        assert f"pip install 'dist/codex_nb-{VERSION}-py3-none-any.whl[lab]'" in text, doc.name
