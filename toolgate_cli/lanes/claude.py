"""claude (Claude Code): read-only through its own permission flags.

The rewrite puts, in front of the template's arguments, exactly one of each of:
`--tools` and `--allowedTools` narrowed to the read-only tools, `--disallowedTools` naming the
writers, `--strict-mcp-config` (no MCP server from any config file), `--disable-slash-commands`
(measured: a prompt or stdin starting with `/config outputStyle=...` writes the tree's
`.claude/settings.local.json` before any model turn), `--setting-sources ""` (no settings file:
measured, under `-p` the reviewed tree's own `.claude/settings.json` hooks and `apiKeyHelper`
run, even with `--safe-mode`), toolgate's own `--settings` (`includeGitInstructions` off, see
`toolgate_settings`), the version-gated guards (`VERSION_GATED_FLAGS`: `--restricted` from
2.1.248, with `--add-dir CALLER_ROOT` when the lane runs in a subdirectory, and
`--permission-prompts none` from 2.1.259) and `--permission-mode dontAsk` (anything not allowed
is denied, never asked; never `plan`, which a headless `claude -p` can never leave).

Only headless runs (`-p`/`--print` as a word of its own) are lane runs: measured with 2.1.197
and 2.1.332, claude registers no subcommand when an argv element is exactly `-p` or `--print`,
so a prompt such as `mcp` or `update` is sent to the model instead of running that subcommand.
But claude reads parts of its raw argv before commander parses it, `-p` or not: switches and
deep links anywhere (`ANYWHERE_WORDS`, `ANYWHERE_PREFIXES`), and in 2.1.332 the
background-session verbs (`BACKGROUND_VERBS`) and `import` (`IMPORT_ARGUMENTS`).

Every permission flag the template carried is removed first: commander.js keeps
the last `--permission-mode` but concatenates repeated variadic options, so a surviving
`--allowedTools Write` would still grant Write.

Versions: `VERSIONS` says which claude versions this table supports (2.1.197 on) and which are
proven end to end (tests/e2e: 2.1.332); options the rewrite adds only to versions that have them
are the rows of `VERSION_GATED_FLAGS`, with the first version of each in `VERSIONS.since`
(bisected over the npm releases). The table decides every option of 2.1.197's and 2.1.332's
`--help` and every option 2.1.332's binary defines, hidden ones included
(tests/e2e/test_claude_binary_options.py reads them out of the pinned binary).
"""

from __future__ import annotations

from toolgate_cli.argv import (
    Action,
    ArgvError,
    Arity,
    Dialect,
    FlagSpec,
    FlagTable,
    Item,
    ItemKind,
    looks_like_option,
    tokenize,
)
from toolgate_cli.lanes.base import (
    Change,
    ConfineNeeds,
    LaneInvocation,
    RewriteOptions,
    RewriteRefused,
    RewriteResult,
    Rewritten,
    StateDir,
    Walk,
    argv_refusal,
    env_changes,
    first_operand,
    joined_refusals,
    output_file_outside_tree,
    pass_flag_specs,
    walk_items,
)
from toolgate_cli.lanes.versions import LaneVersions, normal_version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolgate_cli.lanes.drift import HelpSurface

LANE = KIND = "claude"
MECHANISM = (
    "headless (-p) runs only; --permission-mode dontAsk, --tools/--allowedTools = "
    "Read,Glob,Grep,WebFetch,WebSearch, writers in --disallowedTools, --strict-mcp-config, "
    '--disable-slash-commands, --setting-sources "", --settings with includeGitInstructions off; '
    "--restricted (2.1.248 on) and --permission-prompts none (2.1.259 on); under --confine "
    "also without WebFetch and WebSearch"
)
RUN_HINT = "claude -p PROMPT, with -p as a word of its own"

VERSION_GATED_FLAGS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "--restricted",
        ("--restricted",),
        "a second guard: no settings file, no plugin language server, no code-running tool "
        "--tools does not name, file tools confined to the working directories",
    ),
    (
        "--permission-prompts",
        ("--permission-prompts", "none"),
        "a second guard: anything that would ask for permission is denied, by nobody's answer",
    ),
)
"""Flags the rewrite adds only to versions that have them (first version: `VERSIONS.since`),
as (canonical name, words, reason); they go right before `--permission-mode dontAsk`.
Measured with 2.1.332 (tests/e2e): with both, Read, Glob, Grep and `--read-shell` Bash behave
as without them, and every write scenario still holds."""

WEB_TOOLS: tuple[str, ...] = ("WebFetch", "WebSearch")
"""The read tools that reach the network: removed under --confine, where the only egress left is
claude's own connection to its model provider."""

VERSIONS = LaneVersions(
    oldest_supported="2.1.197",
    proven=("2.1.332",),
    # First versions found by bisecting the npm releases (the option in the binary's commander
    # definitions): 2.1.247 lacks --restricted, 2.1.258 lacks --permission-prompts.
    since={"--restricted": "2.1.248", "--permission-prompts": "2.1.259"},
)
VERSIONS_PROVEN = VERSIONS.proven


def version_of(output: str) -> str | None:
    """The version `claude --version` prints (`2.1.332 (Claude Code)`), or None."""
    words = output.split()
    return normal_version(words[0]) if words else None


