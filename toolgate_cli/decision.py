"""One dispatch decision: the verdict on where it runs, then the lane rewrite.

`decide_dispatch` is what `toolgate dispatch` and `toolgate explain` both call; it is pure apart
from path resolution. `DispatchDecision.as_json` is the documented JSON shape (README, "JSON").
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from toolgate_cli.lanes import lane_kind, read_only_invoke
from toolgate_cli.lanes.base import Change, LaneInvocation, RewriteOptions
from toolgate_cli.verdict import ReadOnlyRequest, Refused, read_only_verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolgate_cli.verdict import Mode

ANSWER_BINDING = "answer mode: no lane process is spawned"


@dataclass(frozen=True)
class DispatchRequest:
    """Everything `toolgate dispatch` was asked. `invocation` may be None only in answer mode."""

    invocation: LaneInvocation | None
    read_only: bool
    mode: Mode
    cwd: str | None
    caller_root: str
    options: RewriteOptions = field(default_factory=RewriteOptions)


@dataclass(frozen=True)
class DispatchDecision:
    """The outcome: run `invoke` in `cwd` (ok), or `refusal` (one line, what to do instead)."""

    ok: bool
    mode: Mode
    read_only: bool
    lane: str | None
    cwd: str
    caller_root: str
    invoke: LaneInvocation | None
    binding: str | None
    changes: tuple[Change, ...]
    refusal: str | None

    def as_json(self) -> dict[str, object]:
        """The stable JSON object: same keys for every outcome, documented in the README."""
        invoke = None
        if self.invoke is not None:
            invoke = {
                "command": self.invoke.command,
                "args": list(self.invoke.args),
                "env": dict(self.invoke.env),
            }
        return {
            "ok": self.ok,
            "mode": self.mode,
            "read_only": self.read_only,
            "lane": self.lane,
            "cwd": self.cwd,
            "caller_root": self.caller_root,
            "invoke": invoke,
            "binding": self.binding,
            "changes": [change.as_json() for change in self.changes],
            "refusal": self.refusal,
        }


def decide_dispatch(request: DispatchRequest) -> DispatchDecision:
    """Judge the working directory, then rewrite the lane; the first refusal wins.

    For a confined dispatch the caller root is resolved once, here, and that resolved path is
    what the verdict, the rewrite and the exec re-check all compare against: were it resolved
    again at exec time, a root (or an ancestor) swapped for a symlink would move together with
    the cwd and the re-check would compare the new place with itself.
    """
    caller_root = request.caller_root
    if request.read_only and request.mode != "answer":
        caller_root = os.path.realpath(caller_root)
    verdict = read_only_verdict(
        ReadOnlyRequest(request.read_only, request.mode, request.cwd, caller_root)
    )
    lane = lane_kind(request.invocation.command) if request.invocation is not None else None
    base = DispatchDecision(
        ok=True,
        mode=request.mode,
        read_only=request.read_only,
        lane=lane,
        cwd=verdict.cwd if not isinstance(verdict, Refused) else _shown_cwd(request),
        caller_root=caller_root,
        invoke=None,
        binding=None,
        changes=(),
        refusal=None,
    )
    if isinstance(verdict, Refused):
        return replace(base, ok=False, refusal=verdict.refusal)
    if request.mode == "answer":
        return replace(base, binding=ANSWER_BINDING)
    if request.invocation is None:
        return replace(base, ok=False, refusal="no lane command to dispatch")
    if not request.read_only:
        return replace(base, invoke=request.invocation)
    options = replace(request.options, cwd=verdict.cwd, caller_root=caller_root)
    result = read_only_invoke(request.invocation, options)
    if not result.ok:
        return replace(base, ok=False, changes=result.changes, refusal=result.reason)
    return replace(base, invoke=result.invoke, binding=result.binding, changes=result.changes)


def _shown_cwd(request: DispatchRequest) -> str:
    from toolgate_cli.verdict import resolve_read_only_cwd

    return resolve_read_only_cwd(request.cwd)
