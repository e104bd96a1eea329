"""What "read-only" means for a rewritten argv, checked the way the lane itself would read it.

The checks parse the OUTPUT with the independent parser models (`tests/reference_parsers.py`),
never with toolgate's tokenizer, and state the rules of issue 2, as tightened by the bindings
measured against the real binaries (issue 3, FACTS.md), as assertions. The constants (the
read-only tool set, the writers, the flags codex gets) are written out here, not imported.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from tests.reference_parsers import Event, Parsed, clap_parse, commander_parse
from toolgate_cli.argv import Action, FlagSpec
from toolgate_cli.lanes import (
    LaneInvocation,
    RewriteRefused,
    Rewritten,
    claude,
    codex,
    copilot,
    read_only_invoke,
)
from toolgate_cli.lanes.base import RewriteOptions, pass_flag_specs

READ_ONLY_TOOLS = "Read,Glob,Grep,WebFetch,WebSearch"
WRITERS = (
    "Bash",
    "BashOutput",
    "KillShell",
    "Edit",
    "Write",
    "NotebookEdit",
    "Task",
    "Agent",
    "EnterWorktree",
    "Monitor",
    "PowerShell",
)
CLAUDE_BYPASS = (
    "--dangerously-skip-permissions",
    "--allow-dangerously-skip-permissions",
    "--permission-prompt-tool",
)
CODEX_BYPASS = (
    "--dangerously-bypass-approvals-and-sandbox",
    "--full-auto",
    "--approve-for-me",
    "--dangerously-bypass-hook-trust",
    "--ask-for-approval",
)
CODEX_READ_ONLY = (
    "--sandbox",
    "read-only",
    "--ignore-user-config",
    "--ignore-rules",
    "--disable",
    "hooks",
    "--disable",
    "shell_snapshot",
    "-c",
    'approval_policy="never"',
)
"""What codex gets right after `exec`: its sandbox, no user config, no execpolicy rules, no
hooks, no shell snapshot (it runs the user's start-up files), escalations rejected (each
measured to run something outside the sandbox otherwise)."""
CLAUDE_GUARDS_SINCE = {
    "--restricted": ((2, 1, 248), None),
    "--permission-prompts": ((2, 1, 259), "none"),
}
"""Guards the claude rewrite adds from the version that first has each (bisected over the npm
releases), with the value each takes."""
CLAUDE_BACKGROUND_VERBS = ("attach", "logs", "stop", "kill", "respawn", "rm")
"""claude 2.1.332 runs these before commander when one is the first operand behind root options
and a session id follows (measured): none may stand there in a rewrite."""
CLAUDE_ANYWHERE = ("--bg", "--background")
CLAUDE_ANYWHERE_PREFIXES = ("cc://", "cc+unix://", "--routine")
# codex 0.171.0 --help, "Commands:" (and the `a` alias of apply, `e` of exec).
CODEX_SUBCOMMANDS = (
    "agents",
    "exec",
    "e",
    "review",
    "login",
    "logout",
    "mcp",
    "plugin",
    "app-server",
    "remote-control",
    "completion",
    "update",
    "doctor",
    "sandbox",
    "debug",
    "apply",
    "a",
    "resume",
    "queue",
    "archive",
    "delete",
    "migrate-rollouts",
    "migrate-nfs-db",
    "unarchive",
    "fork",
    "cloud",
    "exec-server",
    "features",
    "help",
)
CODEX_EXEC_SUBCOMMANDS = ("resume", "fork", "review", "help")
# claude 2.1.197 and 2.1.332 --help, "Commands:", plus aliases, the hidden ones in the 2.1.332
# binary, and commander's implicit `help`.
CLAUDE_SUBCOMMANDS = (
    "agents",
    "auth",
    "auto-mode",
    "doctor",
    "gateway",
    "install",
    "mcp",
    "plugin",
    "plugins",
    "project",
    "setup-token",
    "ultrareview",
    "update",
    "upgrade",
    "attach",
    "import",
    "kill",
    "logs",
    "purge",
    "respawn",
    "rm",
    "stop",
    "bridge",
    "daemon",
    "import-conversations",
    "rc",
    "remote",
    "remote-control",
    "sandbox",
    "self-hosted-agent-proxy",
    "self-hosted-runner",
    "sync",
    "help",
)


def _extra(options: RewriteOptions, lane: str) -> tuple[FlagSpec, ...]:
    return pass_flag_specs(options, (), lane) if options.pass_flags else ()


def claude_parse(args: Sequence[str], options: RewriteOptions | None = None) -> Parsed:
    options = options or RewriteOptions()
    return commander_parse(args, (*claude.FLAGS.specs, *_extra(options, "claude")))


def _only(events: list[Event], name: str) -> Event:
    found = [e for e in events if e.name == name]
    assert len(found) == 1, f"expected exactly one {name}, got {[e.values for e in found]}"
    return found[0]


def assert_claude_read_only(args: Sequence[str], options: RewriteOptions | None = None) -> Parsed:
    """The rewritten claude argv is read-only as claude reads it; returns the parse."""
    options = options or RewriteOptions()
    parsed = claude_parse(args, options)
    events = parsed.events
    assert _only(events, "--permission-mode").values == ["dontAsk"]
    shell = options.read_shell_hook is not None
    # With --read-shell, Bash exists for the model but only the hook's allow lets it run.
    assert _only(events, "--tools").values == [READ_ONLY_TOOLS + (",Bash" if shell else "")]
    assert _only(events, "--allowedTools").values == [READ_ONLY_TOOLS]
    assert _only(events, "--setting-sources").values == [""]
    # A standalone -p keeps claude from registering any subcommand (measured, 2.1.197).
    assert "-p" in args or "--print" in args, "not a headless run"
    for word in args:
        assert word not in CLAUDE_ANYWHERE, word
        assert not word.startswith(CLAUDE_ANYWHERE_PREFIXES), word
    denied = _only(events, "--disallowedTools").values
    denied_names = {name for value in denied for name in value.split(",")}
    for writer in WRITERS:
        if not (shell and writer == "Bash"):
            assert writer in denied_names, f"{writer} is not denied"
    _only(events, "--strict-mcp-config")
    version = (
        tuple(int(part) for part in options.lane_version.split("."))
        if options.lane_version
        else None
    )
    for guard, (since, value) in CLAUDE_GUARDS_SINCE.items():
        found = [event for event in events if event.name == guard]
        if version is not None and version >= since:
            assert len(found) == 1, f"{guard} once on {options.lane_version}: {found}"
            assert found[0].values == ([value] if value else []), found[0]
        else:
            assert found == [], f"{guard} on {options.lane_version}, which lacks it"
    for index, word in enumerate(args):
        following = args[index + 1] if index + 1 < len(args) else ""
        if word in CLAUDE_BACKGROUND_VERBS:
            assert not (len(following) == 8 and all(c in "0123456789abcdef" for c in following))
    if parsed.terminator is None and parsed.operands:
        assert parsed.operands[0] not in CLAUDE_BACKGROUND_VERBS, parsed.operands
    # A prompt (or stdin) starting with a slash command: `/config` writes into the tree.
    _only(events, "--disable-slash-commands")
    # toolgate's own settings, the only ones loaded: claude's start-up `git status` is off
    # (git runs programs the config names), and with --read-shell the hook is installed.
    settings = json.loads(_only(events, "--settings").values[0])
    assert settings["includeGitInstructions"] is False
    assert ("hooks" in settings) == shell
    for event in events:
        assert event.name not in CLAUDE_BYPASS, event
        assert event.name != "--mcp-config", event
        if event.name == "--settings":
            continue
        spec = claude.FLAGS.get(event.name)
        if spec is None:  # a --pass-flag option
            continue
        action, _ = spec.decide(tuple(event.values[:1]), options)
        assert action in (Action.KEEP, Action.REPLACE), (event, action)
    return parsed


@dataclass
class CodexParsed:
    top: Parsed
    subcommand: str | None
    run: Parsed | None
    """The exec (or top-level review) level."""
    nested: str | None
    review: Parsed | None
    """`exec review`'s own level."""

    @property
    def events(self) -> list[Event]:
        levels = (self.top, self.run, self.review)
        return [event for level in levels if level is not None for event in level.events]

    @property
    def operands(self) -> list[str]:
        levels = (self.top, self.run, self.review)
        return [word for level in levels if level is not None for word in level.operands]


