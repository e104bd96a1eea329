"""Untrusted text made safe to show a person: escaping and shell quoting for display.

Pure code (no click, no rich, no I/O). Lane arguments, paths and refusal lines come from whoever
wrote the lane template, so what a terminal draws must never differ from what runs:

- `escape_text` turns every character that a terminal would hide, act on or draw out of order
  into a visible escape: control characters (C0, DEL, C1), the bidirectional controls of
  `BIDI_CONTROL_CHARS`, every other format character (zero-width space and joiners, BOM, tag
  characters, soft hyphen...), line and paragraph separators, spaces other than U+0020 (a
  no-break space would pass for a word break), private-use, unassigned and surrogate code
  points, and the default-ignorable characters that render as nothing (variation selectors,
  Hangul fillers). Undecodable bytes that arrived as lone surrogates (Python's
  `surrogateescape`) are shown as the byte, `\\xNN`. Backslashes are left as they are: this is
  text for reading, not an encoding; use `shell_quote` where the exact word matters.
- `shell_quote` / `shell_join` quote argv words so that pasting the line into bash or zsh runs
  the same argv AND nothing in it is hidden: a word that holds a character `escape_text` would
  escape is written in `$'...'` quoting with the same escapes (`\\u202e`, `\\xff`, `\\n`), which
  the shell turns back into the very same character or byte (`\\u` escapes need a UTF-8 locale).
"""

from __future__ import annotations

import shlex
import unicodedata
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

BIDI_CONTROL_CHARS: frozenset[str] = frozenset(
    "\u061c\u200e\u200f" + "".join(map(chr, range(0x202A, 0x202F))) + "\u2066\u2067\u2068\u2069"
)
"""The directional format controls, a closed set (seed 002, `BIDI_CONTROL_CHARS`): U+061C,
U+200E/U+200F, U+202A-U+202E, U+2066-U+2069. They reorder what a terminal draws, so a command
holding one can read as a different command. All of them are escaped."""

# Code points that draw nothing although their general category is a letter, mark or symbol:
# Unicode's Default_Ignorable_Code_Point members outside Cf (which is escaped as a whole), plus
# the braille blank. From DerivedCoreProperties.txt; the property is stable across versions.
_INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x115F, 0x1160),  # Hangul choseong/jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors
    (0x2800, 0x2800),  # braille pattern blank
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors (they can smuggle data past a reader)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # unassigned specials
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE0FFF),  # tag characters and variation selectors supplement
)

# General categories escaped as a whole: controls, format, separators other than the plain
# space, surrogates, private use, unassigned.
_ESCAPED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})

_NAMED_ESCAPES: dict[str, str] = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

# Lone surrogates U+DC80-U+DCFF are bytes 0x80-0xFF that were not UTF-8 (surrogateescape).
_SURROGATE_ESCAPE_FIRST, _SURROGATE_ESCAPE_LAST = 0xDC80, 0xDCFF

# Words bash and zsh read as syntax in command position.
_SHELL_RESERVED_WORDS = (
    "! { } [[ ]] case coproc do done elif else esac fi for function if in select then time "
    "until while"
)
_SHELL_RESERVED = frozenset(_SHELL_RESERVED_WORDS.split())

# Characters that keep their special meaning inside double quotes (`!`: history expansion in
# an interactive shell).
_SPECIAL_IN_DOUBLE_QUOTES = frozenset('$`"\\!')


def must_escape(char: str) -> bool:
    """Whether `char` (one code point) is shown as an escape rather than drawn as itself."""
    if char == " ":
        return False
    if char in BIDI_CONTROL_CHARS:
        return True
    if unicodedata.category(char) in _ESCAPED_CATEGORIES:
        return True
    point = ord(char)
    return any(first <= point <= last for first, last in _INVISIBLE_RANGES)


def escape_char(char: str) -> str:
    """The visible escape for one code point that `must_escape`: `\\n`, `\\t`, `\\r`; `\\xNN` for
    the other ASCII controls and for an undecodable byte; `\\uNNNN` / `\\UNNNNNNNN` otherwise.

    Every form means the same character (or byte) inside bash's `$'...'` quoting.
    """
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    point = ord(char)
    if point < 0x80:
        return f"\\x{point:02x}"
    if _SURROGATE_ESCAPE_FIRST <= point <= _SURROGATE_ESCAPE_LAST:
        return f"\\x{point - 0xDC00:02x}"
    if point <= 0xFFFF:
        return f"\\u{point:04x}"
    return f"\\U{point:08x}"


