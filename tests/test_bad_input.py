"""Bad input through the real CLI, one subprocess per case, table-driven across commands.

Every case states the documented exit status, what stdout must hold (nothing, one complete JSON
document, or the command's whole normal output) and the one line stderr must carry, or that
stderr stays empty when the answer itself is the output (a rejected rule, a hook's deny, an
explanation). Whatever the input: no traceback, never a partial stdout.

The inputs (issue 7): arguments that are not UTF-8, a 120 KB argument, 100,000 words, no
command, nothing after `--`, unknown options, a missing caller root, a cwd that is a file, a
missing binary under `--exec`; per command where the command takes such a thing.

Argument limits, measured and handled rather than assumed: Linux caps one argument at
MAX_ARG_STRLEN (32 pages, 131,072 bytes), so 120 KB fits in one argument and 130 KB could not
reach toolgate at all; the whole argv plus environment must fit in ARG_MAX (`getconf
ARG_MAX`, 2 MiB with an 8 MiB stack). 100,000 short words take about 1.5 MB with their
pointers, so they fit here; where they would not, the case is skipped and says so, because
the operating system refuses to start toolgate at all (E2BIG), which no code in toolgate can
change.
"""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, toolgate_env
from toolgate_cli import exitcodes
from toolgate_cli.messages import LINE_LIMIT

BIG = "x" * 120_000  # 120 KB: under Linux's 128 KiB limit on one argument
WORDS = [f"w{index}" for index in range(100_000)]
NOT_UTF8 = b"caf\xe9"  # Latin-1 bytes: not valid UTF-8
BASH_EVENT = {
    "session_id": "s",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "git status"},
}


def event(command: object = "git status", **extra: object) -> bytes:
    tool_input: dict[str, object] = {} if command is None else {"command": command}
    return json.dumps({**BASH_EVENT, "tool_input": tool_input, **extra}).encode()


@dataclass
class Case:
    """One bad input and what the CLI must answer.

    `args` may hold "{file}" (a regular file), "{missing}" (a path that does not exist) and
    "{lane}" (an executable fake claude that records its argv), filled in per test.
    `stdout`: "empty", "json-line" (one complete JSON document on one line, as dispatch and
    check-command print it), "json" (one complete document, pretty-printed as rules prints it),
    "hook" (a complete hook decision on one line; `decision` names it) or "text" (the command's
    normal output, whole).
    `stderr`: a fragment of the one line stderr must hold, or None for an empty stderr.
    """

    id: str
    args: list[str | bytes]
    status: int
    stdout: str
    stderr: str | None
    stdin: bytes | None = None
    decision: str | None = None
    json_check: Callable[[object], bool] | None = None
    marks: list[pytest.MarkDecorator] = field(default_factory=list)


def _ok_with(key: str, value: object) -> Callable[[object], bool]:
    return lambda document: isinstance(document, dict) and document.get(key) == value


USAGE, REFUSED, NOT_ADMITTED, OK = (
    exitcodes.USAGE,
    exitcodes.REFUSED,
    exitcodes.NOT_ADMITTED,
    exitcodes.OK,
)

