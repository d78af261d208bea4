"""The magics in an in-process IPython shell: loading, --help, bad flags, the source registry,
config loading and the hooks/tools listings. The real-kernel run is in test_extension_kernel.py."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

import codex_nb as cx
from codex_nb import extension
from codex_nb.extension.magic_files import MAX_FILE_BYTES
from codex_nb.extension.magics import NO_WIDGETS, CodexMagics
from codex_nb.extension.panel import PanelCell, PanelNote, PlanPanel
from codex_nb.extension.sources import SourceError, SourceRegistry

# real processes or long runs: left out of `pytest tests/unit`, run by --slow and .ci/test
pytestmark = pytest.mark.slow


MAGICS = ("codex", "codex_plan", "codex_answers", "codex_stop", "codex_config", "codex_hooks", "codex_tools")
PLAN = {"plan": [{"step": "Look", "status": "in_progress"}, {"step": "Fix", "status": "pending"}]}


def run(shell: InteractiveShell, code: str, capsys: pytest.CaptureFixture[str]) -> tuple[str, str]:
    shell.run_cell(code)
    out = capsys.readouterr()
    return out.out, out.err


def test_load_registers_every_magic_once_and_unload_removes_them(shell: InteractiveShell) -> None:
    state = extension.agent(shell)
    assert state is not None and list(state.sessions) == ["default"]
    shell.run_line_magic("load_ext", "codex_nb")  # loading again keeps the same state
    assert extension.agent(shell) is state
    for name in MAGICS:
        assert name in shell.magics_manager.magics["line"], name
    assert "codex" in shell.magics_manager.magics["cell"] and "codex_config" in shell.magics_manager.magics["cell"]
    shell.run_line_magic("unload_ext", "codex_nb")
    assert extension.agent(shell) is None and state.closed
    assert not any(name in shell.magics_manager.magics["line"] for name in MAGICS)
    shell.run_line_magic("load_ext", "codex_nb")  # for the fixture's unload


@pytest.mark.parametrize("name", MAGICS)
def test_every_magic_has_help(shell: InteractiveShell, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    out, err = run(shell, f"%{name} --help", capsys)
    assert err == ""
    assert out.startswith(f"Usage:\n  %{name} [-h]"), out
    assert "-h, --help" in out


@pytest.mark.parametrize(
    "code, message",
    [
        (
            "%codex_plan --bogus",
            "UsageError: unrecognized arguments: --bogus; usage: %codex_plan [-h] [--panel] [--close] "
            "[--session NAME] [--source VAR]",
        ),
        (
            "%codex_config --modle x",
            "UsageError: unrecognized arguments: --modle (did you mean --model?); usage: "
            "%codex_config [-h] [--codex-home [DIR]] [--profile NAME] [-c KEY=VALUE] [--model NAME] "
            "[--auto-panel on|off] [path]",
        ),
        (
            "%codex --sesion a hi",
            "UsageError: unrecognized arguments: --sesion (did you mean --session?); usage: %codex [-h] "
            "[--model NAME] [--mode {default,plan}] [--session NAME] [--source VAR] [--panel] "
            "[--out VAR] [--cells N,M-K] [--outputs] [--vars A,B] [--option NAME=VALUE] [--goal] [--budget TOKENS] [message ...]",
        ),
        (
            '%codex_config "my config.toml',
            "UsageError: No closing quotation in '\"my config.toml': close the quote, or "
            "escape it with a backslash; usage: %codex_config [-h] [--codex-home [DIR]] [--profile NAME] "
            "[-c KEY=VALUE] [--model NAME] [--auto-panel on|off] [path]",
        ),
        (
            "%codex_config --model gpt-5.1-codex",
            "UsageError: --model gpt-5.1-codex: --model takes the name of a notebook "
            "variable holding a model, not a model's name; create one in a cell above, "
            'e.g. `gpt_5_1_codex = cx.ResponsesModel(model="gpt-5.1-codex")`, then '
            "pass --model gpt_5_1_codex",
        ),
        (
            "%%codex --model gpt-5.1-codex\nhello",
            "UsageError: --model gpt-5.1-codex: --model takes the name of a notebook "
            "variable holding a model, not a model's name; create one in a cell "
            'above, e.g. `gpt_5_1_codex = cx.ResponsesModel(model="gpt-5.1-codex")`, '
            "then pass --model gpt_5_1_codex",
        ),
        (
            "%codex_hooks --trust nope",
            "UsageError: no file hook with key or source path 'nope'; %codex_hooks lists them "
            "(the key column; a source path trusts every hook of that file)",
        ),
        ("%codex_tools --mode fast", "UsageError: argument --mode: invalid choice: 'fast' (choose from ..."),
        (
            "%%codex\nhello",
            "UsageError: no model for this turn: pass --model NAME, where NAME is a variable holding "
            "a cx.ScriptedModel, a list of scripted responses or a real model (e.g. cx.ResponsesModel), "
            "or set a default once with %codex_config --model NAME",
        ),
        (
            "%%codex --model missing\nhello",
            "UsageError: --model missing: no variable named 'missing' in the notebook; "
            "define it in a cell above (a model, e.g. `missing = cx.ResponsesModel("
            'model="gpt-5.1-codex")`, or a list of scripted responses), then run this cell '
            "again",
        ),
        (
            "%%codex --model number\nhello",
            "UsageError: --model number: int is not a model; use a model (e.g. "
            "cx.ScriptedModel([...]) or cx.ResponsesModel(...)), a list of scripted "
            "responses, or a zero-argument function returning a model",
        ),
        (
            "%%codex --source number\nhello",
            "UsageError: --source number: int cannot run turns; use a cx.Session, a Codex thread, "
            "an ACP session, or another cx.AgentSource whose capabilities say runs_turns",
        ),
        (
            "%%codex --model m\n   ",
            "UsageError: %%codex needs a message: write it in the cell body (or after the flags in %codex ...)",
        ),
        ("%codex_config --auto-panel maybe", "UsageError: --auto-panel takes 'on' or 'off', got 'maybe'"),
        (
            "%codex_config /nonexistent/config.toml",
            "UsageError: no config file at /nonexistent/config.toml; give the path of a Codex config.toml",
        ),
        ("%%codex_config\n[tools\n", None),
        (
            "%codex_stop --session a-b",
            "UsageError: --session 'a-b': a session name must be an identifier (letters, digits, _)",
        ),
    ],
)
def test_mistakes_are_one_line_usage_errors(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], code: str, message: str | None
) -> None:
    shell.user_ns["number"] = 3
    out, err = run(shell, code, capsys)
    if message is None:
        assert "Traceback" not in err
        if code.startswith("%%codex_config"):
            assert err.startswith("UsageError: config TOML does not parse: ") and err.count("\n") == 1, err
        return
    if message.endswith("..."):  # argparse words the rest differently across Python versions
        assert out == "" and err.startswith(message[:-3]) and err.count("\n") == 1, err
        return
    assert (out, err) == ("", message + "\n")


async def test_a_codex_cell_runs_a_background_turn(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    shell.user_ns["script"] = [[cx.function_call("update_plan", PLAN, call_id="p")], [cx.assistant_message("ok")]]
    shell.run_cell_magic("codex", "--model script --out turn", "Plan it.")
    state = extension.agent(shell)
    assert state is not None
    handle = shell.user_ns["turn"]
    assert not handle.done() and len(state.turns) == 1
    result = await handle
    assert (result.status, result.last_agent_message) == ("completed", "ok")
    view = state.widgets[-1]
    await view.checklist.settled()
    assert view.checklist.steps == PLAN["plan"]
    assert view.outcome.value == "Turn completed: ok"
    assert state.turns == []
    # re-running the cell replays the script: a list makes a fresh ScriptedModel each time
    shell.run_line_magic("codex", "--model script --out again Plan it again.")  # the one-line form
    again = await shell.user_ns["again"]
    assert again.status == "completed" and again.items[0]["content"][0]["text"] == "Plan it again."
    capsys.readouterr()


async def test_stop_interrupts_and_named_sessions_are_separate(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    state = extension.agent(shell)
    assert state is not None
    never = asyncio.Event()
    other = state.use_session("other")

    @other.tool
    async def hang() -> str:
        "Never returns on its own."
        await never.wait()
        return "unreachable"

    shell.user_ns["hang_script"] = [[cx.function_call("hang", {}, call_id="h")]]
    shell.run_cell_magic("codex", "--session other --model hang_script --out stuck", "Hang.")
    capsys.readouterr()
    with pytest.raises(UsageError, match=r"^a turn is still running on session other; wait for it, stop it"):
        shell.run_cell_magic("codex", "--model hang_script", "Again.")
    shell.run_line_magic("codex_stop", "--session default")
    assert capsys.readouterr().out == "no turn is running on session default\n"
    shell.run_line_magic("codex_stop", "--session other")
    assert capsys.readouterr().out == "stopping the turn on session other\n"
    assert (await shell.user_ns["stuck"]).status == "interrupted"


async def test_a_user_session_is_a_source_and_stays_open(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = cx.Session()
    shell.user_ns.update(mine=mine, script=[[cx.assistant_message("hi")]])
    shell.run_cell_magic("codex", "--source mine --model script --out turn", "Hello.")
    assert (await shell.user_ns["turn"]).status == "completed"
    assert len(mine.history) == 2  # the user message and the answer went to the user's session
    state = extension.agent(shell)
    assert state is not None and state.current == "mine"
    shell.run_line_magic("unload_ext", "codex_nb")
    await extension.wait_closed()
    assert mine.active_turn is None and "default" not in state.sessions
    shell.run_line_magic("load_ext", "codex_nb")
    capsys.readouterr()


def test_config_show_load_inline_and_default_model(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.user_ns["script"] = [[cx.assistant_message("hi")]]
    out, _ = run(shell, "%codex_config --model script --auto-panel on", capsys)
    assert out.splitlines() == [
        "session: default",
        "default --model: script (list)",
        "config model name: scripted (what hooks and tools are told; the --model variable answers)",
        "update_plan: on",
        "hooks: on",
        "code mode: off",
        "plan validation: off",
        "auto plan panel: on",
    ]
    state = extension.agent(shell)
    assert state is not None
    before = state.source()
    out, _ = run(shell, '%%codex_config\nmodel = "gpt-test"\n[tools.update_plan]\nenabled = false\n', capsys)
    assert state.source() is not before
    assert "config model name: gpt-test (what hooks" in out and "update_plan: off" in out
    path = tmp_path / "config.toml"
    path.write_text(
        '[[hooks.PreToolUse]]\nmatcher = "update_plan"\n'
        '[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "true"\n',
        encoding="utf-8",
    )
    run(shell, f"%codex_config {path}", capsys)
    out, err = run(shell, "%codex_hooks", capsys)
    assert err == ""
    header, row = out.splitlines()
    assert header.split() == ["event", "matcher", "type", "trust", "source", "key"]
    # a file hook needs trust; a config.toml named by path is read as the user layer ($CODEX_HOME's)
    assert row.split()[:5] == ["PreToolUse", "update_plan", "command", "untrusted", "user"]
    out, _ = run(shell, "%codex_hooks --trust", capsys)
    assert out.splitlines()[1].split()[3] == "trusted"


def test_config_codex_home_shows_where_each_setting_came_from(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('model = "from-home"\n', encoding="utf-8")
    (home / "fast.config.toml").write_text('approval_policy = "never"\n', encoding="utf-8")
    out, err = run(shell, f"%codex_config --codex-home {home} --profile fast -c model_reasoning_effort=high", capsys)
    assert err == ""
    flat = " ".join(out.split())
    assert "config model name: from-home" in flat
    assert f'model = "from-home" <- user {home / "config.toml"}' in flat
    assert f'approval_policy = "never" <- user {home / "fast.config.toml"} (profile fast)' in flat
    assert 'model_reasoning_effort = "high" <- session flags (-c overrides)' in flat
    out, err = run(shell, f"%codex_config --codex-home {home} --profile nope", capsys)
    assert "no profile 'nope'" in out + err and "fast" in out + err
    out, err = run(shell, "%codex_config --profile fast", capsys)
    assert "--profile and -c apply to --codex-home" in out + err


def test_hooks_show_the_layer_each_hook_came_from(
    shell: InteractiveShell, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    hook = '[[hooks.PreToolUse]]\nmatcher = "{}"\n[[hooks.PreToolUse.hooks]]\ntype = "command"\ncommand = "true"\n'
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    (repo / ".codex").mkdir()
    (repo / ".codex" / "config.toml").write_text(hook.format("from_project"), encoding="utf-8")
    home.mkdir()
    trusted = f'[projects."{repo}"]\ntrust_level = "trusted"\n'
    (home / "config.toml").write_text(hook.format("from_home") + trusted, encoding="utf-8")
    monkeypatch.chdir(repo)
    run(shell, f"%codex_config --codex-home {home}", capsys)
    out, err = run(shell, "%codex_hooks", capsys)
    assert err == ""
    rows = {line.split()[1]: line.split() for line in out.splitlines()[1:]}
    assert rows["from_home"][4] == "user" and rows["from_project"][4] == "project"
    assert str(repo / ".codex" / "config.toml") in rows["from_project"][5]


def test_tools_shows_mcp_server_status(
    shell: InteractiveShell, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, '%%codex_config\n[mcp_servers.missing]\ncommand = "/no/such/mcp-server"\n', capsys)
    state = extension.agent(shell)
    assert state is not None
    session = state.source()
    assert session.mcp_servers is not None
    asyncio.run(session.mcp_ready())  # no loop runs in this shell: the startup runs here
    out, _ = run(shell, "%codex_tools", capsys)
    header, row = [line for line in out.splitlines() if line.startswith(("MCP server", "missing"))]
    assert header.split() == ["MCP", "server", "status", "tools", "reason"]
    assert row.split()[:3] == ["missing", "failed", "0"] and "/no/such/mcp-server" in row


def test_tools_lists_the_plan_in_model_order(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = run(shell, "%codex_tools", capsys)
    lines = out.splitlines()
    assert lines[0] == "tool plan (generation 2, mode default): 2 tools"
    assert [line.split() for line in lines[1:]] == [
        ["tool", "kind", "exposure"],
        ["update_plan", "function", "Direct"],
        ["request_user_input", "function", "DirectModelOnly"],
    ]


def test_source_registry_adapters() -> None:
    registry = SourceRegistry()
    scripted = cx.ScriptedModel([[cx.assistant_message("x")]])
    assert registry.model(scripted, label="m") is scripted
    fresh = registry.model([[cx.assistant_message("x")]], label="m")
    assert isinstance(fresh, cx.ScriptedModel) and fresh.remaining == 1
    assert registry.model(lambda: scripted, label="f") is scripted
    with pytest.raises(SourceError, match="calling it returned str, not a model"):
        registry.model(lambda: "nope", label="f")

    class Provider:  # e.g. a real model class another module defines
        def __init__(self, slug: str) -> None:
            self.slug = slug

    registry.register_model(
        "slug",
        accepts=lambda v: isinstance(v, str) and v.startswith("slug:"),
        adapt=lambda v: Provider(v.removeprefix("slug:")),
    )
    assert registry.model("slug:gpt", label="s").slug == "gpt"
    session = cx.Session()
    assert registry.source(session, label="s") is session


def test_panel_falls_back_to_the_cell_where_the_view_has_no_side_area() -> None:
    session = cx.Session()
    panel = PlanPanel(session, label="default")
    cell = panel.open()
    assert panel.sidecar is None and cell.children == (cell.note,)  # no side area known yet
    assert cell.note.handle_message({"id": "v1", "kind": "placed", "area": "side"}) == "side"
    assert panel.sidecar is not None and cell.children == (cell.note,)
    sidecar = panel.sidecar
    cell.note.handle_message({"id": "v1b", "kind": "placed", "area": "side"})
    assert panel.sidecar is sidecar  # one sidecar, however many views report
    cell.note.handle_message({"id": "v2", "kind": "placed", "area": "cell"})
    assert cell.children == (cell.note, panel.content) and cell.note.area == "cell"
    cell.note._on_view_msg(cell.note, {"id": "v3", "kind": "placed", "area": "moon"}, None)
    assert cell.note.error == "placed: area must be one of ['side', 'cell'], got 'moon'"
    other = cx.Session()
    controls = panel.controls
    panel.follow(other, label="other")
    assert panel.controls is not controls and controls.comm is None and panel.content.children[1] is panel.controls
    panel.close()
    assert panel.sidecar is None and cell.note.comm is None


def test_panel_without_sidecar_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from codex_nb.extension import panel as panel_module

    monkeypatch.setattr(panel_module, "sidecar_class", lambda: None)
    panel = PlanPanel(cx.Session(), label="default")
    cell = panel.open()
    assert cell.children == (cell.note, panel.content)
    assert "needs the `sidecar` package (pip install -e '.[lab]' in a codex_nb checkout" in cell.text()
    panel.close()


def test_panel_note_repr_is_stable() -> None:
    note = PanelNote(on_placed=lambda area: None)
    bundle: Any = note._repr_mimebundle_()
    assert bundle[0]["text/plain"] == (
        "Codex plan: in JupyterLab's right side area; where there is none, shown here in the cell instead."
    )
    note.close()


async def test_a_rerun_codex_cell_starts_with_no_plan_and_no_outcome(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    """The previous turn's finished plan, or a "running" outcome line, beside the new turn's
    "Turn: running" would contradict it (a view lagging behind shows the outcome line longest)."""
    shell.user_ns["script"] = [[cx.function_call("update_plan", PLAN, call_id="p")], [cx.assistant_message("ok")]]
    shell.run_cell_magic("codex", "--model script --out a", "Plan it.")
    state = extension.agent(shell)
    assert state is not None
    await shell.user_ns["a"]
    shell.run_cell_magic("codex", "--model script --out b", "Plan it again.")
    view = state.widgets[-1]
    assert (view.controls.status, view.checklist.steps, view.outcome.value) == ("running", [], "")
    assert view.text().splitlines()[-1] != "" and "Turn running" not in view.text() + view.html()
    await shell.user_ns["b"]
    await view.checklist.settled()
    assert (view.checklist.steps, view.outcome.value) == (PLAN["plan"], "Turn completed: ok")
    assert view.text().endswith("\nTurn completed: ok")
    capsys.readouterr()


async def test_a_finished_turn_view_freezes(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    """An old %%codex cell must not show, or stop, the session's next turn."""
    first = [[cx.function_call("update_plan", PLAN, call_id="p")], [cx.assistant_message("one")]]
    never = asyncio.Event()
    state = extension.agent(shell)
    assert state is not None

    @state.source().tool
    async def hang() -> str:
        "Never returns on its own."
        await never.wait()
        return "unreachable"

    shell.user_ns.update(first=first, second=[[cx.function_call("hang", {}, call_id="h")]])
    shell.run_cell_magic("codex", "--model first --out a", "One.")
    old = state.widgets[-1]
    await shell.user_ns["a"]
    assert old.prompts is None and len(old.children) == 4
    assert old.transcript.text() == "Transcript: completed\nyou: One.\nassistant: one"
    shell.run_cell_magic("codex", "--model second --out b", "Two.")
    assert old.controls.stop()["outcome"] == "not_running"  # detached, but still a safe no-op
    assert not state.source().active_turn.turn.cancel.cancelled
    assert (old.controls.status, old.checklist.turn_status, old.checklist.steps) == (
        "completed",
        "completed",
        PLAN["plan"],
    )
    shell.run_line_magic("codex_stop", "")
    assert (await shell.user_ns["b"]).status == "interrupted"
    assert old.controls.status == "completed"
    assert old.transcript.text() == "Transcript: completed\nyou: One.\nassistant: one"  # detached: not the second turn
    capsys.readouterr()


