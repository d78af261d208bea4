"""The fast front of serde_json parsing: typed parse, and the proof that a text repeats no key.

Codex parses tool arguments with serde_json (``deny_unknown_fields``) and reports
``failed to parse function arguments: {err}``. Models read those messages, so every error
text is serde_json's, written by one producer: ``serde_json.py``, an emulation of its
deserializer step by step (checked against Codex 0.169 by tests/conformance). This module
only decides when a faster parser (pydantic's, or ``json``) reads a text exactly as serde_json
would, and otherwise hands the text to that emulation; it never words an error itself.
"""

from __future__ import annotations

import enum
import json
import re
import types
import typing
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from pydantic_core import from_json

from . import serde_json
from .serde_json import NUMBERS_AS_F64, RECURSION_LIMIT, SerdeJsonError, from_str, struct_shape, value_from_str
from .structs import is_struct, struct_config, struct_fields

M = TypeVar("M", bound=BaseModel)


class SerdeError(ValueError):
    """A serde-style parse error; ``str(err)`` is the exact model-visible text."""


def _serde_error(err: SerdeJsonError) -> SerdeError:
    return SerdeError(str(err))


def nesting_error(text: str) -> SerdeError | None:
    """serde's ``recursion limit exceeded`` error if ``text`` nests as deep as serde_json refuses."""
    found = serde_json.nesting_error(text)
    return None if found is None else _serde_error(found)


def _no_constant(name: str) -> Any:
    raise ValueError(name)  # NaN / Infinity: not JSON to serde_json


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(text)  # beyond f64
    return value


def _bounded_int(text: str) -> int:
    if (
        len(text) >= _MAX_F64_DIGITS
    ):  # maybe past f64's range (the deserializer says), and Python refuses int strings over 4300 digits
        raise ValueError(text)
    return int(text)


def _typed_int(text: str) -> int | float:
    if len(text) >= _MAX_F64_DIGITS:  # serde reads such an integer as f64: out of range past 1.8e308
        _finite_float(text)
    return int(text) if len(text) <= 4300 else float(text)  # Python refuses int strings over 4300 digits


# Where Python's json module reads more than serde_json: lone UTF-16 surrogates (a \u escape of
# one half, or a raw one in a Python str). Such a text goes to the deserializer.
_SURROGATE_HINT = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_MAX_F64_DIGITS = 309
"""Digits of f64's largest value (1.79e308): an integer this long may be past it (309 nines is), a
shorter one never is."""


def _fast_reads_as_serde(text: str) -> bool:
    """Whether ``json`` may read ``text``: no nesting as deep as serde's limit, no lone surrogate."""
    return serde_json.nesting_error(text) is None and _SURROGATE_HINT.search(text) is None


def loads(text: str) -> Any:
    """``serde_json::from_str::<Value>``: ``json.loads`` when it reads the text exactly as serde_json
    would, serde_json's deserializer step by step otherwise (every error text is its)."""
    if _fast_reads_as_serde(text):
        try:
            return json.loads(text, parse_constant=_no_constant, parse_float=_finite_float, parse_int=_bounded_int)
        except ValueError:
            pass
    try:
        return value_from_str(text)
    except SerdeJsonError as err:
        raise _serde_error(err) from None


_DECODERS: dict[Any, json.JSONDecoder] = {}


def _decoder(object_pairs_hook: Any) -> json.JSONDecoder:
    """One decoder per pairs hook (``json.loads(text, **options)`` builds a new one on every call).
    Any text it refuses (NaN, a number beyond f64, bad syntax) goes to the deserializer."""
    decoder = _DECODERS.get(object_pairs_hook)
    if decoder is None:
        decoder = json.JSONDecoder(
            parse_constant=_no_constant,
            parse_float=_finite_float,
            parse_int=_typed_int,
            object_pairs_hook=object_pairs_hook,
        )
        if len(_DECODERS) < 16:  # the hooks are a few module functions; never grow without bound
            _DECODERS[object_pairs_hook] = decoder
    return decoder


def typed_loads(text: str, *, object_pairs_hook: Any = None) -> Any:
    """JSON as serde_json reads it into a typed struct (nesting limit, no NaN, numbers beyond f64 are
    "number out of range", no lone surrogates); raises ``SerdeError``. Tool arguments parse this way."""
    if isinstance(text, str) and _fast_reads_as_serde(text):
        try:
            return _decoder(object_pairs_hook).decode(text)
        except ValueError:
            pass  # the deserializer says why
    try:
        value = from_str(NUMBERS_AS_F64, text)
    except SerdeJsonError as err:
        raise _serde_error(err) from None
    if object_pairs_hook is not None:  # valid, with a surrogate pair: json reads it too, with the hook
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    return value


