"""Play a scenario on the real Codex: ``codex app-server`` against a local Responses server."""

from __future__ import annotations

import copy
import json
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from codex_nb.testing import ResponsesServer, Stall, codex_binary

from .appserver import AppServer
from .normalise import after_prompt, clean, plan_payload, scrub, tool_specs
from .scenario import INTERRUPT, PROMPT, Scenario

FOLLOWUP_PROMPT = "conformance followup"


def provider_toml(base_url: str) -> str:
    return (
        "\n[model_providers.local]\n"
        'name = "local"\n'
        f'base_url = "{base_url}"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n"
    )


def write_layout(scenario: Scenario, root: Path, base_url: str | None) -> dict[str, Path]:
    """The CODEX_HOME, work dir and hook scripts of one scenario, both sides use the same."""
    dirs = {"home": root / "home", "work": root / "work", "scripts": root / "scripts"}
    for d in dirs.values():
        d.mkdir(parents=True, exist_ok=True)
    for name, text in scenario.scripts.items():
        path = dirs["scripts"] / name
        path.write_text(text, encoding="utf-8")
        path.chmod(0o755)
    if scenario.hooks is not None:
        text = json.dumps(scenario.hooks).replace("{scripts}", str(dirs["scripts"]))
        (dirs["home"] / "hooks.json").write_text(text, encoding="utf-8")
    config = 'model_provider = "local"\n' + expand(scenario.config_toml, dirs) + mcp_table(scenario, dirs)
    if base_url is not None:
        config += provider_toml(base_url) + scenario.provider
    (dirs["home"] / "config.toml").write_text(config, encoding="utf-8")
    for rel, text in (scenario.files or {}).items():
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(expand(text, dirs), encoding="utf-8")
    dirs["cwd"] = dirs["work"] / scenario.cwd
    dirs["cwd"].mkdir(parents=True, exist_ok=True)
    return dirs


SCHEMA_SERVER = Path(__file__).resolve().parents[1] / "mcp_servers" / "schema_server.py"


def mcp_table(scenario: Scenario, dirs: dict[str, Path]) -> str:
    """``[mcp_servers.sch]`` serving ``scenario.mcp_tools`` (written next to the hook scripts)."""
    if scenario.mcp_tools is None:
        return ""
    tools = dirs["scripts"] / "mcp_tools.json"
    tools.write_text(json.dumps(scenario.mcp_tools), encoding="utf-8")
    return (
        f"\n[mcp_servers.sch]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(SCHEMA_SERVER))}, {json.dumps(str(tools))}]\n"
    )


def expand(value: Any, dirs: dict[str, Path]) -> Any:
    """Scenario data may name the run's folders as <WORK>, <HOME>, <SCRIPTS>."""
    if isinstance(value, dict):
        return {k: expand(v, dirs) for k, v in value.items()}
    if isinstance(value, list):
        return [expand(v, dirs) for v in value]
    if isinstance(value, str):
        for name, path in dirs.items():
            value = value.replace(f"<{name.upper()}>", str(path))
    return value


def paths_of(dirs: dict[str, Path]) -> dict[str, str]:
    out = {}
    for name, path in dirs.items():
        if name == "cwd":  # under <WORK>: spelled from there
            continue
        out[str(path)] = f"<{name.upper()}>"
        out[str(path.resolve())] = f"<{name.upper()}>"
    return out


def _script(scenario: Scenario, interrupt_hit: threading.Event) -> list[Any]:
    def stall(body: dict[str, Any]) -> Any:
        interrupt_hit.set()
        return Stall(120)

    out: list[Any] = []
    for entry in list(scenario.responses) + list(scenario.followup or []):
        out.append(stall if entry == INTERRUPT else copy.deepcopy(entry))
    return out


