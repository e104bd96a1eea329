"""claude 2.1.332's background sessions, attacked end to end through toolgate.

`claude --bg PROMPT` hands the prompt to a detached background service (`claude daemon run`),
which runs the session in a pty of its own, with none of the command line's permission flags
in force where toolgate can see them, and returns at once. With a background session running,
2.1.332 also runs its background-session verbs (`attach`, `logs`, `stop`/`kill`, `respawn`,
`rm`) before commander parses anything: measured, toolgate's own rewrite of `stop ID -p`
(`<toolgate's flags> stop ID -p`) stopped the session, and `respawn ID -p` restarted one.

One test, because the control starts a real background service (a daemon that outlives the
run), which the test stops by pid at the end: the gated legs run first (refused, nothing
started, the session left alone), then the controls (the session starts; `stop` stops it).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import toolgate_argv, toolgate_env
from tests.e2e.stub_anthropic import StubAnthropic, claude_env, scrubbed_environ
from tests.e2e.tree import changes, fresh_tree, snapshot

pytestmark = pytest.mark.e2e

PROMPT = "write a file"
BACKGROUNDED = re.compile(r"backgrounded · ([0-9a-f]{8})")


def _descendants(pid: int) -> list[int]:
    """`pid` and every process below it, parents first (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found, queue = [], [pid]
    while queue:
        current = queue.pop(0)
        found.append(current)
        queue.extend(children.get(current, []))
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _roster(home: Path) -> dict[str, object]:
    path = home / ".claude" / "daemon" / "roster.json"
    return json.loads(path.read_text()) if path.exists() else {}


def _stop_background_service(home: Path, runtime: set[Path]) -> None:
    """Stop the daemon the control started, and everything it spawned, by pid, and remove the
    folders of its sockets (`runtime`, read from its roster while the session ran)."""
    supervisor = _roster(home).get("supervisorPid")
    if isinstance(supervisor, int) and _alive(supervisor):
        _kill_tree(supervisor)
    for folder in runtime:
        shutil.rmtree(folder, ignore_errors=True)


def _runtime_folders(home: Path) -> set[Path]:
    """The daemon's own folders (`$TMPDIR/cc-daemon-UID/HASH`) its workers' sockets are in."""
    workers = _roster(home).get("workers")
    found = set()
    for entry in workers.values() if isinstance(workers, dict) else ():
        socket = entry.get("ptySock") if isinstance(entry, dict) else None
        if isinstance(socket, str) and Path(socket).parent.parent.parent.name.startswith(
            "cc-daemon-"
        ):
            found.add(Path(socket).parent.parent)
    return found


def _kill_tree(supervisor: int) -> None:
    pids = _descendants(supervisor)
    for pid in pids:  # the supervisor first, so it restarts nothing
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)


@pytest.fixture
def trusted(tmp_path: Path) -> Iterator[tuple[Path, Path, set[Path]]]:
    """A fresh tree the user trusted once (background sessions refuse an untrusted one) and a
    scratch HOME; the background service the test starts is stopped afterwards."""
    tree = fresh_tree(tmp_path)
    home = tmp_path / "home"
    home.mkdir()
    trust = {"projects": {str(tree.resolve()): {"hasTrustDialogAccepted": True}}}
    (home / ".claude.json").write_text(json.dumps(trust))
    runtime: set[Path] = set()
    try:
        yield tree, home, runtime
    finally:
        _stop_background_service(home, runtime)


def _run(argv: list[str], tree: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, cwd=tree, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def _gated(claude_bin: Path, tree: Path, *template: str) -> list[str]:
    return toolgate_argv(
        "dispatch", "--read-only", "--exec", "--cwd", str(tree), "--caller-root", str(tree),
        "--", str(claude_bin), *template,
    )  # fmt: skip


def test_background_sessions_are_refused_and_cannot_be_reached_through_the_rewrite(
    claude_bin: Path, trusted: tuple[Path, Path, set[Path]]
) -> None:
    tree, home, runtime = trusted
    before = snapshot(tree)
    with StubAnthropic() as stub:
        env = scrubbed_environ(toolgate_env())
        env.update(claude_env(stub.url, home))

        # GATED --bg: refused, claude never starts, no background service.
        gated = _run(_gated(claude_bin, tree, "--bg", PROMPT), tree, env)
        assert gated.returncode == 3, gated.stderr
        assert "--bg" in gated.stderr
        assert _roster(home) == {}, "toolgate started a background service"
        assert not (home / ".claude" / "jobs").exists()

        # CONTROL --bg: a detached session starts and outlives the run.
        control = _run([str(claude_bin), "--bg", PROMPT], tree, env)
        match = BACKGROUNDED.search(control.stdout)
        assert control.returncode == 0 and match, (control.stdout, control.stderr)
        session = match.group(1)
        assert (home / ".claude" / "jobs" / session).is_dir()
        deadline = time.monotonic() + 30
        while session not in _workers(home) and time.monotonic() < deadline:
            time.sleep(0.2)
        worker = _workers(home).get(session)
        runtime.update(_runtime_folders(home))
        assert worker is not None and _alive(worker), _roster(home)

        # GATED `stop ID -p`: refused (toolgate's rewrite of it stopped the session before).
        gated_stop = _run(_gated(claude_bin, tree, "stop", session, "-p"), tree, env)
        assert gated_stop.returncode == 3, gated_stop.stderr
        assert "'stop'" in gated_stop.stderr
        assert _alive(worker), "the session was stopped through toolgate"

        # CONTROL `stop ID -p`: claude runs its background verb, -p notwithstanding.
        control_stop = _run([str(claude_bin), "stop", session, "-p"], tree, env)
        assert f"stopped {session}" in control_stop.stdout, (
            control_stop.stdout,
            control_stop.stderr,
        )
        deadline = time.monotonic() + 30
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(worker), "the control did not stop the session"
    # Neither leg wrote the tree itself (the harm is a session toolgate never sees).
    assert changes(before, snapshot(tree)) == []


def _workers(home: Path) -> dict[str, int]:
    """Background session id -> the pid of its pty host, from the daemon's roster."""
    workers = _roster(home).get("workers")
    if not isinstance(workers, dict):
        return {}
    return {
        name: entry["pid"]
        for name, entry in workers.items()
        if isinstance(entry, dict) and isinstance(entry.get("pid"), int)
    }