class _DuplicateKey(Exception):
    pass


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> None:
    if len({key for key, _ in pairs}) != len(pairs):
        raise _DuplicateKey


def _key_count(tree: Any) -> int:
    """Keys in every object of a parsed JSON ``tree``: one loop with a stack (a recursive
    generator per node cost twice the parse itself on a 50-step plan)."""
    count = 0
    stack = [tree]
    push, pop = stack.append, stack.pop
    while stack:
        node = pop()
        if type(node) is dict:
            count += len(node)
            node = node.values()
        elif type(node) is not list:
            continue
        for child in node:
            kind = type(child)
            if kind is dict or kind is list:
                push(child)
    return count


def provably_no_duplicate_keys(text: str) -> bool:
    """A cheap proof that valid JSON ``text`` repeats no key in any object.

    Every key in the text is followed by one colon outside strings, so the text has at
    least as many colons as key occurrences, which are at least as many as the distinct
    keys a parser keeps. When the colon count equals the distinct-key count, no key can
    repeat. False means "not proven" (a colon inside a string, or a real duplicate).
    """
    colons = text.count(":")
    if colons == 0:
        return True
    try:
        tree = from_json(text)
    except ValueError:
        return False
    return _key_count(tree) == colons


_ATOMIC = (str, int, float, bool, type(None))
_CLOSED: dict[type, tuple[str, ...] | None] = {}


def _annotation_parts(annotation: Any) -> list[Any]:
    args = typing.get_args(annotation)
    if not args:
        return [annotation]
    parts: list[Any] = [typing.get_origin(annotation)]
    for arg in args:
        parts += _annotation_parts(arg)
    return parts


_WRAPPERS = (list, tuple, typing.Union, types.UnionType, typing.Literal, None, Ellipsis)


def _is_plain(part: Any) -> bool:
    """A part of an annotation that holds no JSON object: a scalar, an enum, a wrapper, a Literal value."""
    if part in _WRAPPERS or isinstance(part, (str, int, float, bool)):
        return True
    return isinstance(part, type) and issubclass(part, (*_ATOMIC, enum.Enum))


def _closed_fields(cls: type) -> tuple[str, ...] | None:
    """For a *closed* struct (``extra="forbid"`` here and in every struct it holds; fields of
    scalars, enums, literals, structs and lists/tuples of those), the names of its fields that
    hold structs; None when it can hold keys it does not name (a dict, ``Any``...). A pydantic
    dataclass keeps no fields-set to count, so it is closed only if its key count is fixed."""
    if cls not in _CLOSED:
        _CLOSED[cls] = ()  # a struct that holds itself: counted as closed while we look at it
        holders = _model_holders(cls)
        _CLOSED[cls] = holders
        _HOLDERS[cls] = (
            ()
            if holders is None
            else tuple((name, _fixed_count(_element_model(struct_fields(cls)[name].annotation))) for name in holders)
        )
        if holders is not None and not issubclass(cls, BaseModel) and _fixed_count(cls) == 0:
            _CLOSED[cls], _HOLDERS[cls] = None, ()
    return _CLOSED[cls]


def _model_holders(cls: type) -> tuple[str, ...] | None:
    if struct_config(cls).get("extra") != "forbid":
        return None
    decorators = cls.__pydantic_decorators__  # type: ignore[attr-defined]  # a model's or a pydantic dataclass's
    if any(d.info.mode in ("before", "wrap") for d in decorators.model_validators.values()):
        return None  # it may make fields from keys it was not given: its fields are no key count
    holders: list[str] = []
    for name, info in struct_fields(cls).items():
        for part in _annotation_parts(info.annotation):
            if is_struct(part):
                if _closed_fields(part) is None:
                    return None
                if name not in holders:
                    holders.append(name)
            elif not _is_plain(part):
                return None
    return tuple(holders)


_HOLDERS: dict[type, tuple[tuple[str, int], ...]] = {}
"""Per closed struct: each field that holds structs, with the key count every one of those
has (0: it varies, count each one)."""
_FIXED: dict[type, int] = {}


