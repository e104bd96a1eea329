"""One fuzz input (bytes) -> one call into toolgate's pure code, and the properties it must keep.

The bytes are decoded by `Reader` (plain Python, so a recorded input replays without any fuzzer
installed) into one of six calls:

- `read_only_invoke` on a claude, codex or other lane invocation whose words come from the
  lane's own flag tables (with and without `=value`), from words lanes act on, and from junk;
  with environment overrides and `--pass-flag` declarations.
- `tokenize` on the same kind of words, against each table and dialect.
- `check_read_only_command` on arbitrary text (any code point, surrogate escapes included),
  with caller prefixes.
- `decide_pretooluse_bytes` on arbitrary bytes and on Bash events built around such text.
- `other_views` (the tree lock's mount-table reading) on built and arbitrary mountinfo text.
- `read_only_invoke` on a copilot invocation (words from its table, copilot's own words,
  environment overrides), checked the same way as the other rewrites.

Properties (issue 7): no exception escapes (tokenize may raise only ArgvError); a rewrite's
output rewrites to itself; whatever the checker admits is admitted again, identically, both as
written and re-quoted from its words; the hook answers every input with a well-formed decision
that agrees with the checker on a Bash command.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence

from toolgate_cli.argv import ArgvError, Dialect, FlagTable, tokenize
from toolgate_cli.hook import decide_pretooluse_bytes
from toolgate_cli.lanes import LaneInvocation, claude, codex, copilot, read_only_invoke
from toolgate_cli.lanes.base import PassFlag, RewriteOptions, Rewritten
from toolgate_cli.sandbox.mounts import other_views, parse_mountinfo
from toolgate_cli.shell import Place, ShellVerdict, check_read_only_command, prefix_problem
from toolgate_cli.verdict import is_within

TABLES: list[tuple[FlagTable, Dialect]] = [
    (claude.FLAGS, Dialect.COMMANDER),
    (codex.TOP_FLAGS, Dialect.CLAP),
    (codex.EXEC_FLAGS, Dialect.CLAP),
    (codex.REVIEW_FLAGS, Dialect.CLAP),
    (codex.EXEC_REVIEW_FLAGS, Dialect.CLAP),
    (copilot.FLAGS, Dialect.CLAP),
]
CLAUDE_NAMES = sorted(claude.FLAGS.names())
CODEX_NAMES = sorted({name for table, _ in TABLES[1:5] for name in table.names()})
SPECIAL_WORDS = [
    "--",
    "-",
    "-p",
    "--print",
    "exec",
    "e",
    "review",
    "resume",
    "mcp",
    "login",
    "help",
    "--bg",
    "--background",
    "--routine",
    "cc://x",
    "cc+unix://x",
    "-pc",
    "-cp",
    "-s",
    "-c",
    "sandbox_mode=danger-full-access",
    'sandbox_mode="read-only"',
    "approval_policy=never",
    "Write",
    "Read,Write",
    "Bash(rm:*)",
    "dontAsk",
    "plan",
    "bypassPermissions",
    "read-only",
    "danger-full-access",
    "",
    " ",
    "x y",
    "../x",
    "/tmp/x",
]
COMMANDS = ["claude", "codex", "/opt/bin/claude", "codex.exe", "CLAUDE.cmd", "opencode", "agy", "x"]
ENV_NAMES = ["HOME", "PATH", "LANG", "LC_ALL", "NO_COLOR", "CODEX_HOME", "ANTHROPIC_API_KEY", "X"]
SHELL_PIECES = [
    "ls",
    "git",
    "log",
    "status",
    "find",
    "rg",
    "cat",
    "sed",
    "-n",
    "1p",
    "-delete",
    "-exec",
    "--pre",
    "-c",
    "core.pager=x",
    "branch",
    "-D",
    "env",
    "sh",
    "|",
    ";",
    "&&",
    ">",
    "<",
    "$(",
    "`",
    "'",
    '"',
    "\\",
    "*",
    "?",
    "[",
    "~",
    "#",
    "!",
    "{",
    "}",
    "(",
    ")",
    "=",
    "\n",
    "\t",
    " ",
    "é",
    "\u202e",
    "\udcff",
    "\x00",
    " | ",
    " && ",
    " || ",
    "; ",
    " 2>/dev/null",
    " 2>&1",
    " >/dev/null",
    "cd ",
    "src",
    "trap",
    "nested",
    "head",
    "wc -l",
    "uniq",
]
PREFIXES = ["jq", "git log", "npm test", "sh -c", "a b", "", "ls -la", "python3"]


class Reader:
    """Deterministic choices from a byte string; exhausted input reads as zeros."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            return 0
        value = self.data[self.at]
        self.at += 1
        return value

    def below(self, limit: int) -> int:
        return (self.byte() * 256 + self.byte()) % limit if limit > 1 else 0

    def pick(self, choices: Sequence[str]) -> str:
        return choices[self.below(len(choices))]

    def raw(self, most: int) -> bytes:
        size = self.below(most + 1)
        chunk = self.data[self.at : self.at + size]
        self.at += size
        return chunk

    def text(self, most: int = 24) -> str:
        return self.raw(most).decode("utf-8", "surrogateescape")


