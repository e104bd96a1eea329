"""`toolgate check-command`: would read access admit this Bash command?"""

from __future__ import annotations

import json
import os
import shlex
import sys

import click

from toolgate_cli import exitcodes
from toolgate_cli.commands._prefixes import allow_bash_prefix_option, caller_root_option
from toolgate_cli.shell import (
    MAX_COMMAND_CHARS,
    REFUSAL_CODES,
    Place,
    ShellVerdict,
    check_read_only_command,
)

_CODES = "\n".join(f"  {code:<20} {meaning}" for code, meaning in REFUSAL_CODES.items())

HELP = f"""Check whether read access admits a Bash command (the check the Claude hook runs).

COMMAND is the whole command text as ONE argument: quote it, and put `--` before it. `-` reads
it from stdin instead (one trailing newline is dropped). Plain commands may be joined by `|`,
`&&`, `||`, `;` and newlines; each is checked, in the current directory (globs, git) and, with
--caller-root, after every `cd`.

\b
Examples:
  toolgate check-command -- 'git log --oneline | head -20'
  toolgate check-command --caller-root "$PWD" -- 'cd src && ls *.py'
  toolgate check-command --allow-bash-prefix jq -- 'jq . package.json'
  echo 'find . -delete' | toolgate check-command --json -

\b
Output: admitted prints `allowed: WORDS` (the words as split, operators between the commands);
refused prints one line on stderr naming what was refused and why. --json prints one object on
stdout instead, either way:
  {{"allowed": true|false, "code": CODE, "message": "...", "words": [...]|null,
   "parts": [{{"text", "allowed", "code", "message", "words", "redirects", "operator"}}]}}
words are the words (quotes removed) of an admitted plain command, null when refused or when
there are several commands; parts has one verdict per command.

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


def _shown(verdict: ShellVerdict) -> str:
    """The admitted commands as split: words re-quoted, redirections kept, operators between."""
    shown = []
    for part in verdict.parts:
        shown.append(" ".join([shlex.join(part.words or []), *part.redirects]))
        if part.operator is not None:
            shown.append(";" if part.operator == "\n" else part.operator)
    return " ".join(shown)


@click.command(
    "check-command",
    help=HELP,
    short_help="Check whether read access admits one Bash command.",
    context_settings={"max_content_width": 100},
)
@allow_bash_prefix_option
@caller_root_option
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object.")
@click.argument("command", nargs=-1, required=True, metavar="COMMAND")
@click.pass_context
def check_command(
    ctx: click.Context,
    allow_bash_prefixes: list[str],
    caller_root: str | None,
    as_json: bool,
    command: tuple[str, ...],
) -> None:
    if len(command) != 1:
        raise click.UsageError(
            f"pass the command as ONE argument (quote it): got {len(command)} arguments", ctx=ctx
        )
    text = _read_stdin_command() if command[0] == "-" else command[0]
    if isinstance(text, ShellVerdict):
        verdict = text
    else:
        from toolgate_cli.shell.host import HOST

        place = Place(HOST, os.getcwd(), caller_root, cdpath_set=bool(os.environ.get("CDPATH")))
        verdict = check_read_only_command(text, allow_bash_prefixes, place=place)
    if as_json:
        click.echo(json.dumps(verdict.to_json(), ensure_ascii=False))
    elif verdict.ok:
        click.echo("allowed: " + _shown(verdict))
    else:
        click.echo(f"toolgate: {verdict.message}", err=True)
    ctx.exit(exitcodes.OK if verdict.ok else exitcodes.NOT_ADMITTED)
