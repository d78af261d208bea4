"""Play a scenario on codex_nb: a Session with a ScriptedModel reading the same script."""

from __future__ import annotations

import asyncio
import copy
import tempfile
from pathlib import Path
from typing import Any

import codex_nb as cx
from codex_nb.testing import RecordingSubscriber, ScriptedModel

from .normalise import after_prompt, clean, plan_payload, tool_specs
from .observe_codex import FOLLOWUP_PROMPT, paths_of, write_layout
from .scenario import INTERRUPT, PROMPT, Scenario


def _camel_questions(questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return questions


def server_request(event: cx.Event, paths: dict[str, str]) -> dict[str, Any] | None:
    """The app-server request Codex would send for this core event (same normalisation)."""
    msg = event.msg.model_dump(mode="json")
    if msg["type"] == "request_user_input":
        return {"method": "item/tool/requestUserInput", "params": clean({"questions": msg["questions"]}, paths)}
    if msg["type"] == "request_permissions":
        params = {"cwd": msg["cwd"], "environmentId": msg.get("environment_id"), "permissions": msg["permissions"]}
        if msg.get("reason") is not None:
            params["reason"] = msg["reason"]
        return {"method": "item/permissions/requestApproval", "params": clean(params, paths)}
    return None


def hook_run(event: cx.Event) -> dict[str, Any] | None:
    msg = event.msg.model_dump(mode="json")
    if msg["type"] != "hook_completed":
        return None
    run = msg["run"]
    return {"event": _camel(run["event_name"]), "status": run["status"]}


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


async def play(scenario: Scenario, dirs: dict[str, Path]) -> dict[str, Any]:
    config = cx.Config.from_toml(scenario.config_toml)
    session = cx.Session(config, cwd=str(dirs["work"]))
    if scenario.hooks is not None:
        session.load_hooks(dirs["home"] / "hooks.json")
        if scenario.trust_hooks:
            session.trust_hooks()
    if scenario.answers:
        session.answer_policy = copy.deepcopy(list(scenario.answers))
    recorder = RecordingSubscriber(session)
    interrupt_hit = asyncio.Event()

    async def stall(request: Any) -> list[Any]:
        interrupt_hit.set()
        await asyncio.Event().wait()  # the model never answers: the turn is interrupted
        return []

    steps = [stall if e == INTERRUPT else copy.deepcopy(e) for e in scenario.responses + (scenario.followup or [])]
    model = ScriptedModel(steps, allow_leftover=True)
    statuses = []
    for prompt, index in ((PROMPT, 0), (FOLLOWUP_PROMPT, 1)):
        if index == 1 and scenario.followup is None:
            break
        handle = session.start_turn(prompt, model=model, mode=scenario.mode)
        if index == 0 and INTERRUPT in scenario.responses:
            waiter = asyncio.ensure_future(interrupt_hit.wait())
            await asyncio.wait([waiter, handle.task], return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            handle.interrupt()
        result = await handle
        statuses.append(result.status)
    recorder.close()
    paths = paths_of(dirs)
    requests = [
        {"items": clean(r.items, paths), "tools": clean(r.tools, paths)} for r in model.requests
    ]
    plans = [
        plan_payload(e.msg.model_dump(mode="json").get("explanation"), e.msg.model_dump(mode="json")["plan"])
        for e in recorder.of_type("plan_update")
    ]
    return {
        "turn_status": statuses,
        "requests": len(requests),
        "overuse": 0,
        "server_failures": [],
        "tools": {scenario.mode: tool_specs(requests[0]["tools"]) if requests else {}},
        "history": after_prompt(requests[-1]["items"]) if requests else [],
        "inputs": [after_prompt(r["items"]) for r in requests],
        "plans": plans,
        "hooks": [h for h in (hook_run(e) for e in recorder.events) if h is not None],
        "server_requests": [r for r in (server_request(e, paths) for e in recorder.events) if r is not None],
    }


def observe(scenario: Scenario) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="conf-nb-") as tmp:
        dirs = write_layout(scenario, Path(tmp), None)
        return asyncio.run(play(scenario, dirs))
