"""`check_read_only_command`: the whole check, from the text to the verdict on every part."""

from __future__ import annotations

from toolgate_cli.shell.command import DEFAULT_PREFIXES, check_words, parse_prefixes
from toolgate_cli.shell.place import (
    MAX_DIRECTORIES,
    cd_destinations,
    glob_problem,
    repository_problem,
)
from toolgate_cli.shell.verdict import PartVerdict, ShellVerdict, display_text
from toolgate_cli.shell.words import OperatorRefusal, lex, precheck

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolgate_cli.shell.command import CommandFacts
    from toolgate_cli.shell.place import Place
    from toolgate_cli.shell.words import Word


class _Judged:
    """One part on its way through the checks."""

    __slots__ = ("facts", "verdict", "words")

    def __init__(self, verdict: PartVerdict, words: list[Word] | None) -> None:
        self.verdict = verdict
        self.words = words
        self.facts: CommandFacts | None = None


def check_read_only_command(
    command: str, extra_prefixes: Sequence[str] = (), *, place: Place | None = None
) -> ShellVerdict:
    """Whether a Bash command is admitted in read access (see the package docstring).

    `extra_prefixes` are the caller's `--allow-bash-prefix` values; they get the same syntax and
    argument checks as the defaults. A prefix that `prefix_problem` rejects admits nothing (the
    command line layers reject it up front). `place` says where the command runs; without it,
    `cd` and globs at the start of a word are refused and git is judged by its words alone.
    Never raises on any `command` value.
    """
    verdict = precheck(command, allow_newline=True)
    if verdict is not None:
        return verdict
    judged: list[_Judged]
    lexed = lex(command) if "\n" not in command else None
    if lexed is None or isinstance(lexed, OperatorRefusal):
        from toolgate_cli.shell.syntax import split_commands

        split = split_commands(command)
        if isinstance(split, ShellVerdict):
            return split
        judged = []
        for part in split:
            part_verdict = PartVerdict(part.text, None, part.redirects, part.operator)
            words = _part_words(part.text, part_verdict)
            judged.append(_Judged(part_verdict, words))
    elif isinstance(lexed, ShellVerdict):
        part_verdict = PartVerdict(command, None, [], None)
        part_verdict.refuse(lexed.code, lexed.message)
        judged = [_Judged(part_verdict, None)]
    else:
        judged = [_Judged(PartVerdict(command, [w.text for w in lexed], [], None), lexed)]

    prefixes = DEFAULT_PREFIXES
    if extra_prefixes:
        prefixes = prefixes + parse_prefixes(extra_prefixes)
    cdpath_set = place.cdpath_set if place is not None else False
    for item in judged:
        if item.words is None:
            continue
        word_verdict, item.facts = check_words(item.words, prefixes, cdpath_set)
        if not word_verdict.ok:
            item.verdict.refuse(word_verdict.code, word_verdict.message)
    _judge_places(judged, place)
    return _overall(judged)


def _part_words(text: str, verdict: PartVerdict) -> list[Word] | None:
    """The words of one part's text, or None with the refusal recorded on `verdict`."""
    refusal = precheck(text)
    lexed = lex(text) if refusal is None else refusal
    if isinstance(lexed, OperatorRefusal):
        # The grammar and the lexer disagree on where this command ends: trust neither.
        verdict.refuse(
            "syntax", f"{lexed.message.split(';')[0]} inside what the grammar read as one command"
        )
        return None
    if isinstance(lexed, ShellVerdict):
        verdict.refuse(lexed.code, lexed.message)
        return None
    verdict.words = [word.text for word in lexed]
    return lexed


def _pipelines(judged: list[_Judged]) -> list[list[_Judged]]:
    groups: list[list[_Judged]] = [[]]
    for item in judged:
        groups[-1].append(item)
        if item.verdict.operator != "|":
            groups.append([])
    return [group for group in groups if group]


def _judge_places(judged: list[_Judged], place: Place | None) -> None:
    """The checks that depend on the working directory, over the set of directories each
    pipeline may run in (every `cd` before it may or may not have happened)."""
    start = place.start() if place is not None else None
    directories = [start] if start is not None else None
    for pipeline in _pipelines(judged):
        for item in pipeline:
            facts = item.facts
            if facts is None or not item.verdict.ok:
                continue
            if facts.cd_target is not None:
                continue
            for word in facts.glob_first:
                problem = (
                    "the working directory is unknown here"
                    if place is None or directories is None
                    else glob_problem(place, directories, word)
                )
                if problem is not None:
                    item.verdict.refuse(
                        "glob",
                        f"{display_text(word)} refused: a pattern at the start of a word expands "
                        f"to names of the working directory, and {problem}; begin the word with "
                        "a directory such as ./",
                    )
                    break
            if facts.git and place is not None and place.root is not None:
                problem = (
                    "the working directory is unknown"
                    if directories is None
                    else repository_problem(place, directories)
                )
                if problem is not None:
                    item.verdict.refuse("repository", f"git refused: {problem}")
        for item in pipeline:
            target = item.facts.cd_target if item.facts is not None else None
            if target is None or not item.verdict.ok:
                continue
            shown = f"cd {display_text(target)} refused"
            if len(pipeline) > 1:
                item.verdict.refuse(
                    "cd", f"{shown}: cd in a pipeline runs in a subshell in bash, not in zsh"
                )
            elif place is None or place.root is None:
                item.verdict.refuse(
                    "cd",
                    f"{shown}: this check does not know the caller root to keep it inside "
                    "(the hook takes --caller-root; dispatch --read-shell passes it)",
                )
            elif directories is None:
                item.verdict.refuse("cd", f"{shown}: the working directory is unknown here")
            else:
                destinations = cd_destinations(place, directories, target)
                if isinstance(destinations, str):
                    item.verdict.refuse("cd", f"{shown}: {destinations}")
                    continue
                merged = directories + [d for d in destinations if d not in directories]
                if len(merged) > MAX_DIRECTORIES:
                    item.verdict.refuse("cd", f"{shown}: too many cds to follow in one command")
                    continue
                directories = merged


def _overall(judged: list[_Judged]) -> ShellVerdict:
    parts = [item.verdict for item in judged]
    refused = next((part for part in parts if not part.ok), None)
    if refused is None:
        words = parts[0].words if len(parts) == 1 else None
        return ShellVerdict(True, words=words, parts=parts)
    message = refused.message
    if len(parts) > 1:
        index = parts.index(refused) + 1
        message = f"{display_text(refused.text)} (part {index} of {len(parts)}): {message}"
    return ShellVerdict(False, refused.code, message, parts=parts)
