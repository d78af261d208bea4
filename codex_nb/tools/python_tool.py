"""Python functions as function tools: how users prototype tools in a notebook.

The JSON schema comes from the type hints (pydantic), the description from the
docstring. Arguments are validated; a validation error reaches the model as
``failed to parse function arguments: ...``. Async functions run on the loop; sync
functions run in a worker thread so the kernel stays responsive. An exception inside
the tool becomes a failed output the model can read, never an exception in the
notebook.

Cancellation (what a cancelled call can and cannot stop):

* an **async** tool is cancelled at its next ``await`` (``CancelledError`` is raised
  there; ``finally`` blocks run);
* a **sync** tool's call answers ``aborted by user after {secs:.1}s`` at once, but its
  worker thread cannot be killed: it runs on until the function returns, and its
  result or exception is discarded. Side effects it makes after the cancel still
  happen. To stop early, take a keyword-only ``invocation`` parameter and check
  ``invocation.cancel.cancelled`` between steps, or wait with
  ``invocation.cancel.wait_sync(seconds)`` (returns True at once when cancelled)
  instead of ``time.sleep``. An abandoned thread costs only itself: sync tools and
  hooks run on ``tools.threads.SyncWorkers``, which starts a worker rather than queue
  a call behind abandoned ones.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import traceback
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import ConfigDict, Field, ValidationError, create_model

from ..errors import ToolDefinitionError
from ..protocol.serde import SerdeError
from ..protocol.serde import typed_loads as loads
from ..protocol.wire import dumps
from .base import Tool
from .tool_errors import FunctionCallError, RespondToModel
from .exposure import ToolExposure
from .invocation import ToolInvocation
from .payload import ToolOutput
from .schema import function_spec, normalize_schema
from .threads import sync_workers


class PythonFunctionTool(Tool):
    """Wraps ``fn``; ``invocation`` may be requested as a keyword-only parameter named ``invocation``."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        namespace: str | None = None,
        description: str | None = None,
        exposure: ToolExposure = ToolExposure.Direct,
        parallel: bool = False,
        namespace_description: str = "",
    ) -> None:
        if not callable(fn):
            raise ToolDefinitionError(f"@session.tool needs a function, got {type(fn).__name__}")
        tool_name = name or getattr(fn, "__name__", None)
        if not tool_name or tool_name == "<lambda>":
            raise ToolDefinitionError("this callable has no usable __name__; pass name='my_tool'")
        super().__init__(
            tool_name,
            namespace=namespace,
            exposure=exposure,
            supports_parallel=parallel,
            namespace_description=namespace_description,
        )
        self.fn = fn
        self.is_async = inspect.iscoroutinefunction(fn)
        self.description = description if description is not None else inspect.cleandoc(fn.__doc__ or "")
        self._wants_invocation = "invocation" in inspect.signature(fn).parameters
        self.arguments_model = _arguments_model(fn, tool_name)
        self._spec = function_spec(tool_name, self.description, _parameters(self.arguments_model))

    def spec(self) -> dict[str, Any]:
        return self._spec

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        kwargs = self._parse(invocation.payload_text)
        if self._wants_invocation:
            kwargs["invocation"] = invocation
        try:
            if self.is_async:
                result = await self.fn(**kwargs)
            else:
                result = await self._run_in_thread(invocation, kwargs)
        except FunctionCallError:
            raise
        except Exception as err:
            raise RespondToModel(_describe_exception(err)) from err
        return _to_output(result)

    async def _run_in_thread(self, invocation: ToolInvocation, kwargs: dict[str, Any]) -> Any:
        """Run the sync function in a worker thread. If the call is cancelled while the
        thread runs, its result (or exception) is discarded, deterministically, even if
        the thread finished before the loop saw the cancel."""
        try:
            result = await sync_workers().run(self.fn, **kwargs)
        except Exception:
            if invocation.cancel.cancelled:
                raise asyncio.CancelledError(f"call {invocation.call_id} was cancelled") from None
            raise
        if invocation.cancel.cancelled:
            raise asyncio.CancelledError(f"call {invocation.call_id} was cancelled")
        return result

    def _parse(self, text: str) -> dict[str, Any]:
        try:
            raw = loads(text) if text.strip() else {}
        except SerdeError as err:
            raise RespondToModel(f"failed to parse function arguments: {err}") from None
        if not isinstance(raw, dict):
            raise RespondToModel(
                f"failed to parse function arguments: expected a JSON object, got {type(raw).__name__}"
            )
        try:
            parsed = self.arguments_model.model_validate(raw)
        except ValidationError as err:
            raise RespondToModel(f"failed to parse function arguments: {_validation_text(err)}") from None
        return {name: getattr(parsed, name) for name in type(parsed).model_fields}


