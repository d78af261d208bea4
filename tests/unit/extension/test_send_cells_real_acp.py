"""Cells attached in the notebook reach a real ACP agent's model: the current ``%%codex`` source is
an ACP session of a pinned agent (``.ci/acp-agents``), run offline against the stand-in of its model
API, and the test reads what the agent itself sent that API.

Send to agent (the page's message through the real bridge handler) and ``%%codex --cells N
--outputs`` attach a cell's source, its text output and its PNG / JPEG image. Both agents advertise
``promptCapabilities.image``, so the images go as ACP image blocks with their own type, and both
pass them on to their model unchanged, as an image input: codex-acp 2.6 as Responses
``input_image`` data URLs with the block's type; claude-agent-acp 0.101 as Anthropic ``image``
blocks (the older claude-code-acp 0.16 read their ``media_type`` from the image's bytes, so a JPEG
sent as ``image/png`` still reached the model as ``image/jpeg``: the block's type itself is checked
in tests/unit/extension/test_send_cells.py)."""

from __future__ import annotations

import asyncio
import base64
import io
import os
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell
from PIL import Image

import codex_nb as cx
from codex_nb import extension
from codex_nb.extension.state import KernelAgent
from codex_nb.testing.acp_agents import acp_agent
from codex_nb.testing.anthropic_server import AnthropicServer

from test_send_cells import cell, from_page

pytestmark = pytest.mark.slow  # real agents: left out of `pytest tests/unit`, run by --slow and .ci/test

AGENTS = [
    pytest.param(name, marks=pytest.mark.requires_acp_agent(name), id=name)
    for name in ("codex-acp", "claude-agent-acp")
]
TIMEOUT = 90


def _image(fmt: str, color: str) -> str:
    """A real image (the agents may decode what they pass on), base64 as a notebook output holds it."""
    out = io.BytesIO()
    Image.new("RGB", (8, 4), color).save(out, format=fmt)
    return base64.b64encode(out.getvalue()).decode()


PNG = _image("PNG", "steelblue")
JPEG = _image("JPEG", "darkorange")


def _answer(agent: str, text: str) -> list[Any]:
    return [AnthropicServer.text(text)] if agent == "claude-agent-acp" else [cx.assistant_message(text)]


