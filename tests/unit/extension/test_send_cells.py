"""Send to agent: cells the page attached are kept pending, bounded, read as they are when the
next ``%%codex`` prompt is sent, shown with its turn and in the side panel, and go to each kind of
agent in the form it takes (images for an agent that takes them, with their own type; text
otherwise, said). The page's half runs in tests/browser/test_send_cells_browser.py."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest
from acp.schema import PromptRequest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import codex_nb as cx
from codex_nb import extension
from codex_nb.extension.context import MAX_CELLS, MAX_TOTAL, notebook_cells, turn_input
from codex_nb.extension.state import KernelAgent
from helpers.images import image_b64

PAGE = "page-test"
JPEG = image_b64("JPEG")


def cell(index: int, source: str, *, cid: str | None = None, outputs: list[Any] | None = None) -> dict[str, Any]:
    """A cell as the page sends it: nbformat JSON plus its index in the notebook."""
    return {
        "index": index,
        "id": cid or f"c{index}",
        "cell_type": "code",
        "source": source,
        "execution_count": index + 1,
        "outputs": outputs or [],
    }


def from_page(state: KernelAgent, kind: str, cells: list[dict[str, Any]], selected: int | None = None) -> None:
    """A message of the page's bridge, through the bridge's comm handler (validated as the page's are)."""
    message: dict[str, Any] = {"kind": kind, "id": PAGE, "page": PAGE, "cells": cells}
    if kind == "attach":
        message["selected"] = len(cells) if selected is None else selected
    state.bridge._on_message(state.bridge, message, [])


@pytest.fixture
def state(shell: InteractiveShell) -> KernelAgent:
    agent = extension.agent(shell)
    assert agent is not None and agent.bridge is None  # no kernel here: load_ext connects no page
    agent.connect_page()
    return agent


async def test_attached_cells_reach_the_next_prompt_as_they_are_then(
    shell: InteractiveShell, state: KernelAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    from_page(state, "attach", [cell(1, "x = 1"), cell(3, "x * 2", outputs=[_result("2")])])
    assert state.bridge.attach_status == {
        "seq": 1,
        "ok": True,
        "text": "2 cells attached: the next %%codex prompt takes them",
    }
    assert state.bridge.attached_ids == ["c1", "c3"]
    shell.run_line_magic("codex_attachments", "")
    listed = capsys.readouterr().out
    assert "2 cells attached (the next %%codex prompt takes them)" in listed
    assert "- notebook cell 4 (In [4])" in listed and "- output of notebook cell 4 (In [4])" in listed
    # edited and re-run after Send to agent: the prompt reads the cell as it is when sent
    from_page(state, "cells_changed", [cell(3, "x * 3", outputs=[_result("3")])])
    model = cx.ScriptedModel([[cx.assistant_message("six")]], record_requests=True)
    shell.user_ns["m"] = model
    shell.run_cell_magic("codex", "--model m --out turn", "What is it?")
    assert (await shell.user_ns["turn"]).status == "completed"
    sent = model.requests[0].items[-1]["content"][0]["text"]
    assert "[notebook cell 2 (In [2])]\nx = 1" in sent
    assert "[notebook cell 4 (In [4])]\nx * 3\n\n[output of notebook cell 4 (In [4])]\n3" in sent
    assert "x * 2" not in sent and sent.endswith("Message:\nWhat is it?")
    shown = state.widgets[-1].text()
    assert "Attachments:" in shown and "- notebook cell 4 (In [4])" in shown
    assert state.pending_cells == [] and state.bridge.attached_ids == []  # taken by that prompt only


class Page:
    """The open notebook's side of the bridge, as the page's bridge answers: a ``hello``, then each
    ``cells`` request with the document as it is at that moment (``doc``). What it does not do on
    its own is send ``cells_changed``: a front end that sends comm messages on a kernel subshell
    may deliver them after the prompt's own run (JupyterLab 4.6 and Notebook 7.6 do)."""

    def __init__(self, state: KernelAgent, doc: list[dict[str, Any]], *, answers: bool = True, error: str = "") -> None:
        self.bridge = state.bridge
        self.doc = doc
        self.error = error
        self.asked = 0
        if answers:
            self.bridge.observe(self._requests, names="requests")
        self.bridge._on_message(
            self.bridge,
            {"kind": "hello", "id": PAGE, "app": "JupyterLab 4", "document": True, "commands": True, "reason": ""},
            [],
        )

    def close(self) -> None:
        """The page is reloaded: this one answers no more."""
        self.bridge.unobserve(self._requests, names="requests")

    def _requests(self, change: dict[str, Any]) -> None:
        for request in change["new"]:
            if request["op"] == "cells" and request["id"] not in {r["id"] for r in change["old"]}:
                self.asked += 1
                result = [{k: v for k, v in c.items() if k != "index"} for c in self.doc]
                reply = {"kind": "reply", "id": request["id"], "page": PAGE, "ok": not self.error}
                reply.update(result=None if self.error else result, error=self.error)
                asyncio.get_running_loop().call_soon(self.bridge._on_message, self.bridge, reply, [])


async def test_an_edit_whose_message_comes_after_the_prompt_still_goes_with_it(
    shell: InteractiveShell, state: KernelAgent
) -> None:
    doc = [cell(0, "setup"), cell(1, "x = 6 * 7", outputs=[_result("42")]), cell(2, "print('second')")]
    page = Page(state, doc)
    from_page(state, "attach", doc[1:])
    doc[1] = cell(1, "x = 6 * 8", outputs=[_result("42")])  # edited; its cells_changed not delivered yet
    model = cx.ScriptedModel([[cx.assistant_message("ok")]], record_requests=True)
    shell.user_ns["m"] = model
    shell.run_cell_magic("codex", "--model m --out turn", "What do these do?")
    assert "turn" not in shell.user_ns  # the turn starts once the page answered
    view = state.widgets[-1]
    await state.turns[-1].task
    assert (await shell.user_ns["turn"]).status == "completed" and page.asked == 1
    sent = model.requests[0].items[-1]["content"][0]["text"]
    assert "x = 6 * 8" in sent and "6 * 7" not in sent and "print('second')" in sent
    assert "- notebook cell 2 (In [2])" in view.text()
    assert state.pending_cells == [] and state.bridge.attached_ids == []
    from_page(state, "cells_changed", doc[1:])  # the late message: nothing is pending any more
    assert state.pending_cells == []


async def test_a_page_that_does_not_answer_answers_wrong_or_lost_a_cell_is_said_under_the_attachments(
    shell: InteractiveShell, state: KernelAgent, monkeypatch: pytest.MonkeyPatch
) -> None:
    from codex_nb.extension import state as state_module

    monkeypatch.setattr(state_module, "PAGE_READ_TIMEOUT", 0.2)
    doc = [cell(0, "a = 1"), cell(1, "b = 2")]
    Page(state, doc, answers=False)
    from_page(state, "attach", doc)
    model = cx.ScriptedModel([[cx.assistant_message("ok")]], record_requests=True)
    shell.user_ns["m"] = model
    shell.run_cell_magic("codex", "--model m", "first")
    assert (await state.turns[-1].task).status == "completed"
    sent = model.requests[0].items[-1]["content"][0]["text"]
    assert "a = 1" in sent and "b = 2" in sent
    said = state.widgets[-1].text()  # the person is told; the model gets the cells
    assert "Note: the attached cells could not be read again from the page (the notebook page did not answer" in said

    hostile = Page(state, doc, error="conflict:c0")  # an edit's error to a read
    from_page(state, "attach", doc)
    model = shell.user_ns["m"] = cx.ScriptedModel([[cx.assistant_message("ok")]])
    shell.run_cell_magic("codex", "--model m", "again")
    assert (await state.turns[-1].task).status == "completed"
    assert "the page answered a read with an edit's error (c0)); they went as it last sent them" in (
        state.widgets[-1].text()
    )
    hostile.close()

    page = Page(state, doc)
    from_page(state, "attach", doc)
    del doc[0]  # the person deleted an attached cell before the prompt ran
    model = shell.user_ns["m"] = cx.ScriptedModel([[cx.assistant_message("ok")]], record_requests=True)
    shell.run_cell_magic("codex", "--model m", "second")
    assert (await state.turns[-1].task).status == "completed" and page.asked == 1
    assert "a = 1" in model.requests[0].items[-1]["content"][0]["text"]
    assert (
        "Note: 1 attached cell no longer in the notebook; it went as the page last sent it" in state.widgets[-1].text()
    )


async def test_a_second_prompt_while_the_first_waits_for_the_page_is_refused(
    shell: InteractiveShell, state: KernelAgent
) -> None:
    doc = [cell(0, "a = 1")]
    Page(state, doc)
    from_page(state, "attach", doc)
    shell.user_ns["m"] = cx.ScriptedModel([[cx.assistant_message("ok")]])
    shell.run_cell_magic("codex", "--model m", "first")
    [first] = state.turns
    assert first.handle is None  # waiting for the page
    with pytest.raises(UsageError, match="a turn is still running on session default"):
        shell.run_cell_magic("codex", "--model m", "second")
    assert (await first.task).status == "completed"


async def test_too_many_or_too_large_cells_are_refused_with_what_to_do(
    shell: InteractiveShell, state: KernelAgent, capsys: pytest.CaptureFixture[str]
) -> None:
    many = [cell(i, "pass") for i in range(MAX_CELLS + 1)]
    from_page(state, "attach", many)
    status = state.bridge.attach_status
    assert not status["ok"] and status["text"] == (
        f"{MAX_CELLS + 1} cells are selected; at most {MAX_CELLS} can be attached to one prompt: select fewer"
    )
    big = [cell(i, "y" * 3_900) for i in range(MAX_TOTAL // 3_900 + 1)]
    from_page(state, "attach", big)
    status = state.bridge.attach_status
    assert not status["ok"] and f"more than the {MAX_TOTAL:,} one prompt may carry" in status["text"]
    assert state.pending_cells == [] and status["seq"] == 2
    # fits when attached, grown past the bound by the time of the prompt: refused, still pending
    from_page(state, "attach", [cell(i, "small") for i in range(10)])
    from_page(state, "cells_changed", [cell(i, "z" * 3_999, outputs=[_stream("w" * 3_999)]) for i in range(10)])
    shell.user_ns["m"] = cx.ScriptedModel([[cx.assistant_message("never")]])
    with pytest.raises(UsageError, match="attach fewer cells or variables"):
        shell.run_cell_magic("codex", "--model m", "hi")
    assert len(state.pending_cells) == 10 and state.turns == []
    shell.run_line_magic("codex_attachments", "--clear")
    assert capsys.readouterr().out.strip() == "dropped 10 attached cells"
    assert state.pending_cells == [] and state.bridge.attached_ids == []
    shell.run_line_magic("codex_attachments", "")
    assert capsys.readouterr().out.startswith("no cells attached; select cells and choose Send to agent")


def test_a_malformed_page_message_is_rejected_and_nothing_is_attached(state: KernelAgent) -> None:
    state.bridge._on_message(state.bridge, {"kind": "attach", "id": PAGE, "page": PAGE, "cells": []}, [])
    assert state.bridge.error == "attach: missing field 'selected'" and state.pending_cells == []
    from_page(state, "attach", [])
    assert state.bridge.attach_status["text"].startswith("no cells are selected")


def test_the_side_panel_says_how_many_cells_are_attached(shell: InteractiveShell, state: KernelAgent) -> None:
    from codex_nb.extension.panel import PlanPanel

    state.panel = PlanPanel(state.source(), label="default")
    from_page(state, "attach", [cell(0, "a"), cell(1, "b")])
    assert ">2 cells attached" in state.panel.attached.value
    assert state.panel.attached in state.panel.content.children
    state.clear_attachments()
    assert state.panel.attached.value == ""


def test_images_go_with_their_own_type_to_an_acp_agent_that_takes_them() -> None:
    found = notebook_cells([cell(0, "show()", outputs=[_image("image/jpeg", JPEG)])])
    assert [a.kind for a in found.items] == ["cell", "output", "image"]
    blocks, _ = turn_input(cx.Capabilities(agent="the ACP agent", images="content_blocks"), "look", found)
    assert blocks[1] == {"type": "image", "mimeType": "image/jpeg", "data": JPEG}
    sent = PromptRequest.model_validate({"sessionId": "s", "prompt": blocks}).prompt  # as AcpSession sends it
    assert sent[1].mime_type == "image/jpeg" and sent[1].data == JPEG
    app_text, options = turn_input(cx.Capabilities(agent="Codex", images="input_items"), "look", found)
    assert options["input"][1]["url"] == f"data:image/jpeg;base64,{JPEG}"
    blind = notebook_cells([cell(0, "show()", outputs=[_image("image/jpeg", JPEG)])])
    text, _ = turn_input(cx.Capabilities(agent="the ACP agent", images="none"), "look", blind)
    assert (
        f"an image (image/jpeg, {len(base64.b64decode(JPEG)):,} bytes) shown as the output of notebook cell 1 (In [1])"
        in text
    )
    assert blind.notes == ["the ACP agent takes no images here: each image was sent as its text description"]


def _result(text: str) -> dict[str, Any]:
    return {"output_type": "execute_result", "execution_count": 1, "data": {"text/plain": text}, "metadata": {}}


def _stream(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _image(mime: str, data: str) -> dict[str, Any]:
    return {"output_type": "display_data", "data": {mime: data, "text/plain": "<Figure>"}, "metadata": {}}
