"""`toolgate dispatch` through the real entry point, as a user or a script runs it.

Every run is checked for the CLI contract (`assert_contract`): stdout is empty or exactly one
complete JSON object, stderr is empty on success and exactly one line otherwise, and no
traceback ever appears. Exec mode runs a fake lane (a script this file writes) that reports
the argv (as bytes), cwd, pid and selected environment it was started with.

The last section calls `execlane.exec_lane` in-process with an `execvpe` double, to swap a
directory for a symlink between the verdict and the exec.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_toolgate, toolgate_argv, toolgate_env
from tests.lane_checks import CODEX_READ_ONLY
from toolgate_cli import exitcodes
from toolgate_cli.decision import DispatchRequest, decide_dispatch
from toolgate_cli.execlane import ExecFailure, exec_lane
from toolgate_cli.lanes import LANES
from toolgate_cli.lanes.base import LaneInvocation

FAKE_LANE = """#!{python}
import json, os, signal, sys
if sys.argv[1:] == ["--version"]:
    # As the real lane answers; FAKE_VERSION_OUTPUT stands for another release. Each question is
    # logged (FAKE_VERSION_LOG) so a test sees when toolgate asked and when its cache answered.
    if os.environ.get("FAKE_VERSION_LOG"):
        with open(os.environ["FAKE_VERSION_LOG"], "a") as log:
            log.write(sys.argv[0] + "\\n")
    print(os.environ.get("FAKE_VERSION_OUTPUT", {version_output!r}))
    sys.exit(0)
report = {{
    "argv_hex": [os.fsencode(word).hex() for word in sys.argv],
    "cwd": os.getcwd(),
    "pid": os.getpid(),
    "env": {{name: os.environ.get(name) for name in os.environ.get("FAKE_SHOW", "").split(",")
            if name}},
}}
sys.stdout.write(json.dumps(report))
sys.stdout.flush()
if os.environ.get("FAKE_SIGNAL"):
    os.kill(os.getpid(), int(os.environ["FAKE_SIGNAL"]))
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
"""


def assert_contract(result: subprocess.CompletedProcess[str], *, exec_ran: bool = False) -> None:
    """stdout empty or one complete JSON object; stderr one line on failure; no traceback."""
    assert "Traceback" not in result.stderr
    assert "Traceback" not in result.stdout
    if not exec_ran and result.stdout:
        assert result.stdout.endswith("\n")
        assert result.stdout.count("\n") == 1
        json.loads(result.stdout)
    if result.returncode == 0:
        assert result.stderr == ""
    else:
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("toolgate"), lines[0]


def dispatch(*args: str | bytes, cwd: Path | None = None, **env: str) -> Any:
    """Run dispatch in JSON mode; return (process, parsed JSON or None)."""
    result = run_toolgate(["dispatch", *args], cwd=cwd, env=env or None)
    assert_contract(result)
    return result, (json.loads(result.stdout) if result.stdout else None)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """x/tree (with src/), x/tree-other, outside/; returns x/tree."""
    (tmp_path / "x" / "tree" / "src").mkdir(parents=True)
    (tmp_path / "x" / "tree-other").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path / "x" / "tree"


@pytest.fixture
def fake_bin(tmp_path: Path) -> Path:
    """A directory holding executable fake `claude` and `codex` lanes."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("claude", "codex"):
        lane = bin_dir / name
        lane.write_text(fake_lane_text(name))
        lane.chmod(0o755)
    return bin_dir


def fake_lane_text(kind: str) -> str:
    """A fake lane that answers `--version` as the newest proven `kind` does."""
    newest = LANES[kind].versions.newest_proven
    output = {"claude": f"{newest} (Claude Code)", "codex": f"codex-cli {newest}"}[kind]
    return FAKE_LANE.format(python=sys.executable, version_output=output)


def real(path: Path) -> str:
    return os.path.realpath(path)


def in_tree(tree: Path, where: Path | None = None) -> list[str]:
    return ["--read-only", "--cwd", str(where or tree), "--caller-root", str(tree)]


