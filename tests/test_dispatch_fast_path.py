"""The click-free fast path of `toolgate dispatch` answers exactly as the click command does.

`toolgate_cli.dispatch_main.fast_path` either returns None having written nothing (the click
command then runs) or produces the very exit status, stdout and stderr the click command
produces for the same arguments. Checked in-process on generated command lines built from
dispatch's own options, values that look like options, `=` forms, repeats, help, unknown
options and lane commands that are rewritten, refused or missing. (`--exec` is left out: it
would replace the test process; tests/test_bad_input.py runs it through the real entry point.)
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from tests.conftest import REPO_ROOT, toolgate_env
from toolgate_cli import dispatch_main
from toolgate_cli.cli import run

OPTION_WORDS = [
    "--read-only",
    "--read-shell",
    "--lock-tree",
    "--lock-only",
    "--require-proven",
    "--lane-version",
    "--json",
    "--mode",
    "--cwd",
    "--caller-root",
    "--allow-bash-prefix",
    "--pass-flag",
    "--pass-config",
    "--pass-env",
    "--env",
    "--unset-env",
]
VALUES = [
    "agent",
    "answer",
    "plan",
    "",
    "--",
    "--read-only",
    "-h",
    str(REPO_ROOT),
    str(REPO_ROOT / "toolgate_cli"),
    str(REPO_ROOT / "pyproject.toml"),
    "/nonexistent",
    "jq",
    "sh -c",
    "git log",
    "--zz",
    "--zz=1",
    "--zz=2",
    "zz",
    "LANG=C",
    "HOME=/x",
    "NOEQUALS",
    "sandbox_mode",
    "x\ny",
    "caf\udce9",
]
OTHER_WORDS = ["--help", "-h", "--version", "--frobnicate", "claude", "--read-only=1", "--exec=x"]
LANE_COMMANDS = [
    [],
    ["claude", "-p", "x"],
    ["claude", "-p", "--allowedTools", "Write", "review"],
    ["claude", "review"],
    ["codex", "exec", "x y"],
    ["codex", "--yolo", "exec", "-s", "danger-full-access", "review this"],
    ["codex", "exec", "x"],
    ["opencode", "run", "x"],
    ["claude", "-p", "caf\udce9"],
    ["claude", "-p", "--bg"],
]

GOOD_VALUES = {
    "--mode": ["agent", "answer"],
    "--cwd": [str(REPO_ROOT), str(REPO_ROOT / "toolgate_cli"), "/nonexistent", "tests"],
    "--caller-root": [str(REPO_ROOT), str(REPO_ROOT / "tests"), "/"],
    "--allow-bash-prefix": ["jq", "git log", "make -n"],
    "--pass-flag": ["--zz", "--zz=1", "-z"],
    "--pass-config": ["zz", "model"],
    "--pass-env": ["ZZ"],
    "--env": ["LANG=C", "ZZ=1", "HOME=/x"],
    "--unset-env": ["HOME", "ZZ"],
    "--lane-version": ["2.1.197", "v2.1.332", "0.171.0", "1.0", "9.9.9", "latest", "2.1.x"],
}


def _valued(name: str) -> st.SearchStrategy[list[str]]:
    values = st.sampled_from(GOOD_VALUES[name]) | st.sampled_from(VALUES)
    return values.flatmap(lambda value: st.sampled_from([[name, value], [f"{name}={value}"]]))


flags = st.sampled_from(
    [
        ["--read-only"],
        ["--read-shell"],
        ["--json"],
        ["--lock-tree"],
        ["--lock-only"],
        ["--require-proven"],
    ]
)
valued = st.sampled_from(sorted(GOOD_VALUES)).flatmap(_valued)
others = st.sampled_from(OTHER_WORDS).map(lambda word: [word])
option_tokens = st.one_of(flags, flags, valued, valued, valued, valued, valued, others)
command_lines = st.builds(
    lambda tokens, dashdash, lane: [
        *(word for token in tokens for word in token),
        *(["--"] if dashdash else []),
        *lane,
    ],
    st.lists(option_tokens, max_size=6).map(lambda tokens: [["--read-only"], *tokens]),
    st.integers(0, 7).map(bool),  # mostly with `--`
    st.sampled_from(LANE_COMMANDS),
)


@contextmanager
def captured() -> Iterator[tuple[io.BytesIO, io.BytesIO]]:
    """Swap stdout and stderr for in-memory streams with the same encoding and error handlers."""
    out, err = io.BytesIO(), io.BytesIO()
    saved = sys.stdout, sys.stderr
    sys.stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    sys.stderr = io.TextIOWrapper(
        err, encoding="utf-8", errors="backslashreplace", write_through=True
    )
    try:
        yield out, err
    finally:
        for wrapper in (sys.stdout, sys.stderr):
            wrapper.flush()
            wrapper.detach()  # keep the BytesIO open for getvalue()
        sys.stdout, sys.stderr = saved


def through_click(args: list[str]) -> tuple[int, bytes, bytes]:
    with captured() as (out, err):
        status = run(["dispatch", *args])
    return status, out.getvalue(), err.getvalue()


def through_fast_path(args: list[str]) -> tuple[int | None, bytes, bytes]:
    with captured() as (out, err):
        status = dispatch_main.fast_path(list(args))
    return status, out.getvalue(), err.getvalue()


def assert_same_answer(args: list[str]) -> bool:
    """True when the fast path answered (and matched click), False when it handed over."""
    assert "--exec" not in args
    status, out, err = through_fast_path(args)
    if status is None:
        assert (out, err) == (b"", b""), "handed over to click after writing"
        return False
    assert (status, out, err) == through_click(args), args
    return True


@pytest.fixture(autouse=True)
def _in_the_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)  # the default caller root: this checkout


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command_lines)
def test_the_fast_path_answers_as_click_does_or_hands_over(args: list[str]) -> None:
    os.chdir(REPO_ROOT)
    event("answered by the fast path" if assert_same_answer(args) else "handed over to click")


ANSWERED = [
    ["--read-only", "--", "claude", "-p", "x"],
    ["--read-only", "--json", "--", "codex", "exec", "x y"],
    ["--read-only", "--", "claude", "-p", "--allowedTools", "Write", "review"],
    ["--read-only", "--", "claude", "review"],  # refused: exit 3, JSON and one line
    ["--read-only", "--cwd", "/nonexistent", "--", "claude", "-p", "x"],
    ["--read-only", "--caller-root=/nonexistent", "--", "claude", "-p", "x"],
    ["--read-only", "--cwd", "--read-only", "--", "claude", "-p", "x"],  # a value, as in click
    ["--read-only", "--read-shell", "--allow-bash-prefix", "jq", "--", "claude", "-p", "x"],
    ["--read-only", "--pass-flag", "--zz=1", "--", "claude", "-p", "--zz", "v", "x"],
    ["--read-only", "--env", "LANG=C", "--unset-env", "HOME", "--", "codex", "exec", "x y"],
    ["--read-only", "--lock-tree", "--", "opencode", "run", "x"],  # ok with bwrap, else 3
    ["--read-only", "--lock-only", "--", "claude", "-p", "--dangerously-skip-permissions", "x"],
    ["--mode", "answer", "--"],
    ["--mode=agent", "--mode=answer", "--"],  # the last value wins, as in click
    ["--", "claude", "anything"],  # not read-only: passed through
]

HANDED_OVER = [
    [],
    ["--help"],
    ["-h"],
    ["--read-only", "claude", "-p", "x"],  # no `--`
    ["--read-only", "--frobnicate", "--", "claude"],
    ["--read-only=1", "--", "claude", "-p", "x"],
    ["--read-only", "--mode", "plan", "--", "claude", "-p", "x"],
    ["--read-only", "--json", "--exec", "--", "claude", "-p", "x"],
    ["--read-only", "--cwd"],
    ["--read-only", "--"],  # no lane command: a usage error, reported by click
    ["--read-only", "--cwd", "", "--", "claude", "-p", "x"],
    ["--read-shell", "--", "claude", "-p", "x"],
    ["--read-only", "--read-shell", "--allow-bash-prefix", "sh -c", "--", "claude", "-p", "x"],
    ["--read-only", "--env", "NOEQUALS", "--", "claude", "-p", "x"],
    ["--read-only", "--pass-flag", "zz", "--", "claude", "-p", "x"],
    ["--lock-tree", "--", "opencode", "run", "x"],
    ["--read-only", "--lock-only", "--read-shell", "--", "claude", "-p", "x"],
    ["--read-only", "--lock-tree", "--mode", "answer", "--"],
    ["--read-only", "--", "claude", "-p", "caf\udce9"],  # JSON cannot carry it: usage error
]


@pytest.mark.parametrize("args", ANSWERED, ids=[" ".join(a) for a in ANSWERED])
def test_the_documented_forms_are_answered_by_the_fast_path(args: list[str]) -> None:
    assert assert_same_answer(args)


@pytest.mark.parametrize("args", HANDED_OVER, ids=[" ".join(a) or "(none)" for a in HANDED_OVER])
def test_help_and_every_usage_problem_are_left_to_click(args: list[str]) -> None:
    if "--exec" in args:  # not run here (it could exec); the parser alone must hand it over
        assert dispatch_main.parse_fast_path_args(args) is None
    else:
        assert not assert_same_answer(args)


def test_the_real_entry_point_takes_the_fast_path_without_importing_click() -> None:
    """Run `python -m toolgate_cli dispatch ...` and ask which modules it loaded: none of the
    ones whose import time benchmarks/run.py measured off this path (click with what it pulls
    in, rich, shellingham, typing), nor the sandbox's modules, which only --lock-tree and
    --confine need."""
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['toolgate', 'dispatch', '--read-only', '--', 'claude', '-p', 'x']\n"
        "try:\n"
        "    runpy.run_module('toolgate_cli', run_name='__main__')\n"
        "except SystemExit as stop:\n"
        "    off = ('click', 'rich', 'shellingham', 'typing', 'uuid', 'datetime', 'gettext',\n"
        "           'toolgate_cli.sandbox', 'toolgate_cli.sandbox.plan', 'subprocess',\n"
        "           'toolgate_cli.sandbox.host', 'toolgate_cli.sandbox.confine')\n"
        "    loaded = sorted(m for m in off if m in sys.modules)\n"
        "    sys.stderr.write(f'status={stop.code} loaded={loaded}\\n')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=toolgate_env(),
        cwd=REPO_ROOT,
        check=False,
    )
    assert '"ok": true' in result.stdout
    assert result.stderr.strip() == "status=0 loaded=[]", result.stderr


HEAVY_STANDARD_MODULES = (
    "dataclasses",
    "inspect",
    "enum",
    "re",
    "json",
    "typing",
    "shlex",
    "contextlib",
    "importlib.util",
    "subprocess",
)
"""What a dispatch must not import (benchmarks/run.py, "A real run"): measured, `dataclasses`
(with `inspect`) cost 17 ms of CPU, `json` 8 ms (it imports `re`), `re` 6 ms, `enum` 3 ms; the
whole of toolgate's dispatch costs about 5 ms above the interpreter without them."""


