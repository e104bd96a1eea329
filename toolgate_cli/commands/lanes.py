"""`toolgate lanes`: every lane kind toolgate knows, how each is made read-only, or why not."""

from __future__ import annotations

import json
import sys

import click

from toolgate_cli import exitcodes
from toolgate_cli.commands.rendering import (
    display_width,
    finished_text,
    new_console,
    use_colour,
    write_stdout,
)
from toolgate_cli.display import escape_text
from toolgate_cli.lanes import LANES, REFUSED_LANES

UNKNOWN_LANES = (
    "any other kind is refused: toolgate only claims read-only for lanes it knows; "
    "unknown never claims"
)
LOCK_TREE = (
    "with --lock-tree every kind, refused and unknown ones too, may run with the caller's tree "
    "mounted read-only by bubblewrap; claude and codex keep their flag rewrite as well"
)
KIND_RULE = (
    "the kind is the command's basename without a Windows suffix: /opt/bin/claude, "
    "claude.exe and claude.cmd are all claude"
)

HELP = """List every lane kind toolgate knows: the mechanism that makes each one read-only
and the lane versions it was proven against end to end, then the kinds toolgate refuses,
each with its reason.

With --json, one JSON object on stdout, stable for scripts:

\b
  {"lanes":   [{"kind": STR, "mechanism": STR, "versions_proven": [STR]}],
   "refused": [{"kind": STR, "reason": STR}],
   "unknown": STR,
   "lock_tree": STR,
   "kind_rule": STR}

\b
Examples:
  toolgate lanes
  toolgate lanes --json | jq -r '.lanes[].kind'
"""


def lanes_document() -> dict[str, object]:
    """The `toolgate lanes --json` object, built from `LANES` and `REFUSED_LANES`.

    Keys are stable: `lanes` (the kinds toolgate makes read-only, in table order), `refused`
    (the kinds it knows and refuses, with the reason), `unknown` (what happens to any other
    kind), `lock_tree` (what `--lock-tree` changes) and `kind_rule` (how a command is mapped to
    a kind).
    """
    return {
        "lanes": [
            {
                "kind": lane.kind,
                "mechanism": lane.mechanism,
                "versions_proven": list(lane.versions_proven),
            }
            for lane in LANES.values()
        ],
        "refused": [{"kind": kind, "reason": reason} for kind, reason in REFUSED_LANES.items()],
        "unknown": UNKNOWN_LANES,
        "lock_tree": LOCK_TREE,
        "kind_rule": KIND_RULE,
    }


@click.command(
    help=HELP, short_help="List the lane kinds and how each is made read-only (or why not)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (shape above).")
def lanes(as_json: bool) -> int:
    if as_json:
        write_stdout(json.dumps(lanes_document(), ensure_ascii=False, indent=2) + "\n")
        return exitcodes.OK
    write_stdout(render(colour=use_colour(sys.stdout), width=display_width()))
    return exitcodes.OK


def render(*, colour: bool, width: int) -> str:
    """The same facts as `lanes_document`, as two lists for a person."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    console, buffer = new_console(colour=colour, width=width)
    supported = Table.grid(padding=(0, 2))
    supported.add_column(style="bold green", no_wrap=True)
    supported.add_column(style="dim", no_wrap=True)
    supported.add_column(overflow="fold")
    for index, lane in enumerate(LANES.values()):
        if index:
            supported.add_row("", "", "")
        versions = ", ".join(f"{lane.kind} {version}" for version in lane.versions_proven)
        supported.add_row(
            Text(escape_text(lane.kind)), "read-only by", Text(escape_text(lane.mechanism))
        )
        supported.add_row("", "proven with", Text(escape_text(versions or "nothing yet")))
    refused = Table.grid(padding=(0, 2))
    refused.add_column(style="bold red", no_wrap=True)
    refused.add_column(overflow="fold")
    for kind, reason in REFUSED_LANES.items():
        refused.add_row(Text(escape_text(kind)), Text(escape_text(reason)))

    console.print(Text("Lanes toolgate makes read-only", style="bold"))
    console.print(Padding(supported, (0, 0, 0, 2), expand=False))
    console.print()
    console.print(Text("Lanes toolgate refuses", style="bold"))
    console.print(Padding(refused, (0, 0, 0, 2), expand=False))
    console.print()
    console.print(Text(_sentence(UNKNOWN_LANES)))
    console.print(Text(_sentence(LOCK_TREE)))
    console.print(Text(_sentence(KIND_RULE)))
    return finished_text(buffer)


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."