# --- JSON mode -----------------------------------------------------------------------------------


def test_json_is_the_default_and_has_the_documented_shape(tree: Path) -> None:
    result, out = dispatch(*in_tree(tree, tree / "src"), "--", "claude", "-p", "review the diff")
    assert result.returncode == exitcodes.OK
    assert out["ok"] is True
    assert out["cwd"] == real(tree / "src")
    assert out["invoke"]["command"] == "claude"
    assert out["invoke"]["args"][-2:] == ["-p", "review the diff"]
    assert out["invoke"]["env"] == {}
    assert "dontAsk" in out["binding"]
    assert {"action", "flag", "words", "reason"} <= set(out["changes"][0])
    assert out["refusal"] is None
    explicit, _ = dispatch(
        *in_tree(tree, tree / "src"), "--json", "--", "claude", "-p", "review the diff"
    )
    assert explicit.stdout == result.stdout


def test_codex_json_carries_the_sandbox(tree: Path) -> None:
    _, out = dispatch(*in_tree(tree), "--", "codex", "exec", "--yolo", "explain main.py")
    assert out["invoke"]["args"] == ["exec", *CODEX_READ_ONLY, "explain main.py"]


def test_a_refusal_prints_json_and_one_line_naming_the_flag_and_exits_3(tree: Path) -> None:
    result, out = dispatch(*in_tree(tree), "--", "claude", "-p", "-w", "review the diff")
    assert result.returncode == exitcodes.REFUSED
    assert out["ok"] is False and out["invoke"] is None
    assert "-w" in out["refusal"]
    assert result.stderr == f"toolgate: refused: {out['refusal']}\n"


@pytest.mark.parametrize("lane", ["gemini", "opencode", "some-new-agent"])
def test_a_lane_without_read_only_flags_is_refused_pointing_at_the_lock(
    tree: Path, lane: str
) -> None:
    """A refused or unknown lane cannot be fixed by rewording the template; the refusal says
    what can run it: the tree lock."""
    result, out = dispatch(*in_tree(tree), "--", lane, "-p", "review it")
    assert result.returncode == exitcodes.REFUSED
    assert "add --lock-tree" in out["refusal"]
    explained = run_toolgate(["explain", "--read-only", *in_tree(tree), "--", lane, "-p", "x y"])
    assert "add --lock-tree" in " ".join(explained.stdout.split())  # wrapped for the terminal


def test_a_rewrite_refusal_of_a_known_lane_does_not_point_at_the_lock(tree: Path) -> None:
    _, out = dispatch(*in_tree(tree), "--", "claude", "-p", "-w", "review the diff")
    assert "--lock-tree" not in out["refusal"]


def test_a_refused_value_with_newlines_still_gives_one_stderr_line(tree: Path) -> None:
    agents = '{\n  "reviewer": {"prompt": "x"}\n}'
    result, _ = dispatch(*in_tree(tree), "--", "claude", "--agents", agents, "-p", "a b")
    assert result.returncode == exitcodes.REFUSED


def test_an_unknown_lane_flag_is_refused_with_the_pass_flag_hint_and_pass_flag_works(
    tree: Path,
) -> None:
    lane = ["--", "claude", "-p", "--frobnicate", "3", "review the diff"]
    result, out = dispatch(*in_tree(tree), *lane)
    assert result.returncode == exitcodes.REFUSED
    assert "--pass-flag --frobnicate" in out["refusal"]
    result, out = dispatch(*in_tree(tree), "--pass-flag", "--frobnicate=1", *lane)
    assert result.returncode == exitcodes.OK
    assert out["invoke"]["args"][-4:] == ["-p", "--frobnicate", "3", "review the diff"]


@pytest.mark.parametrize("name", ["--permission-mode=1", "--dangerously-skip-permissions", "-w"])
def test_pass_flag_cannot_override_a_known_flag_through_the_cli(tree: Path, name: str) -> None:
    result, out = dispatch(*in_tree(tree), "--pass-flag", name, "--", "claude", "-p", "a b")
    assert result.returncode == exitcodes.REFUSED
    assert "already knows" in out["refusal"]


