"""A long real Codex thread for the paged-history benchmark and tests: ``turns`` turns run by the
pinned ``codex app-server`` against a local scripted Responses server, so the thread is stored
exactly as Codex stores it (its rollout file and its ``thread_history`` page index), never a
hand-written file the binary might read differently.

``make_long_thread(home, turns)`` returns the thread id; a home already holding a thread of that
many turns (``long-thread.json`` beside it) is reused, since 2,000 turns take a minute or two.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import codex_nb as cx
from codex_nb.testing import ResponsesServer

MARK = "long-thread.json"


def answer(n: int) -> str:
    """The assistant's words in turn ``n`` (0-based), so a test can say which turns are shown."""
    return f"answer {n}"


def prompt(n: int) -> str:
    return f"question {n}"


async def make_long_thread(home: Path, turns: int, *, cwd: str | None = None) -> str:
    """Run ``turns`` turns on one thread in ``home`` (a Codex home made here); its thread id."""
    mark = home / MARK
    if mark.is_file():
        saved = json.loads(mark.read_text())
        if saved.get("turns") == turns:
            return str(saved["thread_id"])
    script = [[cx.assistant_message(answer(n))] for n in range(turns)]
    async with ResponsesServer(script) as srv:
        srv.write_codex_home(home)
        env = {**os.environ, "OPENAI_API_KEY": "sk-local"}
        async with cx.CodexAppServer(codex_home=home, env=env, request_timeout=120) as server:
            thread = await server.start_thread(cwd=cwd or str(home))
            for n in range(turns):
                result = await thread.run_turn(prompt(n))
                if result.status != "completed":
                    raise RuntimeError(f"turn {n} of the long thread ended {result.status}: {result.error}")
                # each request repeats the whole thread: keep the count (the script's index), not the bodies
                srv.requests[:] = [{}] * len(srv.requests)
            thread_id = thread.thread_id
    mark.write_text(json.dumps({"turns": turns, "thread_id": thread_id}))
    return thread_id


if __name__ == "__main__":
    import sys

    print(asyncio.run(make_long_thread(Path(sys.argv[1]), int(sys.argv[2]))))
