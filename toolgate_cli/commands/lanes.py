"""`toolgate lanes`: every lane kind toolgate knows, how each is made read-only, or why not."""

from __future__ import annotations

import json
import os
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

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolgate_cli.lanes.drift import HelpSurface, LaneReport

UNKNOWN_LANES = (
    "any other kind is refused: toolgate only claims read-only for lanes it knows; "
    "unknown never claims"
)
LOCK_TREE = (
    "with --lock-tree every kind, refused and unknown ones too, may run with the caller's tree "
    f"mounted read-only by bubblewrap; {', '.join(LANES)} keep their flag rewrite as well"
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
  {"lanes":   [{"kind": STR, "mechanism": STR, "versions_proven": [STR],
                "oldest_supported": STR}],
   "refused": [{"kind": STR, "reason": STR}],
   "unknown": STR,
   "lock_tree": STR,
   "kind_rule": STR}

With --check, each lane kind toolgate rewrites is looked up on PATH and asked for its
version and its --help (codex: also exec --help and exec review --help; copilot with
--no-auto-update in front, so its loader runs no newer cached package): the report says
where it is, whether that version is proven, the options its help lists that toolgate's
table does not know (unknown_options: toolgate refuses them until the table decides
them) and the options toolgate adds or relies on that its help no longer lists
(missing_options). Exit 0 when every installed lane is proven and drift-free, 1
otherwise; a lane that is not installed is listed with path null and does not fail.

\b
  {"ok": BOOL,
   "lanes": [{"kind": STR, "path": STR|null, "version": STR|null,
              "proven": BOOL|null, "unknown_options": [STR],
              "missing_options": [STR], "problem": STR|null}]}

\b
Examples:
  toolgate lanes
  toolgate lanes --json | jq -r '.lanes[].kind'
  toolgate lanes --check || echo "a lane moved: see unknown_options"
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
                "oldest_supported": lane.versions.oldest_supported,
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
@click.option(
    "--check",
    is_flag=True,
    help="Find each rewritten lane on PATH and report its version and drift (exit 1 on drift).",
)
def lanes(as_json: bool, check: bool) -> int:
    if check:
        reports = check_installed_lanes()
        ok = all(report.ok for report in reports)
        if as_json:
            document = {"ok": ok, "lanes": [report.as_json() for report in reports]}
            write_stdout(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
        else:
            write_stdout(
                render_check(reports, colour=use_colour(sys.stdout), width=display_width())
            )
        return exitcodes.OK if ok else exitcodes.NOT_ADMITTED
    if as_json:
        write_stdout(json.dumps(lanes_document(), ensure_ascii=False, indent=2) + "\n")
        return exitcodes.OK
    write_stdout(render(colour=use_colour(sys.stdout), width=display_width()))
    return exitcodes.OK


def check_installed_lanes() -> list[LaneReport]:
    """Ask every lane kind toolgate rewrites, as found on PATH, for its version and help."""
    from toolgate_cli.lane_probe import binary_version, resolve_binary, run_binary
    from toolgate_cli.lanes.drift import lane_report

    reports = []
    for lane in LANES.values():
        module = lane.module
        path = resolve_binary(lane.kind, os.getcwd())
        version = None
        pages: list[tuple[HelpSurface, str | None]] = []
        if path is not None:
            path = os.path.abspath(path)
            probe = lane.probe_args
            version = binary_version(path, "/", module.version_of, args=(*probe, "--version"))
            pages = [
                (surface, run_binary(path, (*probe, *surface.args)))
                for surface in module.help_surfaces()
            ]
        reports.append(lane_report(lane.kind, path, version, lane.versions, pages))
    return reports


def render_check(reports: list[LaneReport], *, colour: bool, width: int) -> str:
    """`lanes --check` for a person: one block per lane, what is wrong in red."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    console, buffer = new_console(colour=colour, width=width)
    grid = Table.grid(padding=(0, 2))
    grid.add_column(style="bold", no_wrap=True)
    grid.add_column(style="dim", no_wrap=True)
    grid.add_column(overflow="fold")
    for index, report in enumerate(reports):
        if index:
            grid.add_row("", "", "")
        status = Text("ok", style="green") if report.ok else Text("drift", style="bold red")
        if report.path is None:
            status = Text("not installed", style="dim")
        grid.add_row(Text(escape_text(report.kind)), "status", status)
        if report.path is None:
            continue
        grid.add_row("", "path", Text(escape_text(report.path)))
        proven = LANES[report.kind].versions_proven
        version = report.version or "unknown"
        said = "proven" if report.proven else f"not proven (proven: {', '.join(proven)})"
        grid.add_row(
            "",
            "version",
            Text(escape_text(f"{version}, {said}"), style="" if report.proven else "red"),
        )
        for label, names in (
            ("unknown", report.unknown_options),
            ("missing", report.missing_options),
        ):
            if names:
                grid.add_row("", label, Text(escape_text(", ".join(names)), style="red"))
        if report.problem:
            grid.add_row("", "problem", Text(escape_text(report.problem), style="red"))
    console.print(Text("Installed lanes against toolgate's tables", style="bold"))
    console.print(Padding(grid, (0, 0, 0, 2), expand=False))
    if not all(report.ok for report in reports):
        console.print()
        console.print(
            Text(
                "Unknown options are refused until the lane's table decides them; missing "
                "options are ones toolgate adds or relies on. A version that is not proven "
                "runs with one warning line (--require-proven refuses it)."
            )
        )
    return finished_text(buffer)


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
