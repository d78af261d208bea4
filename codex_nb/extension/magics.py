"""The ``%%codex`` cell magic and its line magics.

Every magic parses with IPython's ``magic_arguments`` (``-h``/``--help`` prints its usage),
and every mistake -- a bad flag, an unknown variable, a model of the wrong type -- is a
one-line ``UsageError`` that says what to do, never a traceback. The magics only parse and
display; the state they act on is the ``KernelAgent``.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import MagicHelpFormatter, argument, magic_arguments, parse_argstring
from IPython.display import display

from ..config import Config
from ..errors import CodexNbError
from ..config.hooks import HooksConfig, parse_hooks_json, parse_hooks_table, parse_hooks_toml
from .context import Attachments, ContextError, collect
from .magic_files import read_text_file
from ..protocol.capabilities import capabilities_of
from .sources import SourceError
from .state import KernelAgent

if TYPE_CHECKING:
    from .panel import PlanPanel
    from .turn_view import TurnView

HELP_WIDTH = 88
NO_WIDGETS = (
    "codex plan panel: this IPython has no front end that shows widgets (terminal IPython), so there is "
    "no side panel and no live view; the plan as it is now is printed below, %codex_plan prints it again. "
    "The live panel needs JupyterLab (or another notebook front end)."
)
_HELP = argument("-h", "--help", action="store_true", help="show this help and do nothing else")


def _arguments(fn: Callable[..., Any]) -> Callable[..., Any]:
    """The outermost of a magic's ``@argument`` stack: builds its parser, with ``--help``."""
    return magic_arguments()(_HELP(fn))


_SESSION = argument(
    "--session", metavar="NAME", help="an extension-owned session by name (created on first use); it becomes current"
)
_SOURCE = argument(
    "--source",
    metavar="VAR",
    help="a variable holding a cx.Session or another event source that runs turns "
    "(a real Codex thread, an ACP session); it becomes current",
)


def _guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Parse the arguments, honour --help, and turn user mistakes into one-line UsageErrors."""

    @functools.wraps(fn)
    def wrapper(self: CodexMagics, line: str, cell: str | None = None) -> Any:
        args = _parse(wrapper, line)
        if args.help:
            print(_help(wrapper))
            return None
        try:
            return fn(self, args, cell)
        except (SourceError, CodexNbError, OSError, ContextError) as err:
            raise UsageError(" ".join(str(err).split())) from None

    return wrapper


def _parse(magic: Any, line: str) -> Any:
    """The magic's arguments; a mistake names the closest flag and shows the usage line."""
    try:
        return parse_argstring(magic, line)
    except ValueError as err:  # shlex: an unbalanced quote
        raise UsageError(
            f"{err} in {line.strip()!r}: close the quote, or escape it with a backslash; {_usage(magic)}"
        ) from None
    except UsageError as err:
        message = " ".join(str(err).split())
        unknown = re.match(r"unrecognized arguments: (.*)$", message)
        if unknown is not None:
            message += _closest(magic, unknown.group(1).split())
        raise UsageError(f"{message}; {_usage(magic)}") from None


def _agent_options(given: list[str] | None) -> dict[str, str] | None:
    """``--option NAME=VALUE`` flags as ``{NAME: VALUE}`` (the agent checks the values), or None."""
    if not given:
        return None
    out: dict[str, str] = {}
    for item in given:
        name, eq, value = item.partition("=")
        if not eq or not name.strip() or not value.strip():
            raise UsageError(f"--option {item!r}: give NAME=VALUE, e.g. --option collaboration_mode=plan")
        out[name.strip()] = value.strip()
    return out


def _closest(magic: Any, given: list[str]) -> str:
    flags = [flag for action in magic.parser._actions for flag in action.option_strings if flag.startswith("--")]
    for word in given:
        if word.startswith("-"):
            match = difflib.get_close_matches(word.split("=", 1)[0], flags, n=1, cutoff=0.6)
            if match:
                return f" (did you mean {match[0]}?)"
    return ""


def _usage(magic: Any) -> str:
    """The one-line usage, as ``--help`` starts it."""
    magic.parser.formatter_class = functools.partial(MagicHelpFormatter, width=HELP_WIDTH)
    usage = " ".join(magic.parser.format_usage().replace("::", "", 1).split())
    return usage if usage.startswith("usage:") else f"usage: {usage}"


