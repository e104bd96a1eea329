"""`toolgate rules lint` against what the real claude says about the same settings file.

The pinned claude (2.1.332; RULES were first measured with 2.1.197) reports on a settings file
in two places: `claude doctor` lists, under "Invalid settings", every rule its settings loader
skips ("Invalid permission rule ... was skipped"), and `claude -p` prints on stderr every deny
or ask rule that "matches no known tool" and every rule that "targets command as a raw string
and will not match". Lint must call each of those an error, and must pass every rule claude
takes without a word. Where lint is stricter than the pinned claude, the rule is in LINT_ONLY
with the reason.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import termios
import time
from pathlib import Path

from tests.conftest import run_toolgate
from tests.e2e.stub_anthropic import StubAnthropic, claude_env, scrubbed_environ

RULES: dict[str, list[object]] = {
    "allow": [
        # the example and other good rules: claude says nothing about them
        "Read",
        "Bash(npm run test:*)",
        "Edit(src/**)",
        "WebFetch(domain:github.com)",
        "mcp__github__get_issue",
        "Read(./.env)",
        "Bash(git diff *)",
        "Task(Explore)",
        "Skill(deploy *)",
        "mcp__github__*",
        "Read(~/.zshrc)",
        "Edit(//tmp/scratch.txt)",
        "Bash(echo \\))",
        # claude 2.1.197 skips these
        "Bash(:*)",
        "WebFetch(https://example.com)",
        "WebFetch(example.com)",
        "Read(src:*)",
        "mcp__gh__x(y)",
        "bash(ls)",
        "Bash()",
        "mcp__*",
        "WebSearch(a*)",
        "Bash(git:* push)",
        'Bash(echo ")")',
        7,
        # claude 2.1.197 is silent; lint is stricter (LINT_ONLY)
        "Raed",
        "ExitPlanMode(x)",
        "WebFetch(domain:)",
        "Glob(src/**)",
    ],
    "ask": ["Rread", "Bash(command:ls)", "Write(x)", "Bash(git push *)"],
    "deny": [
        "Read(./.env)",
        "Bash(curl:*)",
        "mcp__*",
        "Frobnicate",
        "MultiEdit",
        "Bash(ls",
        "Read(file_path:x)",
        "NotebookEdit(x)",
    ],
}

LINT_ONLY = {
    ("allow", "Raed"): "claude 2.1.197 reports a mistyped tool only in deny and ask rules",
    ("allow", "ExitPlanMode(x)"): "tools-reference: a tool with no listed format takes none",
    ("allow", "WebFetch(domain:)"): "an empty host matches no URL",
    ("allow", "Glob(src/**)"): "claude 2.1.332: not matched by file permission checks",
    ("ask", "Write(x)"): "claude 2.1.332: not matched by file permission checks",
    ("deny", "NotebookEdit(x)"): "claude 2.1.332: not matched by file permission checks",
    # 2.1.197 skipped these (measured); 2.1.332 takes them without a word. Lint keeps the error:
    # a rule the oldest supported claude drops does not work for everyone who runs it.
    ("allow", "Bash(git:* push)"): "claude 2.1.197 skips it; 2.1.332 takes it",
    ("allow", 'Bash(echo ")")'): "claude 2.1.197 skips it; 2.1.332 takes it",
}
"""Lint errors claude 2.1.197 does not report, and why lint reports them anyway."""

_SKIPPED = re.compile(r"permissions\.(\w+): Invalid permission rule \"(.*)\" was skipped: ")
_NON_STRING = re.compile(r"permissions\.(\w+): Non-string value in \w+ array was removed")
_NO_TOOL = re.compile(r"Permission (\w+) rule \"(.*)\" matches no known tool")
_RAW = re.compile(r"Permission (\w+) rule \"(.*)\" targets \w+ as a raw string and will not match")
_COLUMN = re.compile(r"\x1b\[(\d*)G")
_OTHER_ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[>=][0-9a-z]*")


def screen_lines(raw: bytes) -> list[str]:
    """The lines a terminal would show for `raw`: ink places words with cursor-column moves
    (ESC [ n G) rather than spaces, so those become spaces again."""
    lines = []
    for row in raw.decode("utf-8", "replace").replace("\r", "").split("\n"):
        line = ""
        for index, piece in enumerate(_COLUMN.split(row)):
            if index % 2:
                line = line.ljust(int(piece or 1) - 1)
            else:
                line += _OTHER_ESCAPES.sub("", piece)
        lines.append(line)
    return lines


def _heading(line: str) -> str:
    """A doctor section heading without the mark 2.1.332 puts before it (`⚠ Invalid settings`;
    2.1.197 printed `Invalid settings`)."""
    return line.strip().lstrip("⚠✔✘✖ ").strip()


def doctor_invalid_settings(claude_bin: Path, tree: Path, env: dict[str, str]) -> list[str]:
    """The lines of `claude doctor`'s "Invalid settings" section, read from a wide terminal.

    doctor is interactive: it runs on a pseudo-terminal 1000 columns wide (so no rule wraps)
    and is killed once the section after "Invalid settings" has started."""
    pid, fd = pty.fork()
    if pid == 0:  # pragma: no cover - the child
        os.chdir(tree)
        os.execve(str(claude_bin), [str(claude_bin), "doctor"], env)
    try:
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 100, 1000, 0, 0))
        raw, deadline = b"", time.monotonic() + 60
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], 0.5)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            raw += chunk
            lines = screen_lines(raw)
            heads = [i for i, line in enumerate(lines) if _heading(line) == "Invalid settings"]
            if heads and any(_heading(line) == "Updates" for line in lines[heads[0] :]):
                break
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    lines = screen_lines(raw)
    heads = [i for i, line in enumerate(lines) if _heading(line) == "Invalid settings"]
    assert heads, f"claude doctor listed no invalid settings:\n{chr(10).join(lines)[-3000:]}"
    section = []
    for line in lines[heads[0] + 1 :]:
        if not line.strip():
            break
        section.append(line.strip())
    return section


def run_print_mode(claude_bin: Path, tree: Path, env: dict[str, str]) -> str:
    with StubAnthropic() as stub:
        done = subprocess.run(
            [str(claude_bin), "-p", "say done"],
            cwd=tree,
            env=env | {"ANTHROPIC_BASE_URL": stub.url},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_lint_agrees_with_what_claude_says_about_the_same_settings(
    claude_bin: Path, tmp_path: Path
) -> None:
    tree = tmp_path / "tree"
    settings = tree / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"permissions": RULES}), encoding="utf-8")
    env = scrubbed_environ(dict(os.environ)) | claude_env("http://127.0.0.1:9", tmp_path / "home")

    section = doctor_invalid_settings(claude_bin, tree, env)
    refused = {match.groups() for line in section for match in _SKIPPED.finditer(line)}
    refused |= {(name, "7") for line in section for name in _NON_STRING.findall(line)}
    stderr = run_print_mode(claude_bin, tree, env)
    never_match = {(m[0], m[1]) for p in (_NO_TOOL, _RAW) for m in p.findall(stderr)}
    # The control: claude really reports these, else the comparison proves nothing.
    assert ("allow", "Bash(:*)") in refused and ("deny", "Bash(ls") in refused, section
    assert ("allow", "7") in refused, section
    assert ("deny", "Frobnicate") in never_match, stderr
    assert ("ask", "Bash(command:ls)") in never_match, stderr

    linted = run_toolgate(["rules", "lint", "--json", str(settings)])
    assert linted.returncode == 1, linted.stderr
    records = json.loads(linted.stdout)
    by_rule = {(r["list"], r["rule"]): r for r in records}
    assert len(by_rule) == len(records), "every (list, rule) pair in RULES is unique"
    lint_errors = {key for key, r in by_rule.items() if not r["ok"]}
    claude_says = refused | never_match

    assert claude_says <= lint_errors, f"claude refuses, lint passes: {claude_says - lint_errors}"
    assert lint_errors - claude_says == set(LINT_ONLY), lint_errors - claude_says
    unremarked = set(by_rule) - claude_says - set(LINT_ONLY)
    assert unremarked and all(by_rule[key]["ok"] for key in unremarked), [
        by_rule[key] for key in unremarked if not by_rule[key]["ok"]
    ]
