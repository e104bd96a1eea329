"""`toolgate check-command`: would read access admit this Bash command?"""

from __future__ import annotations

import json
import shlex
import sys

import click

from toolgate_cli import exitcodes
from toolgate_cli.commands._prefixes import allow_bash_prefix_option
from toolgate_cli.shell import (
    MAX_COMMAND_CHARS,
    REFUSAL_CODES,
    ShellVerdict,
    check_read_only_command,
)

_CODES = "\n".join(f"  {code:<20} {meaning}" for code, meaning in REFUSAL_CODES.items())

HELP = f"""Check whether read access admits one Bash command (the check the Claude hook runs).

COMMAND is the whole command text as ONE argument: quote it, and put `--` before it. `-` reads
it from stdin instead (one trailing newline is dropped).

\b
Examples:
  toolgate check-command -- 'git log --oneline -5'
  toolgate check-command --allow-bash-prefix jq -- 'jq . package.json'
  echo 'find . -delete' | toolgate check-command --json -

\b
Output: admitted prints `allowed: WORDS` (the words as split); refused prints one line on
stderr naming what was refused and why. --json prints one object on stdout instead, either way:
  {{"allowed": true|false, "code": CODE, "message": "...", "words": [...]|null}}
words are the command's words (quotes removed) when admitted, null when refused.

\b
Codes:
{_CODES}

Exit status: 0 admitted, 1 refused, 2 usage error.
"""


def _read_stdin_command() -> str | ShellVerdict:
    limit = MAX_COMMAND_CHARS * 4 + 2
    raw: bytes = sys.stdin.buffer.read(limit + 1)
    if len(raw) > limit:
        return ShellVerdict(
            False, "too-long", f"the command is longer than {MAX_COMMAND_CHARS} characters"
        )
    text = raw.decode("utf-8", "surrogateescape")
    return text[:-1] if text.endswith("\n") else text


@click.command(
    "check-command",
    help=HELP,
    short_help="Check whether read access admits one Bash command.",
    context_settings={"max_content_width": 100},
)
@allow_bash_prefix_option
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object.")
@click.argument("command", nargs=-1, required=True, metavar="COMMAND")
@click.pass_context
def check_command(
    ctx: click.Context, allow_bash_prefixes: list[str], as_json: bool, command: tuple[str, ...]
) -> None:
    if len(command) != 1:
        raise click.UsageError(
            f"pass the command as ONE argument (quote it): got {len(command)} arguments", ctx=ctx
        )
    text = _read_stdin_command() if command[0] == "-" else command[0]
    verdict = (
        text
        if isinstance(text, ShellVerdict)
        else check_read_only_command(text, allow_bash_prefixes)
    )
    if as_json:
        click.echo(json.dumps(verdict.to_json(), ensure_ascii=False))
    elif verdict.ok:
        click.echo("allowed: " + shlex.join(verdict.words or []))
    else:
        click.echo(f"toolgate: {verdict.message}", err=True)
    ctx.exit(exitcodes.OK if verdict.ok else exitcodes.NOT_ADMITTED)
