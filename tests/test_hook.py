"""The Claude Code PreToolUse hook: the pure decision, the byte-level protocol, the click-free
fast path through the real entry point, and the hot-path import contract."""

from __future__ import annotations

import io
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_toolgate, toolgate_env
from toolgate_cli.hook import (
    DENIED_TOOLS,
    MAX_EVENT_BYTES,
    READ_TOOLS,
    decide_pretooluse,
    decide_pretooluse_bytes,
)
from toolgate_cli.hook_main import BLOCKING_ERROR, parse_fast_path_args, run_pretooluse


def event(tool_name: object, tool_input: object, **extra: object) -> dict[str, object]:
    """A PreToolUse event shaped like the ones Claude Code sends."""
    return {
        "session_id": "s-1",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": "/repo",
        "permission_mode": "dontAsk",
        "hook_event_name": "PreToolUse",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "toolu_01",
        **extra,
    }


def bash(command: object, **extra: object) -> dict[str, object]:
    return event("Bash", {"command": command, "description": "d", **extra})


def decision(response: dict[str, object]) -> tuple[str, str]:
    """(permissionDecision, permissionDecisionReason), after checking the exact shape."""
    assert set(response) == {"hookSpecificOutput"}
    output = response["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert set(output) == {"hookEventName", "permissionDecision", "permissionDecisionReason"}
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] in {"allow", "deny"}
    reason = output["permissionDecisionReason"]
    assert isinstance(reason, str) and reason and "\n" not in reason
    return output["permissionDecision"], reason


# --------------------------------------------------------------------------------------------
# The decision
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["ls", "git log --oneline -5", "rg -n TODO", "cat README.md"])
def test_read_only_bash_is_allowed(command: str) -> None:
    assert decision(decide_pretooluse(bash(command)))[0] == "allow"


@pytest.mark.parametrize(
    ("command", "mentions"),
    [
        ("touch x", "`touch`"),
        ("echo hi > f", "redirection `> f`"),
        ("git -c core.pager=sh log", "`-c`"),
        ("find . -delete", "`-delete`"),
        ("ls && rm x", "`rm`"),
        ("ls | sh", "`sh`"),
        ("sudo ls", "`sudo`"),
    ],
)
def test_writing_bash_is_denied_with_the_checker_reason(command: str, mentions: str) -> None:
    verdict, reason = decision(decide_pretooluse(bash(command)))
    assert verdict == "deny"
    assert reason.startswith("toolgate read access: ")
    assert mentions in reason


def test_extra_prefixes_reach_the_checker() -> None:
    assert decision(decide_pretooluse(bash("yq . x.json")))[0] == "deny"
    assert decision(decide_pretooluse(bash("yq . x.json"), ["yq"]))[0] == "allow"
    assert decision(decide_pretooluse(bash("yq . x.json > y"), ["yq"]))[0] == "deny"


def test_background_bash_is_denied() -> None:
    verdict, reason = decision(decide_pretooluse(bash("ls", run_in_background=True)))
    assert verdict == "deny"
    assert "run_in_background" in reason
    assert decision(decide_pretooluse(bash("ls", run_in_background=False)))[0] == "allow"


@pytest.mark.parametrize("tool", list(READ_TOOLS))
def test_read_tools_are_allowed(tool: str) -> None:
    assert decision(decide_pretooluse(event(tool, {"file_path": "/repo/x"})))[0] == "allow"


@pytest.mark.parametrize("tool", list(DENIED_TOOLS))
def test_denied_tools_carry_their_reason(tool: str) -> None:
    verdict, reason = decision(decide_pretooluse(event(tool, {"file_path": "/repo/x"})))
    assert verdict == "deny"
    assert DENIED_TOOLS[tool] in reason
    assert "Read" in reason  # tells the model what it can use instead


@pytest.mark.parametrize(
    "tool", ["mcp__github__create_issue", "mcp__fs__read_file", "SomeFutureTool", "bash", "read"]
)
def test_mcp_and_unknown_tools_are_denied(tool: str) -> None:
    verdict, reason = decision(decide_pretooluse(event(tool, {})))
    assert verdict == "deny"
    assert tool in reason


