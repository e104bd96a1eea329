"""The permission-rule grammar (seed 003, background seed 004) and `toolgate rules`.

Tables first (every example the seeds spell, then the decisions the seeds leave open, each
named after the docstring line it pins), then hypothesis properties, then the CLI through a
subprocess.
"""

from __future__ import annotations

import json
import os
import posixpath
from pathlib import Path

import pytest
from hypothesis import assume, event, example, given, settings
from hypothesis import strategies as st

import toolgate_cli
from tests.conftest import run_toolgate
from toolgate_cli.rules import (
    BREADTH_WARNING_CODES,
    MAX_RULE_TEXT_LENGTH,
    REJECT_CODES,
    ParsedRule,
    RuleReject,
    command_admission,
    directory_rule_admits,
    format_allow_rule_text,
    lexical_normal_absolute_path_of,
    parse_allow_rule_text,
    path_within_root,
    rule_admits_command,
    rule_breadth_warnings_of,
)


def parsed(text: str) -> ParsedRule:
    rule = parse_allow_rule_text(text)
    assert isinstance(rule, ParsedRule), rule
    return rule


# --------------------------------------------------------------------------- parse: accepted

# (rule text, canonical, tool, match, body). Seed examples first, then decisions.
ACCEPTED = [
    # seed 003 / issue 6: the four forms
    ("Bash(git status)", "Bash(git status)", "Bash", "exact", "git status"),
    ("Bash(npm run:*)", "Bash(npm run:*)", "Bash", "prefix", "npm run"),
    ("Bash(npm run *)", "Bash(npm run *)", "Bash", "wildcard", "npm run"),
    # seed 003: one trailing ' *' is "the body, or the body followed by a space and more",
    # however glob-like it looks
    ("Bash(rm -rf *)", "Bash(rm -rf *)", "Bash", "wildcard", "rm -rf"),
    (
        "Bash(cd /tmp && adb pull:*)",
        "Bash(cd /tmp && adb pull:*)",
        "Bash",
        "prefix",
        "cd /tmp && adb pull",
    ),
    ("Bash(cd /tmp && npm:*)", "Bash(cd /tmp && npm:*)", "Bash", "prefix", "cd /tmp && npm"),
    ("Bash(git status:*)", "Bash(git status:*)", "Bash", "prefix", "git status"),
    ("Bash(mkdir:*)", "Bash(mkdir:*)", "Bash", "prefix", "mkdir"),
    ("Bash(ps:*)", "Bash(ps:*)", "Bash", "prefix", "ps"),  # seed 002's content-form example
    ("Read(//abs/dir/**)", "Read(//abs/dir/**)", "Read", "subpath", "/abs/dir"),
    ("Read(//abs/**)", "Read(//abs/**)", "Read", "subpath", "/abs"),
    ("Read(//a/b/**)", "Read(//a/b/**)", "Read", "subpath", "/a/b"),
    # decisions: whitespace folds outside quotes, connectors get one canonical spelling
    ("Bash(npm  run  build)", "Bash(npm run build)", "Bash", "exact", "npm run build"),
    ("Bash( git status )", "Bash(git status)", "Bash", "exact", "git status"),
    ("Bash(npm run :*)", "Bash(npm run:*)", "Bash", "prefix", "npm run"),
    ("Bash(npm run:* )", "Bash(npm run:*)", "Bash", "prefix", "npm run"),
    ("Bash(npm run   *)", "Bash(npm run *)", "Bash", "wildcard", "npm run"),
    ("Bash(cd /tmp&&npm:*)", "Bash(cd /tmp && npm:*)", "Bash", "prefix", "cd /tmp && npm"),
    ("Bash(a||b)", "Bash(a || b)", "Bash", "exact", "a || b"),
    ("Bash(a ;b)", "Bash(a; b)", "Bash", "exact", "a; b"),
    ("Bash(git log|head)", "Bash(git log | head)", "Bash", "exact", "git log | head"),
    ('Bash(echo "a  b")', 'Bash(echo "a  b")', "Bash", "exact", 'echo "a  b"'),
    ("Bash(echo 'x ; y')", "Bash(echo 'x ; y')", "Bash", "exact", "echo 'x ; y'"),
    ('Bash(echo ")")', 'Bash(echo ")")', "Bash", "exact", 'echo ")"'),
    ("Bash(echo a\\ )", "Bash(echo a\\ )", "Bash", "exact", "echo a\\ "),
    ("Bash(echo $HOME)", "Bash(echo $HOME)", "Bash", "exact", "echo $HOME"),
    ("Bash(echo $)", "Bash(echo $)", "Bash", "exact", "echo $"),
    (
        "Bash(git commit -m 'x':*)",
        "Bash(git commit -m 'x':*)",
        "Bash",
        "prefix",
        "git commit -m 'x'",
    ),
    ("Bash(a::*)", "Bash(a::*)", "Bash", "prefix", "a:"),
    # decisions: interpreters are fine when a script or subcommand is named, or exact
    (
        "Bash(python manage.py test:*)",
        "Bash(python manage.py test:*)",
        "Bash",
        "prefix",
        "python manage.py test",
    ),
    ("Bash(node)", "Bash(node)", "Bash", "exact", "node"),
    ("Bash(FOO=1 make:*)", "Bash(FOO=1 make:*)", "Bash", "prefix", "FOO=1 make"),
    # decisions: the root directory has exactly one spelling
    ("Read(//**)", "Read(//**)", "Read", "subpath", "/"),
    ("Read(//my dir/**)", "Read(//my dir/**)", "Read", "subpath", "/my dir"),
]


