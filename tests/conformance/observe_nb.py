"""Play a scenario on codex_nb: a Session with a ScriptedModel reading the same script."""

from __future__ import annotations

import asyncio
import copy
import tempfile
from pathlib import Path
from typing import Any

import codex_nb as cx
from codex_nb.testing import RecordingSubscriber, ResponsesServer, ScriptedModel
from codex_nb.tools.schema_tool import SchemaTool

from .normalise import after_prompt, clean, plan_payload, scrub, tool_specs
from .observe_codex import (
    FOLLOWUP_PROMPT,
    HOOK_RUN_FIELDS,
    IGNORED_KEYS,
    expand,
    mcp_table,
    paths_of,
    provider_toml,
    route_answers,
    route_bodies,
    write_layout,
)
from .scenario import INTERRUPT, PROMPT, Scenario


def server_request(event: cx.events.Event, paths: dict[str, str]) -> dict[str, Any] | None:
    """The app-server request Codex would send for this core event (same normalisation)."""
    msg = event.msg.model_dump(mode="json")
    if msg["type"] == "request_user_input":
        auto = msg.get("autoResolutionMs")
        params = {"questions": msg["questions"], "isBlocking": msg["isBlocking"], "autoResolutionMs": auto}
        return {"method": "item/tool/requestUserInput", "params": clean(params, paths)}
    if msg["type"] == "request_permissions":
        params = {
            "cwd": msg["cwd"],
            "environmentId": msg.get("environment_id"),
            "permissions": v2_permissions(msg["permissions"]),
            "reason": msg.get("reason"),
        }
        return {"method": "item/permissions/requestApproval", "params": clean(params, paths)}
    return None


def v2_permissions(profile: dict[str, Any]) -> dict[str, Any]:
    """The app-server v2 form of a core permission profile (camelCase keys; the file system as
    canonical entries plus the legacy read/write lists)."""
    out: dict[str, Any] = {"network": profile.get("network"), "fileSystem": None}
    fs = profile.get("file_system")
    if isinstance(fs, dict):
        if "entries" in fs:
            out["fileSystem"] = {"entries": fs["entries"], "read": None, "write": None}
        else:
            entries = [
                {"access": access, "path": {"path": p, "type": "path"}}
                for access in ("read", "write")
                for p in fs.get(access) or []
            ]
            out["fileSystem"] = {"entries": entries, "read": fs.get("read"), "write": fs.get("write")}
    return out


def core_answer(answer: Any) -> Any:
    """An app-server answer in the core shape codex_nb's answer policies take."""
    if isinstance(answer, dict) and isinstance(answer.get("permissions"), dict):
        perms = answer["permissions"]
        return {**answer, "permissions": {("file_system" if k == "fileSystem" else k): v for k, v in perms.items()}}
    return answer


def hook_run(event: cx.events.Event) -> dict[str, Any] | None:
    msg = event.msg.model_dump(mode="json")
    if msg["type"] != "hook_completed":
        return None
    run = {_camel(k): v for k, v in msg["run"].items()}
    run["eventName"] = _camel(run["eventName"])
    return {key: run.get(key) for key in HOOK_RUN_FIELDS}


def _camel_event(name: str) -> str:
    """``PreToolUse`` -> ``preToolUse`` (app-server's HookEventName)."""
    return name[:1].lower() + name[1:]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(p.title() for p in rest)


def config_layers(config: cx.Config, paths: dict[str, str]) -> dict[str, Any]:
    """``Config.load``'s layers and origins in the shape ``observe_codex.config_layers`` reports."""

    def name(layer: Any) -> dict[str, Any]:
        out: dict[str, Any] = {"type": _camel(layer.source), "path": None if layer.path is None else str(layer.path)}
        if layer.profile:
            out["profile"] = layer.profile
        return out

    layers = [{**name(layer), "disabledReason": layer.disabled_reason} for layer in config.layers]
    by_label = {layer.label: layer for layer in config.layers}
    origins = {
        scrub(key, paths): name(by_label[label])
        for key, label in config.origins.items()
        if not key.startswith(IGNORED_KEYS)
    }
    return clean({"layers": layers, "origins": dict(sorted(origins.items()))}, paths)


