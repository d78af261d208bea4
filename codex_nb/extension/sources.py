"""Where a ``%%codex`` cell gets its model and the thing that runs its turn.

A cell names Python objects from the user namespace (``--model NAME``, ``--source NAME``);
this module turns such an object into what the turn needs. It is a small registry of
adapters, tried in order, so a source built elsewhere (a Responses-API model, a real Codex
app-server thread, an ACP agent) plugs in by registering one adapter -- or needs none at
all when it already has the shape below:

* a **model** is anything with an async ``sample(request)`` (``cx.ScriptedModel``,
  ``cx.ResponsesModel``...). A plain list of scripted responses becomes a *fresh*
  ``cx.ScriptedModel`` on every run, so re-running a cell replays its script; a
  zero-argument factory is called once per run.
* a **turn source** is a ``cx.AgentSource`` whose ``capabilities`` say it runs turns:
  ``start_turn(text, ...)`` returns an awaitable handle. ``cx.Session`` is one (its
  ``capabilities.needs_model`` is True: a cell names its model); a real Codex thread or an ACP
  session brings its own model.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeGuard

from ..protocol.capabilities import AgentSource, capabilities_of
from ..runtime.models import ScriptedModel


class SourceError(ValueError):
    """A ``--model`` / ``--source`` value cannot be used; the message names the fix."""


@dataclass(frozen=True, kw_only=True)
class Adapter:
    """One rule: ``accepts(value)`` decides, ``adapt(value)`` converts."""

    name: str
    accepts: Callable[[object], bool]
    adapt: Callable[[object], Any]


def _is_model(value: object) -> bool:
    return callable(getattr(value, "sample", None))


def _is_script(value: object) -> bool:
    return (
        isinstance(value, Sequence)
        and not isinstance(value, (str, bytes))
        and all(callable(step) or isinstance(step, (list, tuple)) for step in value)
    )


def _is_factory(value: object) -> TypeGuard[Callable[[], object]]:
    return callable(value) and not isinstance(value, type) and not _is_model(value)


def is_turn_source(value: object) -> bool:
    """A source that runs turns: its ``capabilities`` (``cx.Capabilities``) say ``runs_turns``."""
    return isinstance(value, AgentSource) and capabilities_of(value).runs_turns


def turn_task(handle: object) -> asyncio.Future[Any]:
    """An asyncio future that ends with the turn: ``handle.task``, the handle itself, or a task
    awaiting it (a source's handle only has to be awaitable)."""
    task = getattr(handle, "task", None)
    if isinstance(task, asyncio.Future):
        return task
    if isinstance(handle, asyncio.Future):
        return handle
    if not inspect.isawaitable(handle):
        raise SourceError(
            f"start_turn() returned {type(handle).__name__}, which cannot be awaited; a turn "
            f"source must return an awaitable turn handle"
        )

    async def wait() -> Any:
        return await handle

    return asyncio.ensure_future(wait())


MODEL_KINDS = (
    "a model (e.g. cx.ScriptedModel([...]) or cx.ResponsesModel(...)), a list of scripted "
    "responses, or a zero-argument function returning a model"
)


def _scripted(value: object) -> ScriptedModel:
    assert isinstance(value, Sequence)  # only what _is_script accepted comes here
    return ScriptedModel(list(value))


class SourceRegistry:
    """Adapters for ``--model`` and ``--source`` values, tried newest first.

    ``register_model`` / ``register_source`` add a rule for a type this module does not
    know; the built-in rules cover anything already shaped like a model or a turn source.
    """

    def __init__(self) -> None:
        self._models: list[Adapter] = [
            Adapter(name="model", accepts=_is_model, adapt=lambda value: value),
            Adapter(name="scripted responses", accepts=_is_script, adapt=_scripted),
        ]
        self._sources: list[Adapter] = [Adapter(name="turn source", accepts=is_turn_source, adapt=lambda v: v)]

    def register_model(self, name: str, *, accepts: Callable[[object], bool], adapt: Callable[[object], Any]) -> None:
        """Teach ``--model`` a new kind of value: for a value ``accepts`` says yes to, ``adapt``
        returns the model to sample. Tried before the rules already registered; ``name`` names the rule."""
        self._models.insert(0, Adapter(name=name, accepts=accepts, adapt=adapt))

    def register_source(self, name: str, *, accepts: Callable[[object], bool], adapt: Callable[[object], Any]) -> None:
        """Teach ``--source`` a new kind of value: for a value ``accepts`` says yes to, ``adapt``
        returns a turn source (see the module). Tried before the rules already registered."""
        self._sources.insert(0, Adapter(name=name, accepts=accepts, adapt=adapt))

    def model(self, value: object, *, label: str) -> Any:
        """The model for one run, from the object the user named ``label``."""
        for adapter in self._models:
            if adapter.accepts(value):
                return adapter.adapt(value)
        if _is_factory(value):
            made = value()
            for adapter in self._models:
                if adapter.accepts(made):
                    return adapter.adapt(made)
            raise SourceError(
                f"--model {label}: calling it returned {type(made).__name__}, not a model; it must return {MODEL_KINDS}"
            )
        raise SourceError(f"--model {label}: {type(value).__name__} is not a model; use {MODEL_KINDS}")

    def source(self, value: object, *, label: str) -> Any:
        """The turn source the user named ``label`` (a ``cx.Session``, a Codex thread...)."""
        for adapter in self._sources:
            if adapter.accepts(value):
                return adapter.adapt(value)
        raise SourceError(
            f"--source {label}: {type(value).__name__} cannot run turns; use a cx.Session, a Codex thread, "
            f"an ACP session, or another cx.AgentSource whose capabilities say runs_turns"
        )
