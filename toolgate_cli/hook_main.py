"""`toolgate hook claude-pretooluse` without click: the hook runs on every tool call.

`__main__` calls `fast_path(args)` with the arguments after `hook claude-pretooluse`. It
understands `--allow-bash-prefix P` / `--allow-bash-prefix=P` (repeatable) and nothing else: for
`--help`, an unknown option or a prefix that `prefix_problem` rejects it returns None, and the
click command (`toolgate_cli.commands.hook`) prints the help or the usage error instead.

Exit status, as Claude Code reads it:
- 0 with the decision JSON on stdout, allow *and* deny: the JSON carries the decision (a deny's
  reason reaches the model as the tool result).
- 2 only when no decision could be written (stdout closed): Claude Code treats exit 2 as a
  blocking error, ignores stdout and shows stderr to the model, so the call is still blocked.
- Never 1 or any other status: Claude Code treats those as non-blocking errors and runs the tool
  anyway, which would fail open. Every failure inside the hook is therefore a deny.
"""

from __future__ import annotations

import json
import sys

from toolgate_cli.hook import MAX_EVENT_BYTES, decide_pretooluse_bytes, pretooluse_response
from toolgate_cli.shell import prefix_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

BLOCKING_ERROR = 2
"""Claude Code's "blocking error" status for a hook: stdout ignored, stderr shown to Claude."""


def parse_fast_path_args(args: list[str]) -> list[str] | None:
    """The --allow-bash-prefix values in `args`, or None if `args` holds anything else or a
    prefix that cannot be used (click then reports it)."""
    prefixes: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        if arg == "--allow-bash-prefix" and index + 1 < len(args):
            prefixes.append(args[index + 1])
            index += 2
        elif arg.startswith("--allow-bash-prefix="):
            prefixes.append(arg.partition("=")[2])
            index += 1
        else:
            return None
    if any(prefix_problem(prefix) is not None for prefix in prefixes):
        return None
    return prefixes


def run_pretooluse(prefixes: list[str], stdin: BinaryIO, stdout: BinaryIO) -> int:
    """Read one event from `stdin`, write the decision to `stdout`; return the exit status."""
    try:
        raw = stdin.read(MAX_EVENT_BYTES + 1)
        response = decide_pretooluse_bytes(raw, prefixes)
    except Exception as error:  # a failing hook must deny, never fail open
        response = pretooluse_response(
            False, f"toolgate read access: internal error ({type(error).__name__}); denied"
        )
    payload = (json.dumps(response, ensure_ascii=True) + "\n").encode("ascii")
    try:
        stdout.write(payload)
        stdout.flush()
    except OSError:
        # try/except, not contextlib.suppress: contextlib is an import the hook pays on every call
        try:  # noqa: SIM105
            sys.stderr.write("toolgate hook: could not write the decision; blocking this call\n")
        except OSError:
            pass
        return BLOCKING_ERROR
    return 0


def fast_path(args: list[str]) -> int | None:
    """Run the hook if `args` are understood here; None hands them to the click command."""
    prefixes = parse_fast_path_args(args)
    if prefixes is None:
        return None
    return run_pretooluse(prefixes, sys.stdin.buffer, sys.stdout.buffer)
