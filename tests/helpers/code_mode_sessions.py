"""Code Mode test sessions shared by the runtime and hardening tests: Code Mode only, an
``echo`` tool, and every session's Code Mode finalizer closed after the test."""

from __future__ import annotations

import pytest

import codex_nb as cx
from codex_nb.config import Config
from codex_nb.config.code_mode import CodeModeSettings


@pytest.fixture
def make_session():
    sessions: list[cx.Session] = []

    def make(hooks=None, **settings) -> cx.Session:
        settings.setdefault("enabled", True)
        settings.setdefault("only", True)
        session = cx.Session(Config(code_mode=CodeModeSettings(**settings)), hooks=hooks)
        sessions.append(session)

        @session.tool
        async def echo(text: str) -> str:
            "Echo the text back."
            return text

        return session

    yield make
    for session in sessions:
        for finalizer in session.planner.finalizers:
            finalizer.close()


@pytest.fixture
def session(make_session):
    return make_session()
