"""`toolgate check-command`, run as a user runs it (subprocess)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_toolgate
from toolgate_cli.shell import MAX_COMMAND_CHARS, REFUSAL_CODES


def test_an_admitted_command_exits_0_and_shows_the_words() -> None:
    result = run_toolgate(["check-command", "--", "git log --format='%H %s' -5"])
    assert result.returncode == 0
    assert result.stdout == "allowed: git log '--format=%H %s' -5\n"
    assert result.stderr == ""


def test_a_refused_command_exits_1_with_one_line_on_stderr() -> None:
    result = run_toolgate(["check-command", "--", "find . -delete"])
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert "`-delete`" in result.stderr and "deletes" in result.stderr


@pytest.mark.parametrize(
    ("command", "allowed", "code"),
    [
        ("ls -la", True, "ok"),
        ("ls; rm x", False, "not-allowed"),
        ("ls | head -3", True, "ok"),
        ("ls > x", False, "operator"),
        ("sudo ls", False, "wrapper"),
        ("rm x", False, "not-allowed"),
        ("", False, "empty"),
    ],
)
def test_json_output_is_the_documented_object(command: str, allowed: bool, code: str) -> None:
    result = run_toolgate(["check-command", "--json", "--", command])
    assert result.returncode == (0 if allowed else 1)
    assert result.stderr == ""
    verdict = json.loads(result.stdout)
    assert set(verdict) == {"allowed", "code", "message", "words", "parts"}
    assert verdict["allowed"] is allowed
    assert verdict["code"] == code and code in REFUSAL_CODES
    assert (verdict["message"] == "") is allowed
    assert (verdict["words"] is not None) is (allowed and len(verdict["parts"]) == 1)
    for part in verdict["parts"]:
        assert set(part) == {"text", "allowed", "code", "message", "words", "redirects", "operator"}
        assert part["code"] in REFUSAL_CODES
    assert all(part["allowed"] for part in verdict["parts"]) is (allowed or not verdict["parts"])


def test_dash_reads_the_command_from_stdin_dropping_one_newline() -> None:
    result = run_toolgate(["check-command", "--json", "-"], input="git status\n")
    assert result.returncode == 0
    assert json.loads(result.stdout)["words"] == ["git", "status"]
    two_lines = run_toolgate(["check-command", "-"], input="ls\nrm -rf x\n")
    assert two_lines.returncode == 1
    assert "(part 2 of 2)" in two_lines.stderr and "`rm`" in two_lines.stderr


def test_an_oversized_stdin_command_is_refused_unread() -> None:
    result = run_toolgate(["check-command", "--json", "-"], input="l" * (MAX_COMMAND_CHARS * 5))
    assert result.returncode == 1
    assert json.loads(result.stdout)["code"] == "too-long"


def test_allow_bash_prefix_admits_under_the_same_checks() -> None:
    assert run_toolgate(["check-command", "--", "yq . a.json"]).returncode == 1
    ok = run_toolgate(["check-command", "--allow-bash-prefix", "yq", "--", "yq . a.json"])
    assert ok.returncode == 0
    redirect = run_toolgate(["check-command", "--allow-bash-prefix", "yq", "--", "yq . > a"])
    assert redirect.returncode == 1


@pytest.mark.parametrize(
    "args",
    [
        ["check-command"],
        ["check-command", "--", "ls", "-la"],
        ["check-command", "--allow-bash-prefix", "sudo", "--", "ls"],
        ["check-command", "--allow-bash-prefix", "git", "--", "git add x"],
        ["check-command", "--nope", "--", "ls"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = run_toolgate(args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr


def test_help_has_an_example_and_the_codes() -> None:
    result = run_toolgate(["check-command", "--help"])
    assert result.returncode == 0
    assert "toolgate check-command -- 'git log --oneline | head -20'" in result.stdout
    for code in REFUSAL_CODES:
        assert code in result.stdout
    group = run_toolgate(["hook", "--help"])
    assert group.returncode == 0
    assert "Example" in group.stdout


def test_a_compound_is_shown_with_its_operators_and_redirections() -> None:
    result = run_toolgate(["check-command", "--", "git log --format='%h %s' 2>/dev/null | head -3"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "allowed: git log '--format=%h %s' 2>/dev/null | head -3\n"


def test_cd_and_globs_are_judged_in_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "trap").mkdir()
    (tmp_path / "trap" / "-delete").write_text("x")
    root = ["--caller-root", str(tmp_path)]
    ok = run_toolgate(["check-command", *root, "--", "cd src && ls *"], cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout == "allowed: cd src && ls '*'\n"
    no_root = run_toolgate(["check-command", "--", "cd src && ls"], cwd=tmp_path)
    assert no_root.returncode == 1 and "--caller-root" in no_root.stderr
    trap = run_toolgate(["check-command", *root, "--json", "--", "cd trap; ls *"], cwd=tmp_path)
    verdict = json.loads(trap.stdout)
    assert trap.returncode == 1 and verdict["code"] == "glob"
    assert [part["allowed"] for part in verdict["parts"]] == [True, False]
    assert "`-delete`" in verdict["parts"][1]["message"]
    relative = run_toolgate(["check-command", "--caller-root", "rel", "--", "ls"])
    assert relative.returncode == 2
