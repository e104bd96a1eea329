"""One plain command's words against the tables: allowed prefixes, programs that are never
admitted, network clients, and the arguments that make an allowed program write or run.

`check_words` decides what the words alone decide, and reports what still depends on where the
command runs (`CommandFacts`: a `cd` target, git, globs at the start of a word), which the
checker judges with place.py when it knows the place.
"""

from __future__ import annotations

from toolgate_cli.shell.git import (
    check_git,
    git_global_refusal,
    git_network_reason,
    git_normal_form,
    without_git_global_options,
)
from toolgate_cli.shell.place import cd_target_problem
from toolgate_cli.shell.programs import (
    FORBIDDEN_ARGUMENTS,
    READ_BASH_PREFIXES,
    SUBCOMMAND_PROGRAMS,
    check_sed,
    check_table,
    check_uniq,
    network_reason,
    never_reason,
    program_key,
)
from toolgate_cli.shell.verdict import ShellVerdict, display_text, refuse
from toolgate_cli.shell.words import NAME_REST, is_assignment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolgate_cli.shell.words import Word

_PREFIX_WORD_CHARACTERS = NAME_REST | frozenset("./:@%+,=-")

_SPECIAL_FORMS = {"cd": "`cd` is judged on its own: one directory inside the caller root"}
"""Commands checked by their own rule, never by a caller prefix."""


class CommandFacts:
    """What of an admitted command still depends on where it runs."""

    __slots__ = ("cd_target", "git", "glob_first")

    def __init__(self) -> None:
        self.cd_target: str | None = None
        self.git = False
        self.glob_first: list[str] = []


def prefix_problem(prefix: str) -> str | None:
    """Why `prefix` cannot be an allowed prefix (one line), or None if it can.

    A prefix is one or more plain words separated by spaces (letters, digits and `._/:@%+,=-`):
    no quoting, globbing or operators, so it means the same words to every reader. It must not
    name a program in `NEVER_COMMANDS` or `NETWORK_COMMANDS`, nor a git subcommand that contacts
    a remote, and `git` must be followed by a subcommand.
    """
    if not isinstance(prefix, str):
        return "a prefix must be text"
    words = prefix.split(" ")
    if not prefix.strip() or any(word == "" for word in words):
        return f"{display_text(prefix)}: a prefix is one or more words separated by single spaces"
    for word in words:
        bad = next((char for char in word if char not in _PREFIX_WORD_CHARACTERS), None)
        if bad is not None:
            return (
                f"{display_text(prefix)}: {display_text(bad)} is not allowed in a prefix "
                "(only letters, digits and ._/:@%+,=- in plain words)"
            )
    never = never_reason(words[0])
    if never is not None:
        return f"{display_text(prefix)}: `{words[0]}` is never admitted: it {never}"
    network = network_reason(words[0])
    if network is not None:
        return f"{display_text(prefix)}: `{words[0]}` is never admitted: it {network}"
    if words[0] in _SPECIAL_FORMS:
        return f"{display_text(prefix)}: {_SPECIAL_FORMS[words[0]]}"
    program = program_key(words[0])
    if program == "git":
        words = without_git_global_options(words)
        if len(words) > 1 and words[1].startswith("-"):
            option = display_text(words[1])
            why = git_global_refusal(words[1])
            return f"{display_text(prefix)}: git global option {option} is refused ({why})"
        if len(words) > 1:
            remote = git_network_reason(words[1], words[2:])
            if remote is not None:
                return f"{display_text(prefix)}: never admitted: {remote}"
    if program in SUBCOMMAND_PROGRAMS and len(words) < 2:
        return f"{display_text(prefix)}: {SUBCOMMAND_PROGRAMS[program]}; name the subcommand"
    return None


def parse_prefixes(prefixes: Sequence[str]) -> list[tuple[str, ...]]:
    if isinstance(prefixes, str):  # one prefix passed bare: never iterate its characters
        prefixes = [prefixes]
    parsed = []
    for prefix in prefixes:
        if prefix_problem(prefix) is None:
            words = prefix.split(" ")
            if program_key(words[0]) == "git":
                words = without_git_global_options(words)
            parsed.append(tuple(words))
    return parsed


DEFAULT_PREFIXES: list[tuple[str, ...]] = parse_prefixes(
    [prefix for prefix in READ_BASH_PREFIXES if prefix not in _SPECIAL_FORMS]
)
_ALLOWED_SUMMARY = (
    ", ".join(p for p in READ_BASH_PREFIXES if not p.startswith("git "))
    + ", git "
    + "/".join(p[4:] for p in READ_BASH_PREFIXES if p.startswith("git "))
)


def _check_cd(words: list[Word], facts: CommandFacts, cdpath_set: bool) -> ShellVerdict:
    if len(words) != 2:
        return refuse(
            "cd",
            f"cd with {len(words) - 1} operands refused: give exactly one directory (zsh reads "
            "two as a substitution in the current path)",
        )
    target = words[1]
    problem = "a glob (its expansion is unknown here)" if target.glob else None
    problem = problem or cd_target_problem(target.text, cdpath_set)
    if problem is not None:
        return refuse("cd", f"cd {display_text(target.text)} refused: {problem}")
    facts.cd_target = target.text
    return ShellVerdict(True)


def check_words(
    words: list[Word], prefixes: list[tuple[str, ...]], cdpath_set: bool = False
) -> tuple[ShellVerdict, CommandFacts]:
    """The verdict on one command's words, and what of it depends on where it runs."""
    facts = CommandFacts()
    if not words:
        return refuse("empty", "the command is empty"), facts
    program = words[0].text
    if is_assignment(program):
        return refuse(
            "assignment",
            f"{display_text(program)} refused: a leading assignment changes the environment the "
            "program runs with (PAGER=, GIT_*=, LD_PRELOAD=)",
        ), facts
    if program == "cd":
        return _check_cd(words, facts, cdpath_set), facts
    never = never_reason(program)
    if never is not None:
        return refuse("wrapper", f"{display_text(program)} refused: it {never}"), facts
    network = network_reason(program)
    if network is not None:
        return refuse(
            "network", f"{display_text(program)} refused: it {network}; a read needs no network"
        ), facts

    key = program_key(program)
    normal = words
    if key == "git":
        git_form = git_normal_form(words)
        if isinstance(git_form, ShellVerdict):
            return git_form, facts
        normal = git_form
        if len(normal) < 2:
            return refuse("not-allowed", "git without a subcommand refused: name one"), facts
        remote = git_network_reason(normal[1].text, [word.text for word in normal[2:]])
        if remote is not None:
            return refuse("network", f"{remote}: refused, a read needs no network"), facts
    normal_texts = [word.text for word in normal]
    if not any(tuple(normal_texts[: len(prefix)]) == prefix for prefix in prefixes):
        lead = " ".join(normal_texts[:2]) if key == "git" else program
        return refuse(
            "not-allowed",
            f"{display_text(lead)} refused: not a read-only command here "
            f"(allowed: {_ALLOWED_SUMMARY}; plus any --allow-bash-prefix)",
        ), facts

    if key == "git":
        verdict = check_git(normal)
        facts.git = True
    elif key == "sed":
        verdict = check_sed(normal[1:])
    elif key == "uniq":
        verdict = check_uniq(normal[1:])
    elif key in FORBIDDEN_ARGUMENTS:
        verdict = check_table(key, normal[1:], FORBIDDEN_ARGUMENTS[key])
    else:
        verdict = ShellVerdict(True)
    facts.glob_first = [word.text for word in words if word.glob_first]
    return verdict, facts
