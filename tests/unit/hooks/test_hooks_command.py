"""Command hooks as real subprocesses: stdin, env, cwd, exit codes,
timeouts, process groups, output caps. No mocks, no sleeps in the tests themselves."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.hooks import HookEngine, parse_hooks_json
from helpers.hook_processes import BASE_ENV, command_hook_session

PLAN = {"plan": [{"step": "Inspect", "status": "in_progress"}]}
ENV = {**BASE_ENV, "HOOK_MARKER": "snap"}


def script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"{sys.executable} {path}"


def completed_runs(res):
    return [e.msg.run for e in res.events if e.msg.type == "hook_completed"]


def entries(res):
    return [(e.kind, e.text) for e in completed_runs(res)[0].entries]


async def wait_dead(pid: int, timeout: float = 5.0) -> bool:
    """True once ``pid`` has exited (a zombie counts); event-driven through a pidfd."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    loop = asyncio.get_running_loop()
    done = loop.create_future()
    loop.add_reader(fd, lambda: done.done() or done.set_result(None))
    try:
        await asyncio.wait_for(done, timeout)
        return True
    except TimeoutError:
        return False
    finally:
        loop.remove_reader(fd)
        os.close(fd)


async def test_stdin_json_env_and_cwd(tmp_path, monkeypatch):
    out = tmp_path / "seen.json"
    cmd = script(
        tmp_path,
        "hook.py",
        f"""
import json, os, sys
data = sys.stdin.read()
json.dump({{"stdin": data, "cwd": os.getcwd(), "marker": os.environ.get("HOOK_MARKER"),
           "leak": os.environ.get("CODEX_NB_NOT_IN_SNAPSHOT")}}, open({str(out)!r}, "w"))
""",
    )
    session = command_hook_session(tmp_path, cmd, env=ENV)
    monkeypatch.setenv("CODEX_NB_NOT_IN_SNAPSHOT", "secret")
    res = await session.call_tool("update_plan", PLAN, call_id="call-7")
    assert res.output == "Plan updated"
    seen = json.loads(out.read_text())
    stdin = json.loads(seen["stdin"])
    assert list(stdin) == [
        "session_id",
        "turn_id",
        "transcript_path",
        "cwd",
        "hook_event_name",
        "model",
        "permission_mode",
        "tool_name",
        "tool_input",
        "tool_use_id",
    ]
    assert stdin == {
        "session_id": session.thread_id,
        "turn_id": res.events[0].msg.turn_id,
        "transcript_path": None,
        "cwd": str(tmp_path),
        "hook_event_name": "PreToolUse",
        "model": "scripted",
        "permission_mode": "default",
        "tool_name": "update_plan",
        "tool_input": PLAN,
        "tool_use_id": "call-7",
    }
    assert seen["cwd"] == str(tmp_path)
    assert seen["marker"] == "snap" and seen["leak"] is None
    assert completed_runs(res)[0].status == "completed"


async def test_post_tool_use_stdin_has_tool_response(tmp_path):
    out = tmp_path / "post.json"
    session = command_hook_session(tmp_path, f"cat > {out}", event="PostToolUse", env=ENV)
    await session.call_tool("update_plan", PLAN, call_id="p1")
    stdin = json.loads(out.read_text())
    assert stdin["hook_event_name"] == "PostToolUse" and stdin["tool_response"] == "Plan updated"
    assert list(stdin)[-2:] == ["tool_response", "tool_use_id"]


async def test_exit_two_blocks_with_stderr_reason(tmp_path):
    session = command_hook_session(tmp_path, "echo '  policy says no  ' >&2; exit 2", env=ENV)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: policy says no. Tool: update_plan"
    assert "plan_update" not in [e.msg.type for e in res.events]


