"""The lanes toolgate knows, and `read_only_invoke`, which rewrites or refuses any of them.

The lane kind comes from the command's basename: `/opt/x/bin/claude`, `claude.exe` and
`claude.cmd` are all claude. A kind toolgate cannot make read-only is refused with its reason;
a kind it has never heard of is refused too: unknown never claims.
"""

from __future__ import annotations

import sys

from toolgate_cli.lanes.base import (
    Change,
    LaneInvocation,
    RewriteOptions,
    RewriteRefused,
    RewriteResult,
    Rewritten,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    from toolgate_cli.lanes.drift import HelpSurface
    from toolgate_cli.lanes.versions import LaneVersions

    class LaneModule(Protocol):
        """What a rewritten lane's module holds (toolgate_cli/lanes/claude.py is one).

        - `KIND`: the lane kind (the command's basename);
        - `MECHANISM`: one line, what makes it read-only (`toolgate lanes`, explain);
        - `RUN_HINT`: what a lane run looks like, for a refusal's advice;
        - `VERSIONS`: the versions the table supports, those proven, and when each
          version-gated option appeared;
        - `version_of(output)`: the version in the output of `LANE --version`, or None;
        - `help_surfaces()`: its help pages and what the table knows of each (drift check);
        - `rewrite(invocation, options)`: the pure rewrite; `options.lane_version` is the
          version it is fitted to (None: unknown), `options.confine` says whether it runs
          confined, `options.lane_home` is the private directory `PRIVATE_HOME` made.

        Optional, read with their defaults by `Lane`:
        - `CONFINE: ConfineNeeds` (lanes/base.py): what the lane needs to see, keep and
          write under `--confine` (default: a generic private HOME and temp, the common
          environment only);
        - `PROBE_ARGS: tuple[str, ...]`: words before every `--version`/`--help` probe
          (default none; copilot's `--no-auto-update` keeps its loader from running a
          cached package);
        - `PRIVATE_HOME: str`: the host module whose `make_private_home(outside=ROOT)`
          makes a fresh directory for each run (default none; copilot's config home).
        """

        KIND: str
        MECHANISM: str
        RUN_HINT: str
        VERSIONS: LaneVersions

        def version_of(self, output: str) -> str | None: ...

        def help_surfaces(self) -> tuple[HelpSurface, ...]: ...

        def rewrite(self, invocation: LaneInvocation, options: RewriteOptions) -> RewriteResult: ...


__all__ = [
    "LANES",
    "LANE_MODULES",
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


LANE_MODULES: dict[str, str] = {
    "claude": "toolgate_cli.lanes.claude",
    "codex": "toolgate_cli.lanes.codex",
    "copilot": "toolgate_cli.lanes.copilot",
}
"""Every lane toolgate rewrites: its kind and the module that holds it (see `LaneModule`).
Adding a lane is its module, this one line, its tests and its end-to-end suite."""


class Lane:
    """A lane toolgate can make read-only, by kind; its module is imported on first use, so a
    dispatch of one lane does not pay for building the other lanes' tables."""

    __slots__ = ("kind", "module_name")

    def __init__(self, kind: str, module_name: str) -> None:
        self.kind = kind
        self.module_name = module_name

    def __repr__(self) -> str:
        return f"Lane({self.kind!r}, {self.module_name!r})"

    @property
    def module(self) -> LaneModule:
        # __import__ rather than importlib.import_module: importing importlib costs the
        # dispatch path more than the lane's own table.
        found: LaneModule | None = sys.modules.get(self.module_name)
        if found is None:
            __import__(self.module_name)
            found = sys.modules[self.module_name]
        return found

    @property
    def mechanism(self) -> str:
        return self.module.MECHANISM

    @property
    def versions(self) -> LaneVersions:
        return self.module.VERSIONS

    @property
    def versions_proven(self) -> tuple[str, ...]:
        return self.module.VERSIONS.proven

    @property
    def rewrite(self) -> Callable[[LaneInvocation, RewriteOptions], RewriteResult]:
        return self.module.rewrite

    @property
    def probe_args(self) -> tuple[str, ...]:
        """Words put before every probe of the binary (`--version`, `--help`): the module's
        `PROBE_ARGS`, none by default (copilot's keeps its loader from running a cached
        package)."""
        words: tuple[str, ...] = getattr(self.module, "PROBE_ARGS", ())
        return words

    @property
    def private_home_maker(self) -> str | None:
        """The host module that makes a private directory for each run of this lane (the
        module's `PRIVATE_HOME`, see `RewriteOptions.lane_home`), or None."""
        maker: str | None = getattr(self.module, "PRIVATE_HOME", None)
        return maker


LANES: dict[str, Lane] = {kind: Lane(kind, module) for kind, module in LANE_MODULES.items()}

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

_WINDOWS_SUFFIXES = (".exe", ".cmd", ".bat", ".ps1")


def lane_kind(command: str) -> str:
    """The lane kind named by `command`: its basename (either slash), minus a Windows suffix."""
    base = command.rpartition("/")[2].rpartition("\\")[2]
    if base[-4:].lower() in _WINDOWS_SUFFIXES:
        return base[:-4]
    return base


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