def _word(reader: Reader, names: Sequence[str]) -> str:
    kind = reader.below(6)
    if kind in (0, 1):
        return reader.pick(names)
    if kind == 2:
        return reader.pick(names) + "=" + reader.pick([*SPECIAL_WORDS, reader.text(8)])
    if kind == 3:
        return reader.pick(SPECIAL_WORDS)
    if kind == 4:  # a short option glued to a value or to more short options
        shorts = [name for name in names if len(name) == 2] or ["-x"]
        return reader.pick(shorts) + reader.pick([reader.pick(shorts)[1:], reader.text(6)])
    return reader.text()


def words(reader: Reader, names: Sequence[str]) -> list[str]:
    return [_word(reader, names) for _ in range(reader.below(16))]


# --- the properties --------------------------------------------------------------------------


def check_rewrite(reader: Reader) -> None:
    command = reader.pick(COMMANDS)
    names = CODEX_NAMES if "codex" in command.lower() else CLAUDE_NAMES
    args = words(reader, names)
    env: dict[str, str | None] = {}
    for _ in range(reader.below(3)):
        env[reader.pick(ENV_NAMES)] = None if reader.below(3) == 0 else reader.text(8)
    pass_flags = tuple(
        PassFlag(
            reader.pick(["--zz", "-z", "--model", "--zz-y", reader.text(6)]),
            bool(reader.byte() & 1),
        )
        for _ in range(reader.below(2))
    )
    options = RewriteOptions(pass_flags=pass_flags)
    result = read_only_invoke(LaneInvocation(command, args, env), options)
    if not isinstance(result, Rewritten):
        assert result.reason and "\n" not in result.reason, result.reason
        return
    again = read_only_invoke(result.invoke, options)
    assert isinstance(again, Rewritten), (args, result.invoke.args, again)
    assert again.invoke.args == result.invoke.args, (args, result.invoke.args, again.invoke.args)
    assert again.invoke.env == result.invoke.env


def check_tokenize(reader: Reader) -> None:
    table, dialect = TABLES[reader.below(len(TABLES))]
    args = words(reader, sorted(table.names()))
    try:
        items, stop = tokenize(args, table, dialect)
    except ArgvError:
        return
    assert stop == len(args)
    # every word belongs to exactly one span, in order; short flags glued into one word share
    # it, and the last of them may take the next word as its value (the group's end is theirs)
    ends: dict[int, int] = {}
    for item in items:
        ends[item.start] = max(ends.get(item.start, item.end), item.end)
    covered = sorted(ends.items())
    position = 0
    for start, end in covered:
        assert start == position and end > start, (args, covered)
        position = end
    assert position == len(args), (args, covered)


