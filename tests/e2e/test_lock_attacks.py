"""The tree lock (`dispatch --read-only --lock-tree --exec`) against plain programs and attacks.

Each attack runs twice. Under toolgate's lock the tree, `.git` included, must come out the same
(every entry's type, mode, owner, size, mtime and content). The control runs the same program
without toolgate (or, for an escape, under the lock's own bwrap argv minus the one option that
stops it) and must change the tree: so every test can fail. Where the program can say why it
was stopped, the test checks the reason (EROFS, EPERM, EBADF, ...), so the attempt was made.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import pty
import pwd
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import termios
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, toolgate_argv, toolgate_env
from tests.e2e.tree import GIT_ENV, fresh_tree, git

PY = sys.executable
LOCK = ("dispatch", "--read-only", "--lock-tree")
EROFS = "Read-only file system"
ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (CI runs as root)")

State = dict[str, tuple[object, ...]]


def state(root: Path) -> State:
    """Every entry under `root` (itself and `.git` included), by lstat: type, mode, owner,
    size, mtime and content hash or link target. Two states are equal only if nothing under
    `root` was written, removed, renamed, chmod-ed or touched."""
    found: State = {}
    for directory, dirs, files in os.walk(root):
        for name in [".", *dirs, *files]:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                detail = "->" + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                detail = hashlib.sha256(Path(path).read_bytes()).hexdigest()
            else:
                detail = ""
            size = 0 if stat.S_ISDIR(info.st_mode) else info.st_size
            found[os.path.relpath(path, root)] = (
                stat.S_IFMT(info.st_mode),
                stat.S_IMODE(info.st_mode),
                info.st_uid,
                size,
                info.st_mtime_ns,
                detail,
            )
    return found


def differences(before: State, after: State) -> list[str]:
    keys = sorted(set(before) | set(after))
    return [key for key in keys if before.get(key) != after.get(key)]


def dispatch_args(root: Path, program: Sequence[str], *, cwd: Path | None = None) -> list[str]:
    return ["--cwd", str(cwd or root), "--caller-root", str(root), "--", *program]


def run_locked(
    root: Path,
    program: Sequence[str],
    *,
    cwd: Path | None = None,
    pass_fds: Sequence[int] = (),
    env: dict[str, str] | None = None,
    lane_env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """`program` run by `toolgate dispatch --read-only --lock-tree --exec` in `root`; `env`
    is toolgate's own environment, `lane_env` the template's (`--env`)."""
    return subprocess.run(
        toolgate_argv(
            *LOCK, "--exec", *env_options(lane_env), *dispatch_args(root, program, cwd=cwd)
        ),
        env=toolgate_env({**GIT_ENV, **(env or {})}),
        capture_output=True,
        text=True,
        timeout=60,
        pass_fds=pass_fds,
        check=False,
    )


def run_plain(
    cwd: Path, argv: Sequence[str], *, pass_fds: Sequence[int] = ()
) -> subprocess.CompletedProcess[str]:
    """The control: `argv` run directly, without toolgate."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env={**os.environ, **GIT_ENV},
        capture_output=True,
        text=True,
        timeout=60,
        pass_fds=pass_fds,
        check=False,
    )


def env_options(lane_env: dict[str, str] | None) -> list[str]:
    """`--env NAME=VALUE` for each of the template's environment overrides."""
    return [
        word for name, value in (lane_env or {}).items() for word in ("--env", f"{name}={value}")
    ]


