"""The sandbox's side that touches the machine: find bwrap, read the mount table and the
repository's `.git`, look at the lane's install and the system for `--confine`, and try the
sandbox once before claiming it holds.

`toolgate_cli.decision` calls `HOST.plan` and `HOST.trial` (see `SandboxHost`); everything they
read or run is here, so `toolgate_cli.sandbox.plan` and `.confine` stay pure.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys

from toolgate_cli.records import replace
from toolgate_cli.sandbox import confine as confinement
from toolgate_cli.sandbox.mounts import gitdir_of, other_views
from toolgate_cli.sandbox.plan import LockPlan, unique_outside
from toolgate_cli.verdict import git_top_level

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolgate_cli.sandbox.confine import ConfineRequest, Kind

INSTALL = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
    "bubblewrap; Arch: pacman -S bubblewrap)"
)
INSTALL_HINT = f"{INSTALL}, or dispatch without --lock-tree"

NAMESPACE_WORDS = ("namespace", "permission", "not permitted", "uid map", "setting up")
"""What bwrap says when it cannot build namespaces here (rather than a mount it was asked)."""

TRIAL_TIMEOUT = 20
"""Seconds the trial run may take; it takes a few milliseconds."""


class SandboxHost:
    """Finds and tries bubblewrap on this machine."""

    def plan(
        self, caller_root: str, cwd: str, confine: ConfineRequest | None = None
    ) -> LockPlan | str:
        """What to mount read-only for `caller_root` (resolved), and with `confine` all that
        the lane sees, or why the sandbox cannot be had."""
        option = "--lock-tree" if confine is None else "--confine"
        hint = f"{INSTALL}, or dispatch without {option}"
        if not sys.platform.startswith("linux"):
            return f"{option} needs Linux (bubblewrap uses Linux namespaces); {hint}"
        found = shutil.which("bwrap")
        if found is None:
            return f"{option} needs bubblewrap (bwrap), which is not on PATH: {hint}"
        views = [*repository_dirs(caller_root), *mount_views(caller_root)]
        plan = LockPlan(
            bwrap=os.path.abspath(found),
            root=caller_root,
            read_only=unique_outside(caller_root, views),
            cwd=cwd,
            own_user_namespace=os.geteuid() == 0,
        )
        if confine is None:
            return plan
        if confine.read_shell:
            confine = replace(confine, toolgate_paths=hook_paths(FILESYSTEM))
        built = confinement.build(
            confine,
            FILESYSTEM,
            environ=dict(os.environ),
            homes=homes(),
            caller_root=caller_root,
            read_only=plan.read_only,
            cwd=cwd,
        )
        if isinstance(built, str):
            return built
        return replace(plan, confine=built)

    def trial(self, prefix: Sequence[str], option: str = "--lock-tree") -> str | None:
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
            return f"{option}: bubblewrap could not be started ({error}); {INSTALL_HINT}"
        if done.returncode == 0:
            return None
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = said[0] if said else f"exit status {done.returncode}"
        if not any(word in detail.lower() for word in NAMESPACE_WORDS):
            return f"{option}: bubblewrap cannot build the sandbox here ({detail})"
        return (
            f"{option}: bubblewrap cannot build the sandbox here ({detail}); it needs user "
            "namespaces (sysctl kernel.unprivileged_userns_clone=1, or an AppArmor profile "
            "for bwrap) or to run as root, and a container may forbid them"
        )


class HostFilesystem:
    """`confine.Filesystem` on this machine."""

    def kind(self, path: str) -> Kind:
        try:
            mode = os.lstat(path).st_mode
        except (OSError, ValueError):
            return "missing"
        if stat.S_ISDIR(mode):
            return "dir"
        if stat.S_ISREG(mode):
            return "file"
        if stat.S_ISLNK(mode):
            return "link"
        return "other"

    def resolve(self, path: str) -> str:
        return os.path.realpath(path)

    def readlink(self, path: str) -> str | None:
        try:
            return os.readlink(path)
        except (OSError, ValueError):
            return None

    def shebang(self, path: str) -> str | None:
        try:
            with open(path, "rb") as file:
                head = file.read(256)
        except OSError:
            return None
        if not head.startswith(b"#!"):
            return None
        return head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").strip()

    def which(self, name: str, search_path: str) -> str | None:
        found = shutil.which(name, path=search_path)
        return os.path.abspath(found) if found is not None else None


FILESYSTEM = HostFilesystem()
HOST = SandboxHost()

TOOLGATE_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
"""The `toolgate_cli` package directory this code runs from (its hook imports it)."""


def homes() -> tuple[str, ...]:
    """Every home directory of the machine's users (/etc/passwd), and HOME."""
    import pwd

    found: dict[str, None] = {}
    for entry in [os.environ.get("HOME", ""), *(user.pw_dir for user in pwd.getpwall())]:
        if entry.startswith("/") and entry != "/":
            found[os.path.normpath(entry)] = None
    return tuple(found)


def hook_paths(fs: HostFilesystem) -> tuple[str, ...]:
    """What toolgate's own PreToolUse hook (`--read-shell`) needs inside the sandbox: this
    Python (its links, its standard library and installed packages, its shared library) and
    the toolgate package."""
    import sysconfig

    paths = [
        confinement.install_dir(path, homes())
        for path in confinement.lane_chain(fs, sys.executable)
    ]
    config = os.path.join(sys.prefix, "pyvenv.cfg")
    if fs.kind(config) == "file":
        paths.append(config)
    # The standard library, and the packages installed beside toolgate (what its checker
    # imports, such as a parser library, lives there).
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.append(sysconfig.get_path(name))
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        libdir = str(sysconfig.get_config_var("LIBDIR") or "")
        library = str(sysconfig.get_config_var("LDLIBRARY") or "")
        if libdir and library:
            paths.append(os.path.join(libdir, library))
    paths.append(TOOLGATE_PACKAGE)
    return tuple(os.path.realpath(path) if fs.kind(path) == "link" else path for path in paths)


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
    """Other mounts showing the tree's files (see `mounts.other_views`)."""
    return other_views(caller_root, _read("/proc/self/mountinfo"))


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            return file.read()
    except OSError:
        return ""
