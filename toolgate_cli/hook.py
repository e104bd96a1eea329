"""The Claude Code PreToolUse hook decision for read access (pure: no I/O).

Claude Code runs the hook before every tool call with the event on stdin, for example

    {"session_id": "...", "transcript_path": "...", "cwd": "/repo", "permission_mode": "dontAsk",
     "hook_event_name": "PreToolUse", "tool_name": "Bash",
     "tool_input": {"command": "git log -5", "description": "..."}, "tool_use_id": "toolu_..."}

and reads the decision from stdout when the hook exits 0:

    {"hookSpecificOutput": {"hookEventName": "PreToolUse",
                            "permissionDecision": "allow" | "deny",
                            "permissionDecisionReason": "..."}}

A deny's reason is shown to the model as the tool result, so it says what to do instead.

The policy (seed 001, `readAccessCanUseTool`): `READ_TOOLS` are allowed; Bash is allowed only
when `check_read_only_command` admits the command, judged in the event's `cwd` (the directory
Claude Code runs it in: it keeps the shell's directory between calls and reports it there);
every other tool is denied, MCP tools (`mcp__*`) included. Anything unexpected in the event (not
an object, another event, a missing or mistyped field, a duplicated key) is a deny with the
reason: the hook fails closed.
"""

from __future__ import annotations

import json

from toolgate_cli.shell import Place, check_read_only_command, display_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolgate_cli.shell.place import FileSystem

MAX_EVENT_BYTES = 1024 * 1024
"""Larger events are denied unread: every tool read access allows has a small input."""

READ_TOOLS: dict[str, str] = {
    "Read": "reads a file",
    "Glob": "lists paths matching a pattern",
    "Grep": "searches file contents",
    "WebFetch": "fetches a URL into the conversation; writes nothing locally",
    "WebSearch": "searches the web; writes nothing locally",
    "ToolSearch": "only loads deferred tool schemas; a tool it loads is still checked here when "
    "it is called",
}
"""Claude Code tools allowed in read access, with why each is read-only. Bash is decided per
command by the shell checker."""

DENIED_TOOLS: dict[str, str] = {
    "Edit": "it edits files",
    "MultiEdit": "it edits files",
    "Write": "it writes files",
    "NotebookEdit": "it edits notebooks",
    "Task": "it starts a subagent; read access does not delegate",
    "Agent": "it starts a subagent; read access does not delegate",
    "Skill": "a skill's SKILL.md can run shell commands (!`cmd` blocks) under the skill's own "
    "allowed-tools when it loads, outside this check, and can fork a subagent",
    "Monitor": "it runs a shell command without this check",
    "BashOutput": "background shells are not used in read access",
    "TaskOutput": "background tasks are not used in read access",
    "KillShell": "it stops processes",
    "TaskStop": "it stops processes",
    "EnterWorktree": "it creates a git worktree and a branch",
    "ExitWorktree": "it can remove a git worktree",
    "CronCreate": "it schedules later prompts",
    "CronDelete": "it changes scheduled prompts",
    "ScheduleWakeup": "it schedules later prompts",
    "TodoWrite": "it changes session state; read access only reads",
    "PowerShell": "it runs code without this check",
    "LSP": "it starts language servers, programs outside this check",
    "Workflow": "it runs a multi-agent script in the background; read access does not delegate",
    "SendMessage": "another session would act on the message with its own permissions",
    "ListAgents": "read access does not talk to other sessions",
    "RemoteTrigger": "it starts work on another machine",
    "Artifact": "it publishes content off this machine",
}
"""Tools denied with a specific reason; any other tool not in READ_TOOLS is denied too."""

_ALLOWED_SUMMARY = ", ".join(READ_TOOLS) + " and read-only Bash commands"


def pretooluse_response(allow: bool, reason: str) -> dict[str, object]:
    """The hook's stdout object for one decision."""
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow" if allow else "deny",
            "permissionDecisionReason": reason,
        }
    }


def _deny(reason: str) -> dict[str, object]:
    return pretooluse_response(False, f"toolgate read access: {reason}")


def _allow(reason: str) -> dict[str, object]:
    return pretooluse_response(True, f"toolgate read access: {reason}")


