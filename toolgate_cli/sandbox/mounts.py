"""The mount table and `.git` files, read for the tree lock: pure text in, paths out.

`toolgate_cli.sandbox.host` reads `/proc/self/mountinfo` and the repository's `.git` file and
hands the text here; `other_views` finds every other place that shows the tree's files, which
the lock must cover as well.
"""

from __future__ import annotations

import os

from toolgate_cli.records import record
from toolgate_cli.verdict import is_within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence


@record(frozen=True)
class Mount:
    """One line of /proc/self/mountinfo: the filesystem `device`, the path inside that
    filesystem it shows (`fs_path`), and where it shows it (`mount_point`)."""

    device: str
    fs_path: str
    mount_point: str


def _unescape(field: str) -> str:
    r"""mountinfo escapes space, tab, newline and backslash as \ooo octal."""
    if "\\" not in field:
        return field
    out: list[str] = []
    index = 0
    while index < len(field):
        chunk = field[index + 1 : index + 4]
        if field[index] == "\\" and len(chunk) == 3 and all(c in "01234567" for c in chunk):
            out.append(chr(int(chunk, 8)))
            index += 4
        else:
            out.append(field[index])
            index += 1
    return "".join(out)


def parse_mountinfo(text: str) -> tuple[Mount, ...]:
    """The mounts of a /proc/PID/mountinfo text, in its order (a later mount hides an earlier
    one at the same place). Lines that do not parse are skipped."""
    mounts = []
    for line in text.splitlines():
        fields = line.split(" ")
        if len(fields) < 10 or "-" not in fields[6:]:
            continue
        fs_path, mount_point = _unescape(fields[3]), _unescape(fields[4])
        # A filesystem path ending in //deleted is a bind of something removed since: it shows
        # nothing of the tree.
        if fs_path.endswith("//deleted"):
            continue
        if not (mount_point.startswith("/") and fs_path.startswith("/")):
            continue  # not the kernel's writing: a shifted or garbled line
        mounts.append(Mount(fields[2], _clean(fs_path), _clean(mount_point)))
    return tuple(mounts)


def _clean(path: str) -> str:
    """`path` normalised, with one leading slash (POSIX normpath keeps a leading `//`)."""
    return "/" + os.path.normpath(path).lstrip("/")


def _fs_path_of(path: str, mounts: Sequence[Mount]) -> tuple[Mount, str] | None:
    """The mount that shows `path`, and where `path` lies inside that mount's filesystem."""
    best: Mount | None = None
    for mount in mounts:
        if is_within(path, mount.mount_point) and (
            best is None or len(mount.mount_point) >= len(best.mount_point)
        ):
            best = mount
    if best is None:
        return None
    rest = os.path.relpath(path, best.mount_point)
    return best, os.path.normpath(os.path.join(best.fs_path, rest)) if rest != "." else best.fs_path


def other_views(root: str, mountinfo: str) -> tuple[str, ...]:
    """Every place outside `root` that shows files of the tree through another mount.

    A bind mount of the tree (or of a directory above or inside it) elsewhere, or a second
    mount of the same filesystem, would let a lane write the tree's files by another path. The
    parts of the tree to cover are the tree itself in the filesystem that holds it, and each
    filesystem mounted inside the tree. For each, any other mount of the same device whose
    filesystem path overlaps it is such a view.
    """
    mounts = parse_mountinfo(mountinfo)
    found = _fs_path_of(root, mounts)
    if found is None:
        return ()
    holder, tree_path = found
    regions = [(holder.device, tree_path)]
    regions += [
        (mount.device, mount.fs_path)
        for mount in mounts
        if mount is not holder and is_within(mount.mount_point, root)
    ]
    views: list[str] = []
    for mount in mounts:
        if is_within(mount.mount_point, root):
            continue
        for device, fs_path in regions:
            if mount.device != device:
                continue
            if is_within(fs_path, mount.fs_path):
                rest = os.path.relpath(fs_path, mount.fs_path)
                views.append(
                    mount.mount_point if rest == "." else os.path.join(mount.mount_point, rest)
                )
            elif is_within(mount.fs_path, fs_path):
                views.append(mount.mount_point)
    return tuple(path for path in views if not is_within(path, root))


def gitdir_of(dot_git_file: str, directory: str) -> str | None:
    """The git dir named by a `.git` file's text (`gitdir: PATH`, relative to `directory`),
    as written; None when the text is not such a file."""
    first = dot_git_file.partition("\n")[0].rstrip("\r")
    prefix = "gitdir: "
    if not first.startswith(prefix) or len(first) == len(prefix):
        return None
    return os.path.join(directory, first[len(prefix) :])
