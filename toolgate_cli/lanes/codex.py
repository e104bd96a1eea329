"""codex (OpenAI Codex CLI): read-only through its own sandbox, `--sandbox read-only`.

Only lane runs are allowed: `codex exec` (alias `e`) and `codex exec review`; `codex review` is
rewritten to `codex exec review` (same options), because only `exec` can ignore the user's
config and rules. The rewrite removes every option that chooses or lifts a sandbox or an
approval path (`-s/--sandbox`, `--dangerously-bypass-approvals-and-sandbox` and its alias
`--yolo`, `--full-auto`, `--approve-for-me`, `-a`, `-c sandbox_*` / `approval_policy` /
`approvals_reviewer` overrides) wherever it stands, before or after the subcommand, and puts
right after `exec`, once each:

- `--sandbox read-only`: codex's own sandbox; measured, it beats `-c sandbox_mode=...` and a
  top-level `-s`, but NOT a bypass flag anywhere, which is why those must go;
- `--ignore-user-config`: measured, `$CODEX_HOME/config.toml` (and profiles, and project trust)
  can start MCP servers whose tools write, persist hook trust, or turn on an auto-approval
  reviewer that runs escalated commands outside the sandbox;
- `--ignore-rules`: measured, an execpolicy `allow` rule runs its command outside the sandbox;
- `--disable hooks`: codex hooks run outside the sandbox; measured, no later toggle undoes it;
- `--disable shell_snapshot`: measured, the snapshot runs the user's login shell and its
  start-up files (`~/.bashrc`, `~/.bash_profile`) outside the sandbox, and they wrote the tree;
  without it they run only in each command's login shell, inside the sandbox;
- `-c approval_policy="never"`: escalation requests are rejected, never reviewed.

Versions: `VERSIONS` says which codex versions this table supports and which are proven end
to end (tests/e2e).
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
    shown_option,
    walk_items,
)
from toolgate_cli.lanes.versions import LaneVersions, normal_version

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolgate_cli.lanes.drift import HelpSurface

LANE = KIND = "codex"
MECHANISM = (
    "--sandbox read-only (codex's own sandbox), --ignore-user-config, --ignore-rules, "
    '--disable hooks, --disable shell_snapshot, -c approval_policy="never"; exec and exec '
    'review only (review runs as exec review); under --confine also -c web_search="disabled"'
)
RUN_HINT = "codex exec PROMPT, codex exec review or codex review"
VERSIONS = LaneVersions(oldest_supported="0.171.0", proven=("0.171.0",))
VERSIONS_PROVEN = VERSIONS.proven


def version_of(output: str) -> str | None:
    """The version `codex --version` prints (`codex-cli 0.171.0`), or None."""
    words = output.split()
    return normal_version(words[1]) if len(words) >= 2 and words[0] == "codex-cli" else None


F, V, M = Arity.FLAG, Arity.VALUE, Arity.VARIADIC
KEEP, REPLACE, STRIP, REFUSE = Action.KEEP, Action.REPLACE, Action.STRIP, Action.REFUSE

# `-c key=value` overrides, judged by key. An exact key, or `key.*` for the key and everything
# under it. First match wins; a key no row knows is refused (declare it with --pass-config).
CONFIG_KEYS: tuple[tuple[str, Action, str], ...] = (
    ("sandbox_mode", STRIP, "toolgate sets the sandbox"),
    ("sandbox_permissions", STRIP, "widens the sandbox"),
    ("sandbox_workspace_write.*", STRIP, "widens the sandbox"),
    ("default_permissions", STRIP, "chooses a sandbox profile"),
    ("permissions.*", STRIP, "defines sandbox profiles"),
    ("approval_policy", REPLACE, "toolgate sets never"),
    ("approvals_reviewer", STRIP, "an auto-reviewer can run commands outside the sandbox"),
    ("projects.*", REFUSE, "project trust loads the project's config"),
    ("notify", REFUSE, "runs a program outside the sandbox"),
    ("mcp_servers.*", REFUSE, "MCP servers run outside the sandbox"),
    ("hooks.*", REFUSE, "hooks run programs"),
    ("profile", REFUSE, "a profile can set sandbox, MCP servers, notify"),
    ("profiles.*", REFUSE, "a profile can set sandbox, MCP servers, notify"),
    ("features.*", REFUSE, "feature toggles change tools, unverified"),
    ("shell_environment_policy.*", REFUSE, "its PATH picks the bwrap that builds the sandbox"),
    ("model", KEEP, "model choice"),
    ("review_model", KEEP, "model choice"),
    ("model_provider", KEEP, "model endpoint"),
    ("model_providers.*", KEEP, "model endpoint definitions"),  # judged further: no `auth`
    ("model_reasoning_effort", KEEP, "model setting"),
    ("model_reasoning_summary", KEEP, "model setting"),
    ("model_verbosity", KEEP, "model setting"),
    ("model_context_window", KEEP, "model setting"),
    ("model_auto_compact_token_limit", KEEP, "model setting"),
    ("model_supports_reasoning_summaries", KEEP, "model setting"),
    ("hide_agent_reasoning", KEEP, "output detail"),
    ("show_raw_agent_reasoning", KEEP, "output detail"),
    ("disable_response_storage", KEEP, "server-side storage"),
    ("request_max_retries", KEEP, "network retries"),
    ("stream_max_retries", KEEP, "network retries"),
    ("stream_idle_timeout_ms", KEEP, "network timeout"),
    ("project_doc_max_bytes", KEEP, "how much AGENTS.md is read"),
    ("project_doc_fallback_filenames", KEEP, "which docs are read"),
    ("web_search", KEEP, "network reads"),
    ("tools.web_search", KEEP, "network reads"),
    ("tools.view_image", KEEP, "reads images"),
    ("instructions", KEEP, "prompt text"),
    ("developer_instructions", KEEP, "prompt text"),
    ("model_instructions_file", KEEP, "reads a prompt file"),
    ("tui.*", KEEP, "terminal display"),
)


def _config_rule(key: str) -> tuple[Action, str] | None:
    for pattern, action, reason in CONFIG_KEYS:
        stem = pattern.removesuffix(".*")
        if key == stem or (pattern.endswith(".*") and key.startswith(stem + ".")):
            return action, reason
    return None


def config_key(value: str) -> str | None:
    """The dotted key of a `-c key=value` override, as codex reads it (split at the first `=`,
    whitespace trimmed), or None when there is no `=`."""
    key, has_equals, _ = value.partition("=")
    return key.strip() if has_equals else None


# Fields of a model provider definition that only describe an endpoint. `auth` is not among
# them: measured, `auth = {command = ...}` runs that command outside the sandbox for a token.
PROVIDER_FIELDS: frozenset[str] = frozenset(
    {
        "name",
        "base_url",
        "env_key",
        "env_key_instructions",
        "experimental_bearer_token",
        "wire_api",
        "query_params",
        "http_headers",
        "env_http_headers",
        "request_max_retries",
        "stream_max_retries",
        "stream_idle_timeout_ms",
        "requires_openai_auth",
        "supports_websockets",
    }
)


def _provider_problem(key: str, raw_value: str) -> str | None:
    """Why a `model_providers...` override is not a plain endpoint definition, or None.

    The value is read as TOML, as codex reads it; what is not a table of known endpoint fields
    (or, for a dotted key, a known field) is refused.
    """
    import tomllib

    path = key.split(".")[1:]
    if len(path) >= 2:
        field = path[1]
        return None if field in PROVIDER_FIELDS else f"provider field {field!r}"
    try:
        value = tomllib.loads(f"v = {raw_value}")["v"]
    except tomllib.TOMLDecodeError:
        return "not a TOML table"
    providers = {path[0]: value} if path else value
    if not isinstance(providers, dict):
        return "not a TOML table"
    for provider in providers.values():
        if not isinstance(provider, dict):
            return "not a TOML table"
        unknown = sorted(set(provider) - PROVIDER_FIELDS)
        if unknown:
            return f"provider field {unknown[0]!r}"
    return None


WEB_SEARCH_KEYS = ("web_search", "tools.web_search")
"""The config keys that turn codex's web search on: replaced under --confine."""


