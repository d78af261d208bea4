"""What a model is to the turn loop: ``ModelRequest`` in, the output items of one response out.

Every model provider implements ``Model`` (``codex_nb.responses`` holds the real one;
``runtime.models.ScriptedModel`` is the strict fake). A request carries the repaired
history, the step's tool specs and the tool generation they come from.
"""

from __future__ import annotations

from typing import Any, Protocol

from .._records import record

Item = dict[str, Any]


def spec_tool_names(specs: list[dict[str, Any]]) -> list[str]:
    """Model-visible tool names in order; tools inside a namespace spec as ``ns.name``."""
    names: list[str] = []
    for spec in specs:
        if spec.get("type") == "namespace":
            names.extend(f"{spec['name']}.{t['name']}" for t in spec["tools"])
        else:
            names.append(spec.get("name", spec.get("type", "")))
    return names


@record(frozen=True, kw_only=True)
class ModelRequest:
    """One sampling request, as the model would see it."""

    turn_id: str
    items: list[Item]
    """The conversation as of this request. Read it while sampling and do not change it: when
    the history needed no repair this IS the session's live history (no per-step copy), which
    grows after the request; a model that keeps requests copies what it needs (see
    ``ScriptedModel(record_requests=True)``)."""
    tools: list[dict[str, Any]]
    tool_generation: int
    mode: str = "default"
    parallel_tool_calls: bool = True
    thread_id: str = ""
    """The session's thread id (a real provider sends it as ``prompt_cache_key``, as Codex does)."""

    def outputs(self) -> dict[str, Any]:
        """``call_id -> output`` for every output item in the request (handy in tests)."""
        return {i["call_id"]: i.get("output") for i in self.items if i.get("type", "").endswith("_output")}

    @property
    def tool_names(self) -> list[str]:
        """The model-visible tool names of ``tools``, in order; a tool inside a namespace spec as
        ``namespace.name``. Handy in a test of which tools a step offered."""
        return spec_tool_names(self.tools)


class Model(Protocol):
    """Anything the turn loop can sample: one call per step, the response's output items back.

    A model may also offer ``stream(request) -> AsyncIterator[ModelStreamEvent]``
    (``codex_nb.protocol.model_stream``); the turn loop then prefers it: items become calls
    as they complete and the events it yields are published as they arrive.
    """

    async def sample(self, request: ModelRequest) -> list[Item]:
        """One response to ``request``: its output items (Responses API ``message``,
        ``function_call``, ``custom_tool_call``, ... dicts), in order. No call item ends the turn.
        Raising ``ModelError`` fails the turn with its message; the turn loop cancels a pending
        call when the turn is stopped."""
        ...
