"""``[codex_nb.notebook_tools]``: off by default, seven tools when on, per-tool switches, clear errors."""

from __future__ import annotations

import pytest

import codex_nb as cx
from codex_nb.config import NotebookToolsSettings

ALL = ["edit_cell", "insert_cell", "inspect_variable", "list_cells", "read_cell", "run_cell", "run_code"]


def notebook_specs(config: cx.Config) -> list[str] | None:
    for spec in cx.Session(config=config).tool_plan().specs:
        if spec.get("type") == "namespace" and spec["name"] == "notebook":
            return [tool["name"] for tool in spec["tools"]]
    return None


def test_off_unless_enabled() -> None:
    assert notebook_specs(cx.Config()) is None
    assert notebook_specs(cx.Config.from_toml("")) is None
    assert notebook_specs(cx.Config.from_toml("[codex_nb.notebook_tools]\nenabled = false\n")) is None


def test_enabled_registers_the_namespace_with_codex_style_specs() -> None:
    config = cx.Config.from_toml("[codex_nb.notebook_tools]\nenabled = true\n")
    assert notebook_specs(config) == ALL
    assert notebook_specs(cx.Config(notebook_tools=NotebookToolsSettings(enabled=True))) == ALL
    spec = next(s for s in cx.Session(config=config).tool_plan().specs if s.get("name") == "notebook")
    run_code = next(t for t in spec["tools"] if t["name"] == "run_code")
    assert list(run_code) == ["type", "name", "description", "strict", "parameters"]
    assert run_code["parameters"] == {
        "type": "object",
        "properties": {
            "code": {"type": "string", "description": "The Python code to run."},
            "timeout_ms": {"type": "number", "description": "Stop the code after this long (default 30000)."},
        },
        "required": ["code"],
        "additionalProperties": False,
    }
    assert spec["description"].startswith("Tools for the Jupyter notebook")


def test_per_tool_switches() -> None:
    config = cx.Config.from_toml("[codex_nb.notebook_tools]\nenabled = true\nrun_code = false\nedit_cell = false\n")
    assert notebook_specs(config) == [n for n in ALL if n not in ("run_code", "edit_cell")]


def test_approval_defaults_and_overrides() -> None:
    settings = cx.Config.from_toml("[codex_nb.notebook_tools]\nenabled = true\n").notebook_tools
    assert [n for n in ALL if settings.asks(n)] == ["edit_cell", "insert_cell", "run_cell", "run_code"]
    relaxed = cx.Config.from_toml(
        "[codex_nb.notebook_tools]\nenabled = true\n[codex_nb.notebook_tools.approve]\nrun_code = false\n"
    ).notebook_tools
    assert not relaxed.asks("run_code") and relaxed.asks("edit_cell")


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[codex_nb.notebook_tools]\nenabled = true\ndelete_cell = true\n", "unknown keys ['delete_cell']"),
        ("[codex_nb.notebook_tools]\nrun_code = 1\n", "run_code must be true or false"),
        ("[codex_nb.notebook_tools.approve]\nlist_cells = false\n", "maps run_code, insert_cell, edit_cell, run_cell"),
        ("[codex_nb.notebook_tools]\nmax_output_chars = 10\n", "max_output_chars"),
        ("[codex_nb]\nnotebook_tools = 3\n", "must be a table"),
    ],
)
def test_bad_tables_say_what_is_wrong(toml: str, message: str) -> None:
    with pytest.raises(cx.ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        cx.Config.from_toml(toml)