def _images(agent: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """``(media type, base64 data)`` of each image input in one request the agent sent its model."""
    found: list[tuple[str, str]] = []
    if agent == "claude-agent-acp":
        for message in body.get("messages") or []:
            for block in message.get("content") if isinstance(message.get("content"), list) else []:
                if block.get("type") == "image" and block.get("source", {}).get("type") == "base64":
                    found.append((block["source"]["media_type"], block["source"]["data"]))
        return found
    for item in body.get("input") or []:
        for part in item.get("content") if isinstance(item.get("content"), list) else []:
            if part.get("type") == "input_image":
                head, _, data = str(part.get("image_url", "")).partition(",")
                found.append((head.removeprefix("data:").removesuffix(";base64"), data))
    return found


def _texts(agent: str, body: dict[str, Any]) -> str:
    """Every text of the person's messages in one request (the agent may wrap or split them)."""
    key, kinds = ("messages", ("text",)) if agent == "claude-agent-acp" else ("input", ("input_text",))
    out: list[str] = []
    for item in body.get(key) or []:
        if item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
            continue
        out += [p.get("text", "") for p in content or [] if isinstance(p, dict) and p.get("type") in kinds]
    return "\n".join(out)


class RealAgent:
    """One pinned agent and its stand-in model server, started for a test and closed after it."""

    def __init__(self, agent: str, script: list[Any], tmp: Path) -> None:
        spec = acp_agent(agent)
        self.server = spec.server(script).start()
        command = spec.command()
        self.acp = cx.AcpAgent(command[0], command[1:], env=spec.env(self.server, tmp / "home"), startup_timeout=60)
        self.work = tmp / "work"
        self.work.mkdir()
        self.group: int | None = None

    async def __aenter__(self) -> RealAgent:
        return self

    async def session(self) -> Any:
        """A new session of the agent (which starts it)."""
        session = await self.acp.new_session(self.work)
        self.group = self.acp.pid  # the agent leads its own process group; its children are in it
        return session

    async def __aexit__(self, *exc: Any) -> None:
        try:
            await self.acp.aclose()
        finally:
            self.server.close()
        if exc[0] is None:  # the test's own failure first
            assert self.group is not None and _group_gone(self.group), "the agent's process group outlived aclose()"


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


async def _run(shell: InteractiveShell, line: str, message: str) -> Any:
    shell.run_cell_magic("codex", f"{line} --out turn", message)
    return await asyncio.wait_for(shell.user_ns["turn"], TIMEOUT)


@pytest.fixture
def state(shell: InteractiveShell) -> KernelAgent:
    agent = extension.agent(shell)
    assert agent is not None
    agent.connect_page()
    return agent


@pytest.mark.parametrize("agent", AGENTS)
async def test_cells_sent_to_the_agent_reach_its_model_with_their_images(
    agent: str, shell: InteractiveShell, state: KernelAgent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plot = cell(
        2,
        "plot(df)",
        outputs=[
            {"output_type": "stream", "name": "stdout", "text": "drew 3 lines\n"},
            {"output_type": "display_data", "data": {"image/png": PNG, "text/plain": "<Figure>"}, "metadata": {}},
        ],
    )
    photo = cell(
        4,
        "show(photo)",
        outputs=[
            {"output_type": "display_data", "data": {"image/jpeg": JPEG, "text/plain": "<Image>"}, "metadata": {}}
        ],
    )
    async with RealAgent(agent, [_answer(agent, "I see a chart and a photo.")], tmp_path) as real:
        shell.user_ns["acp_session"] = await real.session()
        assert real.acp.info.agent_capabilities.prompt_capabilities.image is True  # both pinned agents take images
        from_page(state, "attach", [cell(0, "df = load()"), plot, photo])
        assert state.bridge.attach_status["ok"] is True and len(state.pending_cells) == 3
        result = await _run(shell, "--source acp_session", "What do the outputs show?")
        assert (result.status, result.last_agent_message) == ("completed", "I see a chart and a photo.")
        real.server.check()
        (request,) = real.server.requests
    view = state.widgets[-1].text()
    capsys.readouterr()
    sent = _texts(agent, request)
    assert "[notebook cell 1 (In [1])]\ndf = load()" in sent
    assert "[notebook cell 3 (In [3])]\nplot(df)" in sent
    assert "[output of notebook cell 3 (In [3])]\ndrew 3 lines\n<Figure>" in sent
    assert "[image of the output of notebook cell 3 (In [3])] (attached as an image)" in sent
    assert "[image of the output of notebook cell 5 (In [5])] (attached as an image)" in sent
    assert "What do the outputs show?" in sent
    assert _images(agent, request) == [("image/png", PNG), ("image/jpeg", JPEG)]
    assert "- image of the output of notebook cell 5 (In [5])" in view
    assert "takes no images" not in view and state.pending_cells == []


@pytest.mark.parametrize("agent", AGENTS)
async def test_codex_cells_with_outputs_reach_the_agents_model(
    agent: str, shell: InteractiveShell, state: KernelAgent, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``%%codex --cells N --outputs``: the cell's source from ``In``, its result from ``Out``; a value
    with ``_repr_png_`` (a figure) goes as a PNG image."""

    class Chart:
        def _repr_png_(self) -> bytes:
            return base64.b64decode(PNG)

    shell.user_ns["Chart"] = Chart
    shell.run_cell("total = 40 + 2\ntotal", store_history=True)
    shell.run_cell("chart = Chart()\nchart", store_history=True)
    assert shell.user_ns["Out"][1] == 42
    async with RealAgent(agent, [_answer(agent, "It is 42."), _answer(agent, "A chart.")], tmp_path) as real:
        shell.user_ns["acp_session"] = await real.session()
        result = await _run(shell, "--source acp_session --cells 1 --outputs", "What is total?")
        assert (result.status, result.last_agent_message) == ("completed", "It is 42.")
        result = await _run(shell, "--source acp_session --cells 2 --outputs", "And this?")
        assert result.last_agent_message == "A chart."
        real.server.check()
        first, second = real.server.requests
    capsys.readouterr()
    sent = _texts(agent, first)
    assert (
        "[cell 1]\ntotal = 40 + 2\ntotal" in sent and "[output of cell 1: int]\n42" in sent and "What is total?" in sent
    )
    assert _images(agent, first) == []
    assert "[output of cell 2: Chart (image)] (attached as an image)" in _texts(agent, second)
    assert _images(agent, second)[-1] == ("image/png", PNG)