@pytest.mark.parametrize(
    ("bad_event", "mentions"),
    [
        ([], "not a JSON object"),
        ("Bash", "not a JSON object"),
        (None, "not a JSON object"),
        ({"tool_name": "Read", "tool_input": {}}, "expected PreToolUse"),
        ({**event("Read", {}), "hook_event_name": "PostToolUse"}, "`PostToolUse`"),
        ({**event("Read", {}), "hook_event_name": 7}, "missing"),
        (event(None, {}), "`tool_name`"),
        (event("", {}), "`tool_name`"),
        (event(["Bash"], {}), "`tool_name`"),
        (event("Read", None), "no input object"),
        (event("Bash", "ls"), "no input object"),
        (event("Bash", {}), "`command`"),
        (bash(None), "`command`"),
        (bash(["ls"]), "`command`"),
        (bash("ls", run_in_background="yes"), "run_in_background"),
    ],
)
def test_malformed_events_are_denied(bad_event: object, mentions: str) -> None:
    verdict, reason = decision(decide_pretooluse(bad_event))
    assert verdict == "deny"
    assert mentions in reason


def test_a_tool_name_with_control_characters_is_escaped_in_the_reason() -> None:
    verdict, reason = decision(decide_pretooluse(event("Write\n\u202eevil", {})))
    assert verdict == "deny"
    assert "\n" not in reason and "\u202e" not in reason


# --------------------------------------------------------------------------------------------
# Bytes in, decision out
# --------------------------------------------------------------------------------------------


def as_bytes(value: object) -> bytes:
    return json.dumps(value).encode()


def test_bytes_round_trip() -> None:
    assert decision(decide_pretooluse_bytes(as_bytes(bash("ls"))))[0] == "allow"
    assert decision(decide_pretooluse_bytes(as_bytes(bash("rm x"))))[0] == "deny"


@pytest.mark.parametrize(
    ("raw", "mentions"),
    [
        (b"", "not JSON"),
        (b"{", "not JSON"),
        (b"ls", "not JSON"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b'{"a": 1, "a": 2}', "duplicate key"),
        (b"[" * 200_000, "nested too deeply"),
        (b" " * (MAX_EVENT_BYTES + 1), "larger than"),
    ],
)
def test_unreadable_input_is_denied(raw: bytes, mentions: str) -> None:
    verdict, reason = decision(decide_pretooluse_bytes(raw))
    assert verdict == "deny"
    assert mentions in reason


def test_a_smuggled_second_command_key_is_denied() -> None:
    raw = (
        b'{"hook_event_name": "PreToolUse", "tool_name": "Bash", '
        b'"tool_input": {"command": "ls", "command": "rm -rf x"}}'
    )
    verdict, reason = decision(decide_pretooluse_bytes(raw))
    assert verdict == "deny"
    assert "duplicate key `command`" in reason


