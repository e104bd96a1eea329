"""Whether a read-only dispatch may run at all, judged on where it would run.

Pure code apart from path resolution (realpath, is-directory): no click, no output. The one
rule that matters: a read-only dispatch must run inside the caller's own tree, and that is
judged on RESOLVED paths with a separator boundary, never on a string prefix, because the
mistake in that direction would wrongly permit a mutation: `/x/tree-other` shares a prefix
with `/x/tree` and is not inside it, and `/x/tree/../elsewhere` or a symlink leading out of the
tree resolve to where they really point before anything is compared.
"""

from __future__ import annotations

import os

from toolgate_cli.records import record

# Type-only: importing typing costs the dispatch path ~2 ms at start-up (benchmarks/run.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Mode = Literal["agent", "answer"]


@record(frozen=True)
class ReadOnlyRequest:
    """A dispatch as the caller declared it, before any default is applied.

    `mode="answer"` spawns no lane process, so there is nothing to confine. `cwd` is where the
    lane would run (None: the caller's current directory); `caller_root` is the tree the caller
    protects, its own checkout.
    """

    read_only: bool
    mode: Mode
    cwd: str | None
    caller_root: str


@record(frozen=True)
class Allowed:
    """The dispatch may run, in `cwd` (absolute and resolved when read-only)."""

    cwd: str
    ok: Literal[True] = True


@record(frozen=True)
class Refused:
    """The dispatch may not run; `refusal` says why in one line and what to do instead."""

    refusal: str
    ok: Literal[False] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "refusal", one_line(self.refusal))


Verdict = Allowed | Refused


_CONTROL_ESCAPES = {code: repr(chr(code))[1:-1] for code in (*range(0x20), 0x7F)}
"""Each control character and how `repr` writes it (`\\n`, `\\x1b`): a translate table, not a
regular expression, because `re` costs the dispatch path its import."""


def one_line(text: str) -> str:
    """`text` with control characters (newlines above all) written as escapes.

    Refusals quote paths and argv words, which may hold anything; a refusal is one line on
    stderr, so a quoted newline must not start a second one.
    """
    return text.translate(_CONTROL_ESCAPES)


def resolve_read_only_cwd(cwd: str | None, fallback: str | None = None) -> str:
    """The directory a dispatch will actually run in: the caller's `cwd`, else `fallback`,
    else the current directory; made absolute (not yet resolved through symlinks).

    Not normalised: `..` must keep its meaning for the OS, where `link/..` is the parent of the
    link's target, not the directory holding the link (`os.path.abspath` would drop `link/..`
    lexically and judge a different directory than the one the caller named).
    """
    chosen = cwd if cwd else (fallback if fallback else os.getcwd())
    return chosen if os.path.isabs(chosen) else os.path.join(os.getcwd(), chosen)


def is_within(path: str, root: str) -> bool:
    """Whether resolved `path` is `root` or below it, on a path-separator boundary.

    Both arguments must already be resolved (realpath). `/x/tree-other` is not within `/x/tree`;
    `/x/tree` is within itself; everything is within `/`.
    """
    if path == root:
        return True
    boundary = root if root.endswith(os.sep) else root + os.sep
    return path.startswith(boundary)


def git_top_level(start: str) -> str | None:
    """The nearest directory at or above resolved `start` that holds a `.git` (a directory, or
    the file of a linked worktree or submodule); None outside any repository.

    Walks up instead of spawning git: dispatch runs before every lane launch.
    """
    current = os.path.realpath(start)
    while True:
        if os.path.exists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def read_only_verdict(request: ReadOnlyRequest) -> Verdict:
    """Decide whether the dispatch may proceed, and say why not when it may not.

    - answer mode: always allowed (nothing is spawned); cwd is reported as given.
    - not read-only: allowed as is; nothing to confine.
    - read-only: the caller root and the cwd must exist and be directories, and the resolved cwd
      must lie within the resolved caller root.
    """
    cwd = resolve_read_only_cwd(request.cwd)
    if request.mode == "answer" or not request.read_only:
        return Allowed(cwd)
    root_problem = _not_a_directory(request.caller_root, "caller root")
    if root_problem:
        return Refused(root_problem)
    cwd_problem = _not_a_directory(cwd, "cwd")
    if cwd_problem:
        return Refused(cwd_problem)
    real_root = os.path.realpath(request.caller_root)
    real_cwd = os.path.realpath(cwd)
    if not is_within(real_cwd, real_root):
        shown = cwd if real_cwd == cwd else f"{cwd} (resolves to {real_cwd})"
        return Refused(
            f"cwd {shown} is outside the caller root {real_root}: a read-only dispatch must run "
            "inside the caller's own tree; pass a --cwd inside it or the right --caller-root"
        )
    return Allowed(real_cwd)


def _not_a_directory(path: str, role: str) -> str | None:
    """A one-line refusal when `path` does not exist or is not a directory, else None."""
    if not os.path.lexists(path):
        return f"{role} {path} does not exist"
    if not os.path.exists(path):
        return f"{role} {path} is a broken symlink (its target does not exist)"
    if not os.path.isdir(path):
        return f"{role} {path} is not a directory"
    return None
