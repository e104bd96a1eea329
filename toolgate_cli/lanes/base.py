"""The shapes every lane rewrite shares: the invocation, the result, the changes it reports.

Pure data and small pure helpers; no click, no output, no I/O but path resolution.
"""

from __future__ import annotations

import os

from toolgate_cli.argv import Action, ArgvError, Arity, FlagSpec, Item, ItemKind
from toolgate_cli.records import field, record
from toolgate_cli.verdict import is_within, one_line

# Type-only: importing typing costs the dispatch path ~2 ms at start-up (benchmarks/run.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from typing import Literal

    ChangeAction = Literal["kept", "replaced", "stripped", "added", "refused"]

_PAST_TENSE: dict[Action, ChangeAction] = {
    Action.KEEP: "kept",
    Action.REPLACE: "replaced",
    Action.STRIP: "stripped",
    Action.REFUSE: "refused",
}


@record(frozen=True)
class LaneInvocation:
    """A lane invocation as a template renders it: the command, its arguments, and environment
    overrides (a None value unsets that variable)."""

    command: str
    args: tuple[str, ...]
    env: Mapping[str, str | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Accept any sequence (a list from JSON, say) but store an immutable tuple.
        object.__setattr__(self, "args", tuple(self.args))
        object.__setattr__(self, "env", dict(self.env))


@record(frozen=True)
class Change:
    """One thing the rewrite did, for people and for the JSON output.

    `flag` is the canonical option name (or `<subcommand>`, `<prompt>`, `env NAME`); `words` are
    the exact argv words concerned; `reason` says why in a few words.
    """

    action: ChangeAction
    flag: str
    words: tuple[str, ...]
    reason: str

    def as_json(self) -> dict[str, object]:
        return {
            "action": self.action,
            "flag": self.flag,
            "words": list(self.words),
            "reason": self.reason,
        }


@record(frozen=True)
class Rewritten:
    """The lane runs read-only as `invoke`; `binding` names what enforces it."""

    invoke: LaneInvocation
    binding: str
    changes: tuple[Change, ...]
    lane: str
    ok: Literal[True] = True


@record(frozen=True)
class RewriteRefused:
    """The lane cannot be made read-only; `reason` names what and says what to do instead.

    `changes` holds what the rewrite had decided, including every `refused` entry, so a person
    can see the whole picture (`toolgate explain`).
    """

    reason: str
    changes: tuple[Change, ...]
    lane: str
    ok: Literal[False] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", one_line(self.reason))


RewriteResult = Rewritten | RewriteRefused


@record(frozen=True)
class PassFlag:
    """An option the caller declares safe although toolgate's table does not know it."""

    name: str
    takes_value: bool = False


@record(frozen=True)
class RewriteOptions:
    """What the caller tells the rewrite beyond the invocation itself.

    - `pass_flags`: options the lane's table does not know, declared safe by the caller
      (`--pass-flag`); a name the table already knows is an error, never an override.
    - `pass_config`: codex `-c` keys declared safe (`--pass-config`), same rule.
    - `pass_env`: environment variables the template may set (`--pass-env`).
    - `cwd`, `caller_root`: resolved paths; when both are set, an option that writes a file may
      be kept if that file lies outside the caller root.
    - `read_shell_hook`: for claude, the command line of the PreToolUse hook that checks every
      Bash command (`--read-shell`); None means no shell at all.
    - `lane_version`: the lane version the rewrite is fitted to (`LaneVersions.fit`); None when
      unknown, and then the rewrite adds only what every supported version has.
    - `confine`: `--confine`: the lane runs confined, and the rewrite also removes every tool
      that can send what the lane read anywhere but its model provider (web fetch, web search).
    - `lane_home`: a new, empty directory private to this run, made by the dispatch host for a
      lane whose module names a `PRIVATE_HOME` maker (copilot points `COPILOT_HOME` at it);
      None when none was made.
    """

    pass_flags: tuple[PassFlag, ...] = ()
    pass_config: frozenset[str] = frozenset()
    pass_env: frozenset[str] = frozenset()
    cwd: str | None = None
    caller_root: str | None = None
    read_shell_hook: str | None = None
    lane_version: str | None = None
    confine: bool = False
    lane_home: str | None = None


def pass_flag_specs(
    options: RewriteOptions, known: Iterable[str], lane: str
) -> tuple[FlagSpec, ...]:
    """Table rows for the caller's `--pass-flag` declarations.

    Raises ValueError when a declaration names an option the lane's table already knows: the
    table's verdict on a known option is never overridden from the command line.
    """
    if not options.pass_flags:
        return ()  # the usual case: no set of every known name to build
    known_names = set(known)
    rows = []
    for declared in options.pass_flags:
        if declared.name in known_names:
            raise ValueError(
                f"--pass-flag {declared.name}: toolgate already knows this {lane} option; "
                "--pass-flag only declares options it does not know"
            )
        if not declared.name.startswith("-") or declared.name in ("-", "--"):
            raise ValueError(f"--pass-flag {declared.name}: not an option name")
        if not declared.name.startswith("--") and len(declared.name) != 2:
            # commander and clap both read `-wNAME` as the short flag `-w` given NAME (or as
            # glued short flags): declaring the whole word would let a known option through.
            raise ValueError(
                f"--pass-flag {declared.name}: a short option is one letter (-x); "
                f"{lane} reads {declared.name} as -{declared.name[1]} followed by more"
            )
        arity = Arity.VALUE if declared.takes_value else Arity.FLAG
        rows.append(FlagSpec((declared.name,), arity, Action.KEEP, "declared safe by --pass-flag"))
    return tuple(rows)


REASONS_SHOWN = 5
"""How many refusal lines a joined reason spells out; `changes` still lists every one."""


def joined_refusals(refusals: Sequence[str]) -> str:
    """The reason of a refused rewrite: its refusal lines joined with "; ", each distinct line
    once (with how many times it occurred, when more than once) and at most `REASONS_SHOWN` of
    them, then how many more. Bounded on purpose: a template that repeats a refused flag 100,000
    times must not turn into a reason of megabytes."""
    counts: dict[str, int] = {}
    for line in refusals:
        counts[line] = counts.get(line, 0) + 1
    shown = [
        line if count == 1 else f"{line} ({count:,} times)"
        for line, count in list(counts.items())[:REASONS_SHOWN]
    ]
    hidden = len(counts) - len(shown)
    if hidden:
        shown.append(f"and {hidden:,} more (each is listed in changes)")
    return "; ".join(shown)


def option_change(item: Item, args: Sequence[str], action: Action, reason: str) -> Change:
    """The change entry for one option item of the template."""
    name = item.spec.canonical if item.spec is not None else item.written
    return Change(_PAST_TENSE[action], name, tuple(args[item.start : item.end]), reason)


@record
class Walk:
    """The template's items judged one by one.

    `kept` holds the words that stay, in their order; `removed` the stripped or replaced option
    items (a lane may fold their values into what it adds); `refusals` one line per refused item.
    `ends_open` is the kept option `kept` ends with when that option would read a following
    positional word as its value (the lane must not put one right after these words).
    """

    kept: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)
    removed: list[Item] = field(default_factory=list)
    ends_open: Item | None = None