def test_a_large_but_bounded_event_is_decided() -> None:
    big = event("Write", {"file_path": "/x", "content": "a" * (MAX_EVENT_BYTES // 2)})
    assert decision(decide_pretooluse_bytes(as_bytes(big)))[0] == "deny"


# --------------------------------------------------------------------------------------------
# The fast path's own argument parsing and I/O
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "parsed"),
    [
        ([], ([], None)),
        (["--allow-bash-prefix", "yq"], (["yq"], None)),
        (
            ["--allow-bash-prefix=yq", "--allow-bash-prefix", "git shortlog"],
            (["yq", "git shortlog"], None),
        ),
        (["--caller-root", "/repo", "--allow-bash-prefix=yq"], (["yq"], "/repo")),
        (["--caller-root=/a=b"], ([], "/a=b")),
        (["--help"], None),
        (["-h"], None),
        (["--allow-bash-prefix"], None),
        (["--allow-bash-prefix", "sudo"], None),
        (["--allow-bash-prefix", "git fetch"], None),
        (["--allow-bash-prefix=git"], None),
        (["--caller-root"], None),
        (["--caller-root", "relative/dir"], None),
        (["--caller-root", "/a", "--caller-root", "/b"], None),
        (["--unknown"], None),
        (["extra"], None),
    ],
)
def test_fast_path_arguments(args: list[str], parsed: tuple[list[str], str | None] | None) -> None:
    assert parse_fast_path_args(args) == parsed


def test_run_pretooluse_writes_one_json_line() -> None:
    stdout = io.BytesIO()
    status = run_pretooluse([], io.BytesIO(as_bytes(bash("ls"))), stdout)
    assert status == 0
    lines = stdout.getvalue().decode("ascii").splitlines()
    assert len(lines) == 1
    assert decision(json.loads(lines[0]))[0] == "allow"


class _ExplodingInput(io.BytesIO):
    def read(self, size: int | None = -1) -> bytes:
        raise RuntimeError("boom")


class _ClosedOutput(io.BytesIO):
    def write(self, data: object) -> int:
        raise BrokenPipeError("closed")


def test_a_failure_while_deciding_is_a_deny() -> None:
    stdout = io.BytesIO()
    assert run_pretooluse([], _ExplodingInput(), stdout) == 0
    verdict, reason = decision(json.loads(stdout.getvalue()))
    assert verdict == "deny"
    assert "internal error (RuntimeError)" in reason


def test_an_unwritable_stdout_exits_with_the_blocking_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_pretooluse([], io.BytesIO(as_bytes(bash("ls"))), _ClosedOutput()) == 2
    assert BLOCKING_ERROR == 2
    assert "blocking" in capsys.readouterr().err


# --------------------------------------------------------------------------------------------
# Through the real entry point, in a subprocess
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "args", "expected"),
    [
        (bash("git status"), [], "allow"),
        (bash("git log --oneline -3"), [], "allow"),
        (bash("touch x"), [], "deny"),
        (bash("echo hi > f"), [], "deny"),
        (bash("git -c core.pager=sh log"), [], "deny"),
        (bash("find . -delete"), [], "deny"),
        (bash("ls && rm x"), [], "deny"),
        (bash("yq . x.json"), ["--allow-bash-prefix", "yq"], "allow"),
        (bash("yq . x.json"), ["--allow-bash-prefix=yq"], "allow"),
        (bash("yq . x.json"), [], "deny"),
        (bash("git log --oneline | head -3"), [], "allow"),
        (bash("git status && touch x"), [], "deny"),
        (event("Read", {"file_path": "/repo/README.md"}), [], "allow"),
        (event("Edit", {"file_path": "/repo/README.md"}), [], "deny"),
        (event("mcp__x__y", {}), [], "deny"),
    ],
)
def test_the_hook_through_the_entry_point(
    payload: dict[str, object], args: list[str], expected: str
) -> None:
    result = run_toolgate(["hook", "claude-pretooluse", *args], input=json.dumps(payload))
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert decision(json.loads(result.stdout))[0] == expected


@pytest.mark.parametrize("raw", ["", "not json", "[1, 2]", "{}"])
def test_the_entry_point_denies_malformed_input_with_exit_0(raw: str) -> None:
    result = run_toolgate(["hook", "claude-pretooluse"], input=raw)
    assert result.returncode == 0, result.stderr
    assert decision(json.loads(result.stdout))[0] == "deny"


