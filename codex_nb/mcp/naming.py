"""Model-visible names for MCP tools, by Codex's rules: sanitise, de-duplicate, then fit in 128 bytes.

A port of ``normalize_tools_for_model_with_prefix`` and its helpers in
``codex-rs/codex-mcp/src/tools.rs`` (https://github.com/openai/codex, with
``sanitize_responses_api_tool_name`` from ``codex-rs/codex-mcp/src/mcp/mod.rs``), so a
server's tools get the same namespace and name here as in the Codex binary, byte for
byte: the model, hooks and rollouts see one spelling.

For a configured server Codex seeds the namespace with the server's name and the
callable name with the tool's raw name. Then:

1. a tool whose raw identity (server, tool) was already listed is skipped;
2. both parts are sanitised (``[A-Za-z0-9_]``; anything else, ``-`` included, becomes
   ``_``; an empty part becomes ``_``) and the namespace gets the ``mcp__`` prefix
   unless it already starts with it;
3. namespaces that two servers share after sanitising get ``_`` + 12 hex digits of
   the SHA-1 of the server's raw identity; names two tools share in one namespace get
   the same kind of suffix from the tool's raw identity;
4. in raw-identity order, a name whose flat form ``namespace__name`` exceeds 128 bytes,
   or is already taken, is cut down and given a hash suffix (a counter joins the hash
   input until the name is unused).

The limit is 128, not the 64 of older releases and of upstream's main branch today:
that is what the pinned 0.169 binary does (an 80-character tool name on a short
server name reaches its model whole, and a 75-character namespace leaves 51 bytes for
the name), and what ``tools.rs`` said at rust-v0.153.4. tests/unit/mcp/test_mcp_vs_codex.py
compares these names with the binary's.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable

from .._records import record

_PREFIX = "mcp__"
_DELIMITER = "__"
MAX_TOOL_NAME_LENGTH = 128
_HASH_LEN = 12


@record(frozen=True, kw_only=True, slots=True)
class ModelName:
    """Where one raw MCP tool lands for the model."""

    server: str
    raw_name: str
    namespace: str
    name: str


@record(frozen=True, kw_only=True, slots=True)
class SkippedName:
    """A tool Codex would drop: its raw identity was already listed."""

    server: str
    raw_name: str
    reason: str


def sanitize(name: str) -> str:
    """``sanitize_responses_api_tool_name``: ASCII letters, digits and ``_``; empty becomes ``_``."""
    out = "".join(c if (c.isascii() and c.isalnum()) or c == "_" else "_" for c in name)
    return out or "_"


def _sha1_hex(value: str) -> str:
    # Rust hashes the UTF-8 bytes; surrogatepass keeps a lone surrogate from raising here.
    return hashlib.sha1(value.encode("utf-8", "surrogatepass")).hexdigest()


def _hash_suffix(raw_identity: str) -> str:
    return "_" + _sha1_hex(raw_identity)[:_HASH_LEN]


def _with_prefix(namespace: str) -> str:
    return namespace if namespace.startswith(_PREFIX) else _PREFIX + namespace


def _namespace_with_hash(namespace: str, raw_identity: str) -> str:
    if namespace.endswith(_DELIMITER):
        return namespace[: -len(_DELIMITER)] + _hash_suffix(raw_identity) + _DELIMITER
    return namespace + _hash_suffix(raw_identity)


def _fit_with_hash(namespace: str, name: str, raw_identity: str) -> tuple[str, str]:
    suffix = _hash_suffix(raw_identity)
    max_name = max(0, MAX_TOOL_NAME_LENGTH - (len(namespace) + len(_DELIMITER)))
    if max_name >= len(suffix):
        return namespace, name[: max_name - len(suffix)] + suffix
    return namespace[: max(0, MAX_TOOL_NAME_LENGTH - (len(suffix) + len(_DELIMITER)))], suffix


def _unique_parts(namespace: str, name: str, raw_identity: str, used: set[str]) -> tuple[str, str]:
    flat = namespace + name
    if len(flat) + len(_DELIMITER) <= MAX_TOOL_NAME_LENGTH and flat not in used:
        used.add(flat)
        return namespace, name
    attempt = 0
    while True:
        hash_input = raw_identity if attempt == 0 else f"{raw_identity}\0{attempt}"
        fitted = _fit_with_hash(namespace, name, hash_input)
        if fitted[0] + fitted[1] not in used:
            used.add(fitted[0] + fitted[1])
            return fitted
        attempt += 1


@record(slots=True)
class _Candidate:
    server: str
    raw_name: str
    namespace_identity: str
    tool_identity: str
    namespace: str
    name: str


def model_names(tools: Iterable[tuple[str, str]]) -> tuple[list[ModelName], list[SkippedName]]:
    """Codex's names for ``(server, raw tool name)`` pairs of every server at once, in listing order.

    Returns the named tools (in Codex's raw-identity order) and the skipped duplicates."""
    seen: set[str] = set()
    skipped: list[SkippedName] = []
    candidates: list[_Candidate] = []
    for server, raw_name in tools:
        namespace_identity = f"{server}\0{server}\0"  # server, seed namespace, no connector id
        tool_identity = f"{namespace_identity}\0{raw_name}\0{raw_name}"
        if tool_identity in seen:
            skipped.append(
                SkippedName(
                    server=server,
                    raw_name=raw_name,
                    reason="the server lists this tool name more than once; the first is used",
                )
            )
            continue
        seen.add(tool_identity)
        candidates.append(
            _Candidate(
                server, raw_name, namespace_identity, tool_identity, _with_prefix(sanitize(server)), sanitize(raw_name)
            )
        )

    servers_by_namespace: dict[str, set[str]] = defaultdict(set)
    for c in candidates:
        servers_by_namespace[c.namespace].add(c.namespace_identity)
    for c in candidates:
        if len(servers_by_namespace[c.namespace]) > 1:
            c.namespace = _namespace_with_hash(c.namespace, c.namespace_identity)

    tools_by_name: dict[tuple[str, str], set[str]] = defaultdict(set)
    for c in candidates:
        tools_by_name[(c.namespace, c.name)].add(c.tool_identity)
    for c in candidates:
        if len(tools_by_name[(c.namespace, c.name)]) > 1:
            c.name += _hash_suffix(c.tool_identity)

    # Rust compares Strings by UTF-8 bytes, which orders like Python's code points.
    candidates.sort(key=lambda c: c.tool_identity)
    used: set[str] = set()
    named = []
    for c in candidates:
        namespace, name = _unique_parts(c.namespace, c.name, c.tool_identity, used)
        named.append(ModelName(server=c.server, raw_name=c.raw_name, namespace=namespace, name=name))
    return named, skipped


MAX_NAMESPACE_DESCRIPTION_BYTES = 512 * 1024
"""What the pinned binary keeps of a server's ``instructions`` (measured: 600 KB arrive as
exactly 524,288 bytes, with no marker; upstream's main branch has since moved to 4 KiB)."""


def namespace_description(instructions: str) -> str:
    """A server's ``instructions`` as Codex 0.169 shows them: trimmed, cut to 512 KiB of UTF-8 on a
    character boundary."""
    text = instructions.strip()
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= MAX_NAMESPACE_DESCRIPTION_BYTES:
        return text
    return data[:MAX_NAMESPACE_DESCRIPTION_BYTES].decode("utf-8", "ignore")
