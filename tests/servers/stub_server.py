"""A small OpenAI-compatible chat server for tests and benchmarks (no model, no network).

``POST /v1/chat/completions`` answers at once:

- a judge request (the user message lists ``Antwort k: ...`` lines, or a JSON Schema is
  requested) gets a valid JSON verdict: ``Richtig`` where the answer equals the reference
  (case-insensitive), ``Keine Angabe`` for a missing answer, ``Falsch`` otherwise, difficulty
  ``Mittel``, as many ``resp_k`` as there are answers;
- any other request gets :attr:`StubServer.student_answer`.

Each response reports ``usage``. ``GET /v1/models`` lists :attr:`StubServer.models` (404 when
``None``, like a server without a model list); the stub, like llama-cpp-python, answers
whatever ``model`` a request names. Two switches mimic what real servers refuse:
``refuse_formats`` answers a ``response_format`` of those types with llama-cpp-python's HTTP
500 (that server refuses ``json_schema`` and accepts ``json_object``, with or without its
``schema``), and
``require_max_completion_tokens`` answers ``max_tokens`` with OpenAI's HTTP 400 for reasoning
models. Faults are queued with :meth:`StubServer.add_fault`: the next
request whose user message contains ``match`` gets the fault instead (``429`` with
``Retry-After: 0``, ``500``, ``400``, ``401``, ``slow`` (sleep :attr:`slow_seconds`, then
answer), ``bad_json``, ``bad_label``, ``missing_key``, ``empty``). Every request body and its
``Authorization`` header are recorded. Run ``python tests/servers/stub_server.py`` to serve
on a free port in its own process (it prints ``port N``).
"""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Final

from medqade.vocab import FALSCH, KEINE_ANGABE, MITTEL, RICHTIG

FAULTS: Final = (
    "429",
    "500",
    "400",
    "401",
    "slow",
    "bad_json",
    "bad_label",
    "missing_key",
    "empty",
)
_ANSWER = re.compile(r"^Antwort (\d+): (.*)$", re.MULTILINE)
_REFERENCE = re.compile(r"^Musterlösung[^:\n]*: (.*)$", re.MULTILINE)
_EMPTY_SHOWN = "(keine Antwort)"


@dataclass
class _Fault:
    kind: str
    match: str
    times: int


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            self.close_connection = True

    def do_GET(self) -> None:
        stub = self.server.stub
        models = stub.models
        key = stub.require_key
        if key is not None and self.headers.get("Authorization") != f"Bearer {key}":
            self._send(401, {"error": {"message": "invalid api key", "type": "auth"}})
        elif self.path.rstrip("/").endswith("/models") and models is not None:
            listed = [{"id": m, "object": "model", "owned_by": "stub"} for m in models]
            self._send(200, {"object": "list", "data": listed})
        else:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            return
        try:
            body = json.loads(raw)
        except json.JSONDecodeError:
            self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request"}})
            return
        status, reply, headers = self.server.stub.respond(body, self.headers.get("Authorization"))
        self._send(status, reply, headers)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 drops connections under concurrency
    stub: StubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up early is not an error of the stub


