"""man/toolgate.1, generated from the click app: every registered command, its help and options.

`render_manpage(app, version, exit_codes)` is pure: it walks the click command tree (groups
included, hidden commands and options left out) and writes man(7) roff. The exit status table
comes from toolgate_cli/exitcodes.py (`exit_code_table` reads its constants and their
docstrings), so the page changes exactly when the code does. `python -m toolgate_cli.gen`
writes the file; tests/test_man.py fails when the committed page drifts.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import click

_BACKSPACE = "\b"  # click's marker for a paragraph it must not rewrap
_FORM_FEED = "\f"  # click's marker: help text after it is for developers only


@dataclass(frozen=True)
class ExitCode:
    """One row of the exit status table."""

    value: int
    name: str
    meaning: str


def exit_code_table() -> tuple[ExitCode, ...]:
    """The constants of toolgate_cli.exitcodes with their docstrings, in value order."""
    from toolgate_cli import exitcodes

    tree = ast.parse(inspect.getsource(exitcodes))
    rows: list[ExitCode] = []
    body = tree.body
    for statement, following in zip(body, [*body[1:], None], strict=True):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1):
            continue
        target = statement.targets[0]
        if not isinstance(target, ast.Name) or not isinstance(statement.value, ast.Constant):
            continue
        meaning = ""
        if (
            isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            meaning = " ".join(following.value.value.split())
        value = statement.value.value
        if isinstance(value, int):
            rows.append(ExitCode(value, target.id, meaning))
    return tuple(sorted(rows, key=lambda row: row.value))


def roff_escape(text: str) -> str:
    """`text` safe inside a roff text line: backslashes, minus signs (so options paste as ASCII
    hyphen-minus), quotes that groff would typeset as curly, non-ASCII as named code points."""
    out = []
    for char in text:
        if char == "\\":
            out.append("\\e")
        elif char == "-":
            out.append("\\-")
        elif char == "'":
            out.append("\\(aq")
        elif char == "`":
            out.append("\\(ga")
        elif char == '"':
            out.append("\\(dq")
        elif ord(char) > 0x7E or ord(char) < 0x20:
            out.append(f"\\[u{ord(char):04X}]")
        else:
            out.append(char)
    line = "".join(out)
    return "\\&" + line if line.startswith((".", "'")) else line


def _macro_argument(text: str) -> str:
    return '"' + roff_escape(text) + '"'


def help_paragraphs(help_text: str | None) -> list[tuple[bool, list[str]]]:
    """A click help text as paragraphs: (verbatim, lines). Verbatim paragraphs are the ones
    click leaves unwrapped (marked with a \\b line); the others are to be filled."""
    if not help_text:
        return []
    text = inspect.cleandoc(help_text.split(_FORM_FEED, 1)[0])
    paragraphs: list[tuple[bool, list[str]]] = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        verbatim = bool(lines) and lines[0].strip() == _BACKSPACE
        if verbatim:
            lines = lines[1:]
        lines = [line.rstrip() for line in lines if line.strip() or verbatim]
        if lines:
            paragraphs.append((verbatim, lines))
    return paragraphs


def help_examples(help_text: str | None) -> list[str]:
    """The example lines of a help text: the verbatim paragraphs whose first line starts with
    `Example` and ends with a colon (`Examples:`, `Example (in a settings file):`), with
    their common indent removed (an example may run over several lines)."""
    examples: list[str] = []
    for verbatim, lines in help_paragraphs(help_text):
        heading = lines[0].strip()
        if verbatim and heading.startswith("Example") and heading.endswith(":"):
            examples += [
                line for line in textwrap.dedent("\n".join(lines[1:])).splitlines() if line
            ]
    return examples


def _paragraphs_roff(
    help_text: str | None, skip_first: bool = False, verbatim: bool = True
) -> list[str]:
    """Help paragraphs as roff: filled text, and verbatim blocks unless `verbatim` is False."""
    out: list[str] = []
    for index, (is_verbatim, lines) in enumerate(help_paragraphs(help_text)):
        if (skip_first and index == 0) or (is_verbatim and not verbatim):
            continue
        out.append(".PP")
        if is_verbatim:
            out.append(".nf")
            out += [roff_escape(line) for line in lines]
            out.append(".fi")
        else:
            out.append(roff_escape(" ".join(line.strip() for line in lines)))
    return out


def walk_commands(
    command: click.Command, ctx: click.Context
) -> Iterator[tuple[click.Command, click.Context]]:
    """Every visible command below `command` (depth first, in the order `--help` lists them)."""
    if not isinstance(command, click.Group):
        return
    for name in command.list_commands(ctx):
        sub = command.get_command(ctx, name)
        if sub is None or sub.hidden:
            continue
        sub_ctx = click.Context(sub, info_name=name, parent=ctx, **sub.context_settings)
        yield sub, sub_ctx
        yield from walk_commands(sub, sub_ctx)


def _option_rows(command: click.Command, ctx: click.Context) -> list[str]:
    out: list[str] = []
    help_option = command.get_help_option(ctx)
    for param in command.get_params(ctx):
        if not isinstance(param, click.Option) or param.hidden or param is help_option:
            continue
        record = param.get_help_record(ctx)
        if record is None:
            continue
        names, help_text = record
        out += [".TP", "\\fB" + roff_escape(names) + "\\fR", roff_escape(help_text or "")]
    return out


def _usage(command: click.Command, ctx: click.Context) -> str:
    return " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])


def render_manpage(app: click.Command, version: str, exit_codes: Sequence[ExitCode]) -> str:
    """The whole man page for `app` (named `toolgate`), as roff text ending in a newline."""
    root = click.Context(app, info_name="toolgate", **app.context_settings)
    paragraphs = help_paragraphs(app.help)
    summary = paragraphs[0][1][0].strip().rstrip(".") if paragraphs else "toolgate"
    commands = list(walk_commands(app, root))

    out = [
        '.\\" Generated by `python -m toolgate_cli.gen` from the click app. Do not edit.',
        f'.TH TOOLGATE 1 "" "toolgate {roff_escape(version)}" "User Commands"',
        # Left-aligned and unhyphenated: option names and paths must not be split or stretched.
        ".ad l",
        ".nh",
        ".SH NAME",
        "toolgate \\- " + roff_escape(summary[:1].lower() + summary[1:]),
        ".SH SYNOPSIS",
        ".nf",
        "\\fBtoolgate\\fR [\\fB\\-\\-version\\fR] [\\fB\\-h\\fR|\\fB\\-\\-help\\fR]",
    ]
    out += [roff_escape(_usage(command, ctx)) for command, ctx in commands]
    out += [".fi", ".SH DESCRIPTION"]
    out += [
        ".PP",
        roff_escape(
            "toolgate rewrites a coding-agent lane invocation (claude, codex, ...) so that the "
            "lane's own command line interface enforces read-only, or refuses with a reason. "
            "It never runs the lane itself unless asked to with dispatch --exec; explain shows "
            "the same decision for a person, lanes lists what it knows."
        ),
    ]
    # The root help's verbatim blocks (its example, its exit status line) have their own
    # sections below.
    out += _paragraphs_roff(app.help, skip_first=True, verbatim=False)
    out.append(".SH COMMANDS")
    for command, ctx in commands:
        out += [".SS " + _macro_argument(_usage(command, ctx))]
        out += _paragraphs_roff(command.help or command.short_help)
        options = _option_rows(command, ctx)
        if options:
            out += [".PP", "Options:", *options]
    out += [".SH OPTIONS", *_option_rows(app, root)]
    out += [
        ".TP",
        "\\fB\\-h\\fR, \\fB\\-\\-help\\fR",
        roff_escape("Show the help of toolgate or of the command it follows, and exit."),
    ]
    out.append(".SH EXIT STATUS")
    for code in exit_codes:
        out += [".TP", f"\\fB{code.value}\\fR", roff_escape(code.meaning or code.name)]
    out += [".SH ENVIRONMENT", *_environment()]
    out.append(".SH EXAMPLES")
    seen: set[str] = set()
    for command in [app, *(command for command, _ in commands)]:
        # A one-line command shown twice (the root's example is dispatch's first) once only.
        examples = [
            line
            for line in help_examples(command.help)
            if not (line.startswith("toolgate ") and line in seen)
        ]
        seen.update(examples)
        if examples:
            out += [".PP", ".nf", *(roff_escape(line) for line in examples), ".fi"]
    out += [
        ".SH SEE ALSO",
        ".PP",
        roff_escape(
            "toolgate lanes, for the lane kinds and how each is made read-only; toolgate "
            "explain, for one decision in detail; the README.md of the toolgate sources, for "
            "the JSON shape and the Python API."
        ),
        ".PP",
        ".BR bash (1),",
        ".BR zshcompsys (1),",
        ".BR fish (1)",
    ]
    return "\n".join(out) + "\n"


_ENVIRONMENT: tuple[tuple[str, str], ...] = (
    ("NO_COLOR", "When set and not empty, explain and lanes print no colour, even on a terminal."),
    ("FORCE_COLOR", "When set and not empty (and NO_COLOR is not), colour even off a terminal."),
    ("TERM", "dumb turns colour off."),
    ("COLUMNS", "The width explain and lanes lay out for (at most 100); default: the terminal's."),
    ("SHELL", "completion: the shell to use when it cannot be detected from the process tree."),
    (
        "HOME, XDG_DATA_HOME, BASH_COMPLETION_USER_DIR, XDG_CONFIG_HOME",
        "completion --install: where the bash, zsh and fish scripts are written.",
    ),
    ("_TOOLGATE_COMPLETE", "Set by the completion scripts when they ask toolgate for candidates."),
)


def _environment() -> list[str]:
    out: list[str] = []
    for name, meaning in _ENVIRONMENT:
        out += [".TP", "\\fB" + roff_escape(name) + "\\fR", roff_escape(meaning)]
    return out