def cell_width(text: str) -> int:
    """Terminal columns `text` takes: 2 for East Asian wide and fullwidth characters, 0 for
    combining marks, 1 otherwise (escaped text holds no control or format characters)."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def needs_escape(text: str) -> bool:
    """Whether any character of `text` would be shown escaped."""
    return any(must_escape(char) for char in text)


def escape_text(text: str) -> str:
    """`text` with every character that `must_escape` replaced by its visible escape.

    For free text (reasons, refusal lines, paths inside sentences). Not reversible: a literal
    backslash is left alone, so use `shell_quote` where the exact value matters.
    """
    if not needs_escape(text):
        return text
    return "".join(escape_char(char) if must_escape(char) else char for char in text)


def _dollar_quote(word: str) -> str:
    """bash/zsh `$'...'` quoting with every unsafe character escaped."""
    parts = []
    for char in word:
        if char == "\\":
            parts.append("\\\\")
        elif char == "'":
            parts.append("\\'")
        elif must_escape(char):
            parts.append(escape_char(char))
        else:
            parts.append(char)
    return "$'" + "".join(parts) + "'"


def shell_quote(word: str, *, command_position: bool = False) -> str:
    """`word` quoted for bash or zsh, safe to display, and pasting it yields exactly `word`.

    Plain words are left bare or single-quoted (`shlex.quote`); a word holding a character
    `escape_text` would escape is `$'...'`-quoted with the same escapes. In `command_position`
    a word the shell would read as a reserved word or a variable assignment is quoted too.
    """
    if needs_escape(word):
        return _dollar_quote(word)
    if "'" in word:
        # shlex would write it's as 'it'"'"'s'; "it's" reads better and means the same.
        if _SPECIAL_IN_DOUBLE_QUOTES.isdisjoint(word):
            return '"' + word + '"'
        return _dollar_quote(word)
    quoted = shlex.quote(word)
    if quoted == word and word.startswith("="):
        # zsh expands a leading `=` to a command's path (its EQUALS option): `=0` is an error.
        return "'" + word + "'"
    if command_position and quoted == word and ("=" in word or word in _SHELL_RESERVED):
        return "'" + word + "'"
    return quoted


@dataclass(frozen=True)
class ShellLine:
    """A command line quoted for display and pasting.

    `words` are the quoted words in order; `escaped` is True when a word holds characters shown
    as escapes inside `$'...'`, which a display must say, so a reader knows the line is not
    drawn character for character.
    """

    words: tuple[str, ...]
    escaped: bool
    head: int = 1
    """How many words lead up to and include the command itself (`cd DIR &&`, `env ...`,
    the command): they stay together on the first line when the line is wrapped."""

    @property
    def text(self) -> str:
        """The whole line on one line."""
        return " ".join(self.words)

    def wrapped(
        self, width: int, indent: str = "    ", starts: Collection[int] | None = None
    ) -> list[str]:
        """The line broken for a `width`-column display, still pasteable.

        One line when it fits. Otherwise the words up to the command stay on the first line and
        each argument group starts a new one: `starts` holds the indexes (into the arguments
        after the command) where a group begins, by default every word starting with `-`.
        Every line but the last ends in ` \\` (a line continuation: the shell reads the same
        words). A group wider than the display is broken between its words, never right after
        its first word; a single word wider than the display is never split.
        """
        if cell_width(self.text) <= width or len(self.words) < 2:
            return [self.text]
        head = max(1, min(self.head, len(self.words)))
        arguments = self.words[head:]
        if starts is None:
            starts = {index for index, word in enumerate(arguments) if word.startswith("-")}
        groups: list[list[str]] = [list(self.words[:head])]
        for index, word in enumerate(arguments):
            if index in starts:
                groups.append([word])
            else:
                groups[-1].append(word)
        lines: list[str] = []
        for group in groups:
            current = (indent if lines else "") + group[0]
            for position, word in enumerate(group[1:], start=1):
                if position > 1 and cell_width(current) + cell_width(word) + 3 > width:
                    lines.append(current)
                    current = indent + word
                else:
                    current += " " + word
            lines.append(current)
        return [line + " \\" for line in lines[:-1]] + [lines[-1]]


def shell_join(
    argv: Sequence[str],
    env: Mapping[str, str | None] | None = None,
    cwd: str | None = None,
) -> ShellLine:
    """The command line that runs `argv` with the `env` overrides (None: unset) in `cwd`.

    `cd DIR &&` is put in front when `cwd` is given; `env -u NAME NAME=VALUE` when `env` is not
    empty (`env` rather than shell assignments, because only it can unset).
    """
    words: list[str] = []
    if cwd is not None:
        words += ["cd", shell_quote(cwd), "&&"]
    if env:
        words.append("env")
        for name, value in env.items():
            if value is None:
                words += ["-u", shell_quote(name)]
        for name, value in env.items():
            if value is not None:
                words.append(shell_quote(f"{name}={value}"))
    for index, word in enumerate(argv):
        words.append(shell_quote(word, command_position=index == 0 and not env))
    escaped = any(needs_escape(word) for word in [*argv, cwd or "", *_env_words(env)])
    head = len(words) - len(argv) + 1 if argv else len(words)
    return ShellLine(tuple(words), escaped, head)


def shell_words(words: Iterable[str]) -> str:
    """Argv words quoted one by one and joined with spaces, for a table cell or a message."""
    return " ".join(shell_quote(word) for word in words)


def _env_words(env: Mapping[str, str | None] | None) -> list[str]:
    return [f"{name}={value or ''}" for name, value in (env or {}).items()]
