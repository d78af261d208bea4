"""Word wrapping that matches the Codex TUI byte for byte (codex-rs/tui/src/wrapping.rs).

The TUI wraps with Rust ``textwrap`` 0.16.2 (FirstFit, UAX #14 word separation, hyphen
splitting, ``break_words``) behind ``adaptive_wrap_line``/``word_wrap_line`` in
``codex-rs/tui/src/wrapping.rs``. Python's ``textwrap`` breaks differently (``/``, U+2011,
East-Asian widths), so this module re-implements the Rust pipeline step by step:
find words -> split words at hyphens -> break over-long words -> first fit -> slice.

All positions are ``str`` indices (code points), never UTF-8 byte offsets; only the
``textwrap`` fast path looks at the byte length, because Rust does. The module is long
(~500 lines) because the pipeline steps share one word representation; the UAX #14 fast
path and the URL heuristics it needs sit in their own sections.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache


__all__ = [
    "WrapMode",
    "adaptive_wrap",
    "display_width",
    "is_url_like_token",
    "text_contains_url_like",
    "textwrap_ranges",
    "word_wrap",
]

Range = tuple[int, int]

_ESC = "\x1b"
_SOFT_HYPHEN = "\u00ad"


@dataclass(frozen=True, slots=True)
class WrapMode:
    """The ``textwrap::Options`` knobs the TUI changes between prose and URL lines."""

    unicode_breaks: bool = True  # UnicodeBreakProperties, else AsciiSpace
    hyphen_splitter: bool = True  # HyphenSplitter, else NoHyphenation
    break_words: bool = True


PROSE = WrapMode()
# url_preserving_wrap_options: URLs must stay one token for terminal link detection.
URL = WrapMode(unicode_breaks=False, hyphen_splitter=False, break_words=False)


# ---------------------------------------------------------------- widths


# wcwidth and uniseg take ~100 ms to import, and ASCII text (most plans) never needs them:
# its widths and line-break classes are tabulated here, with the widths of the plan cell's
# own glyphs (tests/unit/render/test_render_text.py checks the tables against both libraries), so the
# libraries load with the first other character.
_ASCII_LB = tuple(
    (
        "CM " * 9
        + "BA LF BK BK CR "
        + "CM " * 18  # U+0000-U+001F
        + "SP EX QU AL PR PO AL QU OP CP AL PR IS HY IS SY "
        + "NU " * 10
        + "IS IS AL AL AL EX "  # U+0020-U+003F
        + "AL " * 27
        + "OP PR CP AL AL "  # U+0040-U+005F
        + "AL " * 27
        + "OP BA CL AL CM"  # U+0060-U+007F
    ).split()
)


_GLYPHS = frozenset("•└✔□")  # one column each


@lru_cache(maxsize=4096)
def _char_width(ch: str) -> int:
    if ch < "\x80":
        return 1 if " " <= ch < "\x7f" else 0
    if ch in _GLYPHS:
        return 1
    from wcwidth import wcwidth

    # unicode-width returns None for control characters and textwrap maps that to 0.
    return max(wcwidth(ch), 0)


_PLAIN, _SEQ_START, _SEQ_BODY = 0, 1, 2


def _escape_mask(text: str) -> list[int]:
    """Classify each character: plain, or start/body of an ANSI escape textwrap skips.

    Follows ``skip_ansi_escape_sequence`` in textwrap 0.16.2 ``core.rs``.
    """
    kinds = [_PLAIN] * len(text)
    if _ESC not in text:
        return kinds
    i, n = 0, len(text)
    while i < n:
        if text[i] != _ESC:
            i += 1
            continue
        # The ESC itself and the character after it are always consumed; CSI and
        # OSC bodies run on to their terminators (or the end of the text).
        j = i + 1
        if j < n and text[j] == "[":
            j += 1
            while j < n and not "\x40" <= text[j] <= "\x7e":
                j += 1
        elif j < n and text[j] == "]":
            last = "]"
            j += 1
            while j < n and not (text[j] == "\x07" or (text[j] == "\\" and last == _ESC)):
                last = text[j]
                j += 1
        end = min(j + 1, n)
        kinds[i] = _SEQ_START
        for k in range(i + 1, end):
            kinds[k] = _SEQ_BODY
        i = end
    return kinds


def display_width(text: str) -> int:
    """Columns ``textwrap::core::display_width`` gives ``text`` (ANSI escapes count 0)."""
    kinds = _escape_mask(text)
    return sum(_char_width(ch) for ch, k in zip(text, kinds, strict=True) if k == _PLAIN)


# ---------------------------------------------------------------- UAX #14
# uniseg implements all of UAX #14 but costs ~0.4 ms per character, far too slow for a
# 1000-step plan. Text made only of the classes below goes through a direct port of
# uniseg's rules for them (a test checks both agree); anything else (combining marks,
# emoji, Hangul, curly quotes, ...) still goes through uniseg.

_FAST_CLASSES = frozenset("AL NU SP BA HY SY IS EX OP CL CP PR PO GL ID NS IN BB B2 QU".split())
_EAST_ASIAN = frozenset({"F", "W", "H"})


@lru_cache(maxsize=8192)
def _lb_class(ch: str) -> str:
    if ch < "\x80":
        return _ASCII_LB[ord(ch)]
    from uniseg.linebreak import category, line_break

    cls: str = line_break(ch).name  # uniseg ships no types
    if cls in ("AI", "SG", "XX"):  # LB1
        return "AL"
    if cls == "CJ":  # LB1
        return "NS"
    if cls == "QU" and category(ch).name in ("PI", "PF"):
        return "QU-initial-final"  # needs LB15a/b and LB19a: left to uniseg
    return cls


def _line_breaks(text: str) -> list[int]:
    """UAX #14 break opportunities (indices after which a line may end), incl. len(text)."""
    classes = [_lb_class(ch) for ch in text]
    if not text or not _FAST_CLASSES.issuperset(classes):
        from uniseg.linebreak import line_break_boundaries

        return list(line_break_boundaries(text))
    breaks = [i for i in range(1, len(text)) if _fast_break(text, classes, i)]
    breaks.append(len(text))
    return breaks