def is_open(item: Item) -> bool:
    """Whether the lane's parser would read a positional word right after `item` as one more
    value of it: a variadic that read its values from separate words (not `--x=v`, `-xv`), an
    optional that got no value, or a zero-or-more option (`Arity.ANY`) that is either."""
    if item.spec is None:
        return False
    if item.spec.arity is Arity.VARIADIC:
        return item.end - item.start > 1
    if item.spec.arity is Arity.ANY:
        return item.end - item.start > 1 or not item.values
    return item.spec.arity is Arity.OPTIONAL and not item.values


def walk_items(
    items: Sequence[Item], args: Sequence[str], options: RewriteOptions, lane: str
) -> Walk:
    """Judge every option item against its table row; keep positionals and the `--` tail.

    Short flags glued into one word (`-pc`) stay together only if every one of them is kept:
    toolgate does not split a word it would have to rewrite, it refuses it.

    An open option (see `is_open`) was followed in the template by a word starting with `-`
    (or by nothing); when the rewrite removes that word, the positional after it would become
    the open option's value (`--add-dir ../docs --permission-mode plan "review"` would lose
    its prompt to --add-dir). So the options kept since the last positional are moved together
    past those positionals, which keep their order, and put back before the next option, the
    tail, or the end: the lane reads the same options and the same positionals.
    """
    walk = Walk()
    decided: list[tuple[Item, Action, str]] = []
    glued_spans_with_change: set[int] = set()
    for item in items:
        if item.kind is not ItemKind.OPTION or item.spec is None:
            decided.append((item, Action.KEEP, ""))
            continue
        action, reason = item.spec.decide(item.values, options)
        decided.append((item, action, reason))
        if item.glued and action is not Action.KEEP:
            glued_spans_with_change.add(item.start)
    # Glued flags share their word (and, when the last one takes the next word as its value,
    # that word too): a kept group is emitted once, over the widest span of its members.
    group_end: dict[int, int] = {}
    group_last: dict[int, Item] = {}  # the member whose openness is the group's
    for item in items:
        if item.glued:
            group_end[item.start] = max(group_end.get(item.start, item.end), item.end)
            group_last[item.start] = item
    last_emitted_start = -1
    # The options `kept` ends with, from `run_from` on, are moved together past the positionals
    # they would swallow (moving only the last one would leave the one before it open), and
    # `held` until the next option, the tail or the end.
    held: list[str] = []
    run_from: int | None = None
    for item, action, reason in decided:
        if item.kind is ItemKind.POSITIONAL:
            if run_from is not None and walk.ends_open is not None:
                held = walk.kept[run_from:]
                del walk.kept[run_from:]
            run_from = None
        elif item.kind is ItemKind.TAIL:
            walk.kept.extend(held)
            held, run_from, walk.ends_open = [], None, None
        if item.kind is not ItemKind.OPTION:
            walk.kept.extend(args[item.start : item.end])
            continue
        if item.start in glued_spans_with_change:
            if action is not Action.KEEP:
                walk.changes.append(
                    option_change(item, args, Action.REFUSE, "glued to other flags")
                )
                walk.refusals.append(
                    f"{item.written} is glued to other short flags in {args[item.start]!r}; "
                    "write it as a separate word"
                )
            continue
        walk.changes.append(option_change(item, args, action, reason))
        if action is Action.KEEP:
            if item.start != last_emitted_start:
                if run_from is None:
                    run_from = len(walk.kept)
                walk.kept.extend(held)
                held = []
                last = group_last.get(item.start, item)
                walk.ends_open = last if is_open(last) else None
                walk.kept.extend(args[item.start : group_end.get(item.start, item.end)])
                last_emitted_start = item.start
        elif action is Action.REFUSE:
            walk.refusals.append(
                f"{shown_option(item, args)} ({reason}) cannot be part of a read-only {lane} "
                "run: drop it from the lane command"
            )
        else:
            walk.removed.append(item)
    walk.kept.extend(held)
    if run_from is None and not held:
        walk.ends_open = None
    return walk