def _element_model(annotation: Any) -> type | None:
    """``M`` for a field of ``M``, ``M | None``, ``list[M]`` or ``tuple[M, ...]`` (optional or
    not): pydantic builds exactly ``M`` for each of its values; None for anything else."""

    def strip_none(tp: Any) -> Any:
        args = typing.get_args(tp)
        if typing.get_origin(tp) in (typing.Union, types.UnionType) and len(args) == 2 and type(None) in args:
            return args[0] if args[1] is type(None) else args[1]
        return tp

    annotation = strip_none(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is list and len(args) == 1:
        annotation = args[0]
    elif origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        annotation = args[0]
    return annotation if is_struct(annotation) else None


def _fixed_count(cls: type | None) -> int:
    """The key count every instance of closed ``cls`` has when all its fields are required and
    each struct field holds one struct of a fixed count; 0 when it varies."""
    if cls is None or _closed_fields(cls) is None:
        return 0
    if cls not in _FIXED:
        _FIXED[cls] = 0  # a struct that holds itself varies
        fields = struct_fields(cls)
        count = len(fields)
        for name, info in fields.items():
            held = info.annotation if is_struct(info.annotation) else None
            if not info.is_required():
                count = 0
                break
            if name in _CLOSED[cls]:  # type: ignore[operator]  # not None: checked on entry
                inner = _fixed_count(held)
                if inner == 0:
                    count = 0
                    break
                count += inner
        _FIXED[cls] = count
    return _FIXED[cls]


def _model_key_count(value: BaseModel) -> int:
    """Keys the JSON text of a closed model held: one per field it set, in every model inside."""
    # Never more than the distinct keys of the text (a field is set by one key), so colons ==
    # count still proves there is no repeat even if a model were misjudged closed: it can only
    # fail the proof (then the exact check decides), never pass a duplicate. A list of models
    # whose key count is fixed (a plan's steps) is counted in O(1): count x length.
    count = len(value.model_fields_set)
    for name, each in _HOLDERS.get(type(value)) or ():
        held = getattr(value, name)
        many = type(held) in (list, tuple)
        if each:
            count += each * len(held) if many else (each if held is not None else 0)
            continue
        for item in held if many else (held,):
            holders = _CLOSED.get(type(item))  # by exact type: isinstance on a model class is slow
            if holders:
                count += _model_key_count(item)
            elif holders is not None or isinstance(item, BaseModel):  # a closed dataclass is fixed: never here
                count += len(item.model_fields_set)
    return count


def _fast_parse(model: type[M], text: str) -> M | None:
    """pydantic's Rust parser for the common, valid case; None means "let serde rules decide".

    pydantic silently keeps the last of duplicate keys where serde errors, so a
    duplicate sends the input down the slow, exact path. The key-count proof settles
    most texts without a Python hook per object; the rest get the exact check. For a
    closed model (every key is a field, ``extra="forbid"``) the distinct keys are counted
    on the parsed model itself, which saves parsing the text a second time.
    """
    try:
        parsed = model.model_validate_json(text, strict=True)
        if _closed_fields(model) is not None and _model_key_count(parsed) == text.count(":"):
            return parsed  # as many colons as distinct keys: no key repeats (provably_no_duplicate_keys)
        if not provably_no_duplicate_keys(text):
            json.loads(text, object_pairs_hook=_reject_duplicates)
    except (ValidationError, _DuplicateKey, ValueError):
        return None
    return parsed


_DEPTH: dict[type, int | None] = {}


def _annotation_depth(annotation: Any) -> int | None:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if is_struct(annotation):
        return _schema_depth(annotation)
    inner = [_annotation_depth(arg) for arg in args if arg is not Ellipsis] if origin is not typing.Literal else []
    deepest = _deepest(inner)
    if deepest is None:
        return None
    return deepest + 1 if origin in (list, tuple) else deepest


def _deepest(depths: list[int | None]) -> int | None:
    """The largest of ``depths`` (0 when there are none); None when any is None (unbounded)."""
    if None in depths:
        return None
    return max((depth for depth in depths if depth is not None), default=0)


def _schema_depth(cls: type) -> int | None:
    """How deep any JSON text that validates as closed ``cls`` nests (None: unbounded, or not closed)."""
    if cls not in _DEPTH:
        _DEPTH[cls] = None  # a model that holds itself nests without bound
        if _closed_fields(cls) is not None:
            deepest = _deepest([_annotation_depth(info.annotation) for info in struct_fields(cls).values()])
            _DEPTH[cls] = None if deepest is None else 1 + deepest
    return _DEPTH[cls]


def parse_strict(model: type[M], text: str) -> M:
    """Parse JSON ``text`` into ``model`` with serde semantics; raise ``SerdeError``."""
    # A text that validates as a closed model of bounded depth, with no repeated key, has the
    # model's shape, so it nests no deeper than the model: it needs no nesting scan first
    # (a text that does not validate takes the exact path, which has serde's nesting limit).
    depth = _schema_depth(model)
    if (depth is not None and depth < RECURSION_LIMIT) or serde_json.nesting_error(text) is None:
        fast = _fast_parse(model, text)
        if fast is not None:
            return fast
    return parse_exact(model, text)


def parse_exact(model: type[M], text: str, u64_fields: frozenset[str] = frozenset()) -> M:
    """The slow, exact path: serde_json's deserializer, step by step (``serde_json.py``)."""
    try:
        data = from_str(struct_shape(model, u64_fields), text)
    except SerdeJsonError as err:
        raise _serde_error(err) from None
    return model.model_validate(data)