def _skip_back(classes: list[str], j: int, skip: tuple[str, ...]) -> int:
    while j >= 0 and classes[j] in skip:
        j -= 1
    return j


def _fast_break(text: str, cls: list[str], i: int) -> bool:
    """Whether UAX #14 (rules LB7-LB31, as uniseg orders them) allows a break before i."""
    prev, curr = cls[i - 1], cls[i]
    nxt = cls[i + 1] if i + 1 < len(cls) else None
    before_spaces = _skip_back(cls, i - 1, ("SP",))
    lead = cls[before_spaces] if before_spaces >= 0 else None
    if curr == "SP" or prev == "GL" or (curr == "GL" and prev not in ("SP", "BA", "HY")):
        return False  # LB7, LB12, LB12a
    if curr in ("CL", "CP", "EX", "SY") or lead == "OP":
        return False  # LB13, LB14
    if prev == "SP" and curr == "IS" and nxt == "NU":
        return True  # LB15c
    if curr == "IS" or (lead in ("CL", "CP") and curr == "NS") or (lead == curr == "B2"):
        return False  # LB15d, LB16, LB17
    if prev == "SP":
        return True  # LB18
    if curr == "QU" or prev == "QU":
        return False  # LB19 (only non-initial, non-final quotes get here)
    if _lb20a_no_break(text, cls, i):
        return False
    if curr in ("BA", "HY", "NS", "IN") or prev == "BB":
        return False  # LB21, LB22
    return not _no_break_between_words(text, cls, i)


def _lb20a_no_break(text: str, cls: list[str], i: int) -> bool:
    """LB20a: no break after a word-initial hyphen that precedes a letter."""
    if cls[i] != "AL" or not (cls[i - 1] == "HY" or text[i - 1] == "\u2010"):
        return False
    return i < 2 or cls[i - 2] in ("SP", "GL")