READ_ONLY_TOOLS: tuple[str, ...] = ("Read", "Glob", "Grep", "WebFetch", "WebSearch")
"""Claude Code's built-in tools that read the tree or the network and change nothing.
Task/Agent are left out on purpose: a subagent is another tool loop."""

READ_ONLY_DENIED: tuple[str, ...] = (
    "Bash",
    "BashOutput",
    "KillShell",
    "Edit",
    "Write",
    "NotebookEdit",
    "Task",
    "Agent",
    "EnterWorktree",
    "ExitWorktree",
    "CronCreate",
    "CronDelete",
    "ScheduleWakeup",
    "Workflow",
    "SendMessage",
    "TaskStop",
    "Skill",
    "Monitor",
    "PowerShell",
    "LSP",
    "RemoteTrigger",
    "Artifact",
)
"""Writers named in `--disallowedTools` on top of being absent from the allow list, so a future
built-in that slips into the default tool set is still refused. Measured with 2.1.197: a
durable CronCreate writes `.claude/scheduled_tasks.json` and EnterWorktree creates a worktree
with no permission asked, and tree skills run their shell snippets; with 2.1.332 Monitor runs
a shell command (a deferred tool ToolSearch loads), PowerShell runs code, LSP starts language
servers, RemoteTrigger and Artifact reach other machines. Only `--tools` keeps them out, this
list is the second lock. It names only tools both 2.1.197 and 2.1.332 know: claude prints a
warning on every run for a deny name it does not know (measured: MultiEdit on both, REPL and
ToolSearch on one of them)."""

SUBCOMMANDS: frozenset[str] = frozenset(
    {
        # 2.1.197 and 2.1.332 --help "Commands:", with aliases:
        "agents",
        "auth",
        "auto-mode",
        "doctor",
        "gateway",
        "install",
        "mcp",
        "plugin",
        "plugins",
        "setup-token",
        "ultrareview",
        "update",
        "upgrade",
        # new in 2.1.332's --help:
        "attach",
        "import",
        "kill",
        "logs",
        "purge",
        "respawn",
        "rm",
        "stop",
        # hidden (2.1.332 binary: commander commands and the words its entry point dispatches
        # before commander):
        "bridge",
        "daemon",
        "import-conversations",
        "project",
        "rc",
        "remote",
        "remote-control",
        "sandbox",
        "self-hosted-agent-proxy",
        "self-hosted-runner",
        "sync",
        # commander's implicit one:
        "help",
    }
)
"""claude's subcommands. None is a lane run; a standalone `-p` keeps commander from registering
any of them (measured with 2.1.197 and 2.1.332), but 2.1.332 runs its background-session verbs
before commander: see `BACKGROUND_VERBS`."""

PRINT_WORDS = ("-p", "--print")

BACKGROUND_VERBS: dict[str, str] = {
    "attach": "opens another background session in this terminal",
    "logs": "prints another background session's terminal output",
    "stop": "stops another background session",
    "kill": "stops another background session",
    "respawn": "restarts background sessions, each with its own permissions",
    "rm": "removes a background session and deletes its worktree",
}
"""claude 2.1.332's background-session verbs, which it runs before commander parses anything
when the verb is the first operand behind root options and a session id follows (eight hex
digits, or `respawn --all`); a `-p` later in the argv does not stop it. Measured through
toolgate's own rewrite: `stop ID -p` stopped another session ("stopped ID"), `respawn ID -p`
restarted one, `logs ID -p` printed its output. Refused as the first operand, and anywhere a
session id follows (claude finds its first operand with its own reading of which options take
values)."""

_HEX_DIGITS = frozenset("0123456789abcdef")


def _session_id(word: str) -> bool:
    """Whether `word` reads to claude as a background session id: eight lower-case hex digits
    (a function, not a regex: the dispatch path imports no `re`)."""
    return len(word) == 8 and _HEX_DIGITS.issuperset(word)


IMPORT_WORD = "import"
IMPORT_ARGUMENTS = frozenset({"codex", "gemini", "cursor", "--dry-run", "--yes"})
"""claude 2.1.332 rewrites an argv whose word `import` (anywhere, behind options) is followed only
by these (or `--yes=...`) into the slash command `/import ...` before commander parses it:
it imports another agent's MCP servers, commands, agents and skills into claude's config. Off in
2.1.332's build ("not yet available"); refused so the next build cannot turn it on under the
rewrite."""

ANYWHERE_WORDS: dict[str, str] = {
    # 2.1.197 acts on these even after `--` (measured); 2.1.332 scans for them up to `--`,
    # skipping option values, and hands the prompt to a detached background service
    # (measured, tests/e2e/test_claude_background.py).
    "--bg": "starts a detached background agent that drops every other flag",
    "--background": "starts a detached background agent that drops every other flag",
    # Read from the whole argv before commander (2.1.197 source; 2.1.332 still looks the
    # word up anywhere with `process.argv.indexOf`):
    "--handle-uri": "handles a deep link: opens a new terminal running claude without these flags",
    # 2.1.197 only (2.1.332 has no such word): refusing it costs nothing.
    "--agent-teams": "turns on agent teams, whose teammates are unverified under read-only",
}
"""Words claude acts on wherever they stand (read before commander parses anything)."""

