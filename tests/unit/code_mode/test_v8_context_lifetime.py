"""A V8 context is only ever freed on the host thread, never by the garbage collector.

mini-racer frees a context in a generator's ``finally``; if an unclosed isolate were
collected on the kernel's thread, V8 state would be freed off its thread, which
crashed the interpreter (seen as a rare segfault in the full suite under load).
The check runs in a fresh interpreter: a second V8 host thread beside the suite's
shared one would itself be unsafe.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


SCRIPT = textwrap.dedent("""
    import gc, threading, weakref
    from codex_nb.code_mode import host as host_module
    from codex_nb.code_mode.host import Isolate, V8Host

    host = V8Host(name="codex-nb-v8-lifetime-test")
    isolate = Isolate(on_messages=lambda _m: None, on_failure=lambda _t: None)
    host.run_sync(isolate.start(tools=[], store={}, memory_limit=0), timeout=10)
    ref = weakref.ref(isolate)
    freed_on = []
    original_close = Isolate.close

    async def recording_close(self):
        freed_on.append(threading.current_thread().name)
        await original_close(self)

    del isolate
    gc.collect()  # on this (the "kernel's") thread
    assert ref() is not None, "an isolate nobody closed was garbage-collected off the host thread"
    Isolate.close = recording_close
    host.close()
    assert freed_on == ["codex-nb-v8-lifetime-test"], freed_on
    assert not host_module._LIVE_ISOLATES
    print("ok")
""")


def test_an_unclosed_isolate_is_not_collected_and_the_host_frees_it_on_its_thread() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]


AT_EXIT = textwrap.dedent("""
    import atexit
    from codex_nb.code_mode import host as host_module
    from codex_nb.code_mode.host import Isolate, default_host

    host = default_host()
    isolate = Isolate(on_messages=lambda _m: None, on_failure=lambda _t: None)
    host.run_sync(isolate.start(tools=[], store={}, memory_limit=0), timeout=10)
    thread = host._thread
    host_module._close_default_host_at_exit()   # what atexit runs before interpreter teardown
    assert not host_module._LIVE_ISOLATES, "an unclosed isolate was left for teardown"
    assert thread is not None and not thread.is_alive()
    print("ok")
""")


def test_interpreter_exit_frees_unclosed_isolates_on_the_host_thread() -> None:
    done = subprocess.run([sys.executable, "-c", AT_EXIT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
