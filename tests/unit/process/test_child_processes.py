"""codex_nb's one child-process path (``codex_nb._process``) with real processes: the program's
exit status comes through its supervisor, an exec failure is the usual ``OSError``, ``end()``
is bounded for a stopped program that ignores SIGTERM and takes what it started along, and
the kernel process itself is left as it was (not a subreaper: other code's waits still work)."""

from __future__ import annotations

import asyncio
import ctypes
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codex_nb import _process
from helpers.process_trees import ESCAPING, fifo_at, kill_leftover, read_pid, wait_dead

pytestmark = pytest.mark.skipif(not _process.SUPERVISED, reason="the supervisor is Linux-only")

PR_GET_CHILD_SUBREAPER = 37


async def test_exit_status_and_signal_deaths_come_through() -> None:
    child = await _process.spawn(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert await child.stdout.read() == b"out\n"
    assert await child.end() == 3
    assert child.stderr.tail() == "err" and child not in _process.live_children()
    child = await _process.spawn(["sleep", "60"])
    os.kill(child.pid, signal.SIGKILL)  # the program itself, not its supervisor
    assert await child.wait(30) == -signal.SIGKILL
    await child.end()


async def test_a_missing_program_is_a_file_not_found_error() -> None:
    before = set(_process.live_children())
    with pytest.raises(FileNotFoundError):
        await _process.spawn(["/nonexistent/program"])
    assert set(_process.live_children()) == before


@pytest.mark.slow
async def test_end_of_a_stopped_program_that_ignores_term_is_bounded_and_takes_its_tree(tmp_path: Path) -> None:
    fifo = fifo_at(tmp_path / "pid")
    child = await _process.spawn(["sh", "-c", "trap '' TERM; " + ESCAPING.format(fifo=fifo)])
    escaped = await asyncio.to_thread(read_pid, fifo)
    try:
        os.kill(child.pid, signal.SIGSTOP)
        started = time.monotonic()
        code = await child.end(grace=0.5)
        assert code == -signal.SIGKILL and time.monotonic() - started < 10
        assert await asyncio.to_thread(wait_dead, escaped)
    finally:
        kill_leftover(escaped)


async def test_the_kernel_process_is_not_made_a_subreaper() -> None:
    child = await _process.spawn(["true"])
    await child.end()
    flag = ctypes.c_int(-1)
    ctypes.CDLL(None).prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    assert flag.value == 0
    other = await asyncio.create_subprocess_exec(sys.executable, "-c", "raise SystemExit(7)")
    assert await other.wait() == 7
    assert subprocess.run(["sh", "-c", "exit 5"], check=False).returncode == 5  # noqa: ASYNC221  the point: a plain blocking run still reaps its child


def test_the_supervisor_imports_only_what_the_interpreter_has_at_hand() -> None:
    """Every spawn starts a fresh supervisor: ``signal`` (through enum, functools, collections) and
    ``ctypes`` cost a loaded machine tens of milliseconds per spawn before the program even ran."""
    status_r, status_w = os.pipe()
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-S", "-X", "importtime", _process.SUPERVISOR, str(status_w), str(os.getpid())]
            + ["--", "true"],
            pass_fds=(status_w,),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        os.close(status_w)
        status_w = -1
        reported = os.read(status_r, 64)
    finally:
        os.close(status_r)
        if status_w >= 0:
            os.close(status_w)
    assert done.returncode == 0 and reported.strip().isdigit(), (done, reported)
    imported = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    assert imported and not imported & {"enum", "functools", "collections", "ctypes", "signal"}, sorted(imported)


def test_the_first_child_leaves_comms_alone_where_no_kernel_runs() -> None:
    """Spawning looks for a running kernel's shutdown hook, but importing ipykernel.kernelapp where
    none runs (ipykernel merely imported, as under pytest with nbval) would replace comm's comm
    manager, and the widgets made before could no longer be closed."""
    script = (
        "import asyncio, sys, ipykernel, ipywidgets\n"
        "from codex_nb import _process\n"
        "w = ipywidgets.Label('made before the first child')\n"
        "async def main():\n"
        "    child = await _process.spawn(['true'])\n"
        "    await child.end()\n"
        "asyncio.run(main())\n"
        "w.close()  # KeyError from comm when its comm manager was replaced\n"
        "assert 'ipykernel.ipkernel' not in sys.modules, 'ipykernel.ipkernel was imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
