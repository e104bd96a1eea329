"""How a message reaches a person on stderr: one line, of a bounded length.

Messages quote what the caller passed (a path, an option, a lane word), and the caller may pass
120 KB in one argument. A line that long is no longer a clear line in a log, so it is cut in the
middle: the start says what was refused, the end usually why. The JSON output keeps the whole
text; only the human line is shortened. Imports nothing: the fast paths use it.
"""

from __future__ import annotations

LINE_LIMIT = 1_000
"""Characters at most in one line toolgate writes to stderr."""


def shortened(text: str, limit: int = LINE_LIMIT) -> str:
    """`text` if it fits in `limit` characters, else its start and end around a note of how
    many characters were left out."""
    if len(text) <= limit:
        return text
    # The note's own length depends on the count it shows: size it for the largest count, then
    # state the exact one (never longer), so the result never exceeds `limit`.
    keep = max(limit - len(_note(len(text))), 2)
    head = keep * 2 // 3
    return text[:head] + _note(len(text) - keep) + text[len(text) - (keep - head) :]


def _note(omitted: int) -> str:
    return f" [... {omitted:,} characters left out ...] "
