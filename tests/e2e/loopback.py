"""The HTTP plumbing the stub model servers share: a threaded server on 127.0.0.1 (a free
port) that records every request and lets the stub answer it.

A stub subclasses `RecordingServer` and implements `answer_post` (and `answer_get` where the
lane asks for something by GET). Each request is recorded and answered under one lock, so a
stub that chooses its answer from what it has seen so far answers consistently.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

Answer = tuple[int, str, bytes]
"""Status, content type and body of a response."""

NOT_FOUND: Answer = (404, "application/json", b'{"error": {"message": "not found"}}')


def json_answer(payload: object, status: int = 200) -> Answer:
    return status, "application/json", json.dumps(payload).encode()


class RecordingServer:
    """Records each request in `requests` (a JSON body with `_path` added; a GET as
    `{"_path", "_method": "GET"}`) and answers it; use as a context manager."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def answer_get(self, path: str) -> Answer:
        return NOT_FOUND

    def answer_post(self, path: str, body: dict[str, Any]) -> Answer:
        raise NotImplementedError

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                pass

            def _send(self, answer: Answer) -> None:
                status, content_type, data = answer
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                with stub._lock:
                    stub.requests.append({"_path": self.path, "_method": "GET"})
                    answer = stub.answer_get(self.path)
                self._send(answer)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except ValueError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                body["_path"] = self.path
                with stub._lock:
                    stub.requests.append(body)
                    answer = stub.answer_post(self.path, body)
                self._send(answer)

        return Handler
