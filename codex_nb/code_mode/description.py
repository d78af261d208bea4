"""The ``exec`` / ``wait`` descriptions and per-tool TypeScript declarations, so the model
reads the tools' signatures as Codex shows them.

The template text is Codex's ``description.rs`` constant verbatim; only the
``yield_time_ms`` default is substituted from config (``30000`` by default).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..tools.names import ToolName
from .typescript import normalize_identifier, render_json_schema_to_typescript

PRAGMA_PREFIX = "// @exec:"
RUNTIME_DEFAULT_YIELD_TIME_MS = 10_000
DEFAULT_MAX_OUTPUT_TOKENS = 10_000

EXEC_DESCRIPTION_TEMPLATE = """Run JavaScript code to orchestrate/compose tool calls
- Evaluates the provided JavaScript code in a fresh V8 isolate as an async module.
- All nested tools are available on the global `tools` object, for example `await tools.exec_command(...)`. \
Tool names are exposed as normalized JavaScript identifiers, for example `await tools.mcp__ologs__get_profile(...)`.
- Nested tool methods take either a string or an object as their input argument.
- Nested tools return either an object or a string, based on the description.
- Runs raw JavaScript -- no Node, no file system, no network access, no console.
- Accepts raw JavaScript source text, not JSON, quoted strings, or markdown code fences.
- You may optionally start the tool input with a first-line pragma like \
`// @exec: {"yield_time_ms": 10000, "max_output_tokens": 1000}`.
- `yield_time_ms` asks `exec` to yield early if the script is still running. Defaults to 10000 ms.
- `max_output_tokens` sets the token budget for direct `exec` results. Defaults to 10000 tokens.
- When the JS code is fully evaluated, the isolate's lifetime ends and unawaited promises are silently discarded.

