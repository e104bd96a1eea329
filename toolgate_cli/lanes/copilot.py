"""copilot (GitHub Copilot CLI): read-only through its own tool filter and a private config home.

Only headless runs (`-p/--prompt`) are lane runs. copilot parses its argv with clap (clap_builder
4.6.7, in the `cli-native.node` its package carries): `Dialect.CLAP`, with the zero-or-more
options (`--allow-tool [<tools>...]`) as `Arity.ANY`. Every word that is not an option's value
is a subcommand to clap, even after `-p` (measured with 1.0.102: `copilot -p x mcp --help`
prints the `mcp` help), so no positional word and no `--` tail is accepted.

In front of the template's options toolgate puts, once each (measured with 1.0.102, each a
scenario in tests/e2e/test_copilot_readonly.py):

- `--available-tools=view,grep,glob`: only these tools exist for the model. The others write
  (bash, create, edit) or run code: the default `lsp` tool starts the language server the
  reviewed tree's own `.github/lsp.json` names, untrusted and without any approval;
- `--excluded-tools=...`: every other built-in tool of 1.0.102 by name, a second filter;
- `--deny-tool=shell` and `--deny-tool=write`: the permission rules that deny shell commands
  and file writes even under an allow (copilot reads a bare tool name such as `bash` as an MCP
  server's name, so only these two kinds deny built-ins);
- `--disable-builtin-mcps`: no built-in MCP server (github-mcp-server, githubiq);
- `--no-auto-update`: copilot's loader otherwise runs the newest package it finds under
  `~/.copilot/pkg` or `~/.cache/copilot/pkg` instead of the launched one (a planted one ran and
  wrote the tree).

and in the environment:

- `COPILOT_HOME` pointed at a new, empty directory private to this run, which the dispatch
  host makes (`RewriteOptions.lane_home`, see `toolgate_cli.lanes.copilot_home`): in every
  headless run copilot runs the hooks, MCP servers and plugins of its config home (hooks in
  `hooks/*.json` and `settings.json`, servers in `mcp-config.json`, plugins installed there)
  with no trust asked, and its `config.json` `trustedFolders` makes the tree's own hooks and
  MCP servers run; no flag turns those off;
- `COPILOT_ALLOW_ALL`, `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS`,
  `GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP` and `GITHUB_COPILOT_PROMPT_MODE_EXTENSIONS` unset:
  each makes a headless run load the tree's hooks, MCP servers or extensions (`COPILOT_ALLOW_ALL`
  only when exactly `true`), and a CI job that runs other copilot jobs may well export them.

Every grant the template carried is removed: `--allow-all-tools`, `--allow-all`, `--yolo`,
`--allow-tool`, `--allow-all-paths`, `--allow-all-urls`, `--allow-url`, the agent modes, and
`--trust-folder`. A template tool filter (`--available-tools`) is replaced; its denials and
exclusions stay (they only take away).
"""

from __future__ import annotations

from toolgate_cli.argv import (
    Action,
    ArgvError,
    Arity,
    Dialect,
    FlagSpec,
    FlagTable,
    ItemKind,
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
    argv_refusal,
    env_changes,
    joined_refusals,
    output_file_outside_tree,
    pass_flag_specs,
    walk_items,
)
from toolgate_cli.lanes.versions import LaneVersions, normal_version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

    from toolgate_cli.argv import Judge
    from toolgate_cli.lanes.drift import HelpSurface

LANE = KIND = "copilot"
MECHANISM = (
    "headless (-p) runs only; --available-tools=view,grep,glob, every other built-in tool in "
    "--excluded-tools, --deny-tool=shell and --deny-tool=write, --disable-builtin-mcps, "
    "--no-auto-update, a private COPILOT_HOME made for the run (no user hooks, MCP servers, "
    "plugins or trusted folders), and COPILOT_ALLOW_ALL, GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS, "
    "GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP, GITHUB_COPILOT_PROMPT_MODE_EXTENSIONS unset"
)
RUN_HINT = "copilot -p PROMPT (the prompt as one word, no subcommand)"

