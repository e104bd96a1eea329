"""What `toolgate explain` tells a person about one dispatch decision, as plain data.

Pure code (no click, no rich, no I/O but path resolution). It reads the very `DispatchDecision`
that `toolgate dispatch` prints and adds only what a person needs around it: the verdict on the
working directory in words, what to do instead of a refusal, and the final command line quoted
for pasting. Strings here are raw: the renderer passes every one of them through `display`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from toolgate_cli.decision import CONFINE, TREE_LOCK, DispatchDecision, DispatchRequest
from toolgate_cli.display import ShellLine, shell_join, shell_words
from toolgate_cli.lanes import LANES
from toolgate_cli.lanes.base import Change
from toolgate_cli.sandbox.plan import prefix_units
from toolgate_cli.verdict import ReadOnlyRequest, Refused, read_only_verdict

Outcome = Literal["read-only", "refused", "pass-through", "answer"]


@dataclass(frozen=True)
class Explanation:
    """The decision as `toolgate explain` shows it.

    - `outcome`: read-only (the lane runs, bound), refused, pass-through (no --read-only: nothing
      is enforced) or answer (answer mode: nothing is spawned).
    - `headline`: one short sentence saying that outcome for this lane.
    - `verdict`: why the working directory may or may not be used.
    - `verdict_refused`: the refusal is the verdict's (then `verdict` is the refusal line).
    - `advice`: for a refusal, what to do instead, one entry per thing to change.
    - `command_line`: what runs, quoted for pasting; None when nothing runs.
    - `line_starts`: where a wrapped command line starts a new line (see `ShellLine.wrapped`).
    - `lane_version`: the lane version the rewrite is fitted to and whether it is proven, in
      words; None when no rewrite depends on a version (no --read-only, answer mode, a lane
      under the lock alone or one toolgate refuses).
    """

    decision: DispatchDecision
    outcome: Outcome
    headline: str
    verdict: str
    verdict_refused: bool
    advice: tuple[str, ...]
    command_line: ShellLine | None
    line_starts: frozenset[int]
    lane_version: str | None = None


def version_text(decision: DispatchDecision) -> str | None:
    """What `explain` says of the lane version (see `Explanation.lane_version`)."""
    if decision.lane not in LANES or decision.mode == "answer" or not decision.read_only:
        return None
    if decision.layers == (TREE_LOCK,):
        return None
    versions = LANES[decision.lane].versions
    proven = ", ".join(versions.proven)
    if decision.lane_version is None:
        if decision.version_proven is None:
            return (
                f"unknown (proven: {proven}); the rewrite uses only what every supported "
                "version has: give --lane-version V, or --exec asks the binary"
            )
        return f"unknown: the binary did not tell, so it is unproven (proven: {proven})"
    if decision.version_proven:
        return f"{decision.lane_version} (proven)"
    return f"{decision.lane_version}, not proven (proven: {proven})"


def explain(request: DispatchRequest, decision: DispatchDecision, current_dir: str) -> Explanation:
    """Explain `decision`, the result of `decide_dispatch(request)`, for a person whose shell is
    in `current_dir` (the command line gets a `cd` when the lane runs elsewhere)."""
    lane = decision.lane or "the lane"
    verdict_refused = False
    if decision.mode == "answer":
        verdict = "answer mode: no lane process is spawned, so there is nothing to confine"
    elif not decision.read_only:
        verdict = (
            "not read-only: toolgate checks nothing and passes the command through unchanged; "
            "add --read-only to have it enforced"
        )
    else:
        judged = read_only_verdict(
            ReadOnlyRequest(True, decision.mode, request.cwd, request.caller_root)
        )
        verdict_refused = isinstance(judged, Refused)
        if isinstance(judged, Refused):
            verdict = judged.refusal
        else:
            verdict = "the cwd is inside the caller root"
            given = os.path.abspath(request.cwd) if request.cwd else None
            if given is not None and given != judged.cwd:
                verdict += f" (--cwd {given} resolves to {judged.cwd})"

    if not decision.ok:
        outcome: Outcome = "refused"
        if verdict_refused:
            headline = "a read-only lane may not run in this directory"
        elif _confine_refusal(decision.refusal):
            headline = "the confinement cannot be set up as asked"
        elif _lock_refusal(decision.refusal):
            headline = "the tree lock cannot be set up here"
        elif any(
            change.flag == "<lane>" and change.action == "refused" for change in decision.changes
        ):
            headline = f"toolgate cannot make {lane} read-only"
        else:
            headline = f"{lane} cannot be made read-only as written"
    elif decision.mode == "answer":
        outcome, headline = "answer", "nothing is spawned (answer mode)"
    elif not decision.read_only:
        outcome, headline = "pass-through", f"{lane} runs exactly as given, nothing enforced"
    elif decision.layers == (TREE_LOCK,):
        outcome = "read-only"
        headline = f"{lane} runs with the tree locked read-only (its own flags untouched)"
    elif decision.layers == (TREE_LOCK, CONFINE):
        outcome = "read-only"
        headline = f"{lane} runs confined, the tree read-only (its own flags untouched)"
    elif CONFINE in decision.layers:
        outcome, headline = "read-only", f"{lane} runs read-only and confined"
    else:
        outcome, headline = "read-only", f"{lane} runs read-only"

    command_line = None
    starts: frozenset[int] = frozenset()
    if decision.ok and decision.invoke is not None:
        invoke = decision.invoke
        here = os.path.realpath(current_dir)
        cwd = None if os.path.realpath(decision.cwd) == here else decision.cwd
        command_line = shell_join([invoke.command, *invoke.args], invoke.env, cwd)
        starts = _starts(invoke.args, decision)
    advice = refusal_advice(decision, verdict_refused) if not decision.ok else ()
    return Explanation(
        decision,
        outcome,
        headline,
        verdict,
        verdict_refused,
        advice,
        command_line,
        starts,
        version_text(decision),
    )


def _starts(args: Sequence[str], decision: DispatchDecision) -> frozenset[int]:
    """`argument_starts`, with the tree lock's bwrap options one per line and `-- LANE` after."""
    if TREE_LOCK not in decision.layers:
        return argument_starts(args, decision.changes)
    units, separator = prefix_units(args)
    lane_args = args[separator + 2 :]  # past `--` and the lane's command
    own = [change for change in decision.changes if change.flag not in ("<tree-lock>", "<confine>")]
    shifted = {separator + 2 + index for index in argument_starts(lane_args, own)}
    return frozenset({*units, separator, *shifted})