class HookPlace:
    """What the hook knows of where commands run, besides the event's `cwd`: the file system to
    read (None: judge the text alone, as without a place), the caller root (`--caller-root`;
    None: `cd` is refused) and whether CDPATH is set in the environment the shell inherits."""

    __slots__ = ("caller_root", "cdpath_set", "fs")

    def __init__(
        self, fs: FileSystem | None, caller_root: str | None = None, cdpath_set: bool = False
    ) -> None:
        self.fs = fs
        self.caller_root = caller_root
        self.cdpath_set = cdpath_set

    def place(self, event: dict[str, object]) -> Place | None:
        if self.fs is None:
            return None
        cwd = event.get("cwd")
        return Place(
            self.fs,
            cwd if isinstance(cwd, str) else None,
            self.caller_root,
            cdpath_set=self.cdpath_set,
        )


def _decide_bash(
    tool_input: dict[str, object], extra_prefixes: Sequence[str], place: Place | None
) -> dict[str, object]:
    command = tool_input.get("command")
    if not isinstance(command, str):
        return _deny("Bash call without a text `command`; denied")
    background = tool_input.get("run_in_background", False)
    if background not in (False, None):
        return _deny(
            "run_in_background refused: background tasks outlive this check and need tools "
            "read access does not offer; run the command in the foreground"
        )
    verdict = check_read_only_command(command, extra_prefixes, place=place)
    if verdict.ok:
        return _allow("read-only command" if len(verdict.parts) < 2 else "read-only commands")
    return _deny(verdict.message)


def decide_pretooluse(
    event: object, extra_prefixes: Sequence[str] = (), where: HookPlace | None = None
) -> dict[str, object]:
    """The decision for one PreToolUse event (already parsed from JSON). Never raises.

    `where`: how to judge the checks that depend on the working directory (the event's `cwd`);
    None judges the text alone."""
    if not isinstance(event, dict):
        return _deny("malformed hook input: the event is not a JSON object; denied")
    event_name = event.get("hook_event_name")
    if event_name != "PreToolUse":
        shown = display_text(event_name) if isinstance(event_name, str) else "missing"
        return _deny(f"unexpected hook event {shown} (expected PreToolUse); denied")
    tool_name = event.get("tool_name")
    if not isinstance(tool_name, str) or not tool_name:
        return _deny("malformed hook input: `tool_name` is missing or not text; denied")
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, dict):
        return _deny(f"malformed hook input: {display_text(tool_name)} has no input object")
    if tool_name == "Bash":
        return _decide_bash(tool_input, extra_prefixes, where.place(event) if where else None)
    if tool_name in READ_TOOLS:
        return _allow(f"{tool_name} {READ_TOOLS[tool_name]}")
    if tool_name.startswith("mcp__"):
        why = "an MCP tool can do whatever its server does"
    else:
        why = DENIED_TOOLS.get(tool_name, "it is not a read tool")
    return _deny(f"{display_text(tool_name)} refused: {why}; use {_ALLOWED_SUMMARY}")


class _DuplicateKeyError(ValueError):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, object]]) -> dict[str, object]:
    # Two `command` keys could be read one way here and another way by Claude: refuse both.
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKeyError(f"duplicate key {display_text(key)}")
        result[key] = value
    return result


def decide_pretooluse_bytes(
    raw: bytes, extra_prefixes: Sequence[str] = (), where: HookPlace | None = None
) -> dict[str, object]:
    """The decision for the hook's raw stdin (at most MAX_EVENT_BYTES + 1 bytes read). Never
    raises: unreadable input is a deny with the reason."""
    if len(raw) > MAX_EVENT_BYTES:
        return _deny(f"hook input larger than {MAX_EVENT_BYTES} bytes; denied")
    try:
        event = json.loads(raw.decode("utf-8"), object_pairs_hook=_no_duplicate_keys)
    except UnicodeDecodeError:
        return _deny("malformed hook input: not UTF-8; denied")
    except _DuplicateKeyError as error:
        return _deny(f"malformed hook input: {error}; denied")
    except ValueError as error:
        detail = str(error).splitlines()[0] if str(error) else type(error).__name__
        return _deny(f"malformed hook input: not JSON ({detail}); denied")
    except RecursionError:
        return _deny("malformed hook input: nested too deeply; denied")
    return decide_pretooluse(event, extra_prefixes, where)
