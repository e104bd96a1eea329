"""`toolgate lanes --check` against the real pinned lane binaries: each is found, reports its
pinned version, which is proven, and its --help pages list nothing toolgate's tables do not
know and lose nothing toolgate adds. This is the drift check CI runs on every pinned release;
`python tests/e2e/lanes.py latest` runs it on the newest ones."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import run_toolgate
from tests.e2e.lanes import COPILOT_PKG_CACHE, PINNED
from toolgate_cli import exitcodes
from toolgate_cli.lanes import LANES


def test_every_pinned_rewritten_lane_is_proven_and_drift_free(
    claude_bin: Path, codex_bin: Path, copilot_bin: Path, tmp_path: Path
) -> None:
    bin_dir = claude_bin.parent
    assert codex_bin.parent == bin_dir and copilot_bin.parent == bin_dir
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "TOOLGATE_CACHE_DIR": str(tmp_path / "cache"),
        # copilot runs from the package cache the other copilot tests share (unpacked once).
        "COPILOT_PKG_CACHE_HOME": str(COPILOT_PKG_CACHE),
    }
    result = run_toolgate(["lanes", "--check", "--json"], env=env, timeout=120)
    document = json.loads(result.stdout)
    reports = {entry["kind"]: entry for entry in document["lanes"]}
    for kind in LANES:
        report = reports[kind]
        if kind not in PINNED:
            continue
        assert report["path"] == str(bin_dir / kind), report
        assert report["version"] == PINNED[kind][1], report
        assert report["proven"] is True, report
        assert report["unknown_options"] == [], report
        assert report["missing_options"] == [], report
        assert report["problem"] is None, report
    assert document["ok"] is True, document
    assert result.returncode == exitcodes.OK
