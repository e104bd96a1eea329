"""`toolgate dispatch`: print the read-only rewrite as JSON, or exec it."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from toolgate_cli import exitcodes
from toolgate_cli.commands.common import build_request, dispatch_options, non_utf8_argument
from toolgate_cli.decision import DispatchDecision, decide_dispatch
from toolgate_cli.messages import shortened

HELP = """Judge a lane invocation and rewrite it so the lane's own CLI enforces read-only.

Prints one JSON object on stdout (the default, or --json), or with --exec replaces
toolgate with the rewritten lane. A refusal prints {"ok": false, "refusal": ...},
one line on stderr, and exits 3.

\b
Examples:
  toolgate dispatch --read-only -- claude -p "review this diff"
  toolgate dispatch --read-only --exec --cwd src -- codex exec "explain main.py"
  toolgate dispatch --read-only --read-shell -- claude -p "what changed since v1?"

\b
Exit status: 0 ok, 2 usage error, 3 refused, 126 lane not executable,
127 lane not found (--exec); with --exec, otherwise the lane's own status.
"""


@click.command(help=HELP, short_help="Rewrite a lane invocation to run read-only (JSON or exec).")
@dispatch_options
@click.option("--json", "output", flag_value="json", default=True, help="Print JSON (default).")
@click.option("--exec", "output", flag_value="exec", help="Exec the rewritten lane in --cwd.")
def dispatch(output: str, **params: Any) -> int:  # noqa: ANN401 - click passes the options
    request = build_request(params)
    words = params["lane_command"]
    bad = non_utf8_argument(words)
    if bad is not None and output == "json":
        raise click.UsageError(
            f"argument {bad + 1} of the lane command is not valid UTF-8; JSON cannot carry it "
            "(--exec passes it through byte for byte)"
        )
    if output == "exec" and request.mode == "answer":
        raise click.UsageError("--exec with --mode answer: answer mode spawns nothing")
    decision = decide_dispatch(request)
    if output == "exec":
        return _exec(decision)
    _print_json(decision)
    if not decision.ok:
        click.echo(f"toolgate: refused: {shortened(decision.refusal or '')}", err=True)
        return exitcodes.REFUSED
    return exitcodes.OK


def _print_json(decision: DispatchDecision) -> None:
    """Write the decision as one line of JSON, or nothing and a usage error when a value in it
    (a path, an environment value) holds bytes that are not UTF-8: JSON text is UTF-8, and
    writing the raw bytes back would give the reader something that is not JSON."""
    payload = decision.as_json()
    text = json.dumps(payload, ensure_ascii=False, indent=None)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        fields = [
            key
            for key, value in payload.items()
            if non_utf8_argument([json.dumps(value, ensure_ascii=False)]) is not None
        ]
        raise click.UsageError(
            f"{', '.join(fields) or 'the result'} is not valid UTF-8, so JSON cannot carry it "
            "(--exec passes it through byte for byte)"
        ) from None
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.flush()


def _exec(decision: DispatchDecision) -> int:
    from toolgate_cli.execlane import ExecFailure, exec_lane

    if not decision.ok or decision.invoke is None:
        click.echo(f"toolgate: refused: {shortened(decision.refusal or '')}", err=True)
        return exitcodes.REFUSED
    root = decision.caller_root if decision.read_only else None
    try:
        exec_lane(decision.invoke, decision.cwd, root)
    except ExecFailure as failure:
        click.echo(f"toolgate: {shortened(failure.message)}", err=True)
        return failure.status
    return exitcodes.OK  # pragma: no cover - exec_lane returns only with a test double
