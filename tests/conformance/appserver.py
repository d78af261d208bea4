"""A minimal JSON-RPC client for ``codex app-server`` (stdio, one JSON object per line).

Only what the conformance harness needs: requests with responses, notifications in
arrival order, and server requests answered by a callback. The process runs in its own
process group, which ``close()`` always ends.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

Answer = Callable[[str, dict[str, Any]], Any]


class AppServerError(RuntimeError):
    pass


class AppServer:
    def __init__(
        self,
        binary: Path,
        *,
        codex_home: Path,
        cwd: Path,
        answer: Answer,
        timeout: float = 60,
        args: tuple[str, ...] = (),
    ) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CODEX_", "OPENAI_"))}
        env.update(CODEX_HOME=str(codex_home), OPENAI_API_KEY="sk-conformance", RUST_LOG="error", NO_COLOR="1")
        self.timeout = timeout
        self.answer = answer
        self.messages: list[dict[str, Any]] = []  # notifications and server requests, in order
        self.stderr: list[str] = []
        self._responses: dict[int, queue.Queue[dict[str, Any]]] = {}
        self._cond = threading.Condition()
        self._next_id = 0
        self._write_lock = threading.Lock()
        self.proc = subprocess.Popen(
            [str(binary), *args, "app-server"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()

    # -- wire --------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        with self._write_lock:
            self.proc.stdin.write(json.dumps(message) + "\n")
            self.proc.stdin.flush()

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "id" in message and "method" not in message:
                waiter = self._responses.get(message["id"])
                if waiter is not None:
                    waiter.put(message)
                continue
            with self._cond:
                self.messages.append(message)
                self._cond.notify_all()
            if "id" in message:  # a server request: answer it from the scenario
                threading.Thread(target=self._answer, args=(message,), daemon=True).start()
        with self._cond:
            self._cond.notify_all()

    def _answer(self, message: dict[str, Any]) -> None:
        try:
            result = self.answer(message["method"], message.get("params") or {})
        except Exception as exc:  # noqa: BLE001 - reported to the server as a JSON-RPC error
            self._send({"id": message["id"], "error": {"code": -32603, "message": f"{type(exc).__name__}: {exc}"}})
            return
        if result is not None:
            self._send({"id": message["id"], "result": result})

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        with self._write_lock:
            self._next_id += 1
            rid = self._next_id
        waiter: queue.Queue[dict[str, Any]] = queue.Queue()
        self._responses[rid] = waiter
        self._send({"id": rid, "method": method, "params": params or {}})
        try:
            reply = waiter.get(timeout=self.timeout)
        except queue.Empty:
            raise AppServerError(
                f"{method}: no answer in {self.timeout}s; stderr: {''.join(self.stderr)[-2000:]}"
            ) from None
        finally:
            self._responses.pop(rid, None)
        if "error" in reply:
            raise AppServerError(f"{method}: {reply['error']}")
        return reply.get("result")

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self._send({"method": method, "params": params or {}})

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool], *, start: int = 0) -> dict[str, Any]:
        """The first message at index >= start matching ``predicate`` (waits for it)."""
        with self._cond:
            index = start
            while True:
                while index < len(self.messages):
                    if predicate(self.messages[index]):
                        return self.messages[index]
                    index += 1
                if self.proc.poll() is not None and not self._reader.is_alive():
                    raise AppServerError(f"app-server exited; stderr: {''.join(self.stderr)[-2000:]}")
                if not self._cond.wait(timeout=self.timeout):
                    raise AppServerError(f"timed out waiting; last messages: {self.messages[-3:]}")

    # -- lifecycle ---------------------------------------------------------------------
    def initialize(self) -> Any:
        result = self.request(
            "initialize",
            {"clientInfo": {"name": "codex_nb_conformance", "version": "0"}, "capabilities": {"experimentalApi": True}},
        )
        self.notify("initialized")
        return result

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        except OSError:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> AppServer:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
