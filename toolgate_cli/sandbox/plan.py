"""The bubblewrap argv of the tree lock and of confinement, built from a plan. Pure.

Flag rewriting trusts each lane's own CLI to do what its flags say. The lock does not: the lane
runs under bubblewrap (`bwrap`) in a new mount namespace where the whole filesystem is as it
is, except that the caller root, and every other place that shows the same files, is bound
read-only on top. A write into the tree then fails with EROFS whoever asks for it: the lane, a
tool it runs, a hook, a plugin, an MCP server.

Confinement (`--confine`, `toolgate_cli.sandbox.confine`) starts from an empty root instead and
mounts only what its allow list names; the caller root is read-only there too, and nothing
outside the private temp, HOME and state directories is writable, so it holds the lock as well.

Pure: this module builds the wrapper argv from the plans handed to it. Finding bwrap, reading
`/proc/self/mountinfo`, the `.git` file and the lane's install, and the trial run live in
`toolgate_cli.sandbox.host`; the mount table is read by `toolgate_cli.sandbox.mounts`.

Why each bwrap option (measured with bubblewrap 0.8.0, as root and as a plain user):
- `--cap-drop ALL`: run as root, bwrap otherwise keeps CAP_SYS_ADMIN, and the lane could
  `mount -o remount,rw,bind TREE` and write (seen).
- `--unshare-pid`: without it `/proc/PID/root` and `/proc/PID/cwd` of processes outside the
  sandbox lead back into the unlocked mount namespace.
- `--new-session`: a lane sharing the caller's terminal could push keystrokes into the
  caller's shell with the TIOCSTI ioctl (CVE-2017-5226); so the lane has no controlling
  terminal.
- `--bind A A` for each directory above a locked path: mount points cannot be renamed, so the
  lane cannot move the tree away and plant its own at the caller's path (seen without it).
  The cost: a rename between a path below such a directory and one outside it fails with
  EXDEV (different mounts), as across filesystems; `mv` copies instead.
- `--unshare-user --uid 1000 --gid 1000`, when toolgate runs as root: see `ROOT_LANE_UID`.
- `--setenv`/`--unsetenv`: the template's environment goes to the lane, not to bwrap (see
  `wrapper_prefix`).
- `--die-with-parent`: killing toolgate's process (bwrap, after the exec) kills the lane too.
- `--dev /dev`: a fresh minimal /dev, without the disk's block device, which a root lane could
  otherwise open and write under the mount.
- `--proc /proc`: a procfs of the new PID namespace only.
- `--ro-bind /proc/sys /proc/sys`, `--ro-bind /sys /sys`: a root lane, even without
  capabilities, may write the kernel's settings (they are root-owned files), and some make the
  kernel run a program of the lane's choosing as root outside the sandbox: with
  `/proc/sys/kernel/core_pattern` set to `|SCRIPT`, one crash and the kernel's helper wrote the
  tree (seen). bwrap's own read-only cover of /proc/sys is skipped, because access(W_OK) on
  that directory answers EACCES even for root. /sys holds the same kind of setting
  (`/sys/kernel/uevent_helper` where the kernel has it).
"""

from __future__ import annotations

from toolgate_cli.records import record
from toolgate_cli.sandbox.confine import TMP
from toolgate_cli.verdict import is_within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Protocol

    from toolgate_cli.sandbox.confine import ConfinePlan, ConfineRequest

    class LockHost(Protocol):
        """The machine side of the lock (`toolgate_cli.sandbox.host.SandboxHost`)."""

        def plan(
            self, caller_root: str, cwd: str, confine: ConfineRequest | None = None
        ) -> LockPlan | str:
            """What to mount read-only (and with `confine`, all that is visible), or why the
            sandbox cannot be had (one line)."""

        def trial(self, prefix: Sequence[str], option: str = "--lock-tree") -> str | None:
            """None when the sandbox these bwrap words build runs here, else why not (a line
            that starts with `option`)."""


TOOL = "bubblewrap"

SANDBOX_OPTIONS: tuple[str, ...] = (
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--cap-drop",
    "ALL",
    "--bind",
    "/",
    "/",
)


KERNEL_SETTINGS: tuple[str, ...] = ("/proc/sys", "/sys")
"""Bound read-only after the fresh /proc: where a root lane could otherwise have the kernel run
its program outside the sandbox."""


ROOT_LANE_UID = 1000
"""The uid (and gid) a lane started by root gets inside its own user namespace.

Root's lane with every capability dropped cannot map uid 0 into a user namespace of its own
(Linux 5.12 and later want CAP_SETFCAP for that), so codex's own bubblewrap sandbox failed to
start inside the lock and every shell command, reads included, failed (measured, codex
0.171.0). In a user namespace of the lock's own, where it is uid 1000 mapped to root, the lane
can nest one; the mounts it would inherit there are locked by the kernel, so the nesting cannot
unlock the tree (tests/e2e/test_lock_attacks.py)."""

CONFINE_OPTIONS: tuple[str, ...] = (
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--cap-drop",
    "ALL",
)
"""The lock's options without `--bind / /` (confinement mounts only its allow list), and with
`--unshare-ipc`: System V shared memory of processes outside is not the lane's to read."""