@pytest.mark.parametrize("output", ["--json", "--exec"])
def test_a_dispatch_imports_none_of_the_heavy_standard_modules(output: str, tmp_path: Path) -> None:
    """`toolgate dispatch` as a launcher sends it, in an interpreter started without `site`
    (an editable install's import finder would load `re` before toolgate runs); `--exec` up to
    the exec itself, with the version read from a fake claude and then from the cache."""
    lane = tmp_path / "claude"
    lane.write_text("#!/bin/sh\necho '2.1.332 (Claude Code)'\n")
    lane.chmod(0o755)
    probe = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "HEAVY = sys.argv[-1].split(',')\n"
        "def report(*args):\n"
        "    heavy = [m for m in HEAVY if m in sys.modules]\n"
        "    # the check itself: a module the dispatch surely loaded is seen\n"
        "    assert 'toolgate_cli.dispatching' in sys.modules\n"
        "    sys.stderr.write(f'loaded={heavy}\\n')\n"
        "    os._exit(0)\n"
        "os.execvpe = report\n"
        "words = sys.argv[1:-1]\n"
        "sys.argv = ['toolgate', *words]\n"
        "from toolgate_cli.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    report()\n"
    )
    words = ["dispatch", "--read-only", output, "--", str(lane), "-p", "x"]
    env = {**toolgate_env(), "TOOLGATE_CACHE_DIR": str(tmp_path / "cache")}
    for temperature in ("cold", "warm"):  # --exec: the first asks the binary, then the cache
        heavy = HEAVY_STANDARD_MODULES
        if temperature == "cold" and output == "--exec":
            # asking the binary spawns it, once per binary: subprocess and what it imports
            heavy = tuple(m for m in heavy if m not in ("subprocess", "contextlib", "enum", "re"))
        result = subprocess.run(
            [sys.executable, "-S", "-c", probe, *words, ",".join(heavy)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            check=False,
        )
        assert result.stderr.strip().splitlines()[-1] == "loaded=[]", (temperature, result.stderr)
    if output == "--json":
        assert '"ok": true' in result.stdout


def test_a_usage_error_still_reads_as_click_reports_it() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "toolgate_cli", "dispatch", "--read-only", "--"],
        capture_output=True,
        text=True,
        env=toolgate_env(),
        cwd=REPO_ROOT,
        check=False,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith("toolgate dispatch: error: no lane command")


def test_the_fast_path_knows_exactly_the_options_click_declares() -> None:
    # The fast path keeps its own small table of dispatch's options (importing click to read them
    # would cost what the fast path saves); this keeps the two from drifting apart.
    from toolgate_cli.commands.dispatch import dispatch

    click_names = {
        name
        for param in dispatch.params
        for name in (*param.opts, *param.secondary_opts)
        if name.startswith("--") and name != "--help"
    }
    fast_names = {
        *dispatch_main.FLAGS,
        *dispatch_main.SINGLE,
        *dispatch_main.MULTIPLE,
        *dispatch_main.OUTPUTS,
    }
    assert fast_names == click_names
