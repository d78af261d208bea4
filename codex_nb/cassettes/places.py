"""What varies between two runs of one conversation: paths and secrets.

A recorded JSON-RPC conversation is committed next to a notebook and replayed on another
machine, in another checkout, with other temporary folders. Before a message is written,
``Places.to_cassette`` replaces the paths that differ between runs with placeholders
(``<codex_nb:cwd>``, ``<codex_nb:home>``, ``<codex_nb:codex_home>``, ``<codex_nb:tmp1>``...) after the core's ``Scrubber``
masked the secrets; a replay maps
them back (``Places.from_cassette``) and learns which new temporary folder stands for each
``<codex_nb:tmpN>`` from the messages codex_nb sends (``Places.learn``).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Mapping
from typing import Any

from .scrub import Scrubber

TMP_TOKEN = re.compile(r"<codex_nb:tmp(\d+)>")
PREFIX = "<codex_nb:"
"""Placeholders are ``<codex_nb:NAME>``: a plain ``<cwd>`` is also a tag in Codex's own prompt text."""


def _tmp_roots() -> list[str]:
    roots = {tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir()), "/tmp"}
    return sorted((r.rstrip("/") for r in roots if r), key=len, reverse=True)


def _tmp_pattern() -> re.Pattern[str]:
    # pytest's tmp_path is three folders deep and only the last two change; mkdtemp's is one
    roots = "|".join(re.escape(r) for r in _tmp_roots())
    name = r"[A-Za-z0-9._-]+"  # what mkdtemp and pytest make (a prefix and random letters)
    return re.compile(rf"(?:{roots})/(?:pytest-of-{name}/pytest-\d+/[A-Za-z0-9._\[\]-]+|{name})")


class Places:
    """The run-dependent strings of one conversation, both ways."""

    def __init__(
        self,
        *,
        named: Mapping[str, str | None] | None = None,
        scrubber: Scrubber,
    ) -> None:
        named = dict(named or {})
        named.setdefault("cwd", os.getcwd())
        named.setdefault("home", os.path.expanduser("~"))
        self.named = {k: os.path.abspath(v) for k, v in named.items() if v}
        """Placeholder name -> this run's path (``codex_home``, ``cwd``, ``home``)."""
        self.scrubber = scrubber
        self.tmp: dict[str, str] = {}
        """This run's temporary folder -> its placeholder, numbered in order of first appearance."""
        self.learned: dict[str, str] = {}
        """Replay: ``<codex_nb:tmpN>`` -> the temporary folder that stands for it in this run."""
        self._tmp_re = _tmp_pattern()

    # -- recording ---------------------------------------------------------------------------
    def scrub(self, text: str) -> str:
        return self.scrubber.text(text)

    def _placeholders(self, text: str) -> str:
        # the longest path first: a cwd inside a temporary folder is the cwd, not tmp1/...
        for name, path in sorted(self.named.items(), key=lambda kv: len(kv[1]), reverse=True):
            text = _replace_path(text, path, f"{PREFIX}{name}>")
        return self._tmp_re.sub(self._tmp_token, text)

    def _tmp_token(self, match: re.Match[str]) -> str:
        token = self.tmp.get(match.group(0))
        if token is None:
            token = self.tmp[match.group(0)] = f"{PREFIX}tmp{len(self.tmp) + 1}>"
        return token

    def to_cassette(self, value: Any) -> Any:
        """A message as it is written: secrets scrubbed, run-dependent paths as placeholders."""
        return _map_strings(value, lambda s: self._placeholders(self.scrub(s)))

    # -- replaying ---------------------------------------------------------------------------
    def normalise(self, value: Any) -> Any:
        """A message codex_nb sends now, in the cassette's terms (for matching)."""
        return _map_strings(value, self._normalise_text)

    def _normalise_text(self, text: str) -> str:
        text = self.scrub(text)
        for name, path in sorted(self.named.items(), key=lambda kv: len(kv[1]), reverse=True):
            text = _replace_path(text, path, f"{PREFIX}{name}>")
        for token, folder in self.learned.items():
            text = _replace_path(text, folder, token)
        return text

    def learn(self, recorded: Any, sent: Any) -> None:
        """Pair each ``<codex_nb:tmpN>`` of a recorded message with the folder in the same place now."""
        if isinstance(recorded, dict) and isinstance(sent, dict):
            for key in recorded.keys() & sent.keys():
                self.learn(recorded[key], sent[key])
        elif isinstance(recorded, list) and isinstance(sent, list):
            for a, b in zip(recorded, sent, strict=False):
                self.learn(a, b)
        elif isinstance(recorded, str) and isinstance(sent, str) and TMP_TOKEN.search(recorded):
            self._learn_text(recorded, self._normalise_text(sent))

    def _learn_text(self, recorded: str, sent: str) -> None:
        parts = TMP_TOKEN.split(recorded)
        pattern, tokens = "", []
        for i, part in enumerate(parts):
            if i % 2 == 0:
                pattern += re.escape(part)
            else:
                tokens.append(f"{PREFIX}tmp{part}>")
                pattern += f"({self._tmp_re.pattern})"
        match = re.fullmatch(pattern, sent)
        if match is None:
            return
        for token, folder in zip(tokens, match.groups(), strict=False):
            self.learned.setdefault(token, folder)

    def from_cassette(self, value: Any) -> Any:
        """A recorded message as this run's peer would have sent it (placeholders mapped back)."""
        return _map_strings(value, self._restore_text)

    def _restore_text(self, text: str) -> str:
        if PREFIX not in text:
            return text
        for name, path in self.named.items():
            text = text.replace(f"{PREFIX}{name}>", path)
        for token, folder in self.learned.items():
            text = text.replace(token, folder)
        return text


def _replace_path(text: str, path: str, token: str) -> str:
    if not path or path == "/" or path not in text:
        return text
    # a path only where it is a whole path or a prefix of one (not /tmp/ab inside /tmp/abc), and
    # only where one starts: not the tail of another path (/root inside /srv/root) nor the slash
    # of a closing tag (/root inside </root>, with HOME=/root)
    return re.sub(r"(?<![\w.~/<-])" + re.escape(path) + r"(?=$|[/\\\s\"'`:;,)\]}<>|&?#=])", lambda _m: token, text)


def _map_strings(value: Any, apply: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return apply(value)
    if isinstance(value, dict):
        return {k: _map_strings(v, apply) for k, v in value.items()}
    if isinstance(value, list):
        return [_map_strings(v, apply) for v in value]
    return value
