"""What the person-facing commands (explain, lanes) share: colour choice, width, one write.

rich is imported only inside `new_console`, so importing this module costs nothing.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

WIDTH_LIMIT = 100
"""Wider than this and a table row is hard to follow; a narrower terminal wins."""


def use_colour(stream: Any) -> bool:  # noqa: ANN401 - any file-like object
    """Colour on a terminal only. A non-empty NO_COLOR turns it off and wins over everything; a
    non-empty FORCE_COLOR turns it on off a terminal; TERM=dumb means no colour."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def display_width() -> int:
    """The terminal's width (COLUMNS wins; 80 when there is no terminal), at most WIDTH_LIMIT."""
    return max(40, min(shutil.get_terminal_size((80, 24)).columns, WIDTH_LIMIT))


class CapturedOutput(io.StringIO):
    """A text buffer that reports the real stdout's encoding, so rich only draws box characters
    that stdout can carry."""

    def __init__(self, encoding: str) -> None:
        super().__init__()
        self._encoding = encoding

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


def new_console(*, colour: bool, width: int) -> tuple[Console, CapturedOutput]:
    """A rich console that renders into a buffer: nothing reaches stdout until it is complete.

    Markup, emoji codes and highlighting are off: every string drawn is text as given (after
    `display` escaped it), never something rich interprets.
    """
    from rich.console import Console

    buffer = CapturedOutput(sys.stdout.encoding or "utf-8")
    console = Console(
        file=buffer,
        width=width,
        force_terminal=colour,
        color_system="auto" if colour else None,
        no_color=False,
        markup=False,
        emoji=False,
        highlight=False,
        legacy_windows=False,
        force_interactive=False,
    )
    return console, buffer


_TRAILING_BLANKS = re.compile(r"[ ]+((?:\x1b\[[0-9;]*m)*)$", re.MULTILINE)


def finished_text(buffer: CapturedOutput) -> str:
    """What the console drew, without the blanks rich pads each line with (style codes that
    close a line are kept)."""
    return _TRAILING_BLANKS.sub(r"\1", buffer.getvalue())


def write_stdout(text: str) -> None:
    """Write `text` to stdout in one piece, in stdout's encoding (unencodable characters shown
    as backslash escapes rather than failing)."""
    encoding = sys.stdout.encoding or "utf-8"
    sys.stdout.buffer.write(text.encode(encoding, "backslashreplace"))
    sys.stdout.flush()