BWRAP_VALUES: dict[str, int] = {
    "--uid": 1,
    "--gid": 1,
    "--cap-drop": 1,
    "--bind": 2,
    "--ro-bind": 2,
    "--dev": 1,
    "--proc": 1,
    "--chdir": 1,
    "--setenv": 2,
    "--unsetenv": 1,
    "--tmpfs": 1,
    "--symlink": 2,
    "--remount-ro": 1,
}
"""How many values each bwrap option toolgate writes takes (for showing the prefix)."""


@record(frozen=True)
class LockPlan:
    """What the lock mounts: `read_only` holds the caller root first, then every other path
    that shows the tree's files (a repository's git dir outside it, another mount of the same
    filesystem); `cwd` is where the lane starts."""

    bwrap: str
    root: str
    read_only: tuple[str, ...]
    cwd: str
    own_user_namespace: bool = False
    """Run the lane as `ROOT_LANE_UID` in a user namespace of its own (toolgate runs as root)."""
    confine: ConfinePlan | None = None
    """With `--confine`: everything the lane sees (`read_only` is among it)."""


def wrapper_prefix(plan: LockPlan, env: Mapping[str, str | None] | None = None) -> tuple[str, ...]:
    """The bwrap words that go before the lane's command (ending with `--`).

    `env` holds the lane's environment overrides (None: unset). They are set inside the
    sandbox (`--setenv`, `--unsetenv`), never on bwrap itself: a template's `LD_PRELOAD` given
    to bwrap would run its code before the sandbox exists, where the tree is writable.
    """
    if plan.confine is not None:
        return _confined_prefix(plan, plan.confine, env)
    words = [plan.bwrap, *SANDBOX_OPTIONS]
    if plan.own_user_namespace:
        uid = str(ROOT_LANE_UID)
        words[1:1] = ["--unshare-user", "--uid", uid, "--gid", uid]
    # Outer to inner, and before the read-only binds, which a later bind of a directory above
    # them would cover again with the writable original.
    for path in ancestors(plan.read_only):
        words += ["--bind", path, path]
    for path in plan.read_only:
        words += ["--ro-bind", path, path]
    words += ["--dev", "/dev", "--proc", "/proc"]
    for path in KERNEL_SETTINGS:
        words += ["--ro-bind", path, path]
    for name, value in (env or {}).items():
        words += ["--unsetenv", name] if value is None else ["--setenv", name, value]
    words += ["--chdir", plan.cwd, "--"]
    return tuple(words)


def _confined_prefix(
    plan: LockPlan, confine: ConfinePlan, env: Mapping[str, str | None] | None
) -> tuple[str, ...]:
    """The confined sandbox: an empty root, the system read-only, then private directories,
    what is shown read-only (the caller root among it) and the cover-ups of secret stores,
    outer paths first; then the root itself read-only, so the private directories are the only
    places the lane can write.

    No `--bind A A` of the directories above the tree: they are directories of bwrap's own
    empty root here, so moving one away moves nothing outside the sandbox.
    """
    words = [plan.bwrap, *CONFINE_OPTIONS]
    if plan.own_user_namespace:
        uid = str(ROOT_LANE_UID)
        words[1:1] = ["--unshare-user", "--uid", uid, "--gid", uid]
    for op in confine.system:
        words += op.words()
    words += ["--dev", "/dev", "--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys"]
    for op in confine.layers:
        words += op.words()
    words += ["--remount-ro", "/"]
    words += ["--setenv", "TMPDIR", TMP]
    for name, value in (env or {}).items():
        words += ["--unsetenv", name] if value is None else ["--setenv", name, value]
    words += ["--chdir", plan.cwd, "--"]
    return tuple(words)


def ancestors(paths: Iterable[str]) -> tuple[str, ...]:
    """Every directory above `paths` but `/`, outermost first, each once.

    Each becomes a mount point of its own (`--bind A A`): the kernel refuses to rename or
    remove a mount point (EBUSY), so the lane cannot move a directory above the tree away and
    plant a tree of its own at the caller's path.
    """
    found: dict[str, None] = {}
    for path in paths:
        parts = path.strip("/").split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            found["/" + "/".join(parts[:depth])] = None
    return tuple(sorted(found, key=lambda path: (path.count("/"), path)))


def prefix_units(args: Sequence[str]) -> tuple[tuple[int, ...], int]:
    """Where each option of a wrapper prefix starts in `args` (the words after `bwrap`), and
    the index of its closing `--` (len(args) when there is none)."""
    starts: list[int] = []
    index = 0
    while index < len(args) and args[index] != "--":
        starts.append(index)
        index += 1 + BWRAP_VALUES.get(args[index], 0)
    return tuple(starts), min(index, len(args))


def unique_outside(root: str, paths: Iterable[str]) -> tuple[str, ...]:
    """`root`, then each of `paths` that is not already under `root` or another kept path.

    A path under one already bound read-only needs no bind of its own; a path that holds an
    earlier one replaces it (the recursive bind covers both).
    """
    kept: list[str] = [root]
    for path in paths:
        if any(is_within(path, held) for held in kept):
            continue
        kept = [held for held in kept if not is_within(held, path)] + [path]
    return tuple(kept)