ANYWHERE_PREFIXES: dict[str, str] = {
    "--routine": "starts a background routine",
    # `--tmux` (or `--tmux=classic`) with `-w`/`--worktree` anywhere creates a git worktree and
    # execs into tmux before commander runs; refusing the tmux word breaks the pair.
    "--tmux": "with -w or --worktree anywhere, creates a git worktree before any flag applies",
    "cc://": "a deep link: claude connects to another session",
    "cc+unix://": "a deep link: claude connects to another session",
}
_ANYWHERE_PREFIX_TUPLE = tuple(ANYWHERE_PREFIXES)


def _debug_file(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
    if values and output_file_outside_tree(values[0], options):
        return Action.KEEP, "writes its log outside the caller's tree"
    return Action.REFUSE, "writes a log file inside the tree; point it outside or drop it"


def _input_format(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
    if values == ("text",):
        return Action.KEEP, "plain prompt on stdin"
    return Action.REFUSE, "stream-json input carries control requests that change permissions"


F, V, OPT, M = Arity.FLAG, Arity.VALUE, Arity.OPTIONAL, Arity.VARIADIC
KEEP, REPLACE, STRIP, REFUSE = Action.KEEP, Action.REPLACE, Action.STRIP, Action.REFUSE

FLAGS = FlagTable(
    (
        # --- permission flags: toolgate sets these itself --------------------------------------
        FlagSpec(("--permission-mode",), V, REPLACE, "toolgate sets dontAsk"),
        FlagSpec(
            ("--allowedTools", "--allowed-tools"), M, REPLACE, "toolgate sets the read-only set"
        ),
        FlagSpec(("--tools",), M, REPLACE, "toolgate sets the read-only set"),
        FlagSpec(
            ("--disallowedTools", "--disallowed-tools"),
            M,
            REPLACE,
            "folded into toolgate's deny list",
        ),
        FlagSpec(("--strict-mcp-config",), F, REPLACE, "toolgate sets it"),
        FlagSpec(("--setting-sources",), V, REPLACE, "toolgate loads no settings file"),
        FlagSpec(("--dangerously-skip-permissions",), F, STRIP, "bypasses every permission check"),
        FlagSpec(
            ("--allow-dangerously-skip-permissions",), F, STRIP, "makes bypass mode available"
        ),
        FlagSpec(("--permission-prompt-tool",), V, STRIP, "an MCP tool could approve writes"),
        FlagSpec(
            ("--inherit-permission-mode",), V, STRIP, "a permission mode; toolgate sets dontAsk"
        ),
        FlagSpec(("--restricted",), F, REPLACE, "toolgate sets it on versions that have it"),
        FlagSpec(
            ("--permission-prompts",), V, REPLACE, "toolgate sets none on versions that have it"
        ),
        # --- configuration that could re-grant tools or run code --------------------------------
        FlagSpec(("--mcp-config",), M, STRIP, "MCP servers run code and can write"),
        FlagSpec(("--settings",), V, STRIP, "settings can re-grant tools and add hooks"),
        FlagSpec(("--agent",), V, REFUSE, "an agent can carry its own tools and permission mode"),
        FlagSpec(("--agents",), V, REFUSE, "agents can carry their own tools and permission mode"),
        FlagSpec(("--plugin-dir",), V, REFUSE, "plugins bring hooks and MCP servers"),
        FlagSpec(
            ("--plugin-url",),
            V,
            REFUSE,
            "fetches a plugin .zip from a URL and loads its hooks, MCP servers and skills",
        ),
        FlagSpec(("--ide",), F, REFUSE, "IDE tools can edit and run code"),
        FlagSpec(("--chrome",), F, REFUSE, "browser-control tools, unverified"),
        FlagSpec(("--remote-control",), OPT, REFUSE, "a remote party could change permissions"),
        FlagSpec(("--bg", "--background"), F, REFUSE, "detaches from toolgate, unverified"),
        FlagSpec(("--input-format",), V, REFUSE, "", judge=_input_format),
        FlagSpec(("--managed-settings",), V, REFUSE, "policy-tier settings from the command line"),
        FlagSpec(("--plugin-dir-no-mcp",), V, REFUSE, "plugins bring hooks"),
        FlagSpec(("--enable-auto-mode",), F, REFUSE, "a classifier decides permissions"),
        FlagSpec(("--channels",), M, REFUSE, "message channels run MCP servers"),
        FlagSpec(
            ("--dangerously-load-development-channels",), M, REFUSE, "loads unreviewed servers"
        ),
        FlagSpec(("--sdk-url",), V, REFUSE, "a remote SDK host drives the session"),
        FlagSpec(
            ("--teleport",), OPT, REFUSE, "pulls a remote session and its code onto this machine"
        ),
        FlagSpec(
            ("--cloud",), OPT, REFUSE, "moves the session to a cloud machine toolgate cannot see"
        ),
        FlagSpec(("--remote",), OPT, REFUSE, "moves the session to a remote machine"),
        FlagSpec(
            ("--environment", "--pool"),
            V,
            REFUSE,
            "runs the session on a self-hosted cloud environment, off this machine",
        ),
        FlagSpec(("--desktop",), F, REFUSE, "hands the session to the Claude Desktop app"),
        # Options that only mean something for a cloud session (--cloud or --environment):
        FlagSpec(("--forward-home-settings",), V, REFUSE, "only for a cloud session"),
        FlagSpec(("--ref",), V, REFUSE, "only for a cloud session"),
        FlagSpec(("--on-branch",), V, REFUSE, "only for a cloud session: pushes to a branch"),
        FlagSpec(("--correlation-id",), V, REFUSE, "only for a cloud session"),
        FlagSpec(("--metadata",), V, REFUSE, "only for a cloud session"),
        FlagSpec(("--attach-serve",), V, REFUSE, "serves a bound cloud session"),
        FlagSpec(
            ("--client-data-url",),
            V,
            REFUSE,
            "loads a remote configuration document for the session, unverified",
        ),
        FlagSpec(("--rc",), OPT, REFUSE, "a remote party could change permissions"),
        FlagSpec(("--init",), F, REFUSE, "runs Setup hooks"),
        FlagSpec(("--init-only",), F, REFUSE, "runs Setup hooks"),
        FlagSpec(("--maintenance",), F, REFUSE, "runs Setup hooks"),
        FlagSpec(("--handle-uri",), V, REFUSE, "a deep link, unverified"),
        FlagSpec(("--prefill",), V, REFUSE, "deep-link input, unverified"),
        FlagSpec(("--prefill-b64",), V, REFUSE, "deep-link input, unverified"),
        FlagSpec(("--deep-link-origin",), F, REFUSE, "deep-link input, unverified"),
        FlagSpec(("--deep-link-repo",), V, REFUSE, "deep-link input, unverified"),
        FlagSpec(("--deep-link-last-fetch",), V, REFUSE, "deep-link input, unverified"),
        FlagSpec(("--deep-link-cwd-b64",), V, REFUSE, "moves the working directory"),
        FlagSpec(("--session-mirror",), F, REFUSE, "unverified"),
        FlagSpec(("--agent-id",), V, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--agent-name",), V, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--team-name",), V, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--agent-color",), V, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--plan-mode-required",), F, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--parent-session-id",), V, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--teammate-mode",), V, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--agent-type",), V, REFUSE, "teammate mode, unverified"),
        FlagSpec(("--advisor",), V, REFUSE, "a second model, unverified"),
        FlagSpec(("--lead-verify-key",), V, REFUSE, "teammate mode, unverified"),
        # --- SDK host and spare-process modes (2.1.332, hidden): another process drives it ----
        FlagSpec(
            ("--await-claim",),
            F,
            REFUSE,
            "waits for a control request on stdin that binds the process to a host's session",
        ),
        FlagSpec(
            ("--await-initialize",),
            F,
            REFUSE,
            "reads plugins and MCP servers from an initialize request on stdin",
        ),
        FlagSpec(
            ("--initialize-fields",),
            V,
            REFUSE,
            "reads settings and the deny list from an initialize request instead of the flags",
        ),
        FlagSpec(
            ("--managed-settings-in-initialize",),
            F,
            REFUSE,
            "policy-tier settings from an initialize request",
        ),
        FlagSpec(
            ("--hold-repository-while-parked",),
            F,
            REFUSE,
            "a spare that keeps a checkout's MCP servers, hooks and helpers for a later claim",
        ),
        FlagSpec(
            ("--project-config-root",),
            V,
            REFUSE,
            "reads project settings, .mcp.json, skills and agents from another directory",
        ),
        FlagSpec(("--runner-declares",), V, REFUSE, "self-hosted runner mode, unverified"),
        FlagSpec(
            ("--messaging-socket-path",),
            V,
            REFUSE,
            "opens a socket other sessions message this one through (created at that path)",
        ),
        FlagSpec(
            ("--agents-view-if-allowed",),
            F,
            REFUSE,
            "opens the background-agents view, which dispatches sessions",
        ),
        FlagSpec(
            ("--watch-artifact", "--watch-artifact-no-autoreact"),
            V,
            REFUSE,
            "a remote artifact's new versions and comments drive the session",
        ),
        FlagSpec(
            ("--proactivity",), V, REFUSE, "proactive mode: the model acts unasked, unverified"
        ),
        # Read from the whole argv before commander parses it (2.1.332 entry point):
        FlagSpec(
            ("--session-tunnel",), F, REFUSE, "relay-token mode, read anywhere in the arguments"
        ),
        FlagSpec(
            ("--ignore-persisted-trust",),
            F,
            REFUSE,
            "changes workspace trust, read anywhere in the arguments",
        ),
        # --- writes the harness itself makes --------------------------------------------------
        FlagSpec(
            ("--worktree", "-w"), OPT, REFUSE, "creates a git worktree and branch in the tree"
        ),
        FlagSpec(("--tmux",), OPT, REFUSE, "only with --worktree"),
        FlagSpec(("--debug-file",), V, REFUSE, "", judge=_debug_file),
        FlagSpec(("--file",), M, REFUSE, "downloads files into the tree"),
        FlagSpec(("--from-pr",), OPT, REFUSE, "resumes a PR session, unverified"),
        FlagSpec(("--rewind-files",), V, REFUSE, "restores files in the tree"),
        # --- harmless to read-only ------------------------------------------------------------
        FlagSpec(("--print", "-p"), F, KEEP, "headless output"),
        FlagSpec(("--add-dir",), M, KEEP, "widens reads only"),
        FlagSpec(("--append-system-prompt",), V, KEEP, "prompt text"),
        FlagSpec(("--append-system-prompt-file",), V, KEEP, "reads a prompt file"),
        FlagSpec(("--system-prompt",), V, KEEP, "prompt text"),
        FlagSpec(("--system-prompt-file",), V, KEEP, "reads a prompt file"),
        FlagSpec(("--ax-screen-reader",), F, KEEP, "output style"),
        FlagSpec(("--bare",), F, KEEP, "loads less configuration"),
        FlagSpec(("--safe-mode",), F, KEEP, "loads less configuration"),
        FlagSpec(("--betas",), M, KEEP, "API headers"),
        FlagSpec(("--brief",), F, KEEP, "message tool only; --tools still applies"),
        FlagSpec(("--no-chrome",), F, KEEP, "turns an integration off"),
        FlagSpec(("--continue", "-c"), F, KEEP, "conversation only; this run's permissions apply"),
        FlagSpec(("--resume", "-r"), OPT, KEEP, "conversation only; this run's permissions apply"),
        FlagSpec(("--fork-session",), F, KEEP, "new session id"),
        FlagSpec(("--session-id",), V, KEEP, "session id"),
        FlagSpec(("--no-session-persistence",), F, KEEP, "writes less"),
        FlagSpec(("--debug", "-d"), OPT, KEEP, "logs under ~/.claude"),
        FlagSpec(("--verbose",), F, KEEP, "output detail"),
        FlagSpec(("--disable-slash-commands",), F, REPLACE, "toolgate sets it"),
        FlagSpec(("--effort",), V, KEEP, "model setting (how hard the model thinks)"),
        FlagSpec(("--fast-mode",), V, KEEP, "model setting"),
        FlagSpec(("--include-unsupported-models",), F, KEEP, "model choice"),
        FlagSpec(("--allow-other-models",), F, KEEP, "model choice"),
        FlagSpec(
            ("--autocompact",),
            V,
            KEEP,
            "when the conversation is compacted: the context window, no tool or permission",
        ),
        FlagSpec(
            ("--system-prompt-snapshot",),
            V,
            KEEP,
            "whether the system prompt is recorded and reused: prompt text, no tool",
        ),
        FlagSpec(
            ("--forward-subagent-text",),
            F,
            KEEP,
            "output detail (stream-json); subagents are denied anyway",
        ),
        FlagSpec(("--append-subagent-system-prompt",), V, KEEP, "prompt text for subagents"),
        FlagSpec(
            ("--append-subagent-system-prompt-file",), V, KEEP, "reads a prompt file for subagents"
        ),
        FlagSpec(("--enable-auth-status",), F, KEEP, "output detail"),
        FlagSpec(("--host-auth-is-org-sign-in",), F, KEEP, "how the API token was obtained"),
        FlagSpec(
            ("--reply-on-resume",), F, KEEP, "conversation only; this run's permissions apply"
        ),
        FlagSpec(
            ("--resume-session-at",), V, KEEP, "conversation only; this run's permissions apply"
        ),
        FlagSpec(
            ("--resume-drops-turn",), V, KEEP, "conversation only; this run's permissions apply"
        ),
        FlagSpec(
            ("--session-began-as-copy",), V, KEEP, "conversation only; this run's permissions apply"
        ),
        FlagSpec(("--model",), V, KEEP, "model choice"),
        FlagSpec(("--fallback-model",), V, KEEP, "model choice"),
        FlagSpec(("--max-budget-usd",), V, KEEP, "spending cap"),
        FlagSpec(("--max-turns",), V, KEEP, "turn cap"),
        FlagSpec(("--max-thinking-tokens",), V, KEEP, "model setting"),
        FlagSpec(("--thinking",), V, KEEP, "model setting"),
        FlagSpec(("--thinking-display",), V, KEEP, "output detail"),
        FlagSpec(("--task-budget",), V, KEEP, "spending cap"),
        FlagSpec(("--workload",), V, KEEP, "a label"),
        FlagSpec(("--plan-mode-instructions",), V, KEEP, "prompt text"),
        FlagSpec(("--debug-to-stderr", "-d2e"), F, KEEP, "logs on stderr"),
        FlagSpec(("--exclude-dynamic-system-prompt-sections",), F, KEEP, "prompt layout"),
        FlagSpec(("--include-hook-events",), F, KEEP, "output detail"),
        FlagSpec(("--include-partial-messages",), F, KEEP, "output detail"),
        FlagSpec(("--output-format",), V, KEEP, "output format"),
        FlagSpec(("--json-schema",), V, KEEP, "output shape"),
        FlagSpec(("--name", "-n"), V, KEEP, "display name"),
        FlagSpec(("--prompt-suggestions",), OPT, KEEP, "output detail"),
        FlagSpec(("--remote-control-session-name-prefix",), V, KEEP, "a name only"),
        FlagSpec(("--replay-user-messages",), F, KEEP, "output detail"),
        FlagSpec(("--help", "-h"), F, KEEP, "prints help"),
        FlagSpec(("--version", "-v"), F, KEEP, "prints the version"),
    )
)

