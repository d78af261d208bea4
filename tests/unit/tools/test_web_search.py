"""Hosted web_search: declared exactly as Codex 0.169 declares it for each mode; never executed."""

from __future__ import annotations

import json

import pytest

import codex_nb as cx
from helpers.paths import CODEX_0169_TOOLS

FIXTURE = json.loads(CODEX_0169_TOOLS.read_text())


def web_spec(toml: str):
    plan = cx.Session(cx.Config.from_toml('model = "gpt-5.5"\n' + toml)).planner.plan()
    return [s for s in plan.specs if s.get("type") == "web_search"]


def test_default_is_cached_like_codex():
    codex = next(t for t in FIXTURE["tools"] if t["type"] == "web_search")
    assert web_spec("") == [codex]
    assert cx.Session(cx.Config.from_toml("")).planner.plan().tool_names[-1] == "web_search"


@pytest.mark.parametrize(
    "mode, expected",
    [
        ("live", [{"type": "web_search", "external_web_access": True, "search_content_types": ["text", "image"]}]),
        (
            "indexed",
            [
                {
                    "type": "web_search",
                    "external_web_access": True,
                    "indexed_web_access": True,
                    "search_content_types": ["text", "image"],
                }
            ],
        ),
        ("disabled", []),
    ],
)
def test_modes(mode, expected):  # observed with codex exec -c web_search="MODE"
    assert web_spec(f'web_search = "{mode}"') == expected


def test_models_outside_the_catalog_search_text_only():
    # conformance scenarios run gpt-5.1-codex, which 0.169's catalog does not list: Codex sends no content types
    plan = cx.Session(cx.Config.from_toml('model = "gpt-5.1-codex"')).planner.plan()
    assert [s for s in plan.specs if s.get("type") == "web_search"] == [
        {"type": "web_search", "external_web_access": False}
    ]


def test_bad_mode_is_a_config_error():
    with pytest.raises(cx.ConfigError, match="web_search"):
        cx.Config.from_toml('web_search = "sometimes"')


async def test_web_search_call_items_are_recorded_not_dispatched():
    session = cx.Session(cx.Config.from_toml(""))
    item = {
        "type": "web_search_call",
        "id": "ws_1",
        "status": "completed",
        "action": {"type": "search", "query": "codex"},
    }
    result = await session.run_turn("search", model=cx.ScriptedModel([[item, cx.assistant_message("found")]]))
    assert result.status == "completed" and item in result.items


@pytest.mark.requires_codex
def test_catalog_is_the_pinned_binarys_bundled_catalog(tmp_path):
    # Which models search images follows the pinned binary's bundled catalog: 0.171 added gpt-6.2-sol/astra.
    import subprocess

    from codex_nb.testing import codex_binary
    from codex_nb.tools.handlers.web_search import CATALOG_TEXT_AND_IMAGE

    env = {"PATH": "/usr/bin:/bin", "CODEX_HOME": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run(
        [str(codex_binary()), "debug", "models", "--bundled"], capture_output=True, text=True, env=env, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    models = json.loads(done.stdout)["models"]
    assert {m["slug"] for m in models if m.get("web_search_tool_type") == "text_and_image"} == CATALOG_TEXT_AND_IMAGE