def load_config(scenario: Scenario, dirs: dict[str, Path]) -> cx.Config:
    if scenario.layered:
        return cx.Config.load(codex_home=dirs["home"], cwd=dirs["cwd"], overrides=list(scenario.overrides) or None)
    return cx.Config.from_toml(scenario.config_toml + mcp_table(scenario, dirs))


async def play(scenario: Scenario, dirs: dict[str, Path]) -> dict[str, Any]:
    if not (scenario.routes or scenario.provider):
        return await _play_with(scenario, dirs, None, None)
    # the provider's other endpoints: codex_nb sends there what Codex sends, to the same kind of server
    srv = ResponsesServer([], allow_leftover=True, routes=route_answers(scenario))
    with srv:
        text = 'model_provider = "local"\n' + scenario.config_toml + mcp_table(scenario, dirs)
        text += provider_toml(srv.base_url) + scenario.provider
        obs = await _play_with(scenario, dirs, text, srv)
    return obs


async def _play_with(scenario: Scenario, dirs: dict[str, Path], toml: str | None, srv: Any) -> dict[str, Any]:
    config = load_config(scenario, dirs) if toml is None else cx.Config.from_toml(toml)
    session = cx.Session(config, cwd=str(dirs["cwd"]))
    image_gen = session.registry.get("image_gen.imagegen")
    if image_gen is not None:  # Codex saves under CODEX_HOME, the scenario's home folder
        image_gen.tool.save_root = dirs["home"]
    servers = None
    if scenario.mcp_tools is not None:
        from codex_nb.mcp.manager import McpServers

        servers = McpServers.attach(session)
        await servers.start()
    try:
        obs = await _play(scenario, dirs, session)
        obs["routes"] = route_bodies(srv.route_requests, paths_of(dirs)) if srv is not None else []
        return obs
    finally:
        if servers is not None:
            await servers.stop()


async def _play(scenario: Scenario, dirs: dict[str, Path], session: Any) -> dict[str, Any]:
    hook_list: list[dict[str, Any]] = []
    if scenario.hooks is not None or scenario.layered:
        infos = session.hook_engine.hooks() if scenario.layered else session.load_hooks(dirs["home"] / "hooks.json")
        hook_list = [listed_hook(i, paths_of(dirs), layered=scenario.layered) for i in infos]
        if scenario.trust_hooks and any(i.status in ("untrusted", "modified") for i in infos):
            session.trust_hooks()
    if scenario.answers:
        session.answer_policy = [core_answer(a) for a in expand(copy.deepcopy(list(scenario.answers)), dirs)]
    for spec in scenario.dynamic_tools:
        session.registry.register(
            SchemaTool(
                spec["name"],
                description=spec["description"],
                input_schema=spec["inputSchema"],
                handler=lambda args: "ok",
            )
        )
    recorder = RecordingSubscriber(session)
    interrupt_hit = asyncio.Event()

    async def stall(request: Any) -> list[Any]:
        interrupt_hit.set()
        await asyncio.Event().wait()  # the model never answers: the turn is interrupted
        return []

    steps = [stall if e == INTERRUPT else copy.deepcopy(e) for e in scenario.responses + (scenario.followup or [])]
    model = ScriptedModel(steps, allow_leftover=True, record_requests=True)
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
    paths = {**paths_of(dirs), session.thread_id: "<THREAD>"}
    requests = [{"items": clean(r.items, paths), "tools": clean(r.tools, paths)} for r in model.requests]
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
        "hook_list": hook_list,
        **({"config_layers": config_layers(session.config, paths)} if scenario.layered else {}),
    }


def listed_hook(info: Any, paths: dict[str, str], *, layered: bool) -> dict[str, Any]:
    out = {"key": info.key, "eventName": _camel_event(info.event_name), "matcher": info.matcher}
    out["trustStatus"] = info.status
    if layered:
        out.update(source=_camel(info.source), sourcePath=info.source_path)
    return clean(out, paths)


def observe(scenario: Scenario) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="conf-nb-") as tmp:
        dirs = write_layout(scenario, Path(tmp), None)
        return asyncio.run(play(scenario, dirs))