def test_a_bad_prefix_is_a_usage_error_which_blocks() -> None:
    result = run_toolgate(
        ["hook", "claude-pretooluse", "--allow-bash-prefix", "sudo"], input=json.dumps(bash("ls"))
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "sudo" in result.stderr


def test_help_goes_to_click() -> None:
    result = run_toolgate(["hook", "claude-pretooluse", "--help"])
    assert result.returncode == 0
    assert "Example" in result.stdout
    assert "--allow-bash-prefix" in result.stdout


def test_the_click_command_answers_like_the_fast_path() -> None:
    # `--allow-bash-prefix jq --` is not understood by the fast path, so click runs the hook.
    payload = json.dumps(bash("jq . x.json"))
    via_click = run_toolgate(
        ["hook", "claude-pretooluse", "--allow-bash-prefix", "jq", "--"], input=payload
    )
    via_fast_path = run_toolgate(
        ["hook", "claude-pretooluse", "--allow-bash-prefix", "jq"], input=payload
    )
    assert via_click.returncode == via_fast_path.returncode == 0
    assert via_click.stdout == via_fast_path.stdout


def test_a_broken_hook_module_exits_2_not_1() -> None:
    code = (
        "import toolgate_cli.hook_main as h\n"
        "def boom(args): raise RuntimeError('broken')\n"
        "h.fast_path = boom\n"
        "from toolgate_cli.__main__ import main\n"
        "main(['hook', 'claude-pretooluse'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=b"{}",
        capture_output=True,
        env=toolgate_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert b"internal error (RuntimeError)" in done.stderr


# --------------------------------------------------------------------------------------------
# The hot path's import contract
# --------------------------------------------------------------------------------------------

OFF_THE_HOT_PATH = {"click", "rich", "typing", "dataclasses", "inspect", "pathlib"}
# Measured against what the interpreter loaded before toolgate ran: an editable install's
# setuptools finder (a .pth file) imports pathlib at start-up, which is not the hook's doing.


def _importtime_modules(*args: str, stdin: bytes = b"") -> tuple[set[str], bytes]:
    """Top-level names of the modules `python -X importtime ARGS` imported, and its stdout."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *args],
        input=stdin,
        capture_output=True,
        env=toolgate_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = {
        line.split("|")[-1].strip().split(".")[0]
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return names, done.stdout


def _hook_modules(arguments: list[str], command: str) -> set[str]:
    """Run the real hook with `arguments` on a Bash event for `command` in a fresh interpreter;
    assert it allowed it and return the modules it added to sys.modules."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "from toolgate_cli.__main__ import main\n"
        "try:\n"
        f"    main(['hook', 'claude-pretooluse', *{arguments!r}])\n"
        "except SystemExit as stop:\n"
        "    status = stop.code\n"
        "added = sorted(set(sys.modules) - before)\n"
        "sys.stderr.write('STATUS %s MODULES %s' % (status, ' '.join(added)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(bash(command)).encode(),
        capture_output=True,
        env=toolgate_env(),
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert decision(json.loads(done.stdout))[0] == "allow"
    status, modules = done.stderr.decode().split(" MODULES ")
    assert status == "STATUS 0"
    return set(modules.split())


def test_the_hook_imports_none_of_the_heavy_modules() -> None:
    """Run the real hook in a fresh interpreter, then list what it added to sys.modules."""
    added = _hook_modules(["--allow-bash-prefix", "jq"], "git log -5")
    assert "toolgate_cli.shell" in added and "toolgate_cli.hook" in added
    top_level = {name.split(".")[0] for name in added}
    assert not (top_level & OFF_THE_HOT_PATH), sorted(top_level & OFF_THE_HOT_PATH)


def test_importtime_of_the_module_entry_point_shows_none_of_them() -> None:
    """`python -X importtime -m toolgate_cli hook claude-pretooluse < event.json`, compared with
    the same interpreter running runpy (what `-m` costs) and nothing else."""
    baseline, _ = _importtime_modules("-c", "import runpy")
    imported, stdout = _importtime_modules(
        "-m", "toolgate_cli", "hook", "claude-pretooluse", stdin=json.dumps(bash("rm x")).encode()
    )
    assert decision(json.loads(stdout))[0] == "deny"
    assert "toolgate_cli" in imported
    added = imported - baseline
    assert not (added & OFF_THE_HOT_PATH), sorted(added & OFF_THE_HOT_PATH)


# Recorded from claude 2.1.197 (a PreToolUse hook that copied its stdin), paths shortened.
RECORDED_BASH_EVENT = (
    '{"session_id":"b9abdab5-72dd-49cd-b7ff-3abfbc3d5e88","transcript_path":"/home/.claude/'
    'projects/-tree/b9abdab5-72dd-49cd-b7ff-3abfbc3d5e88.jsonl","cwd":"/tmp/tree","prompt_id":'
    '"6adcdaaf-e230-407d-8ea4-d3b894035a83","permission_mode":"dontAsk","effort":{"level":"high"},'
    '"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status",'
    '"description":"st"},"tool_use_id":"toolu_stub_000"}'
)


def test_a_recorded_claude_event_is_decided_through_the_entry_point() -> None:
    result = run_toolgate(["hook", "claude-pretooluse"], input=RECORDED_BASH_EVENT)
    assert result.returncode == 0
    assert decision(json.loads(result.stdout))[0] == "allow"
    denied = RECORDED_BASH_EVENT.replace('"git status"', '"git status; touch x"')
    result = run_toolgate(["hook", "claude-pretooluse"], input=denied)
    assert decision(json.loads(result.stdout))[0] == "deny"


# --------------------------------------------------------------------------------------------
# Compound commands, cd and the caller root
# --------------------------------------------------------------------------------------------


def test_a_compound_command_imports_the_grammar_and_none_of_the_heavy_modules() -> None:
    added = _hook_modules([], "git log --oneline | head -5 && git status")
    assert "tree_sitter._binding" in added
    top_level = {name.split(".")[0] for name in added}
    assert not (top_level & OFF_THE_HOT_PATH), sorted(top_level & OFF_THE_HOT_PATH)


@pytest.fixture
def hook_tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for directory in ("src", "trap", "nested/.git"):
        (root / directory).mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "trap" / "-delete").write_text("x")
    return root


@pytest.mark.parametrize(
    ("command", "cwd", "root", "expected"),
    [
        ("cd src && git status", "", True, "allow"),
        ("cd src && ls", "", False, "deny"),  # no --caller-root: cd cannot be confined
        ("cd nested && git status", "", True, "deny"),
        ("git status", "nested", True, "deny"),  # claude kept the session's cd between calls
        ("git status", "nested", False, "allow"),  # without a root: judged as before
        ("ls *", "trap", True, "deny"),
        ("ls *", "src", False, "allow"),
        ("cd .. && ls", "src", True, "deny"),
    ],
)
def test_the_hook_judges_in_the_event_cwd_with_the_caller_root(
    hook_tree: Path, command: str, cwd: str, root: bool, expected: str
) -> None:
    args = ["hook", "claude-pretooluse"] + (["--caller-root", str(hook_tree)] if root else [])
    payload = json.dumps(bash(command, cwd=str(hook_tree / cwd)))
    payload = payload.replace('"cwd": "/repo"', f'"cwd": {json.dumps(str(hook_tree / cwd))}')
    result = run_toolgate(args, input=payload)
    assert result.returncode == 0, result.stderr
    assert decision(json.loads(result.stdout))[0] == expected


def test_a_relative_or_repeated_caller_root_is_a_usage_error() -> None:
    for args in (["--caller-root", "rel"], ["--caller-root=/a", "--caller-root=/b"]):
        result = run_toolgate(["hook", "claude-pretooluse", *args], input=json.dumps(bash("ls")))
        assert result.returncode == 2, args
        assert result.stdout == ""


def test_read_shell_installs_the_hook_with_the_resolved_caller_root(tmp_path: Path) -> None:
    from toolgate_cli.dispatching import build_request

    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    params = {
        "lane_command": ("claude", "-p", "x"), "read_only": True, "read_shell": True,
        "lock_tree": False, "lock_only": False, "mode": "agent", "cwd": None,
        "caller_root": str(link), "bash_prefixes": ("yq",), "pass_flags": (),
        "pass_config": (), "pass_env": (), "env_pairs": (), "unset_env": (),
    }  # fmt: skip
    hook = build_request(params).options.read_shell_hook
    assert hook is not None
    words = shlex.split(hook)
    assert words[words.index("--caller-root") + 1] == str(tmp_path.resolve())
    assert parse_fast_path_args(words[words.index("claude-pretooluse") + 1 :]) == (
        ["yq"],
        str(tmp_path.resolve()),
    )