@pytest.mark.parametrize(("text", "canonical", "tool", "match", "body"), ACCEPTED)
def test_accepted_rule_parses_to_its_canonical_form(text, canonical, tool, match, body):
    rule = parsed(text)
    assert (rule.canonical, rule.tool, rule.match, rule.body) == (canonical, tool, match, body)
    assert parse_allow_rule_text(rule.canonical) == rule


# --------------------------------------------------------------------------- parse: rejected

REJECTED = [
    # seed 003: a bare * is a whole-tool grant; any other star placement has no rule form
    ("Bash(*)", "unsupported.wildcard"),
    ("Bash( *)", "unsupported.wildcard"),
    ("Bash(ls *.py)", "unsupported.wildcard"),
    ("Bash(a*:*)", "unsupported.wildcard"),
    ("Bash(echo '*')", "unsupported.wildcard"),  # decision: quoted stars too
    ("Bash(echo \\*)", "unsupported.wildcard"),  # decision: escaped stars too
    ("Bash(npm run:*:*)", "unsupported.wildcard"),
    # seed 003: "a translated Bash(node *) is refused invalid.bare_interpreter_prefix"
    ("Bash(node *)", "invalid.bare_interpreter_prefix"),
    ("Bash(node:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(python:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(python3.12 -u:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(/usr/bin/python3:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(bash -c:*)", "invalid.bare_interpreter_prefix"),
    ('Bash(sh "-c":*)', "invalid.bare_interpreter_prefix"),
    ("Bash(env FOO=1:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(timeout 5:*)", "invalid.bare_interpreter_prefix"),  # seed 003's wrapper words
    ("Bash(nice -n 10 *)", "invalid.bare_interpreter_prefix"),
    ("Bash(nohup:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(xargs:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(sudo:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(cd /tmp && python:*)", "invalid.bare_interpreter_prefix"),
    ("Bash(FOO=1 perl -e:*)", "invalid.bare_interpreter_prefix"),
    # seed 003: the trailing-star form has no compound reading
    ("Bash(cd /tmp && npm *)", "invalid.not_simple_command"),
    # seed 002/003: substitution, subshell, background, redirection have no rule text
    ("Bash(echo $(whoami))", "invalid.not_simple_command"),
    ('Bash(echo "$(whoami)")', "invalid.not_simple_command"),
    ("Bash(echo `whoami`)", "invalid.not_simple_command"),
    ("Bash(ls > out)", "invalid.not_simple_command"),
    ("Bash(cat < in)", "invalid.not_simple_command"),
    ("Bash(ls 2>&1)", "invalid.not_simple_command"),
    ("Bash(make &)", "invalid.not_simple_command"),
    ("Bash(make &> log)", "invalid.not_simple_command"),
    ("Bash(a |& b)", "invalid.not_simple_command"),
    ("Bash((cd x))", "invalid.not_simple_command"),
    ("Bash(diff <(ls) x)", "invalid.not_simple_command"),
    ("Bash(echo $'a')", "invalid.not_simple_command"),
    ("Bash(ls # note)", "invalid.not_simple_command"),
    ("Bash(if true:*)", "invalid.not_simple_command"),
    ("Bash({ ls; })", "invalid.not_simple_command"),
    ("Bash(ls) (x)", "invalid.not_simple_command"),
    # empty commands
    ("Bash()", "invalid.empty_command"),
    ("Bash(   )", "invalid.empty_command"),
    ("Bash(:*)", "invalid.empty_command"),
    ("Bash(a && && b)", "invalid.empty_command"),
    ("Bash(a;;b)", "invalid.empty_command"),
    ("Bash(a;)", "invalid.empty_command"),
    ("Bash(&& a)", "invalid.empty_command"),
    ("Bash(a ||:*)", "invalid.empty_command"),
    ("Bash(FOO=1)", "invalid.empty_command"),
    ("Bash(FOO=1:*)", "invalid.empty_command"),
    # quotes
    ("Bash(echo 'a)", "invalid.unbalanced_quotes"),
    ('Bash(echo "a)', "invalid.unbalanced_quotes"),
    ('Bash(echo "a\\")', "invalid.unbalanced_quotes"),
    ("Bash(echo a\\)", "invalid.unbalanced_quotes"),
    ("Bash(echo \\:*)", "invalid.unbalanced_quotes"),
    # control characters (seed 002: the rule-text class covers every control and zero-width)
    ("Bash(ls\tx)", "invalid.control_chars"),
    ("Bash(ls\nrm -rf /)", "invalid.control_chars"),
    ("Bash(git status\x1b[2K)", "invalid.control_chars"),
    ("Bash(git\u200bstatus)", "invalid.control_chars"),
    ("Bash(echo \u202egnp.exe)", "invalid.control_chars"),
    ("Bash(ls\u2028)", "invalid.control_chars"),
    ("Bash(ls \udcff)", "invalid.control_chars"),
    ("Bash(ls\x00)", "invalid.control_chars"),
    ("Read(//a\x7f/**)", "invalid.control_chars"),
    # length
    ("Bash(" + "a" * MAX_RULE_TEXT_LENGTH + ")", "invalid.too_long"),
    ("x" * (MAX_RULE_TEXT_LENGTH + 1), "invalid.too_long"),
    # seed 003: a Read directory body with a . or .. segment is refused, not normalized
    ("Read(//a/../b/**)", "invalid.path_traversal"),
    ("Read(//a/./b/**)", "invalid.path_traversal"),
    ("Read(//../**)", "invalid.path_traversal"),
    ("Read(//a/b/../**)", "invalid.path_traversal"),
    # Read speaks exactly one grammar
    ("Read(//a//b/**)", "invalid.grammar"),
    ("Read(///**)", "invalid.grammar"),
    ("Read(//a/b//**)", "invalid.grammar"),
    ("Read(/abs/dir/**)", "invalid.grammar"),
    ("Read(~/dir/**)", "invalid.grammar"),
    ("Read(./src/**)", "invalid.grammar"),
    ("Read(src/**)", "invalid.grammar"),
    ("Read(//abs/file.txt)", "invalid.grammar"),
    ("Read(./.env)", "invalid.grammar"),
    ("Read()", "invalid.grammar"),
    ("Read( //a/** )", "invalid.grammar"),
    ("Read(//a/*.py)", "unsupported.wildcard"),
    ("Read(//a/**/b/**)", "unsupported.wildcard"),
    ("Read(*)", "unsupported.wildcard"),
    # outer grammar (seed 002: " Bash" and "Bash\t(*)" spell no tool name)
    ("", "invalid.grammar"),
    ("Bash", "invalid.grammar"),
    ("Read", "invalid.grammar"),
    (" Bash(ls)", "invalid.grammar"),
    ("Bash (ls)", "invalid.grammar"),
    ("Bash(ls) ", "invalid.grammar"),
    ("Bash(ls", "invalid.grammar"),
    ("(ls)", "invalid.grammar"),
    ("Ba sh(ls)", "invalid.grammar"),
    ("Bash\t(*)", "invalid.control_chars"),
    # other tools
    ("Edit(src/**)", "unsupported.tool"),  # seed 002's example
    ("Write(//a/**)", "unsupported.tool"),
    ("WebFetch(domain:example.com)", "unsupported.tool"),
    ("bash(ls)", "unsupported.tool"),
    ("Glob", "unsupported.tool"),
    ("mcp__server__tool", "unsupported.tool"),
]