def test_pass_config_declares_a_codex_key(tree: Path) -> None:
    lane = ["--", "codex", "exec", "-c", "my_key=1", "explain main.py"]
    assert dispatch(*in_tree(tree), *lane)[0].returncode == exitcodes.REFUSED
    assert dispatch(*in_tree(tree), "--pass-config", "my_key", *lane)[0].returncode == 0
    result, out = dispatch(*in_tree(tree), "--pass-config", "sandbox_mode", *lane)
    assert result.returncode == exitcodes.REFUSED and "already knows" in out["refusal"]


def test_env_and_unset_env_reach_the_invocation_and_are_judged(tree: Path) -> None:
    lane = ["--", "claude", "-p", "review the diff"]
    _, out = dispatch(*in_tree(tree), "--env", "ANTHROPIC_MODEL=opus", "--unset-env", "X", *lane)
    assert out["invoke"]["env"] == {"ANTHROPIC_MODEL": "opus", "X": None}
    result, out = dispatch(*in_tree(tree), "--env", "LD_PRELOAD=/x.so", *lane)
    assert result.returncode == exitcodes.REFUSED and "LD_PRELOAD" in out["refusal"]
    result, out = dispatch(*in_tree(tree), "--env", "MINE=1", *lane)
    assert result.returncode == exitcodes.REFUSED and "--pass-env MINE" in out["refusal"]
    result, _ = dispatch(*in_tree(tree), "--env", "MINE=1", "--pass-env", "MINE", *lane)
    assert result.returncode == exitcodes.OK


def test_output_files_are_judged_against_the_cwd_and_caller_root_given(tree: Path) -> None:
    outside = ["--", "claude", "-p", "--debug-file", "../../outside/d.log", "review the diff"]
    result, _ = dispatch(*in_tree(tree, tree / "src"), *outside)
    assert result.returncode == exitcodes.OK
    inside = ["--", "codex", "exec", "-o", "../last.txt", "explain main.py"]
    result, out = dispatch(*in_tree(tree, tree / "src"), *inside)
    assert result.returncode == exitcodes.REFUSED and "-o ../last.txt" in out["refusal"]


# --- where it runs -------------------------------------------------------------------------------


def test_the_seed_sibling_prefix_is_refused(tree: Path) -> None:
    result, out = dispatch(*in_tree(tree, tree.parent / "tree-other"), "--", "claude", "-p", "a b")
    assert result.returncode == exitcodes.REFUSED
    assert "outside the caller root" in out["refusal"]


def test_dot_dot_and_symlinks_out_of_the_tree_are_refused(tree: Path) -> None:
    (tree / "escape").symlink_to(tree.parent.parent / "outside")
    for where in (f"{tree}/src/../../tree-other", str(tree / "escape"), f"{tree}/escape/.."):
        result, _ = dispatch(*in_tree(tree, Path(where)), "--", "claude", "-p", "a b")
        assert result.returncode == exitcodes.REFUSED, where


def test_a_missing_cwd_and_a_file_cwd_are_refused_saying_which(tree: Path) -> None:
    (tree / "file.txt").write_text("x")
    result, out = dispatch(*in_tree(tree, tree / "missing"), "--", "claude", "-p", "a b")
    assert result.returncode == exitcodes.REFUSED and "does not exist" in out["refusal"]
    result, out = dispatch(*in_tree(tree, tree / "file.txt"), "--", "claude", "-p", "a b")
    assert result.returncode == exitcodes.REFUSED and "not a directory" in out["refusal"]


def test_a_missing_caller_root_is_refused(tree: Path) -> None:
    args = ["--read-only", "--caller-root", str(tree / "gone"), "--", "claude", "-p", "a b"]
    result, out = dispatch(*args, cwd=tree)
    assert result.returncode == exitcodes.REFUSED and "caller root" in out["refusal"]


