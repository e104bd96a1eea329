"""The persisted permission-rule grammar (seed 003): parse, canonicalize, admit, warn.

Pure code: no click, no rich, no I/O. Usable as a library::

    from toolgate_cli.rules import RuleReject, parse_allow_rule_text, rule_admits_command
    rule = parse_allow_rule_text("Bash(npm run:*)")
    assert not isinstance(rule, RuleReject) and rule_admits_command(rule, "npm run build")

The grammar has two tools and four match forms:

* ``Bash(git status)`` -- ``exact``: admits the one command the rule spells.
* ``Bash(npm run:*)`` -- ``prefix`` (colon-star): the body, or the body followed by a space and
  more, inside the body's own segment count. The ONLY spelling of a compound prefix
  (``Bash(cd /tmp && npm:*)``): every segment but the last must match exactly, and the last is
  extended.
* ``Bash(npm run *)`` -- ``wildcard`` (trailing space-star): match-equivalent to ``prefix`` on a
  single command, and it has no compound reading (a chain body is refused).
* ``Read(//abs/dir/**)`` -- ``subpath``: reads under one absolute directory; never a command.

Decisions where the seed is silent (each one is pinned by a test in tests/test_rules.py):

* The rule text is exactly ``Tool(content)``: no whitespace around it (seed 002 reads no tool name
  in ``" Bash"`` or ``Bash\\t(*)``). Tool names are case-sensitive; a bare ``Bash`` or ``Read``
  (a whole-tool grant) is ``invalid.grammar``; any other tool name is ``unsupported.tool``.
* Check order: length (bounds all later work), control characters, outer grammar, tool, then the
  tool's own grammar. ``MAX_RULE_TEXT_LENGTH`` is 2048 code points.
* Control characters are every Unicode Cc (C0, DEL, C1 -- so TAB and newline too), Cf (zero-width,
  bidi, BOM, soft hyphen), Cs (lone surrogates, e.g. undecodable argv bytes), Zl and Zp.
* Bash content is stripped of surrounding spaces; runs of unquoted spaces fold to one; text inside
  quotes is kept byte for byte (folding inside quotes would change the command). Words are compared
  as spelled, never unquoted: ``git "status"`` is not ``git status`` (narrower, never wider).
* Any ``*`` other than the one trailing ``:*`` or `` *`` is ``unsupported.wildcard``, even quoted
  or backslash-escaped: the lane that reads these settings compiles stars as globs regardless of
  shell quoting, and a glob argument has no rule form here. ``Bash(*)`` and ``Bash( *)`` are
  whole-tool grants: ``unsupported.wildcard``. One trailing `` *`` is ALWAYS the wildcard form,
  however glob-like it looks: ``Bash(rm -rf *)`` is accepted and admits ``rm -rf`` followed by
  anything (seed 003: upstream compiles it to ``^rm -rf( .*)?$``), which lint cannot flag as
  broad because its body has two words.
* Connectors are ``&&``, ``||``, ``;`` and ``|``; canonical spelling ``a && b``, ``a || b``,
  ``a; b``, ``a | b``. An ``exact`` body may be a chain (it admits that one chain). A chain under
  the trailing space-star form is ``invalid.not_simple_command``.
* ``invalid.not_simple_command``: command or process substitution (``$(``, backticks, also inside
  double quotes), ``$'...'``/``$"..."`` quoting, redirection (``<``, ``>``, ``&>``, ``|&``),
  background ``&``, parentheses, a comment ``#``, a newline, and a segment headed by a shell
  reserved word that opens a compound command (``if``, ``for``, ``while``, ``{``, ...).
* ``invalid.unbalanced_quotes``: an unclosed ``'`` or ``"``, and a trailing backslash (the
  shell's one-character quote, quoting nothing).
* ``invalid.empty_command``: an empty body, an empty chain segment (``a && && b``, ``a;``), and a
  segment of only ``NAME=value`` assignments (it names no program).
* ``invalid.bare_interpreter_prefix`` (prefix and wildcard only, judged on the final segment): the
  program (basename, quotes removed, lower-cased, ``.exe`` dropped, version suffix allowed) is an
  interpreter or a command wrapper from ``INTERPRETER_HEADS``, and every word after it is
  option-like (starts with ``-``, is a number/duration, or is an assignment). So
  ``Bash(python:*)``, ``Bash(node -e:*)``, ``Bash(timeout 5:*)`` are refused;
  ``Bash(python manage.py test:*)`` is accepted. A syntactic floor, not a sandbox.
* ``broad_prefix`` counts the words of a single-segment body after leading assignments, so
  ``Bash(FOO=1 mkdir:*)`` warns like ``Bash(mkdir:*)``. A chain body warns ``compound_prefix``
  only (its body is not a single token).
* ``Read``: the content is exactly ``//`` + directory + ``/**``; nothing is stripped (spaces
  around it are ``invalid.grammar``). The root
  directory is spelled ``Read(//**)`` (``Read(///**)`` is a doubled slash). A single leading slash,
  ``~``, a relative path, a missing ``/**`` are ``invalid.grammar``; a ``.``/``..`` segment is
  ``invalid.path_traversal``; a doubled or trailing slash is ``invalid.grammar``; any other star is
  ``unsupported.wildcard``.
* Candidate commands are read with the same lexer: a command it cannot read (a redirection, a
  substitution, a newline, a control character other than TAB, unbalanced quotes) is admitted by
  no rule. TAB folds like a space on the candidate side.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal, NamedTuple

__all__ = [
    "BREADTH_WARNING_CODES",
    "INTERPRETER_HEADS",
    "MAX_RULE_TEXT_LENGTH",
    "REJECT_CODES",
    "Admission",
    "BreadthWarning",
    "ParsedRule",
    "RuleReject",
    "bare_interpreter_of",
    "command_admission",
    "command_segments_of",
    "directory_rule_admits",
    "format_allow_rule_text",
    "lexical_normal_absolute_path_of",
    "parse_allow_rule_text",
    "path_admission",
    "path_within_root",
    "program_word_count",
    "rule_admits_command",
    "rule_breadth_warnings_of",
]

RuleTool = Literal["Bash", "Read"]
RuleMatch = Literal["exact", "prefix", "wildcard", "subpath"]
RuleRejectCode = Literal[
    "invalid.grammar",
    "invalid.empty_command",
    "invalid.not_simple_command",
    "invalid.bare_interpreter_prefix",
    "invalid.unbalanced_quotes",
    "invalid.control_chars",
    "invalid.too_long",
    "invalid.path_traversal",
    "unsupported.tool",
    "unsupported.wildcard",
]
BreadthWarningCode = Literal["broad_prefix", "compound_prefix"]

REJECT_CODES: tuple[RuleRejectCode, ...] = (
    "invalid.grammar",
    "invalid.empty_command",
    "invalid.not_simple_command",
    "invalid.bare_interpreter_prefix",
    "invalid.unbalanced_quotes",
    "invalid.control_chars",
    "invalid.too_long",
    "invalid.path_traversal",
    "unsupported.tool",
    "unsupported.wildcard",
)
"""The closed set of reject codes (seed 003 ``RuleRejectCode``); stable, so reports can group."""

BREADTH_WARNING_CODES: tuple[BreadthWarningCode, ...] = ("broad_prefix", "compound_prefix")

MAX_RULE_TEXT_LENGTH = 2048
"""Longest rule text accepted, in code points; longer is ``invalid.too_long``."""

SUPPORTED_TOOLS: tuple[RuleTool, ...] = ("Bash", "Read")

INTERPRETER_HEADS: frozenset[str] = frozenset(
    {
        # shells
        *("sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "busybox"),
        # language interpreters (a version suffix such as python3.12 is matched separately)
        *("python", "pypy", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua"),
        *("luajit", "tclsh", "wish", "rscript", "r", "julia", "osascript", "pwsh", "powershell"),
        *("awk", "gawk", "mawk", "nawk"),
        # wrappers that run an arbitrary inner program (seed 002's circumvention list)
        *("env", "sudo", "doas", "su", "exec", "eval", "command", "builtin", "xargs", "nohup"),
        *("timeout", "nice", "ionice", "time", "stdbuf", "setsid", "chroot", "flock", "strace"),
        *("ltrace", "watch", "unbuffer", "npx", "bunx", "pnpx", "uvx"),
    }
)
"""Program names a prefix rule may not stop at (``invalid.bare_interpreter_prefix``)."""

_VERSIONED_INTERPRETER = re.compile(r"(?:python|pypy|node|perl|ruby|php|lua)[0-9][0-9.]*")
_OPTION_LIKE = re.compile(r"-.*|[0-9][0-9.]*[a-z]?")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\+?=")
_TOOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_OUTER = re.compile(r"([^()]*)\((.*)\)", re.DOTALL)
# Characters the lexer never has to look at one by one: everything but whitespace, quotes,
# backslash, `$`, `#` and the shell's operator characters.
_PLAIN_RUN = re.compile(r"[^ \t'\"\\`$#<>()&|;\n\r]+")
_CONTROL_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_RESERVED_HEADS = frozenset(
    {
        *("if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done"),
        *("case", "esac", "select", "function", "coproc", "{", "}"),
    }
)
_CONNECTOR_SPELLING = {"&&": " && ", "||": " || ", ";": "; ", "|": " | "}


@dataclass(frozen=True)
class ParsedRule:
    """An accepted rule.

    ``canonical`` is the one spelling that persists (parsing it gives this same rule);
    ``body`` is the folded command for Bash rules (a chain spelled with canonical connectors),
    or the lexical-normal absolute directory for the Read ``subpath`` form.
    """

    canonical: str
    tool: RuleTool
    match: RuleMatch
    body: str


@dataclass(frozen=True)
class RuleReject:
    """Why a rule text was refused: a code from ``REJECT_CODES`` and a one-line message."""

    code: RuleRejectCode
    message: str


@dataclass(frozen=True)
class BreadthWarning:
    """A breadth note about an accepted rule. Never a refusal; never adjudication input."""

    code: BreadthWarningCode
    message: str


@dataclass(frozen=True)
class Admission:
    """An admission answer and the one-line reason behind it."""

    admitted: bool
    reason: str


class _Lexed(NamedTuple):
    segments: tuple[tuple[str, ...], ...]
    connectors: tuple[str, ...]


def describe_char(char: str) -> str:
    """A printable name for one character, e.g. ``U+001B``; an undecodable byte that Python
    carried in as a lone surrogate (``surrogateescape``) is named as that byte."""
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"the undecodable byte 0x{code - 0xDC00:02X}"
    return f"U+{code:04X}"


def _first_control_char(text: str) -> tuple[int, str] | None:
    for index, char in enumerate(text):
        if (char < " " or char >= "\x7f") and unicodedata.category(char) in _CONTROL_CATEGORIES:
            return index, char
    return None


def _lex(text: str, offset: int = 0) -> _Lexed | RuleReject:
    """Split a command into segments of words (spelled as written) and the connectors between.

    Columns in messages are 1-based and shifted by ``offset`` (a rule passes where its body
    starts, so columns count from the start of the rule text).

    Linear in ``len(text)``. Unquoted space/TAB runs separate words and are dropped; quoted text
    and backslash pairs stay inside their word verbatim.
    """
    segments: list[tuple[str, ...]] = []
    connectors: list[str] = []
    words: list[str] = []
    word: list[str] = []
    index, length = 0, len(text)

    def end_segment(connector: str, at: int) -> RuleReject | None:
        if word:
            words.append("".join(word))
            word.clear()
        if not words:
            return RuleReject(
                "invalid.empty_command",
                f"an empty command before {connector!r} at column {offset + at + 1}",
            )
        segments.append(tuple(words))
        words.clear()
        connectors.append(connector)
        return None

    def not_simple(what: str, at: int) -> RuleReject:
        return RuleReject("invalid.not_simple_command", f"{what} at column {offset + at + 1}")

    while index < length:
        plain = _PLAIN_RUN.match(text, index)
        if plain is not None:
            word.append(plain.group())
            index = plain.end()
            continue
        char = text[index]
        following = text[index + 1] if index + 1 < length else ""
        if char in " \t":
            if word:
                words.append("".join(word))
                word.clear()
            index += 1
        elif char == "'":
            close = text.find("'", index + 1)
            if close < 0:
                return RuleReject(
                    "invalid.unbalanced_quotes",
                    f"the single quote at column {offset + index + 1} is never closed",
                )
            word.append(text[index : close + 1])
            index = close + 1
        elif char == '"':
            scan = index + 1
            while scan < length:
                inner = text[scan]
                if inner == "\\":
                    scan += 2
                    continue
                if inner == '"':
                    break
                if inner == "`" or (inner == "$" and text[scan + 1 : scan + 2] == "("):
                    return not_simple("a command substitution inside double quotes", scan)
                scan += 1
            if scan >= length:
                return RuleReject(
                    "invalid.unbalanced_quotes",
                    f"the double quote at column {offset + index + 1} is never closed",
                )
            word.append(text[index : scan + 1])
            index = scan + 1
        elif char == "\\":
            if not following:
                return RuleReject(
                    "invalid.unbalanced_quotes", "a trailing backslash quotes nothing"
                )
            if following in "\n\r":
                return not_simple("a line continuation", index)
            word.append(text[index : index + 2])
            index += 2
        elif char == "$":
            if following == "(":
                return not_simple("a command substitution $(", index)
            if following and following in "'\"":
                return not_simple(f"the ${following}...{following} quoting form", index)
            word.append("$")
            index += 1
        elif char == "#":
            if not word:
                return not_simple("a comment", index)
            word.append("#")
            index += 1
        elif char == "`":
            return not_simple("a command substitution (backtick)", index)
        elif char in "<>":
            return not_simple(f"a redirection {char!r}", index)
        elif char in "()":
            return not_simple(f"a subshell or grouping parenthesis {char!r}", index)
        elif char in "\n\r":
            return not_simple("a newline (it separates commands)", index)
        elif char == "&":
            if following != "&":
                return not_simple("a background '&' or '&>' redirection", index)
            failure = end_segment("&&", index)
            if failure is not None:
                return failure
            index += 2
        elif char == "|":
            if following == "&":
                return not_simple("a '|&' redirection", index)
            connector = "||" if following == "|" else "|"
            failure = end_segment(connector, index)
            if failure is not None:
                return failure
            index += len(connector)
        else:  # ";" -- the only character left outside _PLAIN_RUN
            failure = end_segment(";", index)
            if failure is not None:
                return failure
            index += 1
    if word:
        words.append("".join(word))
    if words:
        segments.append(tuple(words))
    elif connectors:
        return RuleReject(
            "invalid.empty_command", f"an empty command after the final {connectors[-1]!r}"
        )
    for number, segment in enumerate(segments, start=1):
        if segment[0] in _RESERVED_HEADS:
            return RuleReject(
                "invalid.not_simple_command",
                f"segment {number} starts with the shell keyword {segment[0]!r}"
                " (a compound command)",
            )
        if _program_index(segment) is None:
            return RuleReject(
                "invalid.empty_command",
                f"segment {number} is only assignments; it names no program",
            )
    return _Lexed(tuple(segments), tuple(connectors))


def _program_index(words: tuple[str, ...]) -> int | None:
    """Index of the first word that is not a leading ``NAME=value`` assignment."""
    for index, word in enumerate(words):
        if not _ASSIGNMENT.match(word):
            return index
    return None


def _spell(lexed: _Lexed) -> str:
    parts = [" ".join(lexed.segments[0])] if lexed.segments else []
    for connector, segment in zip(lexed.connectors, lexed.segments[1:], strict=True):
        parts.append(_CONNECTOR_SPELLING[connector])
        parts.append(" ".join(segment))
    return "".join(parts)


def _unquoted(word: str) -> str:
    """``word`` with quote characters and backslashes removed: close enough to what the shell
    passes for the interpreter check, and it errs toward recognizing an interpreter."""
    return word.replace("'", "").replace('"', "").replace("\\", "")


def _program_name(word: str) -> str:
    name = _unquoted(word).rsplit("/", 1)[-1].lower()
    return name.removesuffix(".exe")


def _is_bare_interpreter(segment: tuple[str, ...]) -> str | None:
    """The interpreter name if ``segment`` stops at an interpreter/wrapper, else None."""
    start = _program_index(segment)
    if start is None:
        return None
    name = _program_name(segment[start])
    if name not in INTERPRETER_HEADS and not _VERSIONED_INTERPRETER.fullmatch(name):
        return None
    rest = segment[start + 1 :]
    if all(_OPTION_LIKE.fullmatch(_unquoted(word)) or _ASSIGNMENT.match(word) for word in rest):
        return name
    return None


def command_segments_of(body: str) -> tuple[tuple[str, ...], ...] | None:
    """The segments of a rule body as this module reads them (words spelled as written), or
    None when it cannot read the body (a redirection, a substitution, unbalanced quotes, ...).

    For other rule dialects (``toolgate_cli.claude_rules``) that ask the same breadth questions
    with the same lexer: never a second reading of a command.
    """
    lexed = _lex(body)
    if isinstance(lexed, RuleReject) or not lexed.segments:
        return None
    return lexed.segments


def bare_interpreter_of(segment: tuple[str, ...]) -> str | None:
    """The interpreter or wrapper a prefix ending in ``segment`` stops at, else None (the
    ``invalid.bare_interpreter_prefix`` question, asked of one segment)."""
    return _is_bare_interpreter(segment)


def program_word_count(segment: tuple[str, ...]) -> int:
    """How many words of ``segment`` follow its leading ``NAME=value`` assignments (the program
    and its arguments); the ``broad_prefix`` question is whether this is one."""
    start = _program_index(segment)
    return 0 if start is None else len(segment) - start


def format_allow_rule_text(body: str, match: RuleMatch) -> str:
    """The canonical spelling for an already-folded ``body`` and a match form.

    ``subpath`` takes the lexical-normal absolute directory (one leading slash) and re-spells it
    in the double-slash directory form; the root directory is ``Read(//**)``.
    """
    if match == "subpath":
        return "Read(//**)" if body == "/" else f"Read(/{body}/**)"
    if match == "prefix":
        return f"Bash({body}:*)"
    if match == "wildcard":
        return f"Bash({body} *)"
    return f"Bash({body})"


def parse_allow_rule_text(text: str) -> ParsedRule | RuleReject:
    """Parse one rule text into a ``ParsedRule``, or say why not with a ``RuleReject``.

    Never raises on any ``str``. The module docstring lists the grammar and the order of checks.
    """
    if len(text) > MAX_RULE_TEXT_LENGTH:
        return RuleReject(
            "invalid.too_long",
            f"the rule is {len(text)} characters; the limit is {MAX_RULE_TEXT_LENGTH}",
        )
    control = _first_control_char(text)
    if control is not None:
        index, char = control
        return RuleReject(
            "invalid.control_chars",
            f"control or invisible character {describe_char(char)} at column {index + 1}",
        )
    if not text:
        return RuleReject("invalid.grammar", "the rule is empty; write Tool(content)")
    outer = _OUTER.fullmatch(text)
    if outer is None:
        if _TOOL_NAME.fullmatch(text):
            if text in SUPPORTED_TOOLS:
                return RuleReject(
                    "invalid.grammar",
                    f"a bare {text!r} grants the whole tool; write {text}(...) with a command"
                    if text == "Bash"
                    else f"a bare {text!r} grants the whole tool; write Read(//abs/dir/**)",
                )
            return RuleReject("unsupported.tool", f"the tool {text!r} is not Bash or Read")
        return RuleReject("invalid.grammar", "not of the form Tool(content)")
    tool, content = outer.group(1), outer.group(2)
    if not _TOOL_NAME.fullmatch(tool):
        return RuleReject("invalid.grammar", f"{tool!r} is not a tool name")
    if tool == "Bash":
        return _parse_bash(content)
    if tool == "Read":
        return _parse_read(content)
    return RuleReject("unsupported.tool", f"the tool {tool!r} is not Bash or Read")


def _parse_bash(content: str) -> ParsedRule | RuleReject:
    # Only the form marker is found on a right-trimmed copy: an exact body keeps its trailing
    # text, because `echo a\ ` ends in an escaped space that trimming would turn into a dangling
    # backslash. Unquoted spaces are dropped by the lexer anyway.
    trimmed = content.rstrip(" ")
    match: RuleMatch
    if trimmed.lstrip(" ") == "*":
        return RuleReject(
            "unsupported.wildcard", "Bash(*) grants every command; a rule must name one"
        )
    if trimmed.endswith(":*"):
        match, body_text = "prefix", trimmed[:-2]
    elif trimmed.endswith(" *"):
        match, body_text = "wildcard", trimmed[:-2]
    else:
        match, body_text = "exact", content
    star = body_text.find("*")
    if star >= 0:
        return RuleReject(
            "unsupported.wildcard",
            f"a '*' at column {star + len('Bash(') + 1}: only a trailing ':*' or ' *' has a rule"
            " form",
        )
    lexed = _lex(body_text, offset=len("Bash("))
    if isinstance(lexed, RuleReject):
        return lexed
    if not lexed.segments:
        return RuleReject("invalid.empty_command", "the rule names no command")
    if match == "wildcard" and len(lexed.segments) > 1:
        return RuleReject(
            "invalid.not_simple_command",
            "the trailing ' *' form has no compound reading; spell a compound prefix with ':*'",
        )
    if match != "exact":
        interpreter = _is_bare_interpreter(lexed.segments[-1])
        if interpreter is not None:
            return RuleReject(
                "invalid.bare_interpreter_prefix",
                f"a prefix that stops at {interpreter!r} admits any program or code it runs;"
                " name the script or subcommand",
            )
    body = _spell(lexed)
    return ParsedRule(format_allow_rule_text(body, match), "Bash", match, body)


def _parse_read(content: str) -> ParsedRule | RuleReject:
    form = "Read(//abs/dir/**)"
    if content.strip(" ") != content:
        return RuleReject("invalid.grammar", f"spaces around the directory; write {form}")
    if not content.endswith("/**"):
        if "*" in content:
            return RuleReject("unsupported.wildcard", f"Read speaks only the directory form {form}")
        return RuleReject(
            "invalid.grammar", f"a Read rule is the directory form {form} (no trailing /**)"
        )
    if not content.startswith("//"):
        if content.startswith("/"):
            why = "one leading slash is relative to the settings file; an absolute path takes //"
        elif content.startswith("~"):
            why = "a home-relative path has no rule form; spell the absolute directory with //"
        else:
            why = "a relative path has no rule form; spell the absolute directory with //"
        return RuleReject("invalid.grammar", f"{why}, as in {form}")
    spelled = content[1:-3]
    if "*" in spelled:
        return RuleReject(
            "unsupported.wildcard", f"a '*' inside the directory; Read speaks only {form}"
        )
    if not spelled:
        return ParsedRule(format_allow_rule_text("/", "subpath"), "Read", "subpath", "/")
    segments = spelled.split("/")[1:]
    for segment in segments:
        if segment in (".", ".."):
            return RuleReject(
                "invalid.path_traversal",
                f"a {segment!r} segment; spell the lexical-normal directory instead",
            )
    if "" in segments:
        return RuleReject(
            "invalid.grammar", "a doubled or trailing slash; spell the lexical-normal directory"
        )
    return ParsedRule(format_allow_rule_text(spelled, "subpath"), "Read", "subpath", spelled)


def rule_breadth_warnings_of(rule: ParsedRule) -> tuple[BreadthWarning, ...]:
    """Breadth notes for an accepted rule: ``broad_prefix`` or ``compound_prefix``, or none.

    ``exact`` and ``subpath`` never warn. ``prefix``/``wildcard`` with a single-segment body of
    one word (after leading assignments) warn ``broad_prefix``; a chain body (``prefix`` only)
    warns ``compound_prefix``. A body this module cannot read yields no warning.
    """
    if rule.tool != "Bash" or rule.match not in ("prefix", "wildcard"):
        return ()
    lexed = _lex(rule.body)
    if isinstance(lexed, RuleReject) or not lexed.segments:
        return ()
    if len(lexed.segments) > 1:
        final = " ".join(lexed.segments[-1])
        return (
            BreadthWarning(
                "compound_prefix",
                f"{rule.canonical} admits a chain of {len(lexed.segments)} program runs,"
                f" with anything extending its final command {final!r}",
            ),
        )
    segment = lexed.segments[0]
    start = _program_index(segment)
    if start is not None and len(segment) - start == 1:
        return (
            BreadthWarning(
                "broad_prefix",
                f"{rule.canonical} admits every argument form of {segment[start]!r},"
                " not just one command line",
            ),
        )
    return ()


def _read_command(command: str) -> _Lexed | str:
    control = _first_control_char(command.replace("\t", " "))
    if control is not None:
        index, char = control
        if char in "\n\r":
            return f"it carries a newline at column {index + 1}, which separates commands"
        return f"it carries the control character {describe_char(char)} at column {index + 1}"
    lexed = _lex(command)
    if isinstance(lexed, RuleReject):
        return lexed.message
    return lexed


def command_admission(rule: ParsedRule, command: str) -> Admission:
    """Does ``rule`` admit the Bash ``command``, and why (or why not)?

    Whitespace outside quotes folds on both sides; words compare as spelled. ``exact`` admits
    the same segments and connectors; ``prefix``/``wildcard`` admit the same segment count and
    connectors, every segment but the last equal, the last equal or extended by whole words
    (``npm run`` never reaches ``npm run-x``). A chain is never admitted by a single-command
    body. A command this lexer cannot read is admitted by no rule.
    """
    if rule.tool != "Bash" or rule.match == "subpath":
        return Admission(False, "a Read directory rule never admits a command")
    body = _lex(rule.body)
    if isinstance(body, RuleReject) or not body.segments:
        return Admission(False, "the rule's body cannot be read")
    if rule.match == "wildcard" and len(body.segments) > 1:
        return Admission(False, "a trailing ' *' rule has no compound reading")
    candidate = _read_command(command)
    if isinstance(candidate, str):
        return Admission(False, f"no rule admits this command: {candidate}")
    if not candidate.segments:
        return Admission(False, "the command is empty")
    if len(candidate.segments) != len(body.segments):
        if len(body.segments) == 1:
            return Admission(
                False,
                f"the command is a chain of {len(candidate.segments)} commands;"
                " a single-command rule never admits a chain",
            )
        return Admission(
            False,
            f"the command has {len(candidate.segments)} segments; the rule's chain has"
            f" {len(body.segments)}",
        )
    if candidate.connectors != body.connectors:
        return Admission(False, "the command joins its segments with different connectors")
    last = len(body.segments) - 1
    for number, (want, got) in enumerate(zip(body.segments, candidate.segments, strict=True)):
        if number < last or rule.match == "exact":
            if want != got:
                return Admission(
                    False, f"segment {number + 1} is {' '.join(got)!r}, not {' '.join(want)!r}"
                )
        elif got[: len(want)] != want:
            return Admission(
                False,
                f"{' '.join(got)!r} does not start with the whole words {' '.join(want)!r}",
            )
    return Admission(True, f"{rule.canonical} admits {_spell(candidate)!r}")


def rule_admits_command(rule: ParsedRule, command: str) -> bool:
    """True iff ``rule`` admits the Bash ``command`` (see ``command_admission``)."""
    return command_admission(rule, command).admitted


def lexical_normal_absolute_path_of(path: str) -> str | None:
    """The one-leading-slash lexical-normal spelling of an absolute ``path``, or None.

    Collapses slash runs and ``.`` segments and resolves ``..`` textually (zero I/O, symlinks are
    not consulted). None for a relative or empty path, a ``..`` climbing past the root, or a path
    carrying NUL (no file has that name).
    """
    if not path.startswith("/") or "\x00" in path:
        return None
    parts: list[str] = []
    for segment in path.split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not parts:
                return None
            parts.pop()
        else:
            parts.append(segment)
    return "/" + "/".join(parts)


def _is_lexical_normal(path: str) -> bool:
    return lexical_normal_absolute_path_of(path) == path


def path_within_root(path: str, root: str) -> bool:
    """Is ``path`` ``root`` or inside it, at a separator boundary (``/a`` never reaches ``/ab``)?

    Both sides must already be lexical-normal absolute paths; if either is not, the answer is
    False (fail closed) rather than a guess at what was meant.
    """
    if not _is_lexical_normal(path) or not _is_lexical_normal(root):
        return False
    if root == "/":
        return True
    return path == root or path.startswith(root + "/")


def path_admission(rule: ParsedRule, path: str) -> Admission:
    """Does the Read directory ``rule`` admit a READ of ``path``, and why (or why not)?

    ``path`` must already be lexical-normal and absolute; nothing is normalized here, and a
    non-normal spelling is refused outright. Admits reads only: a caller must never ask this
    about a write, and a Bash rule never admits a path.
    """
    if rule.tool != "Read" or rule.match != "subpath":
        return Admission(False, "a Bash rule never admits a read path")
    if not _is_lexical_normal(path):
        return Admission(False, f"{path!r} is not a lexical-normal absolute path")
    if path_within_root(path, rule.body):
        return Admission(True, f"{rule.canonical} admits a read of {path!r}")
    return Admission(False, f"{path!r} is not inside {rule.body!r}")


def directory_rule_admits(rule: ParsedRule, path: str) -> bool:
    """True iff the Read directory ``rule`` admits a read of ``path`` (see ``path_admission``)."""
    return path_admission(rule, path).admitted
