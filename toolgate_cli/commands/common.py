"""Options and helpers shared by `dispatch` and `explain`: same flags, same decision."""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import click

from toolgate_cli.commands._prefixes import validate_prefixes
from toolgate_cli.decision import DispatchRequest
from toolgate_cli.lanes.base import LaneInvocation, PassFlag, RewriteOptions

F = TypeVar("F", bound=Callable[..., Any])

# The directory holding the `toolgate_cli` package this code runs from.
TOOLGATE_PACKAGE_PARENT = os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
)


def dispatch_options(command: F) -> F:
    """The options `dispatch` and `explain` share, in the order `--help` shows them."""
    decorators = [
        click.option(
            "--read-only",
            is_flag=True,
            help="Rewrite the lane so its own CLI enforces read-only, or refuse (exit 3).",
        ),
        click.option(
            "--read-shell",
            is_flag=True,
            help="With --read-only: claude also gets Bash, every command checked by toolgate's "
            "PreToolUse hook (codex: same as --read-only).",
        ),
        click.option(
            "--allow-bash-prefix",
            "bash_prefixes",
            metavar="PREFIX",
            multiple=True,
            callback=validate_prefixes,
            help="With --read-shell: allow commands starting with PREFIX too (same checks).",
        ),
        click.option(
            "--mode",
            type=click.Choice(["agent", "answer"]),
            default="agent",
            show_default=True,
            help="answer: nothing is spawned, so it is always allowed.",
        ),
        click.option(
            "--cwd",
            metavar="DIR",
            help="Where the lane runs. Default: the current directory.",
        ),
        click.option(
            "--caller-root",
            metavar="DIR",
            help="The tree to protect; --cwd must resolve inside it. "
            "Default: git top-level of the current directory, else the current directory.",
        ),
        click.option(
            "--pass-flag",
            "pass_flags",
            metavar="NAME[=1]",
            multiple=True,
            help="Declare a lane option toolgate does not know as safe (NAME=1: takes a value).",
        ),
        click.option(
            "--pass-config",
            metavar="KEY",
            multiple=True,
            help="Declare a codex -c KEY toolgate does not know as safe.",
        ),
        click.option(
            "--pass-env",
            metavar="NAME",
            multiple=True,
            help="Declare an environment variable set with --env as safe.",
        ),
        click.option(
            "--env",
            "env_pairs",
            metavar="NAME=VALUE",
            multiple=True,
            help="Environment the lane template sets (judged like its flags).",
        ),
        click.option(
            "--unset-env",
            metavar="NAME",
            multiple=True,
            help="Environment variable the lane runs without.",
        ),
        click.argument(
            "lane_command", nargs=-1, type=click.UNPROCESSED, metavar="-- COMMAND [ARGS]..."
        ),
    ]
    for decorator in reversed(decorators):
        command = decorator(command)
    return command


def parse_pass_flag(text: str) -> PassFlag:
    name, has_value, value = text.partition("=")
    if not name.startswith("-"):
        raise click.UsageError(f"--pass-flag {text}: give an option name, like --foo or --foo=1")
    if not has_value:
        return PassFlag(name)
    if value not in ("0", "1"):
        raise click.UsageError(f"--pass-flag {text}: the value count must be 0 or 1")
    return PassFlag(name, takes_value=value == "1")


def parse_env(pairs: Sequence[str], unset: Sequence[str]) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    for pair in pairs:
        name, has_equals, value = pair.partition("=")
        if not has_equals or not name:
            raise click.UsageError(f"--env {pair}: expected NAME=VALUE")
        env[name] = value
    for name in unset:
        env[name] = None
    return env


def default_caller_root(start: str) -> str:
    """The git top-level containing `start` (a `.git` directory or file), else `start`.

    Walks up instead of spawning git: dispatch runs before every lane launch.
    """
    current = os.path.realpath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return os.path.realpath(start)
        current = parent


def hook_command(prefixes: Sequence[str]) -> str:
    """The shell command line that runs this very toolgate's PreToolUse hook.

    The same interpreter and the same package directory, pinned: `python -m` would put the lane's
    working directory first on sys.path, and a tree that ships its own `toolgate_cli` package
    must not get to answer for toolgate.
    """
    bootstrap = (
        f"import sys; sys.path[0] = {TOOLGATE_PACKAGE_PARENT!r}; "
        "from toolgate_cli.__main__ import main; main()"
    )
    argv = [sys.executable, "-E", "-s", "-c", bootstrap, "hook", "claude-pretooluse"]
    for prefix in prefixes:
        argv += ["--allow-bash-prefix", prefix]
    return shlex.join(argv)


def non_utf8_argument(words: Sequence[str]) -> int | None:
    """The index of the first word holding bytes that are not UTF-8 (surrogate escapes)."""
    for index, word in enumerate(words):
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            return index
    return None


def build_request(params: dict[str, Any]) -> DispatchRequest:
    """Turn the shared options into a DispatchRequest; raise click.UsageError on bad input."""
    words: tuple[str, ...] = params["lane_command"]
    mode = params["mode"]
    if not words and mode != "answer":
        raise click.UsageError("no lane command: put it after --, e.g. -- claude -p 'review this'")
    if params["read_shell"] and not params["read_only"]:
        raise click.UsageError("--read-shell needs --read-only")
    if params["bash_prefixes"] and not params["read_shell"]:
        raise click.UsageError("--allow-bash-prefix needs --read-shell")
    if params["cwd"] is not None and not params["cwd"]:
        raise click.UsageError("--cwd: empty path")
    if params["caller_root"] is not None and not params["caller_root"]:
        raise click.UsageError("--caller-root: empty path")
    env = parse_env(params["env_pairs"], params["unset_env"])
    invocation = LaneInvocation(words[0], words[1:], env) if words else None
    options = RewriteOptions(
        pass_flags=tuple(parse_pass_flag(text) for text in params["pass_flags"]),
        pass_config=frozenset(params["pass_config"]),
        pass_env=frozenset(params["pass_env"]),
        read_shell_hook=hook_command(params["bash_prefixes"]) if params["read_shell"] else None,
    )
    caller_root = params["caller_root"] or default_caller_root(os.getcwd())
    return DispatchRequest(
        invocation=invocation,
        read_only=params["read_only"],
        mode=mode,
        cwd=params["cwd"],
        caller_root=caller_root,
        options=options,
    )