async def test_json_output_blocks(tmp_path):
    out = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "json deny",
            }
        }
    )
    session = command_hook_session(tmp_path, f"echo '{out}'", env=ENV)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: json deny. Tool: update_plan"


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("echo '{not json'", "hook returned invalid pre-tool-use JSON output"),
        ("exit 3", "hook exited with code 3"),
        ("definitely-not-a-real-executable-xyz", "hook exited with code 127"),
        ('echo \'{"permissionDecision": "allow"}\'', "hook returned invalid pre-tool-use JSON output"),
    ],
)
async def test_failures_fail_open(tmp_path, command, error):
    session = command_hook_session(tmp_path, command, env=ENV)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated"
    run = completed_runs(res)[0]
    assert run.status == "failed" and (("error", error) in entries(res))


async def test_garbage_plain_text_is_ignored(tmp_path):
    session = command_hook_session(tmp_path, "head -c 300 /dev/urandom | tr -d '{[' ; echo", env=ENV)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated" and completed_runs(res)[0].status == "completed"


async def test_non_utf8_output_is_decoded_with_replacement(tmp_path):
    session = command_hook_session(tmp_path, "printf 'bad \\377\\376 bytes' >&2; exit 2", env=ENV)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: bad \ufffd\ufffd bytes. Tool: update_plan"


async def test_huge_output_is_capped_and_spilled(tmp_path):
    session = command_hook_session(tmp_path, "head -c 5000 /dev/zero | tr '\\0' x", env=ENV)
    session.hooks.output_cap = 1024
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated"
    ((kind, text),) = entries(res)
    assert kind == "warning"
    prefix = "hook stdout exceeded 1024 bytes; the remaining 3976 bytes were written to "
    assert text.startswith(prefix)
    spill = Path(text[len(prefix) :])
    try:
        assert spill.read_bytes() == b"x" * 3976  # noqa: ASYNC240  a 4 KB local spill file, after the hook ran
    finally:
        spill.unlink()  # noqa: ASYNC240


@pytest.mark.slow
async def test_timeout_kills_children_that_ignore_sigterm(tmp_path):
    pids = tmp_path / "pids"
    cmd = f"""trap '' TERM
sleep 1000 & echo $! >> {pids}
(trap '' TERM; exec sleep 1001) & echo $! >> {pids}
echo $$ >> {pids}
wait"""
    session = command_hook_session(tmp_path, cmd, timeout=1, on_error="block", env=ENV)
    t0 = time.monotonic()
    res = await session.call_tool("update_plan", PLAN)
    elapsed = time.monotonic() - t0
    assert res.output == (
        "Tool call blocked by PreToolUse hook: hook timed out after 1s (on_error = block). Tool: update_plan"
    )
    assert completed_runs(res)[0].status == "failed"
    assert elapsed < 10
    listed = [int(p) for p in pids.read_text().split()]
    assert len(listed) == 3
    for pid in listed:
        assert await wait_dead(pid), f"hook process {pid} leaked"


async def test_background_child_holding_stdout_does_not_hang_or_leak(tmp_path):
    pids = tmp_path / "pids"
    cmd = f"""sleep 1000 & echo $! > {pids}
echo '{{"decision":"block","reason":"done early"}}'"""
    session = command_hook_session(tmp_path, cmd, env=ENV)  # default timeout 600 s: must not be waited for
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: done early. Tool: update_plan"
    assert await wait_dead(int(pids.read_text()))


@pytest.mark.slow
async def test_cancelling_the_call_kills_the_hook_process_group(tmp_path):
    fifo, pids = tmp_path / "ready", tmp_path / "pids"
    os.mkfifo(fifo)
    cmd = f"sleep 1000 & echo $! > {pids}; echo $$ >> {pids}; echo ready > {fifo}; wait"
    session = command_hook_session(tmp_path, cmd, env=ENV)
    task = asyncio.ensure_future(session.call_tool("update_plan", PLAN))
    # Handshake: the hook writes to the FIFO once its child is running.
    assert (await asyncio.to_thread(fifo.read_text)).strip() == "ready"
    listed = [int(p) for p in pids.read_text().split()]
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    for pid in listed:
        assert await wait_dead(pid), f"hook process {pid} leaked"


