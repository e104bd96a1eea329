"""`toolgate explain`: the dispatch decision rendered for a person (rich, lazily imported)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from toolgate_cli import exitcodes
from toolgate_cli.commands.common import build_request, dispatch_options
from toolgate_cli.commands.rendering import (
    display_width,
    finished_text,
    new_console,
    use_colour,
    write_stdout,
)
from toolgate_cli.decision import decide_dispatch
from toolgate_cli.dispatching import refusal_line
from toolgate_cli.display import escape_text, shell_words
from toolgate_cli.explanation import Explanation, explain

if TYPE_CHECKING:
    from rich.console import Console

HELP = """Show what toolgate would do with a lane invocation, and why, for a person to read.

Takes exactly the options of `toolgate dispatch` and makes the same decision: where the lane
would run and whether that is allowed, every option kept, replaced, stripped, added or
refused with its reason, and the final command line quoted so it can be pasted. A refusal
says why and what to do instead, and exits 3 like dispatch. Nothing is run.

The picture goes to stdout. On a refusal the one-line reason also goes to stderr, as dispatch
writes it ("toolgate: refused: ..."), so a CI log that shows only stderr still says why.

Arguments are shown with control, bidirectional and invisible characters escaped
(\\u202e, \\x1b, \\xff for an undecodable byte), so what you read is what would run.
Colour only on a terminal; NO_COLOR turns it off, FORCE_COLOR on.

\b
Examples:
  toolgate explain --read-only -- claude -p --allowedTools Write "review this diff"
  toolgate explain --read-only -- codex --yolo exec "explain main.py"

\b
Exit status: 0 allowed, 2 usage error, 3 refused.
"""

_ACTION_STYLES: dict[str, str] = {
    "kept": "green",
    "replaced": "yellow",
    "stripped": "magenta",
    "added": "cyan",
    "refused": "bold red",
}

_BADGES: dict[str, tuple[str, str]] = {
    "read-only": ("ALLOWED", "bold white on green"),
    "answer": ("ALLOWED", "bold white on green"),
    "pass-through": ("NOT READ-ONLY", "bold black on yellow"),
    "refused": ("REFUSED", "bold white on red"),
}


@click.command(help=HELP, short_help="Show a person what dispatch would do and why.")
@dispatch_options
def explain_command(**params: Any) -> int:  # noqa: ANN401 - click passes the options
    request = build_request(params)
    decision = decide_dispatch(request)
    explanation = explain(request, decision, os.getcwd())
    write_stdout(render(explanation, colour=use_colour(sys.stdout), width=display_width()))
    if not decision.ok:
        # the line dispatch writes: what a person scanning a CI log looks for
        sys.stderr.write(refusal_line(decision.refusal or "") + "\n")
        return exitcodes.REFUSED
    return exitcodes.OK


def render(explanation: Explanation, *, colour: bool, width: int) -> str:
    """The whole explanation as text (with ANSI styles when `colour`), ready to write at once.

    Every string that came from the caller goes through `display` first and reaches rich as
    `Text`, never as markup, so no argument can style, hide or reorder what is drawn.
    """
    console, buffer = new_console(colour=colour, width=width)
    _print_headline(console, explanation, colour)
    _print_facts(console, explanation)
    if explanation.decision.confinement is not None:
        _print_confinement(console, explanation)
    if explanation.decision.changes:
        _print_changes(console, explanation, width)
    if explanation.command_line is not None:
        _print_command_line(console, explanation, width)
    if explanation.advice:
        _print_advice(console, explanation)
    return finished_text(buffer)


def _print_section_title(console: Console, title: str) -> None:
    from rich.text import Text

    console.print()
    console.print(Text(title, style="bold"))


def _print_headline(console: Console, explanation: Explanation, colour: bool) -> None:
    from rich.text import Text

    badge, badge_style = _BADGES[explanation.outcome]
    headline = Text()
    if colour:
        headline.append(f" {badge} ", style=badge_style)
        headline.append(" ")
    else:
        headline.append(f"{badge}: ")
    headline.append(escape_text(explanation.headline), style="bold")
    console.print(headline)
    console.print()


def _print_facts(console: Console, explanation: Explanation) -> None:
    """Where the lane runs, the verdict on it, what enforces read-only, why it was refused."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    decision = explanation.decision
    facts = Table.grid(padding=(0, 2))
    facts.add_column(style="dim", no_wrap=True)
    facts.add_column(overflow="fold")
    facts.add_row("cwd", Text(escape_text(decision.cwd)))
    facts.add_row("caller root", Text(escape_text(decision.caller_root)))
    verdict_style = "red" if explanation.verdict_refused else ""
    facts.add_row("verdict", Text(escape_text(explanation.verdict), style=verdict_style))
    if explanation.lane_version is not None:
        facts.add_row("version", Text(escape_text(explanation.lane_version)))
    if decision.binding is not None and explanation.outcome != "answer":
        facts.add_row("enforced by", Text(escape_text(decision.binding)))
    if decision.refusal is not None and not explanation.verdict_refused:
        # Several refused rows: the joined refusal line would only repeat the table.
        refused_rows = sum(change.action == "refused" for change in decision.changes)
        why = (
            f"{refused_rows} arguments below are refused; each row says why"
            if refused_rows > 1
            else decision.refusal
        )
        facts.add_row("why", Text(escape_text(why), style="red"))
    console.print(Padding(facts, (0, 0, 0, 2), expand=False))