def lock_argv(
    root: Path,
    program: Sequence[str],
    *,
    cwd: Path | None = None,
    lane_env: dict[str, str] | None = None,
) -> list[str]:
    """The full argv (`bwrap ... -- PROGRAM`) toolgate's JSON says it would exec; under the
    lock the template's environment is inside it (`invoke.env` is empty)."""
    done = subprocess.run(
        toolgate_argv(
            *LOCK, "--json", *env_options(lane_env), *dispatch_args(root, program, cwd=cwd)
        ),
        env=toolgate_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    invoke = json.loads(done.stdout)["invoke"]
    assert invoke["env"] == {}
    return [invoke["command"], *invoke["args"]]


def without_option(argv: list[str], option: str) -> list[str]:
    """`argv` minus one bwrap option (and its value): a weaker lock, to show what it stops."""
    index = argv.index(option)
    width = 2 if option in ("--cap-drop", "--uid", "--gid") else 1
    return argv[:index] + argv[index + width :]


def as_plain_root(argv: list[str]) -> list[str]:
    """`argv` without the user namespace toolgate gives a lane it starts as root: that
    namespace (the lane is uid 1000 there) stops the attacks below on its own too, so a
    control that shows what another option stops must run without it."""
    for option in ("--unshare-user", "--uid", "--gid"):
        if option in argv:
            argv = without_option(argv, option)
    return argv


def has_words(argv: Sequence[str], *words: str) -> bool:
    return any(tuple(argv[i : i + len(words)]) == words for i in range(len(argv)))


def python(script: str, *args: str) -> list[str]:
    return [PY, "-c", script, *args]


# A lane script that tries each write it is given and prints `WHAT ok` or `WHAT ERRNAME`.
TRY_WRITES = """
import errno, os, sys
def attempt(label, action):
    try:
        action()
        print(label, "ok", flush=True)
    except OSError as error:
        print(label, errno.errorcode[error.errno], flush=True)
"""


def seen(output: str, label: str) -> str:
    """What the lane printed for `label` (`ok` or an errno name)."""
    for line in output.splitlines():
        if line.startswith(label + " "):
            return line.split(" ", 1)[1]
    raise AssertionError(f"the lane printed nothing for {label!r}: {output!r}")


def assert_locked_run_left_tree(
    done: subprocess.CompletedProcess[str], root: Path, before: State
) -> None:
    assert differences(before, state(root)) == [], done.stdout + done.stderr


# --- 1. plain programs ---------------------------------------------------------------------

PLAIN_WRITES = {
    "sh-redirect": ["sh", "-c", "echo x > f"],
    "python-new-file": python("open('new.txt', 'w').write('x')"),
    "python-append": python("open('README.md', 'a').write('x')"),
    "git-commit-allow-empty": ["git", "commit", "--allow-empty", "-q", "-m", "x"],
    "rm-tracked": ["rm", "README.md"],
    "rm-r-dir": ["rm", "-r", "src"],
    "mv": ["mv", "README.md", "moved.md"],
    "chmod": ["chmod", "000", "README.md"],
    "touch-existing": ["touch", "-d", "2001-02-03 04:05:06", "README.md"],
    "truncate": ["truncate", "-s", "0", "src/app.py"],
    "ln-s": ["ln", "-s", "README.md", "link"],
    "mkdir": ["mkdir", "newdir"],
    "git-ref": ["sh", "-c", "git rev-parse HEAD > .git/refs/heads/evil"],
    "git-config": ["git", "config", "core.hooksPath", "/tmp"],
    "git-hook": ["sh", "-c", "printf '#!/bin/sh\\n' > .git/hooks/pre-commit"],
    "git-object": ["sh", "-c", "echo x | git hash-object -w --stdin"],
    "hard-link-out-then-write": ["sh", "-c", "ln README.md {outside}/hl && echo x >> {outside}/hl"],
}
"""Each changes the tree when run plainly; the stderr fragment the lock must produce."""

PLAIN_REASON = {"hard-link-out-then-write": "Invalid cross-device link"}


@pytest.mark.parametrize("name", sorted(PLAIN_WRITES))
def test_plain_program_cannot_change_the_tree(bwrap: Path, tmp_path: Path, name: str) -> None:
    def program(outside: Path) -> list[str]:
        return [word.replace("{outside}", str(outside)) for word in PLAIN_WRITES[name]]

    locked, control = fresh_tree(tmp_path, "locked"), fresh_tree(tmp_path, "control")
    outside = tmp_path / "outside"
    outside.mkdir()
    before = state(locked)
    done = run_locked(locked, program(outside))
    assert_locked_run_left_tree(done, locked, before)
    assert done.returncode != 0
    assert PLAIN_REASON.get(name, EROFS) in done.stderr
    assert list(outside.iterdir()) == []

    control_before = state(control)
    plain = run_plain(control, program(outside))
    assert plain.returncode == 0, plain.stderr
    assert differences(control_before, state(control)) != []


# --- 2. writes outside the tree ------------------------------------------------------------


def test_writes_outside_the_tree_still_work(bwrap: Path, tmp_path: Path) -> None:
    tree = fresh_tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    before = state(tree)
    done = run_locked(tree, ["sh", "-c", f"echo made > {outside}/note; echo x > inside"])
    assert_locked_run_left_tree(done, tree, before)
    assert (outside / "note").read_text() == "made\n"
    assert EROFS in done.stderr


# --- 3. escapes ----------------------------------------------------------------------------

MOUNT_ESCAPES = {
    "remount-rw": "mount -o remount,rw,bind {tree}; echo x > {tree}/escaped",
    "umount-lazy": "umount -l {tree}; echo x > {tree}/escaped",
}


@ROOT_ONLY
@pytest.mark.parametrize("name", sorted(MOUNT_ESCAPES))
def test_root_lane_cannot_unlock_the_mount(bwrap: Path, tmp_path: Path, name: str) -> None:
    """The lock drops every capability; with CAP_SYS_ADMIN kept, the same program escapes."""
    locked, control = fresh_tree(tmp_path, "locked"), fresh_tree(tmp_path, "control")
    before = state(locked)
    done = run_locked(locked, ["sh", "-c", MOUNT_ESCAPES[name].format(tree=locked)])
    assert_locked_run_left_tree(done, locked, before)
    assert f"{locked}/escaped: {EROFS}" in done.stderr

    program = ["sh", "-c", MOUNT_ESCAPES[name].format(tree=control)]
    weaker = without_option(as_plain_root(lock_argv(control, program)), "--cap-drop")
    control_before = state(control)
    escaped = run_plain(control, weaker)
    assert escaped.returncode == 0, escaped.stderr
    assert (control / "escaped").read_text() == "x\n"
    assert differences(control_before, state(control)) == [".", "escaped"]


NESTED_NAMESPACE = (
    TRY_WRITES
    + """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def syscall(label, result):
    print(label, "ok" if result == 0 else errno.errorcode[ctypes.get_errno()], flush=True)
tree = sys.argv[1].encode()
CLONE_NEWUSER, CLONE_NEWNS, MS_REMOUNT, MS_BIND, MNT_DETACH = 0x10000000, 0x20000, 32, 4096, 2
syscall("unshare", libc.unshare(CLONE_NEWUSER | CLONE_NEWNS))
syscall("remount-rw", libc.mount(None, tree, None, MS_REMOUNT | MS_BIND, None))
syscall("umount", libc.umount2(tree, MNT_DETACH))
attempt("write", lambda: open(os.path.join(sys.argv[1], "escaped"), "w").write("x"))
"""
)
"""A new user and mount namespace gives the lane every capability over its own copy of the
mounts; the read-only bind it inherited is locked there, so neither remount nor umount works."""


@pytest.mark.parametrize("user", ["current", "tguser"])
def test_nested_user_namespace_cannot_unlock_the_mount(
    bwrap: Path, tmp_path: Path, user: str
) -> None:
    with caller(user, tmp_path) as who:
        locked, control = who.tree("locked"), who.tree("control")
        before = state(locked)
        done = who.run(locked, who.python(NESTED_NAMESPACE, str(locked)), True)
        assert_locked_run_left_tree(done, locked, before)
        assert seen(done.stdout, "unshare") == "ok", done.stderr
        assert seen(done.stdout, "remount-rw") != "ok"
        assert seen(done.stdout, "umount") != "ok"
        assert seen(done.stdout, "write") == "EROFS"

        control_before = state(control)
        plain = who.run(control, who.python(NESTED_NAMESPACE, str(control)), False)
        assert seen(plain.stdout, "write") == "ok", plain.stderr
        assert differences(control_before, state(control)) != []


PROC_OF_OUTSIDE = (
    TRY_WRITES
    + """
pid, tree = sys.argv[1], sys.argv[2]
attempt("root", lambda: open(f"/proc/{pid}/root{tree}/via-root", "w").write("x"))
attempt("cwd", lambda: open(f"/proc/{pid}/cwd/via-cwd", "w").write("x"))
"""
)


@ROOT_ONLY
def test_proc_of_an_outside_process_does_not_lead_back(bwrap: Path, tmp_path: Path) -> None:
    """/proc/PID/root and /proc/PID/cwd of a process outside the sandbox would reach the
    unlocked mounts; the lock's new PID namespace hides every such process. The control drops
    --unshare-pid and --cap-drop ALL (as root, the missing capabilities alone deny the
    ptrace-mode access those links need)."""
    locked, control = fresh_tree(tmp_path, "locked"), fresh_tree(tmp_path, "control")
    for tree, weaken in ((locked, False), (control, True)):
        outsider = subprocess.Popen(
            [PY, "-c", "import sys; sys.stdin.read()"], cwd=tree, stdin=subprocess.PIPE
        )
        try:
            before = state(tree)
            program = python(PROC_OF_OUTSIDE, str(outsider.pid), str(tree))
            if weaken:
                argv = lock_argv(tree, program)
                argv = as_plain_root(argv)
                argv = without_option(without_option(argv, "--unshare-pid"), "--cap-drop")
                done = run_plain(tree, argv)
                assert (seen(done.stdout, "root"), seen(done.stdout, "cwd")) == ("ok", "ok")
                assert differences(before, state(tree)) != []
            else:
                done = run_locked(tree, program)
                assert_locked_run_left_tree(done, tree, before)
                assert seen(done.stdout, "root") == "ENOENT", done.stderr
                assert seen(done.stdout, "cwd") == "ENOENT"
        finally:
            outsider.communicate(b"", timeout=60)


THROUGH_FDS = (
    TRY_WRITES
    + """
directory, file = int(sys.argv[1]), int(sys.argv[2])
flags = os.O_WRONLY | os.O_CREAT
attempt("dir-fd", lambda: os.close(os.open("planted", flags, 0o644, dir_fd=directory)))
attempt("file-fd", lambda: os.write(file, b"through an inherited descriptor"))
"""
)


def test_inherited_descriptors_do_not_reach_the_tree(bwrap: Path, tmp_path: Path) -> None:
    """A descriptor opened before the sandbox writes through the unlocked mount; toolgate
    closes all but 0-2 before it execs bwrap. Control: the lock's own bwrap argv, run directly
    with the same descriptors, does let them write."""
    locked, control = fresh_tree(tmp_path, "locked"), fresh_tree(tmp_path, "control")
    for tree, through_toolgate in ((locked, True), (control, False)):
        directory = os.open(tree, os.O_RDONLY | os.O_DIRECTORY)
        file = os.open(tree / "README.md", os.O_RDWR | os.O_APPEND)
        try:
            program = python(THROUGH_FDS, str(directory), str(file))
            before = state(tree)
            fds = (directory, file)
            if through_toolgate:
                done = run_locked(tree, program, pass_fds=fds)
                assert_locked_run_left_tree(done, tree, before)
                assert seen(done.stdout, "dir-fd") == "EBADF", done.stderr
                assert seen(done.stdout, "file-fd") == "EBADF"
            else:
                done = run_plain(tree, lock_argv(tree, program), pass_fds=fds)
                assert (seen(done.stdout, "dir-fd"), seen(done.stdout, "file-fd")) == ("ok", "ok")
                assert (tree / "planted").exists()
                assert differences(before, state(tree)) != []
        finally:
            os.close(directory)
            os.close(file)


def root_device() -> str | None:
    """The block device `/` is mounted from, per /proc/self/mountinfo, if it is a /dev path."""
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split(" ")
        if len(fields) > 4 and fields[4] == "/" and " - " in line:
            source = line.split(" - ", 1)[1].split(" ")[1]
            if source.startswith("/dev/"):
                return source
    return None


DEVICES = """
import os, stat, sys
print("disk", os.path.exists(sys.argv[1]))
blocks = [n for n in os.listdir("/dev") if stat.S_ISBLK(os.lstat("/dev/" + n).st_mode)]
print("block-devices", len(blocks))
"""


def test_the_disk_device_is_not_in_the_lanes_dev(bwrap: Path, tmp_path: Path) -> None:
    """A root lane that could open the disk's block device could write the tree's blocks under
    the mount; the lock's /dev is fresh and holds no block device (nothing is written here)."""
    device = root_device()
    if device is None or not Path(device).exists():
        pytest.skip(f"/ is not mounted from a block device node here ({device})")
    tree = fresh_tree(tmp_path)
    done = run_locked(tree, python(DEVICES, device))
    assert done.returncode == 0, done.stderr
    assert seen(done.stdout, "disk") == "False"
    assert seen(done.stdout, "block-devices") == "0"
    control = run_plain(tree, python(DEVICES, device))
    assert seen(control.stdout, "disk") == "True"


CONTROLLING_TERMINAL = """
import errno, os
try:
    os.close(os.open("/dev/tty", os.O_RDWR))
    print("tty ok")
except OSError as error:
    print("tty", errno.errorcode[error.errno])
"""


def test_the_lane_has_no_controlling_terminal(bwrap: Path, tmp_path: Path) -> None:
    """No controlling terminal, so no TIOCSTI into the caller's shell: run under `script`,
    which gives its child a terminal; the control opens /dev/tty there, the lane cannot."""
    script = shutil.which("script")
    if script is None:
        pytest.skip("util-linux `script` is not installed (it provides the terminal)")
    tree = fresh_tree(tmp_path)
    program = python(CONTROLLING_TERMINAL)
    locked_line = shlex.join(toolgate_argv(*LOCK, "--exec", *dispatch_args(tree, program)))
    runs = {}
    for label, line in (("locked", locked_line), ("plain", shlex.join(program))):
        runs[label] = subprocess.run(
            [script, "-qec", line, "/dev/null"],
            env=toolgate_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert seen(runs["plain"].stdout, "tty") == "ok", runs["plain"].stdout
    assert seen(runs["locked"].stdout, "tty") == "ENXIO", runs["locked"].stdout


TIOCSTI_LANE = """
import errno, fcntl, sys, termios
try:
    for character in sys.argv[1]:
        fcntl.ioctl(0, termios.TIOCSTI, character.encode())
    print("tiocsti ok")
except OSError as error:
    print("tiocsti", errno.errorcode[error.errno])
"""


def _on_terminal(argv: Sequence[str]) -> tuple[subprocess.CompletedProcess[str], bytes]:
    """`argv` run as the leader of a new session whose controlling terminal is a fresh pty on
    its stdin, as a lane started from an interactive shell runs; returns the run and what is
    then waiting in the terminal's input queue (what the shell would read next)."""
    controller, terminal = pty.openpty()
    try:

        def take_terminal() -> None:  # runs in the child, after setsid
            fcntl.ioctl(0, termios.TIOCSCTTY, 0)

        done = subprocess.run(
            argv,
            stdin=terminal,
            env=toolgate_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            start_new_session=True,
            preexec_fn=take_terminal,
        )
        os.set_blocking(terminal, False)
        try:
            queued = os.read(terminal, 4096)
        except BlockingIOError:
            queued = b""
        return done, queued
    finally:
        os.close(controller)
        os.close(terminal)


def test_the_lane_cannot_type_into_the_callers_terminal(bwrap: Path, tmp_path: Path) -> None:
    """TIOCSTI pushes characters into a terminal's input as if typed: a lane that still had
    the caller's terminal as its controlling terminal could queue a command that the caller's
    shell runs after the lane exits, outside the lock. `--new-session` takes the terminal away:
    the control is the lock's own argv without it (this kernel allows TIOCSTI:
    dev.tty.legacy_tiocsti is 1 here; where it is 0 the control cannot type either)."""
    if Path("/proc/sys/dev/tty/legacy_tiocsti").read_text().strip() == "0":
        pytest.skip("this kernel refuses TIOCSTI to everyone (dev.tty.legacy_tiocsti = 0)")
    tree = fresh_tree(tmp_path)
    command = f"touch {tree}/typed\n"
    program = python(TIOCSTI_LANE, command)
    weaker = without_option(lock_argv(tree, program), "--new-session")
    control, control_queued = _on_terminal(weaker)
    assert seen(control.stdout, "tiocsti") == "ok", control.stdout + control.stderr
    assert control_queued == command.encode(), control_queued

    locked, locked_queued = _on_terminal(
        toolgate_argv(*LOCK, "--exec", *dispatch_args(tree, program))
    )
    assert seen(locked.stdout, "tiocsti") == "EPERM", locked.stdout + locked.stderr
    assert locked_queued == b"", locked_queued


# --- 4. other views of the same files ------------------------------------------------------

ALIASES = {"tree": ("tree", ""), "subdirectory": ("tree/src", ""), "parent": (".", "tree")}
"""What is bind-mounted at the alias (relative to the tree's parent), and where the tree's
files then are below the alias."""


@ROOT_ONLY
@pytest.mark.parametrize("name", sorted(ALIASES))
def test_bind_mount_alias_is_locked_too(bwrap: Path, tmp_path: Path, name: str) -> None:
    """A bind mount shows the tree's files at a second path; the lock finds it in the mount
    table (other_views) and binds it read-only as well. Control: the alias writes the tree."""
    source, below = ALIASES[name]
    parent = tmp_path / "parent"
    tree = fresh_tree(parent)
    alias = tmp_path / "alias"
    alias.mkdir()
    mounted = subprocess.run(
        ["mount", "--bind", str(parent / source), str(alias)], capture_output=True, text=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.strip()}")
    try:
        view = alias / below if below else alias
        target = view / "README.md" if name != "subdirectory" else view / "app.py"
        program = ["sh", "-c", f"echo x >> {target}"]
        assert has_words(lock_argv(tree, program), "--ro-bind", str(view), str(view))
        before = state(tree)
        done = run_locked(tree, program)
        assert_locked_run_left_tree(done, tree, before)
        assert f"{target}: {EROFS}" in done.stderr

        plain = run_plain(tree, program)
        assert plain.returncode == 0, plain.stderr
        assert differences(before, state(tree)) != []
    finally:
        subprocess.run(["umount", str(alias)], check=True)


def commit_program() -> list[str]:
    return ["git", "commit", "--allow-empty", "-q", "-m", "from the lane"]


def test_linked_worktree_cannot_commit(bwrap: Path, tmp_path: Path) -> None:
    """Caller root = a linked worktree: its commits land in the main repository's .git (the
    common dir), outside the caller root, which the lock binds read-only too."""
    runs = {}
    for label in ("locked", "control"):
        main = fresh_tree(tmp_path / label, "main")
        linked = tmp_path / label / "linked"
        git(main, "worktree", "add", "-q", str(linked))
        before = (state(main), state(linked))
        if label == "locked":
            assert has_words(
                lock_argv(linked, commit_program()), "--ro-bind", *[str(main / ".git")] * 2
            )
            runs[label] = run_locked(linked, commit_program())
        else:
            runs[label] = run_plain(linked, commit_program())
        runs[label + "-changed"] = differences(before[0], state(main)) + differences(
            before[1], state(linked)
        )
    assert runs["locked-changed"] == [], runs["locked"].stderr
    assert runs["locked"].returncode != 0
    assert EROFS in runs["locked"].stderr
    assert runs["control"].returncode == 0, runs["control"].stderr
    assert runs["control-changed"] != []


def test_caller_root_below_the_top_level_cannot_commit(bwrap: Path, tmp_path: Path) -> None:
    """Caller root = a subdirectory: the repository's .git above it is locked as well."""
    locked, control = fresh_tree(tmp_path, "locked"), fresh_tree(tmp_path, "control")
    before = state(locked)
    done = run_locked(locked / "src", commit_program())
    assert_locked_run_left_tree(done, locked, before)
    assert EROFS in done.stderr

    control_before = state(control)
    plain = run_plain(control / "src", commit_program())
    assert plain.returncode == 0, plain.stderr
    assert differences(control_before, state(control)) != []


def test_moving_a_parent_directory_cannot_swap_the_tree(bwrap: Path, tmp_path: Path) -> None:
    """HOLE (reported to the lead): a directory above the caller root is outside the lock, so
    the lane can rename it and plant a tree of its own at the caller's path. The files of the
    real tree are untouched (they moved along), but the caller's path now holds what the lane
    wrote, a `.git/config` with `core.fsmonitor` say, which runs at the caller's next
    `git status`. Control: the same program without toolgate does the same."""
    runs = {}
    for label in ("locked", "control"):
        parent = tmp_path / label / "parent"
        tree = fresh_tree(parent)
        program = [
            "sh",
            "-c",
            f"mv {parent} {parent}.moved && mkdir -p {tree} && echo planted > {tree}/README.md",
        ]
        before = state(tree)
        runs[label] = run_locked(tree, program) if label == "locked" else run_plain(tree, program)
        runs[label + "-changed"] = differences(before, state(tree)) if tree.exists() else ["gone"]
    assert runs["control"].returncode == 0, runs["control"].stderr
    assert runs["control-changed"] != []
    assert runs["locked-changed"] == [], runs["locked"].stdout + runs["locked"].stderr


# --- 5. a symlink in the tree pointing outside ---------------------------------------------


def test_symlink_out_of_the_tree_writes_outside_only(bwrap: Path, tmp_path: Path) -> None:
    """Documented behaviour: the lock covers the tree's own entries, not where its symlinks
    lead. A write through `out -> OUTSIDE` lands in OUTSIDE; the tree (the link included) is
    unchanged."""
    tree = fresh_tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (tree / "out").symlink_to(outside)
    before = state(tree)
    done = run_locked(tree, ["sh", "-c", "echo through > out/file; echo x > inside"])
    assert_locked_run_left_tree(done, tree, before)
    assert (outside / "file").read_text() == "through\n"
    assert f"inside: {EROFS}" in done.stderr


# --- 6. an unprivileged caller -------------------------------------------------------------

UNPRIVILEGED = "tguser"


class Caller:
    """Who runs toolgate and the control: this process's user, or the plain user
    `tguser` (bwrap then builds its sandbox in a user namespace)."""

    def __init__(self, user: str, base: Path, interpreter: str) -> None:
        self.user = user
        self.base = base
        self.interpreter = interpreter

    def tree(self, name: str) -> Path:
        tree = fresh_tree(self.base, name)
        if self.user != "current":
            owner = shutil.chown
            for directory, dirs, files in os.walk(tree):
                for entry in [directory, *[os.path.join(directory, n) for n in dirs + files]]:
                    owner(entry, UNPRIVILEGED, UNPRIVILEGED)
        return tree

    def python(self, script: str, *args: str) -> list[str]:
        return [self.interpreter, "-c", script, *args]

    def run(self, tree: Path, program: list[str], locked: bool) -> subprocess.CompletedProcess[str]:
        if self.user == "current":
            return run_locked(tree, program) if locked else run_plain(tree, program)
        argv = [
            self.interpreter,
            "-m",
            "toolgate_cli",
            *LOCK,
            "--exec",
            *dispatch_args(tree, program),
        ]
        return subprocess.run(
            argv if locked else program,
            cwd=tree,
            env=unprivileged_env(),
            user=UNPRIVILEGED,
            group=UNPRIVILEGED,
            extra_groups=[],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )


def unprivileged_env() -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": f"/home/{UNPRIVILEGED}",
        "PYTHONPATH": str(REPO_ROOT),
        **GIT_ENV,
    }


def unprivileged_interpreter() -> str | None:
    """A python3 the plain user can run that imports this checkout's toolgate fast path."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(candidate):
            continue
        probe = subprocess.run(
            [candidate, "-c", "import toolgate_cli.dispatch_main"],
            cwd="/",
            env=unprivileged_env(),
            user=UNPRIVILEGED,
            capture_output=True,
            timeout=60,
            check=False,
        )
        if probe.returncode == 0:
            return candidate
    return None


@contextmanager
def caller(user: str, tmp_path: Path) -> Iterator[Caller]:
    if user == "current":
        yield Caller(user, tmp_path, PY)
        return
    if os.geteuid() != 0:
        pytest.skip(f"switching to {UNPRIVILEGED} needs root")
    try:
        pwd.getpwnam(UNPRIVILEGED)
    except KeyError:
        pytest.skip(f"no plain user {UNPRIVILEGED} here (useradd {UNPRIVILEGED} to run this)")
    interpreter = unprivileged_interpreter()
    if interpreter is None:
        pytest.skip(f"{UNPRIVILEGED} cannot run a python3 that imports {REPO_ROOT}")
    base = Path(tempfile.mkdtemp(prefix="toolgate-lock-"))
    try:
        base.chmod(0o755)
        yield Caller(user, base, interpreter)
    finally:
        shutil.rmtree(base)


USERS = ["current", UNPRIVILEGED]


@pytest.mark.parametrize("user", USERS)
@pytest.mark.parametrize("name", ["sh-redirect", "git-commit-allow-empty"])
def test_plain_write_fails_for_every_caller(
    bwrap: Path, tmp_path: Path, user: str, name: str
) -> None:
    with caller(user, tmp_path) as who:
        locked, control = who.tree("locked"), who.tree("control")
        before = state(locked)
        done = who.run(locked, PLAIN_WRITES[name], True)
        assert_locked_run_left_tree(done, locked, before)
        assert EROFS in done.stderr

        control_before = state(control)
        plain = who.run(control, PLAIN_WRITES[name], False)
        assert plain.returncode == 0, plain.stderr
        assert differences(control_before, state(control)) != []


# --- 7. refusals: no lock, no run ----------------------------------------------------------

FAKE_BWRAP_LINE = (
    "bwrap: No permissions to creating new namespace, likely because the kernel does not "
    "allow non-privileged user namespaces."
)


def tools_dir(directory: Path, *names: str) -> Path:
    """A PATH directory holding only `names` (links to the real tools)."""
    directory.mkdir()
    for name in names:
        found = shutil.which(name)
        assert found is not None, name
        (directory / name).symlink_to(found)
    return directory


def dispatch_with_path(
    tree: Path, path: Path, program: list[str], output: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        toolgate_argv(*LOCK, output, *dispatch_args(tree, program)),
        env=toolgate_env({"PATH": str(path)}),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_refused(done: subprocess.CompletedProcess[str], output: str, *fragments: str) -> None:
    assert done.returncode == 3, done.stdout + done.stderr
    if output == "--json":
        answer = json.loads(done.stdout)
        assert (answer["ok"], answer["invoke"]) == (False, None)
        said = answer["refusal"]
    else:
        assert done.stdout == ""
        assert len(done.stderr.strip().splitlines()) == 1, done.stderr
        said = done.stderr
    for fragment in fragments:
        assert fragment in said


@pytest.mark.parametrize("output", ["--exec", "--json"])
def test_without_bwrap_lock_tree_is_refused_and_nothing_runs(tmp_path: Path, output: str) -> None:
    tree = fresh_tree(tmp_path)
    path = tools_dir(tmp_path / "bin", "sh", "touch", "true")
    marker = tmp_path / "ran"
    program = ["sh", "-c", f"touch {marker}"]
    done = dispatch_with_path(tree, path, program, output)
    assert_refused(done, output, "bubblewrap", "apt-get install bubblewrap")
    assert not marker.exists()

    control = subprocess.run(program, env={"PATH": str(path)}, check=False)
    assert control.returncode == 0
    assert marker.exists()


@pytest.mark.parametrize("output", ["--exec", "--json"])
def test_bwrap_that_cannot_build_namespaces_is_refused(tmp_path: Path, output: str) -> None:
    """The trial run fails, so the lane never starts: the fake bwrap is called once, for the
    trial (`... -- true`), and its own line is in the refusal."""
    tree = fresh_tree(tmp_path)
    path = tools_dir(tmp_path / "bin", "sh", "touch", "true")
    calls = tmp_path / "bwrap-calls"
    fake = path / "bwrap"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {calls}\necho "{FAKE_BWRAP_LINE}" >&2\nexit 1\n')
    fake.chmod(0o755)
    marker = tmp_path / "ran"
    done = dispatch_with_path(tree, path, ["sh", "-c", f"touch {marker}"], output)
    assert_refused(done, output, FAKE_BWRAP_LINE, "bubblewrap")
    assert not marker.exists()
    trials = calls.read_text().splitlines()
    assert len(trials) == 1
    assert trials[0].endswith(" -- " + str(path / "true"))


# --- 8. the kernel's own settings ----------------------------------------------------------

CORE_PATTERN = Path("/proc/sys/kernel/core_pattern")

CORE_HELPER_ESCAPE = (
    TRY_WRITES
    + """
import signal, subprocess
helper = sys.argv[1]
attempt("core_pattern", lambda: open("/proc/sys/kernel/core_pattern", "w").write("|" + helper))
crash = "import os, resource, signal; resource.setrlimit(resource.RLIMIT_CORE, (0, 0));"
crash += " os.kill(os.getpid(), signal.SIGSEGV)"
subprocess.run([sys.executable, "-c", crash], check=False)
"""
)
"""Point the kernel's core dump helper at a script, then crash: the kernel runs the helper
as root in the first namespaces, outside the sandbox, where it writes the tree."""

OPEN_FOR_WRITING = (
    TRY_WRITES
    + """
for path in sys.argv[1:]:
    attempt(path, lambda: os.close(os.open(path, os.O_WRONLY)))
"""
)
"""Opens each path for writing and closes it without writing a byte."""


@ROOT_ONLY
def test_root_lane_cannot_set_the_core_dump_helper(bwrap: Path, tmp_path: Path) -> None:
    """A root lane (no capabilities) that can write /proc/sys/kernel/core_pattern escapes the
    lock at once: measured with bwrap 0.8.0, whose own cover of /proc/sys is skipped because
    access(W_OK) on that directory says EACCES. The lock must bind /proc/sys read-only.
    Control: the same open for writing works outside (nothing is written there)."""
    tree = fresh_tree(tmp_path)
    helper = tmp_path / "core-helper"
    helper.write_text(f"#!/bin/sh\necho escaped > {tree}/escaped\ncat > /dev/null\n")
    helper.chmod(0o755)
    original = CORE_PATTERN.read_text()
    before = state(tree)
    try:
        done = run_locked(tree, python(CORE_HELPER_ESCAPE, str(helper)))
    finally:
        if CORE_PATTERN.read_text() != original:
            CORE_PATTERN.write_text(original)
    assert_locked_run_left_tree(done, tree, before)
    assert seen(done.stdout, "core_pattern") == "EROFS", done.stderr

    control = run_plain(tree, python(OPEN_FOR_WRITING, str(CORE_PATTERN)))
    assert seen(control.stdout, str(CORE_PATTERN)) == "ok", control.stderr


SYSFS_SETTINGS = (
    "/sys/kernel/uevent_helper",
    "/sys/kernel/mm/transparent_hugepage/enabled",
    "/sys/power/state",
)


@ROOT_ONLY
def test_root_lane_cannot_open_kernel_settings_for_writing(bwrap: Path, tmp_path: Path) -> None:
    """The same class of setting in /sys (uevent_helper, where the kernel has it, names a
    program the kernel runs as root): opened for writing and closed, nothing is written."""
    settings = [str(CORE_PATTERN)]
    settings += [path for path in SYSFS_SETTINGS if os.access(path, os.W_OK)][:1]
    tree = fresh_tree(tmp_path)
    done = run_locked(tree, python(OPEN_FOR_WRITING, *settings))
    control = run_plain(tree, python(OPEN_FOR_WRITING, *settings))
    for path in settings:
        assert seen(control.stdout, path) == "ok", control.stderr
        assert seen(done.stdout, path) == "EROFS", done.stderr


# A shared object whose constructor writes a file into the directory named by $EVIL_TREE: the
# template's environment (`--env LD_PRELOAD=...`) would load it into bwrap itself, before the
# sandbox exists, if toolgate applied that environment to the bwrap process.
EVIL_SO = r"""
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void evil(void) {
    const char *tree = getenv("EVIL_TREE");
    char path[4096];
    if (!tree || strlen(tree) > 4000) return;
    strcpy(path, tree);
    strcat(path, "/preloaded");
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) { write(fd, "x", 1); close(fd); }
}
"""


def test_the_templates_environment_never_reaches_bwrap_itself(bwrap: Path, tmp_path: Path) -> None:
    """`--env LD_PRELOAD=evil.so` is set inside the sandbox (`--setenv`): there its code runs
    with the tree locked. The control gives the same environment to the lock's own bwrap argv,
    as an exec of `invoke` with its environment would, and the library writes the tree."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        message = "no C compiler to build the LD_PRELOAD library (apt-get install gcc)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    library = tmp_path / "evil.so"
    source = tmp_path / "evil.c"
    source.write_text(EVIL_SO)
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    locked, control = fresh_tree(tmp_path, "locked"), fresh_tree(tmp_path, "control")
    program = ["sh", "-c", "true"]
    overrides = {"LD_PRELOAD": str(library)}

    before = state(locked)
    done = run_locked(locked, program, lane_env={**overrides, "EVIL_TREE": str(locked)})
    assert done.returncode == 0, done.stderr
    assert differences(before, state(locked)) == []
    assert "--setenv" in lock_argv(locked, program, lane_env=overrides)

    control_before = state(control)
    argv = lock_argv(control, program)
    plain = subprocess.run(
        argv,
        env={**os.environ, **overrides, "EVIL_TREE": str(control)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert plain.returncode == 0, plain.stderr
    assert "preloaded" in differences(control_before, state(control))


def test_a_nested_bwrap_cannot_bind_the_tree_writable_again(bwrap: Path, tmp_path: Path) -> None:
    """The lane is bwrap itself (codex's own sandbox is one): a new user namespace, and in it a
    writable bind of the tree over the locked one. The bind inherits the kernel's read-only
    lock, so the write still fails. The control runs the same nested bwrap outside the lock."""
    locked, control = fresh_tree(tmp_path, "locked"), fresh_tree(tmp_path, "control")

    def nested(tree: Path) -> list[str]:
        return [
            str(bwrap), "--unshare-user", "--bind", "/", "/", "--bind", str(tree), str(tree),
            "--", "sh", "-c", f"echo x > {shlex.quote(str(tree))}/nested",
        ]  # fmt: skip

    before = state(locked)
    done = run_locked(locked, nested(locked))
    assert differences(before, state(locked)) == [], done.stderr
    assert done.returncode != 0 and EROFS in done.stderr, done.stderr

    control_before = state(control)
    plain = run_plain(control, nested(control))
    assert plain.returncode == 0, plain.stderr
    assert "nested" in differences(control_before, state(control))