CASES: list[Case] = [
    # --- dispatch ----------------------------------------------------------------------------
    Case(
        "dispatch/not-utf8-lane-word",
        ["dispatch", "--read-only", "--", "claude", "-p", NOT_UTF8],
        USAGE,
        "empty",
        "not valid UTF-8",
    ),
    Case(
        "dispatch/not-utf8-cwd",
        ["dispatch", "--read-only", "--cwd", b"/tmp/" + NOT_UTF8, "--", "claude", "-p", "x"],
        USAGE,
        "empty",
        "not valid UTF-8",
    ),
    Case(
        "dispatch/not-utf8-option-name",
        ["dispatch", "--read-only", b"--" + NOT_UTF8, "--", "claude", "-p", "x"],
        USAGE,
        "empty",
        "No such option",
    ),
    Case(
        "dispatch/120KB-prompt",
        ["dispatch", "--read-only", "--", "claude", "-p", BIG],
        OK,
        "json-line",
        None,
        json_check=lambda d: isinstance(d, dict) and BIG in d["invoke"]["args"],
    ),
    Case(
        "dispatch/120KB-option-value",
        ["dispatch", "--read-only", "--caller-root", "/" + BIG, "--", "claude", "-p", "x"],
        REFUSED,
        "json-line",
        "does not exist",
        json_check=_ok_with("ok", False),
    ),
    Case(
        "dispatch/100000-words",
        ["dispatch", "--read-only", "--", "claude", "-p", *WORDS],
        OK,
        "json-line",
        None,
        json_check=lambda d: isinstance(d, dict) and d["invoke"]["args"][-len(WORDS) :] == WORDS,
    ),
    Case(
        "dispatch/100000-refused-words",
        ["dispatch", "--read-only", "--", "claude", "-p", *["--bg"] * 100_000],
        REFUSED,
        "json-line",
        "--bg",
        json_check=_ok_with("ok", False),
    ),
    Case(
        "dispatch/120KB-unknown-option",
        ["dispatch", "--read-only", "--" + BIG, "--", "claude", "-p", "x"],
        USAGE,
        "empty",
        "No such option",
    ),
    Case(
        # 120 KB of path: the OS cannot even look it up (ENAMETOOLONG), so it cannot be run
        "dispatch/exec-120KB-binary-path",
        ["dispatch", "--read-only", "--exec", "--", "{missing}/" + BIG + "/claude", "-p"],
        exitcodes.NOT_EXECUTABLE,
        "empty",
        "File name too long",
    ),
    Case("dispatch/no-command", ["dispatch", "--read-only"], USAGE, "empty", "no lane command"),
    Case(
        "dispatch/nothing-after-dashdash",
        ["dispatch", "--read-only", "--"],
        USAGE,
        "empty",
        "no lane command",
    ),
    Case(
        "dispatch/unknown-option",
        ["dispatch", "--read-only", "--frobnicate", "--", "claude", "-p", "x"],
        USAGE,
        "empty",
        "No such option '--frobnicate'",
    ),
    Case(
        "dispatch/unknown-lane-option",
        ["dispatch", "--read-only", "--", "claude", "-p", "--frobnicate", "x"],
        REFUSED,
        "json-line",
        "unknown option --frobnicate",
        json_check=_ok_with("ok", False),
    ),
    Case(
        "dispatch/missing-caller-root",
        ["dispatch", "--read-only", "--caller-root", "{missing}", "--", "claude", "-p", "x"],
        REFUSED,
        "json-line",
        "caller root",
        json_check=_ok_with("ok", False),
    ),
    Case(
        "dispatch/cwd-is-a-file",
        ["dispatch", "--read-only", "--cwd", "{file}", "--", "claude", "-p", "x"],
        REFUSED,
        "json-line",
        "not a directory",
        json_check=_ok_with("ok", False),
    ),
    Case(
        "dispatch/exec-missing-binary",
        ["dispatch", "--read-only", "--exec", "--", "{missing}/claude", "-p", "x"],
        exitcodes.NOT_FOUND,
        "empty",
        "not found",
    ),
    Case(
        "dispatch/exec-missing-caller-root",
        ["dispatch", "--read-only", "--exec", "--caller-root", "{missing}", "--", "{lane}", "-p"],
        REFUSED,
        "empty",
        "caller root",
    ),
    Case(
        "dispatch/exec-cwd-is-a-file",
        ["dispatch", "--read-only", "--exec", "--cwd", "{file}", "--", "{lane}", "-p", "x"],
        REFUSED,
        "empty",
        "not a directory",
    ),
    # --- explain (the same decision, rendered for a person on stdout) --------------------------
    Case(
        "explain/not-utf8-lane-word",
        ["explain", "--read-only", "--", "claude", "-p", NOT_UTF8],
        OK,
        "text",
        None,
    ),
    Case(
        "explain/120KB-prompt",
        ["explain", "--read-only", "--", "claude", "-p", BIG],
        OK,
        "text",
        None,
    ),
    Case(
        "explain/100000-words",
        ["explain", "--read-only", "--", "claude", "-p", *WORDS],
        OK,
        "text",
        None,
    ),
    Case("explain/no-command", ["explain", "--read-only"], USAGE, "empty", "no lane command"),
    Case(
        "explain/nothing-after-dashdash",
        ["explain", "--read-only", "--"],
        USAGE,
        "empty",
        "no lane command",
    ),
    Case(
        "explain/unknown-option",
        ["explain", "--frobnicate", "--", "claude", "-p", "x"],
        USAGE,
        "empty",
        "No such option",
    ),
    # a refusal: the picture on stdout, and dispatch's one line on stderr
    Case(
        "explain/missing-caller-root",
        ["explain", "--read-only", "--caller-root", "{missing}", "--", "claude", "-p", "x"],
        REFUSED,
        "text",
        "does not exist",
    ),
    Case(
        "explain/cwd-is-a-file",
        ["explain", "--read-only", "--cwd", "{file}", "--", "claude", "-p", "x"],
        REFUSED,
        "text",
        "not a directory",
    ),
    Case(
        "explain/refused-120KB-value",
        ["explain", "--read-only", "--", "claude", "-p", "--agent", BIG, "x"],
        REFUSED,
        "text",
        "toolgate: refused: --agent",
    ),
    # --- check-command -----------------------------------------------------------------------
    Case("check-command/not-utf8", ["check-command", "--", b"ls " + NOT_UTF8], 1, "empty", "U+"),
    Case(
        "check-command/not-utf8-json",
        ["check-command", "--json", "--", b"ls " + NOT_UTF8],
        NOT_ADMITTED,
        "json-line",
        None,
        json_check=_ok_with("allowed", False),
    ),
    Case(
        "check-command/120KB",
        ["check-command", "--", "ls " + BIG],
        NOT_ADMITTED,
        "empty",
        "longer than",
    ),
    Case(
        # As one argument 100,000 words (600 KB) exceed Linux's 128 KiB limit on one argument:
        # the OS would refuse to start toolgate. `-` reads the command from stdin instead.
        "check-command/100000-words-on-stdin",
        ["check-command", "-"],
        NOT_ADMITTED,
        "empty",
        "longer than",
        stdin=" ".join(["ls", *WORDS]).encode(),
    ),
    Case(
        "check-command/100000-words",
        ["check-command", "--", "ls", *WORDS],
        USAGE,
        "empty",
        "ONE argument",
    ),
    Case("check-command/no-command", ["check-command"], USAGE, "empty", "Missing argument"),
    Case(
        "check-command/nothing-after-dashdash",
        ["check-command", "--"],
        USAGE,
        "empty",
        "Missing argument",
    ),
    Case(
        "check-command/unknown-option",
        ["check-command", "--frobnicate", "--", "ls"],
        USAGE,
        "empty",
        "No such option",
    ),
    Case(
        "check-command/bad-prefix",
        ["check-command", "--allow-bash-prefix", "sh -c", "--", "ls"],
        USAGE,
        "empty",
        "--allow-bash-prefix",
    ),
    # --- rules -------------------------------------------------------------------------------
    Case(
        "rules-check/not-utf8",
        ["rules", "check", b"Bash(ls " + NOT_UTF8 + b")"],
        NOT_ADMITTED,
        "text",
        None,
    ),
    Case("rules-check/120KB", ["rules", "check", f"Bash({BIG})"], NOT_ADMITTED, "text", None),
    Case(
        "rules-check/100000-words",
        ["rules", "check", "--json", *WORDS],
        NOT_ADMITTED,
        "json",
        None,
        json_check=lambda d: isinstance(d, list) and len(d) == len(WORDS),
    ),
    Case("rules-check/no-rule", ["rules", "check"], USAGE, "empty", "Missing argument"),
    Case(
        "rules-check/unknown-option",
        ["rules", "check", "--frobnicate", "Bash(ls)"],
        USAGE,
        "empty",
        "No such option",
    ),
    Case(
        "rules-admits/not-utf8-command",
        ["rules", "admits", "Bash(ls:*)", "--", "ls", NOT_UTF8],
        NOT_ADMITTED,
        "text",
        None,
    ),
    Case(
        "rules-admits/120KB-command",
        ["rules", "admits", "Bash(ls:*)", "--", "ls", BIG],
        OK,
        "text",
        None,
    ),
    Case(
        "rules-admits/100000-words",
        ["rules", "admits", "Bash(ls:*)", "--", "ls", *WORDS],
        OK,
        "text",
        None,
    ),
    Case("rules-admits/no-command", ["rules", "admits", "Bash(ls)"], USAGE, "empty", "COMMAND"),
    Case(
        "rules-admits/nothing-after-dashdash",
        ["rules", "admits", "Bash(ls)", "--"],
        USAGE,
        "empty",
        "COMMAND",
    ),
    Case(
        "rules-admits/unknown-option",
        ["rules", "admits", "--frobnicate", "Bash(ls)", "--", "ls"],
        USAGE,
        "empty",
        "No such option",
    ),
    Case(
        "rules-lint/missing-file",
        ["rules", "lint", "{missing}"],
        USAGE,
        "empty",
        "cannot read",
    ),
    Case("rules-lint/directory", ["rules", "lint", "{dir}"], USAGE, "empty", "cannot read"),
    Case(
        "rules-import-report/missing-file",
        ["rules", "import-report", "{missing}"],
        USAGE,
        "empty",
        "cannot read",
    ),
    Case(
        "rules-lint/not-utf8-file",
        ["rules", "lint", "{latin1}"],
        USAGE,
        "empty",
        None,  # checked below: one line naming the file
    ),
    # --- hook claude-pretooluse: every answer is a complete decision on stdout, exit 0 ----------
    Case(
        "hook/not-utf8-event",
        ["hook", "claude-pretooluse"],
        OK,
        "hook",
        None,
        stdin=event().replace(b"git status", b"ls " + NOT_UTF8),
        decision="deny",
    ),
    Case(
        "hook/not-utf8-prefix",
        ["hook", "claude-pretooluse", "--allow-bash-prefix", NOT_UTF8],
        USAGE,
        "empty",
        "--allow-bash-prefix",
        stdin=event(),
    ),
    Case(
        "hook/120KB-command",
        ["hook", "claude-pretooluse"],
        OK,
        "hook",
        None,
        stdin=event("ls " + BIG),
        decision="deny",
    ),
    Case(
        "hook/120KB-prefix",
        ["hook", "claude-pretooluse", "--allow-bash-prefix", BIG],
        OK,
        "hook",
        None,
        stdin=event(),
        decision="allow",
    ),
    Case(
        "hook/100000-words",
        ["hook", "claude-pretooluse"],
        OK,
        "hook",
        None,
        stdin=event(" ".join(["ls", *WORDS])),
        decision="deny",
    ),
    Case(
        "hook/no-command",
        ["hook", "claude-pretooluse"],
        OK,
        "hook",
        None,
        stdin=event(None),
        decision="deny",
    ),
    Case(
        "hook/empty-stdin",
        ["hook", "claude-pretooluse"],
        OK,
        "hook",
        None,
        stdin=b"",
        decision="deny",
    ),
    Case(
        "hook/unknown-option",
        ["hook", "claude-pretooluse", "--frobnicate"],
        USAGE,
        "empty",
        "No such option",
        stdin=event(),
    ),
    Case(
        "hook/nothing-after-dashdash",
        ["hook", "claude-pretooluse", "--"],
        OK,
        "hook",
        None,
        stdin=event(),
        decision="allow",
    ),
]