def trust_all_hooks(server: AppServer, dirs: dict[str, Path], cwd: Path) -> list[dict[str, Any]]:
    """Trust every discovered hook the way a user does: hooks/list, then its hashes into config.toml."""
    listed = server.request("hooks/list", {"cwds": [str(cwd)]})
    hooks = [h for entry in listed.get("data", []) for h in entry.get("hooks", [])]
    edits = [
        {
            "keyPath": f"hooks.state.{json.dumps(h['key'])}",
            "value": {"trusted_hash": h["currentHash"]},
            "mergeStrategy": "upsert",
        }
        for h in hooks
        if h.get("currentHash")
    ]
    if edits:
        server.request("config/batchWrite", {"edits": edits, "reloadUserConfig": True})
    return hooks


def observe(scenario: Scenario) -> dict[str, Any]:
    interrupt_hit = threading.Event()
    answers = list(scenario.answers)
    server_requests: list[dict[str, Any]] = []
    layout: dict[str, Path] = {}

    def answer(method: str, params: dict[str, Any]) -> Any:
        server_requests.append({"method": method, "params": params})
        if not answers:
            raise RuntimeError(f"scenario {scenario.name} has no scripted answer for {method}")
        return expand(answers.pop(0), layout)

    with tempfile.TemporaryDirectory(prefix="conf-") as tmp:
        root = Path(tmp)
        srv = ResponsesServer(_script(scenario, interrupt_hit), allow_leftover=True, routes=route_answers(scenario))
        with srv:
            dirs = write_layout(scenario, root, srv.base_url)
            layout.update(dirs)
            paths = paths_of(dirs)
            args = tuple(a for o in scenario.overrides for a in ("-c", o))
            cwd = dirs["cwd"]
            with AppServer(codex_binary(), codex_home=dirs["home"], cwd=cwd, answer=answer, args=args) as server:
                server.initialize()
                hook_list: list[dict[str, Any]] = []
                layers: dict[str, Any] = {}
                if scenario.layered:
                    layers = config_layers(
                        server.request("config/read", {"includeLayers": True, "cwd": str(cwd)}), paths
                    )
                if scenario.hooks is not None or scenario.layered:
                    listed = server.request("hooks/list", {"cwds": [str(cwd)]})
                    hook_list = [
                        listed_hook(h, paths, layered=scenario.layered)
                        for e in listed.get("data", [])
                        for h in e.get("hooks", [])
                    ]
                if (scenario.hooks is not None or scenario.layered) and scenario.trust_hooks:
                    trust_all_hooks(server, dirs, cwd)
                start_params: dict[str, Any] = {"cwd": str(cwd)}
                if scenario.dynamic_tools:
                    start_params["dynamicTools"] = scenario.dynamic_tools
                thread = server.request("thread/start", start_params)["thread"]
                paths[thread["id"]] = "<THREAD>"  # image_gen saves under generated_images/THREAD/
                statuses = []
                for prompt, turn_index in ((PROMPT, 0), (FOLLOWUP_PROMPT, 1)):
                    if turn_index == 1 and scenario.followup is None:
                        break
                    start = len(server.messages)
                    params: dict[str, Any] = {"threadId": thread["id"], "input": [{"type": "text", "text": prompt}]}
                    if scenario.mode == "plan":
                        params["collaborationMode"] = {"mode": "plan", "settings": {"model": "gpt-5.1-codex"}}
                    turn = server.request("turn/start", params)["turn"]
                    if turn_index == 0 and INTERRUPT in scenario.responses:
                        if not interrupt_hit.wait(60):
                            raise RuntimeError("the interrupting request never arrived")
                        server.request("turn/interrupt", {"threadId": thread["id"], "turnId": turn["id"]})
                    done = server.wait_for(
                        lambda m, turn=turn: (
                            m.get("method") == "turn/completed" and m["params"]["turn"]["id"] == turn["id"]
                        ),
                        start=start,
                    )
                    statuses.append(done["params"]["turn"]["status"])
                messages = list(server.messages)
        failures = [f for f in srv.failures if "asked for response" not in f]
        overuse = [f for f in srv.failures if "asked for response" in f]
        requests = [clean(r, paths) for r in srv.requests]
        return {
            "turn_status": statuses,
            "requests": len(requests),
            "overuse": len(overuse),
            "server_failures": failures,
            "tools": {mode_key(scenario): tool_specs(requests[0]["tools"]) if requests else {}},
            "history": clean(after_prompt(requests[-1]["input"]), paths) if requests else [],
            "inputs": [clean(after_prompt(r["input"]), paths) for r in requests],
            "plans": [
                plan_payload(m["params"].get("explanation"), m["params"]["plan"])
                for m in messages
                if m.get("method") == "turn/plan/updated"
            ],
            "hooks": [hook_run(m["params"]["run"]) for m in messages if m.get("method") == "hook/completed"],
            "server_requests": [server_request(r, paths) for r in server_requests],
            "hook_list": hook_list,
            **({"config_layers": layers} if scenario.layered else {}),
            "routes": route_bodies(srv.route_requests, paths),
        }


