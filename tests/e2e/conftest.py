"""Shared fixtures for the end-to-end tests: the pinned lane binaries and fresh git trees.

Under CI=true a missing lane binary fails the test (CI must prove read-only, never skip it);
locally it skips with a reason that says how to enable the tests.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.e2e.lanes import HOW_TO_ENABLE, lane_binary
from tests.e2e.tree import fresh_tree

pytestmark = pytest.mark.e2e


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/e2e/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.e2e)


def _require(kind: str) -> Path:
    binary = lane_binary(kind)
    if binary is None:
        message = f"{kind} CLI at its pinned version is not installed: {HOW_TO_ENABLE}"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return binary


@pytest.fixture(scope="session")
def claude_bin() -> Path:
    return _require("claude")


@pytest.fixture(scope="session")
def codex_bin() -> Path:
    return _require("codex")


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return fresh_tree(tmp_path)


@pytest.fixture(scope="session")
def bwrap_bin() -> Path:
    """bubblewrap, which `dispatch --lock-tree` needs: skipped locally without it, a failure
    under CI=true (CI must prove the lock, never skip it)."""
    import shutil

    found = shutil.which("bwrap")
    if found is None:
        message = "bubblewrap (bwrap) is not on PATH: apt-get install bubblewrap"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return Path(found)
