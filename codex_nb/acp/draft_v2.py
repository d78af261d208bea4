"""The ACP v2 draft's prompt lifecycle and message ids, on top of an SDK that speaks v1.

The pinned SDK (``agent-client-protocol`` 0.12.1, schema v1.19.0) knows ``messageId`` on
message chunks but not the v2 draft's lifecycle (https://agentclientprotocol.com/protocol/v2/draft/overview,
RFD https://agentclientprotocol.com/rfds/v2/prompt): a ``session/prompt`` response that only
accepts the prompt, and an idle ``state_update`` (with the ``stopReason``) that ends the turn
later. The SDK would reject both: ``PromptResponse`` requires ``stopReason`` and
``SessionNotification`` has no ``state_update`` nor whole-message ``agent_message`` variant.
This module adapts them in our own transport (``transport.CheckedTransport``), never in SDK
privates: an acknowledging response gets a placeholder ``stopReason`` and ``ACK_META`` in its
``_meta`` (the session then waits for idle), and the v2 updates become the extension
notification ``_codex_nb/v2_update``, which the SDK dispatches in arrival order with the other
updates (so idle never overtakes the chunks sent before it). The unstable v1 updates codex_nb reads
and the SDK lacks (``unstable_updates.UPDATES``: notices, compactions, subagents) take the same way.
"""

from __future__ import annotations

from typing import Any

from .unstable_updates import UPDATES

ACK_META = "codex_nb/v2_prompt_ack"
"""Set in a prompt response's ``_meta`` when the agent only acknowledged the prompt."""

EXT_METHOD = "codex_nb/v2_update"
"""The extension notification (sent as ``_codex_nb/v2_update``) that carries a v2 update."""

V2_UPDATES = frozenset({"state_update", "agent_message"})
"""The v2 draft's ``session/update`` kinds the v1 schema lacks."""
SET_ASIDE = V2_UPDATES | UPDATES
"""Every update kind sent on as ``EXT_METHOD``: the v2 draft's and the unstable ones codex_nb reads."""


class DraftV2Frames:
    """Per connection: which requests are prompts, so their acknowledgements can be recognised."""

    def __init__(self) -> None:
        self._prompts: set[Any] = set()

    def sent(self, message: dict[str, Any]) -> None:
        if message.get("method") == "session/prompt" and "id" in message:
            self._prompts.add(message["id"])

    def received(self, message: dict[str, Any]) -> dict[str, Any]:
        """``message`` as the SDK can take it (the same object when it is not a v2 one)."""
        if "method" not in message:
            if message.get("id") in self._prompts:
                self._prompts.discard(message["id"])
                result = message.get("result")
                if isinstance(result, dict) and "stopReason" not in result:
                    meta = result.get("_meta")
                    meta = meta if isinstance(meta, dict) else {}
                    message["result"] = {**result, "stopReason": "end_turn", "_meta": {**meta, ACK_META: True}}
            return message
        if message.get("method") == "session/update" and "id" not in message:
            params = message.get("params")
            update = params.get("update") if isinstance(params, dict) else None
            if isinstance(update, dict) and update.get("sessionUpdate") in SET_ASIDE:
                return {"jsonrpc": "2.0", "method": f"_{EXT_METHOD}", "params": params}
        return message


def acknowledged(response: Any) -> bool:
    """True if ``response`` (a ``PromptResponse``) only accepted the prompt (v2)."""
    meta = getattr(response, "field_meta", None)
    return isinstance(meta, dict) and bool(meta.get(ACK_META))