_SYSTEM_PREFIXES = ("/usr", "/bin", "/sbin", "/lib", "/etc/", "/sys/")
"""What the confinement shows of the system (one folded row in explain)."""


def _print_confinement(console: Console, explanation: Explanation) -> None:
    """Under --confine: every path the lane sees, where it may write, what it keeps."""
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    confinement = explanation.decision.confinement
    assert confinement is not None  # noqa: S101 - render() checked
    system = [path for path in confinement.visible if path.startswith(_SYSTEM_PREFIXES)]
    others = [path for path in confinement.visible if not path.startswith(_SYSTEM_PREFIXES)]
    rows = (
        ("system", "read-only", (", ".join(system),) if system else ()),
        ("visible", "read-only", tuple(others)),
        ("writable", "private, empty at start, discarded after", confinement.writable),
        ("hidden", "secret stores covered up", confinement.hidden),
        ("env kept", "every other variable is unset", confinement.env_kept),
    )
    table = Table.grid(padding=(0, 2))
    table.add_column(style="dim", no_wrap=True)
    table.add_column(overflow="fold")
    for name, note, paths in rows:
        if not paths and name == "hidden":
            continue
        cell = Text("\n".join(escape_text(path) for path in paths) or "(none)")
        cell.append(f"\n({note})", style="dim")
        table.add_row(name, cell)
    _print_section_title(console, "What the confined lane sees (everything else is absent)")
    console.print(Padding(table, (0, 0, 0, 2), expand=False))


