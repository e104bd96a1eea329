"""The checker's answer (`ShellVerdict`, one `PartVerdict` per command of a compound) and the
stable refusal codes, plus the one-line display of untrusted text in messages."""

from __future__ import annotations

MAX_COMMAND_CHARS = 16_384
"""Longer commands are refused: a read is short, and the check must stay cheap on every call."""

MAX_PARTS = 32
"""More commands in one compound are refused: a read needs a few, and every part costs checks."""


class PartVerdict:
    """The verdict on one command of a compound (`git log | head` has two parts).

    `text` is the command as written (without its redirections), `words` its words once quotes
    are removed (None when the text could not be split), `redirects` the redirections admitted
    on it (`2>/dev/null`, `2>&1`), `operator` the operator that joins it to the next part (`|`,
    `&&`, `||`, `;`, a newline as `\\n`; None for the last part)."""

    __slots__ = ("code", "message", "ok", "operator", "redirects", "text", "words")

    def __init__(
        self,
        text: str,
        words: list[str] | None,
        redirects: list[str],
        operator: str | None,
        *,
        ok: bool = True,
        code: str = "ok",
        message: str = "",
    ) -> None:
        self.text = text
        self.words = words
        self.redirects = redirects
        self.operator = operator
        self.ok = ok
        self.code = code
        self.message = message

    def refuse(self, code: str, message: str) -> None:
        """Record the first refusal of this part (later ones are not shown)."""
        if self.ok:
            self.ok, self.code, self.message = False, code, message

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text,
            "allowed": self.ok,
            "code": self.code,
            "message": self.message,
            "words": self.words,
            "redirects": self.redirects,
            "operator": self.operator,
        }


class ShellVerdict:
    """The checker's answer. `ok` is True for an admitted command; otherwise `code` is a stable
    identifier from `REFUSAL_CODES` and `message` one line naming what was refused and why.

    `words` are the words of an admitted command that is one plain command (None otherwise);
    `parts` the verdict on each command of the text, in order (empty when the text was refused
    before it could be split into commands)."""

    __slots__ = ("code", "message", "ok", "parts", "words")

    def __init__(
        self,
        ok: bool,
        code: str = "ok",
        message: str = "",
        words: list[str] | None = None,
        parts: list[PartVerdict] | None = None,
    ) -> None:
        self.ok = ok
        self.code = code
        self.message = message
        self.words = words
        self.parts: list[PartVerdict] = parts if parts is not None else []

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShellVerdict):
            return NotImplemented
        return (self.ok, self.code, self.message) == (other.ok, other.code, other.message)

    __hash__ = None  # type: ignore[assignment]  # mutable value object

    def __repr__(self) -> str:
        if self.ok:
            return "ShellVerdict(ok=True)"
        return f"ShellVerdict(ok=False, code={self.code!r}, message={self.message!r})"

    def to_json(self) -> dict[str, object]:
        """The stable JSON shape `toolgate check-command --json` prints."""
        return {
            "allowed": self.ok,
            "code": self.code,
            "message": self.message,
            "words": self.words,
            "parts": [part.to_json() for part in self.parts],
        }


REFUSAL_CODES: dict[str, str] = {
    "ok": "admitted: read-only commands, alone or joined by | && || ; and newlines",
    "empty": "the command is empty",
    "too-long": f"the command is longer than {MAX_COMMAND_CHARS} characters (or has more than "
    f"{MAX_PARTS} commands)",
    "invisible-character": "a control, format (bidi, zero-width) or non-space blank character",
    "unterminated-quote": "a quote is not closed, or the text ends in a backslash",
    "multibyte-escape": "a backslash right after a non-ASCII character (legacy multibyte "
    "locales such as GBK, Big5 or Shift_JIS read the backslash as part of that character)",
    "operator": "an operator that backgrounds, redirects into a file, or opens a subshell or a "
    "process substitution (only `| && || ;`, newlines, `>/dev/null` and `2>&1` are admitted)",
    "syntax": "shell syntax other than plain commands: loops, functions, `!`, here-documents, "
    "declarations, or text the bash grammar cannot parse",
    "expansion": "`$` or backtick expansion: substitution, variables, arithmetic, $'' quoting",
    "brace": "`{` or `}`: brace expansion or a command group",
    "history": "`!` outside single quotes (history expansion in interactive shells)",
    "comment": "an unquoted `#` starting a word (a comment hides text from the reader)",
    "glob": "a glob that could expand to a file name starting with `-` (an option)",
    "assignment": "a leading VAR=value assignment (changes the environment of the program)",
    "wrapper": "a program that runs other programs (or shell code) from its arguments",
    "network": "a command that contacts another machine (fetch, push, clone, curl, ...)",
    "not-allowed": "the leading words match no allowed read-only prefix",
    "argument": "an argument that makes an allowed command write or run something",
    "cd": "a `cd` this check cannot confine to the caller root",
    "repository": "git would run in another repository (nested or embedded) than the caller "
    "root's, whose configuration can run programs",
}
"""Every `ShellVerdict.code`, with what it means. Stable: scripts may branch on these."""


_BIDI_AND_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


def invisible(char: str) -> bool:
    """A control, format (bidi, zero-width), private, unassigned or non-space blank character."""
    if char.isascii():
        return not (32 <= ord(char) < 127)
    # Imported here: only non-ASCII text needs it, and the hook pays for every import.
    import unicodedata

    return char != " " and unicodedata.category(char) in _BIDI_AND_INVISIBLE_CATEGORIES


def display_text(text: str, limit: int = 60) -> str:
    """`text` in backticks for a one-line message: control and invisible characters escaped (so
    a message can neither break a line nor display reordered), length capped at `limit`."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    out = []
    for char in text:
        code = ord(char)
        if 32 <= code < 127:
            out.append(char)
        elif code < 128 or invisible(char):
            out.append(f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "`" + "".join(out) + "`"


def refuse(code: str, message: str) -> ShellVerdict:
    return ShellVerdict(False, code, message)
