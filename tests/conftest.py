"""Helpers shared by all tests: run the toolgate CLI as a user would, in a subprocess.

Under CI=true a skipped test fails (a skip proves nothing, and CI is where the proofs must run),
unless its reason is in SKIPS_ALLOWED_IN_CI, which says why that one cannot run on Linux CI.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

TEST_CACHE_DIR = REPO_ROOT / ".cache" / "toolgate-test-cache"
"""Where the toolgate the tests run keeps its lane-version cache (`TOOLGATE_CACHE_DIR`), so no
test reads or writes the user's own; a test about the cache gives its own directory."""

IN_CI = os.environ.get("CI", "").lower() == "true"

SKIPS_ALLOWED_IN_CI: dict[str, str] = {
    "this kernel refuses TIOCSTI to everyone": (
        "tests/e2e/test_lock_attacks.py: with dev.tty.legacy_tiocsti = 0 (the default of newer "
        "kernels) no process can push keystrokes into a terminal, so the control cannot type "
        "either: the kernel has closed the route the test attacks, and nothing is left to prove"
    ),
}
"""Skip reasons (matched at their start) that stand under CI=true, each with why the test
cannot run on a Linux CI machine. Everything else that skips there is a failure."""


def _skip_reason(longrepr: object) -> str:
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr)


def _fail_a_skip_in_ci(report: pytest.TestReport | pytest.CollectReport) -> None:
    if not IN_CI or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report.longrepr)
    if any(reason.startswith(allowed) for allowed in SKIPS_ALLOWED_IN_CI):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"skipped under CI=true, where every proof must run: {reason} "
        "(install what it needs in .ci/run; tests/conftest.py SKIPS_ALLOWED_IN_CI lists the "
        "only skips CI accepts)"
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, None]:
    outcome = yield
    _fail_a_skip_in_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, None]:
    outcome = yield
    _fail_a_skip_in_ci(outcome.get_result())


def toolgate_argv(*args: str) -> list[str]:
    """argv that runs this checkout's toolgate (needs `toolgate_env()` for PYTHONPATH)."""
    return [sys.executable, "-m", "toolgate_cli", *args]


def dispatch_exec_argv(
    lane: str | Path,
    args: Sequence[str],
    *,
    tree: str | Path,
    flags: Sequence[str] = (),
    cwd: str | Path | None = None,
) -> list[str]:
    """`toolgate dispatch --read-only FLAGS --exec --cwd CWD --caller-root TREE -- LANE ARGS`:
    how every gated leg of the end-to-end tests runs a lane (CWD defaults to TREE)."""
    return toolgate_argv(
        "dispatch", "--read-only", *flags, "--exec", "--cwd", str(cwd or tree),
        "--caller-root", str(tree), "--", str(lane), *args,
    )  # fmt: skip


def toolgate_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The current environment plus PYTHONPATH pointing at this checkout."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("TOOLGATE_CACHE_DIR", str(TEST_CACHE_DIR))
    env.pop("NO_COLOR", None)
    if extra:
        env.update(extra)
    return env


def run_toolgate(
    args: Sequence[str | bytes],
    *,
    cwd: Path | str | None = None,
    input: str | bytes | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 60,
) -> subprocess.CompletedProcess[str]:
    """Run `python -m toolgate_cli ARGS`; stdout/stderr decoded with surrogateescape."""
    raw = subprocess.run(
        [sys.executable, "-m", "toolgate_cli", *args],
        cwd=cwd,
        input=input.encode() if isinstance(input, str) else input,
        env=toolgate_env(env),
        capture_output=True,
        timeout=timeout,
        check=False,
    )
    return subprocess.CompletedProcess(
        raw.args,
        raw.returncode,
        raw.stdout.decode("utf-8", "surrogateescape"),
        raw.stderr.decode("utf-8", "surrogateescape"),
    )
