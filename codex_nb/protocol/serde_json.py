"""A faithful emulation of ``serde_json::from_str::<T>`` error behaviour, for the slow path.

Codex parses tool arguments with ``serde_json::from_str`` into ``#[derive(Deserialize)]``
structs and shows the model ``failed to parse function arguments: {err}``. The model
reads the text, so codex_nb reproduces it: which error wins, its wording, and its
``line L column C`` (serde_json counts columns in bytes, at the last consumed byte,
or one past it for "peek" errors). This module is a small streaming deserializer that
follows ``serde_json``'s ``Deserializer`` step by step (``deserialize_struct``,
``end_map``, ``fix_position``, ``peek_invalid_type`` ...), driven by a type shape built
from a pydantic model. Codex builds serde_json with ``arbitrary_precision``, so a
number that is not a u64/i64 integer shows as ``invalid type: number``.

Only malformed or unusual input takes this path: valid arguments are parsed by
pydantic's Rust parser first (see ``serde.parse_strict``).
"""

from __future__ import annotations

import enum
import re
import types
import typing
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from .structs import is_struct, struct_config, struct_fields

_T = TypeVar("_T")

RECURSION_LIMIT = 128
"""serde_json's default ``remaining_depth``: the 128th nested array or object is refused."""

EOF_VALUE = "EOF while parsing a value"
EOF_LIST = "EOF while parsing a list"
EOF_OBJECT = "EOF while parsing an object"
EOF_STRING = "EOF while parsing a string"
EXPECTED_COLON = "expected `:`"
EXPECTED_LIST_COMMA_OR_END = "expected `,` or `]`"
EXPECTED_OBJECT_COMMA_OR_END = "expected `,` or `}`"
EXPECTED_IDENT = "expected ident"
EXPECTED_VALUE = "expected value"
INVALID_ESCAPE = "invalid escape"
INVALID_NUMBER = "invalid number"
CONTROL_CHAR = "control character (\\u0000-\\u001F) found while parsing a string"
KEY_MUST_BE_STRING = "key must be a string"
LONE_LEADING_SURROGATE = "lone leading surrogate in hex escape"
TRAILING_COMMA = "trailing comma"
TRAILING_CHARACTERS = "trailing characters"
UNEXPECTED_END_OF_HEX = "unexpected end of hex escape"
RECURSION = "recursion limit exceeded"
NUMBER_OUT_OF_RANGE = "number out of range"


# -- serde::de::Error's texts (what a Deserialize impl says about the value it was given) ---
def invalid_type(unexpected: str, expected: str) -> str:
    return f"invalid type: {unexpected}, expected {expected}"


def invalid_value(unexpected: str, expected: str) -> str:
    return f"invalid value: {unexpected}, expected {expected}"


def invalid_length(length: int, expected: str) -> str:
    return f"invalid length {length}, expected {expected}"


def missing_field(name: str) -> str:
    return f"missing field `{name}`"


def duplicate_field(name: str) -> str:
    return f"duplicate field `{name}`"


def unknown_field(name: str, expected: list[str]) -> str:
    return f"unknown field `{name}`, expected {expected_list(expected, 'fields')}"


def unknown_variant(name: str, expected: list[str]) -> str:
    return f"unknown variant `{name}`, expected {expected_list(expected, 'variants')}"


def expected_list(names: list[str], what: str) -> str:
    """serde's ``OneOf``: ```a```, ```a` or `b```, ``one of `a`, `b`, `c```, ``there are no fields``."""
    quoted = [f"`{n}`" for n in names]
    if not quoted:
        return f"there are no {what}"
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} or {quoted[1]}"
    return "one of " + ", ".join(quoted)


def struct_elements(name: str, count: int) -> str:
    """What a struct read from a sequence expects: ``struct X with 2 elements``."""
    return f"struct {name} with {count} element{'' if count == 1 else 's'}"


