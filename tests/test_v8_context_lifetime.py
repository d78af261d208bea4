"""A V8 context is only ever freed on the host thread, never by the garbage collector.

mini-racer frees a context in a generator's ``finally``; if an unclosed isolate were
collected on the kernel's thread, V8 state would be freed off its thread, which
crashed the interpreter (seen as a rare segfault in the full suite under load).
"""

from __future__ import annotations

import gc
import threading
import weakref

from codex_nb.code_mode import host as host_module
from codex_nb.code_mode.host import Isolate, V8Host


def test_an_unclosed_isolate_is_not_collected_and_the_host_frees_it_on_its_thread() -> None:
    host = V8Host(name="codex-nb-v8-lifetime-test")
    isolate = Isolate(on_messages=lambda _m: None, on_failure=lambda _t: None)
    host.run_sync(isolate.start(tools=[], store={}, memory_limit=0), timeout=10)
    ref = weakref.ref(isolate)
    freed_on: list[str] = []
    original_close = Isolate.close

    async def recording_close(self: Isolate) -> None:
        freed_on.append(threading.current_thread().name)
        await original_close(self)

    del isolate
    gc.collect()  # on this (the "kernel's") thread
    assert ref() is not None, "an isolate nobody closed was garbage-collected off the host thread"
    Isolate.close = recording_close  # type: ignore[method-assign]
    try:
        host.close()
    finally:
        Isolate.close = original_close  # type: ignore[method-assign]
    assert freed_on == ["codex-nb-v8-lifetime-test"]
    assert ref() not in host_module._LIVE_ISOLATES
