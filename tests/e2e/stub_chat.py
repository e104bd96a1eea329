"""A scripted stand-in for the OpenAI Chat Completions API, for driving the real copilot CLI
offline.

copilot 1.0.102 with `COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:PORT/v1` (BYOK, the default
"completions" wire API) POSTs `/v1/chat/completions` with `"stream": true`. The stub answers each
request with server-sent chat-completion chunks: either one chunk whose `delta.tool_calls`
carries the next scripted call (with the `index` copilot needs to assemble it), or the final
text, then a chunk with `finish_reason` and `usage`, then `data: [DONE]`.

Which step comes next is derived from the request itself (the number of `role: "tool"` messages
in it), not from a counter, so a retried request gets the same answer. Requests that offer no
tools (copilot's side calls: session naming and the like) get a short text. Every request body
is recorded, so a test can assert which tools copilot offered and what each call returned.

    with StubChat([ToolCall("bash", {"command": "touch X", "description": "t"})]) as stub:
        run copilot with COPILOT_PROVIDER_BASE_URL=stub.base_url ...
        stub.tool_results()  # what each tool call returned
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tests.e2e.loopback import NOT_FOUND, Answer, RecordingServer, json_answer

FINAL_TEXT = "stub: done"
MODEL = "gpt-5"


class ToolCall:
    """One scripted model turn: call tool `name` with `arguments`."""

    __slots__ = ("arguments", "name")

    def __init__(self, name: str, arguments: dict[str, Any]) -> None:
        self.name = name
        self.arguments = arguments

    def __repr__(self) -> str:
        return f"ToolCall({self.name!r}, {self.arguments!r})"


def _is_chat(path: str) -> bool:
    return path.split("?")[0].rstrip("/").endswith("/chat/completions")


def _tool_messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        message
        for message in body.get("messages") or []
        if isinstance(message, dict) and message.get("role") == "tool"
    ]


def _text(content: object) -> str:
    """A message's content as text (a string, or a list of `{"type": "text", "text"}` parts)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return json.dumps(content)


def offered_tools(body: dict[str, Any]) -> list[str]:
    names = []
    for tool in body.get("tools") or []:
        function = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(function, dict):
            names.append(str(function.get("name", "")))
    return names


class StubChat(RecordingServer):
    """Threaded stub server; `script` is the tool calls to make, one per model turn."""

    def __init__(self, script: Sequence[ToolCall], final_text: str = FINAL_TEXT) -> None:
        self.script = list(script)
        self.final_text = final_text
        super().__init__()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- what copilot sent -------------------------------------------------------------------
    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if _is_chat(r.get("_path", ""))]

    def agent_requests(self) -> list[dict[str, Any]]:
        """The requests of the agent loop: those that offered tools."""
        return [r for r in self.chat_requests() if r.get("tools")]

    def tool_names(self) -> list[str]:
        """The tools offered in the first agent request (empty if none came)."""
        requests = self.agent_requests()
        return offered_tools(requests[0]) if requests else []

    def tool_results(self) -> list[str]:
        """What each tool call returned, in call order (from the last agent request)."""
        requests = self.agent_requests()
        if not requests:
            return []
        return [_text(message.get("content")) for message in _tool_messages(requests[-1])]

    def prompt_text(self) -> str:
        """Every system and user message of the first agent request, joined."""
        requests = self.agent_requests()
        if not requests:
            return ""
        return "\n".join(
            _text(message.get("content"))
            for message in requests[0].get("messages") or []
            if isinstance(message, dict) and message.get("role") in ("system", "user")
        )

    # -- serving -----------------------------------------------------------------------------
    def _chunks(self, body: dict[str, Any]) -> list[dict[str, Any]]:
        answered = len(_tool_messages(body))
        model = str(body.get("model") or MODEL)
        base = {"id": f"chatcmpl-{len(self.requests)}", "object": "chat.completion.chunk"}
        base = {**base, "created": 0, "model": model}
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if body.get("tools") and answered < len(self.script):
            call = self.script[answered]
            delta: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "index": 0,
                        "id": f"call_{answered}",
                        "type": "function",
                        "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                    }
                ],
            }
            finish = "tool_calls"
        else:
            delta = {"role": "assistant", "content": self.final_text}
            finish = "stop"
        return [
            {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
            {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
            {**base, "choices": [], "usage": usage},
        ]

    def answer_get(self, path: str) -> Answer:
        if path.split("?")[0].rstrip("/").endswith("/models"):
            return json_answer({"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        return NOT_FOUND

    def answer_post(self, path: str, body: dict[str, Any]) -> Answer:
        if not _is_chat(path):
            return NOT_FOUND
        chunks = self._chunks(body)
        if body.get("stream") is False:
            return json_answer(self._as_completion(chunks))
        stream = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
        return 200, "text/event-stream", stream.encode()

    @staticmethod
    def _as_completion(chunks: list[dict[str, Any]]) -> dict[str, Any]:
        """The same answer as one non-streaming completion (for requests with stream off)."""
        first = chunks[0]
        delta = dict(first["choices"][0]["delta"])
        finish = chunks[1]["choices"][0]["finish_reason"]
        return {
            "id": first["id"],
            "object": "chat.completion",
            "created": 0,
            "model": first["model"],
            "choices": [{"index": 0, "message": delta, "finish_reason": finish}],
            "usage": chunks[2]["usage"],
        }