@pytest.fixture
def places(tmp_path: Path) -> dict[str, str]:
    """The paths a case may name: a file, a missing path, a directory, a fake lane."""
    file = tmp_path / "a-file"
    file.write_text("not a directory\n")
    latin1 = tmp_path / "settings.json"
    latin1.write_bytes(b'{"permissions": {"allow": ["Bash(ls ' + NOT_UTF8 + b')"]}}')
    lane_dir = tmp_path / "bin"
    lane_dir.mkdir()
    lane = lane_dir / "claude"
    lane.write_text(f"#!{sys.executable}\nimport sys\nprint(len(sys.argv))\n")
    lane.chmod(lane.stat().st_mode | stat.S_IXUSR)
    return {
        "{file}": str(file),
        "{missing}": str(tmp_path / "missing"),
        "{dir}": str(tmp_path),
        "{lane}": str(lane),
        "{latin1}": str(latin1),
    }


def _fill(args: Sequence[str | bytes], places: dict[str, str]) -> list[bytes]:
    filled = []
    for arg in args:
        if isinstance(arg, str):
            for name, value in places.items():
                arg = arg.replace(name, value)
            filled.append(os.fsencode(arg))
        else:
            filled.append(arg)
    return filled


def _argv_bytes(argv: Sequence[bytes], env: dict[str, str]) -> int:
    """What execve counts against ARG_MAX: every string with its NUL and a pointer each."""
    strings = [*argv, *(f"{k}={v}".encode() for k, v in env.items())]
    return sum(len(s) + 1 + 8 for s in strings)