ENV_RULES: tuple[tuple[str, Action, str], ...] = (
    ("CLAUDE_CONFIG_DIR", REFUSE, "moves the settings and hooks claude loads"),
    ("CLAUDE_CODE_SHELL_PREFIX", REFUSE, "wraps every shell command"),
    ("CLAUDE_CODE_USE_BEDROCK", KEEP, "model provider"),
    ("CLAUDE_CODE_USE_VERTEX", KEEP, "model provider"),
    ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", KEEP, "less network"),
    ("CLAUDE_CODE_MAX_OUTPUT_TOKENS", KEEP, "model setting"),
    ("ANTHROPIC_*", KEEP, "API endpoint, key or model"),
    ("DISABLE_*", KEEP, "turns a feature off"),
    ("MAX_THINKING_TOKENS", KEEP, "model setting"),
    # The AWS SDK claude bundles runs the `credential_process` command these files may name.
    ("AWS_CONFIG_FILE", REFUSE, "its credential_process runs a program"),
    ("AWS_SHARED_CREDENTIALS_FILE", REFUSE, "its credential_process runs a program"),
    ("AWS_*", KEEP, "Bedrock credentials"),
    ("CLOUD_ML_REGION", KEEP, "Vertex region"),
    ("VERTEX_REGION_*", KEEP, "Vertex region"),
)


