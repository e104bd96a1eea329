"""Properties of the read-only rewrite over argv generated from each lane's own flag table.

Every option of the table, in every spelling (long, alias, short, `--x=v`, `-xv`, clap `-x=v`,
glued short flags) and every value form (none, one, several, values that look like flags),
mixed with junk words, prompts, subcommand names and a `--` tail. For each input:

- it ends in exactly one of Rewritten or RewriteRefused, and no exception escapes;
- a refusal is one non-empty line;
- a rewrite is read-only as the lane's own parser reads it (`lane_checks`): no bypass flag, no
  second permission mode or sandbox, no kept refuse/strip flag;
- rewriting the output again gives the same argv (idempotent);
- everything after a real `--` terminator is untouched;
- kept flags keep their relative order and values, and positionals keep their order.

Inputs are read with the independent parser models in `reference_parsers.py`, not with
toolgate's tokenizer.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.lane_checks import (
    CLAUDE_SUBCOMMANDS,
    CODEX_READ_ONLY,
    CODEX_SUBCOMMANDS,
    COPILOT_READ_ONLY,
    COPILOT_SUBCOMMANDS,
    assert_claude_read_only,
    assert_codex_read_only,
    assert_copilot_read_only,
    claude_parse,
    codex_parse,
    copilot_parse,
)
from tests.reference_parsers import Event, ParseError
from toolgate_cli.argv import Action, Arity, FlagSpec, FlagTable
from toolgate_cli.lanes import (
    LaneInvocation,
    RewriteRefused,
    Rewritten,
    claude,
    codex,
    copilot,
    read_only_invoke,
)
from toolgate_cli.lanes.base import PassFlag, RewriteOptions

PROFILE = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)

CODEX_GUARDS = [word for word in CODEX_READ_ONLY if word.startswith("-")]
PASS_FLAGS = (PassFlag("--extra"), PassFlag("--extra-value", takes_value=True), PassFlag("-X"))

JUNK = [
    "review the diff",
    "What changed?",
    "x y",
    "review",
    "fix",
    "-",
    "--",
    "--frobnicate",
    "-z",
    "--extra",
    "--extra-value",
    "-X",
    "",
    "a=b",
    "two\nlines",
]
BYPASS_WORDS = [
    "--dangerously-skip-permissions",
    "--permission-mode",
    "bypassPermissions",
    "--allowedTools",
    "Write",
    "--yolo",
    "--dangerously-bypass-approvals-and-sandbox",
    "-s",
    "danger-full-access",
    "--sandbox=workspace-write",
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("props")
    (base / "tree" / "src").mkdir(parents=True)
    (base / "outside").mkdir()
    return base / "tree"


def paths(tree: Path) -> list[str]:
    return ["debug.log", "../outside/out.txt", str(tree.parent / "outside" / "o.txt"), "src/x"]


# --- argv generated from a flag table ------------------------------------------------------------

VALUES: dict[str, list[str]] = {
    "--permission-mode": ["acceptEdits", "bypassPermissions", "plan", "dontAsk", "default"],
    "--allowedTools": ["Write", "Edit", "Bash", "Read", "Bash(git *)", "Write,Edit"],
    "--tools": ["default", "", "Bash,Edit,Read", "Read"],
    "--disallowedTools": ["Bash(rm *)", "WebFetch", "Write"],
    "--input-format": ["text", "stream-json"],
    "--sandbox": ["read-only", "workspace-write", "danger-full-access"],
    "--config": [
        'sandbox_mode="danger-full-access"',
        "sandbox_mode=read-only",
        "sandbox_permissions=['disk-full-read-access']",
        "sandbox_workspace_write.network_access=true",
        'model="o3"',
        "model_providers.stub={name='s'}",
        "approval_policy=never",
        "notify=['x']",
        "features.x=true",
        "my_key.sub=1",
        "unknown_key=1",
        "noequals",
    ],
    "--ask-for-approval": ["never", "on-request"],
    "--allow-tool": ["shell", "write", "shell(git:*)", "MyMCP"],
    "--available-tools": ["bash,create", "view", ""],
    "--mode": ["autopilot", "plan", "interactive"],
}
GENERIC = ["opus", "gpt-5", "a.png", "api", "x y", "value", "mcp", "exec"]
DASHED = ["-x", "--dangerously-skip-permissions", "--yolo", "--", "-p"]


def value_pool(spec: FlagSpec, tree: Path) -> list[str]:
    if spec.canonical in (
        "--debug-file",
        "--output-last-message",
        "--share",
        "--log-dir",
        "--usage-output-file",
        "--save-trajectory-output",
    ):
        return paths(tree)
    return VALUES.get(spec.canonical, GENERIC)


def rewritable(table: FlagTable) -> FlagTable:
    """The rows a rewrite can keep, replace or strip (refusals end most examples early)."""
    return FlagTable(tuple(spec for spec in table.specs if spec.action is not Action.REFUSE))


@st.composite
def option_words(draw: st.DrawFn, table: FlagTable, clap: bool, tree: Path) -> list[str]:
    """One option of `table` in one of its spellings, with values."""
    spec = draw(st.sampled_from(table.specs))
    name = draw(st.sampled_from(spec.names))
    pool = value_pool(spec, tree)
    value = draw(st.sampled_from(pool))
    # commander shifts a required value whatever it looks like; clap refuses dashed values.
    first = draw(st.sampled_from(pool + DASHED)) if draw(st.booleans()) else value
    long_name = name if name.startswith("--") else spec.names[0]
    short = name if not name.startswith("--") else None
    if spec.arity is Arity.FLAG:
        return [name]
    forms: list[list[str]] = [[f"{long_name}={value}"]]
    if spec.arity in (Arity.VALUE, Arity.VARIADIC):
        forms.append([name, first])
    if short is not None and value and not value.startswith("="):
        forms.append([f"{short}{value}"])
        if clap:
            forms.append([f"{short}={value}"])
    if spec.arity in (Arity.OPTIONAL, Arity.ANY):
        forms += [[name], [name, value]]
    if spec.arity in (Arity.VARIADIC, Arity.ANY):
        more = draw(
            st.lists(st.sampled_from([v for v in pool if not v.startswith("-")]), max_size=3)
        )
        forms.append([name, first, *more])
    return draw(st.sampled_from(forms))


@st.composite
def glued_words(draw: st.DrawFn, table: FlagTable) -> list[str]:
    """Short boolean flags glued into one word, maybe ending in an option that takes a value."""
    flags = [n for s in table.specs if s.arity is Arity.FLAG for n in s.names if len(n) == 2]
    takers = [n for s in table.specs if s.arity is not Arity.FLAG for n in s.names if len(n) == 2]
    letters = draw(st.lists(st.sampled_from(flags), min_size=1, max_size=3))
    word = "-" + "".join(n[1] for n in letters)
    if takers and draw(st.booleans()):
        word += draw(st.sampled_from(takers))[1]
        if draw(st.booleans()):
            return [word + "v"]
        return [word, draw(st.sampled_from(["value", "x y", "-p"]))]
    return [word]


@st.composite
def exposing_words(draw: st.DrawFn, table: FlagTable, clap: bool, tree: Path) -> list[str]:
    """The shape that tests whether a removal changes how the words after it are read: a kept
    option that reads on (a variadic, an optional without value), an option the rewrite
    removes, then a positional word."""
    readers = [
        s
        for s in table.specs
        if s.action is Action.KEEP and s.arity in (Arity.VARIADIC, Arity.OPTIONAL, Arity.ANY)
    ]
    removed = [s for s in table.specs if s.action in (Action.REPLACE, Action.STRIP)]
    if not readers or not removed:
        return []
    reader = draw(st.sampled_from(readers))
    words = [draw(st.sampled_from(reader.names))]
    if reader.arity in (Arity.VARIADIC, Arity.ANY):
        words += draw(st.lists(st.sampled_from(GENERIC), min_size=1, max_size=2))
    gone = draw(option_words(FlagTable((draw(st.sampled_from(removed)),)), clap, tree))
    return [*words, *gone, draw(st.sampled_from(["review the diff", "x y", "What changed?"]))]


def junk() -> st.SearchStrategy[list[str]]:
    return st.sampled_from(JUNK + BYPASS_WORDS).map(lambda word: [word])


def words_from(
    table: FlagTable, clap: bool, tree: Path, *, with_junk: bool = True
) -> st.SearchStrategy[list[str]]:
    parts = st.one_of(
        option_words(table, clap, tree),
        option_words(rewritable(table), clap, tree),
        option_words(rewritable(table), clap, tree),
        option_words(rewritable(table), clap, tree),
        glued_words(table),
        exposing_words(table, clap, tree),
        *([junk()] if with_junk else []),
    )
    return st.lists(parts, max_size=8).map(lambda chunks: [w for chunk in chunks for w in chunk])


def tail() -> st.SearchStrategy[list[str]]:
    return st.one_of(
        st.just([]),
        st.lists(st.sampled_from(JUNK + BYPASS_WORDS), max_size=4).map(lambda w: ["--", *w]),
    )


@st.composite
def claude_argv(draw: st.DrawFn, tree: Path) -> list[str]:
    head: list[str] = []
    if draw(st.integers(0, 7)) == 0:
        head = [draw(st.sampled_from(CLAUDE_SUBCOMMANDS))]
    words = draw(words_from(claude.FLAGS, False, tree))
    if draw(st.integers(0, 5)):
        # A headless run (a standalone -p) somewhere, at a word boundary or as a value.
        at = draw(st.integers(0, len(words)))
        words.insert(at, draw(st.sampled_from(["-p", "--print"])))
    return head + words + draw(tail())


@st.composite
def codex_argv(draw: st.DrawFn, tree: Path) -> list[str]:
    # Junk at the top level would mostly be a top-level prompt (refused): keep it rarer.
    top = draw(words_from(codex.TOP_FLAGS, True, tree, with_junk=draw(st.integers(0, 3)) == 0))
    runs = ["exec", "e", "review"] * 6
    subcommand = draw(st.sampled_from([*runs, *CODEX_SUBCOMMANDS]))
    table = codex.REVIEW_FLAGS if subcommand == "review" else codex.EXEC_FLAGS
    sub = draw(words_from(table, True, tree))
    nested: list[str] = []
    if subcommand in ("exec", "e") and draw(st.booleans()):
        nested = [draw(st.sampled_from(["review", "review", "resume", "fork", "help"]))]
        nested += draw(words_from(codex.REVIEW_FLAGS, True, tree))
    return [*top, subcommand, *sub, *nested, *draw(tail())]


@st.composite
def copilot_argv(draw: st.DrawFn, tree: Path) -> list[str]:
    # Any word that is no option's value is a subcommand to copilot (refused): junk is rare.
    words = draw(words_from(copilot.FLAGS, True, tree, with_junk=draw(st.integers(0, 5)) == 0))
    if draw(st.integers(0, 5)):
        at = draw(st.integers(0, len(words)))
        words[at:at] = [draw(st.sampled_from(["-p", "--prompt"])), "review the diff"]
    if draw(st.integers(0, 9)) == 0:
        words.append(draw(st.sampled_from(COPILOT_SUBCOMMANDS)))
    return words + (draw(tail()) if draw(st.integers(0, 5)) == 0 else [])


LANE_HOME = "/nonexistent/toolgate-copilot-home"
"""The private COPILOT_HOME the property tests give copilot's rewrite (never made: pure)."""