def _config(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
    key = config_key(values[0]) if values else None
    if not key:
        return REFUSE, "not a key=value override"
    if options.confine and any(key == k or key.startswith(k + ".") for k in WEB_SEARCH_KEYS):
        return REPLACE, "toolgate turns web search off under --confine"
    rule = _config_rule(key)
    if rule is not None and key.split(".")[0] == "model_providers":
        problem = _provider_problem(key, values[0].partition("=")[2].strip())
        if problem is not None:
            return REFUSE, f"{problem} is not a plain endpoint (auth commands run unsandboxed)"
    if rule is not None:
        return rule
    if any(key == d or key.startswith(d + ".") for d in options.pass_config):
        return KEEP, "declared safe by --pass-config"
    return REFUSE, f"unknown config key {key}; declare it safe with --pass-config {key}"


def _disable(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
    if len(values) == 1 and values[0] in _FEATURES_TOOLGATE_DISABLES:
        return REPLACE, f"toolgate disables {values[0]}"
    return REFUSE, "turns off a feature, unverified"


def _output_file(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
    if values and output_file_outside_tree(values[0], options):
        return KEEP, "writes its file outside the caller's tree"
    return (
        REFUSE,
        "codex writes this file even under --sandbox read-only; point it outside the tree",
    )


def _search(values: tuple[str, ...], options: RewriteOptions) -> tuple[Action, str]:
    if options.confine:
        return REPLACE, "toolgate turns web search off under --confine"
    return KEEP, "web search reads the network"


_SHARED: tuple[FlagSpec, ...] = (
    FlagSpec(("--config", "-c"), V, KEEP, "", judge=_config),
    FlagSpec(("--sandbox", "-s"), V, REPLACE, "toolgate sets read-only"),
    FlagSpec(
        ("--dangerously-bypass-approvals-and-sandbox", "--yolo"), F, STRIP, "turns the sandbox off"
    ),
    FlagSpec(("--full-auto",), F, STRIP, "workspace-write sandbox"),
    FlagSpec(("--approve-for-me",), F, STRIP, "workspace-write auto-approval"),
    FlagSpec(("--dangerously-bypass-hook-trust",), F, STRIP, "would run untrusted hooks"),
    FlagSpec(("--enable",), V, REFUSE, "turns on a feature, unverified"),
    FlagSpec(("--disable",), V, REFUSE, "", judge=_disable),
    FlagSpec(("--profile", "-p"), V, REFUSE, "a profile can set sandbox, MCP servers, notify"),
    FlagSpec(("--remote",), V, REFUSE, "runs on a remote app server"),
    FlagSpec(
        ("--cd", "-C"), V, REFUSE, "moves the working root past toolgate's cwd check; use --cwd"
    ),
    FlagSpec(("--worktree",), F, REFUSE, "creates a git worktree"),
    FlagSpec(("--add-dir",), V, REFUSE, "makes another directory writable"),
    FlagSpec(("--remote-auth-token-env",), V, KEEP, "names a token variable"),
    FlagSpec(("--strict-config",), F, KEEP, "stricter config parsing"),
    FlagSpec(("--image", "-i"), M, KEEP, "attaches images"),
    FlagSpec(("--model", "-m"), V, KEEP, "model choice"),
    FlagSpec(("--oss",), F, KEEP, "local model provider"),
    FlagSpec(("--local-provider",), V, KEEP, "local model provider"),
    FlagSpec(("--help", "-h"), F, KEEP, "prints help"),
    FlagSpec(("--version", "-V"), F, KEEP, "prints the version"),
)

TOP_FLAGS = FlagTable(
    (
        *_SHARED,
        FlagSpec(("--ask-for-approval", "-a"), V, STRIP, "exec keeps its own policy, never"),
        FlagSpec(("--search",), F, KEEP, "web search reads the network", judge=_search),
        FlagSpec(("--no-alt-screen",), F, KEEP, "terminal display"),
        FlagSpec(("--no-daemon",), F, KEEP, "no shared background server"),
    )
)

EXEC_FLAGS = FlagTable(
    (
        *_SHARED,
        FlagSpec(("--trust",), F, REFUSE, "persists trust; lets MCP commands leave the sandbox"),
        FlagSpec(("--output-last-message", "-o"), V, REFUSE, "", judge=_output_file),
        FlagSpec(("--thread-source",), V, KEEP, "a label"),
        FlagSpec(("--cyber-access-program",), V, KEEP, "server-side program"),
        FlagSpec(("--skip-git-repo-check",), F, KEEP, "runs outside a git repository"),
        FlagSpec(("--ephemeral",), F, KEEP, "writes less"),
        FlagSpec(("--ignore-user-config",), F, REPLACE, "toolgate sets it"),
        FlagSpec(("--ignore-rules",), F, REPLACE, "toolgate sets it"),
        FlagSpec(("--output-schema",), V, KEEP, "reads a schema file"),
        FlagSpec(("--color",), V, KEEP, "output colour"),
        FlagSpec(("--json",), F, KEEP, "output format"),
    )
)

_REVIEW_OWN: tuple[FlagSpec, ...] = (
    FlagSpec(("--uncommitted",), F, KEEP, "what to review"),
    FlagSpec(("--base",), V, KEEP, "what to review"),
    FlagSpec(("--commit",), V, KEEP, "what to review"),
    FlagSpec(("--title",), V, KEEP, "a label"),
)

REVIEW_FLAGS = FlagTable(
    (
        FlagSpec(("--config", "-c"), V, KEEP, "", judge=_config),
        FlagSpec(("--strict-config",), F, KEEP, "stricter config parsing"),
        FlagSpec(("--enable",), V, REFUSE, "turns on a feature, unverified"),
        FlagSpec(("--disable",), V, REFUSE, "", judge=_disable),
        FlagSpec(("--trust",), F, REFUSE, "persists trust; lets MCP commands leave the sandbox"),
        *_REVIEW_OWN,
        FlagSpec(("--help", "-h"), F, KEEP, "prints help"),
    )
)
"""`codex review` (0.171.0 --help)."""

_EXEC_REVIEW_FROM_EXEC = frozenset(
    {
        "--config",
        "--enable",
        "--disable",
        "--remote",
        "--remote-auth-token-env",
        "--strict-config",
        "--model",
        "--dangerously-bypass-approvals-and-sandbox",
        "--dangerously-bypass-hook-trust",
        "--worktree",
        "--thread-source",
        "--cyber-access-program",
        "--skip-git-repo-check",
        "--trust",
        "--ephemeral",
        "--ignore-user-config",
        "--ignore-rules",
        "--output-schema",
        "--json",
        "--output-last-message",
        "--help",
    }
)

EXEC_REVIEW_FLAGS = FlagTable(
    (
        *(spec for spec in EXEC_FLAGS.specs if spec.canonical in _EXEC_REVIEW_FROM_EXEC),
        *_REVIEW_OWN,
    )
)
"""`codex exec review` (0.171.0 --help): review's own options plus these of exec's."""

# Top-level subcommands (0.171.0 --help) that are not a lane run, with why.
NOT_A_RUN: dict[str, str] = {
    "agents": "interactive session browser",
    "login": "writes credentials",
    "logout": "removes credentials",
    "mcp": "configures MCP servers",
    "plugin": "manages plugins",
    "app-server": "runs a server",
    "remote-control": "runs a remote-control daemon",
    "completion": "prints completions, not a lane run",
    "update": "updates codex",
    "doctor": "diagnostics, not a lane run",
    "sandbox": "runs any command it is given",
    "debug": "debugging tools",
    "apply": "applies a diff to the working tree",
    "a": "applies a diff to the working tree",
    "resume": "resumes an interactive session",
    "queue": "queues a message for a session",
    "archive": "changes stored sessions",
    "delete": "deletes a stored session",
    "migrate-rollouts": "migrates stored sessions",
    "migrate-nfs-db": "migrates databases in place",
    "unarchive": "changes stored sessions",
    "fork": "forks an interactive session",
    "cloud": "applies cloud task changes locally",
    "exec-server": "runs a server",
    "features": "inspects feature flags, not a lane run",
    "help": "prints help, not a lane run",
}
RUNS = ("exec", "e", "review")
EXEC_NOT_A_RUN: dict[str, str] = {
    "resume": "resumes a stored session whose settings toolgate cannot see",
    "fork": "forks a stored session whose settings toolgate cannot see",
    "help": "prints help, not a lane run",
}
EXEC_SUBCOMMANDS = ("review", *EXEC_NOT_A_RUN)
"""Every word `codex exec` reads as a subcommand where a prompt could stand (0.171.0: its
--help, clap's own `help`; no aliases, none hidden: measured, see EXEC_INFERS_PREFIXES)."""

EXEC_INFERS_PREFIXES = False
"""Whether `codex exec` runs a subcommand from a unique prefix of its name (clap's
`infer_subcommands`). Measured off with 0.171.0: `rev`, `revi`, `res`, `fo`, `hel` and `r`
reach the model as the prompt, and so do 40 other words (the top-level subcommands, `e`, `a`,
`h`, ...), while `review`, `resume`, `fork`, `help` run the subcommand; after `--` every word is
a prompt, those four included (tests/e2e/test_codex_prompts.py pins both)."""


def exec_subcommand_named_by(word: str) -> str | None:
    """The `codex exec` subcommand a positional `word` before `--` would run instead of being
    the prompt, or None. With prefix inference, any prefix of a subcommand counts (a unique one
    runs it, an ambiguous one is an error: either way the word is not a prompt)."""
    if word in EXEC_SUBCOMMANDS:
        return word
    if EXEC_INFERS_PREFIXES and word:
        return next((name for name in EXEC_SUBCOMMANDS if name.startswith(word)), None)
    return None


ENV_RULES: tuple[tuple[str, Action, str], ...] = (
    ("CODEX_HOME", REFUSE, "moves the config codex loads"),
    ("OPENAI_*", KEEP, "API endpoint or key"),
    ("AZURE_OPENAI_API_KEY", KEEP, "API key"),
    ("RUST_LOG", KEEP, "log level"),
    ("RUST_BACKTRACE", KEEP, "diagnostics"),
)

CONFINE = ConfineNeeds(
    env=(
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "OPENAI_ORGANIZATION",
        "OPENAI_PROJECT",
        "AZURE_OPENAI_API_KEY",
        "CODEX_API_KEY",
        "CODEX_ACCESS_TOKEN",
        "CODEX_HOME",
        "CODEX_SQLITE_HOME",
        "CODEX_CA_CERTIFICATE",
        "RUST_LOG",
    ),
    state=(
        StateDir(("$CODEX_HOME", "~/.codex"), keep=("auth.json",)),
        StateDir(("$CODEX_SQLITE_HOME",)),
    ),
    system=("/etc/codex",),  # the administrator's requirements.toml and managed config
    path_env=("CODEX_CA_CERTIFICATE",),
)
"""What codex needs under --confine (measured with 0.171.0, strace of a run against the stub):
its key and config-dir variables; CODEX_HOME (sessions of every project, history, logs, its
state database, the helper binaries it links at start) private and fresh with only `auth.json`
from the real one; its own bubblewrap sandbox nests inside (as for the lock). A provider the
template defines with `-c model_providers.NAME={env_key="VAR"}` reads VAR: declare it with
--pass-env VAR."""

READ_ONLY_FLAGS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("--sandbox", ("--sandbox", "read-only"), "codex's own sandbox: commands cannot write"),
    (
        "--ignore-user-config",
        ("--ignore-user-config",),
        "config.toml can add MCP servers, hooks and auto-approval that leave the sandbox",
    ),
    ("--ignore-rules", ("--ignore-rules",), "an execpolicy allow rule runs outside the sandbox"),
    ("--disable", ("--disable", "hooks"), "hooks run outside the sandbox"),
    (
        "--disable",
        ("--disable", "shell_snapshot"),
        "the shell snapshot runs your shell start-up files outside the sandbox",
    ),
    (
        "--config",
        ("-c", 'approval_policy="never"'),
        "escalation requests are rejected, never reviewed",
    ),
)
"""What toolgate puts right after `exec`, in this order (clap: one `-s` per subcommand)."""

_FEATURES_TOOLGATE_DISABLES = frozenset(
    words[1] for flag, words, _ in READ_ONLY_FLAGS if flag == "--disable"
)
"""The template's own `--disable X` for these is replaced: toolgate puts exactly one of each."""

CONFINE_FLAGS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "--config",
        ("-c", 'web_search="disabled"'),
        "no web search under --confine: its queries would carry what codex read elsewhere",
    ),
)
"""What toolgate adds after `READ_ONLY_FLAGS` under --confine. Measured with 0.171.0: by
default codex offers the model the provider's hosted `web_search` tool (`external_web_access:
false`, cached results); with `web_search="disabled"` the request carries no web tool at all.
Its shell has no network in its read-only sandbox (measured: curl to loopback fails)."""

