"""A scripted stub of the Anthropic Messages API, for driving the real `claude` binary.

The stub plays the model. A test gives it a script: tool calls (name + input) to issue one per
turn, then a final text answer. claude POSTs `/v1/messages?beta=true` with `"stream": true`;
the stub answers with server-sent events (`message_start`, `content_block_start` of a `tool_use`
block, `content_block_delta` with `input_json_delta`, `content_block_stop`, `message_delta` with
`stop_reason: tool_use`, `message_stop`). The next request carries the `tool_result`, which
shows what the harness did with the call.

Which step of the script a request gets is decided by the conversation it carries (the number
of `tool_result` blocks in it), not by a counter, so a retried request gets the same answer.
Requests without `tools` are side calls (titles, summaries): they get a short text answer.
Every request is recorded so tests can assert what the model was offered and what came back.

`claude_env()` is the environment that points claude at the stub, with a temp HOME.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One scripted model turn: call tool `name` with `input`."""

    name: str
    input: dict[str, Any]


@dataclass
class Recorded:
    """One HTTP request claude made to the stub."""

    method: str
    path: str
    body: dict[str, Any] | None

    @property
    def is_main_turn(self) -> bool:
        """A Messages request that offers tools: a turn of the main conversation (or an agent)."""
        return (
            self.method == "POST"
            and self.path.split("?")[0] == "/v1/messages"
            and isinstance(self.body, dict)
            and bool(self.body.get("tools"))
        )

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools offered to the model in this request."""
        return [t.get("name", "") for t in (self.body or {}).get("tools", []) or []]

    def tool_results(self) -> list[dict[str, Any]]:
        """Every tool_result block the request's conversation carries, oldest first."""
        return list(_tool_results((self.body or {}).get("messages", [])))


def _tool_results(messages: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            continue
        for block in content:
            if isinstance(block, dict) and block.get("type") == "tool_result":
                yield block


def result_text(block: dict[str, Any]) -> str:
    """The text of a tool_result block (its content is a string or a list of text blocks)."""
    content = block.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


@dataclass
class StubAnthropic:
    """A threaded stub Messages server on 127.0.0.1 (a free port) that plays a script.

    Use as a context manager; `url` is the value for ANTHROPIC_BASE_URL.
    """

    script: list[ToolCall] = field(default_factory=list)
    final_text: str = "done"
    requests: list[Recorded] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    # ---- lifecycle -------------------------------------------------------------------------
    def __enter__(self) -> StubAnthropic:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_HEAD(self) -> None:
                stub._record(self, None)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self) -> None:
                stub._record(self, None)
                if self.path.startswith("/v1/files/") and self.path.endswith("/content"):
                    # `claude --file ID:PATH` downloads file ID and saves it under the cwd.
                    data = FILE_CONTENT
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                else:
                    self._json(200, {})

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = None
                recorded = stub._record(self, body if isinstance(body, dict) else None)
                route = self.path.split("?")[0]
                if route == "/v1/messages/count_tokens":
                    self._json(200, {"input_tokens": 100})
                elif route == "/v1/messages":
                    stub._answer(self, recorded)
                else:
                    self._json(200, {})

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    @property
    def url(self) -> str:
        assert self._server is not None, "use StubAnthropic as a context manager"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # ---- what tests read -------------------------------------------------------------------
    def main_turns(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.is_main_turn]

    def messages_requests(self) -> list[Recorded]:
        with self._lock:
            return [r for r in self.requests if r.path.split("?")[0] == "/v1/messages"]

    def offered_tools(self) -> set[str]:
        """Tools offered in the first main turn (what the model could call)."""
        turns = self.main_turns()
        return set(turns[0].tool_names) if turns else set()

    def tool_result_texts(self) -> list[str]:
        """The tool results of the longest conversation seen (one per scripted call)."""
        turns = self.main_turns()
        if not turns:
            return []
        longest = max(turns, key=lambda r: len(r.tool_results()))
        return [result_text(block) for block in longest.tool_results()]

    # ---- internals -------------------------------------------------------------------------
    def _record(self, handler: BaseHTTPRequestHandler, body: dict[str, Any] | None) -> Recorded:
        recorded = Recorded(handler.command, handler.path, body)
        with self._lock:
            self.requests.append(recorded)
        return recorded

    def _answer(self, handler: BaseHTTPRequestHandler, recorded: Recorded) -> None:
        body = recorded.body or {}
        model = str(body.get("model") or "claude-stub")
        step = len(recorded.tool_results()) if recorded.is_main_turn else None
        if step is not None and step < len(self.script):
            call = self.script[step]
            events = _tool_use_events(model, f"toolu_stub_{step:03d}", call)
        else:
            text = self.final_text if recorded.is_main_turn else "ok"
            events = _text_events(model, text)
        if body.get("stream"):
            payload = "".join(
                f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events
            ).encode()
            content_type = "text/event-stream"
        else:
            payload = json.dumps(_collapse(model, events)).encode()
            content_type = "application/json"
        handler.send_response(200)
        handler.send_header("Content-Type", content_type)
        handler.send_header("Content-Length", str(len(payload)))
        handler.end_headers()
        handler.wfile.write(payload)


_USAGE = {"input_tokens": 10, "output_tokens": 5}

FILE_CONTENT = b"downloaded by the stub\n"


def _message_start(model: str) -> tuple[str, dict[str, Any]]:
    return (
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_stub",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": _USAGE,
            },
        },
    )


def _tool_use_events(model: str, tool_id: str, call: ToolCall) -> list[tuple[str, dict[str, Any]]]:
    return [
        _message_start(model),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {
                    "type": "tool_use",
                    "id": tool_id,
                    "name": call.name,
                    "input": {},
                },
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(call.input)},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def _text_events(model: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        _message_start(model),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                "usage": {"output_tokens": 5},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]


def _collapse(model: str, events: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The non-streaming Messages response equivalent to `events`."""
    content: list[dict[str, Any]] = []
    stop_reason = "end_turn"
    for name, data in events:
        if name == "content_block_start":
            content.append(dict(data["content_block"]))
        elif name == "content_block_delta":
            delta = data["delta"]
            if delta["type"] == "text_delta":
                content[-1]["text"] += delta["text"]
            else:
                content[-1]["input"] = json.loads(delta["partial_json"])
        elif name == "message_delta":
            stop_reason = data["delta"]["stop_reason"]
    return {
        "id": "msg_stub",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _USAGE,
    }


def claude_env(stub_url: str, home: Path) -> dict[str, str]:
    """Environment entries that point claude at the stub with a scratch HOME.

    `home` must lie outside the tree under test: claude writes its own state there.
    """
    home.mkdir(parents=True, exist_ok=True)
    return {
        "ANTHROPIC_BASE_URL": stub_url,
        "ANTHROPIC_API_KEY": "sk-ant-stub",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "HOME": str(home),
    }


# Variables from the outer environment that would change where claude looks for its config or
# model; scrub them so every run sees only the scratch HOME and the stub.
SCRUBBED_ENV_PREFIXES = ("ANTHROPIC_", "CLAUDE_", "CLAUDECODE", "XDG_CONFIG_HOME")


def scrubbed_environ(base: dict[str, str]) -> dict[str, str]:
    """`base` without variables that redirect claude's config, credentials or model."""
    return {k: v for k, v in base.items() if not k.startswith(SCRUBBED_ENV_PREFIXES)}