def run_case(case: Case, places: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    argv = [os.fsencode(sys.executable), b"-m", b"toolgate_cli", *_fill(case.args, places)]
    env = toolgate_env()
    limit = os.sysconf("SC_ARG_MAX")
    if _argv_bytes(argv, env) > limit:
        pytest.skip(f"{case.id}: argv needs more than ARG_MAX ({limit:,} bytes) on this system")
    one_argument = 32 * os.sysconf("SC_PAGE_SIZE")  # Linux MAX_ARG_STRLEN
    if sys.platform == "linux" and max(len(arg) for arg in argv) >= one_argument:
        pytest.skip(f"{case.id}: an argument reaches Linux's {one_argument:,}-byte limit")
    try:
        return subprocess.run(
            argv,
            input=case.stdin,
            capture_output=True,
            env=env,
            cwd=cwd,
            timeout=120,
            check=False,
        )
    except OSError as error:
        if error.errno == errno.E2BIG:
            pytest.skip(f"{case.id}: the system refuses an argv this long (E2BIG)")
        raise


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id, marks=c.marks) for c in CASES])
def test_bad_input_gets_its_exit_status_one_clear_line_and_no_partial_output(
    case: Case, places: dict[str, str], tmp_path: Path
) -> None:
    result = run_case(case, places, cwd=REPO_ROOT)
    stdout, stderr = result.stdout, result.stderr.decode("utf-8", "replace")

    assert b"Traceback" not in result.stdout and "Traceback" not in stderr, stderr
    assert result.returncode == case.status, (result.returncode, stderr[:500])

    if case.stderr is not None or case.stdout == "empty":
        # one clear line: one newline, at its end, and short enough to read in a log even when
        # the input was 120 KB (long quotes are cut in the middle)
        assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr[:1000]
        assert len(stderr) <= LINE_LIMIT + 100, stderr[:300]
        if case.stderr is not None:
            assert case.stderr in stderr, stderr[:1000]
    else:
        assert stderr == "", stderr[:1000]

    if case.stdout == "empty":
        assert stdout == b""
    elif case.stdout in ("json", "json-line", "hook"):
        # one complete JSON document, valid UTF-8 (JSON text is UTF-8)
        if case.stdout != "json":
            assert stdout.endswith(b"\n") and stdout.count(b"\n") == 1, stdout[-200:]
        document = json.loads(stdout.decode("utf-8"))
        if case.json_check is not None:
            assert case.json_check(document), stdout[:500]
        if case.stdout == "hook":
            output = document["hookSpecificOutput"]
            assert output["hookEventName"] == "PreToolUse"
            assert output["permissionDecision"] == case.decision, output
            assert output["permissionDecisionReason"]
    else:
        assert stdout.endswith(b"\n"), stdout[-200:]
        stdout.decode("utf-8")  # the normal output is text