class StubServer:
    """The server; use as a context manager (serves on ``127.0.0.1`` in a daemon thread)."""

    def __init__(
        self,
        port: int = 0,
        *,
        student_answer: str = "Acetylcystein",
        slow_seconds: float = 2.0,
        require_key: str | None = None,
        record: bool = True,
        models: tuple[str, ...] | None = None,
        refuse_formats: frozenset[str] = frozenset(),
        require_max_completion_tokens: bool = False,
    ) -> None:
        self.models = models
        self.refuse_formats = refuse_formats
        self.require_max_completion_tokens = require_max_completion_tokens
        self.student_answer = student_answer
        self.slow_seconds = slow_seconds
        self.require_key = require_key
        self.record = record
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str | None] = []
        self._faults: list[_Fault] = []
        self._lock = threading.Lock()
        self._count = 0
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.stub = self
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def n_requests(self) -> int:
        """Chat requests received (counted even when :attr:`record` is off)."""
        with self._lock:
            return self._count

    def add_fault(self, kind: str, match: str = "", times: int = 1) -> None:
        """Answer the next ``times`` requests whose user text contains ``match`` with ``kind``."""
        if kind not in FAULTS:
            raise ValueError(f"unknown fault {kind!r}; use one of {', '.join(FAULTS)}")
        with self._lock:
            self._faults.append(_Fault(kind, match, times))

    def reset(self) -> None:
        """Forget recorded requests and pending faults."""
        with self._lock:
            self.requests.clear()
            self.authorizations.clear()
            self._faults.clear()
            self._count = 0

    def start(self) -> StubServer:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- answering -------------------------------------------------------------------------

    def _take_fault(self, user: str) -> str | None:
        for fault in self._faults:
            if fault.match in user:
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault.kind
        return None

    def respond(
        self, body: dict[str, Any], authorization: str | None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        """Status, JSON body and extra headers for one chat request."""
        messages = body.get("messages") or []
        user = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        with self._lock:
            self._count += 1
            if self.record:
                self.requests.append(body)
                self.authorizations.append(authorization)
            fault = self._take_fault(user)
        if self.require_key is not None and authorization != f"Bearer {self.require_key}":
            fault = "401"
        if fault is None:
            refused = self._refusal(body)
            if refused is not None:
                return refused
        if fault == "429":
            return 429, _error("rate limited", "rate_limit_exceeded"), {"Retry-After": "0"}
        if fault == "500":
            return 500, _error("internal error", "server_error"), {}
        if fault == "400":
            return 400, _error("bad request", "invalid_request_error"), {}
        if fault == "401":
            return 401, _error("invalid api key", "invalid_api_key"), {}
        if fault == "slow":
            time.sleep(self.slow_seconds)
        content = self._content(body, user, fault)
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
        completion_tokens = len(content.split())
        reply = {
            "id": f"stub-{self._count}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(body.get("model", "stub")),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }
        return 200, reply, {}

    def _refusal(self, body: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]] | None:
        response_format = body.get("response_format")
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind in self.refuse_formats:
            allowed = " or ".join(
                repr(k)
                for k in ("text", "json_object", "json_schema")
                if k not in self.refuse_formats
            )
            message = (
                "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                f"'response_format', 'type'), 'msg': \"Input should be {allowed}\"}}"
            )
            return 500, _error(message, "internal_server_error"), {}
        if self.require_max_completion_tokens and "max_tokens" in body:
            message = (
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead."
            )
            return 400, _error(message, "unsupported_parameter"), {}
        return None

    def _content(self, body: dict[str, Any], user: str, fault: str | None) -> str:
        if fault == "empty":
            return ""
        answers = _ANSWER.findall(user)
        schema_keys = _schema_keys(body.get("response_format"))
        if not answers and not schema_keys:
            return self.student_answer
        if fault == "bad_json":
            return "Hier ist meine Bewertung: Antwort 1 ist richtig."
        reference = _REFERENCE.search(user)
        ref = reference.group(1).strip().casefold() if reference else None
        n = len(answers) or sum(k.startswith("resp_") for k in schema_keys)
        verdict: dict[str, str] = {}
        for k in range(1, n + 1):
            text = answers[k - 1][1].strip() if k <= len(answers) else ""
            if not text or text == _EMPTY_SHOWN:
                label = KEINE_ANGABE
            else:
                label = RICHTIG if ref is not None and text.casefold() == ref else FALSCH
            verdict[f"resp_{k}"] = label
        verdict["difficulty"] = MITTEL
        if fault == "bad_label":
            verdict["resp_1"] = "Vielleicht"
        if fault == "missing_key":
            verdict.pop("difficulty")
        return json.dumps(verdict, ensure_ascii=False)


def _schema_keys(response_format: Any) -> list[str]:
    """The keys of a requested schema: OpenAI's ``json_schema`` or llama.cpp's ``schema``."""
    for path in (("json_schema", "schema", "properties"), ("schema", "properties")):
        node = response_format
        try:
            for key in path:
                node = node[key]
        except (TypeError, KeyError):
            continue
        return list(node)
    return []


def _error(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": code, "code": code}}


def main() -> None:
    """Serve until killed; print the port on the first line of stdout."""
    with StubServer(record=False) as stub:
        print(f"port {stub.port}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
    sys.exit(0)
