"""Fresh git trees for end-to-end scenarios, and snapshots that show any change to them."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "toolgate-e2e",
    "GIT_AUTHOR_EMAIL": "e2e@toolgate.invalid",
    "GIT_COMMITTER_NAME": "toolgate-e2e",
    "GIT_COMMITTER_EMAIL": "e2e@toolgate.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    # The harness's own git never runs a program a scenario planted in the tree's git config:
    # its `git status` would run a `core.fsmonitor` itself and blame the lane for the write.
    "GIT_CONFIG_COUNT": "2",
    "GIT_CONFIG_KEY_0": "core.fsmonitor",
    "GIT_CONFIG_VALUE_0": "false",
    "GIT_CONFIG_KEY_1": "core.hooksPath",
    "GIT_CONFIG_VALUE_1": "/dev/null",
}

SEED_FILES = {
    "README.md": "# sample tree\n",
    "src/app.py": "def greet() -> str:\n    return 'hello'\n",
    "notes.ipynb": (
        '{"cells": [{"cell_type": "code", "execution_count": null, "id": "c1", '
        '"metadata": {}, "outputs": [], "source": ["print(1)"]}], "metadata": {}, '
        '"nbformat": 4, "nbformat_minor": 5}\n'
    ),
}


def git(tree: Path, *args: str) -> str:
    # GIT_OPTIONAL_LOCKS=0: `git status` then never refreshes the index, so taking a snapshot
    # does not itself write into `.git` (a `git_dir` snapshot would see that as a change).
    env = {**os.environ, **GIT_ENV, "GIT_OPTIONAL_LOCKS": "0"}
    return subprocess.run(
        ["git", *args], cwd=tree, env=env, capture_output=True, text=True, check=True
    ).stdout


def fresh_tree(parent: Path, name: str = "tree") -> Path:
    """A new git repository with a few committed files, including a notebook."""
    tree = parent / name
    tree.mkdir(parents=True)
    git(tree, "init", "-q", "-b", "main")
    for relative, text in SEED_FILES.items():
        path = tree / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "seed")
    return tree


def snapshot(tree: Path, *, git_dir: bool = False) -> dict[str, str]:
    """Every file and symlink under `tree` (outside .git) with a content hash, plus the git
    worktrees and branches: two snapshots are equal only if nothing in the tree changed.

    `git_dir` hashes every file inside `.git` too (index, objects, refs, logs): for runs where
    not even git's own bookkeeping may change (the tree lock). Off by default, since a lane
    run without the lock may refresh the index on a plain `git status`.
    """
    state: dict[str, str] = {}
    for root, dirs, files in os.walk(tree):
        if not git_dir:
            dirs[:] = [d for d in dirs if not (Path(root) == tree and d == ".git")]
        for name in [*files, *[d for d in dirs if (Path(root) / d).is_symlink()]]:
            path = Path(root) / name
            relative = str(path.relative_to(tree))
            if path.is_symlink():
                state[relative] = "symlink->" + os.readlink(path)
            else:
                state[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
        for name in dirs:
            state.setdefault(str((Path(root) / name).relative_to(tree)) + "/", "dir")
    state["<git worktrees>"] = git(tree, "worktree", "list", "--porcelain")
    state["<git branches>"] = git(tree, "branch", "-a", "--format=%(refname)")
    state["<git status>"] = git(tree, "status", "--porcelain", "--ignored")
    return state


def changes(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Human-readable differences between two snapshots (empty when nothing changed)."""
    out = []
    for key in sorted(set(before) | set(after)):
        if key not in before:
            out.append(f"new: {key}")
        elif key not in after:
            out.append(f"gone: {key}")
        elif before[key] != after[key]:
            out.append(f"changed: {key}")
    return out


TIMED_OUT = -1
"""The return code a lane run gets from `run_lane` when it did not finish in time."""


def run_lane(
    argv: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    stdin: str | None = None,
) -> tuple[int, str, str]:
    """Run one leg's lane (or toolgate in front of it): its return code and its output, decoded.

    No standard input unless `stdin` is given; a run that outlasts `timeout` is killed and
    reported as `TIMED_OUT`, with what it wrote so far and a last line saying so, so a hung lane
    fails its test with the evidence rather than hanging the suite."""
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            env=env,
            input=stdin.encode() if stdin is not None else None,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as expired:
        return (
            TIMED_OUT,
            _decoded(expired.stdout),
            _decoded(expired.stderr) + f"\n<timed out after {timeout:g}s>",
        )
    return done.returncode, _decoded(done.stdout), _decoded(done.stderr)


def _decoded(data: bytes | str | None) -> str:
    if data is None:
        return ""
    return data if isinstance(data, str) else data.decode("utf-8", "replace")
