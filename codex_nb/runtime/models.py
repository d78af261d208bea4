"""``ScriptedModel``: the strict fake model, the only one we ship (the protocol is ``protocol.model``).

It replays scripted responses to the turn loop's ``ModelRequest`` s and fails loudly
when over- or under-used, so a test or notebook sees its script go wrong at once.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
import math
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, TypeGuard

from ..errors import ScriptedModelError
from ..protocol.model import Item, Model, ModelRequest


Step = Sequence[Item] | Callable[[ModelRequest], Sequence[Item] | Awaitable[Sequence[Item]]]


__all__ = ["Model", "ModelRequest", "ScriptedModel"]


@dataclass
class ScriptedModel:
    """Replays scripted responses; fails loudly when over- or under-used.

    Each entry is one model response: a list of items, or a callable taking the
    ``ModelRequest`` (sync or async) and returning that list. Over-use raises
    ``ScriptedModelError`` (the turn fails with a clear error). Under-use is caught
    when a turn completes with responses left, unless ``allow_leftover=True`` (for
    a script spread across several turns; call ``assert_exhausted()`` at the end).

    ``record_requests=True`` keeps a copy of every request (its items as they were when
    it was sent) in ``requests``, for tests and notebooks that inspect what the model saw.
    Off by default: a copy per step is the whole history per step.

    ``pace=0.8`` waits that many seconds before each response, as a real model takes time to
    answer, so a notebook shows its turn live (the checklist moving, Stop enabled) instead of
    finishing at once. The wait is an ``asyncio.sleep``: Stop cancels it, and a response
    whose wait was cancelled stays unused. Off (0) by default.

    ```pycon
    >>> import asyncio, codex_nb as cx
    >>> model = cx.ScriptedModel([[cx.assistant_message("hello")]])
    >>> result = asyncio.run(cx.Session().run_turn("hi", model=model))
    >>> result.last_agent_message, model.remaining
    ('hello', 0)

    ```
    """

    responses: list[Step]
    _: KW_ONLY
    allow_leftover: bool = False
    record_requests: bool = False
    usage: Sequence[dict[str, int] | None] | None = None
    """Scripted token usage per response (Responses API ``usage`` dicts, e.g. ``{"total_tokens": 1200}``);
    after each response ``last_usage`` holds its entry, which ``get_context_remaining`` counts."""
    last_usage: dict[str, int] | None = None
    pace: float = 0.0
    """Seconds to wait before each response (0: answer at once)."""
    _requests: list[ModelRequest] = field(default_factory=list, init=False, repr=False)
    _used: int = field(default=0, init=False, repr=False)

    @property
    def requests(self) -> list[ModelRequest]:
        """Every request this model was sent, oldest first (needs ``record_requests=True``)."""
        if not self.record_requests:
            raise ScriptedModelError(
                "this ScriptedModel does not keep its requests; create it with "
                "ScriptedModel(responses, record_requests=True) to inspect them"
            )
        return self._requests

    def __post_init__(self) -> None:
        if isinstance(self.responses, (str, bytes)) or not isinstance(self.responses, Sequence):
            raise ScriptedModelError("ScriptedModel takes a list of responses, each a list of items")
        for index, step in enumerate(self.responses):
            if not callable(step) and not _is_item_list(step):
                raise ScriptedModelError(
                    f"response {index} must be a list of items (e.g. [cx.function_call(...)]) or a callable; "
                    f"got {type(step).__name__}. Wrap a single item in a list."
                )
        self.responses = list(self.responses)
        if isinstance(self.pace, bool) or not isinstance(self.pace, (int, float)) or not 0 <= self.pace < math.inf:
            raise ScriptedModelError(f"pace must be a number of seconds >= 0 (e.g. pace=0.8); got {self.pace!r}")

    @property
    def remaining(self) -> int:
        """How many scripted responses no request has used yet."""
        return len(self.responses) - self._used

    async def sample(self, request: ModelRequest) -> list[Item]:
        """The next scripted response; asking for more than were scripted raises ``ScriptedModelError``."""
        if self.pace and self._used < len(self.responses):
            await asyncio.sleep(self.pace)  # before taking the response: a Stop here leaves it unused
        index = self._used
        if index >= len(self.responses):
            raise ScriptedModelError(
                f"ScriptedModel was asked for response {index + 1} but only {len(self.responses)} were "
                f"scripted; add a final [cx.assistant_message(...)] response so the turn can end"
            )
        self._used += 1
        if self.record_requests:
            self._requests.append(dataclasses.replace(request, items=list(request.items)))
        self.last_usage = self.usage[index] if self.usage is not None and index < len(self.usage) else None
        step = self.responses[index]
        items: object = step
        if callable(step):
            items = step(request)
            if inspect.isawaitable(items):  # only a callable step can return an awaitable
                items = await items
        # No yield of its own: the turn lets the loop turn once per step after sampling.
        if not _is_item_list(items):
            raise ScriptedModelError(f"scripted response {index} returned {type(items).__name__}, not a list of items")
        return [_fresh(item) for item in items]

    def check_turn_end(self) -> None:
        """Called when a turn ends: unused responses are an error unless ``allow_leftover=True``."""
        if not self.allow_leftover and self.remaining > 0:
            raise ScriptedModelError(
                f"the turn ended but {self.remaining} scripted response(s) were never used; remove them, or "
                f"pass allow_leftover=True to spread the script over several turns"
            )

    def assert_exhausted(self) -> None:
        """Raise ``ScriptedModelError`` if any scripted response was never used (for tests)."""
        if self.remaining:
            raise ScriptedModelError(f"{self.remaining} scripted response(s) were never used")


_ATOMS = (str, int, float, bool, type(None))


def _fresh(value: Any) -> Any:
    """A copy of a scripted item, so the turn never shares (and mutates) the script's own dicts.

    JSON-shaped values are copied by hand (several times cheaper than ``copy.deepcopy``,
    which ran for every item of every step); anything else still gets ``deepcopy``. A dict is
    copied whole first and only its containers are copied again: most values of an item
    (type, name, arguments, call_id) are strings.
    """
    kind = type(value)
    if kind is dict:
        copied = value.copy()
        for key, item in value.items():
            if type(item) not in _ATOMS:
                copied[key] = _fresh(item)
        return copied
    if kind is list:
        return [item if type(item) in _ATOMS else _fresh(item) for item in value]
    if kind in _ATOMS:
        return value
    return copy.deepcopy(value)


def _is_item_list(value: object) -> TypeGuard[Sequence[Item]]:
    if not isinstance(value, (list, tuple)):
        return False
    for item in value:  # a plain loop: this runs on every scripted step
        if not isinstance(item, dict) or "type" not in item:
            return False
    return True
