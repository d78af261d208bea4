"""``HookEngine``: the PreToolUse/PostToolUse engine behind ``ToolHooks``.

Matching synchronous hooks of one event run **concurrently**; their results are combined
**deterministically in configured order** (a documented deviation from Codex, where the
last hook to *finish* supplies ``updatedInput``):

* a block (deny) wins over allow/rewrite; the first blocking hook in configured order gives
  the reason;
* ``updatedInput`` comes from the LAST hook in configured order that returned one;
* PostToolUse feedback from several hooks is joined with a blank line (``"\\n\\n"``);
* ``additionalContext`` is collected in configured order, even when the call is blocked.

A failed hook (crash, timeout, bad output) is reported with status ``failed`` and fails
open, unless its ``on_error = "block"``: then it blocks the call, still reported as failed.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import HookError
from ..protocol.wire import well_formed
from ..tools.hook_points import HookRequest, PostToolUseOutcome, PreToolUseOutcome
from ..config.hooks import (
    DEFAULT_ADDITIONAL_CONTEXT_LIMIT,
    DEFAULT_OUTPUT_CAP,
    DEFAULT_TIMEOUT_SEC,
    CommandHandler,
    HooksConfig,
    HookSpec,
    OnError,
    PythonHandler,
    SkippedHandler,
    compile_matcher,
    load_hooks_path,
)
from ..config.hook_matchers import matcher_inputs
from .trust import TrustStatus, TrustStore

if TYPE_CHECKING:
    from .hook_events import HookRunSummary
    from .outputs import RawRun, RunResult
    from .runner import CommandShell, ProcessGroups
    from .types import PostToolUseInput, PreToolUseInput

# Hook inputs, output parsing, the runners and the hook events load when a hook first
# runs (the imports inside the methods below): a session without hooks, the common case,
# never pays for their classes.

MAX_ASYNC_HOOKS = 8
"""Async hook runs one engine (one session) has running at once; the others wait for a slot. The
pinned Codex runs 8 at once too (20 calls with an async PreToolUse hook: 8 programs, the other 12
after a slot frees)."""
_LABELS: dict[str, tuple[Literal["pre_tool_use", "post_tool_use"], str]] = {
    "PreToolUse": ("pre_tool_use", "pre-tool-use"),
    "PostToolUse": ("post_tool_use", "post-tool-use"),
}


@dataclass(frozen=True, kw_only=True)
class HookInfo:
    """One configured hook as ``HookEngine.hooks()`` lists it."""

    key: str
    event_name: str
    matcher: str | None
    handler_type: str
    status: TrustStatus
    trust_hash: str
    source: str = "session_flags"
    """Codex's hook ``source``: the config layer it came from (``user``, ``project``, ...)."""
    source_path: str = ""


@dataclass(kw_only=True)
class _Run:
    spec: HookSpec
    display_order: int
    result: RunResult
    started_at: int
    duration_ms: int