@pytest.mark.parametrize(("text", "code"), REJECTED)
def test_rejected_rule_carries_its_code_and_one_line_message(text, code):
    reject = parse_allow_rule_text(text)
    assert isinstance(reject, RuleReject), reject
    assert reject.code == code, reject
    assert reject.message and "\n" not in reject.message


def test_every_reject_code_is_exercised_by_the_table():
    assert {code for _, code in REJECTED} == set(REJECT_CODES)
    assert len(REJECT_CODES) == 10


def test_length_is_checked_before_anything_else():
    text = "Bash(\x1b" + "a" * MAX_RULE_TEXT_LENGTH + ")"
    reject = parse_allow_rule_text(text)
    assert isinstance(reject, RuleReject) and reject.code == "invalid.too_long"
    longest = "Bash(" + "a" * (MAX_RULE_TEXT_LENGTH - len("Bash()")) + ")"
    assert len(longest) == MAX_RULE_TEXT_LENGTH
    assert isinstance(parse_allow_rule_text(longest), ParsedRule)


def test_reject_messages_name_the_column_in_the_rule_text():
    reject = parse_allow_rule_text("Bash(ls > x)")
    assert isinstance(reject, RuleReject) and "column 9" in reject.message
    reject = parse_allow_rule_text("Bash(ls\x1b)")
    assert isinstance(reject, RuleReject) and "U+001B at column 8" in reject.message


# --------------------------------------------------------------------------- admits a command

ADMITS = [
    # seed 003: word boundary
    ("Bash(npm run:*)", "npm run", True),
    ("Bash(npm run:*)", "npm run build", True),
    ("Bash(npm run:*)", "npm run-x", False),
    ("Bash(npm run *)", "npm run-x", False),
    ("Bash(npm run *)", "npm run", True),
    ("Bash(npm run *)", "npm run build --watch", True),
    # seed 003: whitespace folds on both sides
    ("Bash(npm run *)", "npm  run  build", True),
    ("Bash(npm run:*)", "  npm\trun\tbuild  ", True),
    ("Bash(npm  run:*)", "npm run build", True),
    ("Bash(git status)", "git   status", True),
    ("Bash(git status)", "git status ", True),
    # seed 003: both sides refuse a chain against a single-command body
    ("Bash(npm run:*)", "npm run build && rm -rf /", False),
    ("Bash(npm run *)", "npm run build; rm -rf /", False),
    ("Bash(git status:*)", "git status | sh", False),
    ("Bash(git status:*)", "git status || curl x", False),
    ("Bash(git status)", "git status && git push", False),
    # seed 003: no leading-env-assignment stripping
    ("Bash(git status:*)", "FOO=1 git status", False),
    # seed 003: the candidate is never normalized (redirection, wrappers, xargs)
    ("Bash(git status:*)", "git status > out.txt", False),
    ("Bash(git status:*)", "timeout 5 git status", False),
    ("Bash(git status:*)", "nice git status", False),
    ("Bash(git status:*)", "nohup git status", False),
    ("Bash(git status:*)", "echo . | xargs git status", False),
    # exact admits the one string it spells
    ("Bash(git status)", "git status", True),
    ("Bash(git status)", "git status -s", False),
    ("Bash(git status)", "git", False),
    # the compound prefix: earlier segments exact, the last one extended
    ("Bash(cd /tmp && adb pull:*)", "cd /tmp && adb pull /sdcard/x", True),
    ("Bash(cd /tmp && adb pull:*)", "cd /tmp&&adb pull", True),
    ("Bash(cd /tmp && adb pull:*)", "adb pull /sdcard/x", False),
    ("Bash(cd /tmp && adb pull:*)", "cd /tmp/x && adb pull", False),
    ("Bash(cd /tmp && adb pull:*)", "cd /tmp; adb pull", False),
    ("Bash(cd /tmp && adb pull:*)", "cd /tmp && adb pull && rm -rf /", False),
    ("Bash(cd /tmp && adb pull:*)", "cd /tmp && adb pullx", False),
    ("Bash(cd /tmp && npm:*)", "cd /tmp && npm install", True),
    ("Bash(a || b)", "a||b", True),
    ("Bash(a | b)", "a || b", False),
    # decisions: a command the lexer cannot read is admitted by no rule
    ("Bash(echo:*)", "echo $(rm -rf /)", False),
    ("Bash(echo:*)", 'echo "$(rm -rf /)"', False),
    ("Bash(echo:*)", "echo `rm -rf /`", False),
    ("Bash(echo:*)", "echo 'unclosed", False),
    ("Bash(echo:*)", "echo x &", False),
    ("Bash(git status:*)", "git status\nrm -rf /", False),
    ("Bash(git status:*)", "git status\rrm -rf /", False),
    ("Bash(git status:*)", "git status \\\nrm", False),
    ("Bash(git status:*)", "git status\x1b[2K", False),
    ("Bash(git status:*)", "git status \u202e", False),
    ("Bash(echo:*)", "echo $'a' ; rm", False),
    ("Bash(echo:*)", "echo # ; rm", False),
    ("Bash(echo:*)", "", False),
    ("Bash(echo:*)", "   ", False),
    # decisions: quoting is compared as spelled, never unquoted (narrower, never wider)
    ("Bash(git log:*)", "git log 'a;b'", True),
    ("Bash(git log:*)", 'git log "--format=%H  x"', True),
    ("Bash(git status)", 'git "status"', False),
    ("Bash(echo a:*)", "echo a\\ b", False),
    ("Bash(echo a:*)", "echo a b", True),
    ("Bash(echo 'x  y':*)", "echo 'x  y' z", True),
    ("Bash(echo 'x  y':*)", "echo 'x y'", False),
    ("Bash(echo:*)", "echo $", True),
    ("Bash(echo:*)", "echo a$ b#", True),
    # stars in a candidate are just text
    ("Bash(ls:*)", "ls *.py", True),
    # a Read rule never admits a command
    ("Read(//tmp/**)", "cat /tmp/x", False),
    ("Read(//tmp/**)", "/tmp", False),
]


