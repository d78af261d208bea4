"""The call path's fast paths: every place codex_nb reaches past a library's public API.

Each tool call writes JSON, builds events and a routed call; three of those steps take a cheaper
way than the public one, which depends on another library's internals (CPython's ``_json``
encoder, pydantic's model slots, a frozen dataclass's slot descriptors). They live here, so an
upgrade that breaks one breaks it in one place. Each is one small function whose comment gives
its gain over the public way, as ``tests/benchmarks/bench_fast_paths.py`` measures it (time
ratios, fast / public, of one run on the 2-core development machine at load average 18,
2026-12-01), and ``tests/unit/protocol/test_fast_paths.py`` holds each equal to the public way on generated
inputs.

A fast path whose gain is gone (under about 10%, or too small to show where it is used) is
deleted and its callers use the public way. So a loop turn is ``asyncio.sleep(0)``: awaiting a
bare-yield ``types.coroutine`` instead measured 0.84-0.92x of it per await over six runs, about
0.4 us of a loop turn that costs the same either way, under 1% of a turn's step and invisible in
the dispatch benchmark; and the duplicate-key proof reads a model's ``model_fields_set``, not its
slot (a few ns of a parse of microseconds).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel

from .plan import PlanItemArg, StepStatus

if TYPE_CHECKING:
    from _json import make_encoder

M = TypeVar("M", bound=BaseModel)

# Measured: 0.60x the time of json.dumps(value, separators=(",", ":"), ensure_ascii=False) and
# 0.79x that of a JSONEncoder built once, for a 3-step plan's arguments.
# JSONEncoder.encode builds a new C encoder for every call; this one is built once. Without a
# markers dict it shares no state between threads and keeps no stale marks after an error, but
# it does not detect cycles either: every failure (a cycle ends in RecursionError) returns None,
# and the caller retries the public way, which raises its usual, clear error. The options match
# json.dumps(separators=(",", ":"), ensure_ascii=False): encode_basestring keeps non-ASCII raw,
# allow_nan writes NaN/Infinity. c_make_encoder is None where the _json accelerator is missing,
# and typeshed does not declare it, hence getattr.
_C_MAKE_ENCODER: type[make_encoder] | None = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODER = (
    None
    if _C_MAKE_ENCODER is None
    else _C_MAKE_ENCODER(
        None, json.JSONEncoder().default, json.encoder.encode_basestring, None, ":", ",", False, False, True
    )
)


def compact_json(value: Any) -> str | None:
    """``value`` as compact JSON with non-ASCII kept raw, or None: then the caller encodes it
    the public way (not a dict or list, no C accelerator, or the encoder raised)."""
    if _C_ENCODER is None or type(value) not in (dict, list):
        return None
    try:
        return "".join(_C_ENCODER(value, 0))
    except Exception:
        return None


# Measured: 0.61x the time of cls(**values) and 0.29x that of cls.model_construct(...) for a
# plan_update event from parsed arguments, 0.48x and 0.25x for the bus's Event envelope; an event
# is built twice per call (its message and its envelope). These are the four slots BaseModel declares; pydantic's own model_construct fills
# them too, after a pass over every field for defaults and aliases that typed values do not need.
_new = object.__new__
_SET_DICT, _SET_FIELDS_SET, _SET_EXTRA, _SET_PRIVATE = (
    vars(BaseModel)[name].__set__
    for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")
)


def trusted_model(cls: type[M], values: dict[str, Any], fields_set: AbstractSet[str] | None = None) -> M:
    """``cls`` holding ``values`` as they are, without validating them again.

    Only for values that already have their fields' types, because they come from a validated
    model or from our own code (a plan event built from parsed arguments, the bus's envelope):
    then this is what ``cls(**values)`` builds. ``values`` must name every field, in declaration
    order, with no aliases; ``cls`` must have no private attributes, no extra fields and no
    ``model_post_init``. ``fields_set`` defaults to every key of ``values``.
    """
    model = _new(cls)
    _SET_DICT(model, values)
    _SET_FIELDS_SET(model, set(values) if fields_set is None else set(fields_set))
    _SET_EXTRA(model, None)
    _SET_PRIVATE(model, None)
    return model


# Measured: a routed call (a Payload and a ToolCall, seven slots) built through these setters
# takes 0.73x the time of the same frozen, slotted dataclasses' generated __init__, which goes
# through object.__setattr__ once per field (a frozen class's own __setattr__ refuses). A slot's
# descriptor sets it directly, and unlike plain assignment it also sets a frozen class's slots.
def slot_setters(cls: type, *names: str) -> tuple[Callable[[Any, Any], None], ...]:
    """The setters of ``cls``'s own slots ``names``, in that order (for an ``__init__`` written out)."""
    return tuple(vars(cls)[name].__set__ for name in names)


# Measured: 0.50x the time of PlanItemArg(step=..., status=...) for one step (the pydantic
# dataclass's validating __init__); the app-server's and the ACP client's plan mappings build one
# per step of every plan update. The caller has checked both types itself: a peer may send anything.
_SET_STEP, _SET_STATUS = slot_setters(PlanItemArg, "step", "status")


def plan_step(step: str, status: StepStatus) -> PlanItemArg:
    """``PlanItemArg(step=step, status=status)`` for a ``str`` step and a ``StepStatus``, unvalidated."""
    item = _new(PlanItemArg)
    _SET_STEP(item, step)
    _SET_STATUS(item, status)
    return item
