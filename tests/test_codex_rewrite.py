"""codex: every way a template could lift or widen the sandbox, and the rewrite's contract.

Outputs are checked as codex's own parser (clap, modelled in reference_parsers.py) would read
them, by `assert_codex_read_only`: an exec run (exec, e, exec review; `review` runs as exec
review) with the read-only flags once each right after exec (CODEX_READ_ONLY), and no bypass,
sandbox or approval override left.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.lane_checks import (
    CODEX_READ_ONLY,
    CODEX_SUBCOMMANDS,
    LaneRewrites,
    assert_codex_read_only,
    changes,
    codex_parse,
    in_tree,
    tree_beside_outside,
)
from toolgate_cli.lanes import RewriteRefused, Rewritten
from toolgate_cli.lanes.base import PassFlag, RewriteOptions

_codex = LaneRewrites("codex", assert_codex_read_only)
rewrite, ok, refused = _codex.rewrite, _codex.ok, _codex.refused


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return tree_beside_outside(tmp_path)


# --- the binding ---------------------------------------------------------------------------------


def test_exec_gets_the_read_only_flags_once_each_right_after_the_subcommand() -> None:
    result = ok("exec", "explain main.py")
    assert result.invoke.args == ("exec", *CODEX_READ_ONLY, "explain main.py")
    assert result.binding.startswith("codex --sandbox read-only (codex's own sandbox)")
    added = [words for _, words in changes(result, "added")]
    assert [w for words in added for w in words] == list(CODEX_READ_ONLY)


def test_the_e_alias_is_a_lane_run_too() -> None:
    assert ok("e", "explain main.py").invoke.args == ("e", *CODEX_READ_ONLY, "explain main.py")


def test_review_runs_as_exec_review_the_only_form_that_takes_the_read_only_flags() -> None:
    result = ok("review", "--uncommitted")
    assert result.invoke.args == ("exec", *CODEX_READ_ONLY, "review", "--uncommitted")
    assert ("<subcommand>", ("review",)) in changes(result, "replaced")


def test_exec_review_is_a_lane_run_with_the_flags_on_exec() -> None:
    result = ok("exec", "--json", "review", "--base", "main")
    assert result.invoke.args == ("exec", *CODEX_READ_ONLY, "--json", "review", "--base", "main")


def test_top_level_options_before_the_subcommand_stay_there() -> None:
    result = ok("-m", "gpt-5", "exec", "--json", "explain main.py")
    assert result.invoke.args == (
        "-m",
        "gpt-5",
        "exec",
        *CODEX_READ_ONLY,
        "--json",
        "explain main.py",
    )


# --- every sandbox spelling ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        ["-s", "danger-full-access"],
        ["-sdanger-full-access"],
        ["-s=danger-full-access"],
        ["--sandbox", "workspace-write"],
        ["--sandbox=workspace-write"],
        ["--sandbox", "read-only"],
    ],
)
@pytest.mark.parametrize("where", ["top", "exec", "after-prompt"])
def test_every_template_sandbox_is_replaced_by_exactly_one_read_only(
    words: list[str], where: str
) -> None:
    if where == "top":
        args = [*words, "exec", "explain main.py"]
    elif where == "exec":
        args = ["exec", *words, "explain main.py"]
    else:
        args = ["exec", "explain main.py", *words]
    result = ok(*args)
    assert changes(result, "replaced") == [("--sandbox", tuple(words))]
    for word in words:
        if word not in ("--sandbox", "read-only"):
            assert word not in result.invoke.args


def test_repeated_sandboxes_leave_exactly_one() -> None:
    result = ok("-s", "danger-full-access", "exec", "-s=workspace-write", "--sandbox", "x", "a b")
    assert len(changes(result, "replaced")) == 3


@pytest.mark.parametrize(
    "flag",
    [
        "--dangerously-bypass-approvals-and-sandbox",
        "--yolo",
        "--full-auto",
        "--approve-for-me",
        "--dangerously-bypass-hook-trust",
    ],
)
@pytest.mark.parametrize("where", ["top", "exec", "after-prompt"])
def test_bypass_flags_are_stripped_wherever_they_stand(flag: str, where: str) -> None:
    args = {
        "top": [flag, "exec", "explain main.py"],
        "exec": ["exec", flag, "explain main.py"],
        "after-prompt": ["exec", "explain main.py", flag],
    }[where]
    result = ok(*args)
    assert flag not in result.invoke.args
    assert [w for _, w in changes(result, "stripped")] == [(flag,)]


def test_ask_for_approval_at_top_level_is_stripped() -> None:
    result = ok("-a", "on-request", "exec", "explain main.py")
    assert "-a" not in result.invoke.args and "on-request" not in result.invoke.args


# --- -c overrides --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "words",
    [
        ["-c", 'sandbox_mode="danger-full-access"'],
        ["-csandbox_mode=danger-full-access"],
        ["-c=sandbox_mode=danger-full-access"],
        ["--config", "sandbox_mode=workspace-write"],
        ["--config=sandbox_mode=workspace-write"],
        ["-c", ' sandbox_mode = "danger-full-access"'],
        ["-c", 'sandbox_permissions=["disk-full-read-access"]'],
        ["-c", "sandbox_workspace_write.network_access=true"],
        ["-c", "sandbox_workspace_write={writable_roots=['/']}"],
        ["-c", "approval_policy=never"],
    ],
)
@pytest.mark.parametrize("subcommand", ["exec", "review"])
def test_sandbox_config_overrides_are_stripped(words: list[str], subcommand: str) -> None:
    result = ok(subcommand, *words, "explain main.py")
    removed = changes(result, "stripped") + changes(result, "replaced")
    assert [w for flag, w in removed if flag != "<subcommand>"] == [tuple(words)]


@pytest.mark.parametrize(
    "words",
    [
        ["--ignore-user-config"],
        ["--ignore-rules"],
        ["--disable", "hooks"],
        ["--disable=hooks"],
        ["--disable", "shell_snapshot"],
        ["-c", "approval_policy=on-request"],
        ["-c", "approvals_reviewer=auto_review"],
    ],
)
def test_the_guards_toolgate_sets_are_never_doubled_or_undone(words: list[str]) -> None:
    result = ok("exec", *words, "explain main.py")
    assert result.invoke.args == ("exec", *CODEX_READ_ONLY, "explain main.py")


@pytest.mark.parametrize(
    "value",
    [
        "model_providers.x={name='x', base_url='http://h', auth={command='touch pwned'}}",
        "model_providers.x.auth.command='touch pwned'",
        "model_providers={x={name='x', auth={command='sh'}}}",
        "model_providers.x={unclosed",
    ],
)
def test_a_provider_override_that_could_run_an_auth_command_is_refused(value: str) -> None:
    assert "model_providers" in refused("exec", "-c", value, "explain main.py").reason


@pytest.mark.parametrize("feature", ["web_search", "unified_exec"])
def test_disabling_another_feature_is_refused(feature: str) -> None:
    assert "--disable" in refused("exec", "--disable", feature, "explain main.py").reason


def test_harmless_config_is_kept() -> None:
    result = ok("exec", "-c", 'model="o3"', "-c", "model_providers.stub={name='s'}", "a b")
    assert result.invoke.args[-5:] == (
        "-c",
        'model="o3"',
        "-c",
        "model_providers.stub={name='s'}",
        "a b",
    )


@pytest.mark.parametrize(
    "value",
    [
        "notify=['touch','x']",
        "mcp_servers.x.command='sh'",
        "profile=danger",
        "profiles.x.sandbox_mode='danger-full-access'",
        "features.x=true",
        "hooks.pre='x'",
    ],
)
def test_config_that_runs_programs_or_switches_profiles_is_refused(value: str) -> None:
    result = refused("exec", "-c", value, "explain main.py")
    assert value.partition("=")[0].split(".")[0] in result.reason


def test_an_unknown_config_key_is_refused_with_the_way_to_declare_it() -> None:
    result = refused("exec", "-c", "my_key.sub=1", "explain main.py")
    assert "--pass-config my_key.sub" in result.reason


def test_a_declared_config_key_and_its_children_are_kept() -> None:
    options = RewriteOptions(pass_config=frozenset({"my_key"}))
    ok("exec", "-c", "my_key.sub=1", "-c", "my_key=2", "explain main.py", options=options)
    refused("exec", "-c", "my_keyx=1", "explain main.py", options=options)


@pytest.mark.parametrize(
    "key", ["sandbox_mode", "notify", "mcp_servers", "sandbox_workspace_write"]
)
def test_pass_config_cannot_override_a_known_key(key: str) -> None:
    result = refused(
        "exec", "explain main.py", options=RewriteOptions(pass_config=frozenset({key}))
    )
    assert key in result.reason and "already knows" in result.reason


@pytest.mark.parametrize("value", ["sandbox_mode", "", "=x"])
def test_config_without_a_key_value_pair_is_refused(value: str) -> None:
    refused("exec", "-c", value, "explain main.py")


# --- refused flags -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("words", "named"),
    [
        (["--add-dir", "/elsewhere"], "--add-dir"),
        (["--worktree"], "--worktree"),
        (["-C", "/elsewhere"], "-C"),
        (["--cd=/elsewhere"], "--cd"),
        (["-p", "danger"], "-p"),
        (["--profile", "danger"], "--profile"),
        (["--enable", "x"], "--enable"),
        (["--disable", "x"], "--disable"),
        (["--remote", "ws://h:1"], "--remote"),
        (["--trust"], "--trust"),
    ],
)
def test_flags_that_widen_or_move_the_run_refuse_naming_the_flag_and_what_to_do(
    words: list[str], named: str
) -> None:
    result = refused("exec", *words, "explain main.py")
    assert named in result.reason
    assert "drop it" in result.reason or "remove it" in result.reason or "use" in result.reason


def test_output_file_inside_the_tree_is_refused(tree: Path) -> None:
    result = refused("exec", "-o", "last.txt", "explain main.py", options=in_tree(tree))
    assert "-o last.txt" in result.reason


def test_output_file_outside_the_tree_is_kept(tree: Path) -> None:
    out = str(tree.parent / "outside" / "last.txt")
    for words in (["-o", out], [f"--output-last-message={out}"], [f"-o{out}"]):
        result = ok("exec", *words, "explain main.py", options=in_tree(tree))
        assert result.invoke.args[1 + len(CODEX_READ_ONLY) : -1] == tuple(words)


def test_output_file_through_symlink_tricks_is_judged_where_it_lands(tree: Path) -> None:
    (tree / "out").symlink_to(tree.parent / "outside")
    ok("exec", "-o", "out/last.txt", "explain main.py", options=in_tree(tree))
    (tree.parent / "outside" / "back").symlink_to(tree / "src")
    back = str(tree.parent / "outside" / "back" / "last.txt")
    refused("exec", "-o", back, "explain main.py", options=in_tree(tree))
    dangling = tree.parent / "outside" / "last.txt"
    dangling.symlink_to(tree / "created.txt")
    refused("exec", "-o", str(dangling), "explain main.py", options=in_tree(tree))


def test_output_file_without_a_known_tree_is_refused() -> None:
    refused("exec", "-o", "/var/tmp/last.txt", "explain main.py")


# --- subcommands ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "subcommand", [s for s in CODEX_SUBCOMMANDS if s not in ("exec", "e", "review")]
)
def test_every_subcommand_that_is_not_a_lane_run_is_refused_naming_it(subcommand: str) -> None:
    result = refused(subcommand, "--help")
    assert subcommand in result.reason
    assert "codex exec" in result.reason


@pytest.mark.parametrize("nested", ["resume", "fork", "help"])
def test_exec_subcommands_that_are_not_a_run_are_refused(nested: str) -> None:
    result = refused("exec", nested, "--last")
    assert nested in result.reason


def test_a_top_level_prompt_starts_the_tui_and_is_refused() -> None:
    result = refused("explain main.py")
    assert "codex exec" in result.reason


@pytest.mark.parametrize("args", [[], ["-m", "gpt-5"], ["--", "exec", "x y"]])
def test_no_subcommand_is_refused(args: list[str]) -> None:
    refused(*args)


def test_an_unknown_subcommand_is_refused() -> None:
    assert "frobnicate" in refused("frobnicate", "x").reason


# codex 0.171.0 reads these as the prompt (measured, tests/e2e/test_codex_prompts.py): words that
# name no exec subcommand, prefixes of one (no clap prefix inference), other case, other levels'
# subcommands, and after `--` every word, subcommand names included.
@pytest.mark.parametrize(
    "args",
    [
        ["summarize"],
        ["go"],
        ["rev"],
        ["res"],
        ["hel"],
        ["r"],
        ["Review"],
        ["e"],
        ["exec"],
        ["apply"],
        ["--", "go"],
        ["--", "resume"],
        ["--", "fork"],
        ["--", "help"],
        ["--", "review"],
        ["--json", "--", "summarize"],
    ],
)
def test_a_one_word_exec_prompt_that_names_no_subcommand_is_the_prompt(args: list[str]) -> None:
    result = ok("exec", *args)
    parsed = codex_parse(result.invoke.args)
    assert parsed.nested is None and parsed.operands == [args[-1]], parsed
    assert result.invoke.args[-len(args) :] == tuple(args)
    assert not changes(result, "refused")


@pytest.mark.parametrize("word", ["resume", "fork", "help"])
def test_a_word_that_runs_an_exec_subcommand_is_still_refused(word: str) -> None:
    result = refused("exec", word)
    assert f"codex exec {word} (" in result.reason
    assert changes(result, "refused") == [("<subcommand>", (word,))]


def test_exec_review_named_as_one_word_is_the_review_run() -> None:
    result = ok("exec", "review")
    assert codex_parse(result.invoke.args).nested == "review"


def test_with_prefix_inference_a_prefix_of_a_subcommand_would_be_refused(monkeypatch) -> None:
    """Measured off for 0.171.0; were a version to turn it on, the table flips one constant
    and every prefix of an exec subcommand stops being a prompt."""
    from toolgate_cli.lanes import codex

    assert codex.EXEC_INFERS_PREFIXES is False
    assert codex.exec_subcommand_named_by("rev") is None
    monkeypatch.setattr(codex, "EXEC_INFERS_PREFIXES", True)
    assert codex.exec_subcommand_named_by("rev") == "review"
    assert codex.exec_subcommand_named_by("h") == "help"
    for word in ("res", "fo", "he"):
        assert word in refused("exec", word).reason
    assert "spell it out" in refused("exec", "rev").reason
    ok("exec", "summarize")
    ok("exec", "--", "res")


@pytest.mark.parametrize("prompt", ["explain main.py", "-", "Why?"])
def test_exec_prompts_that_cannot_name_a_subcommand_are_allowed(prompt: str) -> None:
    ok("exec", prompt)


def test_exec_without_a_prompt_reads_stdin_and_is_allowed() -> None:
    ok("exec", "--json")


def test_a_top_level_only_flag_after_exec_is_unknown_and_refused() -> None:
    result = refused("exec", "-a", "never", "explain main.py")
    assert "-a" in result.reason


def test_a_sandbox_flag_after_review_is_unknown_and_refused() -> None:
    refused("review", "--sandbox", "danger-full-access")


# --- grammar details that decide what codex reads ------------------------------------------------


@pytest.mark.parametrize("value", ["-x", "--yolo", "--"])
def test_a_value_that_looks_like_a_flag_is_refused_as_clap_would(value: str) -> None:
    refused("exec", "-m", value, "explain main.py")


def test_inserted_sandbox_goes_before_the_terminator_and_the_tail_is_untouched() -> None:
    tail = ("--", "--yolo", "-s", "danger-full-access")
    result = ok("exec", *tail)
    args = result.invoke.args
    assert args[args.index("--") :] == tail
    assert args.index("--sandbox") < args.index("--")
    assert codex_parse(args).operands == list(tail[1:])


def test_removing_a_flag_never_turns_the_prompt_into_an_image() -> None:
    template = ["exec", "-i", "a.png", "--yolo", "explain this image"]
    result = ok(*template)
    assert codex_parse(result.invoke.args).operands == ["explain this image"]
    images = [e.values for e in codex_parse(result.invoke.args).events if e.name == "--image"]
    assert images == [["a.png"]]


@pytest.mark.parametrize(
    "template",
    [
        ["-i", "a.png", "--yolo", "exec", "explain this image"],
        ["exec", "-i", "a.png", "--yolo", "review", "--uncommitted"],
    ],
)
def test_removing_a_flag_never_turns_the_subcommand_into_an_image(template: list[str]) -> None:
    # The word after the removed flag is a subcommand: the image list cannot be moved past it
    # (the options before a subcommand belong to the level before it), so toolgate must either
    # keep codex reading the same subcommand or refuse; it must never run something else.
    result = rewrite(*template)
    if isinstance(result, Rewritten):
        assert_codex_read_only(result.invoke.args)
        parsed = codex_parse(result.invoke.args)
        assert (parsed.subcommand, parsed.nested) == (
            codex_parse(template).subcommand,
            codex_parse(template).nested,
        )
    else:
        assert "-i a.png" in result.reason
        assert "\n" not in result.reason


def test_a_glued_flag_group_ending_in_the_image_list_keeps_every_image() -> None:
    # Found by the property test: the images after `-hi` were dropped from the output.
    result = ok("exec", "--yolo", "-hi", "a.png", "b.png")
    assert result.invoke.args[-3:] == ("-hi", "a.png", "b.png")


def test_a_subcommand_name_inside_an_image_list_is_an_image_not_a_subcommand() -> None:
    result = ok("exec", "-i", "a.png", "resume", "--json")
    assert codex_parse(result.invoke.args).nested is None


# --- pass-flag, env ------------------------------------------------------------------------------


def test_unknown_flag_is_refused_naming_it_and_pass_flag_keeps_it() -> None:
    result = refused("exec", "--frobnicate", "explain main.py")
    assert "--pass-flag --frobnicate" in result.reason
    options = RewriteOptions(pass_flags=(PassFlag("--frobnicate"),))
    ok("exec", "--frobnicate", "explain main.py", options=options)


@pytest.mark.parametrize("name", ["--sandbox", "-s", "--yolo", "-o", "--add-dir"])
def test_pass_flag_cannot_override_a_known_codex_flag(name: str) -> None:
    result = refused("exec", "x y", options=RewriteOptions(pass_flags=(PassFlag(name),)))
    assert "already knows" in result.reason


@pytest.mark.parametrize("name", ["-sdanger-full-access", "-Cx", "-pdanger"])
def test_pass_flag_cannot_smuggle_a_known_short_flag_glued_to_its_value(name: str) -> None:
    # clap reads `-sdanger-full-access` as `--sandbox danger-full-access`.
    result = rewrite("exec", name, "x y", options=RewriteOptions(pass_flags=(PassFlag(name),)))
    assert isinstance(result, RewriteRefused)


def test_environment_rules() -> None:
    ok("exec", "x y", env={"OPENAI_API_KEY": "k", "RUST_LOG": "debug", "X": None})
    assert "CODEX_HOME" in refused("exec", "x y", env={"CODEX_HOME": "/tmp/h"}).reason
    assert "LD_PRELOAD" in refused("exec", "x y", env={"LD_PRELOAD": "/x.so"}).reason
    assert "--pass-env STUB_KEY" in refused("exec", "x y", env={"STUB_KEY": "k"}).reason


# --- idempotence ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        ["exec", "explain main.py"],
        ["--yolo", "-m", "gpt-5", "exec", "-s", "danger-full-access", "--json", "x y"],
        ["review", "-c", "sandbox_mode=danger-full-access", "--uncommitted"],
        ["e", "--skip-git-repo-check", "review", "--base", "main"],
        ["exec", "x y", "--", "--yolo"],
    ],
)
def test_rewriting_the_output_again_changes_nothing(template: list[str]) -> None:
    once = ok(*template)
    assert ok(*once.invoke.args).invoke.args == once.invoke.args