def _arguments_model(fn: Callable[..., Any], tool_name: str) -> Any:
    try:
        hints = get_type_hints(fn, include_extras=True)  # keep Annotated[..., Field(description=...)]
    except Exception as err:
        raise ToolDefinitionError(f"cannot read the type hints of {tool_name}: {err}") from err
    fields: dict[str, Any] = {}
    documented = docstring_args(fn.__doc__)
    for param in inspect.signature(fn).parameters.values():
        if param.name == "invocation":
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolDefinitionError(
                f"tool {tool_name}: *args/**kwargs cannot be described to a model; "
                f"declare each argument with a type hint"
            )
        if param.name not in hints:
            raise ToolDefinitionError(
                f"tool {tool_name}: argument {param.name!r} has no type hint; add one "
                f"(e.g. {param.name}: str) so the model knows what to send"
            )
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (
            hints[param.name],
            Field(
                default,
                description=_describe_param(
                    _annotated_description(hints[param.name]) or documented.get(param.name), default
                ),
            ),
        )
    return create_model(f"{tool_name}_arguments", __config__=ConfigDict(defer_build=True, extra="forbid"), **fields)


def _annotated_description(hint: Any) -> str | None:
    for extra in getattr(hint, "__metadata__", ()):
        description = getattr(extra, "description", None)
        if isinstance(description, str):
            return description
    return None


def _describe_param(description: str | None, default: Any) -> str | None:
    """Codex's tool schemas have no ``default`` keyword, so a default is said in the description."""
    if default is ... or default is None:  # None: "optional" is already what `required` says
        return description
    try:
        shown = dumps(default)
    except (TypeError, ValueError):
        shown = repr(default)
    return f"{description.rstrip().rstrip('.')} (default: {shown})." if description else f"Default: {shown}."


_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params)\s*:?\s*$")
_GOOGLE_ITEM = re.compile(r"^(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ITEM = re.compile(r"^(\w+)\s*(?::\s*.*)?$")


def docstring_args(doc: str | None) -> dict[str, str]:
    """Per-argument descriptions from a Google (``Args:``) or NumPy (``Parameters`` + dashes) section."""
    lines = inspect.cleandoc(doc or "").splitlines()
    out: dict[str, str] = {}
    start = next((i for i, line in enumerate(lines) if _SECTION.match(line.strip())), None)
    if start is None:
        return out
    body = lines[start + 1 :]
    numpy = bool(body) and set(body[0].strip()) == {"-"}
    if numpy:
        body = body[1:]
    current: str | None = None
    base_indent: int | None = None
    for line in body:
        if not line.strip():
            if numpy:
                continue
            break
        indent = len(line) - len(line.lstrip())
        if base_indent is None:
            base_indent = indent
        if indent < base_indent or (
            numpy
            and _SECTION.match(line.strip()) is None
            and indent == base_indent
            and line.strip().endswith(("Returns", "Raises", "Yields"))
        ):
            break
        text = line.strip()
        if indent == base_indent:
            match = (_NUMPY_ITEM if numpy else _GOOGLE_ITEM).match(text)
            if match is None:
                break
            current = match.group(1).lstrip("*")
            out[current] = "" if numpy else match.group(2).strip()
        elif current is not None:
            out[current] = f"{out[current]} {text}".strip()
    return {name: text for name, text in out.items() if text}


def _parameters(model: Any) -> dict[str, Any]:
    schema = model.model_json_schema()
    params = normalize_schema(schema)
    params.setdefault("properties", {})
    params["additionalProperties"] = False
    return params


def _validation_text(err: ValidationError) -> str:
    parts = []
    for e in err.errors(include_url=False):
        where = ".".join(str(p) for p in e["loc"]) or "arguments"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


def _describe_exception(err: Exception) -> str:
    frame = traceback.extract_tb(err.__traceback__)[-1] if err.__traceback__ else None
    where = f" (at {frame.name}, line {frame.lineno})" if frame else ""
    return f"tool raised {type(err).__name__}: {err}{where}"


def _to_output(result: Any) -> ToolOutput:
    if isinstance(result, ToolOutput):
        return result
    if isinstance(result, str):
        return ToolOutput(body=result, code_mode_result=result)
    try:
        text, value = dumps(result), result
    except (TypeError, ValueError):
        text = str(result)
        value = text
    return ToolOutput(body=text, code_mode_result=value)
