"""Running commands in real bash and zsh, for the read-shell tests: with the real programs (to
show an attack really does harm) or with recording stubs on PATH (to see exactly which programs
the shell runs, with which words, in which directory)."""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

BASH = shutil.which("bash")
ZSH = shutil.which("zsh")
SHELLS = {name: path for name, path in (("bash", BASH), ("zsh", ZSH)) if path is not None}

STUB_PROGRAMS = [
    *("basename", "cat", "column", "cut", "diff", "dirname", "du", "echo", "file", "find", "git"),
    *("grep", "head", "jq", "ls", "nl", "paste", "pwd", "readlink", "realpath", "rev", "rg"),
    *("sed", "sort", "stat", "tac", "tail", "tr", "tree", "uniq", "wc", "which"),
    *("touch", "rm", "tee", "sh"),
]
"""Programs a stub stands in for: the read programs, and a few writers, so a test sees when the
shell would have run one."""

# Builtins that would run in place of a stub (zsh has `which` built in).
_DISABLE_BUILTINS = {"bash": "enable -n echo pwd", "zsh": "disable echo pwd which"}


@dataclass(frozen=True)
class Call:
    """One program the shell started: its name, the directory it ran in, its arguments."""

    name: str
    cwd: str
    args: tuple[str, ...]


def make_stubs(directory: Path) -> Path:
    """A directory of stub programs; each records its call into `$TG_CALLS` and exits 0."""
    mktemp = shutil.which("mktemp")
    assert mktemp is not None
    directory.mkdir(parents=True, exist_ok=True)
    script = (
        "#!/bin/sh\n"
        f'f=$({mktemp} "$TG_CALLS/call.XXXXXXXX") || exit 99\n'
        '{ printf \'%s\\0\' "${0##*/}" "$(pwd -P)"; '
        'for a in "$@"; do printf \'%s\\0\' "$a"; done; } > "$f"\n'
    )
    for name in STUB_PROGRAMS:
        stub = directory / name
        stub.write_text(script)
        stub.chmod(0o755)
    return directory


def run_with_stubs(
    shell: str, command: str, cwd: Path, stubs: Path, calls: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[bytes], list[Call]]:
    """Run `command` the way Claude Code does (`eval` of the text) with only the stubs on PATH;
    return the result and every call the stubs recorded."""
    if calls.exists():
        shutil.rmtree(calls)
    calls.mkdir(parents=True)
    flags = ["--norc", "--noprofile"] if shell == "bash" else ["-f"]
    script = f'{_DISABLE_BUILTINS[shell]}; eval "$1"'
    done = subprocess.run(
        [SHELLS[shell], *flags, "-c", script, shell, command],
        cwd=cwd,
        env={
            "PATH": str(stubs),
            "HOME": str(cwd),
            "LC_ALL": "C",
            "TG_CALLS": str(calls),
            **(env or {}),
        },
        capture_output=True,
        timeout=30,
        check=False,
    )
    recorded = []
    for path in sorted(calls.iterdir()):
        fields = path.read_bytes().decode("utf-8", "surrogateescape").split("\0")[:-1]
        recorded.append(Call(fields[0], fields[1], tuple(fields[2:])))
    return done, recorded


def run_real(
    shell: str, command: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run `command` with the real programs (an attack's control leg), the way Claude Code does
    (`eval` of the text, stdin from /dev/null)."""
    flags = ["--norc", "--noprofile"] if shell == "bash" else ["-f"]
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "CDPATH"))}
    return subprocess.run(
        [SHELLS[shell], *flags, "-c", 'eval "$1"', shell, command],
        cwd=cwd,
        env={**base, "LC_ALL": "C", **(env or {})},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=60,
        check=False,
    )