def test_every_listed_input_kind_is_covered_for_every_command() -> None:
    """The table is the contract: each command meets each kind of bad input it can take."""
    kinds = {
        "dispatch": [
            "not-utf8",
            "120KB",
            "100000-words",
            "no-command",
            "nothing-after-dashdash",
            "unknown-option",
            "missing-caller-root",
            "cwd-is-a-file",
            "exec-missing-binary",
        ],
        "explain": [
            "not-utf8",
            "120KB",
            "100000-words",
            "no-command",
            "nothing-after-dashdash",
            "unknown-option",
            "missing-caller-root",
            "cwd-is-a-file",
        ],
        "check-command": [
            "not-utf8",
            "120KB",
            "100000-words",
            "no-command",
            "nothing-after-dashdash",
            "unknown-option",
        ],
        "rules-check": ["not-utf8", "120KB", "100000-words", "no-rule", "unknown-option"],
        "rules-admits": [
            "not-utf8",
            "120KB",
            "100000-words",
            "no-command",
            "nothing-after-dashdash",
            "unknown-option",
        ],
        "hook": [
            "not-utf8",
            "120KB",
            "100000-words",
            "no-command",
            "nothing-after-dashdash",
            "unknown-option",
        ],
    }
    ids = [case.id for case in CASES]
    for command, wanted in kinds.items():
        for kind in wanted:
            assert any(i.startswith(f"{command}/") and kind in i for i in ids), (command, kind)


def test_a_non_utf8_lane_word_reaches_the_lane_byte_for_byte_under_exec(
    places: dict[str, str], tmp_path: Path
) -> None:
    """JSON cannot carry bytes that are not UTF-8 (a usage error above); --exec passes them on."""
    record = tmp_path / "argv.bin"
    lane = Path(places["{lane}"])
    lane.write_text(
        f"#!{sys.executable}\nimport os, sys\n"
        f"open({str(record)!r}, 'wb').write(b'\\0'.join(os.fsencode(a) for a in sys.argv[1:]))\n"
    )
    case = Case(
        "exec-not-utf8",
        ["dispatch", "--read-only", "--exec", "--", "{lane}", "-p", NOT_UTF8],
        OK,
        "empty",
        None,
    )
    result = run_case(case, places, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr
    assert record.read_bytes().split(b"\0")[-1] == NOT_UTF8


def test_100000_words_reach_the_lane_under_exec(places: dict[str, str]) -> None:
    """The rewritten argv is the template plus a dozen words: if toolgate could start with
    100,000 words, so can the lane (the fake lane prints its argc)."""
    case = Case(
        "exec-100000-words",
        ["dispatch", "--read-only", "--exec", "--", "{lane}", "-p", *WORDS],
        OK,
        "text",
        None,
    )
    result = run_case(case, places, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stderr[-500:]
    argc = int(result.stdout)
    assert argc > len(WORDS) + 2  # the lane, -p, every word, and toolgate's read-only flags
