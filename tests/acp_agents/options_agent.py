"""A tiny ACP agent whose session config options test ``AcpSession.options`` and ``set_option``.

A real subprocess on the official SDK's agent side (``acp.run_agent``). ``session/new`` offers:

- ``speed`` (select ``slow`` / ``fast``, values grouped), ``verbose`` (boolean);
- ``strict`` (select ``a`` / ``b``): ``session/set_config_option`` refuses every value with
  invalid params, as codex-acp and Claude do for a value they do not take;
- ``stuck`` (select ``a`` / ``b``): ``session/set_config_option`` is never answered.

With ``--modes-only`` it offers no config options, only modes ``ask`` / ``code`` / ``stuck``
(``session/set_mode``, which it acknowledges with a ``current_mode_update``, except ``stuck``: never answered).

What it does on ``session/prompt`` is named by the prompt text, each one ``config_option_update``:

- ``flood <n> <m>``: ``n`` options of ``m`` values each (a valid update, sent through the SDK);
- ``malformed`` (written past the SDK's schema): options the client must drop or repair (no id, unknown kind, no values, a
  repeated id, an over-long value, a current value that is none of its values), beside one good one;
- anything else: answers ``echo: <text>``.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from typing import Any

import acp
from acp import RequestError, update_agent_message_text
from acp.schema import (
    AgentCapabilities,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    InitializeResponse,
    NewSessionResponse,
    PromptResponse,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

MODES_ONLY = "--modes-only" in sys.argv


def raw_update(session_id: str, update: dict[str, Any]) -> None:
    line = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session_id, "update": update}}
    os.write(1, (json.dumps(line) + "\n").encode())


def select(option_id: str, current: str, values: list[str], **extra: Any) -> dict[str, Any]:
    options = [{"value": v, "name": v.title()} for v in values]
    return {
        "id": option_id,
        "name": option_id.title(),
        "type": "select",
        "currentValue": current,
        "options": options,
        **extra,
    }


class OptionsAgent:
    def __init__(self) -> None:
        self.conn: Any = None
        self.values: dict[str, Any] = {"speed": "slow", "verbose": False, "strict": "a", "stuck": "a"}

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def config(self) -> list[dict[str, Any]]:
        speed = select("speed", self.values["speed"], [], category="model_config")
        speed["options"] = [
            {
                "group": "pace",
                "name": "Pace",
                "options": [{"value": "slow", "name": "Slow"}, {"value": "fast", "name": "Fast"}],
            }
        ]
        return [
            speed,
            {"id": "verbose", "name": "Verbose", "type": "boolean", "currentValue": self.values["verbose"]},
            select("strict", self.values["strict"], ["a", "b"]),
            select("stuck", self.values["stuck"], ["a", "b"]),
        ]

    async def initialize(self, protocol_version: int, **_: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=acp.PROTOCOL_VERSION, agent_capabilities=AgentCapabilities())

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        session_id = f"options-{uuid.uuid4().hex[:8]}"
        if MODES_ONLY:
            modes = [SessionMode(id=m, name=m.title()) for m in ("ask", "code", "stuck")]
            return NewSessionResponse(
                session_id=session_id, modes=SessionModeState(available_modes=modes, current_mode_id="ask")
            )
        return NewSessionResponse.model_validate({"sessionId": session_id, "configOptions": self.config()})

    async def set_session_mode(self, session_id: str, mode_id: str, **_: Any) -> SetSessionModeResponse:
        if mode_id == "stuck":
            await asyncio.Event().wait()
        await self.conn.session_update(
            session_id=session_id,
            update=CurrentModeUpdate(session_update="current_mode_update", current_mode_id=mode_id),
        )
        return SetSessionModeResponse()

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **_: Any
    ) -> SetSessionConfigOptionResponse:
        if config_id == "strict":
            raise RequestError.invalid_params({"reason": f"strict does not take {value!r} today"})
        if config_id == "stuck":
            await asyncio.Event().wait()
        self.values[config_id] = value
        return SetSessionConfigOptionResponse.model_validate({"configOptions": self.config()})

    async def cancel(self, session_id: str, **_: Any) -> None:
        pass

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        if text.startswith("flood "):
            n, m = map(int, text.split()[1:3])
            options = [select(f"opt-{i}", "v-0", [f"v-{j}" for j in range(m)]) for i in range(n)]
            # through the SDK: a line this long needs its writer (a raw write to the pipe may be partial)
            update = ConfigOptionUpdate.model_validate(
                {"sessionUpdate": "config_option_update", "configOptions": options}
            )
            await self.conn.session_update(session_id=session_id, update=update)
        elif text == "malformed":
            options = [
                {"name": "no id", "type": "select", "currentValue": "a", "options": [{"value": "a", "name": "A"}]},
                {"id": "dial", "name": "Dial", "type": "knob", "currentValue": 3},
                select("empty", "a", []),
                select("good", "x", ["x", "y"]),
                select("good", "y", ["y"]),
                select("long", "a", ["a", "z" * 10_000]),
                select("drifted", "gone", ["a", "b"]),
            ]
            raw_update(session_id, {"sessionUpdate": "config_option_update", "configOptions": options})
        else:
            await self.conn.session_update(session_id=session_id, update=update_agent_message_text(f"echo: {text}"))
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(acp.run_agent(OptionsAgent()))