def options_for(tree: Path, declared: bool) -> RewriteOptions:
    real = os.path.realpath(tree)
    if not declared:
        return RewriteOptions(cwd=real, caller_root=real, lane_home=LANE_HOME)
    return RewriteOptions(
        pass_flags=PASS_FLAGS,
        pass_config=frozenset({"my_key"}),
        cwd=real,
        caller_root=real,
        lane_home=LANE_HOME,
    )


# --- the properties ------------------------------------------------------------------------------


def kept_events(
    events: list[Event], table_get: Callable[[str], FlagSpec | None], options: RewriteOptions
) -> list[tuple[str, list[str]]]:
    """The option occurrences a rewrite must keep, in order."""
    kept = []
    for occurrence in events:
        spec = table_get(occurrence.name)
        if spec is None:
            continue
        action, _ = spec.decide(tuple(occurrence.values[:1]), options)
        if action is Action.KEEP:
            kept.append((occurrence.name, occurrence.values))
    return kept


def check_common(lane: str, args: list[str], options: RewriteOptions) -> Rewritten | None:
    result = read_only_invoke(LaneInvocation(lane, tuple(args)), options)
    assert isinstance(result, (Rewritten, RewriteRefused))
    event(type(result).__name__)
    if isinstance(result, RewriteRefused):
        assert result.reason.strip()
        assert "\n" not in result.reason and "\r" not in result.reason
        return None
    again = read_only_invoke(result.invoke, options)
    assert isinstance(again, Rewritten), again.reason
    assert again.invoke == result.invoke, "the rewrite is not idempotent"
    return result