def test_cwd_defaults_to_the_current_directory(tree: Path) -> None:
    _, out = dispatch(
        "--read-only", "--caller-root", str(tree), "--", "claude", "-p", "a b", cwd=tree / "src"
    )
    assert out["cwd"] == real(tree / "src")


def test_caller_root_defaults_to_the_git_top_level(tree: Path) -> None:
    (tree / ".git").mkdir()
    _, out = dispatch("--read-only", "--", "claude", "-p", "a b", cwd=tree / "src")
    assert out["caller_root"] == real(tree)
    result, _ = dispatch(
        "--read-only",
        "--cwd",
        str(tree.parent / "tree-other"),
        "--",
        "claude",
        "-p",
        "a b",
        cwd=tree / "src",
    )
    assert result.returncode == exitcodes.REFUSED


def test_caller_root_defaults_to_the_current_directory_outside_git(tree: Path) -> None:
    if any((parent / ".git").exists() for parent in tree.parents):
        pytest.skip("the temporary directory is inside a git checkout")
    _, out = dispatch("--read-only", "--", "claude", "-p", "a b", cwd=tree / "src")
    assert out["caller_root"] == real(tree / "src")


# --- modes that are not confined -----------------------------------------------------------------


def test_answer_mode_is_allowed_anywhere_and_spawns_nothing(tree: Path) -> None:
    args = ["--mode", "answer", *in_tree(tree, tree / "missing"), "--", "claude", "-w"]
    result, out = dispatch(*args)
    assert result.returncode == exitcodes.OK
    assert out["ok"] is True and out["invoke"] is None
    assert "answer" in out["binding"]
    result, _ = dispatch("--mode", "answer", "--read-only")
    assert result.returncode == exitcodes.OK


def test_without_read_only_the_invocation_passes_through_unchanged(tree: Path) -> None:
    lane = ["claude", "--dangerously-skip-permissions", "-w", "--frob", "plan"]
    result, out = dispatch(
        "--cwd", str(tree.parent / "tree-other"), "--caller-root", str(tree), "--", *lane
    )
    assert result.returncode == exitcodes.OK
    assert [out["invoke"]["command"], *out["invoke"]["args"]] == lane
    assert out["changes"] == []


# --- bad input -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--read-only"],
        ["--read-only", "--"],
        ["--bogus", "--", "claude", "-p", "a b"],
        ["--mode", "bogus", "--", "claude", "-p", "a b"],
        ["--exec", "--mode", "answer", "--", "claude", "-p", "a b"],
        ["--pass-flag", "frob", "--", "claude", "-p", "a b"],
        ["--pass-flag", "--frob=2", "--", "claude", "-p", "a b"],
        ["--env", "NOEQUALS", "--", "claude", "-p", "a b"],
        ["--env", "=x", "--", "claude", "-p", "a b"],
        ["--read-shell", "--", "claude", "-p", "a b"],
        ["--read-only", "--allow-bash-prefix", "git log", "--", "claude", "-p", "a b"],
        ["--cwd", "", "--", "claude", "-p", "a b"],
        ["--caller-root", "", "--", "claude", "-p", "a b"],
        ["--cwd"],
    ],
)
def test_usage_errors_exit_2_with_one_line_and_nothing_on_stdout(args: list[str]) -> None:
    result, out = dispatch(*args)
    assert result.returncode == exitcodes.USAGE
    assert out is None


def test_an_unknown_command_is_one_line_and_bare_toolgate_shows_help() -> None:
    result = run_toolgate(["frobnicate"])
    assert result.returncode == exitcodes.USAGE
    assert_contract(result)
    result = run_toolgate([])
    assert result.returncode == exitcodes.USAGE
    assert "Traceback" not in result.stderr
    assert "dispatch" in result.stderr + result.stdout


