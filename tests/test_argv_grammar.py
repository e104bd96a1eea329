"""The argv grammar: toolgate must split a lane's words exactly as the lane's own parser does.

Each test is a spelling the parsers accept (or reject) and the reading toolgate must agree on.
Where it matters, the reading is checked against the independent parser models in
`tests/reference_parsers.py` (commander.js for claude, clap for codex).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.reference_parsers import ParseError, clap_parse, commander_parse
from toolgate_cli.argv import (
    Action,
    ArgvError,
    Arity,
    Dialect,
    FlagSpec,
    FlagTable,
    Item,
    ItemKind,
    looks_like_option,
    tokenize,
)
from toolgate_cli.lanes import claude, codex, copilot

LANES_DIR = Path(__file__).resolve().parent / "data" / "lane-help"
"""The measured help texts, in the checkout so that the test runs wherever the tests run (it
read them from outside the checkout and skipped where they were not)."""

KEEP = Action.KEEP
SMALL = FlagTable(
    (
        FlagSpec(("--print", "-p"), Arity.FLAG, KEEP, ""),
        FlagSpec(("--continue", "-c"), Arity.FLAG, KEEP, ""),
        FlagSpec(("--name", "-n"), Arity.VALUE, KEEP, ""),
        FlagSpec(("--sandbox", "-s"), Arity.VALUE, KEEP, ""),
        FlagSpec(("--debug", "-d"), Arity.OPTIONAL, KEEP, ""),
        FlagSpec(("--tools", "-t"), Arity.VARIADIC, KEEP, ""),
        FlagSpec(("--allow-tool",), Arity.ANY, KEEP, ""),
    )
)


def options(items: list[Item]) -> list[tuple[str, tuple[str, ...]]]:
    """The option items as (canonical name, values)."""
    return [
        (item.spec.canonical, item.values)
        for item in items
        if item.kind is ItemKind.OPTION and item.spec is not None
    ]


def positionals(items: list[Item], args: list[str]) -> list[str]:
    return [args[item.start] for item in items if item.kind is ItemKind.POSITIONAL]


def read(args: list[str], dialect: Dialect, table: FlagTable = SMALL) -> list[Item]:
    items, stop = tokenize(args, table, dialect)
    assert stop == len(args)
    return items


# --- `--flag value` and `--flag=value` -------------------------------------------------------


@pytest.mark.parametrize("dialect", list(Dialect))
def test_long_option_takes_the_next_word_as_its_value(dialect: Dialect) -> None:
    items = read(["--name", "alpha", "prompt"], dialect)
    assert options(items) == [("--name", ("alpha",))]
    assert positionals(items, ["--name", "alpha", "prompt"]) == ["prompt"]


@pytest.mark.parametrize("dialect", list(Dialect))
def test_equals_form_splits_at_the_first_equals_only(dialect: Dialect) -> None:
    items = read(["--name=a=b", "prompt"], dialect)
    assert options(items) == [("--name", ("a=b",))]
    assert items[0].end == 1


@pytest.mark.parametrize("dialect", list(Dialect))
def test_equals_form_with_an_empty_value_is_an_empty_value(dialect: Dialect) -> None:
    assert options(read(["--name="], dialect)) == [("--name", ("",))]


@pytest.mark.parametrize("dialect", list(Dialect))
def test_a_flag_given_a_value_with_equals_is_an_error_naming_the_flag(dialect: Dialect) -> None:
    with pytest.raises(ArgvError) as caught:
        tokenize(["--print=yes"], SMALL, dialect)
    assert caught.value.word == "--print"


@pytest.mark.parametrize("dialect", list(Dialect))
def test_a_value_option_at_the_end_is_missing_its_value(dialect: Dialect) -> None:
    with pytest.raises(ArgvError) as caught:
        tokenize(["-p", "--name"], SMALL, dialect)
    assert caught.value.word == "--name"
    assert "needs a value" in caught.value.message


@pytest.mark.parametrize("dialect", list(Dialect))
def test_an_unknown_long_option_is_an_error_naming_it_without_its_value(dialect: Dialect) -> None:
    with pytest.raises(ArgvError) as caught:
        tokenize(["--frobnicate=3"], SMALL, dialect)
    assert caught.value.word == "--frobnicate"


@pytest.mark.parametrize("dialect", list(Dialect))
def test_an_unknown_short_letter_in_a_glued_word_is_named(dialect: Dialect) -> None:
    with pytest.raises(ArgvError) as caught:
        tokenize(["-pz"], SMALL, dialect)
    assert caught.value.word == "-z"


# --- short forms -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "words", [["-s", "read-only"], ["-sread-only"], ["-s=read-only"], ["--sandbox=read-only"]]
)
def test_clap_reads_every_short_spelling_of_a_value(words: list[str]) -> None:
    assert options(read(words, Dialect.CLAP)) == [("--sandbox", ("read-only",))]
    reference = clap_parse(words, SMALL.specs)
    assert [(e.name, e.values) for e in reference.events] == [("--sandbox", ["read-only"])]


def test_commander_keeps_the_equals_of_a_glued_short_value() -> None:
    # commander passes `arg.slice(2)` on: `-n=x` names the session "=x"; clap would drop the `=`.
    assert options(read(["-n=x"], Dialect.COMMANDER)) == [("--name", ("=x",))]
    assert commander_parse(["-n=x"], SMALL.specs).events[0].values == ["=x"]


def test_commander_glued_boolean_flags_are_one_item_each_sharing_the_word() -> None:
    items = read(["-pc", "prompt"], Dialect.COMMANDER)
    assert options(items) == [("--print", ()), ("--continue", ())]
    assert all(item.glued and (item.start, item.end) == (0, 1) for item in items[:2])
    assert positionals(items, ["-pc", "prompt"]) == ["prompt"]


def test_commander_glued_flags_end_in_an_option_that_takes_the_rest_as_its_value() -> None:
    assert options(read(["-pcnNAME"], Dialect.COMMANDER)) == [
        ("--print", ()),
        ("--continue", ()),
        ("--name", ("NAME",)),
    ]


def test_commander_glued_flags_ending_in_a_value_option_take_the_next_word() -> None:
    args = ["-pn", "NAME", "prompt"]
    items = read(args, Dialect.COMMANDER)
    assert options(items) == [("--print", ()), ("--name", ("NAME",))]
    assert positionals(items, args) == ["prompt"]
    reference = commander_parse(args, SMALL.specs)
    assert [(e.name, e.values) for e in reference.events] == [
        ("--print", []),
        ("--name", ["NAME"]),
    ]


def test_a_short_value_option_glued_to_a_value_is_not_marked_glued() -> None:
    # `-nNAME` is one option; only words holding several options are "glued".
    items = read(["-nNAME"], Dialect.COMMANDER)
    assert options(items) == [("--name", ("NAME",))]
    assert not items[0].glued


def test_a_glued_flag_given_a_value_with_equals_is_an_error() -> None:
    with pytest.raises(ArgvError):
        tokenize(["-p=x"], SMALL, Dialect.COMMANDER)


def test_a_glued_word_ending_in_dash_is_refused_not_read_as_a_terminator() -> None:
    # commander reads `-p-` as `-p` then pushes back `--`, which ends the options: everything
    # after it becomes prompt text. toolgate must not silently read it another way.
    with pytest.raises(ArgvError):
        tokenize(["-p-", "--dangerously-skip-permissions"], claude.FLAGS, Dialect.COMMANDER)
    reference = commander_parse(["-p-", "--dangerously-skip-permissions"], claude.FLAGS.specs)
    assert reference.operands == ["--dangerously-skip-permissions"]


# --- optional values (commander `[value]`) -----------------------------------------------------


@pytest.mark.parametrize(
    ("args", "value"),
    [
        (["--debug", "api"], ("api",)),
        (["--debug", "-p"], ()),
        (["--debug"], ()),
        (["--debug", "--"], ()),
        (["-dapi"], ("api",)),
        (["--debug=api"], ("api",)),
    ],
)
def test_commander_optional_value_is_taken_only_when_it_does_not_look_like_an_option(
    args: list[str], value: tuple[str, ...]
) -> None:
    items = read(args, Dialect.COMMANDER)
    assert options(items)[0] == ("--debug", value)
    reference = commander_parse(args, SMALL.specs)
    assert tuple(reference.events[0].values) == value


# --- variadic options --------------------------------------------------------------------------


def test_commander_variadic_takes_words_until_one_starts_with_a_dash() -> None:
    args = ["--tools", "Write", "Edit", "Bash", "-p", "prompt"]
    items = read(args, Dialect.COMMANDER)
    assert options(items) == [("--tools", ("Write", "Edit", "Bash")), ("--print", ())]
    assert positionals(items, args) == ["prompt"]
    assert items[0].end == 4


def test_a_variadic_swallows_what_looks_like_a_prompt_as_the_lane_does() -> None:
    args = ["-p", "--tools", "Read", "review the diff"]
    items = read(args, Dialect.COMMANDER)
    assert options(items)[-1] == ("--tools", ("Read", "review the diff"))
    assert positionals(items, args) == []
    assert commander_parse(args, SMALL.specs).operands == []


def test_the_equals_spelling_of_a_variadic_takes_one_value_and_stops() -> None:
    args = ["--tools=Bash,Write", "review the diff"]
    items = read(args, Dialect.COMMANDER)
    assert options(items) == [("--tools", ("Bash,Write",))]
    assert positionals(items, args) == ["review the diff"]
    assert commander_parse(args, SMALL.specs).operands == ["review the diff"]


def test_commander_variadic_first_value_may_start_with_a_dash() -> None:
    # commander shifts the first value of a required option whatever it looks like.
    items = read(["--tools", "-p", "x"], Dialect.COMMANDER)
    assert options(items) == [("--tools", ("-p", "x"))]


def test_commander_required_value_swallows_a_bypass_flag_as_plain_text() -> None:
    args = ["--name", "--dangerously-skip-permissions", "prompt"]
    items = read(args, Dialect.COMMANDER, claude.FLAGS)
    assert options(items) == [("--name", ("--dangerously-skip-permissions",))]
    reference = commander_parse(args, claude.FLAGS.specs)
    assert [e.name for e in reference.events] == ["--name"]


def test_commander_required_value_may_be_a_double_dash_and_parsing_goes_on() -> None:
    args = ["--name", "--", "--dangerously-skip-permissions"]
    items = read(args, Dialect.COMMANDER, claude.FLAGS)
    assert options(items) == [
        ("--name", ("--",)),
        ("--dangerously-skip-permissions", ()),
    ]
    reference = commander_parse(args, claude.FLAGS.specs)
    assert [e.name for e in reference.events] == ["--name", "--dangerously-skip-permissions"]


@pytest.mark.parametrize("value", ["-x", "--", "--yolo"])
def test_clap_refuses_a_value_that_looks_like_an_option(value: str) -> None:
    table = codex.EXEC_FLAGS
    with pytest.raises(ArgvError):
        tokenize(["-m", value, "prompt"], table, Dialect.CLAP)
    with pytest.raises(ParseError):
        clap_parse(["-m", value, "prompt"], table.specs)


def test_clap_multi_value_option_takes_words_until_a_dash_word() -> None:
    args = ["-i", "a.png", "b.png", "--json", "prompt"]
    items = read(args, Dialect.CLAP, codex.EXEC_FLAGS)
    assert options(items) == [("--image", ("a.png", "b.png")), ("--json", ())]
    assert positionals(items, args) == ["prompt"]


def test_clap_multi_value_option_keeps_a_subcommand_name_as_a_value() -> None:
    # clap does not look for a subcommand while an option is collecting values.
    args = ["-i", "a.png", "resume"]
    items, stop = tokenize(
        args, codex.EXEC_FLAGS, Dialect.CLAP, stop_at_positional=lambda w: w == "resume"
    )
    assert stop == len(args)
    assert options(items) == [("--image", ("a.png", "resume"))]
    assert clap_parse(args, codex.EXEC_FLAGS.specs, ["resume"]).stopped_at == len(args)


# --- zero-or-more options (clap `num_args(0..)`, copilot's `--allow-tool [<tools>...]`) -------


@pytest.mark.parametrize(
    ("args", "values", "operands"),
    [
        (["--allow-tool", "shell", "write", "-p"], ("shell", "write"), []),
        (["--allow-tool", "-p"], (), []),
        (["--allow-tool"], (), []),
        (["--allow-tool", "--", "x"], (), ["x"]),
        (["--allow-tool=shell", "write"], ("shell",), ["write"]),
        (["--allow-tool=", "write"], ("",), ["write"]),
    ],
)
def test_a_zero_or_more_option_takes_words_up_to_a_dash_word_and_may_take_none(
    args: list[str], values: tuple[str, ...], operands: list[str]
) -> None:
    items = read(args, Dialect.CLAP)
    assert options(items)[0] == ("--allow-tool", values)
    # Words after `--` are the tail item, not positionals, to toolgate; clap hands both over.
    assert positionals(items, args) == ([] if "--" in args else operands)
    reference = clap_parse(args, SMALL.specs)
    assert tuple(reference.events[0].values) == values
    assert reference.operands == operands


def test_clap_reads_a_subcommand_name_after_an_open_zero_or_more_option_as_its_value() -> None:
    # Measured with copilot 1.0.102: `copilot --allow-tool a mcp --help` prints the top-level
    # help (`mcp` went to --allow-tool), and `--share mcp --help` too (an optional value).
    for args in (["--allow-tool", "mcp"], ["--allow-tool", "a", "mcp"], ["--share", "mcp"]):
        items, stop = tokenize(args, copilot.FLAGS, Dialect.CLAP, stop_at_positional=lambda _: True)
        assert stop == len(args), args
        assert options(items)[0][1][-1] == "mcp"
        assert clap_parse(args, copilot.FLAGS.specs, ["mcp"]).stopped_at == len(args)


def test_clap_stops_at_a_subcommand_after_a_closed_zero_or_more_option() -> None:
    args = ["--allow-tool=a", "mcp", "list"]
    _, stop = tokenize(args, copilot.FLAGS, Dialect.CLAP, stop_at_positional=lambda _: True)
    assert stop == 1
    assert clap_parse(args, copilot.FLAGS.specs, ["mcp"]).stopped_at == 1


def test_clap_optional_value_is_not_a_word_that_looks_like_an_option() -> None:
    args = ["--share", "-p", "x"]
    items = read(args, Dialect.CLAP, copilot.FLAGS)
    assert options(items) == [("--share", ()), ("--prompt", ("x",))]
    reference = clap_parse(args, copilot.FLAGS.specs)
    assert [(e.name, e.values) for e in reference.events] == [
        ("--share", []),
        ("--prompt", ["x"]),
    ]


def test_clap_short_optional_values_drop_the_equals() -> None:
    for word in ("-rabc", "-r=abc"):
        assert options(read([word], Dialect.CLAP, copilot.FLAGS)) == [("--resume", ("abc",))]


@pytest.mark.parametrize("dialect", list(Dialect))
def test_a_glued_group_ending_in_a_variadic_keeps_its_span_and_glue(dialect: Dialect) -> None:
    args = ["-pt", "Read", "Grep", "--", "x"]
    items = read(args, dialect)
    assert options(items) == [("--print", ()), ("--tools", ("Read", "Grep"))]
    assert all(item.glued and item.start == 0 for item in items[:2])
    assert items[1].end == 3


def test_a_large_variadic_is_read_whole() -> None:
    words = [f"Tool{n}" for n in range(100_000)]
    items = read(["--tools", *words, "-p"], Dialect.COMMANDER)
    assert options(items) == [("--tools", tuple(words)), ("--print", ())]


# --- `--` ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", list(Dialect))
def test_double_dash_ends_options_and_the_tail_is_one_untouched_item(dialect: Dialect) -> None:
    args = ["-p", "--", "--name", "-x", "--", "words"]
    items = read(args, dialect)
    assert options(items) == [("--print", ())]
    assert items[-1].kind is ItemKind.TAIL
    assert (items[-1].start, items[-1].end) == (1, len(args))


@pytest.mark.parametrize("dialect", list(Dialect))
def test_double_dash_ends_a_variadic(dialect: Dialect) -> None:
    args = ["--tools", "Read", "--", "Write"]
    items = read(args, dialect)
    assert options(items) == [("--tools", ("Read",))]
    assert items[-1].kind is ItemKind.TAIL and items[-1].start == 2


def test_a_lone_dash_is_a_positional() -> None:
    assert not looks_like_option("-")
    assert looks_like_option("--")
    items = read(["-"], Dialect.CLAP)
    assert items[0].kind is ItemKind.POSITIONAL


# --- subcommand hand-off -------------------------------------------------------------------------


def test_stop_at_positional_returns_where_the_subcommand_starts() -> None:
    args = ["-m", "gpt-5", "exec", "--json"]
    items, stop = tokenize(args, codex.TOP_FLAGS, Dialect.CLAP, stop_at_positional=lambda _: True)
    assert stop == 2
    assert options(items) == [("--model", ("gpt-5",))]


def test_tokenize_can_start_in_the_middle() -> None:
    args = ["exec", "--json", "prompt"]
    items, stop = tokenize(args, codex.EXEC_FLAGS, Dialect.CLAP, start=1)
    assert stop == 3
    assert options(items) == [("--json", ())]
    assert items[0].start == 1


# --- the tables ----------------------------------------------------------------------------------


def test_a_table_refuses_a_name_declared_twice() -> None:
    with pytest.raises(ValueError, match="--x"):
        FlagTable(
            (
                FlagSpec(("--x",), Arity.FLAG, KEEP, ""),
                FlagSpec(("--y", "--x"), Arity.FLAG, KEEP, ""),
            )
        )


_ARITY_OF_PLACEHOLDER = (
    (re.compile(r"\[<[^>]*>\.\.\.\]"), Arity.ANY),
    (re.compile(r"<[^>]*\.\.\.>|<[^>]*>\.\.\."), Arity.VARIADIC),
    (re.compile(r"<[^>]*>"), Arity.VALUE),
    (re.compile(r"\[[^\]]*\]"), Arity.OPTIONAL),
)
_OPTION_LINE = re.compile(r"^\s{2,6}(-[^\s,]+(?:, -[^\s,]+)*)(?: ([<\[][^\s]*(?:\.\.\.)?))?")


def help_options(path: Path) -> dict[str, Arity]:
    """Every option a help text lists, by each of its names, with the arity it shows."""
    found: dict[str, Arity] = {}
    in_options = False
    for line in path.read_text().splitlines():
        if line.rstrip().endswith(("Options:", "options:")):
            in_options = True
            continue
        if in_options and line and not line.startswith(" "):
            in_options = False
        match = _OPTION_LINE.match(line) if in_options else None
        if match is None:
            continue
        placeholder = match.group(2) or ""
        arity = Arity.FLAG
        for pattern, candidate in _ARITY_OF_PLACEHOLDER:
            if pattern.fullmatch(placeholder):
                arity = candidate
                break
        for name in match.group(1).split(", "):
            found[name] = arity
    return found


# Arity the help text cannot show, with the reason the table differs.
HELP_ARITY_EXCEPTIONS = {
    # Help shows `--tmux` bare but documents `--tmux=classic`: commander `[value]`.
    ("claude", "--tmux"): Arity.OPTIONAL,
}


@pytest.mark.parametrize(
    ("lane", "help_file", "table"),
    [
        ("claude", "claude-2.1.197.help.txt", claude.FLAGS),
        ("claude", "claude-2.1.332.help.txt", claude.FLAGS),
        ("codex", "codex-0.171.0.help.txt", codex.TOP_FLAGS),
        ("codex", "codex-0.171.0-exec.help.txt", codex.EXEC_FLAGS),
        ("codex", "codex-0.171.0-review.help.txt", codex.REVIEW_FLAGS),
        ("copilot", "copilot-1.0.102.help.txt", copilot.FLAGS),
    ],
)
def test_the_tables_cover_every_option_in_the_help_texts_with_its_arity(
    lane: str, help_file: str, table: FlagTable
) -> None:
    listed = help_options(LANES_DIR / help_file)
    assert len(listed) > 10, "the help parser found too few options to be trusted"
    missing = sorted(name for name in listed if table.get(name) is None)
    assert missing == [], f"{help_file}: options the table does not know"
    wrong = {
        name: (table_spec.arity, shown)
        for name, shown in listed.items()
        if (table_spec := table.get(name)) is not None
        and table_spec.arity is not HELP_ARITY_EXCEPTIONS.get((lane, name), shown)
    }
    assert wrong == {}, f"{help_file}: table arity differs from the help text"


def test_the_copilot_table_covers_every_option_of_its_completion_script_with_its_arity() -> None:
    """copilot's own completion script is generated from its clap command, hidden options
    included (`--config-dir`, `--server`, `-w/--worktree`, `--prefer-version`, ...): the table
    knows each, and reads its value the way the script skips words."""
    listed = {}
    for line in (
        (LANES_DIR.parent / "lane-completion" / "copilot-1.0.102.completion-options.txt")
        .read_text()
        .splitlines()
    ):
        if line and not line.startswith("#"):
            name, kind = line.split()
            listed[name] = kind
    assert len(listed) > 100
    missing = sorted(name for name in listed if copilot.FLAGS.get(name) is None)
    assert missing == []
    expected = {
        "flag": {Arity.FLAG},
        "value": {Arity.VALUE},
        "optional": {Arity.OPTIONAL, Arity.ANY},
    }
    wrong = {
        name: (spec.arity, kind)
        for name, kind in listed.items()
        if (spec := copilot.FLAGS.get(name)) is not None and spec.arity not in expected[kind]
    }
    assert wrong == {}
    unlisted = sorted(set(copilot.FLAGS.names()) - set(listed))
    assert unlisted == [], "the table knows options copilot 1.0.102 does not have"


@pytest.mark.parametrize("table", [claude.FLAGS, codex.TOP_FLAGS, codex.EXEC_FLAGS, copilot.FLAGS])
def test_every_spelling_of_every_option_reads_as_that_option(table: FlagTable) -> None:
    dialect = Dialect.COMMANDER if table is claude.FLAGS else Dialect.CLAP
    for spec in table.specs:
        for name in spec.names:
            args = [name] if spec.arity is Arity.FLAG else [name, "value"]
            items, _ = tokenize(args, table, dialect)
            assert options(items)[0][0] == spec.canonical, name
