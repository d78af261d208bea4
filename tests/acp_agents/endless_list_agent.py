"""An ACP agent whose ``session/list`` never ends, for the client's paging bounds.

A real subprocess on the official SDK's agent side (``acp.run_agent``). Every ``session/list``
page holds ``--page N`` sessions (default 5000) and a ``nextCursor`` to one more page, forever.
``--hang-after K``: every page after the first ``K`` never answers. Each page it is asked for is
counted on stderr (``page <n>``), so a test can tell how far the client read.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import acp
from acp.schema import (
    AgentCapabilities,
    InitializeResponse,
    ListSessionsResponse,
    NewSessionResponse,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
)


def _option(name: str, default: int) -> int:
    return int(sys.argv[sys.argv.index(name) + 1]) if name in sys.argv else default


PAGE = _option("--page", 5000)
HANG_AFTER = _option("--hang-after", -1)


class EndlessLister:
    def __init__(self) -> None:
        self.pages = 0

    def on_connect(self, conn: Any) -> None:
        pass

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        capabilities = AgentCapabilities(session_capabilities=SessionCapabilities(list=SessionListCapabilities()))
        return InitializeResponse(protocol_version=acp.PROTOCOL_VERSION, agent_capabilities=capabilities)

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="endless-0")

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None, **_: Any) -> ListSessionsResponse:
        page = self.pages
        self.pages += 1
        print(f"page {page}", file=sys.stderr, flush=True)
        if HANG_AFTER >= 0 and page >= HANG_AFTER:
            await asyncio.Event().wait()  # never answers
        sessions = [SessionInfo(session_id=f"s{page}-{n}", cwd="/w", title=f"session {page}-{n}") for n in range(PAGE)]
        return ListSessionsResponse(sessions=sessions, next_cursor=f"after-{page}")

    async def cancel(self, session_id: str, **_: Any) -> None:
        pass

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(acp.run_agent(EndlessLister()))
