"""A scripted stand-in for the OpenAI Responses API, for driving the real codex CLI offline.

codex POSTs `/v1/responses` (streaming). The stub answers each request with server-sent events:
`response.created`, then either one `response.output_item.done` carrying the next scripted
`function_call`, or a final assistant `message`, then `response.completed` with a `usage` object.

Which step comes next is derived from the request itself (the number of `function_call_output`
items codex sends back), not from a counter, so a retried request gets the same answer and the
stub stays in step with codex. Every request body is recorded, so a test can assert which tools
codex offered and what each tool call returned.

Use it as a context manager; it serves on 127.0.0.1 at a free port:

    with StubOpenAI([FunctionCall("exec_command", {"cmd": "touch X"})]) as stub:
        run codex with stub.codex_args() ...
        stub.function_outputs()  # what the shell call returned
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tests.e2e.loopback import NOT_FOUND, Answer, RecordingServer, json_answer

STUB_KEY_ENV = "STUB_KEY"
FINAL_TEXT = "stub: done"


class FunctionCall:
    """One scripted tool call: a `function_call` item (shell, MCP, ...) or, with `custom=True`,
    a `custom_tool_call` item (freeform tools such as apply_patch take raw text input)."""

    __slots__ = ("arguments", "custom", "name", "namespace")

    def __init__(
        self,
        name: str,
        arguments: dict[str, Any] | str,
        *,
        custom: bool = False,
        namespace: str | None = None,
    ) -> None:
        self.name = name
        self.arguments = arguments
        self.custom = custom
        self.namespace = namespace

    def item(self, call_id: str) -> dict[str, Any]:
        if self.custom:
            text = self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)
            return {
                "type": "custom_tool_call",
                "id": f"ctc_{call_id}",
                "status": "completed",
                "call_id": call_id,
                "name": self.name,
                "input": text,
            }
        args = self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)
        item = {
            "type": "function_call",
            "id": f"fc_{call_id}",
            "status": "completed",
            "call_id": call_id,
            "name": self.name,
            "arguments": args,
        }
        if self.namespace is not None:
            item["namespace"] = self.namespace
        return item

    def __repr__(self) -> str:
        return f"FunctionCall({self.name!r}, {self.arguments!r})"


def shell(cmd: str) -> FunctionCall:
    """codex 0.171.0's shell tool: `exec_command` with `{"cmd": ...}`."""
    return FunctionCall("exec_command", {"cmd": cmd})


def _wants_json(body: dict[str, Any]) -> bool:
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    return isinstance(fmt, dict) and fmt.get("type") == "json_schema"


class StubOpenAI(RecordingServer):
    """Threaded stub server; `script` is the tool calls to make, one per model turn."""

    def __init__(
        self,
        script: Sequence[FunctionCall],
        final_text: str = FINAL_TEXT,
        structured_answer: dict[str, Any] | None = None,
    ) -> None:
        self.script = list(script)
        self.final_text = final_text
        # Requests that demand a JSON-schema answer (codex's guardian "auto review" of an
        # approval request, a review's findings, `--output-schema`) get this object as text.
        # The default approves: the stub plays a model an attacker controls.
        self.structured_answer = (
            structured_answer
            if structured_answer is not None
            else {
                "outcome": "allow",
                "risk_level": "low",
                "user_authorization": "high",
                "rationale": "stub approves",
            }
        )
        super().__init__()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def codex_args(self, model: str = "gpt-5") -> list[str]:
        """The options that point `codex exec` at this stub (they go after `exec`)."""
        provider = (
            f'model_providers.stub={{name="stub",base_url="{self.base_url}",'
            f'wire_api="responses",env_key="{STUB_KEY_ENV}"}}'
        )
        return ["-c", 'model_provider="stub"', "-c", provider, "-m", model]

    # -- what codex sent ----------------------------------------------------------------------
    def responses_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r for r in self.requests if r.get("_path", "").endswith("/responses")]

    def tool_names(self) -> list[str]:
        """Names of the tools offered in the first model request (empty if none came)."""
        reqs = self.responses_requests()
        if not reqs:
            return []
        names = []
        for tool in reqs[0].get("tools") or []:
            names.append(tool.get("name") or tool.get("type", "?"))
        return names

    def function_outputs(self) -> list[str]:
        """Every tool output codex sent back to the main thread, one per call id, in call order.
        (Requests that ask for a JSON-schema answer, e.g. the guardian's, are not the thread.)"""
        by_call: dict[str, str] = {}
        for request in self.responses_requests():
            if _wants_json(request):
                continue
            for item in request.get("input") or []:
                if item.get("type") in ("function_call_output", "custom_tool_call_output"):
                    output = item.get("output")
                    text = output if isinstance(output, str) else json.dumps(output)
                    by_call[str(item.get("call_id"))] = text
        return list(by_call.values())

    # -- serving ------------------------------------------------------------------------------
    def _answer(self, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
        inputs = body.get("input") or []
        answered = sum(
            1
            for item in inputs
            if isinstance(item, dict)
            and item.get("type") in ("function_call_output", "custom_tool_call_output")
        )
        response_id = f"resp_{len(self.requests)}"
        if _wants_json(body):
            item = self._message(response_id, json.dumps(self.structured_answer))
        elif answered < len(self.script) and body.get("tools"):
            item = self.script[answered].item(f"call_{answered}")
        else:
            item = self._message(response_id, self.final_text)
        usage = {
            "input_tokens": 10,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }
        base = {"id": response_id, "object": "response", "model": body.get("model", "gpt-5")}
        return [
            (
                "response.created",
                {"type": "response.created", "response": {**base, "status": "in_progress"}},
            ),
            (
                "response.output_item.done",
                {"type": "response.output_item.done", "output_index": 0, "item": item},
            ),
            (
                "response.completed",
                {
                    "type": "response.completed",
                    "response": {**base, "status": "completed", "output": [item], "usage": usage},
                },
            ),
        ]

    @staticmethod
    def _message(response_id: str, text: str) -> dict[str, Any]:
        return {
            "type": "message",
            "id": f"msg_{response_id}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }

    def answer_get(self, path: str) -> Answer:
        if path.rstrip("/").endswith("/models"):
            return json_answer({"object": "list", "data": [], "models": []})
        return NOT_FOUND

    def answer_post(self, path: str, body: dict[str, Any]) -> Answer:
        if not path.endswith("/responses"):
            return NOT_FOUND
        events = self._answer(body)
        stream = "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)
        return 200, "text/event-stream", stream.encode()