FAKE_DIRECTORIES: dict[str, list[str]] = {
    "/": ["r"],
    "/r": [".git", "src", "trap", "nested", "README.md"],
    "/r/.git": ["HEAD"],
    "/r/src": ["a.py"],
    "/r/trap": ["-delete"],
    "/r/nested": [".git"],
    "/r/nested/.git": ["HEAD"],
}


class FakeFileSystem:
    """A small tree for the place checks: /r is the caller root (a repository), /r/src a plain
    directory, /r/trap holds an option-like name, /r/nested is a nested repository."""

    def realpath(self, path: str) -> str:
        parts: list[str] = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                parts = parts[:-1]
            else:
                parts.append(part)
        return "/" + "/".join(parts)

    def is_dir(self, path: str) -> bool:
        return path in FAKE_DIRECTORIES

    def lexists(self, path: str) -> bool:
        parent, _, name = path.rpartition("/")
        return name in FAKE_DIRECTORIES.get(parent or "/", [])

    def names(self, path: str) -> list[str] | None:
        return FAKE_DIRECTORIES.get(path)


FAKE_FS = FakeFileSystem()


def _requoted(verdict: ShellVerdict) -> str:
    """The admitted commands written again from their words (operators and redirections kept)."""
    text = ""
    for part in verdict.parts:
        text += " ".join([shlex.join(part.words or []), *part.redirects])
        if part.operator is not None:
            text += "\n" if part.operator == "\n" else f" {part.operator} "
    return text


def check_shell(reader: Reader) -> None:
    if reader.below(2):
        command = reader.text(64)
    else:
        command = "".join(reader.pick(SHELL_PIECES) for _ in range(reader.below(12)))
    prefixes = [reader.pick([*PREFIXES, reader.text(8)]) for _ in range(reader.below(3))]
    usable = [prefix for prefix in prefixes if prefix_problem(prefix) is None]
    place = None
    if reader.below(2):
        start = reader.pick(["/r", "/r/src", "/r/trap", "/r/nested", "/", "rel"])
        place = Place(FAKE_FS, start, reader.pick(["/r", "/r", "/r/src"]))
    verdict = check_read_only_command(command, usable, place=place)
    again = check_read_only_command(command, usable, place=place)
    assert (again.ok, again.code, again.message, again.words) == (
        verdict.ok,
        verdict.code,
        verdict.message,
        verdict.words,
    )
    if not verdict.ok:
        assert verdict.message and "\n" not in verdict.message, verdict.message
        return
    assert verdict.parts and all(part.ok and part.words for part in verdict.parts)
    assert (verdict.words is not None) == (len(verdict.parts) == 1)
    # Nothing the checker admits depends on a place it was not given.
    if place is not None:
        for part in verdict.parts:
            assert part.words is not None
            if part.words[0] == "cd" or part.words[0] == "git":
                continue
            alone = check_read_only_command(part.text, usable)
            assert alone.ok or alone.code == "glob", (command, part.text, alone)
    requoted = check_read_only_command(_requoted(verdict), usable, place=place)
    assert requoted.ok, (command, _requoted(verdict), requoted)
    assert [part.words for part in requoted.parts] == [part.words for part in verdict.parts]


def check_hook(reader: Reader) -> None:
    if reader.below(2):
        raw = reader.raw(128)
        command: str | None = None
    else:
        command = reader.text(64)
        tool_input: dict[str, object] = {"command": command}
        if reader.below(4) == 0:
            tool_input["run_in_background"] = bool(reader.byte() & 1)
        event = {
            "hook_event_name": reader.pick(["PreToolUse", "PreToolUse", "PostToolUse"]),
            "tool_name": reader.pick(["Bash", "Bash", "Read", "Write", "mcp__x__y", ""]),
            "tool_input": tool_input,
        }
        raw = json.dumps(event, ensure_ascii=bool(reader.byte() & 1)).encode(
            "utf-8", "surrogatepass"
        )
    prefixes = [prefix for prefix in PREFIXES[:3] if reader.byte() & 1]
    response = decide_pretooluse_bytes(raw, prefixes)
    output = response["hookSpecificOutput"]
    assert isinstance(output, dict)
    assert output["hookEventName"] == "PreToolUse"
    assert output["permissionDecision"] in ("allow", "deny")
    reason = output["permissionDecisionReason"]
    assert isinstance(reason, str) and reason and "\n" not in reason
    json.dumps(response, ensure_ascii=True)  # what the hook writes must serialise
    if command is not None and b'"Bash"' in raw and b'"PreToolUse"' in raw:
        event_back = json.loads(raw)
        if event_back["tool_name"] == "Bash" and event_back["hook_event_name"] == "PreToolUse":
            background = event_back["tool_input"].get("run_in_background", False)
            expected = check_read_only_command(command, prefixes).ok and not background
            assert (output["permissionDecision"] == "allow") == expected, (command, output)