def _no_break_between_words(text: str, cls: list[str], i: int) -> bool:
    """LB23-LB30 for the fast classes: letters, numbers, prefixes/postfixes, brackets."""
    prev, curr = cls[i - 1], cls[i]
    nxt = cls[i + 1] if i + 1 < len(cls) else None
    nxt2 = cls[i + 2] if i + 2 < len(cls) else None
    pair = (prev, curr)
    if pair in (("AL", "NU"), ("NU", "AL"), ("PR", "ID"), ("ID", "PO"), ("AL", "AL"), ("IS", "AL")):
        return True  # LB23, LB23a, LB28, LB29
    if (prev in ("PR", "PO") and curr == "AL") or (prev == "AL" and curr in ("PR", "PO")):
        return True  # LB24
    if curr in ("PO", "PR"):  # LB25: NU (SY|IS)* (CL|CP)? × (PO|PR)
        j = i - 1 - (prev in ("CL", "CP"))
        j = _skip_back(cls, j, ("SY", "IS"))
        if j >= 0 and cls[j] == "NU":
            return True
    if prev in ("PO", "PR") and (curr == "NU" or (curr == "OP" and (nxt == "NU" or (nxt == "IS" and nxt2 == "NU")))):
        return True  # LB25
    if curr == "NU":  # LB25: (HY|IS) × NU, NU (SY|IS)* × NU
        j = _skip_back(cls, i - 1, ("SY", "IS"))
        if prev in ("HY", "IS") or (j >= 0 and cls[j] == "NU"):
            return True
    if prev in ("AL", "NU") and curr == "OP" and not _east_asian(text[i]):
        return True  # LB30
    return prev == "CP" and curr in ("AL", "NU") and not _east_asian(text[i - 1])


def _east_asian(ch: str) -> bool:
    """Full, wide or halfwidth (ASCII is narrow or neutral)."""
    if ch < "\x80":
        return False
    from uniseg.linebreak import east_asian_width

    return east_asian_width(ch).name in _EAST_ASIAN


# ---------------------------------------------------------------- words


@dataclass(frozen=True, slots=True)
class _Word:
    """A textwrap ``Word``: ``line[start:end]`` plus trailing spaces up to ``ws_end``."""

    start: int
    end: int
    ws_end: int
    width: int
    penalty: str = ""


