"""`toolgate dispatch` without click, for the command line a launcher sends before every lane.

`__main__` calls `fast_path(args)` with the arguments after `dispatch`. It understands the
documented form: dispatch's own long options (`--name value`, `--name=value`, flags), then `--`,
then the lane command. Anything else returns None before anything is written, and the click
command runs instead: `--help`, an option it does not know, a flag given a value, a word before
`--`, a `--mode` click would reject, `--json` together with `--exec`, a bad
`--allow-bash-prefix`, and every usage problem `run_dispatch` raises. So errors always come
from one place (click's one-line usage error), and for what the fast path accepts both entry
points call the same `toolgate_cli.dispatching.run_dispatch` with the same `params`.

Why: click and what it imports (inspect, typing, uuid, datetime, gettext, ...) cost more at
start-up than the whole decision; measured in benchmarks/run.py.
"""

from __future__ import annotations

import sys

from toolgate_cli import exitcodes
from toolgate_cli.dispatching import UsageProblem, run_dispatch
from toolgate_cli.messages import shortened

FLAGS: dict[str, str] = {
    "--read-only": "read_only",
    "--read-shell": "read_shell",
    "--lock-tree": "lock_tree",
    "--lock-only": "lock_only",
    "--confine": "confine",
    "--require-proven": "require_proven",
}
"""Flag options: name -> params key (True when given)."""

SINGLE: dict[str, str] = {
    "--mode": "mode",
    "--cwd": "cwd",
    "--caller-root": "caller_root",
    "--lane-version": "lane_version",
}
"""Options with one value; given twice, the last wins (as in click)."""

MULTIPLE: dict[str, str] = {
    "--allow-bash-prefix": "bash_prefixes",
    "--pass-flag": "pass_flags",
    "--pass-config": "pass_config",
    "--pass-env": "pass_env",
    "--env": "env_pairs",
    "--unset-env": "unset_env",
    "--allow-read": "allow_read",
}
"""Repeatable options: name -> params key (a tuple of every value, in order)."""

OUTPUTS: dict[str, str] = {"--json": "json", "--exec": "exec"}


def parse_fast_path_args(args: list[str]) -> tuple[dict[str, object], str] | None:
    """The `params` and output click would pass the dispatch command for `args`, or None when
    `args` are not in the form handled here."""
    params: dict[str, object] = {key: False for key in FLAGS.values()}
    params.update({"mode": "agent", "cwd": None, "caller_root": None, "lane_version": None})
    multiple: dict[str, list[str]] = {key: [] for key in MULTIPLE.values()}
    outputs: set[str] = set()
    index = 0
    while index < len(args):
        word = args[index]
        if word == "--":
            break
        name, has_value, inline = word.partition("=")
        if name in FLAGS and not has_value:
            params[FLAGS[name]] = True
        elif name in OUTPUTS and not has_value:
            outputs.add(OUTPUTS[name])
        elif name in SINGLE or name in MULTIPLE:
            if has_value:
                value = inline
            elif index + 1 < len(args):
                index += 1
                value = args[index]
            else:
                return None  # click: the option requires an argument
            if name in SINGLE:
                params[SINGLE[name]] = value
            else:
                multiple[MULTIPLE[name]].append(value)
        else:
            return None  # --help, an unknown option, a flag with a value, a word before --
        index += 1
    else:
        return None  # no `--`: the lane command is not set apart
    if len(outputs) > 1 or params["mode"] not in ("agent", "answer"):
        return None
    if multiple["bash_prefixes"]:
        from toolgate_cli.shell import prefix_problem

        if any(prefix_problem(prefix) is not None for prefix in multiple["bash_prefixes"]):
            return None
    params.update({key: tuple(values) for key, values in multiple.items()})
    params["lane_command"] = tuple(args[index + 1 :])
    return params, outputs.pop() if outputs else "json"


def fast_path(args: list[str]) -> int | None:
    """Run dispatch if `args` are in the form handled here; None hands them to click."""
    parsed = parse_fast_path_args(args)
    if parsed is None:
        return None
    params, output = parsed
    try:
        return run_dispatch(params, output)
    except UsageProblem:
        return None  # nothing was written: click reports it the usual way
    # The same last lines of defence as the click app (toolgate_cli.cli.run): no traceback.
    except BrokenPipeError:
        return exitcodes.OK
    except KeyboardInterrupt:
        return 130
    except Exception as error:
        detail = str(error).splitlines()[0] if str(error) else ""
        message = f"toolgate: internal error: {type(error).__name__}"
        sys.stderr.write(shortened(f"{message}: {detail}" if detail else message) + "\n")
        return exitcodes.INTERNAL
