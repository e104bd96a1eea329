"""A scripted stand-in for the Gemini API (generativelanguage v1beta), for driving the real
gemini CLI offline.

gemini 0.61.0 with `GOOGLE_GEMINI_BASE_URL` set and the `gemini-api-key` auth type POSTs
`/v1beta/models/MODEL:streamGenerateContent?alt=sse` (header `x-goog-api-key`). The stub answers
each request with one server-sent event, `data: {GenerateContentResponse}`: a candidate whose
content is either the next scripted `functionCall` part or a final text, `finishReason: STOP`.

Which step comes next is derived from the request itself (the number of `functionResponse` parts
in its `contents`), not from a counter, so a retried request gets the same answer and the stub
stays in step with gemini. Requests that offer no tools (side calls) get a short text. Every
request body is recorded, so a test can assert which tools gemini offered and what each call
returned.

Use it as a context manager; it serves on 127.0.0.1 at a free port:

    with StubGemini([FunctionCall("write_file", {"file_path": "/t/x", "content": "x"})]) as stub:
        run gemini with stub.gemini_env(home) ...
        stub.function_responses()  # what each tool call returned
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.e2e.loopback import NOT_FOUND, Answer, RecordingServer

FINAL_TEXT = "stub: done"
MODEL = "gemini-2.5-flash"

# Settings for a scratch HOME: the auth type must be named, because gemini 0.61.0 takes the
# "gateway" auth type from GOOGLE_GEMINI_BASE_URL alone and then refuses it in headless mode
# ("Invalid auth method selected."); with `gemini-api-key` it still sends to that base URL.
# Auto-update and usage statistics would reach for the network, which a test never has.
SETTINGS: dict[str, Any] = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
    "telemetry": {"enabled": False},
}


class FunctionCall:
    """One scripted model turn: call tool `name` with `args`."""

    __slots__ = ("args", "name")

    def __init__(self, name: str, args: dict[str, Any]) -> None:
        self.name = name
        self.args = args

    def part(self) -> dict[str, Any]:
        return {"functionCall": {"name": self.name, "args": self.args}}

    def __repr__(self) -> str:
        return f"FunctionCall({self.name!r}, {self.args!r})"


def _function_responses(body: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for content in body.get("contents") or []:
        for part in (content or {}).get("parts") or []:
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                found.append(part["functionResponse"])
    return found


def _tool_names(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        for declaration in tool.get("functionDeclarations") or []:
            names.append(str(declaration.get("name", "")))
    return names


def response_text(response: dict[str, Any]) -> str:
    """What a tool call returned: gemini puts it in `response.output` (or `response.error`)."""
    payload = response.get("response")
    if isinstance(payload, dict):
        for key in ("output", "error"):
            if isinstance(payload.get(key), str):
                return str(payload[key])
    return json.dumps(payload)


class StubGemini(RecordingServer):
    """Threaded stub server; `script` is the tool calls to make, one per model turn."""

    def __init__(self, script: Sequence[FunctionCall], final_text: str = FINAL_TEXT) -> None:
        self.script = list(script)
        self.final_text = final_text
        super().__init__()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def gemini_env(self, home: Path) -> dict[str, str]:
        """Environment entries that point gemini at this stub, with `home` (outside the tree
        under test: gemini keeps its sessions and project registry there) as a scratch HOME.

        GEMINI_CLI_TRUST_WORKSPACE=true trusts the tree: in an untrusted folder gemini 0.61.0
        turns --yolo / --approval-mode back to "default" and a headless run exits 55 ("Gemini
        CLI is not running in a trusted directory") before any request. GEMINI_CLI_NO_RELAUNCH
        keeps it from re-spawning itself with a bigger heap, which changes nothing here.
        """
        settings = home / ".gemini" / "settings.json"
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(json.dumps(SETTINGS))
        return {
            "HOME": str(home),
            "GEMINI_API_KEY": "stub-key",
            "GOOGLE_GEMINI_BASE_URL": self.url,
            "GEMINI_CLI_TRUST_WORKSPACE": "true",
            "GEMINI_CLI_NO_RELAUNCH": "1",
        }

    # -- what gemini sent ---------------------------------------------------------------------
    def generate_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if "GenerateContent" in r.get("_path", "")]

    def tool_names(self) -> list[str]:
        """Names of the tools offered in the first model request (empty if none came)."""
        requests = self.generate_requests()
        return _tool_names(requests[0]) if requests else []

    def function_responses(self) -> list[dict[str, Any]]:
        """The functionResponse parts of the longest conversation seen, oldest first."""
        requests = self.generate_requests()
        if not requests:
            return []
        return max((_function_responses(r) for r in requests), key=len)

    def response_texts(self) -> list[str]:
        return [response_text(response) for response in self.function_responses()]

    # -- serving ------------------------------------------------------------------------------
    def _answer(self, body: dict[str, Any]) -> dict[str, Any]:
        answered = len(_function_responses(body))
        if _tool_names(body) and answered < len(self.script):
            part = self.script[answered].part()
        else:
            part = {"text": self.final_text if _tool_names(body) else "ok"}
        return {
            "candidates": [
                {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": 10,
                "candidatesTokenCount": 5,
                "totalTokenCount": 15,
            },
            "modelVersion": MODEL,
        }

    def answer_post(self, path: str, body: dict[str, Any]) -> Answer:
        if not path.split("?")[0].endswith(("GenerateContent", "generateContent")):
            return NOT_FOUND
        answer = json.dumps(self._answer(body))
        if "alt=sse" in path:
            return 200, "text/event-stream", f"data: {answer}\r\n\r\n".encode()
        return 200, "application/json", answer.encode()


# Variables from the outer environment that would change gemini's auth, endpoint, home or trust;
# scrub them so every run sees only the scratch HOME and the stub.
SCRUBBED_ENV_PREFIXES = ("GEMINI_", "GOOGLE_", "CLOUD_SHELL")


def scrubbed_environ(base: dict[str, str]) -> dict[str, str]:
    """`base` without variables that redirect gemini's auth, endpoint, settings or trust."""
    return {k: v for k, v in base.items() if not k.startswith(SCRUBBED_ENV_PREFIXES)}