async def test_async_command_hook_cannot_block_and_delivers_context_later(tmp_path):
    out = json.dumps(
        {
            "decision": "block",
            "reason": "ignored",
            "hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": "late note"},
        }
    )
    session = command_hook_session(tmp_path, f"echo '{out}'", **{"async": True}, env=ENV)
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated"
    assert [e.msg.type for e in res.events] == ["plan_update"]  # no hook events for async runs
    await session.hooks.wait_async()
    (run,) = session.hooks.async_runs
    assert run.execution_mode == "async" and run.status == "completed"
    assert [(e.kind, e.text) for e in run.entries] == [
        ("context", "late note"),
        ("feedback", "ignored"),
        ("warning", "async hooks cannot block or rewrite; ignored"),
    ]
    # the context arrives with the next hooked call
    res2 = await session.call_tool("update_plan", PLAN)
    assert [i["content"][0]["text"] for i in res2.result.context_items][:1] == ["late note"]
    await session.hooks.wait_async()


async def test_file_hook_runs_only_after_trust(tmp_path):
    hooks_json = tmp_path / "hooks.json"
    hooks_json.write_text(
        json.dumps(
            {
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "update_plan",
                            "hooks": [{"type": "command", "command": "echo 'from file' >&2; exit 2"}],
                        }
                    ]
                }
            }
        )
    )
    session = cx.Session(cwd=str(tmp_path))
    (info,) = session.load_hooks(hooks_json)
    assert info.status == "untrusted"
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Plan updated" and [e.msg.type for e in res.events] == ["plan_update"]
    assert list(session.trust_hooks()) == [info.key]
    res = await session.call_tool("update_plan", PLAN)
    assert res.output == "Tool call blocked by PreToolUse hook: from file. Tool: update_plan"
    assert completed_runs(res)[0].source_path == str(hooks_json.resolve())


@pytest.mark.slow
async def test_at_most_eight_async_hooks_run_at_once(tmp_path):
    """Nine async hooks: eight run, one waits for a slot; releasing one lets the ninth start.

    Each hook process connects to a Unix socket served by the test, says it started and
    waits for "go": the test sees real process starts, no sleeps.
    """
    started: list[asyncio.StreamWriter] = []
    eight, nine = asyncio.Event(), asyncio.Event()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readline()
        started.append(writer)
        (eight if len(started) == 8 else nine if len(started) == 9 else asyncio.Event()).set()

    sock = str(tmp_path / "hooks.sock")
    server = await asyncio.start_unix_server(on_connect, path=sock)
    hook = script(
        tmp_path,
        "slot.py",
        (
            "import socket, sys\n"
            "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b'started\\n')\n"
            "s.recv(8)\n"
        ),
    )
    handler = {"type": "command", "command": f"{hook} {sock}", "async": True}
    doc = {"hooks": {"PreToolUse": [{"matcher": "update_plan", "hooks": [handler] * 9}]}}
    engine = HookEngine(env=ENV, config=parse_hooks_json(json.dumps(doc), source_path="<test>", from_file=False))
    session = cx.Session(cwd=str(tmp_path), hooks=engine)
    try:
        assert (await session.call_tool("update_plan", PLAN)).output == "Plan updated"
        await eight.wait()
        assert (engine.async_running, engine.async_queued) == (8, 1)
        assert not nine.is_set()
        started[0].write(b"go\n")
        await nine.wait()  # a slot freed: the ninth starts
        for writer in started[1:]:
            writer.write(b"go\n")
        await engine.wait_async()
        assert len(engine.async_runs) == 9
        assert all(run.status == "completed" for run in engine.async_runs)
    finally:
        for writer in started:
            writer.close()
        server.close()
        await server.wait_closed()