def shown_option(item: Item, args: Sequence[str], limit: int = 60) -> str:
    """The option as the template wrote it, shortened for a one-line message."""
    text = " ".join(args[item.start : item.end])
    return text if len(text) <= limit else text[: limit - 3] + "..."


def argv_refusal(error: ArgvError, lane: str) -> str:
    """A refusal line for an argument the lane's grammar could not place."""
    if error.message.startswith("unknown option"):
        return (
            f"{error.message}: toolgate does not know what it does to {lane}, so it cannot "
            f"claim read-only; drop it, or declare it safe with --pass-flag {error.word} "
            f"(--pass-flag {error.word}=1 if it takes a value)"
        )
    return f"{lane} arguments: {error.message}"


def first_operand(items: Sequence[Item], args: Sequence[str]) -> str | None:
    """The first positional word as the lane's parser sees it: before `--`, else just after."""
    for item in items:
        if item.kind is ItemKind.POSITIONAL:
            return args[item.start]
        if item.kind is ItemKind.TAIL:
            return args[item.start + 1] if item.start + 1 < item.end else None
    return None


def output_file_outside_tree(path: str, options: RewriteOptions) -> bool:
    """Whether a file the lane would write at `path` (relative to the cwd) resolves outside the
    caller root. False when the rewrite was not told the cwd and caller root: unknown never
    claims. Symlinks in the existing part of the path are followed, as the write would."""
    if options.cwd is None or options.caller_root is None or not path:
        return False
    target = os.path.realpath(os.path.join(options.cwd, path))
    return not is_within(target, os.path.realpath(options.caller_root))