@pytest.mark.parametrize(("rule_text", "command", "admitted"), ADMITS)
def test_rule_admits_command(rule_text, command, admitted):
    rule = parsed(rule_text)
    answer = command_admission(rule, command)
    assert answer.admitted is admitted, answer.reason
    assert rule_admits_command(rule, command) is admitted
    assert answer.reason and "\n" not in answer.reason


def test_a_hand_built_rule_with_an_unreadable_body_admits_nothing():
    rule = ParsedRule("Bash(x)", "Bash", "exact", "echo 'x")
    assert not rule_admits_command(rule, "echo 'x")
    wildcard_chain = ParsedRule("Bash(a && b *)", "Bash", "wildcard", "a && b")
    assert not rule_admits_command(wildcard_chain, "a && b")


# --------------------------------------------------------------------------- paths

LEXICAL_NORMAL = [
    ("/", "/"),
    ("/a/b", "/a/b"),
    ("//a///b//", "/a/b"),
    ("/a/./b/.", "/a/b"),
    ("/a/b/../c", "/a/c"),
    ("/a/..", "/"),
    ("/a/b/../../", "/"),
    ("/..", None),
    ("/a/../..", None),
    ("/../a", None),
    ("a/b", None),
    ("./a", None),
    ("", None),
    ("~/x", None),
    ("/a\x00b", None),
]


@pytest.mark.parametrize(("path", "normal"), LEXICAL_NORMAL)
def test_lexical_normal_absolute_path_of(path, normal):
    assert lexical_normal_absolute_path_of(path) == normal


WITHIN = [
    ("/a", "/a", True),
    ("/a/b", "/a", True),
    ("/a/b/c", "/a", True),
    ("/ab", "/a", False),  # seed 003: /a never reaches /ab
    ("/a-b", "/a", False),
    ("/", "/a", False),
    ("/b", "/a", False),
    ("/a", "/a/b", False),
    ("/anything", "/", True),
    ("/", "/", True),
    # both sides must be canonical: otherwise fail closed
    ("/a/../b", "/a", False),
    ("/a/./b", "/a", False),
    ("/a//b", "/a", False),
    ("/a/b/", "/a", False),
    ("a/b", "a", False),
    ("/a/b", "/a/", False),
]


@pytest.mark.parametrize(("path", "root", "within"), WITHIN)
def test_path_within_root(path, root, within):
    assert path_within_root(path, root) is within


DIRECTORY_ADMITS = [
    ("Read(//srv/docs/**)", "/srv/docs", True),
    ("Read(//srv/docs/**)", "/srv/docs/a.md", True),
    ("Read(//srv/docs/**)", "/srv/docs/x/y/z", True),
    ("Read(//srv/docs/**)", "/srv/docsx", False),
    ("Read(//srv/docs/**)", "/srv", False),
    ("Read(//srv/docs/**)", "/etc/passwd", False),
    # seed 003: normalizes nothing, refuses non-normal spellings
    ("Read(//srv/docs/**)", "/srv/docs/../../etc/passwd", False),
    ("Read(//srv/docs/**)", "/srv/docs/./a", False),
    ("Read(//srv/docs/**)", "/srv//docs/a", False),
    ("Read(//srv/docs/**)", "srv/docs/a", False),
    ("Read(//srv/docs/**)", "/srv/docs/", False),
    ("Read(//**)", "/etc/passwd", True),
    ("Read(//**)", "relative", False),
    # a Bash rule never admits a path
    ("Bash(cat:*)", "/srv/docs/a.md", False),
]


