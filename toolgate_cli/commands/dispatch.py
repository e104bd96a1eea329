"""`toolgate dispatch`: print the read-only rewrite as JSON, or exec it."""

from __future__ import annotations

from typing import Any

import click

from toolgate_cli.commands.common import dispatch_options
from toolgate_cli.dispatching import UsageProblem, run_dispatch

HELP = """Judge a lane invocation and rewrite it so the lane's own CLI enforces read-only.

Prints one JSON object on stdout (the default, or --json), or with --exec replaces
toolgate with the rewritten lane. --lock-tree adds a kernel layer: the lane runs under
bubblewrap with the caller root mounted read-only (JSON "layers" says which hold).
A refusal prints {"ok": false, "refusal": ...}, one line on stderr, and exits 3.

\b
Examples:
  toolgate dispatch --read-only -- claude -p "review this diff"
  toolgate dispatch --read-only --exec --cwd src -- codex exec "explain main.py"
  toolgate dispatch --read-only --read-shell -- claude -p "what changed since v1?"
  toolgate dispatch --read-only --lock-tree --exec -- opencode run "review this"

\b
Exit status: 0 ok, 2 usage error, 3 refused, 126 lane not executable,
127 lane not found (--exec); with --exec, otherwise the lane's own status.
"""


@click.command(help=HELP, short_help="Rewrite a lane invocation to run read-only (JSON or exec).")
@dispatch_options
@click.option("--json", "output", flag_value="json", default=True, help="Print JSON (default).")
@click.option("--exec", "output", flag_value="exec", help="Exec the rewritten lane in --cwd.")
def dispatch(output: str, **params: Any) -> int:  # noqa: ANN401 - click passes the options
    # The same function the click-free fast path (toolgate_cli.dispatch_main) calls.
    try:
        return run_dispatch(params, output)
    except UsageProblem as problem:
        raise click.UsageError(problem.message) from None