def route_answers(scenario: Scenario) -> dict[str, Any]:
    """The scenario's provider endpoints as ResponsesServer routes (each answers its JSON)."""
    return {path: (lambda body, a=answer: copy.deepcopy(a)) for path, answer in (scenario.routes or {}).items()}


def route_bodies(requests: list[tuple[str, dict[str, Any]]], paths: dict[str, str]) -> list[dict[str, Any]]:
    """What each side POSTed to the provider's other endpoints, without the ids and metadata Codex
    adds for its own backend (the thread id differs by construction)."""
    out = []
    for path, body in requests:
        body = copy.deepcopy(body)
        if "id" in body:
            body["id"] = "<THREAD>"
        for item in body.get("input", []) if isinstance(body.get("input"), list) else []:
            if isinstance(item, dict):
                item.pop("internal_chat_message_metadata_passthrough", None)
        out.append({"path": path, "body": clean(body, paths)})
    return out


def listed_hook(hook: dict[str, Any], paths: dict[str, str], *, layered: bool = False) -> dict[str, Any]:
    """What hooks/list says of a discovered hook before it is trusted (hash values differ by design);
    layered scenarios also compare where it came from (``source``, ``sourcePath``)."""
    out = {
        "key": hook["key"],
        "eventName": hook["eventName"],
        "matcher": hook.get("matcher"),
        "trustStatus": hook["trustStatus"],
    }
    if layered:
        out.update(source=hook["source"], sourcePath=hook["sourcePath"])
    return clean(out, paths)


IGNORED_KEYS = ("model_providers", "model_provider")
"""The local provider table only the binary's config has (codex_nb is given its model directly)."""


def config_layers(read: dict[str, Any], paths: dict[str, str]) -> dict[str, Any]:
    """``config/read`` (with layers) in the shape both sides report: the layers lowest first with
    their trust verdict, and which layer set each key."""

    def name(source: dict[str, Any]) -> dict[str, Any]:
        where = source.get("file") or source.get("dotCodexFolder")
        out: dict[str, Any] = {"type": source["type"], "path": where}
        if source.get("profile"):
            out["profile"] = source["profile"]
        return out

    layers = [
        {**name(layer["name"]), "disabledReason": layer.get("disabledReason")}
        for layer in reversed(read.get("layers") or [])
    ]
    origins = {
        scrub(key, paths): name(meta["name"])
        for key, meta in sorted(read.get("origins", {}).items())
        if not key.startswith(IGNORED_KEYS)
    }
    return clean({"layers": layers, "origins": dict(sorted(origins.items()))}, paths)


def mode_key(scenario: Scenario) -> str:
    return scenario.mode


HOOK_RUN_FIELDS = (
    "eventName",
    "status",
    "statusMessage",
    "entries",
    "handlerType",
    "executionMode",
    "scope",
    "source",
    "displayOrder",
)


def hook_run(run: dict[str, Any]) -> dict[str, Any]:
    """The facts of a hook/completed run both sides share (ids, paths and times differ by run)."""
    return {key: run.get(key) for key in HOOK_RUN_FIELDS}


def server_request(request: dict[str, Any], paths: dict[str, str]) -> dict[str, Any]:
    params = clean(request["params"], paths)
    for key in ("threadId", "turnId", "itemId", "startedAtMs"):
        params.pop(key, None)
    return {"method": request["method"], "params": params}