CONFINE = ConfineNeeds(
    env=(
        "ANTHROPIC_*",
        "CLAUDE_CONFIG_DIR",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_USE_FOUNDRY",
        "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
        "CLAUDE_CODE_SKIP_VERTEX_AUTH",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
        "DISABLE_*",
        "MAX_THINKING_TOKENS",
        "CLOUD_ML_REGION",
        "VERTEX_REGION_*",
    ),
    state=(
        # ~/.claude.json lives in HOME (private anyway), or in CLAUDE_CONFIG_DIR when it is set.
        StateDir(("$CLAUDE_CONFIG_DIR", "~/.claude"), keep=(".credentials.json",)),
        # Profiles and tokens of `ant auth login` (2.1.332 reads them: configs/, credentials/).
        StateDir(
            ("$ANTHROPIC_CONFIG_DIR", "~/.config/anthropic"),
            keep=("active_config", "configs", "credentials"),
        ),
    ),
    system=("/etc/claude-code",),  # the administrator's managed settings
    path_env=("ANTHROPIC_IDENTITY_TOKEN_FILE", "ANTHROPIC_UNIX_SOCKET"),
)
"""What claude needs under --confine (measured with 2.1.332, strace of a run against the stub):
its API key, endpoint and config-dir variables; `~/.claude` (state: sessions, transcripts of
every project, plugins, caches) private and fresh with only `.credentials.json` from the real
one; the same for `~/.config/anthropic`; `/etc/claude-code`. It also reads `~/.gitconfig`,
`~/.config/git/` and `/etc/machine-id`, and runs without them."""


