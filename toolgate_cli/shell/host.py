"""The real file system for the place checks (place.py): the only I/O of the shell checker.
The hook and `check-command` build a `Place` with it; tests use it on scratch trees."""

from __future__ import annotations

import os


class HostFileSystem:
    """`FileSystem` (place.py) over the os module. Never raises: an error reads as absent."""

    __slots__ = ()

    def realpath(self, path: str) -> str:
        try:
            return os.path.realpath(path)
        except (OSError, ValueError):
            return path

    def is_dir(self, path: str) -> bool:
        try:
            return os.path.isdir(path)
        except (OSError, ValueError):
            return False

    def lexists(self, path: str) -> bool:
        try:
            os.lstat(path)
        except FileNotFoundError:
            return False
        except (OSError, ValueError):
            return True  # unreadable: assume something is there (refuses, never admits)
        return True

    def names(self, path: str) -> list[str] | None:
        try:
            return os.listdir(path)
        except (OSError, ValueError):
            return None


HOST = HostFileSystem()
