"""The built widget bundle (codex_nb/widgets/static/, made by js/build.mjs with esbuild): current
with js/, one self-contained ES module per widget, and what every widget class sends as its code."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import anywidget
import pytest
from helpers.paths import JS
from test_checklist import node

from codex_nb.extension.panel import PanelHeader, PanelNote
from codex_nb.widgets._static import STATIC, asset
from codex_nb.widgets.checklist import PlanChecklist
from codex_nb.widgets.notebook_bridge import NotebookBridge
from codex_nb.widgets.prompts import PromptsWidget
from codex_nb.widgets.plan_answers import PlanAnswersWidget
from codex_nb.widgets.sessions_browser import SessionsTable
from codex_nb.widgets.timeline import PlanTimelineWidget
from codex_nb.widgets.transcript import Transcript
from codex_nb.widgets.turn_controls import TurnControls

WIDGETS: list[type[anywidget.AnyWidget]] = [
    PlanChecklist,
    NotebookBridge,
    PromptsWidget,
    PlanTimelineWidget,
    Transcript,
    TurnControls,
    PanelHeader,
    PanelNote,
    PlanAnswersWidget,
    SessionsTable,
]
ENTRIES = sorted(path.name for path in STATIC.glob("*.js"))


def test_the_built_bundle_is_current_with_js(tmp_path: Path) -> None:
    """Rebuild from js/ into a temp folder: every built file must equal the committed one."""
    if not (JS / "node_modules" / "esbuild").is_dir():
        pytest.fail("js/node_modules has no esbuild: run bash .ci/setup (npm ci in js/)")
    out = tmp_path / "static"
    subprocess.run(
        [node(), str(JS / "build.mjs"), "--outdir", str(out)], check=True, capture_output=True, text=True, timeout=120
    )
    built = {path.name: path.read_bytes() for path in out.iterdir()}
    committed = {path.name: path.read_bytes() for path in STATIC.iterdir()}
    assert sorted(built) == sorted(committed), "the bundle's files changed: run `node js/build.mjs` and commit"
    stale = [name for name in built if built[name] != committed[name]]
    assert not stale, f"{stale} are older than js/: run `node js/build.mjs` (bash .ci/setup does) and commit"


@pytest.mark.parametrize("entry", ENTRIES)
def test_each_built_module_stands_alone(tmp_path: Path, entry: str) -> None:
    """anywidget imports _esm from a blob URL, where no relative import resolves: node imports
    a copy of each module from a folder holding nothing else."""
    source = asset(entry).read_text(encoding="utf-8")
    assert not any(line.lstrip().startswith("import ") for line in source.splitlines()), entry
    path = tmp_path / "widget.mjs"
    path.write_text(source, encoding="utf-8")
    script = (
        f"const m = await import({json.dumps(path.as_uri())});"
        "console.log(Object.keys(m.default).filter((k) => typeof m.default[k] === 'function').sort().join(','));"
    )
    out = subprocess.run([node(), "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    assert set(out.stdout.strip().split(",")) & {"render", "initialize"}, out.stdout


@pytest.mark.parametrize("widget", WIDGETS, ids=lambda widget: widget.__name__)
def test_every_widget_sends_a_file_of_the_bundle(widget: type[anywidget.AnyWidget]) -> None:
    """What a widget syncs as its code and style is, byte for byte, one file of the bundle."""
    for key, suffix in (("_esm", ".js"), ("_css", ".css")):
        value = next((c.__dict__[key] for c in widget.__mro__ if key in c.__dict__), None)
        if value is None:
            assert key == "_css", f"{widget.__name__} has no {key}"
            continue
        files = {path.read_text(encoding="utf-8"): path.name for path in STATIC.glob(f"*{suffix}")}
        assert str(value) in files, f"{widget.__name__}.{key} is no file of {STATIC}"
