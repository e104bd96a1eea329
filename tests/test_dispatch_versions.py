"""Version awareness through the CLI: --lane-version, --require-proven, and under --exec the
version the binary itself reports (asked once per binary, cached).

The fake lanes answer `--version` as the real ones do (tests/test_dispatch_cli.py's FAKE_LANE)
and log every time they are asked, so a test sees whether toolgate asked or its cache answered.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import run_toolgate
from tests.test_dispatch_cli import fake_lane_text
from toolgate_cli import exitcodes
from toolgate_cli.lanes import LANES, claude
from toolgate_cli.lanes.base import LaneInvocation, RewriteOptions
from toolgate_cli.lanes.versions import LaneVersions

NEWEST_CLAUDE = LANES["claude"].versions.newest_proven
NEWEST_CODEX = LANES["codex"].versions.newest_proven


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "tree").mkdir()
    return tmp_path / "tree"


@pytest.fixture
def lanes_dir(tmp_path: Path) -> Path:
    """Fake `claude` and `codex` binaries that answer --version like the newest proven ones."""
    directory = tmp_path / "bin"
    directory.mkdir()
    for kind in ("claude", "codex"):
        lane = directory / kind
        lane.write_text(fake_lane_text(kind))
        lane.chmod(0o755)
    return directory


@pytest.fixture
def env(tmp_path: Path, lanes_dir: Path) -> dict[str, str]:
    """A private version cache, the fake lanes first on PATH, and a log of --version calls."""
    return {
        "TOOLGATE_CACHE_DIR": str(tmp_path / "cache"),
        "PATH": f"{lanes_dir}{os.pathsep}{os.environ['PATH']}",
        "FAKE_VERSION_LOG": str(tmp_path / "asked.log"),
    }


def asked(env: dict[str, str]) -> int:
    """How many times a fake lane was asked for its version."""
    log = Path(env["FAKE_VERSION_LOG"])
    return len(log.read_text().splitlines()) if log.exists() else 0


def dispatch(tree: Path, *args: str, env: dict[str, str]) -> tuple[int, str, str]:
    result = run_toolgate(
        ["dispatch", "--read-only", "--cwd", str(tree), "--caller-root", str(tree), *args],
        env=env,
    )
    assert "Traceback" not in result.stderr
    return result.returncode, result.stdout, result.stderr


def one_line(stderr: str) -> str:
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    return stderr.strip()


# --- JSON mode: the caller says which version runs -------------------------------------------


def test_a_proven_lane_version_is_fitted_and_said_so(tree: Path, env: dict[str, str]) -> None:
    status, out, err = dispatch(
        tree, "--lane-version", NEWEST_CLAUDE, "--", "claude", "-p", "x", env=env
    )
    document = json.loads(out)
    assert status == exitcodes.OK and err == ""
    assert (document["lane_version"], document["version_proven"]) == (NEWEST_CLAUDE, True)
    assert asked(env) == 0  # JSON mode never runs the lane


def test_without_a_version_json_says_unknown_and_asks_nobody(
    tree: Path, env: dict[str, str]
) -> None:
    status, out, err = dispatch(tree, "--", "claude", "-p", "x", env=env)
    document = json.loads(out)
    assert status == exitcodes.OK and err == ""
    assert (document["lane_version"], document["version_proven"]) == (None, None)
    assert asked(env) == 0


def test_a_newer_version_runs_with_exactly_one_line_naming_it_and_the_proven_ones(
    tree: Path, env: dict[str, str]
) -> None:
    status, out, err = dispatch(
        tree, "--lane-version", "99.0.0", "--", "codex", "exec", "x y", env=env
    )
    assert status == exitcodes.OK
    line = one_line(err)
    assert line.startswith("toolgate: codex 99.0.0 is newer than the versions proven")
    assert NEWEST_CODEX in line
    document = json.loads(out)
    assert (document["ok"], document["lane_version"], document["version_proven"]) == (
        True,
        "99.0.0",
        False,
    )


def test_an_older_version_is_refused_with_what_to_upgrade_to(
    tree: Path, env: dict[str, str]
) -> None:
    status, out, err = dispatch(tree, "--lane-version", "0.0.1", "--", "claude", "-p", "x", env=env)
    assert status == exitcodes.REFUSED
    assert f"upgrade claude to {NEWEST_CLAUDE}" in one_line(err)
    document = json.loads(out)
    assert document["ok"] is False and document["invoke"] is None


@pytest.mark.parametrize(
    "args",
    [
        ["--lane-version", "99.0.0"],
        [],  # JSON mode: nobody says which version runs
    ],
    ids=["newer", "unknown"],
)
def test_require_proven_refuses_what_is_not_proven(
    tree: Path, env: dict[str, str], args: list[str]
) -> None:
    status, out, err = dispatch(tree, "--require-proven", *args, "--", "claude", "-p", "x", env=env)
    assert status == exitcodes.REFUSED
    assert "--require-proven" in one_line(err)
    assert json.loads(out)["ok"] is False


def test_require_proven_admits_a_proven_version(tree: Path, env: dict[str, str]) -> None:
    status, out, err = dispatch(
        tree,
        "--require-proven",
        "--lane-version",
        f"v{NEWEST_CODEX}",
        "--",
        "codex",
        "exec",
        "x y",
        env=env,
    )
    assert (status, err) == (exitcodes.OK, "")
    assert json.loads(out)["lane_version"] == NEWEST_CODEX  # written as toolgate writes versions


@pytest.mark.parametrize("bad", ["latest", "2.1.x", "", "2"])
def test_a_lane_version_that_is_no_version_is_a_usage_error(
    tree: Path, env: dict[str, str], bad: str
) -> None:
    status, out, err = dispatch(tree, "--lane-version", bad, "--", "claude", "-p", "x", env=env)
    assert status == exitcodes.USAGE and out == ""
    assert "--lane-version" in one_line(err)


# --- --exec: the binary says which version it is ---------------------------------------------


def exec_lane(tree: Path, *args: str, env: dict[str, str]) -> tuple[int, str, str]:
    return dispatch(tree, "--exec", *args, env=env)


def test_exec_asks_the_binary_once_and_then_the_cache_answers(
    tree: Path, env: dict[str, str]
) -> None:
    for _ in range(3):
        status, out, err = exec_lane(tree, "--", "claude", "-p", "x", env=env)
        assert (status, err) == (exitcodes.OK, "")
        assert json.loads(out)["argv_hex"]  # the fake lane ran and reported its argv
    assert asked(env) == 1
    lines = (Path(env["TOOLGATE_CACHE_DIR"]) / "lane-versions").read_text().splitlines()
    assert [line.split(" ")[1] for line in lines] == [NEWEST_CLAUDE]


def test_a_changed_binary_is_asked_again(tree: Path, env: dict[str, str], lanes_dir: Path) -> None:
    exec_lane(tree, "--", "claude", "-p", "x", env=env)
    lane = lanes_dir / "claude"
    # An upgrade: the file is replaced (a new inode, size and times), with a newer version.
    replacement = lanes_dir / "claude.new"
    replacement.write_text(lane.read_text().replace(NEWEST_CLAUDE, "99.0.0", 1) + "\n")
    replacement.chmod(0o755)
    replacement.replace(lane)
    status, _, err = exec_lane(tree, "--", "claude", "-p", "x", env=env)
    assert status == exitcodes.OK
    assert "claude 99.0.0 is newer than the versions proven" in one_line(err)
    assert asked(env) == 2


def test_exec_refuses_a_binary_older_than_supported_before_it_runs(
    tree: Path, env: dict[str, str]
) -> None:
    env = {**env, "FAKE_VERSION_OUTPUT": "codex-cli 0.1.0"}
    status, out, err = exec_lane(tree, "--", "codex", "exec", "x y", env=env)
    assert status == exitcodes.REFUSED and out == ""  # the lane never ran
    assert "codex 0.1.0 is older than the oldest version toolgate supports" in one_line(err)


def test_exec_of_a_binary_that_cannot_tell_its_version_runs_unproven(
    tree: Path, env: dict[str, str]
) -> None:
    env = {**env, "FAKE_VERSION_OUTPUT": "a lane of no particular version"}
    status, out, err = exec_lane(tree, "--", "claude", "-p", "x", env=env)
    assert status == exitcodes.OK and json.loads(out)["argv_hex"]
    assert "did not tell its version, so it is unproven" in one_line(err)
    status, out, err = exec_lane(tree, "--require-proven", "--", "claude", "-p", "x", env=env)
    assert status == exitcodes.REFUSED and out == ""
    assert "--require-proven" in one_line(err)


def test_exec_with_a_lane_version_asks_nobody(tree: Path, env: dict[str, str]) -> None:
    status, _, err = exec_lane(
        tree, "--lane-version", NEWEST_CLAUDE, "--", "claude", "-p", "x", env=env
    )
    assert (status, err) == (exitcodes.OK, "")
    assert asked(env) == 0


def test_exec_under_the_lock_alone_asks_nobody(tree: Path, env: dict[str, str]) -> None:
    # --lock-only rewrites nothing, so no table depends on the version: nothing to ask. (The
    # lock itself may be refused here, without bubblewrap: either way the lane is not asked.)
    exec_lane(tree, "--lock-only", "--", "claude", "-p", "x", env=env)
    assert asked(env) == 0


def test_an_unwritable_cache_only_costs_asking_again(
    tree: Path, env: dict[str, str], tmp_path: Path
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    env = {**env, "TOOLGATE_CACHE_DIR": str(blocker / "cache")}
    for _ in range(2):
        status, _, err = exec_lane(tree, "--", "claude", "-p", "x", env=env)
        assert (status, err) == (exitcodes.OK, "")
    assert asked(env) == 2


def test_a_corrupt_cache_is_ignored(tree: Path, env: dict[str, str]) -> None:
    cache = Path(env["TOOLGATE_CACHE_DIR"])
    cache.mkdir()
    (cache / "lane-versions").write_bytes(b"zz not-hex\n\xff\xfe 1.2.3\n" + b"00 a b c\n")
    status, _, err = exec_lane(tree, "--", "claude", "-p", "x", env=env)
    assert (status, err) == (exitcodes.OK, "")
    assert asked(env) == 1


# --- the rewrite fits the version ------------------------------------------------------------


def test_an_option_toolgate_adds_goes_only_to_versions_that_have_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    row = ("--new-guard", ("--new-guard",), "a guard this version has")
    monkeypatch.setattr(claude, "VERSION_GATED_FLAGS", (*claude.VERSION_GATED_FLAGS, row))
    monkeypatch.setattr(
        claude,
        "VERSIONS",
        LaneVersions(
            claude.VERSIONS.oldest_supported,
            claude.VERSIONS.proven,
            {**claude.VERSIONS.since, "--new-guard": "2.1.300"},
        ),
    )
    invocation = LaneInvocation("claude", ("-p", "x"))

    def args(version: str | None, **options: object) -> tuple[str, ...]:
        result = claude.rewrite(invocation, RewriteOptions(lane_version=version, **options))  # type: ignore[arg-type]
        assert result.ok
        return result.invoke.args  # type: ignore[union-attr]

    assert "--new-guard" not in args(None)  # unknown version: only what every version has
    assert "--new-guard" not in args("2.1.299")
    with_guard = args("2.1.300")
    assert "--new-guard" in with_guard
    # still in the added block, which ends with --permission-mode dontAsk before the template
    assert with_guard.index("--new-guard") < with_guard.index("dontAsk") < with_guard.index("-p")
    assert "--new-guard" in args("2.1.400", read_shell_hook="hook")


def test_explain_shows_the_version_and_whether_it_is_proven(
    tree: Path, env: dict[str, str]
) -> None:
    def version_row(*args: str) -> str:
        result = run_toolgate(
            ["explain", "--read-only", "--cwd", str(tree), "--caller-root", str(tree), *args],
            env={**env, "NO_COLOR": "1"},
        )
        rows = [line for line in result.stdout.splitlines() if line.strip().startswith("version ")]
        assert len(rows) == 1, result.stdout
        return rows[0]

    assert f"{NEWEST_CLAUDE} (proven)" in version_row(
        "--lane-version", NEWEST_CLAUDE, "--", "claude", "-p", "x"
    )
    assert "99.0.0, not proven" in version_row(
        "--lane-version", "99.0.0", "--", "claude", "-p", "x"
    )
    assert "unknown" in version_row("--", "codex", "exec", "x y")