@pytest.mark.parametrize(("rule_text", "path", "admitted"), DIRECTORY_ADMITS)
def test_directory_rule_admits(rule_text, path, admitted):
    assert directory_rule_admits(parsed(rule_text), path) is admitted


# --------------------------------------------------------------------------- breadth

BREADTH = [
    ("Bash(mkdir:*)", ["broad_prefix"]),  # seed 003's example
    ("Bash(mkdir *)", ["broad_prefix"]),
    ("Bash(FOO=1 mkdir:*)", ["broad_prefix"]),
    ("Bash(cd /tmp && npm:*)", ["compound_prefix"]),  # seed 003's example
    ("Bash(cd /tmp && npm install:*)", ["compound_prefix"]),
    ("Bash(npm run:*)", []),
    ("Bash(npm run *)", []),
    ("Bash(mkdir)", []),  # exact never warns
    ("Bash(cd /tmp && npm)", []),
    ("Read(//**)", []),  # subpath never warns
    ("Read(//a/**)", []),
]


@pytest.mark.parametrize(("rule_text", "codes"), BREADTH)
def test_breadth_warnings(rule_text, codes):
    warnings = rule_breadth_warnings_of(parsed(rule_text))
    assert [warning.code for warning in warnings] == codes
    assert all(warning.code in BREADTH_WARNING_CODES for warning in warnings)
    assert all(parsed(rule_text).canonical in warning.message for warning in warnings)


# --------------------------------------------------------------------------- library surface


def test_public_names_resolve_lazily_from_the_package_root():
    for name in toolgate_cli._LAZY_EXPORTS:
        assert getattr(toolgate_cli, name) is not None
    assert toolgate_cli.parse_allow_rule_text is parse_allow_rule_text
    assert "parse_allow_rule_text" in dir(toolgate_cli)


def test_format_allow_rule_text_spells_each_form():
    assert format_allow_rule_text("npm run", "prefix") == "Bash(npm run:*)"
    assert format_allow_rule_text("npm run", "wildcard") == "Bash(npm run *)"
    assert format_allow_rule_text("git status", "exact") == "Bash(git status)"
    assert format_allow_rule_text("/a/b", "subpath") == "Read(//a/b/**)"
    assert format_allow_rule_text("/", "subpath") == "Read(//**)"


# --------------------------------------------------------------------------- properties

_SAFE_WORD = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyz0123456789._/=-+,@%$#\\{}!~:", min_size=1, max_size=8
)
_QUOTED_WORD = st.builds(lambda s: f"'{s}'", st.text(alphabet='ab ;&|*()<>$"', max_size=6))
_DQUOTED_WORD = st.builds(lambda s: f'"{s}"', st.text(alphabet="ab ;&|'()<>", max_size=6))
_WORD = st.one_of(_SAFE_WORD, _SAFE_WORD, _SAFE_WORD, _QUOTED_WORD, _DQUOTED_WORD)
# extension words any shell reads as plain arguments (no comment, no dangling backslash)
_EXTENSION_WORD = st.one_of(
    st.text(alphabet="abcxyz0123456789._/=-+,@%:", min_size=1, max_size=8), _QUOTED_WORD
)
_GAP = st.sampled_from([" ", "  ", "   "])
_SEGMENT = st.lists(_WORD, min_size=1, max_size=4)
_CONNECTOR = st.sampled_from(["&&", "||", ";", "|", " && ", " ; ", " | "])


@st.composite
def bash_bodies(draw: st.DrawFn, *, max_segments: int = 3) -> str:
    segments = draw(st.lists(_SEGMENT, min_size=1, max_size=max_segments))
    parts = []
    for number, words in enumerate(segments):
        if number:
            parts.append(draw(_CONNECTOR))
        parts.append(draw(_GAP).join(words))
    return draw(_GAP) + "".join(parts) + draw(st.sampled_from(["", " ", "  "]))


@st.composite
def rule_texts(draw: st.DrawFn) -> str:
    body = draw(bash_bodies())
    suffix = draw(st.sampled_from([":*", " *", ""]))
    return f"Bash({body}{suffix})"


@settings(max_examples=400)
@given(
    st.one_of(
        st.text(),
        rule_texts(),
        st.builds(lambda s: f"Bash({s})", st.text()),
        st.builds(lambda s: f"Read(//{s}/**)", st.text()),
    )
)
@example("Bash(echo a\\ )")
@example("Read(//**)")
def test_parser_never_raises_and_canonical_text_parses_to_the_same_rule(text):
    rule = parse_allow_rule_text(text)
    if isinstance(rule, RuleReject):
        assert rule.code in REJECT_CODES
        assert rule.message and "\n" not in rule.message
        return
    event(f"accepted {rule.match}")
    again = parse_allow_rule_text(rule.canonical)
    assert again == rule
    assert format_allow_rule_text(rule.body, rule.match) == rule.canonical


@settings(max_examples=400)
@given(bash_bodies(), st.lists(_EXTENSION_WORD, max_size=3), st.sampled_from([":*", " *"]))
def test_a_prefix_rule_admits_its_own_body_and_whole_word_extensions(body, extra, suffix):
    rule = parse_allow_rule_text(f"Bash({body}{suffix})")
    assume(isinstance(rule, ParsedRule))
    assert isinstance(rule, ParsedRule)
    assert rule_admits_command(rule, rule.body)
    assert rule_admits_command(rule, body)  # the spelling it was written in, unfolded
    assert rule_admits_command(rule, " ".join([rule.body, *extra]))


