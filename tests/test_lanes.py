"""Which lane a command names, and what toolgate does with lanes it cannot or does not know."""

from __future__ import annotations

import pytest

from toolgate_cli.lanes import (
    LANES,
    REFUSED_LANES,
    LaneInvocation,
    RewriteRefused,
    Rewritten,
    lane_kind,
    read_only_invoke,
)


@pytest.mark.parametrize(
    ("command", "kind"),
    [
        ("claude", "claude"),
        ("/opt/x/bin/claude", "claude"),
        ("./claude", "claude"),
        ("claude.exe", "claude"),
        ("claude.cmd", "claude"),
        ("CLAUDE.CMD", "CLAUDE"),
        ("claude.EXE", "claude"),
        ("C:\\Program Files\\codex\\codex.exe", "codex"),
        ("C:/tools/codex.bat", "codex"),
        ("codex.ps1", "codex"),
        ("/usr/local/bin/opencode", "opencode"),
        ("claude-code", "claude-code"),
        ("claude.exe.cmd", "claude.exe"),
        ("/opt/claude/", ""),
    ],
)
def test_lane_kind_is_the_basename_without_a_windows_suffix(command: str, kind: str) -> None:
    assert lane_kind(command) == kind


@pytest.mark.parametrize("command", ["/opt/x/bin/claude", "claude.exe", "claude.cmd"])
def test_a_claude_by_any_path_or_suffix_is_rewritten_as_claude_and_keeps_its_command(
    command: str,
) -> None:
    result = read_only_invoke(LaneInvocation(command, ("-p", "review the diff")))
    assert isinstance(result, Rewritten)
    assert result.lane == "claude"
    assert result.invoke.command == command
    assert "--permission-mode" in result.invoke.args


@pytest.mark.parametrize("command", ["/opt/bin/codex", "codex.exe"])
def test_a_codex_by_any_path_or_suffix_is_rewritten_as_codex(command: str) -> None:
    result = read_only_invoke(LaneInvocation(command, ("exec", "explain main.py")))
    assert isinstance(result, Rewritten)
    assert result.lane == "codex"
    assert result.invoke.command == command


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("opencode", "opencode.json"),
        ("/usr/bin/opencode.exe", "opencode.json"),
        ("agy", "discards its whole answer"),
        ("gemini", "exit_plan_mode"),
    ],
)
def test_lanes_that_cannot_be_bound_are_refused_with_their_reason(command: str, why: str) -> None:
    result = read_only_invoke(LaneInvocation(command, ("run", "review the diff")))
    assert isinstance(result, RewriteRefused)
    assert why in result.reason
    assert lane_kind(command) in result.reason
    assert "cannot be made read-only" in result.reason
    assert [c.action for c in result.changes] == ["refused"]


@pytest.mark.parametrize(
    "command", ["bash", "sh", "python3", "node", "claudex", "claude-code", "CLAUDE", "", "/"]
)
def test_an_unknown_lane_is_refused_because_unknown_never_claims(command: str) -> None:
    result = read_only_invoke(LaneInvocation(command, ("-p", "claude")))
    assert isinstance(result, RewriteRefused)
    assert "unknown lane" in result.reason
    assert "unknown never claims" in result.reason
    for known in LANES:
        assert known in result.reason


def test_the_lane_tables_do_not_overlap() -> None:
    assert not set(LANES) & set(REFUSED_LANES)


def test_a_refused_lane_is_refused_whatever_its_arguments() -> None:
    # Even arguments that would be harmless for claude change nothing for opencode.
    result = read_only_invoke(LaneInvocation("opencode", ()))
    assert isinstance(result, RewriteRefused)


def test_invocation_args_are_stored_immutably_from_any_sequence() -> None:
    words = ["-p", "review the diff"]
    invocation = LaneInvocation("claude", words)  # type: ignore[arg-type]
    words.append("--dangerously-skip-permissions")
    assert invocation.args == ("-p", "review the diff")
