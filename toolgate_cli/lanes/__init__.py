"""The lanes toolgate knows, and `read_only_invoke`, which rewrites or refuses any of them.

The lane kind comes from the command's basename: `/opt/x/bin/claude`, `claude.exe` and
`claude.cmd` are all claude. A kind toolgate cannot make read-only is refused with its reason;
a kind it has never heard of is refused too: unknown never claims.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable

from toolgate_cli.lanes.base import (
    Change,
    LaneInvocation,
    RewriteOptions,
    RewriteRefused,
    RewriteResult,
    Rewritten,
)

__all__ = [
    "LANES",
    "REFUSED_LANES",
    "Change",
    "LaneInvocation",
    "RewriteOptions",
    "RewriteRefused",
    "RewriteResult",
    "Rewritten",
    "lane_kind",
    "read_only_invoke",
]


class Lane:
    """A lane toolgate can make read-only: its rewrite and what enforces it.

    The lane's module (its flag tables, its rewrite) is imported on first use: a dispatch of
    one lane does not pay for building the other lanes' tables.
    """

    __slots__ = ("kind", "mechanism", "module")

    def __init__(self, kind: str, mechanism: str, module: str) -> None:
        self.kind = kind
        self.mechanism = mechanism
        self.module = module

    def __repr__(self) -> str:
        return f"Lane({self.kind!r}, {self.mechanism!r}, {self.module!r})"

    @property
    def versions_proven(self) -> tuple[str, ...]:
        versions: tuple[str, ...] = importlib.import_module(self.module).VERSIONS_PROVEN
        return versions

    @property
    def rewrite(self) -> Callable[[LaneInvocation, RewriteOptions], RewriteResult]:
        module = sys.modules.get(self.module) or importlib.import_module(self.module)
        rewrite: Callable[[LaneInvocation, RewriteOptions], RewriteResult] = module.rewrite
        return rewrite


LANES: dict[str, Lane] = {
    "claude": Lane(
        "claude",
        "headless (-p) runs only; --permission-mode dontAsk, --tools/--allowedTools = "
        "Read,Glob,Grep,WebFetch,WebSearch, writers in --disallowedTools, --strict-mcp-config, "
        '--disable-slash-commands, --setting-sources "", --settings with '
        "includeGitInstructions off",
        "toolgate_cli.lanes.claude",
    ),
    "codex": Lane(
        "codex",
        "--sandbox read-only (codex's own sandbox), --ignore-user-config, --ignore-rules, "
        '--disable hooks, --disable shell_snapshot, -c approval_policy="never"; exec and exec '
        "review only (review runs as exec review)",
        "toolgate_cli.lanes.codex",
    ),
}

REFUSED_LANES: dict[str, str] = {
    "opencode": (
        "opencode keeps its permissions per agent in its own opencode.json, which a command "
        "line can neither own nor verify, and it rewrites the tree's opencode.json at start "
        "(measured with 1.18.33)"
    ),
    "agy": (
        "agy's permission flags are unverified, and a denied tool discards its whole answer, "
        "so a bound agy lane would return nothing"
    ),
    "gemini": (
        "gemini's read-only spelling (--approval-mode plan) does not hold in a headless run: "
        "the model can call exit_plan_mode, which switches to YOLO, and the user's settings "
        "hooks run in every mode (measured with 0.61.0)"
    ),
}

_NO_OPTIONS = RewriteOptions()  # immutable, so one instance serves every call

_WINDOWS_SUFFIX = re.compile(r"\.(exe|cmd|bat|ps1)$", re.IGNORECASE)


def lane_kind(command: str) -> str:
    """The lane kind named by `command`: its basename (either slash), minus a Windows suffix."""
    base = command.rpartition("/")[2].rpartition("\\")[2]
    return _WINDOWS_SUFFIX.sub("", base)


def read_only_invoke(
    invocation: LaneInvocation, options: RewriteOptions | None = None
) -> RewriteResult:
    """Rewrite `invocation` so the lane's own CLI runs it read-only, or say why it cannot be.

    Pure over its inputs (apart from resolving output paths against `options.cwd`): it never
    spawns anything and never reads a lane's configuration.
    """
    options = options if options is not None else _NO_OPTIONS
    kind = lane_kind(invocation.command)
    lane = LANES.get(kind)
    if lane is not None:
        return lane.rewrite(invocation, options)
    if kind in REFUSED_LANES:
        reason = f"{kind} cannot be made read-only: {REFUSED_LANES[kind]}"
    else:
        known = ", ".join(sorted(LANES))
        reason = (
            f"unknown lane {kind!r} (from {invocation.command!r}): toolgate only claims "
            f"read-only for lanes it knows ({known}); unknown never claims"
        )
    refusal = Change("refused", "<lane>", (invocation.command,), "no read-only binding")
    return RewriteRefused(reason, (refusal,), kind)
