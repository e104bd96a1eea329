"""toolgate explain: the dispatch decision, for a person, and never a different command."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import click
import pytest

from tests.conftest import run_toolgate
from toolgate_cli.cli import LAZY_COMMANDS, app
from toolgate_cli.commands.common import build_request
from toolgate_cli.decision import decide_dispatch
from toolgate_cli.display import needs_escape, shell_join, shell_quote
from toolgate_cli.explanation import argument_starts, explain, refusal_advice
from toolgate_cli.lanes.base import Change

CLAUDE_CASE = [
    "--read-only",
    "--",
    "claude",
    "-p",
    "--allowedTools",
    "Write",
    "Edit",
    "--dangerously-skip-permissions",
    "--permission-mode",
    "acceptEdits",
    "--model",
    "opus",
    "review the diff",
]
CODEX_CASE = [
    "--read-only",
    "--",
    "codex",
    "--yolo",
    "exec",
    "-s",
    "workspace-write",
    "-c",
    'sandbox_mode="danger-full-access"',
    "explain main.py",
]
CLAUDE_REFUSED = ["--read-only", "--", "claude", "-p", "--agent", "evil", "x y"]

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def run_explain(args, *, env=None, cwd=None, columns=80):
    return run_toolgate(["explain", *args], env={"COLUMNS": str(columns), **(env or {})}, cwd=cwd)


def dispatch_json(args, cwd=None):
    result = run_toolgate(["dispatch", *args], cwd=cwd)
    return result.returncode, json.loads(result.stdout)


def command_line_section(output: str) -> list[str]:
    """The lines of the 'Command line' section, without their indent."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Command line"))
    section = []
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        section.append(line[2:])
    return section


def argv_run_by(section: list[str], command: str) -> list[bytes]:
    """What bash would pass to `command` if the section were pasted (command replaced by a
    function printing its argv, NUL-separated)."""
    if shutil.which("bash") is None:
        pytest.skip("bash is not installed")
    script = f"{command}() {{ printf '%s\\0' \"$@\"; }}\n" + "\n".join(section) + "\n"
    result = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
        check=True,
        timeout=10,
    )
    return result.stdout.split(b"\0")[:-1]


def _bytes(words):
    return [word.encode("utf-8", "surrogateescape") for word in words]


# --- the same decision as dispatch ------------------------------------------------------------


@pytest.mark.parametrize(("case", "lane"), [(CLAUDE_CASE, "claude"), (CODEX_CASE, "codex")])
def test_the_command_line_shown_is_the_one_dispatch_runs(case, lane):
    status, decision = dispatch_json(case)
    assert status == 0
    result = run_explain(case)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"ALLOWED: {lane} runs read-only")
    assert argv_run_by(command_line_section(result.stdout), lane) == _bytes(
        decision["invoke"]["args"]
    )


@pytest.mark.parametrize("case", [CLAUDE_CASE, CODEX_CASE, CLAUDE_REFUSED])
def test_every_change_of_the_decision_has_its_row(case):
    _, decision = dispatch_json(case)
    output = run_explain(case).stdout
    rows = [
        line
        for line in output.splitlines()
        if re.match(r"^(kept|replaced|stripped|added|refused) ", line)
    ]
    assert len(rows) == len(decision["changes"])
    for row, change in zip(rows, decision["changes"], strict=True):
        first_word = shell_quote(change["words"][0]) if change["words"] else "(nothing)"
        assert row.split()[0] == change["action"]
        assert row.split()[1] == first_word


def test_claude_case_names_what_was_replaced_and_stripped():
    output = run_explain(CLAUDE_CASE).stdout
    assert re.search(r"^replaced +--allowedTools Write Edit ", output, re.MULTILINE)
    assert re.search(r"^replaced +--permission-mode acceptEdits ", output, re.MULTILINE)
    assert re.search(r"^stripped +--dangerously-skip-permissions ", output, re.MULTILINE)
    assert "enforced by  claude --permission-mode dontAsk" in output


