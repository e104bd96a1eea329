"""Replace toolgate with the lane: chdir, re-check containment, apply env, exec.

The verdict was taken on paths; between it and the exec a directory on the way could be swapped
for a symlink. So after chdir the real current directory is resolved again and must still lie
inside the caller root; only then does the lane replace this process (no child is left behind;
the exit status and signals are the lane's own).
"""

from __future__ import annotations

import os
import sys

from toolgate_cli import exitcodes
from toolgate_cli.lanes.base import LaneInvocation
from toolgate_cli.verdict import is_within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping


class ExecFailure(Exception):
    """The lane could not be started; `status` is the exit code to report."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def lane_environment(
    base: Mapping[str, str], overrides: Mapping[str, str | None]
) -> dict[str, str]:
    """`base` with the invocation's overrides applied; a None value removes the variable."""
    env = dict(base)
    for name, value in overrides.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


def exec_lane(
    invocation: LaneInvocation,
    cwd: str,
    caller_root: str | None,
    *,
    only_std_fds: bool = False,
    execvpe: Callable[[str, list[str], dict[str, str]], object] = os.execvpe,
) -> None:
    """chdir into `cwd`, re-check it lies within `caller_root` (when given), and exec.

    `caller_root` must be the resolved root the verdict compared against (the decision's
    `caller_root`); it is deliberately not resolved again, so a root swapped for a symlink
    since then cannot carry the check along with it.

    `only_std_fds` closes every inherited descriptor but 0, 1 and 2 first: under the tree lock
    a descriptor opened before the sandbox (a directory in the tree, say) still writes through
    the unlocked mount, so none may cross.

    Returns only if `execvpe` does (a test double); raises ExecFailure when the directory moved
    out of the tree or the lane binary cannot be run.
    """
    try:
        os.chdir(cwd)
        real = os.getcwd()
    except OSError as error:
        raise ExecFailure(exitcodes.REFUSED, f"cannot enter {cwd}: {error.strerror}") from None
    if caller_root is not None and not is_within(real, caller_root):
        raise ExecFailure(
            exitcodes.REFUSED,
            f"refused: after chdir the working directory is {real}, outside the caller root "
            f"{caller_root} (a path changed after the check)",
        )
    env = lane_environment(os.environ, invocation.env)
    argv = [invocation.command, *invocation.args]
    sys.stdout.flush()
    sys.stderr.flush()
    if only_std_fds:
        close_inherited_fds()
    try:
        execvpe(invocation.command, argv, env)
    except FileNotFoundError:
        raise ExecFailure(
            exitcodes.NOT_FOUND, f"cannot run {invocation.command}: not found"
        ) from None
    except PermissionError:
        raise ExecFailure(
            exitcodes.NOT_EXECUTABLE, f"cannot run {invocation.command}: permission denied"
        ) from None
    except OSError as error:
        raise ExecFailure(
            exitcodes.NOT_EXECUTABLE, f"cannot run {invocation.command}: {error.strerror}"
        ) from None


def close_inherited_fds() -> None:
    """Close every open descriptor above 2 (those listed in /proc/self/fd, else up to the
    soft limit)."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        os.closerange(3, soft if soft != resource.RLIM_INFINITY else 65536)
        return
    from contextlib import suppress

    for fd in fds:
        if fd > 2:
            with suppress(OSError):  # the descriptor listdir itself used is closed already
                os.close(fd)
