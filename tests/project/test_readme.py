"""README snippets are executable documentation: run every ```python block."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any
from helpers.binary_requirements import snippet_case
from helpers.paths import README

import pytest


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_snippets() -> None:
    assert python_blocks()


def snippets() -> list[Any]:
    """One case per block; a block that starts the real Codex or codex-acp carries its marker."""
    return [snippet_case(block, id=f"block{index}") for index, block in enumerate(python_blocks())]


@pytest.mark.parametrize("block", snippets())
def test_readme_snippets_run(block: str) -> None:
    out = subprocess.run([sys.executable, "-c", block], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr


def test_the_notebook_table_lists_every_notebook() -> None:
    readme = README.read_text(encoding="utf-8")
    table = readme.split("## The notebooks", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\d\d_\w+\.ipynb)` \|", table, flags=re.M)
    on_disk = sorted(p.name for p in (README.parent / "notebooks").glob("*.ipynb"))
    assert listed == on_disk


def test_install_commands_work_from_a_checkout() -> None:
    """codex_nb is not released: every `codex_nb[extra]` install is said to be for after a release,
    next to the `-e '.[extra]'` form, and every extra named exists."""
    import tomllib

    readme = README.read_text(encoding="utf-8")
    extras = tomllib.loads((README.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    named = re.findall(r"pip install -e ['\"]\.\[(\w+)\]['\"]", readme)
    assert named and set(named) <= set(extras)
    for match in re.finditer(r"pip install ['\"]?codex_nb\[(\w+)\]", readme):
        assert match.group(1) in extras
        around = " ".join(readme[max(0, match.start() - 200) : match.end() + 200].split())
        assert "after a release" in around and f".[{match.group(1)}]" in around, around


def test_the_python_equivalent_of_codex_config_does_what_the_magic_does(shell: Any, capsys: Any) -> None:
    readme = (README.parent / "docs" / "extension.md").read_text(encoding="utf-8")
    section = readme.split("**`%codex_config` in Python.**", 1)[1]
    (block,) = re.findall(r"```ipython\n(.*?)```", section, flags=re.S)[:1]
    shell.run_cell("import codex_nb as cx\ntidy_up = [[cx.assistant_message('done')]]")
    result = shell.run_cell(block)
    assert result.success, result.error_in_exec
    assert capsys.readouterr().out == "True default\n"
    shell.run_line_magic("codex_config", "")
    described = capsys.readouterr().out.splitlines()
    assert "default --model: tidy_up (list)" in described and "auto plan panel: on" in described
    assert "update_plan: on" in described


async def test_the_cells_without_magics_show_the_plan_in_the_checklist() -> None:
    """The README's "Without magics" cells, run as cells: the first displays the checklist, the second
    returns at once with the turn running, and the checklist then shows the turn's plan."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config as TraitletsConfig

    readme = README.read_text(encoding="utf-8")
    section = readme.split("## Without magics", 1)[1].split("\n## ", 1)[0]
    display, start = re.findall(r"```ipython\n(.*?)```", section, flags=re.S)
    config = TraitletsConfig()
    config.HistoryManager.enabled = False
    shell = InteractiveShell.instance(config=config)
    try:
        shown = await shell.run_cell_async(display, store_history=False, transformed_cell=shell.transform_cell(display))
        assert shown.success, shown.error_in_exec
        checklist = shown.result
        assert "no plan yet" in checklist.text()
        started = await shell.run_cell_async(start, store_history=False, transformed_cell=shell.transform_cell(start))
        assert started.success, started.error_in_exec
        result = await shell.user_ns["handle"]
        assert result.status == "completed"
        assert "Read the data" in checklist.text() and "Plot it" in checklist.text()
        checklist.close()
    finally:
        InteractiveShell.clear_instance()
