"""Hook outputs that used to escape as exceptions: each is a failed hook run that fails open
(or blocks with ``on_error = "block"``) and says what a hook may return."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.hooks import HookEngine, Rewrite, parse_hooks_json

PLAN = {"plan": [{"step": "Inspect", "status": "in_progress"}]}
BASE_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "SHELL": "/bin/sh"}
ALLOWED = (
    "return None (allow), a decision (Block, Rewrite, AddContext, Stop from codex_nb.hooks), the dict a "
    "command hook would print, or that dict as JSON text"
)


def command_session(tmp_path: Path, command: str, **handler) -> cx.Session:
    doc = {
        "hooks": {
            "PreToolUse": [{"matcher": "update_plan", "hooks": [{"type": "command", "command": command, **handler}]}]
        }
    }
    engine = HookEngine(env=BASE_ENV, config=parse_hooks_json(json.dumps(doc), source_path="<test>", from_file=False))
    return cx.Session(cwd=str(tmp_path), hooks=engine)


def runs(result):
    return [e.msg.run for e in result.events if e.msg.type == "hook_completed"]


def errors(result):
    return [e.text for run in runs(result) for e in run.entries if e.kind == "error"]


async def test_a_command_printing_very_deep_json_is_a_failed_run(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    result = await command_session(tmp_path, f"cat {deep}").call_tool("update_plan", PLAN)
    assert result.output == "Plan updated"
    assert runs(result)[0].status == "failed"
    assert errors(result) == ["hook returned invalid pre-tool-use JSON output"]


async def test_a_command_printing_very_deep_json_blocks_with_on_error_block(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text('{"a":' * 100_000 + "1" + "}" * 100_000)
    result = await command_session(tmp_path, f"cat {deep}", on_error="block").call_tool("update_plan", PLAN)
    assert result.output == (
        "Tool call blocked by PreToolUse hook: hook returned invalid pre-tool-use JSON output "
        "(on_error = block). Tool: update_plan"
    )


@pytest.mark.parametrize(
    ("returned", "error"),
    [
        (
            Rewrite(updated_input={"plan": {1, 2}}),
            f"hook output is not JSON (TypeError: Object of type set is not JSON serializable); {ALLOWED}",
        ),
        ("block", f"hook returned the string 'block'; {ALLOWED}"),
        ("deny: no deploys", f"hook returned the string 'deny: no deploys'; {ALLOWED}"),
        (42, f"hook returned an unsupported value of type int; {ALLOWED}"),
        (
            {"decision": object()},
            f"hook output is not JSON (TypeError: Object of type object is not JSON serializable); {ALLOWED}",
        ),
    ],
)
async def test_python_hook_values_that_are_not_hook_output_fail_the_run(returned, error):
    session = cx.Session()

    @session.pre_tool_use(matcher="update_plan")
    def odd(hook_input):
        return returned

    result = await session.call_tool("update_plan", PLAN)
    assert result.output == "Plan updated"  # fails open, as Codex's failed hooks do
    assert runs(result)[0].status == "failed"
    assert errors(result) == [error]


async def test_python_hook_json_text_still_works():
    session = cx.Session()

    @session.pre_tool_use(matcher="update_plan")
    def deny(hook_input):
        return json.dumps({"decision": "block", "reason": "as text"})

    result = await session.call_tool("update_plan", PLAN)
    assert result.output == "Tool call blocked by PreToolUse hook: as text. Tool: update_plan"


async def test_lone_surrogates_reach_a_command_hook_as_replacement_characters(tmp_path):
    out = tmp_path / "stdin.json"
    doc = {"hooks": {"PostToolUse": [{"matcher": "odd", "hooks": [{"type": "command", "command": f"cat > {out}"}]}]}}
    engine = HookEngine(env=BASE_ENV, config=parse_hooks_json(json.dumps(doc), source_path="<t>", from_file=False))
    session = cx.Session(cwd=str(tmp_path), hooks=engine)

    @session.tool
    async def odd() -> str:
        "Returns a lone surrogate."
        return "a\ud800b"

    result = await session.call_tool("odd", {})
    assert result.output == "a\ud800b"
    assert runs(result)[0].status == "completed"
    assert json.loads(out.read_text(encoding="utf-8"))["tool_response"] == "a\ufffdb"