@settings(max_examples=300)
@given(
    bash_bodies(max_segments=1),
    st.sampled_from(["&&", "||", ";", "|"]),
    _SEGMENT,
    st.sampled_from([":*", " *", ""]),
)
def test_a_single_command_body_never_admits_a_chain(body, connector, tail, suffix):
    rule = parse_allow_rule_text(f"Bash({body}{suffix})")
    assume(isinstance(rule, ParsedRule))
    assert isinstance(rule, ParsedRule)
    assert not rule_admits_command(rule, f"{rule.body} {connector} {' '.join(tail)}")
    assert not rule_admits_command(rule, f"{' '.join(tail)} {connector} {rule.body}")


@settings(max_examples=300)
@given(bash_bodies(), st.text(alphabet="abz-_", min_size=1, max_size=3))
def test_a_prefix_never_reaches_past_a_word_boundary(body, glued):
    rule = parse_allow_rule_text(f"Bash({body}:*)")
    assume(isinstance(rule, ParsedRule))
    assert isinstance(rule, ParsedRule)
    assert not rule_admits_command(rule, rule.body + glued)


_PATH_SEGMENT = st.sampled_from(["a", "b", "ab", "a-b", "a.b", ".", "..", "", "c d", "é"])


@st.composite
def path_spellings(draw: st.DrawFn) -> str:
    return "/" + "/".join(draw(st.lists(_PATH_SEGMENT, max_size=6)))


@settings(max_examples=500)
@given(path_spellings(), st.data())
def test_a_subpath_rule_never_admits_a_path_outside_its_directory(directory, data):
    rule = parse_allow_rule_text(format_allow_rule_text(directory, "subpath"))
    assume(isinstance(rule, ParsedRule))
    assert isinstance(rule, ParsedRule)
    # half the paths start with the directory's spelling: inside it, or a sibling like /ab
    tail = data.draw(path_spellings()).lstrip("/")
    glue = data.draw(st.sampled_from(["", "/", "x", "-"]))
    path = data.draw(st.sampled_from([rule.body.rstrip("/") + glue + tail, "/" + tail]))
    admitted = directory_rule_admits(rule, path)
    # independent oracle: the standard library's normal form and containment
    # (normpath keeps a POSIX leading "//", which is not the one-slash normal spelling)
    normal = path.startswith("/") and not path.startswith("//")
    normal = normal and posixpath.normpath(path) == path
    inside = normal and os.path.commonpath([rule.body, path]) == rule.body
    event(f"admitted={admitted}")
    assert admitted is inside


@settings(max_examples=500)
@given(path_spellings())
def test_lexical_normal_form_agrees_with_normpath_and_is_idempotent(path):
    normal = lexical_normal_absolute_path_of(path)
    depth = 0
    for segment in path.split("/"):
        if segment == "..":
            depth -= 1
            if depth < 0:
                break
        elif segment not in ("", "."):
            depth += 1
    if depth < 0:
        assert normal is None
        return
    assert normal is not None
    assert normal == posixpath.normpath("/" + path.lstrip("/"))
    assert lexical_normal_absolute_path_of(normal) == normal
    assert path_within_root(normal, "/")


@settings(max_examples=300)
@given(st.text())
def test_command_admission_never_raises(command):
    for rule_text in ("Bash(git status:*)", "Bash(cd /tmp && npm:*)", "Bash(ls)", "Read(//a/**)"):
        answer = command_admission(parsed(rule_text), command)
        assert isinstance(answer.admitted, bool)


# --------------------------------------------------------------------------- CLI


def no_traceback(result) -> None:
    assert "Traceback" not in result.stderr
    assert "Traceback" not in result.stdout


def test_cli_check_json_records_have_the_documented_shape():
    result = run_toolgate(
        ["rules", "check", "--json", "Bash(cd /tmp&&npm:*)", "Bash(mkdir:*)", "Bash(*)"]
    )
    assert result.returncode == 1, result.stderr
    records = json.loads(result.stdout)
    keys = {"rule", "ok", "canonical", "tool", "match", "reject", "warnings"}
    assert all(set(record) == keys for record in records)
    compound, broad, star = records
    assert compound["ok"] and compound["canonical"] == "Bash(cd /tmp && npm:*)"
    assert compound["match"] == "prefix" and compound["reject"] is None
    assert [w["code"] for w in compound["warnings"]] == ["compound_prefix"]
    assert [w["code"] for w in broad["warnings"]] == ["broad_prefix"]
    assert star["ok"] is False and star["canonical"] is None
    assert star["reject"]["code"] == "unsupported.wildcard" and star["reject"]["message"]


def test_cli_check_exit_status_follows_rejects_not_warnings():
    ok = run_toolgate(["rules", "check", "Bash(git status)", "Bash(mkdir:*)"])
    assert ok.returncode == 0
    assert "warning broad_prefix" in ok.stdout
    bad = run_toolgate(["rules", "check", "Bash(git status)", "Read(//a/../b/**)"])
    assert bad.returncode == 1
    assert "invalid.path_traversal" in bad.stdout
    no_traceback(bad)


def test_cli_check_without_rules_is_a_usage_error():
    result = run_toolgate(["rules", "check"])
    assert result.returncode == 2
    no_traceback(result)