def toolgate_settings(hook_command: str | None) -> str:
    """The `--settings` JSON toolgate gives every read-only run (the only settings it loads).

    `includeGitInstructions: false` stops the `git status` and `git log` claude runs at start
    to describe the repository to the model: git runs programs the tree's `.git/config` or
    the user's git config name there (measured with 2.1.197: a `core.fsmonitor` in the tree's
    `.git/config` wrote the tree under the read-only flags alone). With `hook_command`
    (`--read-shell`), toolgate's PreToolUse hook is installed for every tool call.
    """
    settings: dict[str, object] = {"includeGitInstructions": False}
    if hook_command is not None:
        hook = {"type": "command", "command": hook_command}
        settings["hooks"] = {"PreToolUse": [{"matcher": "*", "hooks": [hook]}]}
    from toolgate_cli.json_text import dumps

    return dumps(settings, compact=True)


def rewrite(invocation: LaneInvocation, options: RewriteOptions) -> RewriteResult:
    """Rewrite a claude invocation to run read-only, or refuse and say why."""
    args = invocation.args
    try:
        table = FLAGS.with_extra(pass_flag_specs(options, FLAGS.names(), LANE))
        items, _ = tokenize(args, table, Dialect.COMMANDER)
    except ArgvError as error:
        return RewriteRefused(argv_refusal(error, LANE), (), LANE)
    except ValueError as error:
        return RewriteRefused(str(error), (), LANE)

    walk = walk_items(items, args, options, LANE)
    _refuse_words_claude_acts_on(args, items, table, walk)
    _refuse_verbs_claude_runs_first(args, items, walk)
    template_denies = [
        word
        for item in walk.removed
        if item.spec is not None and item.spec.canonical == "--disallowedTools"
        for word in item.values
        if not looks_like_option(word)
    ]
    _refuse_folded_anywhere_words(template_denies, walk)
    printing = any(
        item.spec is not None and args[item.start] in PRINT_WORDS and not item.glued
        for item in items
    )
    if not printing:
        operand = first_operand(items, args)
        if operand in SUBCOMMANDS:
            what = f"claude {operand} is a subcommand, not a lane run"
            walk.changes.insert(0, Change("refused", "<subcommand>", (operand,), "not a lane run"))
        else:
            what = (
                "claude without -p starts an interactive session, which can change its own "
                "permissions"
            )
            walk.changes.insert(0, Change("refused", "--print", (), "read-only runs are headless"))
        walk.refusals.insert(
            0, f"{what}; read-only needs a headless run: add -p as a word of its own"
        )
    env_found, env_refusals = env_changes(invocation.env, ENV_RULES, options, LANE)
    changes = walk.changes + env_found
    refusals = walk.refusals + env_refusals
    if refusals:
        return RewriteRefused(joined_refusals(refusals), tuple(changes), LANE)

    added_words, added_changes = _added(template_denies, options)
    changes.extend(added_changes)
    new_args = added_words + tuple(walk.kept)
    binding = "claude --permission-mode dontAsk, read-only tool set"
    if options.confine:
        binding += " without WebFetch and WebSearch"
    if options.read_shell_hook is not None:
        binding += ", Bash checked by the toolgate PreToolUse hook"
    return Rewritten(
        LaneInvocation(invocation.command, new_args, invocation.env), binding, tuple(changes), LANE
    )