class HookEngine:
    """Owns one session's hooks: configuration, trust, running and combining."""

    def __init__(
        self,
        *,
        enabled: bool = True,
        env: Mapping[str, str] | None = None,
        config: HooksConfig | None = None,
        shell: CommandShell | None = None,
        bypass_trust: bool = False,
        output_cap: int = DEFAULT_OUTPUT_CAP,
        max_async: int = MAX_ASYNC_HOOKS,
    ) -> None:
        self.enabled = enabled
        self.env: dict[str, str] = dict(os.environ if env is None else env)
        """The session environment snapshot command hooks start from (the only variables they see)."""
        self.shell = shell
        self.bypass_trust = bypass_trust
        self.output_cap = output_cap
        self.warnings: list[str] = []
        self.async_runs: list[HookRunSummary] = []
        self._specs: list[HookSpec] = []
        self._trust = TrustStore()
        self._async_limit = asyncio.Semaphore(max_async)
        self._async_tasks: set[asyncio.Task[None]] = set()
        self._groups: ProcessGroups | None = None  # made with the first command run (lazy import)
        self.async_running = 0
        """Async hook runs holding one of the ``max_async`` slots right now."""
        self._pending_contexts: list[str] = []
        if config is not None:
            self.add_config(config)

    @classmethod
    def from_config(cls, config: Any, **options: Any) -> HookEngine:
        """The engine for a ``Config``: ``[features] hooks`` and its ``[hooks]`` tables."""
        return cls(enabled=config.hooks_enabled, config=config.hooks, **options)

    @property
    def specs(self) -> list[HookSpec]:
        """Every configured hook (file, config and Python ones), in configured order, the order
        their results combine in; a copy."""
        return list(self._specs)

    # -- configuration -------------------------------------------------------------------
    def add_config(self, config: HooksConfig) -> list[HookSpec]:
        """Add parsed hooks (and their ``[hooks.state]`` entries) after the existing ones."""
        keys = {s.key for s in self._specs}
        for spec in config.specs:
            if spec.key in keys:
                raise HookError(f"hook {spec.key} is already configured; load each hooks file once")
        self._specs.extend(config.specs)
        self._trust.update(config.state)
        self.warnings.extend(config.warnings)
        for spec in config.specs:
            if spec.event_name in _LABELS and self._trust.status(spec) in ("untrusted", "modified"):
                self.warnings.append(
                    f"hook {spec.key} is {self._trust.status(spec)}; it will not run until "
                    "trusted (session.trust_hooks())"
                )
        return list(config.specs)

    def load(self, path: str | Path) -> list[HookSpec]:
        """Load hooks from a hooks.json, a config.toml or a layer directory. They need trust."""
        return self.add_config(load_hooks_path(path))

    def add_python(
        self,
        event_name: str,
        fn: Callable[..., Any],
        *,
        matcher: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SEC,
        on_error: OnError = "allow",
        status_message: str | None = None,
        additional_context_limit: int = DEFAULT_ADDITIONAL_CONTEXT_LIMIT,
    ) -> HookSpec:
        """Register an in-process hook (trusted: it was passed in code).

        A hook is named by ``module.qualname``; registering the same name for the same event
        again replaces it (so re-running a notebook cell does not stack hooks); lambdas always add."""
        if event_name not in _LABELS:
            raise HookError(f"Python hooks support PreToolUse and PostToolUse, not {event_name!r}")
        if not callable(fn):
            raise HookError(f"a hook must be callable, got {type(fn).__name__}")
        if on_error not in ("allow", "block"):
            raise HookError(f'on_error must be "allow" or "block", got {on_error!r}')
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout != timeout:
            raise HookError(f"timeout must be a number of seconds (at least 1 is used), got {timeout!r:.100}")
        name = f"{getattr(fn, '__module__', None) or 'python'}.{getattr(fn, '__qualname__', type(fn).__name__)}"
        spec = HookSpec(
            event_name=event_name,
            matcher=compile_matcher(matcher, f"Python hook {name}"),
            handler=PythonHandler(
                fn=fn,
                name=name,
                timeout=max(1, timeout),
                on_error=on_error,
                status_message=status_message,
                additional_context_limit=additional_context_limit,
            ),
            source_path=f"python:{name}",
        )
        # Re-running a notebook cell re-defines the function: replace the hook in place.
        # Lambdas have no usable name, so each one is a new hook.
        same = [i for i, old in enumerate(self._specs) if old.key == spec.key]
        if same and name.endswith("<lambda>"):
            index = sum(1 for s in self._specs if s.source_path == spec.source_path)
            spec = dataclasses.replace(spec, group_index=index)
        elif same:
            self._specs[same[0]] = spec
            return spec
        self._specs.append(spec)
        return spec

    def remove(self, spec: HookSpec) -> None:
        """Stop using the hook ``spec`` (as ``add_python``, ``load`` or ``specs`` gave it); its trust
        entry stays. Raises ``ValueError`` if it is not configured."""
        self._specs.remove(spec)

    # -- trust ---------------------------------------------------------------------------
    def hooks(self) -> list[HookInfo]:
        """Every configured hook with its trust status, in configured order."""
        return [
            HookInfo(
                key=s.key,
                event_name=s.event_name,
                matcher=s.matcher.pattern,
                handler_type=s.handler.handler_type,
                status=self._trust.status(s),
                trust_hash=s.trust_hash,
                source=s.source,
                source_path=s.source_path,
            )
            for s in self._specs
        ]

    def trust(self, keys: str | Iterable[str] | None = None) -> dict[str, str]:
        """Trust file hooks (all untrusted/modified ones, or those ``keys`` / a source path names).

        Returns ``{key: trusted_hash}``; ``trust_toml()`` renders the same as config entries."""
        wanted = None if keys is None else ({keys} if isinstance(keys, str) else set(keys))
        chosen = [
            s for s in self._specs if s.needs_trust and (wanted is None or s.key in wanted or s.source_path in wanted)
        ]
        if wanted is not None:
            found = {s.key for s in chosen} | {s.source_path for s in chosen}
            missing = sorted(wanted - found)
            if missing:
                raise HookError(f"no file hook with key or source path {missing[0]!r}; see session.hooks.hooks()")
        return {s.key: self._trust.trust(s) for s in chosen}

    def untrust(self, keys: str | Iterable[str]) -> None:
        """Withdraw the trust of the file hooks ``keys`` names, so they stop running until trusted
        again (``trust()``); a key with no trust recorded is left as it is."""
        for key in [keys] if isinstance(keys, str) else keys:
            self._trust.untrust(key)

    def trust_toml(self) -> str:
        """``[hooks.state."<key>"] trusted_hash = ...`` for every trusted file hook."""
        return self._trust.to_toml(s for s in self._specs if self._trust.status(s) == "trusted")

    # -- ToolHooks -----------------------------------------------------------------------
    @property
    def idle(self) -> bool:
        """Nothing can change a call: no hooks configured and no async-hook context waiting."""
        return not self._specs and not self._pending_contexts

    async def pre_tool_use(self, request: HookRequest) -> PreToolUseOutcome:
        """Run the matching trusted PreToolUse hooks concurrently and combine their results as the
        module says: a block wins (the first in configured order gives the reason), else the last
        ``updatedInput`` rewrites the call; contexts are collected either way. With hooks disabled or
        none matching, the call continues."""
        if self.idle:
            return PreToolUseOutcome()
        runs = await self._run_event("PreToolUse", request)
        outcome = PreToolUseOutcome(additional_contexts=self._take_async_contexts())
        for run in runs:
            outcome.additional_contexts.extend(self._contexts(run))
        reason = next((r for run in runs if (r := _blocking_reason(run)) is not None), None)
        if reason is not None:
            outcome.action, outcome.reason = "block", reason
            return outcome
        rewrites = [run.result.updated_input for run in runs if run.result.updated_input is not None]
        if rewrites:
            outcome.action, outcome.updated_input = "rewrite", rewrites[-1]
        return outcome

    async def post_tool_use(self, request: HookRequest) -> PostToolUseOutcome:
        """Run the matching trusted PostToolUse hooks concurrently and combine their results: their
        feedback, joined with a blank line, replaces the tool's output (``block_reason``), or only its
        text when a hook stopped (``continue: false``, ``feedback``); contexts are collected either way."""
        if self.idle:
            return PostToolUseOutcome()
        runs = await self._run_event("PostToolUse", request)
        outcome = PostToolUseOutcome(additional_contexts=self._take_async_contexts())
        feedback: list[str] = []
        for run in runs:
            outcome.additional_contexts.extend(self._contexts(run))
            feedback.extend(run.result.feedback)
            if (reason := _on_error_reason(run)) is not None:
                feedback.append(reason)
        if feedback:
            joined = "\n\n".join(feedback)
            if any(run.result.should_stop for run in runs):
                outcome.feedback = joined
            else:
                outcome.block_reason = joined
        return outcome

    # -- running -------------------------------------------------------------------------
    def _select(self, event_name: str, request: HookRequest) -> list[tuple[int, HookSpec]]:
        names = matcher_inputs(request.tool_name, request.aliases)
        return [
            (i, s)
            for i, s in enumerate(self._specs)
            if s.event_name == event_name
            and not isinstance(s.handler, SkippedHandler)
            and (self.bypass_trust or self._trust.runnable(s))
            and s.matcher.matches(names)
        ]

    async def _run_event(self, event_name: str, request: HookRequest) -> list[_Run]:
        if not self.enabled:
            return []
        matched = self._select(event_name, request)
        if not matched:
            return []
        hook_input = self._input(event_name, request)
        for order, spec in matched:
            if spec.handler.is_async:
                self._spawn_async(order, spec, hook_input, request.tool_use_id)
        sync = [(order, spec) for order, spec in matched if not spec.handler.is_async]
        from .hook_events import HookCompleted, HookStarted
        from .outputs import RunResult

        now = int(time.time())
        for order, spec in sync:
            run = _Run(
                spec=spec, display_order=order, result=RunResult(status="running"), started_at=now, duration_ms=0
            )
            await request.emit(
                HookStarted(turn_id=request.turn_id, run=self._summary(run, request.tool_use_id, done=False))
            )
        runs = list(await asyncio.gather(*(self._run_one(o, s, hook_input) for o, s in sync)))
        for run in runs:
            await request.emit(HookCompleted(turn_id=request.turn_id, run=self._summary(run, request.tool_use_id)))
        return runs

    async def _run_one(
        self, order: int, spec: HookSpec, hook_input: PreToolUseInput | PostToolUseInput, *, synchronous: bool = True
    ) -> _Run:
        from .outputs import parse_post, parse_pre

        started_at, t0 = int(time.time()), time.monotonic()
        raw = await self._execute(spec, hook_input)
        parse = parse_pre if spec.event_name == "PreToolUse" else parse_post
        result = parse(raw, synchronous=synchronous)
        return _Run(
            spec=spec,
            display_order=order,
            result=result,
            started_at=started_at,
            duration_ms=int((time.monotonic() - t0) * 1000),
        )

    async def _execute(self, spec: HookSpec, hook_input: PreToolUseInput | PostToolUseInput) -> RawRun:
        handler = spec.handler
        if isinstance(handler, PythonHandler):
            from .python import run_python

            return await run_python(handler, copy.deepcopy(hook_input))
        assert isinstance(handler, CommandHandler)
        from .runner import ProcessGroups, run_command

        if self._groups is None:
            self._groups = ProcessGroups()
        stdin_json = json.dumps(
            hook_input.to_json(), ensure_ascii=False, separators=(",", ":")
        )  # serde_json::to_string
        return await run_command(
            handler.command,
            stdin_json=well_formed(stdin_json),
            cwd=hook_input.cwd,
            env=self.env,
            timeout=handler.timeout,
            shell=self.shell,
            output_cap=self.output_cap,
            groups=self._groups,
        )

    def _input(self, event_name: str, request: HookRequest) -> PreToolUseInput | PostToolUseInput:
        from .types import PostToolUseInput, PreToolUseInput

        approval = request.approval_policy
        fields = dict(
            session_id=request.thread_id,
            turn_id=request.turn_id,
            transcript_path=None,
            cwd=str(request.cwd),
            model=request.model,
            permission_mode="bypassPermissions" if approval == "never" else "default",
            tool_name=request.tool_name,
            tool_input=request.tool_input,
            tool_use_id=request.tool_use_id,
        )
        if event_name == "PreToolUse":
            return PreToolUseInput(**fields)
        return PostToolUseInput(tool_response=request.tool_response, **fields)

    def _summary(
        self, run: _Run, tool_use_id: str, *, done: bool = True, mode: Literal["sync", "async"] = "sync"
    ) -> HookRunSummary:
        from .hook_events import HookRunSummary

        spec = run.spec
        handler = spec.handler
        assert not isinstance(handler, SkippedHandler)  # _select never runs a skipped handler
        snake, dashed = _LABELS[spec.event_name]
        return HookRunSummary(
            id=f"{dashed}:{run.display_order}:{spec.source_path}:{tool_use_id}",
            event_name=snake,
            handler_type=handler.handler_type,
            execution_mode=mode,
            source_path=spec.source_path,
            source=spec.source,
            display_order=run.display_order,
            status=run.result.status,
            status_message=getattr(spec.handler, "status_message", None),
            started_at=run.started_at,
            completed_at=run.started_at + math.ceil(run.duration_ms / 1000) if done else None,
            duration_ms=run.duration_ms if done else None,
            entries=list(run.result.entries) if done else [],
        )

    def _contexts(self, run: _Run) -> list[str]:
        limit = getattr(run.spec.handler, "additional_context_limit", DEFAULT_ADDITIONAL_CONTEXT_LIMIT)
        return [limit_context(text, limit) for text in run.result.additional_contexts]

    # -- async hooks ---------------------------------------------------------------------
    def _spawn_async(
        self, order: int, spec: HookSpec, hook_input: PreToolUseInput | PostToolUseInput, tool_use_id: str
    ) -> None:
        task = asyncio.get_running_loop().create_task(self._run_async(order, spec, hook_input, tool_use_id))
        self._async_tasks.add(task)
        task.add_done_callback(self._async_tasks.discard)

    async def _run_async(
        self, order: int, spec: HookSpec, hook_input: PreToolUseInput | PostToolUseInput, tool_use_id: str
    ) -> None:
        async with self._async_limit:
            self.async_running += 1
            try:
                run = await self._run_one(order, spec, hook_input, synchronous=False)
            finally:
                self.async_running -= 1
        res = run.result
        if res.status in ("blocked", "stopped") or res.updated_input is not None or res.feedback:
            from .hook_events import HookOutputEntry

            res.entries.append(HookOutputEntry(kind="warning", text="async hooks cannot block or rewrite; ignored"))
            res.status, res.updated_input, res.feedback = "completed", None, []
        self._pending_contexts.extend(self._contexts(run))
        self.async_runs.append(self._summary(run, tool_use_id, mode="async"))

    @property
    def async_queued(self) -> int:
        """Async hook runs waiting for a free slot (at most ``max_async`` run at once)."""
        return len(self._async_tasks) - self.async_running

    def _take_async_contexts(self) -> list[str]:
        out, self._pending_contexts = self._pending_contexts, []
        return out

    async def wait_async(self) -> None:
        """Wait for the background (async) hooks started so far."""
        while self._async_tasks:
            await asyncio.gather(*list(self._async_tasks), return_exceptions=True)

    async def aclose(self) -> None:
        """End every command hook this engine started: kill each process group still running
        (a run whose turn is still unwinding included) and cancel the background hooks. Hooks
        run again afterwards."""
        if self._groups is not None:
            self._groups.close()
        for task in list(self._async_tasks):
            task.cancel()
        await asyncio.gather(*list(self._async_tasks), return_exceptions=True)


def _on_error_reason(run: _Run) -> str | None:
    policy = getattr(run.spec.handler, "on_error", "allow")
    error = run.result.error
    return f"{error} (on_error = block)" if policy == "block" and error is not None else None


def _blocking_reason(run: _Run) -> str | None:
    return run.result.block_reason if run.result.block_reason is not None else _on_error_reason(run)


def limit_context(text: str, limit: int) -> str:
    """Contexts over ``limit`` tokens (~4 bytes each; 0 = no limit) go to a file; a preview stays."""
    if limit <= 0 or math.ceil(len(text.encode()) / 4) <= limit:
        return text
    import tempfile  # rare: only oversized contexts spill

    fd, path = tempfile.mkstemp(prefix="codex_nb_hook_context_", suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    preview = text[: limit * 2]
    return f"{preview}\n\n[additionalContext exceeded {limit} tokens; the full text was written to {path}]"
