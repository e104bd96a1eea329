"""Words of one plain command, split the way bash and zsh split them, or the first unsafe
construct in its text.

The lexer is deliberately strict: it knows quotes and backslashes and nothing else of the shell.
Every unquoted character that starts an operator, an expansion, a group, a comment or a history
expansion is refused, so what it admits is one literal invocation under bash *and* zsh. Compound
commands are split by the bash grammar first (`syntax.py`); each command's text then comes back
here, so a command only runs with the words this lexer saw.
"""

from __future__ import annotations

from toolgate_cli.shell.verdict import (
    MAX_COMMAND_CHARS,
    ShellVerdict,
    display_text,
    invisible,
    refuse,
)

OPERATORS: dict[str, str] = {
    ";": "it chains another command",
    "&": "it backgrounds the command or chains another (&&)",
    "|": "it pipes into, or chains, another command",
    "<": "it redirects input (or substitutes a process, <(...))",
    ">": "it redirects output into a file (or substitutes a process, >(...))",
    "(": "it opens a subshell or a process/extended-glob group",
    ")": "it closes a subshell or a group",
}

COMPOUND_CHARACTERS = frozenset(";&|<>\n")
"""Characters that can join commands or redirect them: text holding one unquoted is split by
the bash grammar (syntax.py) instead of refused here."""

GLOB_CHARACTERS = frozenset("*?[^#~")
"""Characters that make a word a pattern in bash or zsh: `* ? [` everywhere, and `^ # ~` under
zsh's EXTENDED_GLOB. A pattern expands to file names, which are read-only, but a name can be
`-delete` or `--pre=sh`. So a word with an unquoted pattern character must begin with a literal
character that no option starts with (`GLOB_SAFE_FIRST`), or begin with the pattern itself
(`Word.glob_first`): then the names it can expand to are those of the working directory, which
the checker lists (place.py) when it knows the directory, and refuses otherwise. `#` and `~` at
the start of a word are a comment and a tilde expansion instead, handled on their own."""

GLOB_SAFE_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/~")
"""Literal first characters that let a word hold a pattern: no option of any tool here starts
with one (`+` does for tail and sort, `-` for everything). `~` is a tilde expansion to a path."""

NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
NAME_REST = NAME_START | frozenset("0123456789")


class Word:
    """One word: `text` with quotes removed; `glob` if it holds an unquoted pattern character;
    `glob_first` if the pattern starts the word, so its expansion starts with a directory
    entry's name."""

    __slots__ = ("glob", "glob_first", "text")

    def __init__(self, text: str, glob: bool, glob_first: bool = False) -> None:
        self.text = text
        self.glob = glob
        self.glob_first = glob_first


class OperatorRefusal(ShellVerdict):
    """The lexer met an unquoted `; & | < >`: the text may be a compound command."""

    __slots__ = ()


def _refuse_multibyte_escape() -> ShellVerdict:
    # UTF-8 text run by a shell in a GBK, Big5 or Shift_JIS locale: the last byte of a non-ASCII
    # character can pair with the 0x5C that follows, so the shell sees no backslash and the
    # character this check thinks is escaped (`;`, a quote) is live there.
    return refuse(
        "multibyte-escape",
        "backslash after a non-ASCII character refused: in GBK, Big5 or Shift_JIS locales the "
        "shell reads it as part of that character; quote with '' instead",
    )