def argument_starts(args: Sequence[str], changes: Sequence[Change]) -> frozenset[int]:
    """Indexes into `args` where one argument unit begins: an option with its values as a
    change names them (kept or added), or a single word no change claims (a prompt). A
    subcommand (`codex exec`) stays on the line before it: it reads as part of the command."""
    spans = [
        (change.words, change.flag == "<subcommand>")
        for change in changes
        if change.action in ("kept", "added")
        and change.words
        and not change.flag.startswith("env ")
    ]
    starts: set[int] = set()
    index = 0
    while index < len(args):
        matching = [span for span in spans if tuple(args[index : index + len(span[0])]) == span[0]]
        if matching:
            longest = max(matching, key=lambda span: len(span[0]))
            spans.remove(longest)
            if not longest[1]:
                starts.add(index)
            index += len(longest[0])
        else:
            starts.add(index)
            index += 1
    return frozenset(starts)


def refusal_advice(decision: DispatchDecision, verdict_refused: bool) -> tuple[str, ...]:
    """What to do instead of a refused dispatch: one line per thing to change, in order."""
    if verdict_refused:
        return (
            f"run it with a --cwd that exists inside the caller root ({decision.caller_root}), "
            "or name the tree you protect with --caller-root",
        )
    if _confine_refusal(decision.refusal):
        return (
            "change what the reason names (or make bubblewrap usable), or dispatch without "
            "--confine: the lane then sees everything you can read",
        )
    if _lock_refusal(decision.refusal):
        return (
            "make bubblewrap usable as the reason says, or dispatch without --lock-tree "
            "(lanes with read-only flags of their own still hold that layer)",
        )
    advice = [
        _change_advice(change, decision.lane)
        for change in decision.changes
        if change.action == "refused"
    ]
    if not advice:
        advice.append(_refusal_text_advice(decision.refusal or ""))
    return tuple(dict.fromkeys(advice))


def _change_advice(change: Change, lane: str | None) -> str:
    flag, reason = change.flag, change.reason
    if flag == "<lane>":
        known = ", ".join(LANES)
        return (
            f"use a lane toolgate can make read-only ({known}), or add --lock-tree to run this "
            "one with the caller root mounted read-only around it; `toolgate lanes` lists every "
            "kind with its reason"
        )
    if flag in ("<subcommand>", "<prompt>"):
        if lane in LANES:
            return f"run a lane: {LANES[lane].module.RUN_HINT}"
        return "run the lane itself, not one of its subcommands"
    if flag in ("<version>", "<private-home>"):
        return reason  # it says what to install, drop or set
    if flag.startswith("env "):
        name = flag.removeprefix("env ")
        if reason == "unknown variable":
            return (
                f"drop --env {name}=..., or if you know it is harmless declare it with "
                f"--pass-env {name}"
            )
        return f"drop --env {name}=... ({reason})"
    if reason == "glued to other flags":
        return f"write {flag} as a word of its own, not glued in {shell_words(change.words[:1])}"
    if "outside" in reason:
        return (
            f"point {shell_words(change.words[:1])} at a file outside the caller root, or drop it"
        )
    if not change.words:  # refused for what is missing, such as claude's -p
        return f"add {flag} as a word of its own ({reason})"
    return f"drop {shell_words(change.words)} ({reason})"


def _confine_refusal(refusal: str | None) -> bool:
    """Whether the refusal is confinement's (its messages start with the option)."""
    return refusal is not None and refusal.startswith(("--confine", "--allow-read"))


def _lock_refusal(refusal: str | None) -> bool:
    """Whether the refusal is the tree lock's (its messages start with the option)."""
    return refusal is not None and refusal.startswith("--lock-tree")


def _refusal_text_advice(refusal: str) -> str:
    """Advice for a refusal the rewrite reached before it judged single options."""
    if refusal.startswith("unknown option "):
        option = refusal.split()[2].rstrip(":")
        return (
            f"drop {option}, or if you know it is harmless declare it with --pass-flag {option} "
            f"(--pass-flag {option}=1 if it takes a value)"
        )
    if refusal.startswith(("--pass-flag", "--pass-config")):
        return "drop that declaration: toolgate already judges this option itself"
    return "change the lane's arguments as the reason says, then run explain again"
