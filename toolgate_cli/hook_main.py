"""`toolgate hook claude-pretooluse` without click: the hook runs on every tool call.

`__main__` calls `fast_path(args)` with the arguments after `hook claude-pretooluse`. It
understands `--allow-bash-prefix P` / `--allow-bash-prefix=P` (repeatable) and `--caller-root
DIR` / `--caller-root=DIR` (once, absolute) and nothing else: for `--help`, an unknown option, a
prefix that `prefix_problem` rejects or a bad root it returns None, and the click command
(`toolgate_cli.commands.hook`) prints the help or the usage error instead.

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
import os
import sys

from toolgate_cli.hook import (
    MAX_EVENT_BYTES,
    HookPlace,
    decide_pretooluse_bytes,
    pretooluse_response,
)
from toolgate_cli.shell import prefix_problem

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import BinaryIO

BLOCKING_ERROR = 2
"""Claude Code's "blocking error" status for a hook: stdout ignored, stderr shown to Claude."""


def caller_root_problem(root: str) -> str | None:
    """Why `root` cannot be the hook's --caller-root, or None."""
    if not root.startswith("/"):
        return f"--caller-root {root!r}: give an absolute directory"
    return None


def parse_fast_path_args(args: list[str]) -> tuple[list[str], str | None] | None:
    """The --allow-bash-prefix values and the --caller-root in `args`, or None if `args` holds
    anything else, a prefix that cannot be used or a bad root (click then reports it)."""
    prefixes: list[str] = []
    roots: list[str] = []
    index = 0
    while index < len(args):
        arg = args[index]
        option, equals, value = arg.partition("=")
        if option not in ("--allow-bash-prefix", "--caller-root"):
            return None
        if not equals:
            if index + 1 >= len(args):
                return None
            value = args[index + 1]
            index += 1
        index += 1
        (prefixes if option == "--allow-bash-prefix" else roots).append(value)
    if any(prefix_problem(prefix) is not None for prefix in prefixes):
        return None
    if len(roots) > 1 or any(caller_root_problem(root) is not None for root in roots):
        return None
    return prefixes, (roots[0] if roots else None)


def host_place(caller_root: str | None) -> HookPlace:
    """The hook's view of where commands run: this machine's file system, the caller root, and
    whether the environment Claude Code hands the shell sets CDPATH."""
    from toolgate_cli.shell.host import HOST

    return HookPlace(HOST, caller_root, cdpath_set=bool(os.environ.get("CDPATH")))


def run_pretooluse(
    prefixes: list[str], stdin: BinaryIO, stdout: BinaryIO, caller_root: str | None = None
) -> int:
    """Read one event from `stdin`, write the decision to `stdout`; return the exit status."""
    try:
        raw = stdin.read(MAX_EVENT_BYTES + 1)
        response = decide_pretooluse_bytes(raw, prefixes, host_place(caller_root))
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
    parsed = parse_fast_path_args(args)
    if parsed is None:
        return None
    prefixes, caller_root = parsed
    return run_pretooluse(prefixes, sys.stdin.buffer, sys.stdout.buffer, caller_root)