def codex_parse(args: Sequence[str], options: RewriteOptions | None = None) -> CodexParsed:
    options = options or RewriteOptions()
    extra = _extra(options, "codex")
    top = clap_parse(args, (*codex.TOP_FLAGS.specs, *extra), CODEX_SUBCOMMANDS)
    if top.stopped_at == len(args):
        return CodexParsed(top, None, None, None, None)
    subcommand = args[top.stopped_at]
    if subcommand == "review":
        run = clap_parse(args, (*codex.REVIEW_FLAGS.specs, *extra), start=top.stopped_at + 1)
        return CodexParsed(top, subcommand, run, None, None)
    if subcommand not in ("exec", "e"):
        return CodexParsed(top, subcommand, None, None, None)
    run = clap_parse(
        args,
        (*codex.EXEC_FLAGS.specs, *extra),
        CODEX_EXEC_SUBCOMMANDS,
        start=top.stopped_at + 1,
    )
    if run.stopped_at == len(args):
        return CodexParsed(top, subcommand, run, None, None)
    nested = args[run.stopped_at]
    review = None
    if nested == "review":
        review = clap_parse(
            args, (*codex.EXEC_REVIEW_FLAGS.specs, *extra), start=run.stopped_at + 1
        )
    return CodexParsed(top, subcommand, run, nested, review)


