"""Options and helpers shared by `dispatch` and `explain`: same flags, same decision.

The options are parsed here (click); what they mean is `toolgate_cli.dispatching`, which the
click-free fast path of `dispatch` shares.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from toolgate_cli import dispatching
from toolgate_cli.commands._prefixes import validate_prefixes
from toolgate_cli.decision import DispatchRequest

F = TypeVar("F", bound=Callable[..., Any])


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
            "PreToolUse hook (codex: same as --read-only). Your shell start-up files run "
            "unchecked; add --lock-tree to hold them.",
        ),
        click.option(
            "--lock-tree",
            is_flag=True,
            help="With --read-only: also run the lane under bubblewrap with the caller root "
            "mounted read-only (Linux). Lanes with no read-only flags run under the lock alone.",
        ),
        click.option(
            "--lock-only",
            is_flag=True,
            help="--lock-tree without the lane-flag rewrite: the template runs as given.",
        ),
        click.option(
            "--confine",
            is_flag=True,
            help="With --read-only: the lane sees only the caller root (read-only) and what it "
            "needs to run, keeps only an allow list of the environment, and has no web tools "
            "(Linux, bubblewrap). Implies the tree lock.",
        ),
        click.option(
            "--allow-read",
            metavar="DIR",
            multiple=True,
            help="With --confine: also show DIR read-only (never a secret store such as ~/.ssh; "
            "those inside DIR are covered up).",
        ),
        click.option(
            "--lane-version",
            metavar="V",
            help="The lane version that will run; the rewrite is fitted to it. Under --exec "
            "without it, toolgate asks the binary (LANE --version, cached).",
        ),
        click.option(
            "--require-proven",
            is_flag=True,
            help="Refuse (exit 3) unless that lane version is proven end to end "
            "(`toolgate lanes` lists them).",
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


def build_request(params: dict[str, Any]) -> DispatchRequest:
    """The shared options as a DispatchRequest (see `toolgate_cli.dispatching.build_request`);
    a usage problem becomes a click.UsageError."""
    try:
        return dispatching.build_request(params)
    except dispatching.UsageProblem as problem:
        raise click.UsageError(problem.message) from None