def _help(magic: Any) -> str:
    """The magic's help at a fixed width (argparse would follow the terminal, which nbval must not)."""
    parser = magic.parser
    parser.formatter_class = functools.partial(MagicHelpFormatter, width=HELP_WIDTH)
    return parser.format_help().replace("::\n\n", "Usage:\n", 1).rstrip()


def _on_off(value: str) -> bool:
    if value not in ("on", "off"):
        raise UsageError(f"--auto-panel takes 'on' or 'off', got {value!r}")
    return value == "on"


@magics_class
class CodexMagics(Magics):
    """Magics of ``%load_ext codex_nb``; the state lives in ``self.agent``."""

    def __init__(self, shell: Any, agent: KernelAgent) -> None:
        super().__init__(shell)
        self.agent = agent

    # -- helpers ---------------------------------------------------------------------
    def _select(self, args: Any) -> Any:
        if getattr(args, "session", None) and getattr(args, "source", None):
            raise SourceError("give either --session NAME or --source VAR, not both")
        if getattr(args, "source", None):
            return self.agent.use_source(args.source)
        if getattr(args, "session", None):
            return self.agent.use_session(args.session)
        return self.agent.source()

    @property
    def _user_ns(self) -> dict[str, Any]:
        """The user's namespace: a magic runs in the shell it was registered with (never None here)."""
        assert self.shell is not None
        return self.shell.user_ns

    def _shows_widgets(self) -> bool:
        """Whether a front end may render widgets: only a kernel has one (terminal IPython has none)."""
        return getattr(self.shell, "kernel", None) is not None

    def _model_variable(self, name: str) -> None:
        """``--model`` names a variable; a model's own name (``gpt-5.1-codex``) gets the line that makes one."""
        if name in self._user_ns:
            return
        variable = re.sub(r"\W", "_", name)
        variable = variable if variable.isidentifier() else f"model_{variable}"
        make = f'{variable} = cx.ResponsesModel(model="{name}")'
        if not name.isidentifier():
            raise UsageError(
                f"--model {name}: --model takes the name of a notebook variable holding a model, not a "
                f"model's name; create one in a cell above, e.g. `{make}`, then pass --model {variable}"
            )
        raise UsageError(
            f"--model {name}: no variable named {name!r} in the notebook; define it in a cell above (a "
            f'model, e.g. `{name} = cx.ResponsesModel(model="gpt-5.1-codex")`, or a list of scripted '
            f"responses), then run this cell again"
        )

    def _panel(self, source: Any) -> PlanPanel:
        if self.agent.panel is None:
            from .panel import PlanPanel  # ipywidgets/anywidget load with the first view, not with %load_ext

            self.agent.panel = PlanPanel(source, label=self.agent.current)
            self.agent.announce()
        else:
            self.agent.panel.follow(source, label=self.agent.current)
        return self.agent.panel

    def _auto_panel(self, source: Any) -> bool:
        config = getattr(source, "config", None)
        table = getattr(config, "extra", {}).get("codex_nb", {}) if config is not None else {}
        return bool(self.agent.settings.open_plan_panel or (isinstance(table, dict) and table.get("open_plan_panel")))

    # -- %%codex ---------------------------------------------------------------------
    @_arguments
    @argument(
        "--model",
        metavar="NAME",
        help="a variable holding the model: a cx.ScriptedModel, a list of scripted responses, a "
        "function returning a model, or a real model (cx.ResponsesModel...). Default: "
        "%%codex_config --model NAME",
    )
    @argument("--mode", choices=("default", "plan"), default="default", help="collaboration mode (Codex ModeKind)")
    @_SESSION
    @_SOURCE
    @argument("--panel", action="store_true", help="also open the plan panel in JupyterLab's side area")
    @argument(
        "--out", metavar="VAR", help="store the turn handle in VAR (`await VAR` in a later cell gives its result)"
    )
    @argument("--cells", metavar="N,M-K", help="attach the sources of these cells (execution counts, as In [n])")
    @argument("--outputs", action="store_true", help="with --cells: also attach their outputs (bounded)")
    @argument("--vars", metavar="A,B", help="attach these variables (type and bounded repr; tables, images)")
    @argument(
        "--option",
        metavar="NAME=VALUE",
        action="append",
        help="set one of an ACP agent's options (session.options) before the prompt, e.g. "
        "collaboration_mode=plan on codex-acp or mode=plan on Claude; repeat for more",
    )
    @argument(
        "--goal",
        action="store_true",
        help="the text is a goal's objective: the real Codex works on it turn after turn until it is "
        "complete, paused, blocked or out of budget (thread.run_goal; Stop pauses it)",
    )
    @argument("--budget", metavar="TOKENS", type=int, help="with --goal: the goal's token budget")
    @argument("message", nargs="*", help="line form only: the message (the cell form uses the cell text)")
    @line_cell_magic
    @_guarded
    def codex(self, args: Any, cell: str | None) -> None:
        """Run the cell text as the user's message: a background turn on the current session.

        The cell returns at once; its output shows the live turn (Stop control, checklist,
        prompts, outcome). Stop it with the Stop button or %codex_stop.
        """
        text = cell if cell is not None else " ".join(args.message)
        if not text.strip():
            raise UsageError("%%codex needs a message: write it in the cell body (or after the flags in %codex ...)")
        source = self._select(args)
        if args.out is not None and not args.out.isidentifier():
            raise UsageError(f"--out {args.out!r}: give a Python variable name")
        if args.model is not None and capabilities_of(source).needs_model:
            self._model_variable(args.model)
        if args.budget is not None and not args.goal:
            raise UsageError("--budget is a goal's token budget: give it with --goal")
        if args.goal:
            self._goal(source, text.strip(), args)
            return
        found = None
        if args.cells or args.outputs or args.vars:
            found = collect(self._user_ns, cells=args.cells, outputs=args.outputs, variables=args.vars)
        shown: Any = None

        def started(running: Any) -> None:  # what went (read from the page as it ran), and the handle
            if shown is not None and running.attachments is not None:
                shown.show(running.attachments)
            if args.out is not None:
                self._user_ns[args.out] = running.handle

        running = self.agent.start_turn(
            text.strip(),
            model=args.model,
            mode=args.mode,
            attachments=found,
            agent_options=_agent_options(args.option),
            on_start=started,
        )
        beat = heartbeat(source) if self._shows_widgets() else None
        extra: list[Any] = [beat] if beat is not None else []
        if running.attachments is not None and running.attachments.items:
            shown = attachments_view(running.attachments)
            extra.append(shown)
        if args.panel and not self._shows_widgets():
            print(NO_WIDGETS)
        elif args.panel or (self._auto_panel(source) and self.agent.panel is None and self._shows_widgets()):
            extra.append(self.agent.keep(self._panel(source).open()))
        elif self.agent.panel is not None:  # an open panel follows the turn that just started
            self._panel(source)
        view = self.agent.keep(_turn_view(source, title=f"codex · session {self.agent.current}", extra=extra))
        view.follow(running.task)
        if beat is not None:  # a finished turn's heartbeat must not follow the session's next turn
            running.task.add_done_callback(lambda _: beat.detach())
        display(view)

    def _goal(self, source: Any, objective: str, args: Any) -> None:
        """``%%codex --goal``: the cell's text as the real Codex thread's goal, its continuation
        turns followed in one view until the goal ends."""
        extra_flags = [
            f
            for f, given in (
                ("--cells", args.cells),
                ("--vars", args.vars),
                ("--option", args.option),
                ("--model", args.model),
            )
            if given
        ]
        if extra_flags or args.mode != "default":
            raise UsageError(
                f"--goal takes the objective only: drop {', '.join(extra_flags) or '--mode plan'} "
                f"(a goal's turns are Codex's own continuations)"
            )
        running = self.agent.start_goal(objective, budget=args.budget)
        if args.out is not None:
            self._user_ns[args.out] = running.task
        view = self.agent.keep(_turn_view(source, title=f"codex goal · session {self.agent.current}", extra=[]))
        view.follow(running.task)
        display(view)

    # -- %codex_attachments ----------------------------------------------------------
    @_arguments
    @argument("--clear", action="store_true", help="drop them (the next prompt goes without them)")
    @line_magic
    @_guarded
    def codex_attachments(self, args: Any, _cell: None) -> None:
        """List the cells Send to agent attached (the cell context menu or the command palette of
        JupyterLab / Notebook 7); the next %%codex prompt takes them, read as they are then."""
        if args.clear:
            dropped = self.agent.clear_attachments()
            print(f"dropped {dropped} attached cell{'' if dropped == 1 else 's'}" if dropped else "no cells attached")
            return
        if not self.agent.pending_cells:
            print(
                "no cells attached; select cells and choose Send to agent (cell context menu or command "
                "palette), or name them in %%codex --cells N,M-K"
            )
            return
        found = self.agent.peek_attachments()
        assert found is not None
        print(f"{self.agent.attached_line()} (the next %%codex prompt takes them):\n{found.summary()}")
        for note in found.notes:
            print(f"Note: {note}")

    # -- %codex_plan -----------------------------------------------------------------
    @_arguments
    @argument(
        "--panel",
        action="store_true",
        help="open it in JupyterLab's side area (it stays visible while you scroll and follows the "
        "session's turns); elsewhere it is shown in this cell",
    )
    @argument("--close", action="store_true", help="close the side panel")
    @_SESSION
    @_SOURCE
    @line_magic
    @_guarded
    def codex_plan(self, args: Any, _cell: None) -> None:
        """Show the live checklist and Stop control of the current session."""
        if args.close:
            if self.agent.panel is not None:
                self.agent.panel.close()
                self.agent.panel = None
            print("codex plan panel closed")
            return
        source = self._select(args)
        if args.panel and not self._shows_widgets():
            view = _turn_view(source, title=f"codex plan · session {self.agent.current}", turn=False)
            print(f"{NO_WIDGETS}\n{view.text()}")
            view.close()
            return
        if args.panel:
            display(self.agent.keep(self._panel(source).open()))
            return
        display(self.agent.keep(_turn_view(source, title=f"codex plan · session {self.agent.current}", turn=False)))

    # -- %codex_answers --------------------------------------------------------------
    @_arguments
    @_SESSION
    @_SOURCE
    @line_magic
    @_guarded
    def codex_answers(self, args: Any, _cell: None) -> None:
        """Show the current session's plan with Comment, Suggest a change and Approve/Revise/Reject
        controls. A turn an answer starts uses the default model (%codex_config --model NAME)."""
        source = self._select(args)
        model = (
            self.agent.model_for(None)
            if capabilities_of(source).needs_model and self.agent.settings.default_model
            else None
        )
        display(self.agent.keep(plan_answers_widget(source, model)))

    # -- %codex_stop -----------------------------------------------------------------
    @_arguments
    @_SESSION
    @_SOURCE
    @line_magic
    @_guarded
    def codex_stop(self, args: Any, _cell: None) -> None:
        """Interrupt the running turn of the current session (like its Stop button)."""
        source = self._select(args)
        if source.interrupt():
            print(f"stopping the turn on session {self.agent.current}")
        else:
            print(f"no turn is running on session {self.agent.current}")

    # -- %codex_config ---------------------------------------------------------------
    @_arguments
    @argument("path", nargs="?", help="a Codex config.toml to load (hooks in it run only once trusted)")
    @argument(
        "--codex-home",
        metavar="DIR",
        nargs="?",
        const="",
        help="load your Codex setup as Codex reads it: DIR (default $CODEX_HOME or ~/.codex) config.toml, "
        "the trusted project's .codex layers down to the working directory, then --profile and -c",
    )
    @argument("--profile", metavar="NAME", help="with --codex-home: layer <NAME>.config.toml on the user config")
    @argument(
        "-c",
        "--config",
        metavar="KEY=VALUE",
        action="append",
        dest="overrides",
        help="with --codex-home: a Codex -c override (dotted key, TOML value); repeatable",
    )
    @argument("--model", metavar="NAME", help="the variable %%codex uses when a cell gives no --model")
    @argument("--auto-panel", metavar="on|off", help="open the plan panel whenever a %%codex turn starts")
    @line_cell_magic
    @_guarded
    def codex_config(self, args: Any, cell: str | None) -> None:
        """Show the configuration, or load one: a config.toml path, or inline TOML as the cell body.

        Loading gives the current extension-owned session a fresh thread with that config
        (the old session is closed; a running turn must be stopped first).
        """
        if args.model is not None:
            self._model_variable(args.model)
            self.agent.model_for(args.model)  # fail now, not at the next turn
            self.agent.settings.default_model = args.model
        if args.auto_panel is not None:
            self.agent.settings.open_plan_panel = _on_off(args.auto_panel)
        home = args.codex_home is not None
        if sum((cell is not None, bool(args.path), home)) > 1:
            raise UsageError("give one of: a config.toml path, inline TOML in the cell body, or --codex-home")
        if not home and (args.profile is not None or args.overrides):
            raise UsageError("--profile and -c apply to --codex-home: add --codex-home (your ~/.codex by default)")
        if cell is not None:
            self.agent.replace_config(Config.from_toml(cell))
        elif args.path:
            self.agent.replace_config(_config_file(Path(args.path).expanduser()))
        elif home:
            loaded = Config.load(codex_home=args.codex_home or None, profile=args.profile, overrides=args.overrides)
            self.agent.replace_config(loaded)
        print(self._describe())

    def _describe(self) -> str:
        source = self.agent.source()
        lines = [
            f"session: {self.agent.current}"
            + ("" if self.agent.current in self.agent.sessions else f" ({type(source).__name__})")
        ]
        lines.append(f"default --model: {self._default_model()}")
        config = getattr(source, "config", None)
        if isinstance(config, Config):
            # the config's `model` is only the name hooks and tools are told, never what answers
            lines += [
                f"config model name: {config.model_slug} (what hooks and tools are told; the --model variable answers)",
                f"update_plan: {'on' if config.update_plan_enabled else 'off'}",
                f"hooks: {'on' if config.hooks_enabled else 'off'}",
                f"code mode: {'on' if config.code_mode.enabled else 'off'}",
                f"plan validation: {config.plan_validation}",
            ]
            if config.layers:  # Config.load: which files were read and where each setting came from
                lines.append(config.describe_origins())
        lines.append(f"auto plan panel: {'on' if self._auto_panel(source) else 'off'}")
        return "\n".join(lines)

    def _default_model(self) -> str:
        name = self.agent.settings.default_model
        if not capabilities_of(self.agent.source()).needs_model:
            return "(not used: this source brings its own model)"
        if not name:
            return "(none: each %%codex cell needs --model VAR, or set one with %codex_config --model VAR)"
        if name not in self._user_ns:
            return f"{name} (not defined yet: define it in a cell before running %%codex)"
        return f"{name} ({type(self._user_ns[name]).__name__})"

    # -- %codex_hooks ----------------------------------------------------------------
    @_arguments
    @argument("--load", metavar="PATH", help="load hooks from a hooks.json, a config.toml or a layer directory")
    @argument(
        "--trust",
        metavar="KEY",
        nargs="*",
        help="trust file hooks: the keys (or source paths) given, or all of them with no KEY",
    )
    @_SESSION
    @line_magic
    @_guarded
    def codex_hooks(self, args: Any, _cell: None) -> None:
        """List the current session's hooks and their trust state (load and trust them too)."""
        session = self._select(args)
        if not capabilities_of(session).hooks:
            raise UsageError(f"session {self.agent.current} ({type(session).__name__}) runs its hooks elsewhere")
        if args.load:
            session.hook_engine.add_config(_hooks_file(Path(args.load)))
        if args.trust is not None:
            try:
                session.trust_hooks(args.trust or None)
            except CodexNbError as err:  # its message points at the Python API
                raise UsageError(
                    re.sub(
                        r"; see session\.hooks\.hooks\(\)$",
                        "; %codex_hooks lists them (the key column; a source path trusts every hook of that file)",
                        str(err),
                    )
                ) from None
        hooks = session.hook_engine.hooks()
        if not hooks:
            print(f"no hooks on session {self.agent.current}")
            return
        # source: the config layer a hook came from, as Codex names it in a hook run's `source`
        # (system, user, project, session_flags), so a person sees which file to edit or trust.
        rows = [("event", "matcher", "type", "trust", "source", "key")]
        rows += [(h.event_name, h.matcher or "*", h.handler_type, h.status, h.source, h.key) for h in hooks]
        print(_table(rows))

    # -- %codex_tools ----------------------------------------------------------------
    @_arguments
    @argument("--mode", choices=("default", "plan"), default="default", help="collaboration mode to plan for")
    @_SESSION
    @line_magic
    @_guarded
    def codex_tools(self, args: Any, _cell: None) -> None:
        """The tool plan one sampling step of the current session would see, in model order."""
        session = self._select(args)
        if not capabilities_of(session).tool_plan:
            raise UsageError(f"session {self.agent.current} ({type(session).__name__}) plans its tools elsewhere")
        plan = session.tool_plan(mode=args.mode)
        rows = [("tool", "kind", "exposure")]
        for spec in plan.specs:
            for name, kind in _spec_rows(spec):
                exposure = plan.exposure(name)
                rows.append((name, kind, exposure.name if exposure is not None else "-"))
        print(f"tool plan (generation {plan.generation}, mode {args.mode}): {len(plan.tool_names)} tools")
        print(_table(rows))
        servers = getattr(session, "mcp_servers", None)
        if servers is not None:
            print(_mcp_status(servers))


