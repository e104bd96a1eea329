"""The checks that depend on where a command runs: `cd DIR`, git after it, and globs at the start
of a word. Pure: the file system is read through the `FileSystem` given in the `Place` (host.py
has the real one), so the rules are tested against real trees and fakes alike.

What the rules are, and why:

- `cd DIR` is admitted only when the checker knows the caller root. DIR is one word: not `-`,
  not `~`, no `..` component (bash resolves `..` textually before symlinks, the kernel after
  them: the two can disagree), no glob. It is resolved from every directory the command may be
  in at that point, symlinks followed (what the process's working directory then is), and each
  resolution must be a directory inside the caller root. When CDPATH is set, a relative DIR
  must start with `./` (bash and zsh search CDPATH first).
- After a `cd`, the directory a command runs in depends on which commands before it succeeded
  (`cd a || ls`, `cd a; ls`). So the checker carries the *set* of directories each command may
  run in: every `cd` adds its targets and keeps the directories it came from. A check that
  depends on the directory must hold in each of them.
- git finds its repository by walking up from the working directory to the first directory
  that holds a `.git` entry or is itself a repository (it holds `HEAD`). A nested or embedded
  repository brings its own config (hooks, core.fsmonitor, aliases, pager, diff and filter
  drivers), which can run programs. So with a caller root known, git is admitted only where
  the first such directory up from the working directory is the same as the first one up from
  the caller root: both walks then meet and git reads the same repository (a ceiling or a
  file-system boundary on the way can only make git stop early and fail). The markers are
  looked for with lstat, broken symlinks included, so a false match refuses, never admits.
- A glob that starts a word (`*.py`, `?x`, `[ab]*`) expands to names of the directory the
  command runs in; its first character is the first character of such a name. It is admitted
  only when every entry of each possible directory starts with a letter, a digit, `.` or `_`
  (so no expansion can start with `-` or `+`); otherwise, or when the directory is unknown or
  unreadable, it is refused. Globs that start with a literal character (`src/*.py`) never
  need this (words.py).
"""

from __future__ import annotations

from toolgate_cli.shell.verdict import display_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class FileSystem(Protocol):
        """What the place checks read of the file system."""

        def realpath(self, path: str) -> str:
            """`path` absolute, with every symlink resolved (like os.path.realpath)."""

        def is_dir(self, path: str) -> bool:
            """Whether `path` is a directory (symlinks followed)."""

        def lexists(self, path: str) -> bool:
            """Whether anything is at `path` (a broken symlink too)."""

        def names(self, path: str) -> list[str] | None:
            """The entry names of the directory `path`, or None if it cannot be read."""


MAX_DIRECTORIES = 8
"""More possible working directories for one command are refused (each `cd` can double them)."""

REPOSITORY_MARKERS = (".git", "HEAD")
"""Entries that may make a directory the one git stops at: `.git` (a directory or a gitfile)
for a work tree, `HEAD` for a bare repository (git requires HEAD in a git directory)."""


def safe_first_character(name: str) -> bool:
    """Whether a directory entry may start an expanded word: no option starts like it."""
    first = name[:1]
    return first.isalnum() or first in "._"


