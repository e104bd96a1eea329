"""Asking a lane binary about itself: its version (cached) and its help pages.

`binary_version` is what `toolgate dispatch --exec` calls when the caller did not say which
version will run: it finds the binary `execvp` would run, and reads `LANE --version` once per
binary. The answer is cached under the binary's resolved path and its stat (device, inode,
size, modification and change times), so an upgraded or replaced binary is asked again, and a
warm dispatch pays a `stat` and a small file read (well under the ~2 ms the issue allows).

The binary runs with `/` as its working directory, no standard input and a time limit, so its
`--version` never reads the reviewed tree's configuration.

What is outside this module's reach: a lane that can write the caller's cache directory (a lane
under `--lock-tree` can write `$HOME`) could make the next dispatch believe another supported
version; that can only choose among the tables toolgate has, never an option it does not know.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

PROBE_TIMEOUT = 15.0
"""Seconds `LANE --version` or `LANE --help` may take (claude 2.1.332 takes ~12 ms)."""

CACHE_FILE = "lane-versions"
"""One line per binary: its key, hex-encoded (a path may hold any byte), a space, and the version
it said (`-` when it named none). Not JSON: `json` would cost the exec path its import."""
CACHE_ENTRIES = 64
"""At most this many binaries are remembered; the oldest entries go first."""


def cache_dir() -> str:
    """`$TOOLGATE_CACHE_DIR`, else `$XDG_CACHE_HOME/toolgate`, else `~/.cache/toolgate`."""
    explicit = os.environ.get("TOOLGATE_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "toolgate")


def resolve_binary(command: str, cwd: str) -> str | None:
    """The file `execvp(command)` would run after a chdir into `cwd`, or None if none."""
    if "/" in command:
        path = os.path.join(cwd, command)
        return path if os.access(path, os.X_OK) and not os.path.isdir(path) else None
    for directory in os.get_exec_path():
        path = os.path.join(directory or ".", command)
        if os.access(path, os.X_OK) and not os.path.isdir(path):
            return path if os.path.isabs(path) else os.path.join(cwd, path)
    return None


def binary_key(path: str) -> str | None:
    """The cache key of the binary at `path`: its resolved path and what its stat says."""
    try:
        real = os.path.realpath(path)
        info = os.stat(real)
    except OSError:
        return None
    stamp = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return real + "\0" + ":".join(str(part) for part in stamp)


NOT_FOUND = "<not found>"
"""`binary_version`'s answer when there is no such binary: the exec will say so (exit 127)."""


def binary_version(
    command: str,
    cwd: str,
    parse: Callable[[str], str | None],
    run: Callable[[str, Sequence[str]], str | None] | None = None,
    args: Sequence[str] = ("--version",),
) -> str | None:
    """The version of the binary `command` names, as `parse` reads what `command ARGS` prints
    (`--version`, after the lane's `PROBE_ARGS`); None when it cannot be run or understood
    (such a binary is unproven); `NOT_FOUND` when there is no such binary. `run` runs it
    (default `run_binary`): under `--lock-tree` and `--confine` it runs the binary inside the
    same sandbox as the lane, since the binary is the template's to name (`./claude` in the
    reviewed tree, say)."""
    path = resolve_binary(command, cwd)
    key = binary_key(path) if path is not None else None
    if path is None or key is None:
        return NOT_FOUND
    cache = _read_cache()
    if key in cache:
        cached = cache[key]
        return cached if isinstance(cached, str) else None
    output = (run or run_binary)(path, args)
    if output is None:
        return None  # not remembered: a time-out may pass
    version = parse(output)
    cache.pop(key, None)
    cache[key] = version
    _write_cache(dict(list(cache.items())[-CACHE_ENTRIES:]))
    return version


def run_binary(
    path: str,
    args: Sequence[str],
    prefix: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
) -> str | None:
    """`path ARGS` run in `/` with no input (after the sandbox words `prefix`, in `env` when
    given); its standard output, or None when it could not run, timed out or failed."""
    import subprocess

    try:
        done = subprocess.run(
            [*prefix, path, *args],
            cwd="/",
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace")


def _read_cache() -> dict[str, str | None]:
    """The cache's entries, oldest first; a line that does not parse is left out."""
    try:
        with open(os.path.join(cache_dir(), CACHE_FILE), "rb") as file:
            lines = file.read().splitlines()
    except OSError:
        return {}
    cache: dict[str, str | None] = {}
    for line in lines:
        hex_key, _, said = line.partition(b" ")
        try:
            key = bytes.fromhex(hex_key.decode("ascii")).decode("utf-8", "surrogateescape")
            version = said.decode("ascii")
        except ValueError:
            continue
        if version and " " not in version:
            cache[key] = None if version == "-" else version
    return cache


def _write_cache(cache: dict[str, str | None]) -> None:
    """Replace the cache file atomically; a cache that cannot be written is only slower."""
    directory = cache_dir()
    temporary = os.path.join(directory, f".{CACHE_FILE}.{os.getpid()}")
    try:
        os.makedirs(directory, exist_ok=True)
        with open(temporary, "wb") as file:
            for key, version in cache.items():
                hex_key = key.encode("utf-8", "surrogateescape").hex()
                file.write(f"{hex_key} {version or '-'}\n".encode("ascii", "replace"))
        os.replace(temporary, os.path.join(directory, CACHE_FILE))
    except OSError:
        try:  # noqa: SIM105 - contextlib.suppress would cost the exec path its import
            os.unlink(temporary)
        except OSError:
            pass