VERSIONS = LaneVersions(oldest_supported="1.0.102", proven=("1.0.102",))
VERSIONS_PROVEN = VERSIONS.proven

PROBE_ARGS: tuple[str, ...] = ("--no-auto-update",)
"""Words put before every probe of the binary (`--version`, `--help`). Measured with 1.0.102:
`copilot --version` hands over to the newest package in `~/.copilot/pkg` or
`~/.cache/copilot/pkg` (a planted one ran its code and wrote the tree), while
`copilot --no-auto-update --version` is answered by the launched binary's loader itself."""

PRIVATE_HOME = "toolgate_cli.lanes.copilot_home"
"""The host module that makes the private `COPILOT_HOME` of a run (`make_private_home`); the
dispatch host passes the directory to `rewrite` as `RewriteOptions.lane_home`."""

_VERSION_PREFIX = "GitHub Copilot CLI "


def version_of(output: str) -> str | None:
    """The version `copilot --version` prints (`GitHub Copilot CLI 1.0.102.`), or None."""
    for line in output.splitlines():
        if line.startswith(_VERSION_PREFIX):
            words = line[len(_VERSION_PREFIX) :].split()
            return normal_version(words[0].rstrip(".")) if words else None
    return None


READ_ONLY_TOOLS: tuple[str, ...] = ("view", "grep", "glob")
"""copilot's built-in tools that read the tree and change nothing."""

EXCLUDED_TOOLS: tuple[str, ...] = (
    "bash",
    "read_bash",
    "stop_bash",
    "list_bash",
    "create",
    "edit",
    "lsp",
    "task",
    "read_agent",
    "list_agents",
    "write_agent",
    "skill",
    "sql",
    "session_store_sql",
    "fetch_copilot_cli_documentation",
)
"""Every other built-in tool copilot 1.0.102 offered a headless run (and `lsp`, which it adds
when a language server is configured), excluded by name on top of the `--available-tools`
allowlist. Only names 1.0.102 knows: it prints "Unknown tool name in the tool excludedlist" for
any other (it did for `write_bash`, a name its permission code uses)."""

DENIED_KINDS: tuple[str, ...] = ("shell", "write")
"""The permission rule kinds that deny built-in tools (`--deny-tool=KIND`): shell commands and
file writes. Measured: they deny bash, create and edit even under `--allow-all-tools`."""

UNSET_ENV: dict[str, str] = {
    "COPILOT_ALLOW_ALL": "exactly true trusts the folder: the tree's hooks and MCP servers run",
    "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS": "true runs the tree's hooks in a headless run",
    "GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP": (
        "true starts the tree's MCP servers in a headless run"
    ),
    "GITHUB_COPILOT_PROMPT_MODE_EXTENSIONS": "true loads the tree's extensions in a headless run",
}
"""Variables toolgate unsets in the lane's environment, whoever set them (the template may not
set them at all: `ENV_RULES`)."""

SUBCOMMANDS: frozenset[str] = frozenset(
    {
        "app",
        "login",
        "help",
        "init",
        "config",
        "update",
        "version",
        "workflow",
        "workflows",
        "sessions",
        "memories",
        "plugin",
        "mcp",
        "skill",
        "instruction",
        "lsp",
        "sandbox",
        "completion",
        "taskbar-selftest",
    }
)
"""copilot 1.0.102's subcommands (`--help`, the hidden `taskbar-selftest` from its completion
script, `workflows` from its loader). None is a lane run."""

ANYWHERE_BASENAME = "extension_bootstrap.mjs"
"""copilot's package entry scans its raw argv before clap: any word whose file name is this
makes the process run as an extension child (importing `$EXTENSION_PATH`) instead of the CLI,
with none of the flags applied. Refused wherever it stands, a value or the prompt included."""


