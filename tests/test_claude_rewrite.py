"""claude: every way a template could keep write access, and the read-only rewrite's contract.

Outputs are checked as claude's own parser (commander.js, modelled in reference_parsers.py)
would read them, by `assert_claude_read_only`: exactly one `--permission-mode dontAsk`, the
read-only tool set in `--tools` and `--allowedTools`, the writers denied, no bypass left.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lane_checks import (
    CLAUDE_SUBCOMMANDS,
    READ_ONLY_TOOLS,
    LaneRewrites,
    assert_claude_read_only,
    changes,
    claude_parse,
    in_tree,
    tree_beside_outside,
)
from toolgate_cli.lanes import RewriteRefused
from toolgate_cli.lanes.base import PassFlag, RewriteOptions

_claude = LaneRewrites("claude", assert_claude_read_only)
rewrite, ok, refused = _claude.rewrite, _claude.ok, _claude.refused


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return tree_beside_outside(tmp_path)


# --- the binding ---------------------------------------------------------------------------------


def test_a_plain_prompt_gets_the_read_only_flags_and_keeps_the_prompt_last() -> None:
    result = ok("-p", "review the diff")
    assert result.invoke.args[-2:] == ("-p", "review the diff")
    assert claude_parse(result.invoke.args).operands == ["review the diff"]
    assert result.binding.startswith("claude --permission-mode dontAsk")
    assert result.lane == "claude"
    added = [flag for flag, _ in changes(result, "added")]
    assert added == [
        "--tools",
        "--allowedTools",
        "--disallowedTools",
        "--strict-mcp-config",
        "--disable-slash-commands",
        "--setting-sources",
        "--settings",
        "--permission-mode",
    ]
    assert changes(result, "kept") == [("--print", ("-p",))]


@pytest.mark.parametrize(
    "mode", ["acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"]
)
@pytest.mark.parametrize("spelling", ["separate", "equals"])
def test_every_template_permission_mode_is_replaced_by_exactly_one_dont_ask(
    mode: str, spelling: str
) -> None:
    words = ["--permission-mode", mode] if spelling == "separate" else [f"--permission-mode={mode}"]
    result = ok("-p", *words, "review the diff")
    assert "plan" not in result.invoke.args
    assert changes(result, "replaced") == [("--permission-mode", tuple(words))]


def test_repeated_permission_modes_leave_exactly_one_and_it_is_dont_ask() -> None:
    result = ok(
        "--permission-mode",
        "plan",
        "-p",
        "--permission-mode=acceptEdits",
        "review the diff",
        "--permission-mode",
        "bypassPermissions",
    )
    assert result.invoke.args.count("--permission-mode") == 1
    assert len(changes(result, "replaced")) == 3


def test_variadic_allowed_tools_are_replaced_whole_so_no_writer_survives() -> None:
    result = ok("-p", "--allowedTools", "Write", "Edit", "Bash", "--verbose", "review the diff")
    assert changes(result, "replaced") == [
        ("--allowedTools", ("--allowedTools", "Write", "Edit", "Bash"))
    ]
    for writer in ("Write", "Edit", "Bash"):
        assert writer not in result.invoke.args
    assert claude_parse(result.invoke.args).operands == ["review the diff"]


def test_allowed_tools_equals_form_takes_one_value_and_the_prompt_stays_a_prompt() -> None:
    result = ok("-p", "--allowed-tools=Bash,Write", "review the diff")
    assert changes(result, "replaced") == [("--allowedTools", ("--allowed-tools=Bash,Write",))]
    assert claude_parse(result.invoke.args).operands == ["review the diff"]


def test_repeated_variadic_allow_lists_are_all_removed_not_just_the_last() -> None:
    # commander CONCATENATES repeated variadics: one surviving --allowedTools Write grants it.
    result = ok(
        "--allowedTools",
        "Write",
        "-p",
        "--allowed-tools",
        "Edit",
        "--allowedTools=Bash",
        "review the diff",
    )
    allowed = [
        e.values for e in claude_parse(result.invoke.args).events if e.name == "--allowedTools"
    ]
    assert allowed == [[READ_ONLY_TOOLS]]


@pytest.mark.parametrize("tools", [["default"], ["Bash,Edit,Read"], [""], ["Read", "Write"]])
def test_template_tools_are_replaced_by_the_read_only_set(tools: list[str]) -> None:
    result = ok("-p", "--tools", *tools, "--verbose", "review the diff")
    assert ("--tools", ("--tools", *tools)) in changes(result, "replaced")


@pytest.mark.parametrize(
    "words", [["--disallowedTools", "Bash(rm *)", "WebFetch"], ["--disallowed-tools=WebFetch"]]
)
def test_template_deny_rules_are_folded_into_the_deny_list_never_lost(words: list[str]) -> None:
    result = ok("-p", *words, "--verbose", "review the diff")
    denied = next(
        e.values for e in claude_parse(result.invoke.args).events if e.name == "--disallowedTools"
    )
    assert "WebFetch" in denied
    if "Bash(rm *)" in words:
        assert "Bash(rm *)" in denied


def test_the_deny_list_names_every_writer_the_spec_lists() -> None:
    # assert_claude_read_only checks the writers; this pins that the deny list is one word,
    # so a template word cannot be read as part of it.
    result = ok("-p", "review the diff")
    args = result.invoke.args
    position = args.index("--disallowedTools")
    assert args[position + 2].startswith("-")


# --- stripped ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        ["--dangerously-skip-permissions"],
        ["--allow-dangerously-skip-permissions"],
        ["--permission-prompt-tool", "mcp__approver__approve"],
        ["--permission-prompt-tool=mcp__approver__approve"],
        ["--mcp-config", "a.json", "b.json"],
        ["--mcp-config={}"],
        ["--settings", '{"permissions": {"allow": ["Write"]}}'],
        ["--strict-mcp-config"],
    ],
)
def test_bypass_and_configuration_flags_are_removed_with_their_values(words: list[str]) -> None:
    result = ok("-p", *words, "--verbose", "review the diff")
    removed = changes(result, "stripped") + changes(result, "replaced")
    assert [w for _, w in removed] == [tuple(words)]
    for word in words[1:]:
        assert word not in result.invoke.args
    assert claude_parse(result.invoke.args).operands == ["review the diff"]


def test_strict_mcp_config_appears_exactly_once_when_the_template_had_it_too() -> None:
    result = ok("--strict-mcp-config", "-p", "--strict-mcp-config", "review the diff")
    assert result.invoke.args.count("--strict-mcp-config") == 1


# --- refused -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "named"),
    [
        (["--agent", "reviewer"], "--agent"),
        (["--agents", '{"r": {"prompt": "x"}}'], "--agents"),
        (["--plugin-dir", "plugins/x"], "--plugin-dir"),
        (["--plugin-url", "https://x/p.zip"], "--plugin-url"),
        (["--ide"], "--ide"),
        (["--chrome"], "--chrome"),
        (["--remote-control"], "--remote-control"),
        (["--bg"], "--bg"),
        (["--background"], "--background"),
        (["-w"], "-w"),
        (["--worktree"], "--worktree"),
        (["--worktree=feature"], "--worktree=feature"),
        (["-wfeature"], "-wfeature"),
        (["--tmux"], "--tmux"),
        (["--file", "file_abc:doc.txt", "file_def:img.png"], "--file"),
        (["--from-pr", "12"], "--from-pr"),
        (["--input-format", "stream-json"], "--input-format"),
        (["--input-format=stream-json"], "--input-format=stream-json"),
    ],
)
def test_flags_that_cannot_be_read_only_refuse_naming_the_flag_and_what_to_do(
    words: list[str], named: str
) -> None:
    result = refused("-p", *words, "--verbose", "review the diff")
    assert named in result.reason
    assert "read-only claude run" in result.reason
    assert "drop it" in result.reason or "remove it" in result.reason
    assert [w for _, w in changes(result, "refused")] == [tuple(words)]


def test_input_format_text_is_harmless_and_kept() -> None:
    result = ok("-p", "--input-format", "text", "review the diff")
    assert ("--input-format", ("--input-format", "text")) in changes(result, "kept")


def test_every_refused_flag_is_reported_not_only_the_first() -> None:
    result = refused("-p", "--agent", "x", "--ide", "--frob")
    # --frob is unknown: the grammar stops there, so only it is named.
    assert "--frob" in result.reason
    result = refused("-p", "--agent", "x", "--ide", "review the diff")
    assert "--agent" in result.reason and "--ide" in result.reason


def test_a_refusal_stays_on_one_line_even_when_a_value_holds_newlines() -> None:
    refused("-p", "--agents", '{\n  "r": {"prompt": "x"}\n}', "review the diff")


# --- files the harness writes --------------------------------------------------------------------


def test_debug_file_inside_the_tree_is_refused_saying_to_point_it_outside(tree: Path) -> None:
    result = refused("-p", "--debug-file", "debug.log", "review it", options=in_tree(tree))
    assert "--debug-file debug.log" in result.reason
    assert "outside" in result.reason


def test_debug_file_outside_the_tree_is_kept(tree: Path) -> None:
    log = str(tree.parent / "outside" / "debug.log")
    result = ok("-p", f"--debug-file={log}", "review it", options=in_tree(tree))
    assert f"--debug-file={log}" in result.invoke.args


def test_debug_file_reaching_out_with_dot_dot_is_outside(tree: Path) -> None:
    ok("-p", "--debug-file", "../outside/d.log", "review it", options=in_tree(tree))


def test_debug_file_reaching_back_in_with_dot_dot_is_inside(tree: Path) -> None:
    refused("-p", "--debug-file", "../tree/src/d.log", "review it", options=in_tree(tree))


def test_debug_file_through_a_symlink_out_of_the_tree_writes_outside_and_is_kept(
    tree: Path,
) -> None:
    (tree / "logs").symlink_to(tree.parent / "outside")
    ok("-p", "--debug-file", "logs/d.log", "review it", options=in_tree(tree))


def test_debug_file_through_an_outside_symlink_into_the_tree_is_refused(tree: Path) -> None:
    (tree.parent / "outside" / "into").symlink_to(tree / "src")
    path = str(tree.parent / "outside" / "into" / "d.log")
    refused("-p", "--debug-file", path, "review it", options=in_tree(tree))


def test_debug_file_that_is_a_dangling_symlink_into_the_tree_is_refused(tree: Path) -> None:
    # The file does not exist yet; writing through the link would create it in the tree.
    link = tree.parent / "outside" / "d.log"
    link.symlink_to(tree / "src" / "created-later.log")
    refused("-p", "--debug-file", str(link), "review it", options=in_tree(tree))


def test_debug_file_is_refused_when_the_rewrite_was_not_told_the_tree() -> None:
    # Unknown never claims: without cwd and caller root nothing is "outside".
    refused("-p", "--debug-file", "/var/tmp/d.log", "review it")


# --- glued short flags ---------------------------------------------------------------------------


def test_glued_harmless_flags_stay_one_word() -> None:
    result = ok("-p", "-pc", "review the diff")
    assert "-pc" in result.invoke.args
    assert changes(result, "kept")[1:] == [("--print", ("-pc",)), ("--continue", ("-pc",))]


def test_glued_flags_ending_in_a_value_keep_their_value_word() -> None:
    result = ok("-p", "-cn", "my-session", "review the diff")
    args = result.invoke.args
    assert args[args.index("-cn") + 1] == "my-session"
    assert claude_parse(args).operands == ["review the diff"]


def test_a_refused_flag_glued_to_harmless_ones_is_refused_and_named() -> None:
    result = refused("-pw", "review the diff")
    assert "-w" in result.reason
    assert "separate word" in result.reason


# --- the `--` terminator -------------------------------------------------------------------------


def test_inserted_flags_go_before_the_terminator_and_the_tail_is_untouched() -> None:
    tail = ("--", "-x-not-an-option", "--permission", "bypassPermissions please")
    result = ok("-p", *tail)
    args = result.invoke.args
    assert args[args.index("--") :] == tail
    assert args.index("--permission-mode") < args.index("--")
    parsed = claude_parse(args)
    assert parsed.operands == list(tail[1:])
    assert parsed.terminator == args.index("--")


def test_only_the_first_double_dash_terminates() -> None:
    result = ok("-p", "--", "review it", "--", "--toolz", "Bash")
    assert result.invoke.args[-5:] == ("--", "review it", "--", "--toolz", "Bash")


@pytest.mark.parametrize(
    "args",
    [
        ("-p", "--", "--dangerously-skip-permissions"),
        ("-p", "--", "review it", "--permission-mode", "bypassPermissions"),
        ("-p", "--model", "--tmux", "review it"),
        ("-p", "--append-system-prompt", "-w", "review it"),
        ("--model", "-p", "review it"),
        ("-p", "--add-dir", "src", "--resume", "review it", "--", "-c"),
    ],
    ids=["tail-bypass", "tail-mode", "value-tmux", "value-w", "value-p", "tail-c"],
)
def test_an_option_name_out_of_place_is_refused(args: tuple[str, ...]) -> None:
    # claude scans its raw argv for several switches before commander parses it, so a word
    # that spells an option is refused wherever it is not that option.
    result = refused(*args)
    # A word claude acts on anywhere (--tmux) gets that more specific reason instead, once.
    assert "spells a claude option" in result.reason or "anywhere in claude's" in result.reason
    assert result.reason.count("'--tmux'") <= 1


def test_a_double_dash_taken_as_a_value_does_not_protect_what_follows() -> None:
    # commander takes `--` as the VALUE of --name, so the bypass flag after it is a flag.
    result = ok("--name", "--", "--dangerously-skip-permissions", "-p", "review the diff")
    assert "--dangerously-skip-permissions" not in result.invoke.args


# --- subcommands and headless runs ---------------------------------------------------------------


@pytest.mark.parametrize("subcommand", CLAUDE_SUBCOMMANDS)
def test_a_subcommand_without_a_standalone_p_is_refused_naming_it(subcommand: str) -> None:
    result = refused(subcommand, "list")
    assert f"claude {subcommand} is a subcommand" in result.reason
    assert "add -p" in result.reason


@pytest.mark.parametrize(
    "words", [["--", "install"], ["-pc", "mcp"], ["-c", "--", "doctor"], ["--print=x", "mcp"]]
)
def test_a_subcommand_is_refused_wherever_commander_would_dispatch_it(words: list[str]) -> None:
    # commander dispatches the first operand, even after --; a glued -pc is not the standalone
    # -p that keeps claude from registering subcommands.
    refused(*words)


@pytest.mark.parametrize("words", [["review the diff"], ["-pc", "review the diff"], []])
def test_without_a_standalone_p_claude_is_interactive_and_refused(words: list[str]) -> None:
    assert "add -p as a word of its own" in refused(*words).reason


@pytest.mark.parametrize("subcommand", ["mcp", "update", "install", "doctor"])
@pytest.mark.parametrize("where", ["before", "after-terminator", "p-last"])
def test_with_a_standalone_p_a_subcommand_name_is_only_a_prompt(
    subcommand: str, where: str
) -> None:
    # Measured with claude 2.1.197: an argv element that is exactly -p or --print keeps every
    # subcommand from being registered, so the word goes to the model as the prompt.
    words = {
        "before": ["-p", subcommand],
        "after-terminator": ["--print", "--", subcommand],
        "p-last": [subcommand, "-p"],
    }[where]
    ok(*words)


@pytest.mark.parametrize(
    "prompt", ["review the diff", "What changed?", "Review", "fix.", "42", "summarize"]
)
def test_any_prompt_is_allowed_in_a_headless_run(prompt: str) -> None:
    ok("-p", prompt)


@pytest.mark.parametrize(
    "word", ["--bg", "--background", "cc://session/1", "cc+unix:///tmp/s", "--routine=x"]
)
@pytest.mark.parametrize("where", ["flag", "prompt", "tail"])
def test_words_claude_acts_on_anywhere_are_refused_even_in_the_prompt_or_tail(
    word: str, where: str
) -> None:
    words = {
        "flag": ["-p", word, "review the diff"],
        "prompt": ["-p", word],
        "tail": ["-p", "--", "review the diff", word],
    }[where]
    result = rewrite(*words)
    assert isinstance(result, RewriteRefused)
    assert word.split("=")[0] in result.reason
    # Declaring it does not help: claude acts on it wherever it stands.
    declared = RewriteOptions(pass_flags=(PassFlag(word.split("=")[0], takes_value=True),))
    if word.startswith("--"):
        assert isinstance(rewrite(*words, options=declared), RewriteRefused)


def test_no_prompt_at_all_is_allowed_claude_reads_stdin() -> None:
    ok("-p")


@pytest.mark.parametrize(
    "words",
    [
        # claude 2.1.197 reads these from its whole argv before commander parses anything:
        # `--tmux` with `-w`/`--worktree` creates a git worktree and execs into tmux,
        ["-p", "--", "review the diff", "--tmux", "-w"],
        ["-p", "--model", "--tmux", "--append-system-prompt", "-w", "review the diff"],
        ["-p", "--", "x y", "--tmux=classic", "--worktree=feature"],
        # `--handle-uri URI` opens a new terminal running claude with no toolgate flag at all,
        ["-p", "--", "review the diff", "--handle-uri", "claude-cli://open?q=x"],
        ["-p", "--name", "--handle-uri", "--model", "claude-cli://open?q=x", "x y"],
        # `--agent-teams` turns on agent teams (teammates), unverified under read-only.
        ["-p", "--", "review the diff", "--agent-teams"],
    ],
)
def test_argv_wide_switches_hidden_in_values_or_the_tail_are_refused(words: list[str]) -> None:
    result = rewrite(*words)
    assert isinstance(result, RewriteRefused), result


# --- unknown flags and --pass-flag ---------------------------------------------------------------


def test_an_unknown_flag_is_refused_naming_it_and_the_way_to_declare_it() -> None:
    result = refused("-p", "--frobnicate=3", "review the diff")
    assert "unknown option --frobnicate" in result.reason
    assert "--pass-flag --frobnicate" in result.reason
    assert "--pass-flag --frobnicate=1" in result.reason


def test_a_declared_flag_is_kept_in_place() -> None:
    options = RewriteOptions(pass_flags=(PassFlag("--frobnicate"),))
    result = ok("-p", "--frobnicate", "review the diff", options=options)
    assert result.invoke.args[-3:] == ("-p", "--frobnicate", "review the diff")


def test_a_declared_flag_with_a_value_keeps_its_value() -> None:
    options = RewriteOptions(pass_flags=(PassFlag("--level", takes_value=True),))
    result = ok("-p", "--level", "3", "review the diff", options=options)
    assert result.invoke.args[-4:] == ("-p", "--level", "3", "review the diff")


def test_a_declared_flag_without_a_value_given_one_is_refused() -> None:
    options = RewriteOptions(pass_flags=(PassFlag("--frobnicate"),))
    refused("-p", "--frobnicate=1", "review the diff", options=options)


@pytest.mark.parametrize(
    "name", ["--permission-mode", "--dangerously-skip-permissions", "-w", "--allowed-tools", "-p"]
)
def test_pass_flag_cannot_override_a_known_flag(name: str) -> None:
    options = RewriteOptions(pass_flags=(PassFlag(name, takes_value=True),))
    result = refused("-p", "review the diff", options=options)
    assert name in result.reason
    assert "already knows" in result.reason


@pytest.mark.parametrize("name", ["-wfeature", "-pw", "-dapi"])
def test_pass_flag_cannot_smuggle_a_known_short_flag_glued_to_more_letters(name: str) -> None:
    # commander reads `-wfeature` as `--worktree feature`: declaring that word "safe" must not
    # get a known, refused flag past the table under another spelling.
    options = RewriteOptions(pass_flags=(PassFlag(name),))
    result = rewrite("-p", name, "review the diff", options=options)
    assert isinstance(result, RewriteRefused)
    assert name in result.reason


@pytest.mark.parametrize("name", ["-", "--"])
def test_pass_flag_must_name_an_option(name: str) -> None:
    result = refused("-p", "review it", options=RewriteOptions(pass_flags=(PassFlag(name),)))
    assert "not an option name" in result.reason


# --- environment ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"]
)
def test_provider_environment_is_kept_and_carried_unchanged(name: str) -> None:
    result = ok("-p", "review the diff", env={name: "value", "GONE": None})
    assert result.invoke.env == {name: "value", "GONE": None}
    assert ("env " + name, (f"{name}=value",)) in changes(result, "kept")


@pytest.mark.parametrize(
    "name",
    [
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_CODE_SHELL_PREFIX",
        "LD_PRELOAD",
        "LD_LIBRARY_PATH",
        "DYLD_INSERT_LIBRARIES",
        "NODE_OPTIONS",
        "PATH",
        "HOME",
        "BASH_ENV",
    ],
)
def test_environment_that_moves_config_or_loads_code_is_refused_naming_it(name: str) -> None:
    result = refused("-p", "review the diff", env={name: "x"})
    assert name in result.reason


@pytest.mark.parametrize("name", ["AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"])
def test_aws_files_that_can_name_a_credential_process_are_refused(name: str) -> None:
    # The AWS SDK bundled in claude runs the `credential_process` command such a file names:
    # a program outside claude's permission flags.
    env = {"CLAUDE_CODE_USE_BEDROCK": "1", name: "/elsewhere/aws-config"}
    assert name in refused("-p", "review the diff", env=env).reason
    ok("-p", "review the diff", env={"CLAUDE_CODE_USE_BEDROCK": "1", "AWS_REGION": "us-east-1"})


def test_an_unknown_variable_is_refused_with_the_way_to_declare_it() -> None:
    result = refused("-p", "review the diff", env={"MY_SETTING": "1"})
    assert "--pass-env MY_SETTING" in result.reason


def test_a_declared_variable_is_kept() -> None:
    options = RewriteOptions(pass_env=frozenset({"MY_SETTING"}))
    ok("-p", "review the diff", env={"MY_SETTING": "1"}, options=options)


def test_pass_env_cannot_allow_a_variable_the_rules_refuse() -> None:
    options = RewriteOptions(pass_env=frozenset({"LD_PRELOAD", "CLAUDE_CONFIG_DIR"}))
    result = refused(
        "-p", "review the diff", env={"LD_PRELOAD": "x", "CLAUDE_CONFIG_DIR": "y"}, options=options
    )
    assert "LD_PRELOAD" in result.reason and "CLAUDE_CONFIG_DIR" in result.reason


def test_unsetting_any_variable_is_allowed() -> None:
    ok("-p", "review the diff", env={"LD_PRELOAD": None, "ANYTHING": None})


# --- what the rewrite must not disturb -----------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        ["-p", "--add-dir", "../docs", "--permission-mode", "acceptEdits", "review the diff"],
        ["-p", "--betas", "b1", "--dangerously-skip-permissions", "review the diff"],
        ["-p", "--debug", "--strict-mcp-config", "review the diff"],
        ["-p", "--resume", "--mcp-config", "m.json", "--verbose", "review the diff"],
        ["--add-dir", "a", "b", "--settings", "{}", "review the diff", "-p"],
        # Found by the property test: moving only --resume would expose --add-dir before it.
        ["--add-dir", "opus", "--resume", "--permission-mode=plan", "review the diff", "-p"],
        ["-p", "--resume", "--tools=R", "review the diff", "--add-dir", "o", "--tools=R", "x y"],
    ],
)
def test_removing_a_flag_never_turns_the_prompt_into_a_value_of_the_flag_before_it(
    template: list[str],
) -> None:
    result = ok(*template)
    before = claude_parse(template)
    after = claude_parse(result.invoke.args)
    assert after.operands == before.operands
    assert after.operands[0] == "review the diff"
    readers = ("--add-dir", "--betas", "--resume", "--debug")
    kept = [(e.name, e.values) for e in before.events if e.name in readers]
    assert [(e.name, e.values) for e in after.events if e.name in readers] == kept


@pytest.mark.parametrize(
    "template",
    [
        ["-p", "review the diff"],
        ["-p", "--permission-mode", "acceptEdits", "--allowedTools", "Write", "--", "x y"],
        ["--disallowedTools", "Bash(rm *)", "-p", "--model", "opus", "review the diff"],
        ["-p", "-c", "--add-dir", "a", "b", "--verbose", "review the diff"],
    ],
)
def test_rewriting_the_output_again_changes_nothing(template: list[str]) -> None:
    once = ok(*template)
    twice = ok(*once.invoke.args)
    assert twice.invoke.args == once.invoke.args


def test_kept_flags_keep_their_order_and_place_relative_to_each_other() -> None:
    result = ok("--verbose", "-p", "--model", "opus", "--permission-mode", "plan", "--bare", "x y")
    args = result.invoke.args
    tail = args[args.index("dontAsk") + 1 :]
    assert tail == ("--verbose", "-p", "--model", "opus", "--bare", "x y")


# --- --read-shell --------------------------------------------------------------------------------


def test_read_shell_allows_bash_through_the_hook_and_nothing_else_changes() -> None:
    options = RewriteOptions(read_shell_hook="/usr/bin/python3 -m toolgate hook")
    result = ok("-p", "--settings", "{}", "review the diff", options=options)
    settings = [e for e in claude_parse(result.invoke.args).events if e.name == "--settings"]
    assert len(settings) == 1
    assert "/usr/bin/python3 -m toolgate hook" in settings[0].values[0]
    assert "Bash checked by the toolgate PreToolUse hook" in result.binding


# --- fitted to the version that runs (claude 2.1.332 and the versions between) ------------------

NEWEST = RewriteOptions(lane_version="2.1.332")


@pytest.mark.parametrize(
    ("version", "guards"),
    [
        (None, []),
        ("2.1.197", []),
        ("2.1.247", []),
        ("2.1.248", ["--restricted"]),
        ("2.1.258", ["--restricted"]),
        ("2.1.259", ["--restricted", "--permission-prompts"]),
        ("2.1.332", ["--restricted", "--permission-prompts"]),
        ("2.2.0", ["--restricted", "--permission-prompts"]),
    ],
)
def test_the_guards_go_only_to_versions_that_have_them(
    version: str | None, guards: list[str]
) -> None:
    result = ok("-p", "review the diff", options=RewriteOptions(lane_version=version))
    added = [flag for flag, _ in changes(result, "added")]
    assert [flag for flag in added if flag in ("--restricted", "--permission-prompts")] == guards
    # Right before --permission-mode dontAsk, which takes exactly one value and ends the block.
    assert added[-1] == "--permission-mode"
    if "--permission-prompts" in guards:
        assert ("--permission-prompts", ("--permission-prompts", "none")) in changes(
            result, "added"
        )


@pytest.mark.parametrize(
    "words", [["--restricted"], ["--permission-prompts", "host"], ["--permission-prompts=host"]]
)
def test_a_template_guard_is_replaced_by_toolgate_s_own(words: list[str]) -> None:
    result = ok("-p", *words, "review the diff", options=NEWEST)
    assert changes(result, "replaced") == [(words[0].split("=")[0], tuple(words))]
    assert "host" not in result.invoke.args


def test_the_caller_root_stays_readable_when_the_lane_runs_in_a_subdirectory(
    tree: Path,
) -> None:
    # --restricted confines the file tools to the working directories (measured, 2.1.332).
    subdirectory = str(tree / "src")
    (tree / "src").mkdir(exist_ok=True)
    options = RewriteOptions(cwd=subdirectory, caller_root=str(tree), lane_version="2.1.332")
    result = ok("-p", "review the diff", options=options)
    add_dirs = [e for e in claude_parse(result.invoke.args).events if e.name == "--add-dir"]
    assert [e.values for e in add_dirs] == [[str(tree)]]
    args = result.invoke.args
    assert args[args.index("--restricted") + 1 : args.index("--restricted") + 3] == (
        "--add-dir",
        str(tree),
    )


@pytest.mark.parametrize("version", ["2.1.332", "2.1.247", None])
def test_no_directory_is_added_when_the_lane_runs_in_the_caller_root_or_lacks_restricted(
    tree: Path, version: str | None
) -> None:
    same = RewriteOptions(cwd=str(tree), caller_root=str(tree), lane_version=version)
    assert "--add-dir" not in ok("-p", "x", options=same).invoke.args
    if version != "2.1.332":
        elsewhere = RewriteOptions(
            cwd=str(tree / "src"), caller_root=str(tree), lane_version=version
        )
        assert "--add-dir" not in ok("-p", "x", options=elsewhere).invoke.args


@pytest.mark.parametrize(
    "words",
    [
        ["--plugin-url", "https://example.invalid/p.zip"],
        ["--cloud"],
        ["--cloud", "fix the bug"],
        ["--environment", "ccpool_1"],
        ["--pool", "ccpool_1"],
        ["--teleport"],
        ["--desktop"],
        ["--remote", "x"],
        ["--on-branch", "main"],
        ["--project-config-root", "/elsewhere"],
        ["--await-initialize"],
        ["--initialize-fields", "settings"],
        ["--hold-repository-while-parked"],
        ["--messaging-socket-path", "/tmp/s"],
        ["--watch-artifact", "a1"],
        ["--client-data-url", "https://example.invalid/d"],
        ["--proactivity", "proactive"],
        ["--agents-view-if-allowed"],
        ["--session-tunnel"],
        ["--ignore-persisted-trust"],
    ],
)
def test_options_that_move_the_session_or_load_code_from_elsewhere_are_refused(
    words: list[str],
) -> None:
    result = refused("-p", *words, "--", "review the diff", options=NEWEST)
    assert words[0] in result.reason


@pytest.mark.parametrize(
    "words",
    [
        ["--autocompact", "200k"],
        ["--system-prompt-snapshot", "off"],
        ["--effort", "high"],
        ["--forward-subagent-text"],
        ["--fast-mode", "on"],
        ["--append-subagent-system-prompt", "be brief"],
        ["--include-unsupported-models"],
    ],
)
def test_harmless_2_1_332_options_are_kept(words: list[str]) -> None:
    result = ok("-p", *words, "review the diff", options=NEWEST)
    args = result.invoke.args
    assert args[args.index("dontAsk") + 1 :] == ("-p", *words, "review the diff")


def test_inherit_permission_mode_is_removed_toolgate_sets_the_mode() -> None:
    result = ok("-p", "--inherit-permission-mode", "acceptEdits", "x", options=NEWEST)
    assert "acceptEdits" not in result.invoke.args


@pytest.mark.parametrize("verb", ["attach", "logs", "stop", "kill", "respawn", "rm"])
@pytest.mark.parametrize(
    "where",
    ["first-operand", "p-last", "before-id", "after-options-before-id", "prompt-word-before-id"],
)
def test_a_background_session_verb_claude_runs_before_its_flags_is_refused(
    verb: str, where: str
) -> None:
    # Measured with 2.1.332 through toolgate's own rewrite: `stop ID -p` stopped another
    # session, `respawn ID -p` restarted one.
    words = {
        "first-operand": ["-p", verb],
        "p-last": [verb, "-p"],
        "before-id": [verb, "0123abcd", "-p"],
        "after-options-before-id": ["--verbose", "--model", "opus", verb, "0123abcd", "-p"],
        "prompt-word-before-id": ["-p", "--append-system-prompt", verb, "0123abcd", "x"],
    }[where]
    result = refused(*words, options=NEWEST)
    assert repr(verb) in result.reason


@pytest.mark.parametrize(
    "words",
    [
        ["-p", "please stop"],
        ["-p", "review", "then", "stop"],
        ["-p", "--", "stop"],
        ["-p", "--append-system-prompt", "stop", "review the diff"],
    ],
)
def test_a_verb_word_claude_does_not_dispatch_is_only_prompt_text(words: list[str]) -> None:
    ok(*words, options=NEWEST)


@pytest.mark.parametrize(
    "words",
    [
        ["-p", "import", "codex"],
        ["-p", "import", "gemini", "cursor"],
        ["-p", "--verbose", "import", "codex"],
    ],
)
def test_import_with_only_import_arguments_is_refused(words: list[str]) -> None:
    # claude 2.1.332 turns it into the slash command `/import codex` before commander runs.
    assert "'import'" in refused(*words, options=NEWEST).reason


@pytest.mark.parametrize(
    "words",
    [["-p", "import the module"], ["-p", "import", "this", "file"], ["import", "codex", "-p"]],
)
def test_import_followed_by_other_words_is_a_prompt(words: list[str]) -> None:
    ok(*words, options=NEWEST)