def check_tail(
    before_terminator: int | None, args: list[str], out: tuple[str, ...], at: int | None
) -> None:
    if before_terminator is None:
        return
    assert at is not None, "the -- terminator was lost"
    assert list(out[at:]) == args[before_terminator:], "the tail after -- changed"


@PROFILE
@given(data=st.data(), declared=st.booleans())
def test_claude_rewrite_properties(tree: Path, data: st.DataObject, declared: bool) -> None:
    args = data.draw(claude_argv(tree))
    options = options_for(tree, declared)
    result = check_common("claude", args, options)
    if result is None:
        return
    out = result.invoke.args
    after = assert_claude_read_only(out, options)
    try:
        before = claude_parse(args, options)
    except ParseError as error:  # pragma: no cover - shown when it happens
        pytest.fail(f"toolgate rewrote an argv claude itself rejects ({error}): {args}")
    check_tail(before.terminator, args, out, after.terminator)
    extra = {flag.name: flag for flag in PASS_FLAGS} if declared else {}

    def table_get(name: str) -> FlagSpec | None:
        spec = claude.FLAGS.get(name)
        if spec is None and name in extra:
            return FlagSpec((name,), Arity.FLAG, Action.KEEP, "")
        return spec

    assert kept_events(after.events, table_get, options) == kept_events(
        before.events, table_get, options
    ), "kept flags changed order or values"
    assert after.operands == before.operands, "positionals moved or changed"