@pytest.mark.parametrize(
    "enable",
    [
        "%codex_config --auto-panel on",
        "%%codex_config\n[tools.update_plan]\nenabled = true\n[codex_nb]\nopen_plan_panel = true\n",
    ],
)
async def test_auto_panel_opens_once_and_follows_the_current_session(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str], enable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # this shell has no kernel; the panel is for a front end that renders widgets (tests/browser)
    monkeypatch.setattr(CodexMagics, "_shows_widgets", lambda self: True)
    state = extension.agent(shell)
    assert state is not None
    shell.run_cell(enable)
    shell.user_ns["script"] = [[cx.assistant_message("hi")]]
    shell.run_cell_magic("codex", "--model script --out a", "One.")
    panel = state.panel
    assert panel is not None and panel.source is state.source()
    assert any(isinstance(c, PanelCell) for c in state.widgets[-1].children)
    await shell.user_ns["a"]
    # a turn on another session: the same panel now shows that session, no second panel cell
    shell.run_cell_magic("codex", "--session other --model script --out b", "Two.")
    await shell.user_ns["b"]
    assert state.panel is panel and panel.source is state.sessions["other"] and panel.label == "other"
    assert not any(isinstance(c, PanelCell) for c in state.widgets[-1].children)
    shell.run_line_magic("codex_plan", "--close")
    assert state.panel is None and panel.sidecar is None
    capsys.readouterr()


