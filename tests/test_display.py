"""display.py: what a terminal draws must never differ from what runs."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolgate_cli.display import (
    BIDI_CONTROL_CHARS,
    cell_width,
    escape_char,
    escape_text,
    must_escape,
    needs_escape,
    shell_join,
    shell_quote,
)

# The seed's closed set (002, BIDI_CONTROL_CHARS), written out independently of the code.
SEED_BIDI = {0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}

INVISIBLE = [
    "\u200b",  # zero width space
    "\u200c",  # zero width non-joiner
    "\u200d",  # zero width joiner
    "\u2060",  # word joiner
    "\ufeff",  # BOM / zero width no-break space
    "\u00ad",  # soft hyphen
    "\u2028",  # line separator
    "\u2029",  # paragraph separator
    "\u00a0",  # no-break space: looks like a word break, is not
    "\u3000",  # ideographic space
    "\u3164",  # Hangul filler
    "\ufe0f",  # variation selector 16
    "\U000e0041",  # tag latin capital A (ASCII smuggling)
    "\ue000",  # private use
    "\u034f",  # combining grapheme joiner
]
CONTROLS = [chr(c) for c in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)]]
VISIBLE = ["a", "Z", "0", " ", "-", "é", "ß", "日", "本", "\u0301", "😀", "$", "'", '"', "\\"]


def test_bidi_set_is_the_seeds_closed_set():
    assert {ord(char) for char in BIDI_CONTROL_CHARS} == SEED_BIDI


@pytest.mark.parametrize("char", [chr(c) for c in sorted(SEED_BIDI)] + INVISIBLE + CONTROLS)
def test_dangerous_characters_are_shown_as_escapes(char):
    assert must_escape(char)
    shown = escape_text(f"a{char}b")
    assert char not in shown
    assert shown.startswith("a\\") and shown.endswith("b")


@pytest.mark.parametrize("char", VISIBLE)
def test_visible_characters_are_drawn_as_themselves(char):
    assert not must_escape(char)
    assert escape_text(f"a{char}b") == f"a{char}b"


def test_escape_forms():
    assert escape_char("\u202e") == "\\u202e"
    assert escape_char("\n") == "\\n"
    assert escape_char("\t") == "\\t"
    assert escape_char("\x1b") == "\\x1b"
    assert escape_char("\x7f") == "\\x7f"
    # C1 controls are characters (two UTF-8 bytes), not bytes: \u, never \x.
    assert escape_char("\x85") == "\\u0085"
    assert escape_char("\U000e0041") == "\\U000e0041"


def test_undecodable_bytes_are_shown_as_the_byte():
    word = b"opus\xff\x80".decode("utf-8", "surrogateescape")
    assert escape_text(word) == "opus\\xff\\x80"
    assert shell_quote(word) == "$'opus\\xff\\x80'"


@given(st.text())
def test_escaped_text_holds_nothing_that_must_be_escaped(text):
    shown = escape_text(text)
    assert not needs_escape(shown)
    if not needs_escape(text):
        assert shown == text


def test_plain_words_are_quoted_as_usual():
    assert shell_quote("claude") == "claude"
    assert shell_quote("review the diff") == "'review the diff'"
    assert shell_quote("") == "''"
    assert shell_quote("it's") == '"it\'s"'
    assert shell_quote("it's $HOME") == "$'it\\'s $HOME'"


def test_command_position_quotes_what_the_shell_would_not_run():
    assert shell_quote("if", command_position=True) == "'if'"
    assert shell_quote("A=b", command_position=True) == "'A=b'"
    assert shell_quote("A=b") == "A=b"
    assert shell_quote("claude", command_position=True) == "claude"


def test_shell_join_says_when_it_escaped():
    assert not shell_join(["claude", "-p", "review the diff"]).escaped
    line = shell_join(["claude", "-p", "review \u202ethe diff"])
    assert line.escaped
    assert line.text == "claude -p $'review \\u202ethe diff'"
    # A quote needs $'...' but hides nothing: not "escaped".
    assert not shell_join(["claude", "-p", "it's $1"]).escaped


def test_shell_join_prefixes_cwd_and_env():
    line = shell_join(["codex", "exec", "x y"], {"A": "1 2", "B": None}, "/tmp/my dir")
    assert line.text == "cd '/tmp/my dir' && env -u B 'A=1 2' codex exec 'x y'"


# --- round trips through a real shell ------------------------------------------------------

ROUND_TRIP_SCRIPT = 'printf "%s\\0" "$@"'


def _argv_from_shell(shell: str, line: str) -> list[bytes]:
    """Run `line` with its command replaced by a function that prints its argv NUL-separated."""
    script = f"toolgate_probe() {{ {ROUND_TRIP_SCRIPT}; }}\ntoolgate_probe {line}\n"
    result = subprocess.run(
        [shell, "-c", script],
        capture_output=True,
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
        check=True,
        timeout=10,
    )
    return result.stdout.split(b"\0")[:-1]


def _bytes(word: str) -> bytes:
    return word.encode("utf-8", "surrogateescape")


argv_words = st.lists(
    st.one_of(
        st.text(),
        st.binary(max_size=8).map(lambda b: b.decode("utf-8", "surrogateescape")),
        st.sampled_from([*map(chr, SEED_BIDI), *INVISIBLE, "\n", "'", "\\", "$(id)", "`id`", "!"]),
    ).filter(lambda word: "\0" not in word),
    min_size=1,
    max_size=6,
)


@pytest.mark.parametrize("shell", ["bash", "zsh"])
@settings(max_examples=60, deadline=None)
@given(words=argv_words)
@example(words=["=0"])  # zsh's EQUALS expansion: found by hypothesis
def test_pasting_the_line_runs_the_same_argv(shell, words):
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    line = shell_join(["toolgate_probe", *words])
    assert not needs_escape(line.text), "the displayed line must hold no hidden character"
    # Drop the command word: the probe function stands in for it.
    arguments = line.text.split(" ", 1)[1]
    assert _argv_from_shell(shell, arguments) == [_bytes(word) for word in words]


@settings(max_examples=40, deadline=None)
@given(words=argv_words, width=st.integers(min_value=10, max_value=80))
def test_a_wrapped_line_is_the_same_argv(words, width):
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    line = shell_join(["toolgate_probe", *words])
    pasted = "\n".join(line.wrapped(width))
    assert _argv_from_shell("bash", pasted.split(" ", 1)[1]) == [_bytes(word) for word in words]


def test_wrapped_keeps_an_option_with_its_values():
    line = shell_join(["claude", "--tools", "Read,Glob", "--model", "opus", "-p", "a b c d e"])
    lines = line.wrapped(20)
    assert lines == [
        "claude \\",
        "    --tools Read,Glob \\",
        "    --model opus \\",
        "    -p 'a b c d e'",
    ]
    assert line.wrapped(200) == [line.text]


def test_wrapped_counts_terminal_columns_not_characters():
    line = shell_join(["claude", "-p", "東京東京東京", "--model", "opus"])
    assert len(line.text) <= 34 < cell_width(line.text)
    assert line.wrapped(34) == ["claude \\", "    -p '東京東京東京' \\", "    --model opus"]


def test_wrapped_honours_given_group_starts():
    line = shell_join(["claude", "-p", "--model", "opus", "prompt words"])
    # -p is a flag, the prompt its own unit: start a line at index 3 (the prompt).
    assert line.wrapped(20, starts={0, 1, 3}) == [
        "claude \\",
        "    -p \\",
        "    --model opus \\",
        "    'prompt words'",
    ]


def test_ordinary_text_of_many_scripts_is_drawn_as_itself():
    sample = "Grüße, 東京! Привет; שלום? 123 + 4 = ½ → ✓ 😀"
    assert [char for char in sample if must_escape(char)] == []