# Environment a template may set. Exact names, or prefixes ending in `*`; first match wins.
# Every lane shares these; a lane adds its own rows in front.
COMMON_ENV_RULES: tuple[tuple[str, Action, str], ...] = (
    ("LD_*", Action.REFUSE, "loads code into the lane"),
    ("DYLD_*", Action.REFUSE, "loads code into the lane"),
    ("NODE_OPTIONS", Action.REFUSE, "can --require code into node"),
    ("NODE_PATH", Action.REFUSE, "changes which code node loads"),
    ("BASH_ENV", Action.REFUSE, "runs a script in every bash"),
    ("ENV", Action.REFUSE, "runs a script in every sh"),
    ("PATH", Action.REFUSE, "changes which programs run"),
    ("HOME", Action.REFUSE, "moves the lane's user config"),
    ("XDG_CONFIG_HOME", Action.REFUSE, "moves the lane's user config"),
    ("HTTP_PROXY", Action.KEEP, "network routing only"),
    ("HTTPS_PROXY", Action.KEEP, "network routing only"),
    ("NO_PROXY", Action.KEEP, "network routing only"),
    ("http_proxy", Action.KEEP, "network routing only"),
    ("https_proxy", Action.KEEP, "network routing only"),
    ("no_proxy", Action.KEEP, "network routing only"),
    ("TERM", Action.KEEP, "terminal type"),
    ("COLUMNS", Action.KEEP, "terminal size"),
    ("LINES", Action.KEEP, "terminal size"),
    ("NO_COLOR", Action.KEEP, "output colour"),
    ("FORCE_COLOR", Action.KEEP, "output colour"),
    ("LANG", Action.KEEP, "locale"),
    ("LC_*", Action.KEEP, "locale"),
    ("TZ", Action.KEEP, "time zone"),
)


def env_changes(
    env: Mapping[str, str | None],
    lane_rules: Sequence[tuple[str, Action, str]],
    options: RewriteOptions,
    lane: str,
) -> tuple[list[Change], list[str]]:
    """Judge each environment override of the template.

    Unsetting (None) is always kept: it can only take configuration away. A name no rule knows
    is refused unless the caller declared it with --pass-env. Returns the changes and the
    refusal lines.
    """
    changes: list[Change] = []
    refusals: list[str] = []
    rules = (*lane_rules, *COMMON_ENV_RULES)
    for name, value in env.items():
        words = (f"{name}={value}",) if value is not None else (name,)
        if value is None:
            changes.append(Change("kept", f"env {name}", words, "unsets it"))
            continue
        action, reason = Action.REFUSE, ""
        for pattern, rule_action, rule_reason in rules:
            if pattern == name or (pattern.endswith("*") and name.startswith(pattern[:-1])):
                action, reason = rule_action, rule_reason
                break
        else:
            if name in options.pass_env:
                action, reason = Action.KEEP, "declared safe by --pass-env"
            else:
                reason = "unknown variable"
        if action is Action.REFUSE:
            changes.append(Change("refused", f"env {name}", words, reason))
            hint = "" if reason != "unknown variable" else f"; declare it with --pass-env {name}"
            refusals.append(
                f"environment variable {name} ({reason}) is not allowed for {lane}{hint}"
            )
        else:
            changes.append(Change("kept", f"env {name}", words, reason))
    return changes, refusals


@record(frozen=True)
class StateDir:
    """A directory a lane keeps its own state in, as `--confine` gives it to the lane: fresh,
    empty, private and writable at the path the lane looks for it, and discarded afterwards.
    Nothing of the real directory shows but `keep` (its credentials), read-only.

    Why not the real one: it holds the transcripts and prompt history of every other session
    (claude's `projects/`, codex's `sessions/`), which are other trees' contents."""

    where: tuple[str, ...]
    """Where it is, the first that applies: `$VAR` or `$VAR/sub` (when VAR is set and not
    empty in the environment the lane gets) or `~/path` (under HOME)."""
    keep: tuple[str, ...] = ()
    """Names inside the real directory shown read-only in the private one, where they exist."""


@record(frozen=True)
class ConfineNeeds:
    """What a lane needs under `--confine` beyond the caller root, the system (toolgate_cli/
    sandbox/confine.py) and its own binary: a module's `CONFINE` attribute. A lane without one
    (any lane run under the lock alone) gets `ConfineNeeds()`: an empty private HOME and temp,
    the common environment only."""

    env: tuple[str, ...] = ()
    """Environment variables kept from the caller's environment: names, or `PREFIX*`."""
    state: tuple[StateDir, ...] = ()
    system: tuple[str, ...] = ()
    """Absolute paths outside any home the lane reads when they exist (its system-wide,
    administrator-owned configuration), shown read-only."""
    path_env: tuple[str, ...] = ()
    """Kept variables whose value names a file, directory or socket the lane reads (a CA
    bundle, a token file): that path is shown read-only."""