class _Line:
    """One ``\\n``-free line with per-character widths, so word widths are slices."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.kinds = _escape_mask(text)
        widths = [_char_width(c) if k == _PLAIN else 0 for c, k in zip(text, self.kinds, strict=True)]
        self.prefix = [0]
        for w in widths:
            self.prefix.append(self.prefix[-1] + w)
        self.widths = widths

    def width(self, start: int, end: int) -> int:
        return self.prefix[end] - self.prefix[start]

    def word(self, start: int, end: int) -> _Word:
        # Word::from trims only ASCII spaces; tabs and NBSP stay part of the word.
        trimmed = end
        while trimmed > start and self.text[trimmed - 1] == " ":
            trimmed -= 1
        return _Word(start, trimmed, end, self.width(start, trimmed))


def _word_starts_unicode(line: _Line) -> list[int]:
    """Break positions of find_words_unicode_break_properties, as original indices."""
    text = line.text
    # Like textwrap's idx_map: a sequence's ESC maps to the stripped position of the
    # next visible character, so a break there lands before the escape sequence.
    stripped_of: dict[int, int] = {}
    stripped_idx = 0
    for i, kind in enumerate(line.kinds):
        if kind == _SEQ_BODY:
            continue
        stripped_of.setdefault(stripped_idx, i)
        if kind == _PLAIN:
            stripped_idx += 1
    stripped = "".join(ch for ch, kind in zip(text, line.kinds, strict=True) if kind == _PLAIN)
    # textwrap leaves hyphen breaks to the WordSplitter and cannot use soft hyphens.
    breaks = [b for b in _line_breaks(stripped) if 0 < b and stripped[b - 1] not in ("-", _SOFT_HYPHEN)]
    # The final opportunity is dropped; the tail word is added from the original text.
    return [stripped_of[b] for b in breaks[:-1] if b in stripped_of]


def _word_starts_ascii(text: str) -> list[int]:
    """Break positions of find_words_ascii_space: after each run of ASCII spaces."""
    return [m.end() for m in re.finditer(r" +", text) if 0 < m.end() < len(text)]


def _find_words(line: _Line, mode: WrapMode) -> list[_Word]:
    starts = _word_starts_unicode(line) if mode.unicode_breaks else _word_starts_ascii(line.text)
    bounds = [0, *starts, len(line.text)]
    return [line.word(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if a < b]


def _hyphen_split_points(text: str, word: _Word) -> list[int]:
    """HyphenSplitter: after each '-' that has alphanumerics on both sides."""
    points = []
    for i in range(word.start + 1, word.end - 1):
        if text[i] == "-" and text[i - 1].isalnum() and text[i + 1].isalnum():
            points.append(i + 1)
    return points


def _split_words(line: _Line, words: list[_Word], mode: WrapMode) -> Iterator[_Word]:
    for word in words:
        points = _hyphen_split_points(line.text, word) if mode.hyphen_splitter else []
        prev = word.start
        for idx in points:
            penalty = "" if line.text[idx - 1] == "-" else "-"
            yield _Word(prev, idx, idx, line.width(prev, idx), penalty)
            prev = idx
        if prev < word.end or prev == word.start:
            yield _Word(prev, word.end, word.ws_end, line.width(prev, word.end), word.penalty)


def _break_apart(line: _Line, word: _Word, line_width: int) -> Iterator[_Word]:
    """Word::break_apart: cut before the first character that would overflow."""
    offset, width = word.start, 0
    for idx in range(word.start, word.end):
        if line.kinds[idx] != _PLAIN:
            continue
        ch_width = line.widths[idx]
        if width > 0 and width + ch_width > line_width:
            yield _Word(offset, idx, idx, width)
            offset, width = idx, ch_width
            continue
        width += ch_width
    if offset < word.end:
        yield _Word(offset, word.end, word.ws_end, width, word.penalty)


def _break_words(line: _Line, words: Iterable[_Word], line_width: int) -> list[_Word]:
    out: list[_Word] = []
    for word in words:
        if word.width > line_width:
            out.extend(_break_apart(line, word, line_width))
        else:
            out.append(word)
    return out


def _first_fit(words: list[_Word], line_width: int) -> list[list[_Word]]:
    """wrap_first_fit: a line breaks before the first word (plus penalty) that overflows."""
    lines: list[list[_Word]] = []
    start, width = 0, 0
    for idx, word in enumerate(words):
        if width + word.width + len(word.penalty) > line_width and idx > start:
            lines.append(words[start:idx])
            start, width = idx, 0
        width += word.width + (word.ws_end - word.end)
    lines.append(words[start:])
    return lines


# ---------------------------------------------------------------- textwrap::wrap


def _wrap_single_line(text: str, width: int, mode: WrapMode) -> list[Range]:
    # Rust's fast path compares the UTF-8 byte length, not the display width.
    if len(text.encode("utf-8")) < width:
        return [(0, len(text.rstrip(" ")))]
    line = _Line(text)
    words: Iterator[_Word] | list[_Word] = _split_words(line, _find_words(line, mode), mode)
    if mode.break_words:
        words = _break_words(line, words, width)
    ranges = []
    for chunk in _first_fit(list(words), width):
        # Penalties never occur here: HyphenSplitter splits only after a real '-'.
        ranges.append((chunk[0].start, chunk[-1].end) if chunk else (0, 0))
    return ranges


def textwrap_ranges(text: str, width: int, mode: WrapMode = PROSE) -> list[Range]:
    """``textwrap::wrap(text, width)`` as (start, end) slices of ``text``, trailing spaces off.

    ``\\n`` is the line ending, so it always ends a line (the TUI's hard break).
    """
    out: list[Range] = []
    base = 0
    for part in text.split("\n"):
        out.extend((base + a, base + b) for a, b in _wrap_single_line(part, width, mode))
        base += len(part) + 1
    return out


def word_wrap(
    text: str,
    width: int,
    *,
    initial_indent_width: int = 0,
    subsequent_indent_width: int = 0,
    mode: WrapMode = PROSE,
) -> list[Range]:
    """``word_wrap_line``: the first line, then the rest re-wrapped at the subsequent width.

    Returns the slices of ``text`` shown on each output line; the caller adds indents.
    """
    first_width = max(width - initial_indent_width, 1)
    first = textwrap_ranges(text, first_width, mode)[0]
    base = first[1]
    while base < len(text) and text[base] == " ":
        base += 1
    rest_width = max(width - subsequent_indent_width, 1)
    rest = textwrap_ranges(text[base:], rest_width, mode)
    return [first, *((base + a, base + b) for a, b in rest if a < b)]


def adaptive_wrap(
    text: str,
    width: int,
    *,
    initial_indent_width: int = 0,
    subsequent_indent_width: int = 0,
) -> list[Range]:
    """``adaptive_wrap_line``: ``word_wrap`` in URL mode when ``text`` holds a URL-like token."""
    mode = URL if text_contains_url_like(text) else PROSE
    return word_wrap(
        text,
        width,
        initial_indent_width=initial_indent_width,
        subsequent_indent_width=subsequent_indent_width,
        mode=mode,
    )


# ---------------------------------------------------------------- URL detection
# A port of the heuristics in wrapping.rs: file paths such as src/main.rs are not URLs.

_ASCII_WS = re.compile(r"[ \t\n\r\f]+")  # Rust's split_ascii_whitespace (no \v)
_URL_TRIM = "()[]{}<>,.;:!'\""
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_SPECIAL_SCHEMES = frozenset({"http", "https", "ws", "wss", "ftp"})


def text_contains_url_like(text: str) -> bool:
    """True when any ASCII-whitespace-separated token of ``text`` looks like a URL."""
    return any(is_url_like_token(tok) for tok in _ASCII_WS.split(text) if tok)


def is_url_like_token(raw_token: str) -> bool:
    """``scheme://...``, or a bare ``host[:port]/path`` whose host is a domain, IPv4 or localhost."""
    token = raw_token.strip(_URL_TRIM)
    return bool(token) and (_is_absolute_url_like(token) or _is_bare_url_like(token))


def _is_absolute_url_like(token: str) -> bool:
    if "://" not in token:
        return False
    return _url_parses(token) or _has_valid_scheme_prefix(token)


def _url_parses(token: str) -> bool:
    """Rough ``url::Url::parse`` success test: special schemes need a non-empty host."""
    match = _SCHEME.match(token)
    if match is None or token[match.end() : match.end() + 1] != ":":
        return False
    scheme = match.group().lower()
    if scheme not in _SPECIAL_SCHEMES:
        return True
    authority = re.split(r"[/\\?#]", token[match.end() + 1 :].lstrip("/\\"), maxsplit=1)[0]
    host = authority.rpartition("@")[2]
    return bool(host.split(":", 1)[0]) if not host.startswith("[") else True


def _has_valid_scheme_prefix(token: str) -> bool:
    scheme, sep, rest = token.partition("://")
    return bool(sep and rest and _SCHEME.fullmatch(scheme))


def _is_bare_url_like(token: str) -> bool:
    cut = re.search(r"[/?#]", token)
    host_port = token[: cut.start()] if cut else token
    if not host_port or (cut is None and not _ascii_lower(host_port).startswith("www.")):
        return False
    host, port = _split_host_and_port(host_port)
    if not host or (port is not None and not (len(port) <= 5 and int(port) <= 65535)):
        return False
    return _ascii_lower(host) == "localhost" or _is_ipv4(host) or _is_domain_name(host)


def _ascii_lower(text: str) -> str:
    # Rust's to_ascii_lowercase leaves non-ASCII alone (str.lower maps e.g. U+212A to 'k').
    return "".join(c.lower() if c.isascii() else c for c in text)


def _split_host_and_port(host_port: str) -> tuple[str, str | None]:
    if host_port.startswith("["):
        return host_port, None
    host, sep, port = host_port.rpartition(":")
    if sep and host and port and all("0" <= c <= "9" for c in port):
        return host, port
    return host_port, None


def _is_ipv4(host: str) -> bool:
    parts = host.split(".")
    # Rust's u8 parser accepts an optional leading '+'.
    return len(parts) == 4 and all(re.fullmatch(r"\+?[0-9]+", p) is not None and int(p) <= 255 for p in parts)


def _is_domain_name(host: str) -> bool:
    labels = _ascii_lower(host).split(".")
    if len(labels) < 2:
        return False
    tld = labels[-1]
    if not (2 <= len(tld.encode()) <= 63 and re.fullmatch(r"[a-z]+", tld)):
        return False
    return all(_is_domain_label(label) for label in labels[:-1])


def _is_domain_label(label: str) -> bool:
    label_re = r"[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?"
    return 0 < len(label.encode()) <= 63 and re.fullmatch(label_re, label) is not None