def _outside_tree(what: str) -> Judge:
    """A judge for an option that makes copilot write the file (or directory) it names."""

    def judge(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
        if values and values[0] and output_file_outside_tree(values[0], options):
            return Action.KEEP, f"writes its {what} outside the caller's tree"
        return Action.REFUSE, f"copilot writes its {what} there; point it outside the tree"

    return judge


def _share(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
    if not values:
        return (
            Action.REFUSE,
            "writes copilot-session-<id>.md into the working directory; give a path outside "
            "the tree (--share=PATH)",
        )
    if values[0] and output_file_outside_tree(values[0], options):
        return Action.KEEP, "writes the session file outside the caller's tree"
    return Action.REFUSE, "copilot writes the session file there; point it outside the tree"


def _same_as_added(name: str, values_added: frozenset[tuple[str, ...]], why: str) -> Judge:
    """A judge for an option the template may carry: an occurrence with the very values
    toolgate adds is replaced (toolgate puts it once), any other is kept."""

    def judge(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
        if values in values_added:
            return Action.REPLACE, f"toolgate sets {name}={','.join(values)}"
        return Action.KEEP, why

    return judge


F, V, OPT, ANY = Arity.FLAG, Arity.VALUE, Arity.OPTIONAL, Arity.ANY
KEEP, REPLACE, STRIP, REFUSE = Action.KEEP, Action.REPLACE, Action.STRIP, Action.REFUSE

_SERVER = "server mode, not a lane run"
_AHP = "a remote agent host connection, not a lane run"
_GITHUB_MCP = "widens the GitHub MCP server, which toolgate turns off"

FLAGS = FlagTable(
    (
        # --- the headless run -------------------------------------------------------------
        FlagSpec(("--prompt", "-p"), V, KEEP, "the headless prompt"),
        # --- what toolgate sets itself ------------------------------------------------------
        FlagSpec(("--available-tools",), ANY, REPLACE, "toolgate sets the read-only tools"),
        FlagSpec(("--disable-builtin-mcps",), F, REPLACE, "toolgate sets it"),
        FlagSpec(("--no-auto-update",), F, REPLACE, "toolgate sets it"),
        FlagSpec(("--config-dir",), V, REPLACE, "toolgate sets a private config home"),
        # --- grants: removed -----------------------------------------------------------------
        FlagSpec(("--allow-all-tools",), F, STRIP, "approves every tool, shell and writes too"),
        FlagSpec(("--allow-all",), F, STRIP, "enables every permission"),
        FlagSpec(("--yolo",), F, STRIP, "enables every permission"),
        FlagSpec(("--allow-tool",), ANY, STRIP, "approves tools without asking"),
        FlagSpec(("--allow-all-paths",), F, STRIP, "turns path verification off"),
        FlagSpec(("--allow-all-urls",), F, STRIP, "approves every URL"),
        FlagSpec(("--allow-url",), ANY, STRIP, "approves URLs without asking"),
        FlagSpec(("--trust-folder",), F, STRIP, "trusts the tree: its hooks and MCP servers run"),
        FlagSpec(("--mode",), V, STRIP, "an agent mode (autopilot approves on its own)"),
        FlagSpec(("--autopilot",), F, STRIP, "autopilot continues and approves on its own"),
        FlagSpec(("--plan",), F, STRIP, "plan mode hands over to autopilot"),
        FlagSpec(("--assisted-approval",), F, STRIP, "an LLM judge approves permission requests"),
        FlagSpec(("--no-sandbox",), F, STRIP, "turns copilot's own command sandbox off"),
        FlagSpec(("--enable-mcp-server",), V, STRIP, "turns an MCP server on"),
        FlagSpec(("--additional-mcp-config",), V, STRIP, "MCP servers run code at start"),
        FlagSpec(("--mcp-github-auth",), V, STRIP, "sends the GitHub credential to a server"),
        FlagSpec(("--enable-all-github-mcp-tools",), F, STRIP, _GITHUB_MCP),
        FlagSpec(("--add-github-mcp-toolset",), V, STRIP, _GITHUB_MCP),
        FlagSpec(("--add-github-mcp-tool",), V, STRIP, _GITHUB_MCP),
        # --- cannot be part of a read-only run ----------------------------------------------
        FlagSpec(("--interactive", "-i"), V, REFUSE, "interactive session: not headless"),
        FlagSpec(("--worktree", "-w"), OPT, REFUSE, "creates a git worktree and branch"),
        FlagSpec(("-C",), V, REFUSE, "moves the working directory past toolgate's check"),
        FlagSpec(("--agent",), V, REFUSE, "a custom agent brings its own tools and servers"),
        FlagSpec(("--plugin-dir",), V, REFUSE, "plugins bring hooks and MCP servers"),
        FlagSpec(("--extension-sdk-path",), V, REFUSE, "loads code into extension processes"),
        FlagSpec(("--prefer-version",), V, REFUSE, "runs another cached package, unproven"),
        FlagSpec(("--experimental",), F, REFUSE, "turns on unverified features"),
        FlagSpec(("--fleet",), F, REFUSE, "parallel subagents, unverified"),
        FlagSpec(("--bash-env",), OPT, REFUSE, "BASH_ENV runs a script in every bash"),
        FlagSpec(("--resume", "-r"), OPT, REFUSE, "resumes a stored session toolgate cannot see"),
        FlagSpec(("--continue",), F, REFUSE, "resumes a stored session toolgate cannot see"),
        FlagSpec(("--session-id",), V, REFUSE, "can resume a stored session or task"),
        FlagSpec(("--connect",), OPT, REFUSE, "connects to a remote session"),
        FlagSpec(("--cloud",), F, REFUSE, "runs in a cloud session"),
        FlagSpec(("--remote",), F, REFUSE, "a remote party could steer the session"),
        FlagSpec(("--remote-export",), F, REFUSE, "exports the session to GitHub"),
        FlagSpec(("--share-gist",), F, REFUSE, "uploads the session to a gist"),
        FlagSpec(("--share",), OPT, REFUSE, "", judge=_share),
        FlagSpec(("--log-dir",), V, REFUSE, "", judge=_outside_tree("log files")),
        FlagSpec(("--usage-output-file",), V, REFUSE, "", judge=_outside_tree("usage file")),
        FlagSpec(
            ("--save-trajectory-output",), V, REFUSE, "", judge=_outside_tree("trajectory file")
        ),
        FlagSpec(("--collect-debug-logs",), V, REFUSE, "writes a .tgz in the cwd: not a run"),
        FlagSpec(("--collect-debug-logs-output",), V, REFUSE, "only with --collect-debug-logs"),
        FlagSpec(("--print-debug-info",), F, REFUSE, "prints diagnostics: not a lane run"),
        FlagSpec(("--server",), F, REFUSE, _SERVER),
        FlagSpec(("--headless",), F, REFUSE, _SERVER),
        FlagSpec(("--ui-server",), F, REFUSE, _SERVER),
        FlagSpec(("--managed-server",), F, REFUSE, _SERVER),
        FlagSpec(("--acp",), F, REFUSE, "Agent Client Protocol server, not a lane run"),
        FlagSpec(("--embedded-host",), F, REFUSE, "an embedded host, not a lane run"),
        FlagSpec(("--stdio",), F, REFUSE, _SERVER),
        FlagSpec(("--host",), V, REFUSE, _SERVER),
        FlagSpec(("--port",), V, REFUSE, _SERVER),
        FlagSpec(("--session-idle-timeout",), V, REFUSE, _SERVER),
        FlagSpec(("--auth-token-env",), V, REFUSE, _SERVER),
        FlagSpec(("--relay",), F, REFUSE, _AHP),
        FlagSpec(("--ahp",), OPT, REFUSE, _AHP),
        FlagSpec(("--ahp-authenticate-with-github",), F, REFUSE, _AHP),
        FlagSpec(("--ahp-host",), F, REFUSE, _AHP),
        FlagSpec(("--ahp-host-token",), V, REFUSE, _AHP),
        FlagSpec(("--ahp-host-disable-token",), F, REFUSE, _AHP),
        FlagSpec(("--listen",), V, REFUSE, _AHP),
        FlagSpec(("--workspace",), V, REFUSE, _AHP),
        FlagSpec(("--environment-id",), V, REFUSE, _AHP),
        FlagSpec(("--environment-host",), V, REFUSE, _AHP),
        FlagSpec(("--environment-compute-id",), V, REFUSE, _AHP),
        # --- harmless to read-only ------------------------------------------------------------
        FlagSpec(
            ("--deny-tool",),
            ANY,
            KEEP,
            "",
            judge=_same_as_added(
                "--deny-tool", frozenset((kind,) for kind in DENIED_KINDS), "denies more"
            ),
        ),
        FlagSpec(
            ("--excluded-tools",),
            ANY,
            KEEP,
            "",
            judge=_same_as_added(
                "--excluded-tools", frozenset({(",".join(EXCLUDED_TOOLS),)}), "removes more tools"
            ),
        ),
        FlagSpec(("--deny-url",), ANY, KEEP, "denies more"),
        FlagSpec(("--disable-mcp-server",), V, KEEP, "turns a server off"),
        FlagSpec(("--secret-env-vars",), ANY, KEEP, "redacts more"),
        FlagSpec(("--add-dir",), V, KEEP, "widens reads only (measured: trusts no hooks)"),
        FlagSpec(("--attachment",), V, KEEP, "attaches a file to the prompt"),
        FlagSpec(("--additional-content-exclusion-policies",), V, KEEP, "reads less"),
        FlagSpec(("--allow-all-mcp-server-instructions",), F, KEEP, "prompt text"),
        FlagSpec(("--disallow-temp-dir",), F, KEEP, "reads less"),
        FlagSpec(("--sandbox",), F, KEEP, "copilot's own command sandbox: narrows further"),
        FlagSpec(("--no-custom-instructions",), F, KEEP, "loads less"),
        FlagSpec(("--no-experimental",), F, KEEP, "turns features off"),
        FlagSpec(("--no-bash-env",), F, KEEP, "turns BASH_ENV off"),
        FlagSpec(("--no-remote",), F, KEEP, "turns remote control off"),
        FlagSpec(("--no-remote-export",), F, KEEP, "turns remote export off"),
        FlagSpec(("--disable-remote-sessions",), F, KEEP, "turns remote access off"),
        FlagSpec(("--no-auto-login",), F, KEEP, "loads fewer credentials"),
        FlagSpec(("--no-ask-user",), F, KEEP, "no questions"),
        FlagSpec(("--disable-client-telemetry",), F, KEEP, "less network"),
        FlagSpec(("--enable-memory",), F, KEEP, "recall from the private home (measured)"),
        FlagSpec(("--dynamic-retrieval",), V, KEEP, "skill retrieval, stored in copilot's home"),
        FlagSpec(("--model",), V, KEEP, "model choice"),
        FlagSpec(("--reasoning-effort",), V, KEEP, "model setting"),
        FlagSpec(("--context",), V, KEEP, "model setting"),
        FlagSpec(("--auto-tier",), V, KEEP, "model routing"),
        FlagSpec(("--enable-reasoning-summaries",), F, KEEP, "ignored (deprecated)"),
        FlagSpec(("--max-ai-credits",), V, KEEP, "spending cap"),
        FlagSpec(("--max-autopilot-continues",), V, KEEP, "a cap"),
        FlagSpec(("--name", "-n"), V, KEEP, "session name"),
        FlagSpec(("--new-session-id",), V, KEEP, "the new session's id"),
        FlagSpec(("--silent", "-s"), F, KEEP, "output detail"),
        FlagSpec(("--stream",), V, KEEP, "output detail"),
        FlagSpec(("--output-format",), V, KEEP, "output format"),
        FlagSpec(("--log-level",), V, KEEP, "log detail (logs go to copilot's home)"),
        FlagSpec(("--log-interactive-shells",), F, KEEP, "log detail (no shell is offered)"),
        FlagSpec(("--show-timing",), F, KEEP, "output detail"),
        FlagSpec(("--banner",), F, KEEP, "display"),
        FlagSpec(("--screen-reader",), F, KEEP, "display"),
        FlagSpec(("--plain-diff",), F, KEEP, "display"),
        FlagSpec(("--mouse",), OPT, KEEP, "display"),
        FlagSpec(("--no-mouse",), F, KEEP, "display"),
        FlagSpec(("--no-color",), F, KEEP, "display"),
        FlagSpec(("--no-eager-powershell-resolution",), F, KEEP, "Windows shell start-up"),
        FlagSpec(("--help", "-h"), F, KEEP, "prints help"),
        FlagSpec(("--version", "-v"), F, KEEP, "prints the version"),
    )
)
"""Every option of copilot 1.0.102: its `--help`, and the hidden ones its own completion
script lists (`copilot completion bash` is generated from the clap command, hidden arguments
included; the argument ids in `cli-native.node` name no other)."""

ENV_RULES: tuple[tuple[str, Action, str], ...] = (
    ("COPILOT_ALLOW_ALL", REFUSE, "approves every tool; exactly true trusts the folder"),
    ("GITHUB_COPILOT_PROMPT_MODE_*", REFUSE, "loads the tree's hooks, MCP servers or extensions"),
    ("COPILOT_HOME", REFUSE, "moves the config copilot loads; toolgate sets a private one"),
    ("COPILOT_CACHE_HOME", REFUSE, "chooses which package code copilot runs"),
    ("COPILOT_PKG_CACHE_HOME", REFUSE, "chooses which package code copilot runs"),
    ("XDG_CACHE_HOME", REFUSE, "chooses which package code copilot runs"),
    ("COPILOT_CLI_DIST_DIR", REFUSE, "runs the package in that directory"),
    ("COPILOT_CLI_VERSION", REFUSE, "changes which cached package runs"),
    ("COPILOT_PROVIDER_API_KEY_COMMAND", REFUSE, "runs a command for every model request"),
    ("COPILOT_OTEL_FILE_EXPORTER_PATH", REFUSE, "copilot writes this file"),
    ("COPILOT_EVENTS_LOG_DIRECTORY", REFUSE, "copilot writes there"),
    ("COPILOT_PROCESS_LOG_FILE", REFUSE, "copilot writes this file"),
    ("COPILOT_SKILLS_DIRS", REFUSE, "loads skills from there"),
    ("COPILOT_ASSISTED_APPROVAL", REFUSE, "an LLM judge approves permission requests"),
    ("COPILOT_BASH_PATH", REFUSE, "changes which shell runs"),
    ("COPILOT_EDITOR", REFUSE, "a command copilot runs"),
    ("EDITOR", REFUSE, "a command copilot runs"),
    ("VISUAL", REFUSE, "a command copilot runs"),
    ("USE_BUILTIN_RIPGREP", REFUSE, "false runs the rg found on PATH"),
    ("COPILOT_AUTO_UPDATE", KEEP, "toolgate's --no-auto-update wins over it"),
    ("COPILOT_PROVIDER_*", KEEP, "model endpoint, key or model"),
    ("COPILOT_MODEL", KEEP, "model choice"),
    ("COPILOT_AUTO_TIER", KEEP, "model routing"),
    ("COPILOT_OFFLINE", KEEP, "no network"),
    ("COPILOT_GITHUB_TOKEN", KEEP, "credentials"),
    ("GH_TOKEN", KEEP, "credentials"),
    ("GITHUB_TOKEN", KEEP, "credentials"),
    ("GH_HOST", KEEP, "GitHub host"),
    ("COPILOT_GH_HOST", KEEP, "GitHub host"),
    ("COPILOT_CUSTOM_INSTRUCTIONS_DIRS", KEEP, "prompt text"),
    ("PLAIN_DIFF", KEEP, "display"),
)
"""Environment a template may set (first match wins; `COMMON_ENV_RULES` follow, and a name no
rule knows is refused unless declared with --pass-env)."""


CONFINE = ConfineNeeds(
    env=(
        "COPILOT_PROVIDER_*",
        "COPILOT_MODEL",
        "COPILOT_OFFLINE",
        "COPILOT_AUTO_TIER",
        "COPILOT_GITHUB_TOKEN",
        "GH_TOKEN",
        "GITHUB_TOKEN",
        "GH_HOST",
        "COPILOT_GH_HOST",
        "COPILOT_HOME",
        "COPILOT_CACHE_HOME",
        "COPILOT_PKG_CACHE_HOME",
    ),
    state=(
        StateDir(("$COPILOT_HOME", "~/.copilot")),
        # The package copilot unpacked at its first start (~235 MB) is its code: shown
        # read-only; the rest of its cache is private, as any state.
        StateDir(("$COPILOT_CACHE_HOME", "~/.cache/copilot"), keep=("pkg",)),
        StateDir(("$COPILOT_PKG_CACHE_HOME",), keep=("pkg",)),
    ),
)
"""What copilot needs under --confine: its endpoint, token and home variables; its config home
private and fresh (so no private COPILOT_HOME of toolgate's is needed there: the sandbox
makes one), and the package it runs from its cache, read-only."""


def _added_flags() -> tuple[tuple[str, tuple[str, ...], str], ...]:
    """The options toolgate puts in front: every one `=`-spelled or a flag, so none can take a
    word of the template as its value."""
    deny = tuple(
        (
            "--deny-tool",
            (f"--deny-tool={kind}",),
            f"{kind} denied, even under an allow",
        )
        for kind in DENIED_KINDS
    )
    return (
        (
            "--available-tools",
            (f"--available-tools={','.join(READ_ONLY_TOOLS)}",),
            "only these tools exist for the model",
        ),
        (
            "--excluded-tools",
            (f"--excluded-tools={','.join(EXCLUDED_TOOLS)}",),
            "every other built-in tool removed by name",
        ),
        *deny,
        ("--disable-builtin-mcps", ("--disable-builtin-mcps",), "no built-in MCP server"),
        (
            "--no-auto-update",
            ("--no-auto-update",),
            "runs the launched version, not a newer package found in copilot's caches",
        ),
    )


READ_ONLY_FLAGS = _added_flags()
_ADDED_WORDS = tuple(word for _, words, _ in READ_ONLY_FLAGS for word in words)
_ADDED_CHANGES = tuple(Change("added", flag, words, why) for flag, words, why in READ_ONLY_FLAGS)
_UNSET_CHANGES = tuple(
    Change("added", f"env {name}", (name,), f"unset: {why}") for name, why in UNSET_ENV.items()
)
_HOME_WHY = "a private config home: no user hooks, MCP servers, plugins or trusted folders"


def rewrite(invocation: LaneInvocation, options: RewriteOptions) -> RewriteResult:
    """Rewrite a copilot invocation to run read-only, or refuse and say why."""
    args = invocation.args
    try:
        table = FLAGS.with_extra(pass_flag_specs(options, FLAGS.names(), LANE))
        items, at = tokenize(args, table, Dialect.CLAP, stop_at_positional=lambda _: True)
    except ArgvError as error:
        return RewriteRefused(argv_refusal(error, LANE), (), LANE)
    except ValueError as error:
        return RewriteRefused(str(error), (), LANE)

    walk = walk_items(items, args, options, LANE)
    changes = list(walk.changes)
    refusals = list(walk.refusals)
    if at < len(args):
        word = args[at]
        reason = "a subcommand, not a lane run"
        if word not in SUBCOMMANDS:
            reason = "copilot reads any word that is no option's value as a subcommand"
        changes.insert(0, Change("refused", "<subcommand>", (word,), reason))
        refusals.insert(
            0,
            f"copilot {word!r}: {reason}; give the prompt as the value of -p "
            "(copilot -p 'the prompt')",
        )
    for item in items:
        if item.kind is ItemKind.TAIL:
            tail = tuple(args[item.start : item.end])
            changes.append(Change("refused", "--", tail, "copilot takes no words after --"))
            refusals.append("copilot takes no words after --: give the prompt with -p")
    prompting = any(item.spec is not None and item.spec.canonical == "--prompt" for item in items)
    if not prompting:
        changes.insert(0, Change("refused", "--prompt", (), "read-only runs are headless"))
        refusals.insert(
            0,
            "copilot without -p starts an interactive session, which can change its own "
            "permissions; read-only needs a headless run: copilot -p PROMPT",
        )
    _refuse_extension_bootstrap(args, changes, refusals)
    # The private home toolgate made for this very run is its own setting, not the template's
    # (so a rewrite of a rewrite is the same rewrite).
    template_env = {
        name: value
        for name, value in invocation.env.items()
        if not (name == "COPILOT_HOME" and value is not None and value == options.lane_home)
    }
    env_found, env_refusals = env_changes(template_env, ENV_RULES, options, LANE)
    changes.extend(env_found)
    refusals.extend(env_refusals)
    home_problem = None if options.confine else _home_problem(options)
    if home_problem is not None:
        refusal, advice = home_problem
        changes.append(Change("refused", "<private-home>", (), advice))
        refusals.append(refusal)
    if refusals:
        return RewriteRefused(joined_refusals(refusals), tuple(changes), LANE)

    changes.extend(_ADDED_CHANGES)
    env: dict[str, str | None] = dict(template_env)
    if not options.confine:
        # Under --confine the sandbox gives copilot a fresh private config home of its own.
        lane_home = options.lane_home or ""  # set: _home_problem said so
        changes.append(
            Change("added", "env COPILOT_HOME", (f"COPILOT_HOME={lane_home}",), _HOME_WHY)
        )
        env["COPILOT_HOME"] = lane_home
    changes.extend(_UNSET_CHANGES)
    env.update(dict.fromkeys(UNSET_ENV))
    return Rewritten(
        LaneInvocation(invocation.command, (*_ADDED_WORDS, *walk.kept), env),
        "copilot --available-tools=view,grep,glob, shell and writes denied, private config home",
        tuple(changes),
        LANE,
    )


def _refuse_extension_bootstrap(
    args: Sequence[str], changes: list[Change], refusals: list[str]
) -> None:
    for word in args:
        if word.replace("\\", "/").rpartition("/")[2] == ANYWHERE_BASENAME:
            changes.append(
                Change("refused", "<argv>", (word,), "runs copilot as an extension child")
            )
            refusals.append(
                f"{word!r}: copilot scans its raw arguments for a file named {ANYWHERE_BASENAME} "
                "and then runs as an extension child instead of the CLI, without these flags; "
                "remove it"
            )


def _home_problem(options: RewriteOptions) -> tuple[str, str] | None:
    """Why the run has no private config home it can use (the refusal line, and what to do),
    or None."""
    if options.lane_home is None:
        return (
            "copilot runs the hooks, MCP servers and plugins of its config home (~/.copilot) "
            "in every headless run and no flag turns them off, so toolgate runs it with a "
            "private COPILOT_HOME; none was made for this run: toolgate dispatch makes one in "
            "the temporary directory (from Python, pass RewriteOptions(lane_home=...))",
            "let toolgate dispatch make the private COPILOT_HOME: give it a TMPDIR it can "
            "write, outside the caller's tree",
        )
    if options.caller_root is not None and not output_file_outside_tree(options.lane_home, options):
        return (
            f"the private COPILOT_HOME {options.lane_home} lies inside the caller's tree, where "
            "copilot would write its state: set TMPDIR to a directory outside the tree",
            "set TMPDIR to a writable directory outside the caller's tree",
        )
    return None


def help_surfaces() -> tuple[HelpSurface, ...]:
    """copilot's help page for `toolgate lanes --check` (`copilot --help`; the probe puts
    `PROBE_ARGS` in front)."""
    from toolgate_cli.lanes.drift import HelpSurface

    relied = frozenset(flag for flag, _, _ in READ_ONLY_FLAGS) | {"--prompt"}
    return (HelpSurface(("--help",), frozenset(FLAGS.names()), relied),)
