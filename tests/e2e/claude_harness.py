"""Running the real claude binary against the stub model, with and without toolgate.

A `Scenario` is one way a template could make claude write: the template's arguments, what the
stub model asks for (a script of tool calls), and any files the scenario plants first (a
project settings file, an MCP config, ...). `run_leg` runs it once in a fresh git tree, either
directly (the control) or through `toolgate dispatch --read-only --exec`, and returns what
happened: exit status, output, the changes in the tree, and the stub's record of the requests.

Placeholders in template words, scripted tool inputs, planted files and stdin:
`{TREE}` the fresh tree, `{HOME}` the scratch HOME, `{PY}` this Python, `{MCP_SERVER}` the
stdio MCP server script (written outside the tree).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import dispatch_exec_argv, toolgate_env
from tests.e2e.stub_anthropic import StubAnthropic, ToolCall, claude_env, scrubbed_environ
from tests.e2e.tree import changes, fresh_tree, git, run_lane, snapshot

READ_ONLY_TOOLS = frozenset(
    {"Read", "Glob", "Grep", "WebFetch", "WebSearch", "DeferredToolPlaceholder"}
)
"""What the model may be offered under toolgate: measured with 2.1.332, `--tools` with the five
read tools offers those five plus `DeferredToolPlaceholder`, an empty tool with
`defer_loading: true` that claude adds to every request ("keeps deferred tool loading active;
never call this tool"); a call of it is answered `No such tool available` (the
tool/deferred-* scenarios). `--json-schema` would add StructuredOutput; no scenario uses it."""

RUN_TIMEOUT = 60
"""Seconds one claude run may take; a run against the stub takes 1-3 s."""

PROMPT = "do what the script says"

MCP_SERVER = '''\
"""A stdio MCP server with two tools: `write(path, text)` writes a file; `approve` answers
claude's permission prompts (--permission-prompt-tool) with "allow". argv[1], if given, is a file
the server creates as soon as it starts (so a test sees that the server was spawned at all)."""
import json
import sys

if len(sys.argv) > 1:
    open(sys.argv[1], "w").close()
for line in sys.stdin:
    if not line.strip():
        continue
    message = json.loads(line)
    if "id" not in message:
        continue
    method = message.get("method")
    if method == "initialize":
        result = {
            "protocolVersion": message["params"].get("protocolVersion", "2024-11-05"),
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "x", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [
            {
                "name": "write",
                "description": "write a file",
                "inputSchema": {
                    "type": "object",
                    "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
                    "required": ["path"],
                },
            },
            {
                "name": "approve",
                "description": "answer a permission prompt",
                "inputSchema": {
                    "type": "object",
                    "properties": {"tool_name": {"type": "string"}, "input": {"type": "object"}},
                },
            },
        ]}
    elif method == "tools/call" and message["params"].get("name") == "approve":
        arguments = message["params"].get("arguments", {})
        verdict = {"behavior": "allow", "updatedInput": arguments.get("input", {})}
        result = {"content": [{"type": "text", "text": json.dumps(verdict)}]}
    elif method == "tools/call":
        arguments = message["params"].get("arguments", {})
        with open(arguments["path"], "w") as handle:
            handle.write(arguments.get("text", "mcp"))
        result = {"content": [{"type": "text", "text": "wrote " + arguments["path"]}]}
    else:
        reply = {"jsonrpc": "2.0", "id": message["id"],
                 "error": {"code": -32601, "message": "unknown method"}}
        print(json.dumps(reply), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
'''


@dataclass(frozen=True)
class Context:
    """Where one leg runs."""

    tree: Path
    home: Path
    mcp_server: Path

    def fill(self, value: Any) -> Any:
        """`value` (a string or JSON-shaped data) with the placeholders filled in."""
        if isinstance(value, str):
            return (
                value.replace("{TREE}", str(self.tree))
                .replace("{HOME}", str(self.home))
                .replace("{PY}", sys.executable)
                .replace("{MCP_SERVER}", str(self.mcp_server))
            )
        if isinstance(value, list):
            return [self.fill(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.fill(v) for v in value)
        if isinstance(value, dict):
            return {k: self.fill(v) for k, v in value.items()}
        return value


Setup = Callable[[Context], None]


@dataclass(frozen=True)
class Scenario:
    """One way a template could make claude write into the tree.

    `template`: claude's arguments, used as-is by the control and given to toolgate.
    `control_writes`: entries of `tree.changes()` the control run must produce, else the
    scenario proves nothing. `refused`: toolgate must refuse (exit 3, claude never starts);
    otherwise toolgate must run claude confined (offered exactly the read-only tools, nothing in
    the tree changes).
    """

    id: str
    template: tuple[str, ...]
    control_writes: tuple[str, ...]
    script: tuple[ToolCall, ...] = ()
    refused: bool = False
    setup: Setup | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    stdin: str | None = None
    toolgate_flags: tuple[str, ...] = ()
    """Extra `toolgate dispatch` options for the gated leg (e.g. `--read-shell`)."""
    control_says: tuple[str, ...] = ()
    """Text the control's tool results must hold, for a route whose harm is not a change in
    the tree (a background workflow launched, a file read outside it)."""
    cwd: str = ""
    """Where claude runs, relative to the tree (the caller root stays the tree)."""

    @property
    def gated_tools(self) -> frozenset[str]:
        """The exact tool set the model may be offered under toolgate."""
        if "--read-shell" in self.toolgate_flags:
            return READ_ONLY_TOOLS | {"Bash"}
        return READ_ONLY_TOOLS


@dataclass
class Leg:
    """The outcome of one run of a scenario."""

    returncode: int
    stdout: str
    stderr: str
    changes: list[str]
    stub: StubAnthropic
    script_length: int

    def describe(self) -> str:
        turns = self.stub.main_turns()
        return (
            f"exit {self.returncode}\nchanges: {self.changes}\n"
            f"offered: {sorted(turns[0].tool_names) if turns else None}\n"
            f"tool results: {[t[:160] for t in self.stub.tool_result_texts()]}\n"
            f"stub requests: {[(r.method, r.path) for r in self.stub.requests]}\n"
            f"stdout: {self.stdout[-800:]}\nstderr: {self.stderr[-1500:]}"
        )


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def commit_all(tree: Path, message: str) -> None:
    """Commit what a setup planted, so the snapshot's `git status` starts clean."""
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", message)