@PROFILE
@given(data=st.data(), declared=st.booleans())
def test_codex_rewrite_properties(tree: Path, data: st.DataObject, declared: bool) -> None:
    args = data.draw(codex_argv(tree))
    options = options_for(tree, declared)
    result = check_common("codex", args, options)
    if result is None:
        return
    out = result.invoke.args
    after = assert_codex_read_only(out, options)
    try:
        before = codex_parse(args, options)
    except ParseError as error:  # pragma: no cover - shown when it happens
        pytest.fail(f"toolgate rewrote an argv codex itself rejects ({error}): {args}")
    levels_before = [lvl for lvl in (before.top, before.run, before.review) if lvl is not None]
    levels_after = [lvl for lvl in (after.top, after.run, after.review) if lvl is not None]
    if before.subcommand == "review":
        # `codex review` runs as `codex exec review`: its level is exec review's in the output,
        # and the exec level in between carries only what toolgate put there.
        assert (after.subcommand, after.nested) == ("exec", "review")
        assert after.run is not None and after.run.operands == []
        levels_after = [lvl for lvl in levels_after if lvl is not after.run]
    else:
        assert (after.subcommand, after.nested) == (before.subcommand, before.nested)
    terminator = next((lvl.terminator for lvl in levels_before if lvl.terminator is not None), None)
    out_terminator = next(
        (lvl.terminator for lvl in levels_after if lvl.terminator is not None), None
    )
    check_tail(terminator, args, out, out_terminator)
    extra = {flag.name for flag in PASS_FLAGS} if declared else set()

    def table_get(name: str) -> FlagSpec | None:
        spec = codex.EXEC_FLAGS.get(name) or codex.TOP_FLAGS.get(name)
        spec = spec or codex.EXEC_REVIEW_FLAGS.get(name)
        if spec is None and name in extra:
            return FlagSpec((name,), Arity.FLAG, Action.KEEP, "")
        return spec

    if after.run is not None:
        assert kept_events(after.run.events[: len(CODEX_GUARDS)], table_get, options) == []
    for level_before, level_after in zip(levels_before, levels_after, strict=True):
        assert kept_events(level_after.events, table_get, options) == kept_events(
            level_before.events, table_get, options
        ), "kept flags changed order or values"
        assert level_after.operands == level_before.operands, "positionals moved or changed"


