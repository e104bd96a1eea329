"""Helpers shared by all tests: run the toolgate CLI as a user would, in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

TEST_CACHE_DIR = REPO_ROOT / ".cache" / "toolgate-test-cache"
"""Where the toolgate the tests run keeps its lane-version cache (`TOOLGATE_CACHE_DIR`), so no
test reads or writes the user's own; a test about the cache gives its own directory."""


def toolgate_argv(*args: str) -> list[str]:
    """argv that runs this checkout's toolgate (needs `toolgate_env()` for PYTHONPATH)."""
    return [sys.executable, "-m", "toolgate_cli", *args]


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
