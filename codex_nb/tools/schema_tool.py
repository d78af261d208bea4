"""A function tool defined by a raw JSON input schema, as app-server clients define dynamic tools.

Python functions get their schema from type hints; a tool whose schema already exists (from
a service, a file, another agent) takes it as JSON. The schema goes through Codex's ingest
(``input_schema.parse_tool_input_schema``), so the ``parameters`` the model sees and the
Code Mode declaration are the ones Codex 0.169 makes of the same schema. Arguments reach
the handler parsed but not validated against the schema (Codex does not validate them either).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from ..errors import ToolDefinitionError
from ..protocol.serde import SerdeError
from ..protocol.serde import typed_loads as loads
from ..protocol.wire import dumps
from .base import Tool
from .tool_errors import RespondToModel
from .exposure import ToolExposure
from .input_schema import parse_tool_input_schema
from .invocation import ToolInvocation
from .payload import ToolOutput
from .schema import function_spec


class SchemaTool(Tool):
    """``handler(arguments)`` (sync or async) answers a call; a string result is the output
    text, any other JSON value is serialised. ``input_schema`` is any JSON schema."""

    def __init__(
        self,
        name: str,
        *,
        description: str,
        input_schema: Any,
        handler: Callable[[Any], Any],
        namespace: str | None = None,
        exposure: ToolExposure = ToolExposure.Direct,
    ) -> None:
        if not isinstance(description, str):
            raise ToolDefinitionError(
                f"SchemaTool {name!r} needs a description string, got {type(description).__name__}"
            )
        if not callable(handler):
            raise ToolDefinitionError(f"SchemaTool {name!r} needs a callable handler, got {type(handler).__name__}")
        super().__init__(name, namespace=namespace, exposure=exposure)
        self.description = description
        self.handler = handler
        try:
            parameters = parse_tool_input_schema(input_schema)
        except ToolDefinitionError as err:
            raise ToolDefinitionError(f"SchemaTool {name!r}: {err}; fix the schema") from None
        self._spec = function_spec(name, description, parameters)

    def spec(self) -> dict[str, Any]:
        return self._spec

    async def handle(self, invocation: ToolInvocation) -> ToolOutput:
        text = invocation.payload_text
        try:
            arguments = loads(text) if text.strip() else {}
        except SerdeError as err:
            raise RespondToModel(f"failed to parse function arguments: {err}") from None
        result = self.handler(arguments)
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, str):
            return ToolOutput(body=result, code_mode_result=result)
        return ToolOutput(body=dumps(result), code_mode_result=result)