def config_key(value: str) -> str:
    return value.partition("=")[0].strip()


def assert_codex_read_only(
    args: Sequence[str], options: RewriteOptions | None = None
) -> CodexParsed:
    """The rewritten codex argv is an exec run (or exec review) with the read-only flags, once
    each, on the exec level, and nothing that lifts the sandbox or approves escalations."""
    options = options or RewriteOptions()
    parsed = codex_parse(args, options)
    assert parsed.subcommand in ("exec", "e"), parsed.subcommand
    assert parsed.nested in (None, "review"), parsed.nested
    assert parsed.run is not None
    start = parsed.top.stopped_at + 1
    assert tuple(args[start : start + len(CODEX_READ_ONLY)]) == CODEX_READ_ONLY
    events = parsed.events
    inserted = [
        ("--sandbox", ["read-only"]),
        ("--ignore-user-config", []),
        ("--ignore-rules", []),
        ("--disable", ["hooks"]),
        ("--disable", ["shell_snapshot"]),
        ("--config", ['approval_policy="never"']),
    ]
    assert [(e.name, e.values) for e in parsed.run.events[: len(inserted)]] == inserted
    for name, values in inserted:
        if name not in ("--config", "--disable"):
            assert _only(events, name).values == values
    disabled = [e.values for e in events if e.name == "--disable"]
    assert disabled == [["hooks"], ["shell_snapshot"]], disabled
    guards = [
        e
        for e in events
        if e.name == "--config"
        and config_key(e.values[0]).startswith(("sandbox", "approval_policy", "approvals_"))
    ]
    assert [e.values for e in guards] == [['approval_policy="never"']]
    for event in events:
        assert event.name not in CODEX_BYPASS, event
        if (event.name, event.values) in inserted:
            continue
        spec = codex.EXEC_FLAGS.get(event.name) or codex.TOP_FLAGS.get(event.name)
        spec = spec or codex.EXEC_REVIEW_FLAGS.get(event.name)
        if spec is None:  # a --pass-flag option
            continue
        action, _ = spec.decide(tuple(event.values[:1]), options)
        assert action is Action.KEEP, (event, action)
    return parsed


COPILOT_READ_ONLY = (
    "--available-tools=view,grep,glob",
    "--excluded-tools=bash,read_bash,stop_bash,list_bash,create,edit,lsp,task,read_agent,"
    "list_agents,write_agent,skill,sql,session_store_sql,fetch_copilot_cli_documentation",
    "--deny-tool=shell",
    "--deny-tool=write",
    "--disable-builtin-mcps",
    "--no-auto-update",
)
"""What copilot gets in front: the read tools only, every other built-in excluded by name, shell
and writes denied, no built-in MCP servers, no cached newer package (each measured)."""
COPILOT_GRANTS = (
    "--allow-all-tools",
    "--allow-all",
    "--yolo",
    "--allow-tool",
    "--allow-all-paths",
    "--allow-all-urls",
    "--allow-url",
    "--trust-folder",
    "--mode",
    "--autopilot",
    "--plan",
    "--assisted-approval",
    "--config-dir",
    "--additional-mcp-config",
    "--enable-mcp-server",
    "--plugin-dir",
    "--agent",
    "--no-sandbox",
)
# copilot 1.0.102 --help "Commands:", plus the hidden taskbar-selftest and `workflows`.
COPILOT_SUBCOMMANDS = (
    "app", "login", "help", "init", "config", "update", "version", "workflow", "workflows",
    "sessions", "memories", "plugin", "mcp", "skill", "instruction", "lsp", "sandbox",
    "completion", "taskbar-selftest",
)  # fmt: skip
COPILOT_HOME_UNSET = (
    "COPILOT_ALLOW_ALL",
    "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS",
    "GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP",
    "GITHUB_COPILOT_PROMPT_MODE_EXTENSIONS",
)


