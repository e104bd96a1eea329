"""Shared fixtures for the end-to-end tests: the pinned lane binaries and fresh git trees.

Under CI=true a missing lane binary, or a bubblewrap that is missing or cannot build its
sandbox, fails the test (CI must prove read-only, never skip it); locally it skips with a reason
that says how to enable the tests.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import NoReturn

import pytest

from tests.e2e.lanes import HOW_TO_ENABLE, lane_binary
from tests.e2e.tree import fresh_tree

pytestmark = pytest.mark.e2e


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


def _missing(message: str) -> NoReturn:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(message)
    pytest.skip(message)


def _require(kind: str) -> Path:
    binary = lane_binary(kind)
    if binary is None:
        _missing(f"{kind} CLI at its pinned version is not installed: {HOW_TO_ENABLE}")
    return binary


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return _require("claude")


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return _require("codex")


@pytest.fixture(scope="session")
def opencode_bin() -> Path:
    return _require("opencode")


@pytest.fixture(scope="session")
def gemini_bin() -> Path:
    return _require("gemini")


@pytest.fixture(scope="session")
def copilot_bin() -> Path:
    """copilot 1.0.102; asking its version unpacked its package into the cache every copilot
    leg shares (tests/e2e/lanes.py, COPILOT_PKG_CACHE)."""
    return _require("copilot")


@pytest.fixture(scope="session")
def bwrap() -> Path:
    """bubblewrap, which `--lock-tree` needs, checked to build a sandbox like the lock's."""
    found = shutil.which("bwrap")
    if found is None:
        _missing("bubblewrap (bwrap) is not on PATH: apt-get install bubblewrap")
    probe = [found, "--unshare-pid", "--bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    done = subprocess.run(
        [*probe, "--", "true"], capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode != 0:
        _missing(f"bubblewrap cannot build a sandbox here: {done.stderr.strip()}")
    return Path(found)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return fresh_tree(tmp_path)