class OwnModelAgent:
    """A turn source that brings its own model (as a real Codex thread or an ACP agent does):
    ``start_turn`` takes no model and returns a bare awaitable; its capabilities say so."""

    capabilities = cx.Capabilities(agent="an agent of its own", runs_turns=True, mid_turn="steer", interrupt=True)

    def __init__(self) -> None:
        self.session = cx.Session()
        self.thread_id = self.session.thread_id
        self.subscribe = self.session.subscribe
        self.interrupt = self.session.interrupt
        self.send_during_turn = self.session.send_during_turn

    @property
    def active_turn(self) -> Any:
        return self.session.active_turn

    def start_turn(self, text: str, *, mode: str = "default") -> Any:
        handle = self.session.start_turn(
            text,
            model=cx.ScriptedModel(
                [[cx.function_call("update_plan", PLAN, call_id="p")], [cx.assistant_message(f"echo: {text}")]]
            ),
            mode=mode,
        )

        class Awaitable:
            def __await__(self) -> Any:
                return handle.__await__()

        return Awaitable()


async def test_a_source_with_its_own_model_needs_no_model_flag(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.user_ns["agent"] = OwnModelAgent()
    shell.run_cell_magic("codex", "--source agent --mode plan --out turn", "Hello there.")
    state = extension.agent(shell)
    assert state is not None and state.current == "agent"
    view = state.widgets[-1]
    assert view.prompts is None  # this source has no frontend requests to show
    (running,) = state.turns
    result = await shell.user_ns["turn"]
    assert await running.task is result  # the extension's task awaiting the bare handle
    assert result.last_agent_message == "echo: Hello there."
    # --mode plan reached the source: Codex refuses update_plan in Plan mode
    assert result.outputs()["p"] == "update_plan is a TODO/checklist tool and is not allowed in Plan mode"
    await view.checklist.settled()
    assert view.outcome.value == "Turn completed: echo: Hello there."
    assert (view.controls.status, view.checklist.steps) == ("completed", [])
    shell.user_ns["m"] = [[cx.assistant_message("x")]]
    with pytest.raises(UsageError, match=r"^--model m: agent \(OwnModelAgent\) brings its own model; drop --model"):
        shell.run_cell_magic("codex", "--model m", "Again.")
    capsys.readouterr()


def test_codex_plan_shows_the_live_plan_without_a_turn(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_line_magic("codex_plan", "")
    state = extension.agent(shell)
    assert state is not None
    view = state.widgets[-1]
    assert view.text() == "codex plan · session default\nTurn: no turn yet\n• Updated Plan\n  └ (no plan yet)"
    assert view.prompts is None and view.outcome not in view.children
    capsys.readouterr()


async def test_unload_settles_a_pending_question(shell: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    question = {
        "id": "q1",
        "header": "Pick",
        "question": "Which one?",
        "options": [{"label": "A", "description": "first"}, {"label": "B", "description": "second"}],
    }
    shell.user_ns["ask"] = [[cx.function_call("request_user_input", {"questions": [question]}, call_id="q")]]
    state = extension.agent(shell)
    assert state is not None
    session = state.source()
    asked = asyncio.Event()
    session.subscribe(lambda e: asked.set() if e.msg.type == "request_user_input" else None)
    shell.run_cell_magic("codex", "--mode plan --model ask --out turn", "Ask me.")
    await asked.wait()
    assert len(session.frontend_requests.pending) == 1  # waiting for the prompts widget in the cell
    shell.run_line_magic("unload_ext", "codex_nb")
    await extension.wait_closed()
    result = await shell.user_ns["turn"]
    assert result.status == "interrupted" and session.frontend_requests.pending == []
    assert all(getattr(w, "comm", None) is None for w in state.widgets) and state.panel is None
    shell.run_line_magic("load_ext", "codex_nb")
    capsys.readouterr()


async def test_unload_ends_a_running_code_mode_cell(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_cell_magic("codex_config", "", "[tools.update_plan]\nenabled = true\n[features]\ncode_mode = true\n")
    state = extension.agent(shell)
    assert state is not None
    session = state.source()
    entered, never = asyncio.Event(), asyncio.Event()

    @session.tool
    async def hang() -> str:
        "Never returns on its own."
        entered.set()
        await never.wait()
        return "unreachable"

    shell.user_ns["js"] = [[cx.custom_tool_call("exec", 'text("before"); await tools.hang({});', call_id="e")]]
    shell.run_cell_magic("codex", "--model js --out turn", "Run it.")
    await entered.wait()  # the V8 cell is blocked in a nested tool call
    shell.run_line_magic("unload_ext", "codex_nb")
    await extension.wait_closed()
    result = await shell.user_ns["turn"]
    assert result.status == "interrupted"
    assert [i["type"] for i in result.items if i.get("call_id") == "e"] == [
        "custom_tool_call",
        "custom_tool_call_output",
    ]
    shell.run_line_magic("load_ext", "codex_nb")
    capsys.readouterr()


def test_config_says_there_is_no_default_model_in_one_place(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = run(shell, "%codex_config", capsys)
    assert out.splitlines()[:3] == [
        "session: default",
        "default --model: (none: each %%codex cell needs --model VAR, or set one with %codex_config --model VAR)",
        "config model name: scripted (what hooks and tools are told; the --model variable answers)",
    ]


def _hostile_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    (tmp_path / "nul.toml").write_bytes(b'model = "x"\n\0\0\0')
    (tmp_path / "latin1.json").write_bytes('{"hooks": "caf\xe9"}'.encode("latin-1"))
    with open(tmp_path / "huge.toml", "wb") as f:  # sparse: refused by its size, never read
        f.truncate(MAX_FILE_BYTES + 1)
    return {
        "fifo": (fifo, "is a FIFO (named pipe), not a regular file; give the path of a Codex {example}"),
        "zero": (Path("/dev/zero"), "is a character device, not a regular file; give the path of a Codex {example}"),
        "nul": (
            tmp_path / "nul.toml",
            "is a binary file (it holds NUL bytes at offset 12); give the path of a Codex {example} (UTF-8 text)",
        ),
        "latin1": (
            tmp_path / "latin1.json",
            "is not UTF-8 text (invalid continuation byte at byte 14); save it as UTF-8",
        ),
        "huge": (tmp_path / "huge.toml", "is larger than 4 MiB; a Codex {example} is a few KiB: check the path"),
    }


@pytest.mark.timeout(60)  # the unfixed code blocked for ever on the FIFO and /dev/zero
@pytest.mark.parametrize("kind", ["fifo", "zero", "nul", "latin1", "huge"])
@pytest.mark.parametrize(
    "magic, what, example",
    [
        ("%codex_config", "config file", "config.toml"),
        ("%codex_hooks --load", "hooks file", "hooks.json or config.toml"),
    ],
)
def test_a_file_that_is_not_a_small_text_file_is_refused_unread(
    shell: InteractiveShell,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    kind: str,
    magic: str,
    what: str,
    example: str,
) -> None:
    path, reason = _hostile_files(tmp_path)[kind]
    out, err = run(shell, f"{magic} {path}", capsys)
    assert (out, err) == ("", f"UsageError: the {what} {path} {reason.format(example=example)}\n")


async def test_the_plan_panel_in_terminal_ipython_says_what_happens_instead(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    """A shell without a kernel has no front end that renders widgets: no panel, the plan as text."""
    state = extension.agent(shell)
    assert state is not None and getattr(shell, "kernel", None) is None
    out, err = run(shell, "%codex_plan --panel", capsys)
    assert err == ""
    assert out.splitlines() == [
        NO_WIDGETS,
        "codex plan · session default",
        "Turn: no turn yet",
        "• Updated Plan",
        "  └ (no plan yet)",
    ]
    assert "shown here in the cell" not in out
    assert state.panel is None and state.widgets == []
    shell.user_ns["script"] = [[cx.assistant_message("hi")]]
    out, _ = run(shell, "%codex --panel --model script --out turn Hello.", capsys)
    assert out.splitlines()[0] == NO_WIDGETS and state.panel is None
    assert (await shell.user_ns["turn"]).status == "completed"


def test_panel_header_names_the_session_by_its_title_as_the_agent_sets_it() -> None:
    from codex_nb.acp import AcpSessionTitle

    session = cx.Session()
    panel = PlanPanel(session, label="acp")
    assert panel.header.label == "acp"
    session.bus.emit(AcpSessionTitle(title="Fix the parser"), id="t")
    assert panel.header.label == "acp · Fix the parser"
    session.bus.emit(AcpSessionTitle(title=None), id="t")
    assert panel.header.label == "acp"
    other = cx.Session()
    panel.follow(other, label="default")
    session.bus.emit(AcpSessionTitle(title="Not followed"), id="t")
    assert panel.header.label == "default"
    panel.close()