def copilot_parse(args: Sequence[str], options: RewriteOptions | None = None) -> Parsed:
    options = options or RewriteOptions()
    return clap_parse(
        args, (*copilot.FLAGS.specs, *_extra(options, "copilot")), COPILOT_SUBCOMMANDS
    )


def assert_copilot_read_only(args: Sequence[str], options: RewriteOptions | None = None) -> Parsed:
    """The rewritten copilot argv is a headless run with the read-only options in front, once
    each, no subcommand, no word after `--`, and nothing that grants, trusts or loads."""
    options = options or RewriteOptions()
    parsed = copilot_parse(args, options)
    assert parsed.stopped_at == len(args), f"a subcommand: {args[parsed.stopped_at]}"
    assert parsed.operands == [] and parsed.terminator is None, parsed.operands
    assert tuple(args[: len(COPILOT_READ_ONLY)]) == COPILOT_READ_ONLY
    events = parsed.events
    assert _only(events, "--available-tools").values == ["view,grep,glob"]
    assert _only(events, "--disable-builtin-mcps").values == []
    assert _only(events, "--no-auto-update").values == []
    denied = [e.values for e in events if e.name == "--deny-tool"]
    assert denied[:2] == [["shell"], ["write"]], denied
    assert any(e.name == "--prompt" for e in events)
    for event in events[len(COPILOT_READ_ONLY) :]:
        assert event.name not in COPILOT_GRANTS, event
        spec = copilot.FLAGS.get(event.name)
        if spec is None:  # a --pass-flag option
            continue
        action, _ = spec.decide(tuple(event.values[:1]), options)
        assert action is Action.KEEP, (event, action)
    return parsed


# --- calling a lane's rewrite from a test ------------------------------------------------------


@dataclass(frozen=True)
class LaneRewrites:
    """`rewrite`, `ok` and `refused` for one lane: `ok` also checks the output is read-only as
    the lane reads it (`assert_read_only`), `refused` that the reason is one line."""

    lane: str
    assert_read_only: Callable[[Sequence[str], RewriteOptions | None], object]

    def rewrite(
        self,
        *args: str,
        env: Mapping[str, str | None] | None = None,
        options: RewriteOptions | None = None,
    ) -> Rewritten | RewriteRefused:
        return read_only_invoke(LaneInvocation(self.lane, args, env or {}), options)

    def ok(
        self,
        *args: str,
        env: Mapping[str, str | None] | None = None,
        options: RewriteOptions | None = None,
    ) -> Rewritten:
        result = self.rewrite(*args, env=env, options=options)
        assert isinstance(result, Rewritten), getattr(result, "reason", result)
        self.assert_read_only(result.invoke.args, options)
        return result

    def refused(
        self,
        *args: str,
        env: Mapping[str, str | None] | None = None,
        options: RewriteOptions | None = None,
    ) -> RewriteRefused:
        result = self.rewrite(*args, env=env, options=options)
        assert isinstance(result, RewriteRefused), result
        assert result.reason and "\n" not in result.reason
        return result


def changes(result: Rewritten | RewriteRefused, action: str) -> list[tuple[str, tuple[str, ...]]]:
    """(flag, words) of every change entry with `action`."""
    return [(c.flag, c.words) for c in result.changes if c.action == action]


def tree_beside_outside(tmp_path: Path) -> Path:
    """`tmp_path/tree` (with src/) and a sibling `tmp_path/outside`; returns the tree."""
    (tmp_path / "tree" / "src").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return tmp_path / "tree"


def in_tree(tree: Path) -> RewriteOptions:
    """Rewrite options for a lane that runs in `tree` and protects it."""
    return RewriteOptions(cwd=os.path.realpath(tree), caller_root=os.path.realpath(tree))