def _mcp_status(servers: Any) -> str:
    """The session's MCP servers: each one's startup status, its tool count and, when down, why."""
    errors = servers.errors()
    rows = [("MCP server", "status", "tools", "reason")]
    for name, status in servers.status().items():
        connection = servers.connections.get(name)
        count = str(len(connection.tools)) if connection is not None else "0"
        reason = errors.get(name, "")
        rows.append((name, status, count, reason if len(reason) <= 200 else reason[:197] + "..."))
    return _table(rows)


def _spec_rows(spec: dict[str, Any]) -> list[tuple[str, str]]:
    if spec.get("type") == "namespace":
        return [(f"{spec['name']}.{t['name']}", t.get("type", "function")) for t in spec.get("tools", [])]
    return [(str(spec.get("name", spec.get("type"))), str(spec.get("type", "function")))]


def _table(rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def _config_file(path: Path) -> Config:
    """A config.toml on disk: its hooks come from a file, so they need the trust step."""
    config = Config.from_toml(read_text_file(path, what="config file"))
    hooks = config.extra.get("hooks", {})
    config.hooks = parse_hooks_table(hooks if isinstance(hooks, dict) else {}, source_path=str(path), from_file=True)
    return config


def _hooks_file(path: Path) -> HooksConfig:
    """Hooks from a hooks.json, a config.toml or a layer directory holding either or both (as
    ``Session.load_hooks`` reads them, through the bounded reader)."""
    path = path.expanduser().resolve()
    if not path.is_dir():  # a stat, no open: safe on a FIFO
        text = read_text_file(path, what="hooks file")
        if path.suffix == ".toml":
            return parse_hooks_toml(text, source_path=str(path), from_file=True)
        return parse_hooks_json(text, source_path=str(path))
    found = [p for p in (path / "hooks.json", path / "config.toml") if p.exists()]
    if not found:
        raise SourceError(
            f"the directory {path} holds no hooks.json or config.toml; give a hooks file or a Codex "
            f"config layer directory"
        )
    out = HooksConfig()
    for file in found:
        out = out.merged(_hooks_file(file))
    if len(found) == 2 and out.specs:
        out = out.merged(
            HooksConfig(
                warnings=(
                    f"loading hooks from both {found[0]} and {found[1]}; prefer a single representation for this layer",
                )
            )
        )
    return out


def plan_answers_widget(source: Any, model: Any) -> Any:
    """A ``PlanAnswersWidget`` on ``source`` (ipywidgets load with the first view)."""
    from ..widgets.plan_answers import PlanAnswersWidget

    return PlanAnswersWidget.of(source, model=model)


def heartbeat(source: Any) -> Any:
    """The turn's Heartbeat line (ipywidgets load with the first view)."""
    from ..widgets.heartbeat import Heartbeat

    return Heartbeat(source)


def attachments_view(found: Attachments) -> Any:
    """The turn's Attachments block (ipywidgets load with the first view)."""
    from .attachments_view import AttachmentsView

    return AttachmentsView(found)


def _turn_view(source: Any, *, title: str, turn: bool = True, extra: list[Any] | None = None) -> TurnView:
    """A ``TurnView``, imported here: ipywidgets and anywidget load with the first view, so
    ``%load_ext codex_nb`` does not pay for them."""
    from .turn_view import TurnView

    return TurnView(source, title=title, turn=turn, extra=extra)