def test_cli_check_escapes_control_characters_and_undecodable_bytes():
    result = run_toolgate(["rules", "check", "Bash(ls\x1b[31m)", b"Bash(\xff)"])
    assert result.returncode == 1
    assert "\x1b" not in result.stdout
    assert "\\x1b" in result.stdout
    assert "undecodable byte 0xFF" in result.stdout
    as_json = run_toolgate(["rules", "check", "--json", b"Bash(\xff)"])
    assert json.loads(as_json.stdout)[0]["reject"]["code"] == "invalid.control_chars"


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["Bash(npm run:*)", "--", "npm", "run", "build"], 0),
        (["Bash(npm run:*)", "--", "npm run-x"], 1),
        (["Bash(git status)", "--", "git status && rm -rf x"], 1),
        (["Bash(echo:*)", "--", "echo", "-n", "x"], 0),
        (["Read(//srv/docs/**)", "--path", "/srv/docs/a.md"], 0),
        (["Read(//srv/docs/**)", "--path", "/srv/docs/../docs/a.md"], 0),
        (["Read(//srv/docs/**)", "--path", "/srv/docsx"], 1),
        (["Read(//srv/docs/**)", "--", "cat", "/srv/docs/a"], 1),
        (["Bash(cat:*)", "--path", "/srv/docs/a"], 1),
    ],
)
def test_cli_admits_exit_status(args, status):
    result = run_toolgate(["rules", "admits", *args])
    assert result.returncode == status, (result.stdout, result.stderr)
    assert result.stdout.startswith("admitted:" if status == 0 else "not admitted:")
    no_traceback(result)


def test_cli_admits_resolves_a_relative_path_against_the_working_directory(tmp_path: Path):
    rule = format_allow_rule_text(str(tmp_path.resolve()), "subpath")
    inside = run_toolgate(["rules", "admits", rule, "--path", "sub/file"], cwd=tmp_path)
    assert inside.returncode == 0, inside.stderr
    outside = run_toolgate(["rules", "admits", rule, "--path", "../x"], cwd=tmp_path)
    assert outside.returncode == 1


def test_cli_admits_json():
    result = run_toolgate(["rules", "admits", "--json", "Bash(ls:*)", "--", "ls", "-la"])
    record = json.loads(result.stdout)
    assert result.returncode == 0
    assert record["admitted"] is True and record["command"] == "ls -la"
    assert record["path"] is None and record["rule"] == "Bash(ls:*)"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["Bash(ls)"], "give a COMMAND"),
        (["Bash(ls)", "--path", "/a", "--", "ls"], "not both"),
        (["Bash(*)", "--", "ls"], "unsupported.wildcard"),
        (["Read(//a/**)", "--path", "/.."], "no lexical-normal absolute spelling"),
    ],
)
def test_cli_admits_usage_errors_are_one_line(args, fragment):
    result = run_toolgate(["rules", "admits", *args])
    assert result.returncode == 2
    assert result.stdout == ""
    assert fragment in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    no_traceback(result)


def write_settings(tmp_path: Path, permissions: object) -> Path:
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"permissions": permissions}), encoding="utf-8")
    return path


def test_cli_import_report_groups_what_cannot_be_imported_by_reject_code(tmp_path: Path):
    path = write_settings(
        tmp_path,
        {
            "allow": ["Bash(git status)", "Bash(mkdir:*)", "Bash(*)", 7, "Edit(src/**)"],
            "ask": ["Bash(git push:*)"],
            "deny": ["Bash(rm:*)", "Read(./.env)"],
        },
    )
    result = run_toolgate(["rules", "import-report", "--json", str(path)])
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert set(report) == {"rules", "rejected_by_code"}
    records = report["rules"]
    keys = {"list", "index", "rule", "ok", "canonical", "tool", "match", "reject", "warnings"}
    assert all(set(record) == keys for record in records)
    assert [(r["list"], r["index"]) for r in records] == [
        ("allow", 0),
        ("allow", 1),
        ("allow", 2),
        ("allow", 3),
        ("allow", 4),
        ("ask", 0),
        ("deny", 0),
        ("deny", 1),
    ]
    assert [r["ok"] for r in records] == [True, True, False, False, False, True, True, False]
    assert records[1]["warnings"][0]["code"] == "broad_prefix"
    # a wide deny rule tightens; breadth is a property of a grant, so it is not warned
    assert records[6]["warnings"] == []
    grouped = report["rejected_by_code"]
    assert list(grouped) == ["invalid.grammar", "unsupported.tool", "unsupported.wildcard"]
    assert grouped["invalid.grammar"] == [
        {"list": "allow", "index": 3, "rule": "7"},
        {"list": "deny", "index": 1, "rule": "Read(./.env)"},
    ]
    assert grouped["unsupported.tool"] == [{"list": "allow", "index": 4, "rule": "Edit(src/**)"}]
    assert grouped["unsupported.wildcard"] == [{"list": "allow", "index": 2, "rule": "Bash(*)"}]
    text = run_toolgate(["rules", "import-report", str(path)])
    assert text.returncode == 1
    assert "4 of 8 rules can be imported" in text.stdout
    assert "  invalid.grammar (2):\n    allow[3] 7:" in text.stdout
    assert "    allow[2] Bash(*): Bash(*) grants every command" in text.stdout


def test_cli_import_report_of_an_importable_file_exits_zero(tmp_path: Path):
    path = write_settings(tmp_path, {"allow": ["Bash(mkdir:*)", "Bash(cd /tmp && npm:*)"]})
    result = run_toolgate(["rules", "import-report", str(path)])
    assert result.returncode == 0, result.stdout
    assert "broad_prefix" in result.stdout and "compound_prefix" in result.stdout
    assert "not importable" not in result.stdout