def lex(command: str) -> list[Word] | ShellVerdict:
    """Split `command` into words like bash (and zsh), or refuse the first unsafe construct."""
    words: list[Word] = []
    text: list[str] = []
    started = False  # a word is in progress (quotes can start an empty one)
    glob = False
    glob_first = False
    i = 0
    n = len(command)
    while i < n:
        char = command[i]
        if char == " ":
            if started:
                words.append(Word("".join(text), glob, glob_first))
                text, started, glob, glob_first = [], False, False, False
            i += 1
            continue
        if char == "'":
            end = command.find("'", i + 1)
            if end < 0:
                return refuse("unterminated-quote", "unterminated single quote: cannot parse")
            text.append(command[i + 1 : end])
            started = True
            i = end + 1
            continue
        if char == '"':
            i += 1
            started = True
            while True:
                if i >= n:
                    return refuse("unterminated-quote", "unterminated double quote: cannot parse")
                inner = command[i]
                if inner == '"':
                    i += 1
                    break
                if inner == "\\" and i > 0 and not command[i - 1].isascii():
                    return _refuse_multibyte_escape()
                if inner == "\\" and i + 1 < n and command[i + 1] in '$`"\\':
                    text.append(command[i + 1])
                    i += 2
                    continue
                if inner == "$":
                    return refuse(
                        "expansion",
                        "`$` refused: variable, command or arithmetic expansion (even inside "
                        "double quotes) cannot be checked before it runs",
                    )
                if inner == "`":
                    return refuse(
                        "expansion", "backtick refused: command substitution runs another command"
                    )
                if inner == "!":
                    return refuse(
                        "history",
                        "`!` inside double quotes refused: history expansion can rewrite the "
                        "command; use single quotes",
                    )
                text.append(inner)
                i += 1
            continue
        if char == "\\":
            if i > 0 and not command[i - 1].isascii():
                return _refuse_multibyte_escape()
            if i + 1 >= n:
                return refuse(
                    "unterminated-quote", "trailing backslash refused: it continues the line"
                )
            text.append(command[i + 1])
            started = True
            i += 2
            continue
        reason = OPERATORS.get(char)
        if reason is not None:
            message = f"`{char}` refused: {reason}; only one plain command is allowed"
            if char in COMPOUND_CHARACTERS:
                return OperatorRefusal(False, "operator", message)
            return refuse("operator", message)
        if char == "$":
            return refuse(
                "expansion",
                "`$` refused: variable, command or arithmetic expansion and $'' quoting cannot "
                "be checked before it runs",
            )
        if char == "`":
            return refuse(
                "expansion", "backtick refused: command substitution runs another command"
            )
        if char in "{}":
            return refuse(
                "brace",
                f"`{char}` refused: brace expansion can build any word (even an option) and "
                "`{ ...; }` groups commands; quote it",
            )
        if char == "!":
            alone = not started and (i + 1 == n or command[i + 1] == " ")
            if not alone:
                return refuse(
                    "history",
                    "`!` refused: history expansion can rewrite the command; quote it with '' "
                    "or use it as a word of its own",
                )
        elif char == "#" and not started:
            return refuse("comment", "`#` refused: a comment hides text from the reader; quote it")
        elif char == "~" and not started:
            pass  # tilde expansion: a home or working directory path, never an option
        elif char in GLOB_CHARACTERS:
            # The first character is fixed once the word holds one, so check only once.
            if not glob:
                first = "".join(text)[:1]
                if first == "":
                    glob_first = True
                elif first not in GLOB_SAFE_FIRST:
                    return refuse(
                        "glob",
                        f"unquoted `{char}` refused: a pattern in a word that starts with "
                        f"{display_text(first)} can expand to a file named like an option "
                        "(`-delete`, `--pre=...`); quote it or begin the word with a directory "
                        "such as ./",
                    )
            glob = True
        text.append(char)
        started = True
        i += 1
    if started:
        words.append(Word("".join(text), glob, glob_first))
    return words


def precheck(command: object, allow_newline: bool = False) -> ShellVerdict | None:
    """The refusal of text no command may be (not text, too long, empty, invisible characters),
    or None. `allow_newline`: a newline may stand between commands (the grammar then decides
    where it is; inside a command it is still refused)."""
    if not isinstance(command, str):
        return refuse("empty", "the command is not text")
    if len(command) > MAX_COMMAND_CHARS:
        return refuse("too-long", f"the command is longer than {MAX_COMMAND_CHARS} characters")
    if command.strip(" \n" if allow_newline else " ") == "":
        return refuse("empty", "the command is empty")
    if command.isascii() and command.isprintable():
        return None
    for char in command:
        if char == "\n" and allow_newline:
            continue
        if invisible(char):
            code = ord(char)
            name = {10: "newline", 13: "carriage return", 9: "tab"}.get(code)
            what = name or f"character U+{code:04X}"
            return refuse(
                "invisible-character",
                f"{what} refused: control, format (bidi, zero-width) and non-space blank "
                "characters can run a second command or hide what runs",
            )
    return None


def _refuse_glob_first(word: Word) -> ShellVerdict:
    return refuse(
        "glob",
        f"{display_text(word.text)} refused: a pattern at the start of a word can expand to a "
        "file named like an option (`-delete`, `--pre=...`); begin the word with a directory "
        "such as ./",
    )


def single_command_words(command: str) -> list[Word] | ShellVerdict:
    """The words of `command` if it is one literal invocation whose words are known from the
    text alone, else the refusal (what `shell_words` and `has_unsafe_shell_syntax` report)."""
    verdict = precheck(command)
    if verdict is not None:
        return verdict
    lexed = lex(command)
    if isinstance(lexed, ShellVerdict):
        return lexed
    for word in lexed:
        if word.glob_first:
            return _refuse_glob_first(word)
    return lexed


def has_unsafe_shell_syntax(command: str) -> str | None:
    """Why `command` is not a single literal invocation (one line), or None if it is one."""
    lexed = single_command_words(command)
    return lexed.message if isinstance(lexed, ShellVerdict) else None


def shell_words(cmd: str) -> list[str]:
    """Split a single literal invocation into words, quotes and backslashes removed the way bash
    removes them (`'-delete'`, `"-delete"` and `-de\\lete` all give `-delete`).

    Raises ValueError (with the refusal message) if `cmd` has unsafe syntax: words of a command
    that chains, substitutes or expands would not be the words that run.
    """
    lexed = single_command_words(cmd)
    if isinstance(lexed, ShellVerdict):
        raise ValueError(lexed.message)
    return [word.text for word in lexed]


def is_assignment(text: str) -> bool:
    name, equals, _ = text.partition("=")
    name = name.removesuffix("+")
    return bool(
        equals and name and name[0] in NAME_START and all(char in NAME_REST for char in name[1:])
    )
