"""The tree lock's side that touches the machine: find bwrap, read the mount table and the
repository's `.git`, and try the sandbox once before claiming it holds.

`toolgate_cli.decision` calls `HOST.plan` and `HOST.trial` (see `TreeLockHost`); everything they
read or run is here, so `toolgate_cli.treelock` stays pure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from toolgate_cli.treelock import LockPlan, gitdir_of, other_views, unique_outside
from toolgate_cli.verdict import git_top_level

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap; Arch: pacman -S bubblewrap), or dispatch without --lock-tree"
)

TRIAL_TIMEOUT = 20
"""Seconds the trial run may take; it takes a few milliseconds."""


class TreeLockHost:
    """Finds and tries bubblewrap on this machine."""

    def plan(self, caller_root: str, cwd: str) -> LockPlan | str:
        """What to mount read-only for `caller_root` (resolved), or why the lock cannot be had."""
        if not sys.platform.startswith("linux"):
            return f"--lock-tree needs Linux (bubblewrap uses Linux namespaces); {INSTALL_HINT}"
        found = shutil.which("bwrap")
        if found is None:
            return f"--lock-tree needs bubblewrap (bwrap), which is not on PATH: {INSTALL_HINT}"
        views = [*repository_dirs(caller_root), *mount_views(caller_root)]
        return LockPlan(
            bwrap=os.path.abspath(found),
            root=caller_root,
            read_only=unique_outside(caller_root, views),
            cwd=cwd,
            own_user_namespace=os.geteuid() == 0,
        )

    def trial(self, prefix: Sequence[str]) -> str | None:
        """Run `true` under exactly these bwrap options; None when it ran, else why not.

        A bwrap that cannot create its namespaces (user namespaces switched off, a seccomp
        filter in a container) fails here, before anything claims the lock holds.
        """
        probe = shutil.which("true") or "/bin/true"
        try:
            done = subprocess.run(
                [*prefix, probe],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                timeout=TRIAL_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"--lock-tree: bubblewrap could not be started ({error}); {INSTALL_HINT}"
        if done.returncode == 0:
            return None
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = said[0] if said else f"exit status {done.returncode}"
        return (
            f"--lock-tree: bubblewrap cannot build the sandbox here ({detail}); it needs user "
            "namespaces (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile "
            "for bwrap) or to run as root, and a container may forbid them"
        )


HOST = TreeLockHost()


def repository_dirs(caller_root: str) -> list[str]:
    """The git dirs of the repository holding `caller_root`, where they lie outside it.

    A `git commit` in the tree writes the repository's objects and refs; for a linked worktree
    or a submodule (a `.git` file) and for a caller root below the top level, those live outside
    the caller root, so they are locked too.
    """
    top = git_top_level(caller_root)
    if top is None:
        return []
    dot_git = os.path.join(top, ".git")
    if os.path.isdir(dot_git):
        return [os.path.realpath(dot_git)]
    return _linked_git_dirs(dot_git, top)


def _linked_git_dirs(dot_git: str, directory: str) -> list[str]:
    gitdir = gitdir_of(_read(dot_git), directory)
    if gitdir is None:
        return []
    gitdir = os.path.realpath(gitdir)
    dirs = [gitdir]
    common = _read(os.path.join(gitdir, "commondir")).strip()
    if common:
        dirs.append(os.path.realpath(os.path.join(gitdir, common)))
    return dirs


def mount_views(caller_root: str) -> tuple[str, ...]:
    """Other mounts showing the tree's files (see `treelock.other_views`)."""
    return other_views(caller_root, _read("/proc/self/mountinfo"))


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            return file.read()
    except OSError:
        return ""