def test_a_non_utf8_argument_is_a_usage_error_in_json_mode(tree: Path) -> None:
    result, out = dispatch(*in_tree(tree), "--", "claude", "-p", b"caf\xe9 review")
    assert result.returncode == exitcodes.USAGE
    assert out is None
    assert "UTF-8" in result.stderr


@pytest.mark.parametrize("where", ["cwd", "env"])
def test_non_utf8_elsewhere_never_makes_stdout_invalid_json(tree: Path, where: str) -> None:
    odd = tree / os.fsdecode(b"caf\xe9")
    odd.mkdir()
    extra: list[str | bytes] = (
        ["--cwd", os.fsencode(odd)] if where == "cwd" else ["--env", b"ANTHROPIC_MODEL=\xff"]
    )
    raw = subprocess.run(
        [
            *toolgate_argv("dispatch", "--read-only", "--caller-root", str(tree)),
            *extra,
            "--",
            "claude",
            "-p",
            "a b",
        ],
        env=toolgate_env(),
        capture_output=True,
        check=False,
        cwd=tree,
    )
    assert b"Traceback" not in raw.stderr
    if raw.stdout:
        json.loads(raw.stdout.decode("utf-8"))  # strict: stdout must be valid UTF-8 JSON
    else:
        assert raw.returncode == exitcodes.USAGE
        assert raw.stderr.count(b"\n") == 1
        assert (b"cwd" if where == "cwd" else b"invoke") in raw.stderr


def test_a_120_kb_argument_and_100000_words_are_handled(tree: Path) -> None:
    big = "x " * 60_000
    result, out = dispatch(*in_tree(tree), "--", "claude", "-p", big)
    assert result.returncode == exitcodes.OK and out["invoke"]["args"][-1] == big
    words = [f"d{n}" for n in range(100_000)]
    result, out = dispatch(*in_tree(tree), "--", "claude", "-p", "--add-dir", *words)
    assert result.returncode == exitcodes.OK
    assert out["invoke"]["args"][-100_000:] == words


def test_help_documents_the_exit_codes() -> None:
    result = run_toolgate(["dispatch", "--help"])
    assert result.returncode == 0
    for code in ("0 ok", "2 usage error", "3 refused", "126", "127"):
        assert code in result.stdout


# --- exec mode -----------------------------------------------------------------------------------