@PROFILE
@given(data=st.data(), declared=st.booleans())
def test_copilot_rewrite_properties(tree: Path, data: st.DataObject, declared: bool) -> None:
    args = data.draw(copilot_argv(tree))
    options = options_for(tree, declared)
    result = check_common("copilot", args, options)
    if result is None:
        return
    out = result.invoke.args
    assert result.invoke.env["COPILOT_HOME"] == LANE_HOME
    after = assert_copilot_read_only(out, options)
    try:
        before = copilot_parse(args, options)
    except ParseError as error:  # pragma: no cover - shown when it happens
        pytest.fail(f"toolgate rewrote an argv copilot itself rejects ({error}): {args}")
    extra = {flag.name: flag for flag in PASS_FLAGS} if declared else {}

    def table_get(name: str) -> FlagSpec | None:
        spec = copilot.FLAGS.get(name)
        if spec is None and name in extra:
            return FlagSpec((name,), Arity.FLAG, Action.KEEP, "")
        return spec

    added = len([w for w in COPILOT_READ_ONLY if w.startswith("-")])
    assert kept_events(after.events[added:], table_get, options) == kept_events(
        before.events, table_get, options
    ), "kept flags changed order or values"
    assert after.operands == before.operands == [], "positionals moved or changed"


@PROFILE
@given(words=st.lists(st.sampled_from([*JUNK, *BYPASS_WORDS, *claude.FLAGS.names()]), max_size=12))
def test_any_word_soup_ends_in_a_rewrite_or_a_refusal_for_claude(words: list[str]) -> None:
    result = read_only_invoke(LaneInvocation("claude", tuple(words)))
    if isinstance(result, Rewritten):
        assert_claude_read_only(result.invoke.args)
    else:
        assert result.reason and "\n" not in result.reason


@PROFILE
@given(
    words=st.lists(
        st.sampled_from(
            [*JUNK, *BYPASS_WORDS, *codex.EXEC_FLAGS.names(), *codex.TOP_FLAGS.names(), "exec"]
        ),
        max_size=12,
    )
)
def test_any_word_soup_ends_in_a_rewrite_or_a_refusal_for_codex(words: list[str]) -> None:
    result = read_only_invoke(LaneInvocation("codex", tuple(words)))
    if isinstance(result, Rewritten):
        assert_codex_read_only(result.invoke.args)
    else:
        assert result.reason and "\n" not in result.reason


@PROFILE
@given(
    words=st.lists(
        st.sampled_from([*JUNK, *BYPASS_WORDS, *copilot.FLAGS.names(), "-p", "mcp"]),
        max_size=12,
    )
)
def test_any_word_soup_ends_in_a_rewrite_or_a_refusal_for_copilot(words: list[str]) -> None:
    result = read_only_invoke(
        LaneInvocation("copilot", tuple(words)), RewriteOptions(lane_home=LANE_HOME)
    )
    if isinstance(result, Rewritten):
        assert_copilot_read_only(result.invoke.args)
    else:
        assert result.reason and "\n" not in result.reason