- Global helpers:
- `exit()`: Immediately ends the current script successfully (like an early return from the top level).
- `text(value: string | number | boolean | undefined | null)`: Appends a text item. Non-string values are \
stringified with `JSON.stringify(...)` when possible.
- `image(imageUrlOrItem: string | { image_url: string; detail?: "auto" | "low" | "high" | "original" | null } | \
ImageContent, detail?: "auto" | "low" | "high" | "original" | null)`: Appends an image item. `image_url` should be \
a base64-encoded `data:` URL. To forward an MCP tool image, pass an individual `ImageContent` block from \
`result.content`, for example `image(result.content[0])`. MCP image blocks may request detail with \
`_meta: { "codex/imageDetail": "original" }`. When provided, the second `detail` argument overrides any detail \
embedded in the first argument.
- `audio(audioUrlOrItem: string | { audio_url: string } | AudioContent)`: Appends an audio item. `audio_url` \
should be a base64-encoded `data:` URL. To forward an MCP tool audio block, pass an individual `AudioContent` \
block from `result.content`, for example `audio(result.content[0])`.
- `generatedImage(result: { image_url: string; output_hint?: string })`: Appends an image-generation result and \
its optional output hint. HTTP(S) URLs are not supported.
- `store(key: string, value: any)`: stores a serializable value under a string key for later `exec` calls in \
the same session.
- `load(key: string)`: returns the stored value for a string key, or `undefined` if it is missing.
- `notify(value: string | number | boolean | undefined | null)`: immediately injects an extra \
`custom_tool_call_output` for the current `exec` call. Values are stringified like `text(...)`.
- `setTimeout(callback: () => void, delayMs?: number)`: schedules a callback to run later and returns a timeout \
id. Pending timeouts do not keep `exec` alive by themselves; await an explicit promise if you need to wait for one.
- `clearTimeout(timeoutId?: number)`: cancels a timeout created by `setTimeout`.
- `ALL_TOOLS`: metadata for the enabled nested tools as `{ name, description }` entries.
- `yield_control()`: yields the accumulated output to the model immediately while the script keeps running."""

DEFERRED_NESTED_TOOLS_GUIDANCE = (
    "Some deferred nested tools may be omitted from this description. They are still available on the global "
    "`tools` object and listed in `ALL_TOOLS`.\nTo find one, filter `ALL_TOOLS` by `name` and `description`."
)
TOOL_AVAILABILITY_NOTE = "Tool availability can change between calls."

WAIT_DESCRIPTION_TEMPLATE = """- Use `wait` only after `exec` returns `Script running with cell ID ...`.
- `cell_id` identifies the running `exec` cell to resume.
- `yield_time_ms` controls how long to wait for more output before yielding again. Defaults to 10000 ms.
- `max_tokens` limits how much new output this wait call returns. Defaults to 10000 tokens.
- `terminate: true` stops the running cell; false or omitted waits for output.
- `wait` returns only the new output since the last yield, or the final completion or termination result for \
that cell.
- If the cell is still running, `wait` may yield again with the same `cell_id`.
- If the cell has already finished, `wait` returns the completed result and closes the cell."""

MCP_TYPESCRIPT_PREAMBLE = """type Role = "user" | "assistant";
type MetaObject = Record<string, unknown>;
type Annotations = {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
};
type Icon = {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
};
type TextResourceContents = {
  uri: string;
  mimeType?: string;
  _meta?: MetaObject;
  text: string;
};
type BlobResourceContents = {
  uri: string;
  mimeType?: string;
  _meta?: MetaObject;
  blob: string;
};
type TextContent = {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type ImageContent = {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type AudioContent = {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type ResourceLink = {
  icons?: Icon[];
  name: string;
  title?: string;
  uri: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  _meta?: MetaObject;
  type: "resource_link";
};
type EmbeddedResource = {
  type: "resource";
  resource: TextResourceContents | BlobResourceContents;
  annotations?: Annotations;
  _meta?: MetaObject;
};
type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLink
  | EmbeddedResource;
type CallToolResult<TStructured = { [key: string]: unknown }> = {
  _meta?: MetaObject;
  content: ContentBlock[];
  isError?: boolean;
  structuredContent?: TStructured;
  [key: string]: unknown;
};"""


@dataclass(frozen=True, kw_only=True)
class NestedToolDefinition:
    """What Code Mode needs to know about one nested tool."""

    tool_name: ToolName
    description: str
    kind: Literal["function", "freeform"]
    input_schema: Any = None
    output_schema: Any = None
    namespace_description: str = ""

    @property
    def name(self) -> str:
        """The raw code-mode name (``ns__name`` for namespaced tools, as Codex spells it)."""
        return self.tool_name.code_mode_identifier

    @property
    def identifier(self) -> str:
        return normalize_identifier(self.name)


def exec_description_template(default_yield_time_ms: int = RUNTIME_DEFAULT_YIELD_TIME_MS) -> str:
    return EXEC_DESCRIPTION_TEMPLATE.replace("Defaults to 10000 ms.", f"Defaults to {default_yield_time_ms} ms.", 1)


def wait_description() -> str:
    return "Waits on a yielded `exec` cell and returns new output or completion.\n" + WAIT_DESCRIPTION_TEMPLATE


def mcp_structured_content_schema(output_schema: Any) -> Any:
    """The ``structuredContent`` schema when ``output_schema`` is an MCP ``CallToolResult``
    shape (``True`` when it has none); ``None`` otherwise."""
    props = output_schema.get("properties") if isinstance(output_schema, dict) else None
    if not isinstance(props, dict):
        return None
    content = props.get("content")
    if not isinstance(content, dict) or content.get("type") != "array":
        return None
    items = content.get("items")
    if not isinstance(items, dict) or items.get("type") != "object":
        return None
    for key, kind in (("isError", "boolean"), ("_meta", "object")):
        if not isinstance(props.get(key), dict) or props[key].get("type") != kind:
            return None
    return props.get("structuredContent", True)


def tool_declaration(tool: NestedToolDefinition) -> str:
    """``name(args: T): Promise<R>;``"""
    input_name = "args" if tool.kind == "function" else "input"
    if tool.kind == "freeform":
        input_type = "string"
    else:
        input_type = "unknown" if tool.input_schema is None else render_json_schema_to_typescript(tool.input_schema)
    structured = mcp_structured_content_schema(tool.output_schema)
    if structured is not None:
        inner = render_json_schema_to_typescript(structured)
        output_type = "CallToolResult" if inner == "unknown" else f"CallToolResult<{inner}>"
    elif tool.output_schema is not None:
        output_type = render_json_schema_to_typescript(tool.output_schema)
    else:
        output_type = "unknown"
    return f"{tool.identifier}({input_name}: {input_type}): Promise<{output_type}>;"


def code_mode_sample(tool: NestedToolDefinition) -> str:
    """The description followed by the ``exec tool declaration`` block, the way Codex augments
    a nested-capable top-level tool."""
    declaration = f"declare const tools: {{ {tool_declaration(tool)} }};"
    return f"{tool.description}\n\nexec tool declaration:\n```ts\n{declaration}\n```"


def tool_heading(identifier: str, raw_name: str) -> str:
    return f"### `{identifier}`" if identifier == raw_name else f"### `{identifier}` (`{raw_name}`)"


def _listing_order(tool: NestedToolDefinition) -> tuple[bool, str, str]:
    """Namespace, then name; default-namespace tools (Codex's ``None`` namespace) first."""
    return (not tool.tool_name.is_default, tool.tool_name.namespace, tool.tool_name.name)


def build_exec_description(
    enabled: list[NestedToolDefinition],
    *,
    deferred: Sequence[NestedToolDefinition] = (),
    code_mode_only: bool,
    default_yield_time_ms: int = RUNTIME_DEFAULT_YIELD_TIME_MS,
) -> str:
    """The full ``exec`` description: the template, the deferred-tools guidance and the
    availability note (Codex 0.169 always sends both, deferred tools or not); in
    CodeModeOnly also the nested tools, sorted by namespace then name."""
    sections = [
        exec_description_template(default_yield_time_ms),
        DEFERRED_NESTED_TOOLS_GUIDANCE,
        TOOL_AVAILABILITY_NOTE,
    ]
    if not code_mode_only:
        return "\n\n".join(sections)
    if any(mcp_structured_content_schema(t.output_schema) is not None for t in [*enabled, *deferred]):
        sections.append(f"Shared MCP Types:\n```ts\n{MCP_TYPESCRIPT_PREAMBLE}\n```")
    listing: list[str] = []
    current_ns: str | None = None
    for tool in sorted(enabled, key=_listing_order):
        ns = tool.tool_name.namespace
        if ns != current_ns:
            if tool.namespace_description.strip():
                listing.append(f"## {ns}\n{tool.namespace_description.strip()}")
            current_ns = ns
        sample = code_mode_sample(tool).strip()
        heading = tool_heading(tool.identifier, tool.name)
        listing.append(f"{heading}\n{sample}" if sample else heading)
    if listing:
        sections.append("\n\n".join(listing))
    return "\n\n".join(sections)