class SerdeJsonError(ValueError):
    """``str()`` is serde_json's Display: the message, then `` at line L column C``."""

    def __init__(self, message: str, position: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.position = position

    def __str__(self) -> str:
        if self.position is None:
            return self.message
        return f"{self.message} at line {self.position[0]} column {self.position[1]}"


# -- shapes ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    wire: str
    name: str
    shape: Shape
    optional: bool  # missing from a map -> None / default
    has_default: bool  # missing from a sequence -> default (``#[serde(default)]``)


@dataclass(frozen=True)
class Shape:
    kind: str  # struct seq option str bool u64 i64 f64 enum any
    name: str = ""
    inner: Shape | None = None
    fields: tuple[Field, ...] = ()
    deny_unknown: bool = True
    variants: tuple[str, ...] = ()


ANY = Shape("any")
"""``serde_json::Value`` as Codex builds it (``arbitrary_precision``: any number is kept)."""
NUMBERS_AS_F64 = Shape("value")
"""``serde_json::Value`` without ``arbitrary_precision``: a number beyond f64 is "number out of range"."""
_SHAPES: dict[tuple[type, frozenset[str]], Shape] = {}


def shape_of(tp: Any, u64_fields: frozenset[str] = frozenset(), field_name: str = "") -> Shape:
    """The serde shape of a Python annotation (pydantic models become structs)."""
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return shape_of(typing.get_args(tp)[0], u64_fields, field_name)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        inner = shape_of(args[0], u64_fields, field_name) if len(args) == 1 else ANY
        return Shape("option", inner=inner) if len(args) < len(typing.get_args(tp)) else inner
    if is_struct(tp):
        return struct_shape(tp, u64_fields)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return Shape("enum", name=tp.__name__, variants=tuple(str(m.value) for m in tp))
    if origin in (list, tuple) or tp in (list, tuple):
        items = typing.get_args(tp)
        return Shape("seq", inner=shape_of(items[0], u64_fields) if items else ANY)
    if tp is str:
        return Shape("str")
    if tp is bool:
        return Shape("bool")
    if tp is int:
        return Shape("u64" if field_name in u64_fields else "i64")
    if tp is float:
        return Shape("f64")
    return ANY


def struct_shape(model: type, u64_fields: frozenset[str] = frozenset()) -> Shape:
    key = (model, u64_fields)
    cached = _SHAPES.get(key)
    if cached is not None:
        return cached
    fields = []
    for name, info in struct_fields(model).items():
        field_shape = shape_of(info.annotation, u64_fields, info.alias or name)
        fields.append(
            Field(
                wire=info.alias or name,
                name=name,
                shape=field_shape,
                optional=field_shape.kind == "option" or not info.is_required(),
                has_default=not info.is_required(),
            )
        )
    shape = Shape(
        "struct",
        name=str(struct_config(model).get("title") or model.__name__),
        fields=tuple(fields),
        deny_unknown=struct_config(model).get("extra") == "forbid",
    )
    _SHAPES[key] = shape
    return shape


# -- "unexpected" texts (serde::de::Unexpected's Display) ----------------------------------
def rust_debug_str(text: str) -> str:
    """Rust's ``{:?}`` of a str: quotes, and escapes for quotes, backslashes and controls."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\0":
            out.append("\\0")
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cn", "Co", "Cs", "Zl", "Zp"):
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def rust_float(value: float) -> str:
    """``WithDecimalPoint(f)``: Rust's positional Display, with ``.0`` for integral values."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    text = format(Decimal(repr(value)), "f")
    return text if "." in text else text + ".0"


def unexpected_float(value: float) -> str:
    return f"floating point `{rust_float(value)}`"


def unexpected_integer(value: int) -> str:
    return f"integer `{value}`"


# -- the deserializer -----------------------------------------------------------------------
_RAW_SURROGATE = re.compile(r"[\ud800-\udfff]")
_RAW_SURROGATE_BYTES = re.compile(rb"\xed[\xa0-\xbf][\x80-\xbf]")


class _Number:
    """ParserNumber: u64, i64, f64, or (arbitrary_precision) the text of any other number."""

    def __init__(self, kind: str, value: Any) -> None:
        self.kind = kind
        self.value = value

    def unexpected(self) -> str:
        if self.kind in ("u64", "i64"):
            return unexpected_integer(self.value)
        if self.kind == "f64":
            return unexpected_float(self.value)
        return "number"

    def python(self) -> Any:
        if self.kind == "text":
            text = self.value
            return float(text) if any(c in text for c in ".eE") else int(text)
        return self.value


def _python_number(text: str) -> int | float:
    """A checked number as Python's ``json`` reads it (an integer stays an int up to 4300 digits)."""
    if any(c in text for c in ".eE") or len(text) > 4300:
        return float(text)
    return int(text)


NOT_LITERAL = object()
_LITERALS = ((0x6E, b"ull", None), (0x74, b"rue", True), (0x66, b"alse", False))
_LITERAL_NAMES = {None: "null", True: "boolean `true`", False: "boolean `false`"}


def _positioned(method: Callable[..., _T]) -> Callable[..., _T]:
    """serde_json's ``fix_position``: an error raised inside ``method`` without a position gets
    the one where reading stopped."""

    def positioned(self: Deserializer, *args: Any, **kwargs: Any) -> _T:
        try:
            return method(self, *args, **kwargs)
        except SerdeJsonError as err:
            raise self.fix(err) from None

    return positioned


class Deserializer:
    def __init__(self, text: str) -> None:
        self.data = text.encode("utf-8", "surrogatepass")
        self.index = 0
        self.remaining_depth = RECURSION_LIMIT
        # A Python str can hold a lone surrogate, which UTF-8 (all Codex ever reads) cannot.
        self.raw_surrogates = _RAW_SURROGATE.search(text) is not None

    # -- positions ----------------------------------------------------------------------
    def _position_of(self, index: int) -> tuple[int, int]:
        start_of_line = self.data.rfind(b"\n", 0, index) + 1
        return self.data.count(b"\n", 0, start_of_line) + 1, index - start_of_line

    def error(self, message: str) -> SerdeJsonError:
        return SerdeJsonError(message, self._position_of(self.index))

    def peek_error(self, message: str) -> SerdeJsonError:
        return SerdeJsonError(message, self._position_of(min(len(self.data), self.index + 1)))

    def fix(self, err: SerdeJsonError) -> SerdeJsonError:
        if err.position is None:
            err.position = self._position_of(self.index)
        return err

    def value_start(self) -> int:
        """The next value's first byte, past whitespace (end of input is serde's EOF error)."""
        peek = self.whitespace()
        if peek is None:
            raise self.peek_error(EOF_VALUE)
        return peek

    def literal(self, peek: int | None) -> Any:
        """``null``/``true``/``false`` at ``peek`` read as None/True/False, else ``NOT_LITERAL``."""
        for first, rest, value in _LITERALS:
            if peek == first:
                self.eat()
                self.parse_ident(rest)
                return value
        return NOT_LITERAL

    # -- bytes --------------------------------------------------------------------------
    def peek(self) -> int | None:
        return self.data[self.index] if self.index < len(self.data) else None

    def eat(self) -> None:
        self.index += 1

    def next_char(self) -> int | None:
        if self.index < len(self.data):
            self.index += 1
            return self.data[self.index - 1]
        return None

    def whitespace(self) -> int | None:
        data, i, n = self.data, self.index, len(self.data)
        while i < n and data[i] in b" \n\t\r":
            i += 1
        self.index = i
        return data[i] if i < n else None

    def parse_ident(self, ident: bytes) -> None:
        for expected in ident:
            got = self.next_char()
            if got is None:
                raise self.error(EOF_VALUE)
            if got != expected:
                raise self.error(EXPECTED_IDENT)

    def enter(self) -> None:
        self.remaining_depth -= 1
        if self.remaining_depth == 0:
            raise self.peek_error(RECURSION)

    def leave(self) -> None:
        self.remaining_depth += 1

    # -- scalars ------------------------------------------------------------------------
    def parse_str(self) -> str:
        """After the opening quote: the string's value, with serde_json's validation."""
        data, n = self.data, len(self.data)
        out = bytearray()
        while True:
            start = self.index
            while self.index < n and data[self.index] not in b'"\\' and data[self.index] >= 0x20:
                self.index += 1
            out += data[start : self.index]
            if self.raw_surrogates and (raw := _RAW_SURROGATE_BYTES.search(data, start, self.index)) is not None:
                self.index = raw.end()
                raise self.error(LONE_LEADING_SURROGATE)
            if self.index == n:
                raise self.error(EOF_STRING)
            byte = data[self.index]
            self.index += 1
            if byte == 0x22:
                return out.decode("utf-8", "surrogatepass")
            if byte != 0x5C:
                raise self.error(CONTROL_CHAR)
            self._escape(out)

    def _escape(self, out: bytearray) -> None:
        ch = self.next_char()
        if ch is None:
            raise self.error(EOF_STRING)
        simple = {0x22: b'"', 0x5C: b"\\", 0x2F: b"/", 0x62: b"\b", 0x66: b"\f", 0x6E: b"\n", 0x72: b"\r", 0x74: b"\t"}
        if ch in simple:
            out += simple[ch]
            return
        if ch != 0x75:
            raise self.error(INVALID_ESCAPE)
        n = self._hex4()
        if 0xDC00 <= n <= 0xDFFF:
            raise self.error(LONE_LEADING_SURROGATE)
        while True:
            if n < 0xD800 or n > 0xDBFF:
                out += chr(n).encode("utf-8", "surrogatepass")
                return
            n1 = n
            if self.peek() is None:
                raise self.error(EOF_STRING)
            if self.peek() != 0x5C:
                self.eat()
                raise self.error(UNEXPECTED_END_OF_HEX)
            self.eat()
            if self.peek() is None:
                raise self.error(EOF_STRING)
            if self.peek() != 0x75:
                self.eat()
                raise self.error(UNEXPECTED_END_OF_HEX)
            self.eat()
            n2 = self._hex4()
            if n2 < 0xDC00 or n2 > 0xDFFF:
                raise self.error(LONE_LEADING_SURROGATE)
            n = (((n1 - 0xD800) << 10) | (n2 - 0xDC00)) + 0x10000
            out += chr(n).encode("utf-8")
            return

    def _hex4(self) -> int:
        if self.index + 4 > len(self.data):
            self.index = len(self.data)
            raise self.error(EOF_STRING)
        digits = self.data[self.index : self.index + 4]
        self.index += 4
        try:
            if not all(c in b"0123456789abcdefABCDEF" for c in digits):
                raise ValueError
            return int(digits, 16)
        except ValueError:
            raise self.error(INVALID_ESCAPE) from None

    def _scan_number(self, negative: bool) -> str:
        """serde_json's ``scan_integer``/``scan_number``: the number's text, syntax-checked."""
        buf = ["-"] if negative else []
        ch = self.next_char()
        if ch is None:
            raise self.error(EOF_VALUE)
        if ch == 0x30:
            buf.append("0")
            if (self.peek() or 0) in range(0x30, 0x3A):
                raise self.peek_error(INVALID_NUMBER)
        elif 0x31 <= ch <= 0x39:
            buf.append(chr(ch))
            while (p := self.peek()) is not None and 0x30 <= p <= 0x39:
                self.eat()
                buf.append(chr(p))
        else:
            raise self.error(INVALID_NUMBER)
        if self.peek() == 0x2E:
            self.eat()
            buf.append(".")
            digits = 0
            while (p := self.peek()) is not None and 0x30 <= p <= 0x39:
                self.eat()
                buf.append(chr(p))
                digits += 1
            if not digits:
                raise self.peek_error(INVALID_NUMBER if self.peek() is not None else EOF_VALUE)
        if self.peek() in (0x65, 0x45):
            buf.append(chr(self.peek() or 0))
            self.eat()
            if self.peek() in (0x2B, 0x2D):
                buf.append(chr(self.peek() or 0))
                self.eat()
            ch = self.next_char()
            if ch is None:
                raise self.error(EOF_VALUE)
            if not 0x30 <= ch <= 0x39:
                raise self.error(INVALID_NUMBER)
            buf.append(chr(ch))
            while (p := self.peek()) is not None and 0x30 <= p <= 0x39:
                self.eat()
                buf.append(chr(p))
        return "".join(buf)

    @staticmethod
    def _integer(text: str, negative: bool) -> _Number | None:
        """``text`` as serde's u64 or i64 when it is an integer that fits one, else None."""
        if not any(c in text for c in ".eE") and len(text) <= 40:  # longer digit runs never fit 64 bits
            value = int(text)
            if not negative and value < 2**64:
                return _Number("u64", value)
            if negative and value >= -(2**63):
                return _Number("i64", value)
        return None

    def parse_any_number(self, negative: bool) -> _Number:
        """``arbitrary_precision``'s parse_any_number: u64/i64 when it fits, else text."""
        text = self._scan_number(negative)
        return self._integer(text, negative) or _Number("text", text)

    def parse_integer(self, negative: bool) -> _Number:
        """The exact parser behind deserialize_u64/i64/f64: u64, i64 or f64."""
        text = self._scan_number(negative)
        if (integer := self._integer(text, negative)) is not None:
            return integer
        try:
            value_f = float(text)
        except OverflowError:  # pragma: no cover - float() saturates to inf instead
            value_f = float("inf")
        if value_f in (float("inf"), float("-inf")):
            raise self.error(NUMBER_OUT_OF_RANGE)
        return _Number("f64", value_f)

    def peek_invalid_type(self, expected: str) -> SerdeJsonError:
        peek = self.peek()
        literal = self.literal(peek)
        if literal is not NOT_LITERAL:
            what = _LITERAL_NAMES[literal]
        elif peek == 0x2D:
            self.eat()
            what = self.parse_any_number(True).unexpected()
        elif peek is not None and 0x30 <= peek <= 0x39:
            what = self.parse_any_number(False).unexpected()
        elif peek == 0x22:
            self.eat()
            what = "string " + rust_debug_str(self.parse_str())
        elif peek == 0x5B:
            what = "sequence"
        elif peek == 0x7B:
            what = "map"
        else:
            return self.peek_error(EXPECTED_VALUE)
        return self.fix(SerdeJsonError(invalid_type(what, expected)))

    # -- typed values ---------------------------------------------------------------------
    def value(self, shape: Shape) -> Any:
        kind = shape.kind
        if kind == "struct":
            return self.struct(shape)
        if kind == "seq":
            return self.seq(shape)
        if kind == "option":
            return self.option(shape)
        if kind == "str":
            return self.string("a string")
        if kind == "enum":
            return self.enum(shape)
        if kind == "bool":
            return self.boolean()
        if kind in ("u64", "i64", "f64"):
            return self.number(kind)
        return self.any(exact=kind != "value")

    def _container(self, open_byte: int, visit: Callable[[], _T], end: Callable[[], None]) -> _T:
        self.enter()
        self.eat()
        try:
            ret = visit()
        except SerdeJsonError:
            self.leave()
            try:
                end()
            except SerdeJsonError:
                pass  # the container's own error comes first, as in serde_json
            raise
        self.leave()
        end()
        return ret

    @_positioned
    def struct(self, shape: Shape) -> dict[str, Any]:
        peek = self.value_start()
        if peek == 0x5B:
            return self._container(peek, lambda: self._struct_seq(shape), self.end_seq)
        if peek == 0x7B:
            return self._container(peek, lambda: self._struct_map(shape), self.end_map)
        raise self.peek_invalid_type(f"struct {shape.name}")

    def _struct_seq(self, shape: Shape) -> dict[str, Any]:
        out: dict[str, Any] = {}
        first = [True]
        for index, field in enumerate(shape.fields):
            if self._next_element(first):
                out[field.name] = self.value(field.shape)
            elif field.has_default:
                continue
            else:
                raise SerdeJsonError(invalid_length(index, struct_elements(shape.name, len(shape.fields))))
        return out

    def _struct_map(self, shape: Shape) -> dict[str, Any]:
        by_wire = {f.wire: f for f in shape.fields}
        out: dict[str, Any] = {}
        first = [True]
        while True:
            key = self._next_key(first)
            if key is None:
                break
            field = by_wire.get(key)
            if field is None:
                if shape.deny_unknown:
                    raise SerdeJsonError(unknown_field(key, list(by_wire)))
                self._colon()
                self.ignore()
                continue
            if field.name in out:
                raise SerdeJsonError(duplicate_field(key))
            self._colon()
            out[field.name] = self.value(field.shape)
        for field in shape.fields:
            if field.name not in out and not field.optional:
                raise SerdeJsonError(missing_field(field.wire))
        return out

    def _next_entry(self, first: list[bool], close: int, comma_or_end: str, eof: str) -> int | None:
        """serde_json's SeqAccess/MapAccess prologue: the byte that starts the next entry, None at ``close``."""
        peek = self.whitespace()
        if peek == close:
            return None
        if peek == 0x2C and not first[0]:
            self.eat()
            peek = self.whitespace()
        elif peek is not None:
            if not first[0]:
                raise self.peek_error(comma_or_end)
            first[0] = False
        else:
            raise self.peek_error(eof)
        if peek == close:
            raise self.peek_error(TRAILING_COMMA)
        if peek is None:
            raise self.peek_error(EOF_VALUE)
        return peek

    def _next_key(self, first: list[bool]) -> str | None:
        peek = self._next_entry(first, 0x7D, EXPECTED_OBJECT_COMMA_OR_END, EOF_OBJECT)
        if peek is None:
            return None
        if peek != 0x22:
            raise self.peek_error(KEY_MUST_BE_STRING)
        self.eat()
        return self.parse_str()

    def _colon(self) -> None:
        peek = self.whitespace()
        if peek == 0x3A:
            self.eat()
            return
        raise self.peek_error(EXPECTED_COLON if peek is not None else EOF_OBJECT)

    def _next_element(self, first: list[bool]) -> bool:
        return self._next_entry(first, 0x5D, EXPECTED_LIST_COMMA_OR_END, EOF_LIST) is not None

    def end_seq(self) -> None:
        peek = self.whitespace()
        if peek == 0x5D:
            self.eat()
            return
        if peek == 0x2C:
            self.eat()
            after = self.whitespace()
            raise self.peek_error(TRAILING_COMMA if after == 0x5D else TRAILING_CHARACTERS)
        raise self.peek_error(TRAILING_CHARACTERS if peek is not None else EOF_LIST)

    def end_map(self) -> None:
        peek = self.whitespace()
        if peek == 0x7D:
            self.eat()
            return
        if peek == 0x2C:
            raise self.peek_error(TRAILING_COMMA)
        raise self.peek_error(TRAILING_CHARACTERS if peek is not None else EOF_OBJECT)

    @_positioned
    def seq(self, shape: Shape) -> list[Any]:
        peek = self.value_start()
        if peek == 0x5B:
            return self._container(peek, lambda: self._items(lambda: self.value(shape.inner or ANY)), self.end_seq)
        raise self.peek_invalid_type("a sequence")

    def _items(self, item: Callable[[], Any]) -> list[Any]:
        items = []
        first = [True]
        while self._next_element(first):
            items.append(item())
        return items

    def option(self, shape: Shape) -> Any:
        if self.whitespace() == 0x6E:
            self.eat()
            self.parse_ident(b"ull")
            return None
        return self.value(shape.inner or ANY)

    @_positioned
    def string(self, expected: str) -> str:
        peek = self.value_start()
        if peek == 0x22:
            self.eat()
            return self.parse_str()
        raise self.peek_invalid_type(expected)

    def enum(self, shape: Shape) -> str:
        peek = self.whitespace()
        if peek == 0x22:
            return self._variant(shape)
        if peek == 0x7B:
            self.enter()
            self.eat()
            self.whitespace()
            variant = self._variant(shape)
            self._colon()
            self._unit()
            self.leave()
            after = self.whitespace()
            if after == 0x7D:
                self.eat()
                return variant
            raise self.error(EXPECTED_VALUE if after is not None else EOF_OBJECT)
        raise self.peek_error(EXPECTED_VALUE if peek is not None else EOF_VALUE)

    def _variant(self, shape: Shape) -> str:
        name = self.string("variant identifier")
        if name not in shape.variants:
            raise self.fix(SerdeJsonError(unknown_variant(name, list(shape.variants))))
        return name

    @_positioned
    def _unit(self) -> None:
        if self.value_start() != 0x6E:
            raise self.peek_invalid_type("unit")
        self.eat()
        self.parse_ident(b"ull")

    @_positioned
    def boolean(self) -> bool:
        if self.value_start() not in (0x74, 0x66):
            raise self.peek_invalid_type("a boolean")
        return bool(self.literal(self.peek()))

    @_positioned
    def number(self, kind: str) -> int | float:
        peek = self.value_start()
        if peek == 0x2D:
            self.eat()
            number = self.parse_integer(True)
        elif 0x30 <= peek <= 0x39:
            number = self.parse_integer(False)
        else:
            raise self.peek_invalid_type(kind)
        return self._visit_number(number, kind)

    @staticmethod
    def _visit_number(number: _Number, kind: str) -> int | float:
        if kind == "f64":
            return float(number.value)
        if number.kind == "f64":
            raise SerdeJsonError(invalid_type(number.unexpected(), kind))
        value = int(number.value)
        if kind == "u64" and value < 0:
            raise SerdeJsonError(invalid_value(unexpected_integer(value), "u64"))
        if kind == "i64" and value >= 2**63:
            raise SerdeJsonError(invalid_value(unexpected_integer(value), "i64"))
        return value

    # -- untyped values ---------------------------------------------------------------------
    @_positioned
    def any(self, exact: bool = True) -> Any:
        """``serde_json::Value``: any JSON; duplicate keys keep the last value. ``exact``: numbers
        as ``arbitrary_precision`` keeps them, else as u64/i64/f64 (out of range past f64)."""
        peek = self.value_start()
        literal = self.literal(peek)
        if literal is not NOT_LITERAL:
            return literal
        if peek == 0x2D or 0x30 <= peek <= 0x39:
            start = self.index
            if peek == 0x2D:
                self.eat()
            if exact:
                return self.parse_any_number(peek == 0x2D).python()
            self.parse_integer(peek == 0x2D)
            return _python_number(self.data[start : self.index].decode())
        if peek == 0x22:
            self.eat()
            return self.parse_str()
        if peek == 0x5B:
            return self._container(peek, lambda: self._items(lambda: self.any(exact)), self.end_seq)
        if peek == 0x7B:

            def visit_map() -> dict[str, Any]:
                out: dict[str, Any] = {}
                first = [True]
                while (key := self._next_key(first)) is not None:
                    self._colon()
                    out[key] = self.any(exact)
                return out

            return self._container(peek, visit_map, self.end_map)
        raise self.peek_error(EXPECTED_VALUE)

    def ignore(self) -> None:
        self.any()

    def end(self) -> None:
        if self.whitespace() is not None:
            raise self.peek_error(TRAILING_CHARACTERS)


def _value_unexpected(value: Any) -> str:
    """``Value::unexpected`` with ``arbitrary_precision``: every number is just "number"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean `{'true' if value else 'false'}`"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string " + rust_debug_str(value)
    if isinstance(value, list):
        return "sequence"
    return "map"


def from_value(shape: Shape, value: Any) -> Any:
    """``serde_json::from_value``: like ``from_str`` on an already parsed Value, so errors
    carry no position and numbers show as "number"."""
    kind = shape.kind

    def invalid(expected: str) -> SerdeJsonError:
        return SerdeJsonError(invalid_type(_value_unexpected(value), expected))

    if kind == "option":
        return None if value is None else from_value(shape.inner or ANY, value)
    if kind == "struct":
        if isinstance(value, list):
            out: dict[str, Any] = {}
            for index, field in enumerate(shape.fields):
                if index < len(value):
                    out[field.name] = from_value(field.shape, value[index])
                elif not field.has_default:
                    raise SerdeJsonError(invalid_length(len(value), struct_elements(shape.name, len(shape.fields))))
            if len(value) > len(shape.fields):
                raise SerdeJsonError(invalid_length(len(value), "fewer elements in array"))
            return out
        if not isinstance(value, dict):
            raise invalid(f"struct {shape.name}")
        by_wire = {f.wire: f for f in shape.fields}
        out = {}
        for key, item in value.items():
            known = by_wire.get(key)
            if known is None:
                if shape.deny_unknown:
                    raise SerdeJsonError(unknown_field(key, list(by_wire)))
                continue
            out[known.name] = from_value(known.shape, item)
        for field in shape.fields:
            if field.name not in out and not field.optional:
                raise SerdeJsonError(missing_field(field.wire))
        return out
    if kind == "seq":
        if not isinstance(value, list):
            raise invalid("a sequence")
        return [from_value(shape.inner or ANY, item) for item in value]
    if kind == "str":
        if not isinstance(value, str):
            raise invalid("a string")
        return value
    if kind == "bool":
        if not isinstance(value, bool):
            raise invalid("a boolean")
        return value
    if kind == "enum":
        name = value if isinstance(value, str) else None
        if isinstance(value, dict) and len(value) == 1:
            name = next(iter(value))
        if name is None:
            raise invalid("string or map")
        if name not in shape.variants:
            raise SerdeJsonError(unknown_variant(name, list(shape.variants)))
        return name
    if kind in ("u64", "i64", "f64"):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise invalid(kind)
        if kind == "f64":
            return float(value)
        if isinstance(value, float):
            raise invalid(kind)
        if kind == "u64" and value < 0:
            raise SerdeJsonError(invalid_value(unexpected_integer(value), "u64"))
        return value
    return value


def from_str(shape: Shape, text: str) -> Any:
    """``serde_json::from_str``: the value for ``shape``, or ``SerdeJsonError``."""
    de = Deserializer(text)
    value = de.value(shape)
    de.end()
    return value


def value_from_str(text: str) -> Any:
    """``serde_json::from_str::<Value>``."""
    return from_str(ANY, text)


def nesting_error(text: str) -> SerdeJsonError | None:
    """serde_json's ``recursion limit exceeded`` (at the bracket that reaches ``RECURSION_LIMIT``)
    if ``text`` nests that deep outside strings, else None. A cheap pre-check: whether a fast
    parser may read ``text`` at all (the deserializer says the same when it gets that far)."""
    if text.count("[") + text.count("{") < RECURSION_LIMIT:
        return None  # cannot nest that deep: skip the character scan (the common case)
    depth, in_string, escaped, line, line_start = 0, False, False, 1, 0
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth >= RECURSION_LIMIT:  # serde_json counts columns in bytes
                column = len(text[line_start:index].encode("utf-8", "surrogatepass")) + 1
                return SerdeJsonError(RECURSION, (line, column))
        elif char in "]}":
            depth -= 1
        elif char == "\n":
            line, line_start = line + 1, index + 1
    return None


__all__ = [
    "ANY",
    "NUMBERS_AS_F64",
    "RECURSION_LIMIT",
    "SerdeJsonError",
    "Shape",
    "from_str",
    "from_value",
    "nesting_error",
    "shape_of",
    "struct_shape",
    "value_from_str",
]
