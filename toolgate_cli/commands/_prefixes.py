"""The `--allow-bash-prefix` and `--caller-root` options shared by check-command and the hook
command."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from toolgate_cli.shell import prefix_problem

F = TypeVar("F", bound=Callable[..., Any])


def validate_prefixes(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> list[str]:
    for value in values:
        problem = prefix_problem(value)
        if problem is not None:
            raise click.BadParameter(problem, ctx=ctx, param=param)
    return list(values)


def allow_bash_prefix_option(function: F) -> F:
    """Add `--allow-bash-prefix PREFIX` (repeatable, validated by `prefix_problem`)."""
    option = click.option(
        "--allow-bash-prefix",
        "allow_bash_prefixes",
        metavar="PREFIX",
        multiple=True,
        callback=validate_prefixes,
        help="Also admit commands starting with these whole words (repeatable), under the same "
        "syntax and argument checks. Programs that run other programs (env, sudo, sh, python, "
        "npm, ...) are refused even here.",
    )
    return option(function)


def validate_caller_root(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> str | None:
    from toolgate_cli.hook_main import caller_root_problem

    if len(values) > 1:
        # Refused, not "the last one wins": a hook command line naming two roots is a mistake.
        raise click.BadParameter("give it once", ctx=ctx, param=param)
    for value in values:
        problem = caller_root_problem(value)
        if problem is not None:
            raise click.BadParameter(problem, ctx=ctx, param=param)
    return values[0] if values else None


def caller_root_option(function: F) -> F:
    """Add `--caller-root DIR`: the tree `cd` must stay in and git's repository is judged by."""
    option = click.option(
        "--caller-root",
        "caller_root",
        metavar="DIR",
        multiple=True,
        callback=validate_caller_root,
        help="The tree being protected (absolute): admit `cd DIR` into it, and git only where it "
        "finds this tree's repository (not a nested one). Without it, `cd` is refused.",
    )
    return option(function)