def test_an_alias_is_named_by_its_canonical_flag():
    output = run_explain(CODEX_CASE, columns=100).stdout
    assert re.search(r"^stripped +--yolo\b", output, re.MULTILINE)
    assert "(--dangerously-bypass-approvals-and-sandbox)" in output
    assert re.search(r"^replaced +-s workspace-write \(--sandbox\)", output, re.MULTILINE)


def test_explain_takes_exactly_the_options_of_dispatch():
    ctx = click.Context(app)
    dispatch = app.get_command(ctx, "dispatch")
    explain_command = app.get_command(ctx, "explain")
    assert dispatch is not None and explain_command is not None
    dispatch_only = {"output"}  # --json / --exec: how dispatch delivers, not what it decides
    assert {p.name for p in explain_command.params} == {
        p.name for p in dispatch.params
    } - dispatch_only
    assert "explain" in LAZY_COMMANDS


# --- refusals -------------------------------------------------------------------------------


def test_a_refused_flag_says_why_and_what_to_do_and_exits_3():
    status, _ = dispatch_json(CLAUDE_REFUSED)
    result = run_explain(CLAUDE_REFUSED)
    assert status == result.returncode == 3
    output = result.stdout
    assert output.startswith("REFUSED: claude cannot be made read-only as written")
    assert re.search(r"^refused +--agent evil ", output, re.MULTILINE)
    assert "What to do instead" in output
    assert "- drop --agent evil (an agent can carry its own tools" in output
    assert "Command line" not in output


