"""The hook part of ``Session``'s API, kept here so session.py only mixes it in.

@session.pre_tool_use(matcher="update_plan")       # or post_tool_use; sync or async
def guard(hook_input: PreToolUseInput): ...

session.load_hooks("~/.codex/hooks.json")          # file hooks: untrusted until...
session.trust_hooks()                              # ...trusted (returns {key: hash})
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypedDict, TypeVar, Unpack

from ..errors import HookError
from ..config.hooks import OnError
from .engine import HookEngine, HookInfo

F = TypeVar("F", bound=Callable[..., Any])


class HookOptions(TypedDict, total=False):
    """A notebook hook's options, each optional (defaults: every tool, 600 s, ``"allow"``, none)."""

    matcher: str | None  # a tool-name regex, as in hooks.json; None matches every tool
    timeout: float  # seconds before the hook is abandoned
    on_error: OnError  # what a hook that raises or times out means: "allow" or "block"
    status_message: str | None  # shown while the hook runs


class SessionHooksMixin:
    """Adds notebook hooks, file hooks and the trust step to ``Session``."""

    hooks: Any

    @property
    def hook_engine(self) -> HookEngine:
        """The session's built-in ``HookEngine`` (``session.hooks``), for what the shortcuts here do
        not cover (``specs``, ``remove``, ``untrust``...). Raises ``HookError`` when the session was
        made with another ``hooks=`` object."""
        if not isinstance(self.hooks, HookEngine):
            raise HookError(
                f"this session was created with hooks={type(self.hooks).__name__}; notebook hooks "
                "and trust need the built-in engine (create the Session without hooks=...)"
            )
        return self.hooks

    def pre_tool_use(self, fn: F | None = None, /, **options: Unpack[HookOptions]) -> Any:
        """Decorator: register a PreToolUse hook (``@session.pre_tool_use`` or with options).

        Options (``HookOptions``, all optional): ``matcher`` (a tool-name regex; default every
        tool), ``timeout`` (seconds, default 600), ``on_error`` (``"allow"`` or ``"block"``: what a
        hook that raises or times out means), ``status_message`` (shown while it runs).
        The hook gets a ``PreToolUseInput`` and returns None, ``Block``, ``Rewrite``,
        ``AddContext`` or the dict a command hook would print. Re-registering a function
        of the same name replaces the earlier hook."""
        return self._hook_decorator("PreToolUse", fn, options)

    def post_tool_use(self, fn: F | None = None, /, **options: Unpack[HookOptions]) -> Any:
        """Decorator: register a PostToolUse hook (gets ``PostToolUseInput``; may ``Block``/``Stop``).

        Takes the options of ``pre_tool_use``."""
        return self._hook_decorator("PostToolUse", fn, options)

    def _hook_decorator(self, event: str, fn: F | None, options: HookOptions) -> Any:
        name = f"@session.{'pre' if event == 'PreToolUse' else 'post'}_tool_use"
        if fn is not None and not callable(fn):
            raise HookError(f"{name} takes a function; pass options by keyword, e.g. matcher={fn!r}")
        if unknown := sorted(set(options) - set(HookOptions.__annotations__)):
            raise HookError(f"{name} got unknown option(s) {unknown}; it takes {list(HookOptions.__annotations__)}")

        def register(func: F) -> F:
            self.hook_engine.add_python(event, func, **options)
            return func

        return register(fn) if fn is not None else register

    def remove_hook(self, fn: Callable[..., Any]) -> None:
        """Remove every Python hook registered for ``fn``."""
        engine = self.hook_engine
        for spec in [s for s in engine.specs if getattr(s.handler, "fn", None) is fn]:
            engine.remove(spec)

    def load_hooks(self, path: str | Path) -> list[HookInfo]:
        """Load hooks from a hooks.json, a config.toml or a layer directory. They run only once
        trusted: call ``trust_hooks()`` or record ``[hooks.state."<key>"] trusted_hash`` in config."""
        specs = self.hook_engine.load(path)
        keys = {s.key for s in specs}
        return [h for h in self.hook_engine.hooks() if h.key in keys]

    def trust_hooks(self, keys: str | Iterable[str] | None = None) -> dict[str, str]:
        """Trust file hooks (all of them, or those named by key or source path); returns ``{key: hash}``."""
        return self.hook_engine.trust(keys)