def run_leg(
    scenario: Scenario, parent: Path, claude_bin: Path, *, gated: bool, git_dir: bool = False
) -> Leg:
    """Run `scenario` once in a fresh tree under `parent`: directly, or through toolgate.

    `git_dir`: the tree's changes include every file inside `.git` (see `tree.snapshot`)."""
    name = "gated" if gated else "control"
    tree = fresh_tree(parent, f"{name}-tree")
    home = parent / f"{name}-home"  # outside the tree: claude writes its own state there
    home.mkdir()
    mcp_server = parent / f"{name}-mcp_server.py"
    mcp_server.write_text(MCP_SERVER)
    context = Context(tree, home, mcp_server)
    if scenario.setup is not None:
        scenario.setup(context)
    script = [ToolCall(call.name, context.fill(call.input)) for call in scenario.script]
    args = [context.fill(word) for word in scenario.template]
    before = snapshot(tree, git_dir=git_dir)
    workdir = tree / scenario.cwd
    with StubAnthropic(script=script) as stub:
        env = scrubbed_environ(toolgate_env())
        env.update(claude_env(stub.url, home))
        env.update(context.fill(dict(scenario.env)))
        if gated:
            argv = dispatch_exec_argv(
                claude_bin, args, tree=tree, flags=scenario.toolgate_flags, cwd=workdir
            )
        else:
            argv = [str(claude_bin), *args]
        returncode, stdout, stderr = run_lane(
            argv, cwd=workdir, env=env, timeout=RUN_TIMEOUT, stdin=context.fill(scenario.stdin)
        )
    changed = changes(before, snapshot(tree, git_dir=git_dir))
    return Leg(returncode, stdout, stderr, changed, stub, len(script))


def mcp_server_config(start_marker: str = "") -> dict[str, Any]:
    """An `mcpServers` map with server `x` (tools `mcp__x__write`, `mcp__x__approve`) running
    the test's server."""
    args = ["{MCP_SERVER}", *([start_marker] if start_marker else [])]
    return {"mcpServers": {"x": {"type": "stdio", "command": "{PY}", "args": args}}}


def hooks_writing(marker_prefix: str) -> dict[str, Any]:
    """A settings `hooks` map whose SessionStart, UserPromptSubmit, PreToolUse and Stop hooks
    each create `{marker_prefix}-<event>`."""

    def entry(event: str) -> dict[str, Any]:
        hook = {"type": "command", "command": f"touch {marker_prefix}-{event}"}
        return {"matcher": "*", "hooks": [hook]} if event == "PreToolUse" else {"hooks": [hook]}

    events = ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop")
    return {event: [entry(event)] for event in events}