def _print_changes(console: Console, explanation: Explanation, width: int) -> None:
    """One row per change the decision lists: action, the words concerned, the reason."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    changes = explanation.decision.changes
    action_width = max(len(change.action) for change in changes)
    cells = [
        (_argument_cell(change.flag, change.words), _flag_note(change.flag, change.words))
        for change in changes
    ]
    # Arguments fold badly (inside a word), reasons wrap well (between words). The argument
    # column gets its natural width unless that would squeeze reasons below 32 columns, and in
    # any case room for its longest unbreakable word (reasons keep 20). A note naming the
    # canonical flag gets no room of its own: it folds after a hyphen.
    available = width - action_width - 6  # cell padding and column rules
    argument_natural = max(len(cell) + (len(note) + 3 if note else 0) for cell, note in cells)
    longest_word = max(_unbreakable_width(cell) for cell, _ in cells)
    reason_natural = max(len(change.reason) for change in changes)
    argument_width = max(
        16,
        min(argument_natural, available - min(reason_natural, 32)),
        min(longest_word, available - 20),
    )
    table = Table(
        box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold", padding=(0, 1)
    )
    table.add_column("action", no_wrap=True)
    table.add_column("argument", overflow="fold", width=argument_width)
    table.add_column("reason", overflow="fold")
    for change, (cell, note) in zip(changes, cells, strict=True):
        argument = Text(fold_words(cell, argument_width))
        if note:
            last_line = argument.plain.rsplit("\n", 1)[-1]
            fits = len(last_line) + len(note) + 3 <= argument_width
            shown_note = fold_words(f"({note})", argument_width, after="-")
            argument.append((" " if fits else "\n") + shown_note, style="dim")
        table.add_row(
            Text(change.action, style=_ACTION_STYLES.get(change.action, "")),
            argument,
            Text(escape_text(change.reason)),
        )
    _print_section_title(console, "What toolgate does with each option")
    console.print(table)


def _print_command_line(console: Console, explanation: Explanation, width: int) -> None:
    """The final command line, wrapped with line continuations, and a note when escaped."""
    from rich.padding import Padding
    from rich.text import Text

    line = explanation.command_line
    assert line is not None  # noqa: S101 - render() checked
    if explanation.decision.read_only:
        _print_section_title(console, "Command line (what --exec runs; paste it to run the same)")
    else:
        _print_section_title(console, "Command line (unchanged; paste it to run the same)")
    # soft_wrap: a word wider than the screen is left to the terminal to wrap, so copying it
    # back from the screen gives the word, not the word cut by inserted line breaks.
    for shown in line.wrapped(width - 2, starts=explanation.line_starts):
        console.print(Text("  " + shown), soft_wrap=True)
    if line.escaped:
        note = Text(
            "Shown escaped: the $'...' words hold control, bidirectional or invisible "
            "characters, written as \\u, \\x, \\n escapes; bash or zsh in a UTF-8 locale "
            "read them back as the same characters.",
            style="yellow",
        )
        console.print(Padding(note, (1, 0, 0, 2), expand=False))


def _print_advice(console: Console, explanation: Explanation) -> None:
    from rich.padding import Padding
    from rich.table import Table
    from rich.text import Text

    advice = Table.grid(padding=(0, 1))
    advice.add_column(no_wrap=True)
    advice.add_column(overflow="fold")
    for entry in explanation.advice:
        advice.add_row("-", Text(escape_text(entry)))
    _print_section_title(console, "What to do instead")
    console.print(Padding(advice, (0, 0, 0, 2), expand=False))
    console.print()
    console.print(Text("toolgate dispatch refuses this with exit status 3."))


def fold_words(text: str, width: int, after: str = ",") -> str:
    """`text` with every word wider than `width` broken after the character `after` (a comma in
    a tool list, a hyphen in an option name), so a table cell folds it where a reader expects
    rather than in the middle of a name."""
    words = []
    for word in text.split(" "):
        if len(word) <= width or after not in word:
            words.append(word)
            continue
        pieces = [piece + after for piece in word.split(after)]
        pieces[-1] = pieces[-1].removesuffix(after)
        lines = [""]
        for piece in pieces:
            if lines[-1] and len(lines[-1]) + len(piece) > width:
                lines.append(piece)
            else:
                lines[-1] += piece
        words.append("\n".join(lines))
    return " ".join(words)


def _unbreakable_width(cell: str) -> int:
    """The widest piece of `cell` a table can only fold inside: a word, or for a comma list
    (which `fold_words` breaks after commas) its widest item."""
    return max(
        (max(len(piece) + 1 for piece in word.split(",")) if "," in word else len(word))
        for word in cell.split(" ")
    )


def _argument_cell(flag: str, words: tuple[str, ...]) -> str:
    if not words:
        return "(nothing)"
    if flag.startswith("env "):
        option = "--env" if "=" in words[0] else "--unset-env"
        return f"{option} {shell_words(words)}"
    return shell_words(words)


def _flag_note(flag: str, words: tuple[str, ...]) -> str:
    """A dim note naming what the words are when they do not say it themselves."""
    if flag.startswith("<") and flag.endswith(">"):
        return flag[1:-1]
    if flag.startswith("env "):
        return ""
    written = words[0] if words else ""
    if written == flag or written.startswith(flag + "="):
        return ""
    return escape_text(flag)