_ADDED_WORDS = tuple(word for _, words, _ in READ_ONLY_FLAGS for word in words)
_ADDED_CHANGES = tuple(Change("added", flag, words, why) for flag, words, why in READ_ONLY_FLAGS)
_CONFINE_WORDS = tuple(word for _, words, _ in CONFINE_FLAGS for word in words)
_CONFINE_CHANGES = tuple(Change("added", flag, words, why) for flag, words, why in CONFINE_FLAGS)


_KNOWN_OPTION_NAMES = frozenset(
    {*TOP_FLAGS.names(), *EXEC_FLAGS.names(), *EXEC_REVIEW_FLAGS.names()}
)


def _validate_pass_config(options: RewriteOptions) -> None:
    for declared in options.pass_config:
        rule = _config_rule(declared)
        if rule is not None:
            raise ValueError(
                f"--pass-config {declared}: toolgate already knows this codex config key "
                f"({rule[0].value}: {rule[1]}); --pass-config only declares keys it does not know"
            )


def rewrite(invocation: LaneInvocation, options: RewriteOptions) -> RewriteResult:
    """Rewrite a codex invocation to run read-only, or refuse and say why."""
    args = invocation.args
    try:
        _validate_pass_config(options)
        extra = pass_flag_specs(options, _KNOWN_OPTION_NAMES, LANE)
        top_items, at = tokenize(
            args, TOP_FLAGS.with_extra(extra), Dialect.CLAP, stop_at_positional=lambda _: True
        )
    except ArgvError as error:
        return RewriteRefused(argv_refusal(error, LANE), (), LANE)
    except ValueError as error:
        return RewriteRefused(str(error), (), LANE)

    top = walk_items(top_items, args, options, LANE)
    subcommand = args[at] if at < len(args) else None
    if subcommand is None or subcommand not in RUNS:
        operand = first_operand(top_items, args)
        return _refuse_subcommand(top, subcommand, operand, invocation, options)

    review_only = subcommand == "review"
    review_items: list[Item] = []
    try:
        if review_only:
            sub_items, nested_at = tokenize(
                args, REVIEW_FLAGS.with_extra(extra), Dialect.CLAP, start=at + 1
            )
        else:
            sub_items, nested_at = tokenize(
                args,
                EXEC_FLAGS.with_extra(extra),
                Dialect.CLAP,
                start=at + 1,
                stop_at_positional=lambda word: exec_subcommand_named_by(word) is not None,
            )
            if nested_at < len(args) and args[nested_at] == "review":
                review_items, _ = tokenize(
                    args, EXEC_REVIEW_FLAGS.with_extra(extra), Dialect.CLAP, start=nested_at + 1
                )
    except ArgvError as error:
        return RewriteRefused(argv_refusal(error, LANE), tuple(top.changes), LANE)

    sub = walk_items(sub_items, args, options, LANE)
    review = walk_items(review_items, args, options, LANE)
    changes = list(top.changes)
    if review_only:
        changes.append(
            Change(
                "replaced",
                "<subcommand>",
                ("review",),
                "runs as exec review: only exec can ignore the user's config and rules",
            )
        )
    else:
        changes.append(Change("kept", "<subcommand>", (subcommand,), "a lane run"))
    changes.extend(sub.changes)
    refusals = [*top.refusals, *sub.refusals, *review.refusals]

    # the word the exec tokenizer stopped at: a subcommand of exec (exec_subcommand_named_by)
    nested_word = args[nested_at] if nested_at < len(args) else None
    nested = None if nested_word is None else exec_subcommand_named_by(nested_word)
    # A subcommand word right after an open option would become its value: the option cannot
    # move past the word (it belongs to the level before it), so the run is refused.
    for level, word in ((top, "exec" if review_only else subcommand), (sub, nested_word)):
        if level.ends_open is not None and word is not None:
            shown = shown_option(level.ends_open, args)
            refusals.append(
                f"{shown} would read {word!r} as one of its values once the flags after it "
                "are removed; write it before a flag that stays, or drop it"
            )
    # A word that names no exec subcommand of this version is the prompt, one word or many
    # (`codex exec summarize`, `codex exec -- go`): the tokenizer stops only at the others.
    if nested_word is not None and nested_word != "review":
        reason = EXEC_NOT_A_RUN.get(nested_word) or f"runs codex exec {nested}; spell it out"
        changes.append(Change("refused", "<subcommand>", (nested_word,), reason))
        refusals.append(f"codex {subcommand} {nested_word} ({reason}) is not a lane run")
    elif nested_word == "review":
        changes.append(Change("kept", "<subcommand>", (nested_word,), "a lane run"))
        changes.extend(review.changes)

    env_found, env_refusals = env_changes(invocation.env, ENV_RULES, options, LANE)
    changes.extend(env_found)
    refusals.extend(env_refusals)
    if refusals:
        return RewriteRefused(joined_refusals(refusals), tuple(changes), LANE)

    changes.extend(_ADDED_CHANGES)
    added = _ADDED_WORDS
    if options.confine:
        changes.extend(_CONFINE_CHANGES)
        added = (*_ADDED_WORDS, *_CONFINE_WORDS)
    if review_only:
        new_args = (*top.kept, "exec", *added, "review", *sub.kept)
    else:
        new_args = (*top.kept, subcommand, *added, *sub.kept)
        if nested_word == "review":
            new_args = (*new_args, "review", *review.kept)
    return Rewritten(
        LaneInvocation(invocation.command, new_args, invocation.env),
        "codex --sandbox read-only (codex's own sandbox), user config, rules, hooks and shell "
        "snapshot off",
        tuple(changes),
        LANE,
    )