def _refuse_words_claude_acts_on(
    args: Sequence[str], items: Sequence[Item], table: FlagTable, walk: Walk
) -> None:
    """Refuse, in one pass over the argv, the words claude acts on wherever they stand.

    Two kinds, each word refused once:
    - the switches and deep links claude reads before commander parses anything, even after
      `--` and in the prompt (`ANYWHERE_WORDS`, `ANYWHERE_PREFIXES`);
    - any other word that spells one of claude's options but stands as a value, a prompt or
      after `--`. commander reads such a word as data, but claude scans its raw argv for
      several switches (measured: `-p`, `--bg`, `--tmux` with `-w`; read in the binary:
      `--handle-uri`, `--agent-teams`, `-c`/`--resume`); refusing the class keeps a switch
      hidden in a value from acting, in this version and the next.
    """
    option_words = {item.start for item in items if item.kind is ItemKind.OPTION}
    # A set, built once: asking every change about every word was quadratic in the argv length.
    refused_words = {word for c in walk.changes if c.action == "refused" for word in c.words}
    for index, word in enumerate(args):
        if word in refused_words:
            continue
        reason = _anywhere_reason(word)
        if reason is not None:
            refused_words.add(word)
            walk.changes.append(Change("refused", word.split("=")[0], (word,), reason))
            walk.refusals.append(
                f"{word!r} anywhere in claude's arguments {reason}; remove it (claude reads it "
                "even after -- and inside the prompt position)"
            )
            continue
        name = word.partition("=")[0] if word.startswith("--") else word
        if index in option_words or table.get(name) is None:
            continue
        walk.changes.append(Change("refused", name, (word,), "an option name out of place"))
        walk.refusals.append(
            f"{word!r} spells a claude option but stands as a value or prompt; claude scans its "
            "raw arguments for some options, so toolgate refuses it there: reword it"
        )


def _refuse_verbs_claude_runs_first(args: Sequence[str], items: Sequence[Item], walk: Walk) -> None:
    """Refuse the words claude 2.1.332 turns into another command before commander parses the
    argv: a background-session verb (`BACKGROUND_VERBS`) and `import` (`IMPORT_ARGUMENTS`)."""
    first = next((item.start for item in items if item.kind is ItemKind.POSITIONAL), None)
    for index, word in enumerate(args):
        reason = BACKGROUND_VERBS.get(word)
        if reason is not None:
            following = args[index + 1] if index + 1 < len(args) else ""
            if index == first or _session_id(following) or following == "--all":
                walk.changes.append(Change("refused", "<background verb>", (word,), reason))
                walk.refusals.append(
                    f"{word!r} as claude's first operand or before a session id {reason}: "
                    "claude runs it before reading any flag, -p or not; reword the prompt"
                )
        elif word == IMPORT_WORD and _imports(args[index + 1 :]):
            why = "imports another agent's MCP servers, commands and skills into claude's config"
            walk.changes.append(Change("refused", "<import>", (word, *args[index + 1 :]), why))
            walk.refusals.append(
                f"'import' followed by {' '.join(args[index + 1 :])!r} {why} before claude reads "
                "any flag; reword the prompt"
            )


def _imports(rest: Sequence[str]) -> bool:
    """Whether claude reads `rest`, the words after `import`, as `claude import`'s arguments."""
    return bool(rest) and all(w in IMPORT_ARGUMENTS or w.startswith("--yes=") for w in rest)


def _anywhere_reason(word: str) -> str | None:
    """Why claude acts on `word` wherever it stands, or None if it does not."""
    reason = ANYWHERE_WORDS.get(word)
    if reason is None and word.startswith(_ANYWHERE_PREFIX_TUPLE):
        reason = next((r for p, r in ANYWHERE_PREFIXES.items() if word.startswith(p)), None)
    return reason


def _refuse_folded_anywhere_words(template_denies: Sequence[str], walk: Walk) -> None:
    """Refuse a template deny name that claude would act on once it stands alone.

    The template's --disallowedTools values are folded into toolgate's own deny list, each as
    a word of its own. `--disallowedTools=cc+unix://x` is one argument that claude's scan for
    deep links does not match; folded, `cc+unix://x` would be an argument of its own, which
    it does (found by the fuzz target, tests/fuzz)."""
    for word in template_denies:
        reason = _anywhere_reason(word)
        if reason is not None:
            walk.changes.append(Change("refused", "--disallowedTools", (word,), reason))
            walk.refusals.append(
                f"the --disallowedTools value {word!r} would stand as an argument of its own "
                f"in the rewrite, where claude acts on it ({reason}); drop it"
            )


def _added(
    template_denies: Sequence[str], options: RewriteOptions
) -> tuple[tuple[str, ...], tuple[Change, ...]]:
    """The words toolgate puts in front and their change entries (the common cases built once
    per set of version-gated flags)."""
    gated = _gated_flags(options)
    if not template_denies and options.read_shell_hook is None and _cacheable(gated):
        key = (gated, options.confine)
        cached = _DEFAULT_ADDED.get(key)
        if cached is None:
            cached = _DEFAULT_ADDED[key] = _flattened(_read_only_flags((), options, gated))
        return cached
    return _flattened(_read_only_flags(template_denies, options, gated))


