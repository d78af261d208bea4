"""The ``exec`` (freeform, lark grammar) and ``wait`` (function) tool specs
(``execute_spec.rs`` / ``wait_spec.rs`` under codex-rs/core/src/tools/code_mode/)."""

from __future__ import annotations

from typing import Any

from ..tools.schema import function_spec
from .description import wait_description
from .tool_names import EXEC_TOOL_NAME, WAIT_TOOL_NAME

EXEC_GRAMMAR = r"""
start: pragma_source | plain_source
pragma_source: PRAGMA_LINE NEWLINE SOURCE
plain_source: SOURCE

PRAGMA_LINE: /[ \t]*\/\/ @exec:[^\r\n]*/
NEWLINE: /\r?\n/
SOURCE: /[\s\S]+/
"""


def exec_spec(description: str) -> dict[str, Any]:
    return {
        "type": "custom",
        "name": EXEC_TOOL_NAME,
        "description": description,
        "format": {"type": "grammar", "syntax": "lark", "definition": EXEC_GRAMMAR},
    }


def wait_parameters() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "cell_id": {"type": "string", "description": "Identifier of the running exec cell."},
            "max_tokens": {
                "type": "number",
                "description": "Output token budget for this wait call. Defaults to 10000 tokens.",
            },
            "terminate": {
                "type": "boolean",
                "description": "True stops the running exec cell; false or omitted waits for output.",
            },
            "yield_time_ms": {
                "type": "number",
                "description": "Wait before yielding more output. Defaults to 10000 ms.",
            },
        },
        "required": ["cell_id"],
        "additionalProperties": False,
    }


def wait_spec() -> dict[str, Any]:
    return function_spec(WAIT_TOOL_NAME, wait_description(), wait_parameters(), strict=False)
