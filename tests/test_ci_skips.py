"""Under CI=true a skip is a failure (tests/conftest.py), except the allow-listed reasons."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SKIPS_ALLOWED_IN_CI

PROBE = """
import pytest

def test_skips_in_the_body():
    pytest.skip("zsh is not installed")

@pytest.mark.skipif(True, reason="needs root")
def test_skips_by_marker():
    pass

def test_skips_for_an_allowed_reason():
    pytest.skip("this kernel refuses TIOCSTI to everyone (dev.tty.legacy_tiocsti = 0)")

@pytest.mark.xfail(reason="known")
def test_an_expected_failure_is_not_a_skip():
    assert False

def test_passes():
    pass
"""

MODULE_SKIP = """
import pytest
pytest.skip("fish is not installed", allow_module_level=True)
"""


def run_probe(
    tmp_path: Path, ci: str | None, probe: str = PROBE
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "conftest.py").write_text((REPO_ROOT / "tests" / "conftest.py").read_text())
    (tmp_path / "test_probe.py").write_text(probe)
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_under_ci_every_skip_fails_but_the_allowed_ones(tmp_path: Path) -> None:
    result = run_probe(tmp_path, "true")
    out = result.stdout
    assert result.returncode == 1, out
    assert "FAILED test_probe.py::test_skips_in_the_body" in out
    assert "ERROR test_probe.py::test_skips_by_marker" in out  # a skip in setup
    assert "skipped under CI=true, where every proof must run: zsh is not installed" in out
    assert "SKIPPED [1] test_probe.py" in out and "legacy_tiocsti" in out
    assert "XFAIL test_probe.py::test_an_expected_failure_is_not_a_skip" in out
    assert "PASSED test_probe.py::test_passes" in out


def test_under_ci_a_module_that_skips_fails_the_run(tmp_path: Path) -> None:
    result = run_probe(tmp_path, "true", MODULE_SKIP)
    assert result.returncode != 0, result.stdout
    assert "ERROR test_probe.py - skipped under CI=true" in result.stdout, result.stdout
    assert "fish is not installed" in result.stdout
    outside = run_probe(tmp_path, None, MODULE_SKIP)
    assert "1 skipped" in outside.stdout and "ERROR" not in outside.stdout, outside.stdout


@pytest.mark.parametrize("ci", [None, "false"])
def test_outside_ci_a_skip_stays_a_skip(tmp_path: Path, ci: str | None) -> None:
    result = run_probe(tmp_path, ci)
    assert result.returncode == 0, result.stdout
    assert "3 skipped" in result.stdout, result.stdout


def test_every_allowed_skip_says_why_it_cannot_run_on_linux_ci() -> None:
    assert len(SKIPS_ALLOWED_IN_CI) <= 3, "the allow-list stays tiny"
    for reason, why in SKIPS_ALLOWED_IN_CI.items():
        assert reason and len(why) > 40, reason
        test_file = why.split(":", 1)[0]
        assert reason in (REPO_ROOT / test_file).read_text(), (reason, test_file)
