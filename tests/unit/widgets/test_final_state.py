"""Outputs updated in place to a widget's final state: only in a Jupyter kernel. In a terminal
IPython nothing stores the output and every update would print again, so it is shown once."""

from __future__ import annotations

from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config as TraitletsConfig

import codex_nb as cx
from codex_nb.widgets import final_state
from codex_nb.widgets.testing import recording_comms


@pytest.fixture
def shell() -> Any:
    config = TraitletsConfig()
    config.HistoryManager.enabled = False
    ip = InteractiveShell.instance(config=config)
    try:
        yield ip
    finally:
        InteractiveShell.clear_instance()


def test_a_terminal_shell_shows_the_checklist_once_and_keeps_no_display(shell: Any, capsys: Any) -> None:
    session = cx.Session()
    with recording_comms():
        checklist = cx.PlanChecklist(session)
    shell.user_ns["checklist"] = checklist
    shell.run_cell("checklist")
    shell.run_cell("1 + 1")
    out = capsys.readouterr().out
    assert out.count("(no plan yet)") == 1
    assert final_state._republish_all not in shell.events.callbacks["post_run_cell"]
    assert "_final_displays" not in checklist.__dict__
    checklist.close()