class Place:
    """Where a command runs. `cwd`: the directory it starts in (absolute; None when unknown);
    `root`: the caller root `cd` must stay inside and git's repository is judged against (None:
    `cd` is refused, git is judged as without a place); `cdpath_set`: CDPATH is set in the
    environment the command runs with."""

    __slots__ = ("_names", "_repositories", "cdpath_set", "cwd", "fs", "root")

    def __init__(
        self, fs: FileSystem, cwd: str | None, root: str | None = None, cdpath_set: bool = False
    ) -> None:
        self.fs = fs
        self.cwd = cwd
        self.root = root
        self.cdpath_set = cdpath_set
        self._repositories: dict[str, str | None] = {}
        self._names: dict[str, list[str] | None] = {}

    def start(self) -> str | None:
        """The starting directory, resolved; None when unknown or not absolute."""
        if self.cwd is None or not self.cwd.startswith("/"):
            return None
        return self.fs.realpath(self.cwd)

    def resolved_root(self) -> str | None:
        """The caller root, resolved; None when not given, not absolute or not a directory."""
        if self.root is None or not self.root.startswith("/"):
            return None
        real = self.fs.realpath(self.root)
        return real if self.fs.is_dir(real) else None

    def repository(self, directory: str) -> str | None:
        """The first directory from `directory` up that holds a repository marker (None: none)."""
        if directory in self._repositories:
            return self._repositories[directory]
        current = directory
        found = None
        while True:
            if any(self.fs.lexists(join(current, marker)) for marker in REPOSITORY_MARKERS):
                found = current
                break
            parent = current.rsplit("/", 1)[0] or "/"
            if parent == current:
                break
            current = parent
        self._repositories[directory] = found
        return found

    def names(self, directory: str) -> list[str] | None:
        if directory not in self._names:
            self._names[directory] = self.fs.names(directory)
        return self._names[directory]


def join(directory: str, name: str) -> str:
    return directory.rstrip("/") + "/" + name


def within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def cd_target_problem(target: str, cdpath_set: bool) -> str | None:
    """Why `cd TARGET` cannot be followed from the text, or None."""
    if target == "":
        return "an empty operand"
    if target.startswith("-"):
        return "an option or `cd -` (the previous directory, unknown here)"
    if target.startswith("~"):
        return "a home directory (outside the caller root, and unknown here)"
    if ".." in target.split("/"):
        return "`..` (bash resolves it before symlinks, the kernel after them)"
    relative = not target.startswith("/")
    if relative and cdpath_set and not (target == "." or target.startswith("./")):
        return "a relative name while CDPATH is set (the shell searches CDPATH first); write ./NAME"
    return None


def cd_destinations(place: Place, directories: list[str], target: str) -> list[str] | str:
    """Where `cd TARGET` leads from each of `directories` (the ones where it exists), or why it
    is refused: a destination outside the caller root, or none at all."""
    root = place.resolved_root()
    if root is None:
        return "the caller root is not a directory"
    destinations: list[str] = []
    for directory in directories:
        path = target if target.startswith("/") else join(directory, target)
        real = place.fs.realpath(path)
        if not place.fs.is_dir(real):
            continue  # cd fails there and the shell stays where it was (already in the set)
        if not within(real, root):
            return f"it leads to {display_text(real)}, outside the caller root {display_text(root)}"
        if real not in destinations:
            destinations.append(real)
    if not destinations:
        return "no such directory"
    return destinations


def repository_problem(place: Place, directories: list[str]) -> str | None:
    """Why git may not run in one of `directories` (another repository than the caller root's,
    or outside the caller root), or None."""
    root = place.resolved_root()
    if root is None:
        return "the caller root is not a directory, so git's repository cannot be judged"
    expected = place.repository(root)
    for directory in directories:
        if not within(directory, root):
            return (
                f"the working directory {display_text(directory)} is outside the caller root "
                f"{display_text(root)}"
            )
        if directory == root:
            continue
        found = place.repository(directory)
        if found != expected:
            what = "no repository" if found is None else f"the repository at {display_text(found)}"
            return (
                f"in {display_text(directory)} git would use {what}, not the caller root's: a "
                "nested or embedded repository's config can run programs"
            )
    return None


def glob_problem(place: Place, directories: list[str], word: str) -> str | None:
    """Why the glob `word` (its pattern at its start) could expand into an option-like name in
    one of `directories`, or None."""
    for directory in directories:
        names = place.names(directory)
        if names is None:
            return f"{display_text(directory)} cannot be listed, so its expansion is unknown"
        bad = next((name for name in sorted(names) if not safe_first_character(name)), None)
        if bad is not None:
            return (
                f"{display_text(directory)} holds {display_text(bad)}, a name it could expand "
                "to that a program may read as an option"
            )
    return None