def run_exec(
    args: list[str | bytes], *, cwd: Path | None = None, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], int, dict[str, Any] | None]:
    """Run `toolgate dispatch --exec ARGS`; returns the result, toolgate's pid, the lane report."""
    process = subprocess.Popen(
        [*toolgate_argv("dispatch", "--exec"), *args],
        cwd=cwd,
        env=toolgate_env(env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    stdout, stderr = process.communicate(timeout=60)
    result = subprocess.CompletedProcess(
        process.args, process.returncode, stdout.decode(), stderr.decode("utf-8", "replace")
    )
    report = json.loads(stdout) if stdout.startswith(b"{") else None
    assert_contract(result, exec_ran=report is not None)
    if report is None:
        assert stdout == b""
    return result, process.pid, report


def argv_of(report: dict[str, Any]) -> list[bytes]:
    return [bytes.fromhex(word) for word in report["argv_hex"]]


def test_exec_runs_the_rewritten_argv_in_the_verified_cwd_in_place_of_toolgate(
    tree: Path, fake_bin: Path
) -> None:
    lane = [str(fake_bin / "claude"), "-p", "--permission-mode", "acceptEdits", "review the diff"]
    # The fake answers --version as the newest proven claude, and --exec fits the rewrite to it.
    newest = LANES["claude"].versions.newest_proven
    _, planned = dispatch("--lane-version", newest, *in_tree(tree, tree / "src"), "--", *lane)
    result, pid, report = run_exec([*in_tree(tree, tree / "src"), "--", *lane])
    assert result.returncode == 0
    assert report is not None
    expected = [planned["invoke"]["command"], *planned["invoke"]["args"]]
    assert argv_of(report) == [os.fsencode(word) for word in expected]
    assert report["cwd"] == real(tree / "src")
    assert report["pid"] == pid, "the lane must replace toolgate, not run as its child"


def test_exec_codex_gets_its_sandbox(tree: Path, fake_bin: Path) -> None:
    lane = [str(fake_bin / "codex"), "exec", "-s", "danger-full-access", "explain main.py"]
    _, _, report = run_exec([*in_tree(tree), "--", *lane])
    assert report is not None
    expected = ["exec", *CODEX_READ_ONLY, "explain main.py"]
    assert argv_of(report)[1:] == [word.encode() for word in expected]


def test_exec_finds_the_lane_on_path(tree: Path, fake_bin: Path) -> None:
    path = f"{fake_bin}{os.pathsep}{os.environ.get('PATH', '')}"
    _, _, report = run_exec([*in_tree(tree), "--", "claude", "-p", "a b"], env={"PATH": path})
    # The kernel hands a #! script its own path as argv[0]: that path proves the PATH lookup.
    assert report is not None and argv_of(report)[0] == os.fsencode(fake_bin / "claude")


def test_exec_applies_env_overrides_and_unsets(tree: Path, fake_bin: Path) -> None:
    args: list[str | bytes] = [
        *in_tree(tree),
        "--env",
        "ANTHROPIC_MODEL=opus",
        "--unset-env",
        "DROP_ME",
        "--",
        str(fake_bin / "claude"),
        "-p",
        "a b",
    ]
    env = {"DROP_ME": "1", "KEEP_ME": "2", "FAKE_SHOW": "ANTHROPIC_MODEL,DROP_ME,KEEP_ME"}
    _, _, report = run_exec(args, env=env)
    assert report is not None
    assert report["env"] == {"ANTHROPIC_MODEL": "opus", "DROP_ME": None, "KEEP_ME": "2"}


def test_exec_passes_the_lane_exit_status_and_signals_through(tree: Path, fake_bin: Path) -> None:
    lane = ["--", str(fake_bin / "claude"), "-p", "a b"]
    result = run_toolgate(["dispatch", "--exec", *in_tree(tree), *lane], env={"FAKE_EXIT": "7"})
    assert result.returncode == 7
    result = run_toolgate(
        ["dispatch", "--exec", *in_tree(tree), *lane], env={"FAKE_SIGNAL": str(signal.SIGTERM)}
    )
    assert result.returncode == -signal.SIGTERM


def test_exec_passes_a_non_utf8_argument_byte_for_byte(tree: Path, fake_bin: Path) -> None:
    odd = b"caf\xe9 review \xff"
    _, _, report = run_exec([*in_tree(tree), "--", str(fake_bin / "claude"), "-p", odd])
    assert report is not None
    assert argv_of(report)[-1] == odd


def test_exec_without_read_only_runs_the_argv_unchanged(tree: Path, fake_bin: Path) -> None:
    lane = [str(fake_bin / "claude"), "--dangerously-skip-permissions", "-p", "x"]
    _, _, report = run_exec(["--cwd", str(tree), "--", *lane])
    assert report is not None
    assert argv_of(report) == [os.fsencode(word) for word in lane]


def test_exec_of_a_missing_binary_exits_127_with_one_line(tree: Path) -> None:
    result, _, report = run_exec(
        [*in_tree(tree), "--", str(tree / "nowhere" / "claude"), "-p", "a b"]
    )
    assert result.returncode == exitcodes.NOT_FOUND and report is None
    assert "not found" in result.stderr


def test_exec_failure_naming_a_command_with_a_newline_is_still_one_line(tree: Path) -> None:
    result, _, _ = run_exec(["--cwd", str(tree), "--", str(tree / "no\nclaude"), "x"])
    assert result.returncode == exitcodes.NOT_FOUND


def test_exec_of_a_lane_not_on_path_exits_127(tree: Path, tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    result, _, _ = run_exec(
        [*in_tree(tree), "--", "codex", "exec", "a b"], env={"PATH": str(empty)}
    )
    assert result.returncode == exitcodes.NOT_FOUND


def test_exec_of_a_non_executable_lane_exits_126_with_one_line(tree: Path, fake_bin: Path) -> None:
    lane = fake_bin / "claude"
    lane.chmod(lane.stat().st_mode & ~(stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))
    if os.access(lane, os.X_OK):
        pytest.skip("running as a user who may execute anything")
    result, _, report = run_exec([*in_tree(tree), "--", str(lane), "-p", "a b"])
    assert result.returncode == exitcodes.NOT_EXECUTABLE and report is None
    assert "permission denied" in result.stderr


def test_exec_of_a_directory_exits_126(tree: Path, tmp_path: Path) -> None:
    directory = tmp_path / "dirs" / "claude"
    directory.mkdir(parents=True)
    result, _, _ = run_exec([*in_tree(tree), "--", str(directory), "-p", "a b"])
    assert result.returncode == exitcodes.NOT_EXECUTABLE


def test_exec_refusal_exits_3_with_nothing_on_stdout(tree: Path, fake_bin: Path) -> None:
    result, _, report = run_exec(
        [*in_tree(tree), "--", str(fake_bin / "claude"), "-w", "-p", "a b"]
    )
    assert result.returncode == exitcodes.REFUSED and report is None
    assert "-w" in result.stderr


def test_exec_with_a_caller_root_given_through_a_symlink_runs(tree: Path, fake_bin: Path) -> None:
    alias = tree.parent.parent / "alias"
    alias.symlink_to(tree)
    args = ["--read-only", "--cwd", str(alias / "src"), "--caller-root", str(alias)]
    result, _, report = run_exec([*args, "--", str(fake_bin / "claude"), "-p", "a b"])
    assert result.returncode == 0 and report is not None
    assert report["cwd"] == real(tree / "src")


def test_exec_outside_the_tree_is_refused_before_anything_runs(tree: Path, fake_bin: Path) -> None:
    where = tree.parent / "tree-other"
    result, _, report = run_exec(
        [*in_tree(tree, where), "--", str(fake_bin / "claude"), "-p", "a b"]
    )
    assert result.returncode == exitcodes.REFUSED and report is None


# --- the exec re-check, in-process ---------------------------------------------------------------


class ExecDouble:
    """Stands in for os.execvpe: records the call and where it happened."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str], dict[str, str], str]] = []

    def __call__(self, file: str, argv: list[str], env: dict[str, str]) -> None:
        self.calls.append((file, argv, env, os.getcwd()))


@pytest.fixture
def restore_cwd(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """exec_lane chdirs; make pytest put the working directory back afterwards."""
    monkeypatch.chdir(tmp_path)


def decided(tree: Path, cwd: Path, args: tuple[str, ...] = ("-p", "review the diff")) -> Any:
    decision = decide_dispatch(
        DispatchRequest(
            invocation=LaneInvocation("claude", args, {"ANTHROPIC_MODEL": "opus", "HOME": None}),
            read_only=True,
            mode="agent",
            cwd=str(cwd),
            caller_root=str(tree),
        )
    )
    assert decision.ok and decision.invoke is not None
    return decision


@pytest.mark.usefixtures("restore_cwd")
def test_exec_lane_calls_execvpe_with_the_argv_env_and_cwd(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    decision = decided(tree, tree / "src")
    double = ExecDouble()
    exec_lane(decision.invoke, decision.cwd, decision.caller_root, execvpe=double)
    [(file, argv, env, where)] = double.calls
    assert file == "claude"
    assert argv == ["claude", *decision.invoke.args]
    assert env["ANTHROPIC_MODEL"] == "opus"
    assert "HOME" not in env
    assert env.get("PATH") == os.environ.get("PATH")
    assert where == real(tree / "src")


@pytest.mark.usefixtures("restore_cwd")
def test_a_directory_swapped_for_a_symlink_after_the_verdict_is_refused_at_exec(
    tree: Path,
) -> None:
    decision = decided(tree, tree / "src")
    # Between the verdict and the exec, src becomes a symlink leading out of the tree.
    (tree / "src").rename(tree.parent / "src-moved")
    (tree / "src").symlink_to(tree.parent.parent / "outside")
    double = ExecDouble()
    with pytest.raises(ExecFailure) as caught:
        exec_lane(decision.invoke, decision.cwd, decision.caller_root, execvpe=double)
    assert caught.value.status == exitcodes.REFUSED
    assert "outside the caller root" in caught.value.message
    assert double.calls == []


@pytest.mark.usefixtures("restore_cwd")
def test_a_parent_directory_swapped_for_a_symlink_is_refused_at_exec(tree: Path) -> None:
    (tree / "src" / "deep").mkdir()
    decision = decided(tree, tree / "src" / "deep")
    (tree.parent.parent / "outside" / "deep").mkdir()
    (tree / "src").rename(tree.parent / "src-moved")
    (tree / "src").symlink_to(tree.parent.parent / "outside")
    double = ExecDouble()
    with pytest.raises(ExecFailure) as caught:
        exec_lane(decision.invoke, decision.cwd, decision.caller_root, execvpe=double)
    assert caught.value.status == exitcodes.REFUSED
    assert double.calls == []


@pytest.mark.usefixtures("restore_cwd")
@pytest.mark.parametrize("swapped", ["root", "ancestor"])
def test_the_caller_root_itself_swapped_for_a_symlink_is_refused_at_exec(
    tree: Path, swapped: str
) -> None:
    # If the root is resolved again at exec time, it moves together with the cwd and the
    # re-check compares the new place with itself.
    decision = decided(tree, tree / "src")
    elsewhere = tree.parent.parent / "outside"
    if swapped == "root":
        (elsewhere / "src").mkdir()
        tree.rename(tree.parent / "tree-moved")
        tree.symlink_to(elsewhere)
    else:
        (elsewhere / "tree" / "src").mkdir(parents=True)
        tree.parent.rename(tree.parent.parent / "x-moved")
        tree.parent.symlink_to(elsewhere)
    double = ExecDouble()
    with pytest.raises(ExecFailure) as caught:
        exec_lane(decision.invoke, decision.cwd, decision.caller_root, execvpe=double)
    assert caught.value.status == exitcodes.REFUSED
    assert double.calls == []


@pytest.mark.usefixtures("restore_cwd")
def test_a_cwd_removed_after_the_verdict_is_refused_at_exec(tree: Path) -> None:
    decision = decided(tree, tree / "src")
    (tree / "src").rmdir()
    with pytest.raises(ExecFailure) as caught:
        exec_lane(decision.invoke, decision.cwd, decision.caller_root, execvpe=ExecDouble())
    assert caught.value.status == exitcodes.REFUSED
    assert "cannot enter" in caught.value.message


@pytest.mark.usefixtures("restore_cwd")
@pytest.mark.parametrize(
    ("error", "status"),
    [
        (FileNotFoundError(2, "No such file"), exitcodes.NOT_FOUND),
        (PermissionError(13, "Permission denied"), exitcodes.NOT_EXECUTABLE),
        (OSError(8, "Exec format error"), exitcodes.NOT_EXECUTABLE),
    ],
)
def test_exec_lane_maps_exec_errors_to_126_and_127(tree: Path, error: OSError, status: int) -> None:
    decision = decided(tree, tree)

    def failing(file: str, argv: list[str], env: dict[str, str]) -> None:
        raise error

    with pytest.raises(ExecFailure) as caught:
        exec_lane(decision.invoke, decision.cwd, decision.caller_root, execvpe=failing)
    assert caught.value.status == status


@pytest.mark.usefixtures("restore_cwd")
def test_exec_lane_without_a_caller_root_does_not_check(tree: Path) -> None:
    double = ExecDouble()
    exec_lane(
        LaneInvocation("claude", ()), str(tree.parent.parent / "outside"), None, execvpe=double
    )
    assert len(double.calls) == 1