def _refuse_subcommand(
    top: Walk,
    subcommand: str | None,
    operand: str | None,
    invocation: LaneInvocation,
    options: RewriteOptions,
) -> RewriteRefused:
    changes = list(top.changes)
    refusals = list(top.refusals)
    if subcommand is None and operand is None:
        reason = "starts the interactive TUI; use `codex exec PROMPT`"
        changes.append(Change("refused", "<subcommand>", (), reason))
        refusals.append(f"codex with no subcommand {reason}")
    elif subcommand is not None and subcommand in NOT_A_RUN:
        reason = NOT_A_RUN[subcommand]
        changes.append(Change("refused", "<subcommand>", (subcommand,), reason))
        refusals.append(
            f"codex {subcommand} ({reason}) is not a lane run; read-only allows "
            "codex exec, codex exec review and codex review (run as exec review)"
        )
    else:
        word = subcommand if subcommand is not None else operand
        reason = "a prompt without a subcommand starts the interactive TUI"
        changes.append(Change("refused", "<subcommand>", (word or "",), reason))
        refusals.append(
            f"codex {word!r}: {reason}, or names a subcommand toolgate does not know; "
            "use `codex exec PROMPT`"
        )
    env_found, env_refusals = env_changes(invocation.env, ENV_RULES, options, LANE)
    changes.extend(env_found)
    refusals.extend(env_refusals)
    return RewriteRefused(joined_refusals(refusals), tuple(changes), LANE)


def help_surfaces() -> tuple[HelpSurface, ...]:
    """codex's help pages for `toolgate lanes --check`: the top level, `exec` and
    `exec review` (what toolgate rewrites `review` into)."""
    from toolgate_cli.lanes.drift import HelpSurface

    added = frozenset(flag for flag, _, _ in READ_ONLY_FLAGS)
    return (
        HelpSurface(("--help",), frozenset(TOP_FLAGS.names())),
        HelpSurface(("exec", "--help"), frozenset(EXEC_FLAGS.names()), added),
        HelpSurface(("exec", "review", "--help"), frozenset(EXEC_REVIEW_FLAGS.names())),
    )
