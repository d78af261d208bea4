"""The body of one ``POST /responses`` request, shaped as Codex 0.169 sends it.

Observed from the real binary (a local server recording its bodies): ``model``,
``stream: true``, ``input`` (the whole history, reasoning items with their encrypted
content), ``tools`` (the step's plan specs), ``tool_choice: "auto"``,
``parallel_tool_calls``, ``reasoning`` (``{"effort"?, "summary"}``; summary ``auto`` by
default), ``store: false``, ``include: ["reasoning.encrypted_content"]`` and
``prompt_cache_key`` = the thread id. Codex's ``client_metadata`` (installation and
window ids) is Codex-internal and not sent.
"""

from __future__ import annotations

from typing import Any


def reasoning_param(effort: str | None, summary: str | None) -> dict[str, str] | None:
    """Codex's ``reasoning`` object: effort only when configured, summary ``auto`` unless ``none``."""
    out: dict[str, str] = {}
    if effort is not None:
        out["effort"] = effort
    summary = "auto" if summary is None else summary
    if summary != "none":
        out["summary"] = summary
    return out or None


def build_body(
    *,
    model: str,
    items: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    parallel_tool_calls: bool,
    reasoning: dict[str, str] | None,
    prompt_cache_key: str | None,
    instructions: str | None = None,
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model}
    if instructions is not None:
        body["instructions"] = instructions
    body.update(
        {
            "stream": True,
            "input": items,
            "tools": tools,
            "tool_choice": "auto",
            "parallel_tool_calls": parallel_tool_calls,
        }
    )
    if reasoning is not None:
        body["reasoning"] = reasoning
    body["store"] = False
    body["include"] = ["reasoning.encrypted_content"] if reasoning is not None else []
    if prompt_cache_key:
        body["prompt_cache_key"] = prompt_cache_key
    return body
