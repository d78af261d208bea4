"""The person's own words on screen for every source: the ``%%codex`` prompt and
steered input of codex_nb's runtime, the real Codex app-server's turns, ACP prompts; in the live
transcript ("You" rows), its saved text (``you:`` lines) and the timeline export, in order."""

from __future__ import annotations

from pathlib import Path

import pytest

import codex_nb as cx
from codex_nb.acp import UserMessage as AcpUserMessage
from codex_nb.protocol.events import UserMessage
from codex_nb.testing import ResponsesServer, Stall, codex_acp_binary, write_codex_acp_home
from codex_nb.widgets.testing import recording_comms
from codex_nb.widgets.transcript import Transcript

from helpers.app_server_helpers import real_codex

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


def transcript(source) -> Transcript:
    with recording_comms():
        return Transcript(source, max_rate=None)


def conversation(timeline: cx.PlanTimeline) -> list[tuple[str, str]]:
    return [(m["role"], m["text"]) for m in timeline.to_dict().get("messages", [])]


def test_one_user_message_class_under_both_import_paths() -> None:
    assert AcpUserMessage is UserMessage
    assert UserMessage(message="hi").to_wire() == {"type": "user_message", "message": "hi"}


async def test_the_runtime_shows_the_prompt_and_steered_input_in_order() -> None:
    session = cx.Session()
    handles: list = []

    @session.tool
    def look() -> str:
        "Look around."
        handles[0].steer("also check the tests")
        return "looked"

    view, timeline = transcript(session), cx.PlanTimeline(session)
    script = [[cx.function_call("look", {}, call_id="l1")], [cx.assistant_message("Checked both.")]]
    async with ResponsesServer(script) as srv:
        handles.append(
            session.start_turn("look at the code", model=cx.ResponsesModel(model="m", base_url=srv.base_url))
        )
        assert (await handles[0]).status == "completed"
    assert view.text().splitlines() == [
        "Transcript: completed",
        "you: look at the code",
        "tool look [completed]: looked",
        "you: also check the tests",
        "assistant: Checked both.",
    ]
    assert [e["kind"] for e in view.entries] == ["user", "tool", "user", "assistant"]
    assert conversation(timeline) == [
        ("user", "look at the code"),
        ("user", "also check the tests"),
        ("assistant", "Checked both."),
    ]
    assert [m.role for m in timeline.messages] == ["user", "user", "assistant"]
    timeline.close()


@pytest.mark.requires_codex
async def test_the_real_codex_thread_shows_the_prompt_and_steered_input_once(tmp_path: Path) -> None:
    script = [Stall(0.5, then=[cx.assistant_message("first")]), [cx.assistant_message("steered")]]
    async with real_codex(script, tmp_path / "home") as (server, _srv):
        thread = await server.start_thread(cwd=tmp_path)
        view, timeline = transcript(thread), cx.PlanTimeline(thread)
        handle = thread.start_turn("go")
        await handle.started
        await thread.steer("steered text")
        result = await handle
        assert result.status == "completed"
        # Codex's own userMessage items are not shown a second time
        said = [e for e in result.events if e.msg.type == "user_message"]
        assert [e.msg.message for e in said] == ["go", "steered text"]
        lines = view.text().splitlines()
        assert lines.count("you: go") == 1 and lines.count("you: steered text") == 1
        assert lines.index("you: go") < lines.index("you: steered text")
        users = [text for role, text in conversation(timeline) if role == "user"]
        assert users == ["go", "steered text"]
        assert conversation(timeline)[-1][0] == "assistant"
        timeline.close()


@pytest.mark.requires_acp_agent
async def test_an_acp_prompt_is_shown_once_before_the_answer(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    with ResponsesServer([[cx.assistant_message("All done.")], [cx.assistant_message("Second.")]]) as srv:
        home = write_codex_acp_home(srv, tmp_path / "home")
        agent = cx.AcpAgent(codex_acp_binary(), env={"CODEX_HOME": str(home), "OPENAI_API_KEY": "sk-local"})
        async with agent:
            session = await agent.new_session(work)
            view, timeline = transcript(session), cx.PlanTimeline(session)
            assert (await session.prompt("Say done")).status == "completed"
            assert view.text().splitlines() == ["Transcript: completed", "you: Say done", "assistant: All done."]
            assert (await session.prompt("And again")).status == "completed"
            assert view.text().splitlines() == ["Transcript: completed", "you: And again", "assistant: Second."]
            assert conversation(timeline) == [
                ("user", "Say done"),
                ("assistant", "All done."),
                ("user", "And again"),
                ("assistant", "Second."),
            ]
            timeline.close()


def test_words_sent_before_their_turn_started_open_that_turn() -> None:
    from codex_nb.events.bus import EventBus
    from codex_nb.protocol.events import AgentMessage, TurnComplete, TurnStarted

    bus = EventBus("thread-x")
    view = transcript(bus)
    for turn, said in (("t1", "first"), ("t2", "second")):
        bus.emit(UserMessage(message=said), id=turn, turn_id=turn)  # answered before turn/started
        bus.emit(TurnStarted(turn_id=turn), id=turn, turn_id=turn)
        bus.emit(AgentMessage(message=f"re {said}"), id=turn, turn_id=turn)
        bus.emit(TurnComplete(turn_id=turn), id=turn, turn_id=turn)
    assert view.text().splitlines() == ["Transcript: completed", "you: second", "assistant: re second"]


def test_a_long_prompt_keeps_the_persons_message_at_its_end_in_the_text() -> None:
    from codex_nb.events.bus import EventBus
    from codex_nb.protocol.events import TurnStarted

    bus = EventBus("thread-x")
    view = transcript(bus)
    bus.emit(TurnStarted(turn_id="t1"), id="t1", turn_id="t1")
    prompt = "Context from the notebook:\n\n[sales: dict]\n" + "x" * 500 + "\n\nMessage:\nWhich region sold least?"
    bus.emit(UserMessage(message=prompt), id="t1", turn_id="t1")
    line = view.text().splitlines()[1]
    assert line.startswith("you: Context from the notebook:") and line.endswith("Message: ⏎ Which region sold least?")
    assert len(line) < 200 and view.entries[0]["text"] == prompt  # the view shows it whole