def _gated_flags(options: RewriteOptions) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The rows of `VERSION_GATED_FLAGS` that `options.lane_version` has (none when it is
    unknown), with the caller root as a working directory when `--restricted` is among them."""
    rows = tuple(row for row in VERSION_GATED_FLAGS if VERSIONS.has(row[0], options.lane_version))
    if rows and rows[0][0] == "--restricted":
        return (rows[0], *_caller_root_reach(options), *rows[1:])
    return rows


def _caller_root_reach(options: RewriteOptions) -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """`--add-dir CALLER_ROOT` when the lane runs in another directory than the caller root.

    Measured with 2.1.332: `--restricted` confines Read, Glob and Grep to the working
    directories, so with the cwd a subdirectory of the caller root a Read of the root's
    README.md failed (`... is outside <cwd>; --restricted confines the file tools to the
    working directory`); with the root added it reads. The path is absolute (resolved), so it
    cannot read as an option, and the next word toolgate puts starts with `-`, so the variadic
    `--add-dir` takes exactly this one directory."""
    root = options.caller_root
    if root is None or options.cwd is None or root == options.cwd:
        return ()
    return (
        (
            "--add-dir",
            ("--add-dir", root),
            "the caller's tree stays readable: --restricted confines the file tools to the "
            "working directories",
        ),
    )


def _cacheable(gated: Sequence[tuple[str, tuple[str, ...], str]]) -> bool:
    """Whether a block with these gated rows may be cached: not when it names a directory."""
    return all(name != "--add-dir" for name, _, _ in gated)


def _flattened(
    flags: Sequence[tuple[str, tuple[str, ...], str]],
) -> tuple[tuple[str, ...], tuple[Change, ...]]:
    words = tuple(word for _, flag_words, _ in flags for word in flag_words)
    return words, tuple(Change("added", flag, flag_words, why) for flag, flag_words, why in flags)


def _read_only_flags(
    template_denies: Sequence[str],
    options: RewriteOptions,
    gated: Sequence[tuple[str, tuple[str, ...], str]],
) -> list[tuple[str, tuple[str, ...], str]]:
    """The flags toolgate puts in front, in an order where no variadic can swallow a template
    word: each variadic is followed by a word that starts with `-`, and the block ends with
    `--permission-mode dontAsk`, which takes exactly one value. `gated` are the
    version-gated flags this version has."""
    readers = READ_ONLY_TOOLS
    denied: tuple[str, ...] = READ_ONLY_DENIED
    if options.confine:
        readers = tuple(name for name in READ_ONLY_TOOLS if name not in WEB_TOOLS)
        denied = (*READ_ONLY_DENIED, *WEB_TOOLS)
    tools = readers
    if options.read_shell_hook is not None:
        # Bash exists for the model but is NOT allowed: only the hook's allow lets a command run.
        # Measured: with Bash in --allowedTools a hook that crashes fails open; without it,
        # dontAsk denies whatever the hook did not explicitly allow.
        tools = (*readers, "Bash")
        denied = tuple(name for name in denied if name != "Bash")
    allowed = ",".join(readers)
    deny_words = [",".join(denied)]
    deny_words.extend(dict.fromkeys(w for w in template_denies if w not in deny_words))
    flags: list[tuple[str, tuple[str, ...], str]] = [
        ("--tools", ("--tools", ",".join(tools)), "only these tools exist for the model"),
        ("--allowedTools", ("--allowedTools", allowed), "only these run without asking"),
        ("--disallowedTools", ("--disallowedTools", *deny_words), "writers denied by name"),
        ("--strict-mcp-config", ("--strict-mcp-config",), "no MCP server from any config file"),
        (
            "--disable-slash-commands",
            ("--disable-slash-commands",),
            "no slash command in the prompt: /config writes .claude/settings.local.json",
        ),
        (
            "--setting-sources",
            ("--setting-sources", ""),
            "no settings file: their hooks and helpers run code",
        ),
    ]
    settings_why = "no git status at start: git runs programs the git config names"
    if options.read_shell_hook is not None:
        settings_why += "; Bash runs only when toolgate's PreToolUse hook admits the command"
    flags.append(
        ("--settings", ("--settings", toolgate_settings(options.read_shell_hook)), settings_why)
    )
    flags.extend(gated)
    flags.append(
        (
            "--permission-mode",
            ("--permission-mode", "dontAsk"),
            "anything not allowed is denied, never asked",
        )
    )
    return flags


_DEFAULT_ADDED: dict[
    tuple[tuple[tuple[str, tuple[str, ...], str], ...], bool],
    tuple[tuple[str, ...], tuple[Change, ...]],
] = {}
"""The block for a template with no deny list of its own and no read shell (most rewrites),
built once per set of version-gated flags, confined or not."""


def help_surfaces() -> tuple[HelpSurface, ...]:
    """claude's help page for `toolgate lanes --check` (one page: `claude --help`)."""
    from toolgate_cli.lanes.drift import HelpSurface

    relied = frozenset(
        name for name, _, _ in _read_only_flags((), RewriteOptions(read_shell_hook=""), ())
    )
    return (
        HelpSurface(
            ("--help",),
            frozenset(FLAGS.names()),
            # --add-dir: toolgate adds it beside --restricted (every supported version has it).
            relied | {"--print", "--add-dir"},
            frozenset(VERSIONS.since),
        ),
    )
