"""`toolgate hook ...`: hooks that lanes call. The real work is in `toolgate_cli.hook_main`,
which `__main__` runs without click; this group exists so --help, usage errors and shell
completion behave like every other command."""

from __future__ import annotations

import sys

import click

from toolgate_cli.commands._prefixes import allow_bash_prefix_option, caller_root_option

GROUP_HELP = """Hooks a lane calls while it runs (not usually typed by hand).

\b
Example:
  echo '{"hook_event_name": "PreToolUse", "tool_name": "Bash",
         "tool_input": {"command": "git status"}}' | toolgate hook claude-pretooluse
"""

PRETOOLUSE_HELP = """Claude Code PreToolUse hook for read access: answer allow or deny.

Reads one hook event (JSON) on stdin and prints the decision on stdout:
{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"|"deny",
"permissionDecisionReason": "..."}}. Read, Glob, Grep, WebFetch, WebSearch and ToolSearch are
allowed; Bash only when `toolgate check-command` would admit the command in the event's `cwd`;
every other tool (Edit, Write, NotebookEdit, Task/Agent, Skill, mcp__*) is denied. Malformed
input is denied. `toolgate dispatch --read-shell` installs it with --caller-root.

\b
Example (in a --settings JSON for claude):
  {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command":
    "/abs/toolgate hook claude-pretooluse --caller-root /abs/tree --allow-bash-prefix jq"}]}]}}

Exit status: 0 with the decision (allow and deny alike); 2 if no decision could be written,
which Claude Code treats as a blocking error; a bad --allow-bash-prefix or --caller-root is a
usage error (2), which blocks every call until the hook is fixed.
"""


@click.group("hook", help=GROUP_HELP, short_help="Hooks a lane calls while it runs.")
def hook() -> None:
    pass


@hook.command(
    "claude-pretooluse", help=PRETOOLUSE_HELP, context_settings={"max_content_width": 100}
)
@allow_bash_prefix_option
@caller_root_option
@click.pass_context
def claude_pretooluse(
    ctx: click.Context, allow_bash_prefixes: list[str], caller_root: str | None
) -> None:
    from toolgate_cli.hook_main import run_pretooluse

    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    ctx.exit(run_pretooluse(allow_bash_prefixes, stdin, stdout, caller_root))