# The issue's example: every rule is valid Claude Code syntax, and the careful deny rule
# Read(./.env) is exactly what a user should have.
ISSUE_16_SETTINGS = {
    "allow": [
        "Read",
        "Bash(npm run test:*)",
        "Edit(src/**)",
        "WebFetch(domain:github.com)",
        "mcp__github__get_issue",
        "Read(./.env)",
        "Bash(git diff *)",
    ],
    "deny": ["Read(./.env)", "Bash(curl:*)"],
}


def test_cli_lint_passes_the_issues_valid_claude_code_rules(tmp_path: Path):
    path = write_settings(tmp_path, ISSUE_16_SETTINGS)
    result = run_toolgate(["rules", "lint", str(path)])
    assert result.returncode == 0, result.stdout
    assert "(Claude Code's rule syntax)" in result.stdout
    assert "9 rules: 0 errors, 2 warnings" in result.stdout
    assert "  deny[0] ok: Read(./.env)\n" in result.stdout
    assert "    warning whole_tool: Read names the whole tool" in result.stdout
    assert "    warning shadowed: deny[0] is the same rule" in result.stdout
    # the same file through the persisted grammar: 6 of 9 cannot be imported, each said why
    report = run_toolgate(["rules", "import-report", str(path)])
    assert report.returncode == 1
    assert "3 of 9 rules can be imported" in report.stdout


def test_cli_lint_json_records_have_the_documented_shape(tmp_path: Path):
    path = write_settings(
        tmp_path,
        {"allow": ["Raed", "Bash(mkdir:*)", 7, "Task(Explore)"], "deny": ["Bash(rm:*)"]},
    )
    result = run_toolgate(["rules", "lint", "--json", str(path)])
    assert result.returncode == 1
    records = json.loads(result.stdout)
    keys = {"list", "index", "rule", "ok", "tool", "specifier", "errors", "warnings"}
    assert all(set(record) == keys for record in records)
    typo, broad, number, legacy, deny = records
    assert typo["ok"] is False and typo["tool"] == "Raed" and typo["specifier"] is None
    assert [e["code"] for e in typo["errors"]] == ["unknown_tool"]
    assert broad["ok"] and [w["code"] for w in broad["warnings"]] == ["broad_prefix"]
    assert number["rule"] == "7" and number["tool"] is None
    assert [e["code"] for e in number["errors"]] == ["not_a_string"]
    assert legacy["tool"] == "Agent" and legacy["specifier"] == "Explore" and legacy["ok"]
    assert deny["list"] == "deny" and deny["ok"] and deny["warnings"] == []
    text = run_toolgate(["rules", "lint", str(path)])
    assert text.returncode == 1
    assert "  allow[0] error unknown_tool: Raed: 'Raed' is not a Claude Code tool" in text.stdout
    assert "5 rules: 2 errors, 1 warning" in text.stdout


def test_cli_lint_file_without_permissions_has_no_rules(tmp_path: Path):
    path = tmp_path / "settings.json"
    path.write_text('{"model": "x"}', encoding="utf-8")
    for command in ("lint", "import-report"):
        result = run_toolgate(["rules", command, "--json", str(path)])
        assert result.returncode == 0
        assert json.loads(result.stdout) in ([], {"rules": [], "rejected_by_code": {}})


def test_cli_lint_escapes_what_it_prints(tmp_path: Path):
    path = write_settings(tmp_path, {"allow": ["Bash(ls\x1b[31m)", "Raed\n"]})
    result = run_toolgate(["rules", "lint", str(path)])
    assert "\x1b" not in result.stdout
    assert "\\x1b" in result.stdout
    assert all(
        line.startswith(("  ", "/")) or " rules: " in line
        for line in result.stdout.splitlines()[1:]
    )


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (None, "cannot read"),
        (b"{", "is not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[]", "top level is not an object"),
        (b'{"permissions": []}', "'permissions' is not an object"),
        (b'{"permissions": {"deny": "Bash(ls)"}}', "'permissions.deny' is not a list"),
        (b"[" * 100_000, "nested too deeply"),
    ],
)
@pytest.mark.parametrize("command", ["lint", "import-report"])
def test_cli_lint_bad_files_are_one_line_errors(tmp_path: Path, content, fragment, command):
    path = tmp_path / "settings.json"
    if content is not None:
        path.write_bytes(content)
    result = run_toolgate(["rules", command, str(path)])
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stdout == ""
    assert fragment in result.stderr
    assert result.stderr.startswith(f"toolgate rules {command}: ")
    assert len(result.stderr.strip().splitlines()) == 1
    no_traceback(result)


@pytest.mark.parametrize("command", ["lint", "import-report"])
def test_cli_lint_a_directory_is_a_one_line_error(tmp_path: Path, command: str):
    result = run_toolgate(["rules", command, str(tmp_path)])
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("command", [[], ["check"], ["admits"], ["lint"], ["import-report"]])
def test_cli_every_help_carries_an_example(command):
    result = run_toolgate(["rules", *command, "--help"])
    assert result.returncode == 0
    assert "Example:" in result.stdout
    assert "toolgate rules" in result.stdout.split("Example:", 1)[1]


@pytest.mark.parametrize(
    ("command", "grammar"),
    [
        ("lint", "Claude Code's own rule syntax"),
        ("import-report", "persisted-rule grammar"),
        ("check", "persisted-rule grammar"),
        ("admits", "persisted grammar"),
    ],
)
def test_cli_every_help_says_which_grammar_it_speaks(command: str, grammar: str):
    result = run_toolgate(["rules", command, "--help"])
    assert grammar in " ".join(result.stdout.split())
    group = " ".join(run_toolgate(["rules", "--help"]).stdout.split())
    assert f"{command} " in group
