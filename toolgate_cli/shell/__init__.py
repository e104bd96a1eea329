"""The read-only shell checker: is this Bash command provably read-only?

`check_read_only_command(command, extra_prefixes, place=...)` admits a command only when all of
these hold (the first failure is the verdict):

1. The text is bounded and carries no control, format (bidi, zero-width) or non-space blank
   character (newlines only between commands): those change what runs or what a person sees.
2. It is one plain command, or plain commands joined by `|`, `&&`, `||`, `;` and newlines, each
   with at most the redirections `>/dev/null`, `2>/dev/null`, `</dev/null`, `2>&1`, `>&2`.
   A compound is split with the bash grammar (tree-sitter-bash, syntax.py), deny-by-default over
   its node kinds; every command's text is then split into words by a strict lexer (words.py)
   that refuses any operator, expansion (`$` in any form, backticks, `{}` braces, history `!`),
   comment or option-prone glob, so what runs is the words checked, under bash *and* zsh.
3. Each command's words (quotes and backslashes removed, so `'-delete'`, `"-delete"` and
   `-de\\lete` are all `-delete`) pass the program tables (programs.py, git.py): no leading
   VAR=value, no program that runs other programs (`NEVER_COMMANDS`) or contacts another machine
   (`NETWORK_COMMANDS`, git's network subcommands), leading words equal to an allowed prefix on
   whole words (`READ_BASH_PREFIXES` plus the caller's `extra_prefixes`), no argument that makes
   the command write or run something.
4. Where the command runs matters for three things, judged with `place` (place.py): `cd DIR`
   must stay inside the caller root; git must find the caller root's repository, not a nested
   one; a glob at the start of a word must not be able to expand to an option-like name. Without
   a place, `cd` and such globs are refused.

Nothing runs. The package is on the Claude hook's hot path: plain commands import nothing beyond
the standard library; tree-sitter is loaded only for a compound command.
"""

from __future__ import annotations

from toolgate_cli.shell.checker import check_read_only_command
from toolgate_cli.shell.command import prefix_problem
from toolgate_cli.shell.git import (
    GIT_BRANCH_LISTING_OPTIONS,
    GIT_FORBIDDEN_ARGUMENTS,
    GIT_FORBIDDEN_TEXT,
    GIT_GLOBAL_OPTIONS_ALLOWED,
    GIT_GLOBAL_OPTIONS_REFUSED,
    GIT_NETWORK_ARGUMENTS,
    GIT_NETWORK_FORMS,
    GIT_NETWORK_SUBCOMMANDS,
)
from toolgate_cli.shell.place import Place
from toolgate_cli.shell.programs import (
    FORBIDDEN_ARGUMENTS,
    NETWORK_COMMANDS,
    NEVER_COMMANDS,
    READ_BASH_PREFIXES,
    SUBCOMMAND_PROGRAMS,
)
from toolgate_cli.shell.verdict import (
    MAX_COMMAND_CHARS,
    MAX_PARTS,
    REFUSAL_CODES,
    PartVerdict,
    ShellVerdict,
    display_text,
)
from toolgate_cli.shell.words import has_unsafe_shell_syntax, shell_words

__all__ = [
    "FORBIDDEN_ARGUMENTS",
    "GIT_BRANCH_LISTING_OPTIONS",
    "GIT_FORBIDDEN_ARGUMENTS",
    "GIT_FORBIDDEN_TEXT",
    "GIT_GLOBAL_OPTIONS_ALLOWED",
    "GIT_GLOBAL_OPTIONS_REFUSED",
    "GIT_NETWORK_ARGUMENTS",
    "GIT_NETWORK_FORMS",
    "GIT_NETWORK_SUBCOMMANDS",
    "MAX_COMMAND_CHARS",
    "MAX_PARTS",
    "NETWORK_COMMANDS",
    "NEVER_COMMANDS",
    "READ_BASH_PREFIXES",
    "REFUSAL_CODES",
    "SUBCOMMAND_PROGRAMS",
    "PartVerdict",
    "Place",
    "ShellVerdict",
    "check_read_only_command",
    "display_text",
    "has_unsafe_shell_syntax",
    "prefix_problem",
    "shell_words",
]