MOUNT_PATHS = ["/", "/w", "/w/tree", "/w/tree/sub", "/w/tree-other", "/srv", "/srv/a b", "/w/"]


def check_mount_views(reader: Reader) -> None:
    """The tree lock's mount-table reading: any text, never an exception, never a view inside
    the tree, and every view lies under some mount point the table names."""
    lines = []
    for _ in range(reader.below(8)):
        if reader.below(3):
            device = reader.pick(["254:0", "8:1", "0:40", reader.text(4)])
            fs_path, point = reader.pick(MOUNT_PATHS), reader.pick(MOUNT_PATHS)
            lines.append(f"{reader.below(99)} 1 {device} {fs_path} {point} rw - ext4 x rw")
        else:
            lines.append(reader.text(48))
    text = "\n".join(lines)
    root = reader.pick(MOUNT_PATHS[:-1])
    views = other_views(root, text)
    points = [mount.mount_point for mount in parse_mountinfo(text)]
    for view in views:
        assert not is_within(view, root), (root, view, text)
        assert any(is_within(view, point) for point in points), (view, text)


COPILOT_NAMES = sorted(copilot.FLAGS.names())
COPILOT_WORDS = ["-p", "--prompt", "mcp", "config", "--", "extension_bootstrap.mjs", "--yolo"]
COPILOT_ENV = ["COPILOT_HOME", "COPILOT_ALLOW_ALL", "COPILOT_MODEL", "GH_TOKEN", "X"]


def check_copilot_rewrite(reader: Reader) -> None:
    """The rewrite property for copilot (its clap grammar with zero-or-more options, its
    private home): a separate target, so the recorded inputs of `check_rewrite` keep meaning
    what they meant."""
    args = [
        reader.pick(COPILOT_WORDS) if reader.below(4) == 0 else _word(reader, COPILOT_NAMES)
        for _ in range(reader.below(16))
    ]
    env: dict[str, str | None] = {}
    for _ in range(reader.below(3)):
        env[reader.pick(COPILOT_ENV)] = None if reader.below(3) == 0 else reader.text(8)
    options = RewriteOptions(lane_home="/nonexistent/private-copilot-home")
    result = read_only_invoke(LaneInvocation("copilot", args, env), options)
    if not isinstance(result, Rewritten):
        assert result.reason and "\n" not in result.reason, result.reason
        return
    assert result.invoke.env["COPILOT_HOME"] == options.lane_home
    again = read_only_invoke(result.invoke, options)
    assert isinstance(again, Rewritten), (args, result.invoke.args, again)
    assert again.invoke == result.invoke, (args, result.invoke.args, again.invoke.args)


TARGETS = [check_rewrite, check_tokenize, check_shell, check_hook]
"""Picked by the first byte modulo 4 (recorded regressions rely on it); 0xF0 to 0xF7 pick
`check_copilot_rewrite`, 0xF8 and above `check_mount_views`."""


def one_input(data: bytes) -> None:
    """Run one fuzz input: the first byte picks the target, the rest drives it."""
    reader = Reader(data)
    first = reader.byte()
    if first >= 0xF8:
        check_mount_views(reader)
        return
    if first >= 0xF0:
        check_copilot_rewrite(reader)
        return
    TARGETS[first % len(TARGETS)](reader)