def _outside_the_root(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree-other").mkdir()
    root, sibling = str(tmp_path / "tree"), str(tmp_path / "tree-other")
    return ["--read-only", "--caller-root", root, "--cwd", sibling, "--", "claude", "-p", "x y"]


@pytest.mark.parametrize(
    "case",
    [
        CLAUDE_REFUSED,
        ["--read-only", "--", "codex", "login"],
        ["--read-only", "--", "claude", "-p", "--agent", "a\nb", "x y"],
        "outside the root",
    ],
)
def test_a_refusal_puts_dispatchs_one_line_reason_on_stderr(case, tmp_path):
    """Issue 16: in a CI log the reason is what a person looks for; the picture stays on
    stdout."""
    args = _outside_the_root(tmp_path) if case == "outside the root" else case
    dispatched = run_toolgate(["dispatch", *args])
    result = run_explain(args)
    assert dispatched.returncode == result.returncode == 3
    assert result.stderr == dispatched.stderr
    assert result.stderr.startswith("toolgate: refused: ")
    assert len(result.stderr.splitlines()) == 1 and result.stderr.endswith("\n")
    assert result.stdout.startswith("REFUSED: ")
    assert "What to do instead" in result.stdout


def test_an_allowed_explanation_writes_nothing_on_stderr():
    result = run_explain(CLAUDE_CASE)
    assert result.returncode == 0 and result.stderr == ""


def test_help_says_the_refusal_reason_goes_to_stderr():
    text = " ".join(run_toolgate(["explain", "--help"]).stdout.split())
    assert "On a refusal the one-line reason also goes to stderr, as dispatch writes it" in text


def test_a_cwd_outside_the_caller_root_is_refused_with_the_verdict(tmp_path):
    root = tmp_path / "tree"
    sibling = tmp_path / "tree-other"
    root.mkdir()
    sibling.mkdir()
    args = [
        "--read-only",
        "--caller-root",
        str(root),
        "--cwd",
        str(sibling),
        "--",
        "claude",
        "-p",
        "x y",
    ]
    result = run_explain(args)
    assert result.returncode == 3
    assert result.stdout.startswith("REFUSED: a read-only lane may not run in this directory")
    assert "is outside the caller root" in result.stdout
    assert f"inside the caller root ({root.resolve()})" in result.stdout.replace("\n    ", " ")


@pytest.mark.parametrize(
    ("args", "advice"),
    [
        (
            ["--", "opencode", "run", "x y"],
            "use a lane toolgate can make read-only (claude, codex, copilot)",
        ),
        (["--", "codex", "login"], "run a lane: codex exec PROMPT"),
        (["--", "claude", "mcp", "list"], "run a lane: claude -p PROMPT"),
        (["--", "claude", "-p", "--frob", "x y"], "drop --frob, or if you know it is harmless"),
        (["--env", "FOO=1", "--", "claude", "-p", "x y"], "--pass-env FOO"),
        (["--", "codex", "exec", "-o", "out.txt", "x y"], "point -o at a file outside the caller"),
        (["--pass-flag", "--model", "--", "claude", "-p", "x y"], "drop that declaration"),
        (["--", "claude", "review the diff"], "add --print as a word of its own"),
        (["--lock-tree", "--", "claude", "review"], "--lock-only runs the template as given"),
    ],
)
def test_each_kind_of_refusal_gets_advice(args, advice):
    result = run_explain(["--read-only", *args], columns=100)
    assert result.returncode == 3
    joined = " ".join(line.strip() for line in result.stdout.splitlines())
    assert advice in joined


# --- untrusted text -----------------------------------------------------------------------


def test_a_bidi_override_is_shown_escaped_and_the_line_still_pastes():
    prompt = "review \u202egnp.tset\u202c the diff\nthen \u2066stop"
    args = ["--read-only", "--", "claude", "-p", prompt]
    result = run_explain(args)
    assert result.returncode == 0
    assert not needs_escape(result.stdout.replace("\n", ""))
    assert "$'review \\u202egnp.tset\\u202c the diff\\nthen \\u2066stop'" in result.stdout
    assert "Shown escaped" in result.stdout
    _, decision = dispatch_json(args)
    assert argv_run_by(command_line_section(result.stdout), "claude") == _bytes(
        decision["invoke"]["args"]
    )


def test_an_undecodable_byte_is_shown_as_the_byte_and_pastes_back():
    args = [b"--read-only", b"--", b"claude", b"-p", b"caf\xe9 au lait"]
    result = run_toolgate([b"explain", *args], env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert "$'caf\\xe9 au lait'" in result.stdout
    argv = argv_run_by(command_line_section(result.stdout), "claude")
    assert argv[-1] == b"caf\xe9 au lait"


def test_an_escape_in_a_refusal_reason_is_escaped_too():
    result = run_explain(["--read-only", "--", "claude", "-p", "--frob\u202e", "x y"])
    assert result.returncode == 3
    assert "\u202e" not in result.stdout
    assert "--frob\\u202e" in result.stdout


def test_arguments_are_never_read_as_markup_or_terminal_codes():
    prompt = "[bold red]x[/] :smile: \x1b[2J done"
    result = run_explain(["--read-only", "--", "claude", "-p", prompt])
    assert "\x1b" not in result.stdout
    assert "[bold red]x[/] :smile: \\x1b[2J done" in result.stdout


# --- colour and width ------------------------------------------------------------------------


def test_no_colour_when_piped():
    assert not ANSI.search(run_explain(CLAUDE_CASE).stdout)


def test_force_colour_colours_and_no_colour_wins():
    assert ANSI.search(run_explain(CLAUDE_CASE, env={"FORCE_COLOR": "1"}).stdout)
    both = run_explain(CLAUDE_CASE, env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).stdout
    assert not ANSI.search(both)


def test_with_colour_the_text_is_the_same():
    plain = run_explain(CLAUDE_CASE).stdout
    coloured = run_explain(CLAUDE_CASE, env={"FORCE_COLOR": "1"}).stdout
    assert (
        ANSI.sub("", coloured).replace("  ALLOWED  ", "ALLOWED: ").split("\n")[1:]
        == plain.split("\n")[1:]
    )


@pytest.mark.parametrize("case", [CLAUDE_CASE, CODEX_CASE, CLAUDE_REFUSED])
def test_readable_at_80_columns(case):
    output = run_explain(case, columns=80).stdout
    section = set(command_line_section(output)) if "Command line" in output else set()
    for line in output.splitlines():
        if len(line) <= 80:
            continue
        # Only a pasteable command line may run wider: an option and one value the terminal
        # wraps, never a line toolgate broke in the middle of a word.
        assert line[2:] in section
        assert len(line.split()) <= 3  # option, value, continuation backslash


def test_no_trailing_blanks():
    output = run_explain(CLAUDE_CASE).stdout
    assert all(line == line.rstrip() for line in output.splitlines())


# --- other outcomes and usage --------------------------------------------------------------


def test_without_read_only_it_says_nothing_is_enforced():
    result = run_explain(["--", "claude", "-p", "x y"])
    assert result.returncode == 0
    assert result.stdout.startswith("NOT READ-ONLY: claude runs exactly as given")
    assert command_line_section(result.stdout) == ["claude -p 'x y'"]


def test_answer_mode_spawns_nothing():
    result = run_explain(["--read-only", "--mode", "answer"])
    assert result.returncode == 0
    assert "nothing is spawned (answer mode)" in result.stdout
    assert "Command line" not in result.stdout


def test_a_cd_is_shown_when_the_lane_runs_elsewhere(tmp_path):
    (tmp_path / "sub dir").mkdir()
    args = [
        "--read-only",
        "--caller-root",
        str(tmp_path),
        "--cwd",
        "sub dir",
        "--",
        "codex",
        "exec",
        "x y",
    ]
    result = run_explain(args, cwd=tmp_path)
    assert result.returncode == 0
    section = command_line_section(result.stdout)
    where = shell_quote(str((tmp_path / "sub dir").resolve()))
    assert " ".join(section).startswith(f"cd {where} ")
    # bash runs the cd (into the real directory), then the lane with dispatch's argv.
    _, decision = dispatch_json(args, cwd=tmp_path)
    assert argv_run_by(section, "codex") == _bytes(decision["invoke"]["args"])


def test_usage_errors_are_one_line_without_traceback():
    result = run_explain([])
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_help_carries_an_example():
    result = run_toolgate(["explain", "--help"])
    assert result.returncode == 0
    assert re.search(r"^\s+toolgate explain --read-only -- ", result.stdout, re.MULTILINE)


# --- the pure explanation ---------------------------------------------------------------------


def _params(**overrides):
    params = {
        "lane_command": (),
        "mode": "agent",
        "read_only": True,
        "read_shell": False,
        "bash_prefixes": (),
        "cwd": None,
        "caller_root": None,
        "pass_flags": (),
        "pass_config": (),
        "pass_env": (),
        "env_pairs": (),
        "unset_env": (),
    }
    params.update(overrides)
    return params


def test_explain_is_pure_over_the_decision(tmp_path):
    request = build_request(
        _params(lane_command=("codex", "exec", "x y"), caller_root=str(tmp_path), cwd=str(tmp_path))
    )
    decision = decide_dispatch(request)
    assert decision.invoke is not None
    explained = explain(request, decision, str(tmp_path))
    assert explained.outcome == "read-only"
    assert explained.command_line == shell_join(["codex", *decision.invoke.args])
    assert explained.advice == ()
    elsewhere = explain(request, decision, str(Path(tmp_path).parent))
    assert elsewhere.command_line is not None
    assert elsewhere.command_line.text.startswith(f"cd {shell_quote(str(tmp_path.resolve()))} && ")


def test_argument_starts_follow_the_changes():
    args = ("--tools", "Read", "-p", "--model", "opus", "the prompt")
    changes = (
        Change("added", "--tools", ("--tools", "Read"), ""),
        Change("kept", "--print", ("-p",), ""),
        Change("kept", "--model", ("--model", "opus"), ""),
    )
    assert argument_starts(args, changes) == {0, 2, 3, 5}
    subcommand = (Change("kept", "<subcommand>", ("exec",), ""), *changes)
    assert argument_starts(("exec", *args), subcommand) == {1, 3, 4, 6}


def test_advice_is_not_repeated(tmp_path):
    request = build_request(
        _params(
            lane_command=("claude", "-p", "--agent", "a", "--agent", "a", "x y"),
            caller_root=str(tmp_path),
            cwd=str(tmp_path),
        )
    )
    decision = decide_dispatch(request)
    assert not decision.ok
    assert refusal_advice(decision, verdict_refused=False) == (
        "drop --agent a (an agent can carry its own tools and permission mode)",
    )
