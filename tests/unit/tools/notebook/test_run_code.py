"""``notebook.run_code``: the user's namespace, captured output in Codex's exec shape, and bounds on
code that never returns, prints 100 MB or starts threads."""

from __future__ import annotations

import re
import sys
import threading

from helpers.notebook_workspace import session_with, trusting

SHAPE = re.compile(r"^Wall time: \d+\.\d{4} seconds\nProcess exited with code (\d+)\n(?:(.*)\n)?Output:\n(.*)$", re.S)


def parse(output: str) -> tuple[int, str | None, str]:
    match = SHAPE.match(output)
    assert match, output
    return int(match.group(1)), match.group(2), match.group(3)


async def test_runs_in_the_user_namespace_with_output_and_result() -> None:
    session, ns = session_with(trusting(), namespace={"rows": [{"a": 1}, {"a": 2}]})
    code = (
        "import sys\nprint('sum is', total := sum(r['a'] for r in rows))\nprint('careful', file=sys.stderr)\ntotal * 10"
    )
    result = await session.call_tool("notebook.run_code", {"code": code})
    assert result.success is True
    assert parse(result.output) == (0, None, "sum is 3\ncareful\nOut: 30")
    assert ns["total"] == 3 and ns["_"] == 30  # variables persist, as in a cell


async def test_an_exception_is_exit_code_1_with_the_users_traceback() -> None:
    session, _ = session_with(trusting())
    result = await session.call_tool("notebook.run_code", {"code": "x = 1\n1 / 0"})
    code, _, output = parse(result.output)
    assert code == 1
    assert output == (
        'Traceback (most recent call last):\n  File "<run_code>", line 2, in <module>\nZeroDivisionError: division by zero'
    )
    syntax = await session.call_tool("notebook.run_code", {"code": "def ("})
    assert parse(syntax.output)[0] == 1 and "SyntaxError" in syntax.output


async def test_code_that_never_returns_is_stopped_at_the_timeout() -> None:
    session, ns = session_with(trusting(), namespace={"ticks": [0]})
    code = "print('started')\nwhile True:\n    ticks[0] += 1"
    result = await session.call_tool("notebook.run_code", {"code": code, "timeout_ms": 300})
    code_, note, output = parse(result.output)
    assert (code_, note, output) == (124, "run_code timed out after 0.3 s and was interrupted", "started")
    assert not [t for t in threading.enumerate() if t.name == "codex-nb-run-code"]
    stopped_at = ns["ticks"][0]
    assert ns["ticks"][0] == stopped_at  # nothing runs on


async def test_printing_100_mb_is_bounded() -> None:
    session, _ = session_with(trusting())
    code = "chunk = 'x' * 1_000_000\nfor _ in range(100):\n    print(chunk)\nprint('the end')"
    result = await session.call_tool("notebook.run_code", {"code": code})
    assert len(result.output) < 21_000
    code_, _, output = parse(result.output)
    assert code_ == 0
    assert re.search(r"…\[\d+ characters truncated\]…", output)
    assert output.endswith("the end")


async def test_threads_the_code_starts_are_reported_and_stopped() -> None:
    session, ns = session_with(trusting(), namespace={})
    code = (
        "import threading\nstop = threading.Event()\n"
        "def spin():\n    while True:\n        pass\n"
        "worker = threading.Thread(target=spin, name='agent-spinner', daemon=True)\nworker.start()"
    )
    result = await session.call_tool("notebook.run_code", {"code": code})
    assert "threads the code started were still running and were asked to stop: agent-spinner" in result.output
    ns["worker"].join(5)
    assert not ns["worker"].is_alive()


async def test_only_the_codes_own_threads_are_stopped_not_others_started_meanwhile() -> None:
    """A thread the code's thread started (a grandchild too) is the code's; one that anything else in
    the kernel starts while the code runs (an executor worker, say) is not, and must not be stopped."""
    import asyncio

    loop = asyncio.get_running_loop()
    in_run, go_on, outsider_stop = threading.Event(), threading.Event(), threading.Event()
    session, ns = session_with(trusting(), namespace={"in_run": in_run, "go_on": go_on})
    code = (
        "import threading\n"
        "def spin():\n    while True:\n        pass\n"
        "both = threading.Event()\n"
        "def parent():\n"
        "    child = threading.Thread(target=spin, name='agent-grandchild', daemon=True)\n"
        "    child.start()\n    both.set()\n    spin()\n"
        "worker = threading.Thread(target=parent, name='agent-child', daemon=True)\nworker.start()\n"
        "both.wait(30)\nin_run.set()\ngo_on.wait(30)"
    )
    call = asyncio.create_task(session.call_tool("notebook.run_code", {"code": code}))
    await loop.run_in_executor(None, in_run.wait, 30)
    outsider = threading.Thread(target=outsider_stop.wait, args=(30,), name="kernel-worker", daemon=True)
    outsider.start()  # started by the test's thread while the code runs: not the code's
    go_on.set()
    result = await call
    assert "asked to stop: agent-child, agent-grandchild" in result.output, result.output
    assert "kernel-worker" not in result.output
    ns["worker"].join(5)
    assert not ns["worker"].is_alive()
    assert outsider.is_alive()  # not asked to stop
    outsider_stop.set()
    outsider.join(5)


async def test_output_of_other_threads_is_not_captured(capsys: object) -> None:
    session, _ = session_with(trusting())
    result = await session.call_tool("notebook.run_code", {"code": "print('mine')"})
    print("the kernel's own output")
    assert parse(result.output)[2] == "mine"
    assert sys.stdout.__class__.__name__ != "_Router"  # the router leaves once no run is active


async def test_control_characters_are_made_visible() -> None:
    session, _ = session_with(trusting())
    result = await session.call_tool("notebook.run_code", {"code": r"print('a\x1b[31mred\x1b[0m\x07b\x00')"})
    assert parse(result.output)[2] == "ared\\x07b\\x00"


async def test_bad_arguments() -> None:
    session, _ = session_with(trusting())
    assert (
        await session.call_tool("notebook.run_code", {})
    ).output == "failed to parse function arguments: missing field `code`"
    bad = await session.call_tool("notebook.run_code", {"code": "1", "timeout_ms": 0})
    assert bad.output == "timeout_ms must be a number of milliseconds between 1 and 600000"


async def test_runs_at_the_same_time_do_not_stop_each_other() -> None:
    """Calls over MCP may overlap: the run that ends first must not take a run still going for a
    thread its own code started (and stop it)."""
    import asyncio

    loop = asyncio.get_running_loop()
    gates = {"a": threading.Event(), "b": threading.Event()}
    started = {name: asyncio.Event() for name in gates}

    def arrived(name: str) -> None:
        loop.call_soon_threadsafe(started[name].set)

    session, _ = session_with(trusting(), namespace={"gates": gates, "arrived": arrived})

    def hold(name: str) -> asyncio.Task:
        code = f"arrived({name!r})\ngates[{name!r}].wait(30)\n{name!r}"
        return asyncio.create_task(session.call_tool("notebook.run_code", {"code": code}))

    first = hold("a")
    await started["a"].wait()
    second = hold("b")  # starts while the first runs
    await started["b"].wait()
    gates["a"].set()  # the first ends while the second still runs
    assert parse((await first).output) == (0, None, "Out: 'a'")
    gates["b"].set()
    assert parse((await second).output) == (0, None, "Out: 'b'")
