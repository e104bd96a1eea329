"""One dispatch decision: the verdict on where it runs, the lane rewrite, then the sandbox.

`decide_dispatch` is what `toolgate dispatch` and `toolgate explain` both call; it is pure apart
from path resolution and, with `--lock-tree` or `--confine`, what the injected `LockHost` reads
and tries.
`DispatchDecision.as_json` is the documented JSON shape (README, "JSON").
"""

from __future__ import annotations

import os

from toolgate_cli.lanes import LANES, lane_kind, read_only_invoke
from toolgate_cli.lanes.base import Change, LaneInvocation, RewriteOptions
from toolgate_cli.records import field, record, replace
from toolgate_cli.verdict import ReadOnlyRequest, Refused, read_only_verdict

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolgate_cli.sandbox.confine import ConfineRequest
    from toolgate_cli.sandbox.plan import LockHost
    from toolgate_cli.verdict import Mode

ANSWER_BINDING = "answer mode: no lane process is spawned"

LANE_FLAGS = "lane-flags"
TREE_LOCK = "tree-lock"
CONFINE = "confine"
"""The layers a dispatch can hold, as the JSON `layers` list names them: the lane's own flags,
the kernel's read-only mount of the tree, and confinement (the lane sees only the tree and
what it needs to run, and keeps only an allow list of the environment)."""


@record(frozen=True)
class DispatchRequest:
    """Everything `toolgate dispatch` was asked. `invocation` may be None only in answer mode."""

    invocation: LaneInvocation | None
    read_only: bool
    mode: Mode
    cwd: str | None
    caller_root: str
    options: RewriteOptions = field(default_factory=RewriteOptions)
    lock: LockRequest | None = None
    lane_version: str | None = None
    """The lane version that will run: the caller's `--lane-version`, or what the binary said."""
    version_asked: bool = False
    """Somebody said which version runs (the caller, or the binary when asked under --exec);
    with no `lane_version`, the binary could not tell."""
    require_proven: bool = False
    """`--require-proven`: refuse a version that is not proven."""


@record(frozen=True)
class LockRequest:
    """`--lock-tree`: run the lane under the kernel lock that `host` plans and tries.

    `lane_flags` False (`--lock-only`) skips the lane-flag rewrite even for a lane that has
    one: the template runs as given, with the lock alone. `confine` (`--confine`) builds the
    sandbox as an allow list instead (it holds the lock too).
    """

    host: LockHost
    lane_flags: bool = True
    confine: ConfineOptions | None = None


@record(frozen=True)
class ConfineOptions:
    """`--confine`: what the caller allows beyond the lane's own needs (`--allow-read`)."""

    allow_read: tuple[str, ...] = ()


@record(frozen=True)
class DispatchDecision:
    """The outcome: run `invoke` in `cwd` (ok), or `refusal` (one line, what to do instead).

    `layers` names what holds read-only: `lane-flags` (the lane's own CLI, rewritten) and/or
    `tree-lock` (the caller root mounted read-only); empty when nothing is claimed.
    """

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
    layers: tuple[str, ...] = ()
    confinement: Confinement | None = None
    """Under `--confine`: what the lane sees, where it may write, what environment it keeps."""
    lane_version: str | None = None
    """The version the rewrite was fitted to; None when unknown."""
    version_proven: bool | None = None
    """Whether that version is proven end to end; None when nobody said which version runs."""
    version_notice: str | None = None
    """One line for stderr: the version runs although it is not proven."""

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
            "lane_version": self.lane_version,
            "version_proven": self.version_proven,
            "cwd": self.cwd,
            "caller_root": self.caller_root,
            "invoke": invoke,
            "binding": self.binding,
            "layers": list(self.layers),
            "confinement": (self.confinement.as_json() if self.confinement is not None else None),
            "changes": [change.as_json() for change in self.changes],
            "refusal": self.refusal,
        }


@record(frozen=True)
class Confinement:
    """The JSON `confinement` object: every path shown read-only (`visible`), the private
    directories (`writable`: empty at start, discarded afterwards), the secret stores covered
    inside a shown directory (`hidden`), and the names kept from toolgate's environment
    (`env_kept`; every other variable is unset)."""

    visible: tuple[str, ...]
    writable: tuple[str, ...]
    hidden: tuple[str, ...]
    env_kept: tuple[str, ...]

    def as_json(self) -> dict[str, list[str]]:
        return {
            "visible": list(self.visible),
            "writable": list(self.writable),
            "hidden": list(self.hidden),
            "env_kept": list(self.env_kept),
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
    # Only the flag rewrite depends on the lane's version: a lane under the lock alone (or one
    # toolgate refuses) claims nothing of its version, and shows what the caller said.
    base = replace(base, lane_version=request.lane_version)
    if request.lock is not None and not (request.lock.lane_flags and lane in LANES):
        alone = "--lock-only" if lane in LANES else f"{lane} has no read-only flags"
        kept = Change("kept", "<lane>", (request.invocation.command,), f"lock alone: {alone}")
        return _locked(
            base,
            request.lock,
            request.invocation,
            lane_binding=None,
            changes=(kept,),
            options=request.options,
        )
    fitted_version = None
    if lane in LANES:
        fit = LANES[lane].versions.fit(
            lane,
            request.lane_version,
            asked=request.version_asked,
            require_proven=request.require_proven,
        )
        base = replace(
            base,
            lane_version=fit.version,
            version_proven=fit.proven,
            version_notice=fit.notice,
        )
        if fit.refusal is not None:
            refused = Change("refused", "<version>", _version_words(fit.version), fit.refusal)
            return replace(base, ok=False, changes=(refused,), refusal=fit.refusal)
        fitted_version = fit.version
    options = replace(
        request.options,
        cwd=verdict.cwd,
        caller_root=caller_root,
        lane_version=fitted_version,
        confine=request.lock is not None and request.lock.confine is not None,
    )
    result = read_only_invoke(request.invocation, options)
    if not result.ok:
        refusal = result.reason
        if request.lock is not None and request.lock.confine is not None:
            refusal += "; --lock-only runs the template as given, confined"
        elif request.lock is not None:
            refusal += "; --lock-only runs the template as given under the tree lock alone"
        elif lane not in LANES:
            refusal += (
                "; to run it anyway, add --lock-tree: the caller root is mounted read-only "
                "around it (Linux, bubblewrap)"
            )
        return replace(base, ok=False, changes=result.changes, refusal=refusal)
    if request.lock is not None:
        return _locked(
            base,
            request.lock,
            result.invoke,
            lane_binding=result.binding,
            changes=result.changes,
            options=options,
        )
    return replace(
        base,
        invoke=result.invoke,
        binding=result.binding,
        changes=result.changes,
        layers=(LANE_FLAGS,),
    )


def _locked(
    base: DispatchDecision,
    lock: LockRequest,
    invoke: LaneInvocation,
    *,
    lane_binding: str | None,
    changes: tuple[Change, ...],
    options: RewriteOptions,
) -> DispatchDecision:
    """`invoke` wrapped in the tree lock, or the refusal that says why the lock cannot hold."""
    if lock.confine is not None:
        return _confined(
            base, lock, invoke, lane_binding=lane_binding, changes=changes, options=options
        )
    # Imported here: a dispatch without --lock-tree never pays for the lock's module.
    from toolgate_cli.sandbox.plan import TOOL, wrapper_prefix

    plan = lock.host.plan(base.caller_root, base.cwd)
    if isinstance(plan, str):
        return replace(base, ok=False, changes=changes, refusal=plan)
    prefix = wrapper_prefix(plan, invoke.env)
    problem = lock.host.trial(prefix)
    if problem is not None:
        return replace(base, ok=False, changes=changes, refusal=problem)
    mounted = ", ".join(plan.read_only)
    lock_binding = f"{mounted} mounted read-only by {TOOL} (the kernel refuses writes there)"
    added = Change("added", "<tree-lock>", prefix, "kernel read-only mount of the caller root")
    return replace(
        base,
        # The environment travels inside the prefix (--setenv): bwrap itself runs with none.
        invoke=LaneInvocation(prefix[0], (*prefix[1:], invoke.command, *invoke.args)),
        binding=f"{lane_binding}; and {lock_binding}" if lane_binding else lock_binding,
        changes=(added, *changes),
        layers=(LANE_FLAGS, TREE_LOCK) if lane_binding else (TREE_LOCK,),
    )


def _confined(
    base: DispatchDecision,
    lock: LockRequest,
    invoke: LaneInvocation,
    *,
    lane_binding: str | None,
    changes: tuple[Change, ...],
    options: RewriteOptions,
) -> DispatchDecision:
    """`invoke` confined: the sandbox the host plans from the lane's needs and the caller's
    allowances, tried once; or the refusal that says why it cannot be built."""
    from toolgate_cli.sandbox.plan import TOOL, wrapper_prefix

    request = _confine_request(base.lane, lock, invoke, options)
    plan = lock.host.plan(base.caller_root, base.cwd, request)
    if isinstance(plan, str):
        return replace(base, ok=False, changes=changes, refusal=plan)
    if plan.confine is None:  # pragma: no cover - a host that ignored the request
        return replace(base, ok=False, changes=changes, refusal="--confine: no plan was built")
    prefix = wrapper_prefix(plan, invoke.env)
    problem = lock.host.trial(prefix, "--confine")
    if problem is not None:
        return replace(base, ok=False, changes=changes, refusal=problem)
    sandbox = plan.confine
    confine_binding = (
        f"confined by {TOOL}: the lane sees {base.caller_root} read-only and what it needs to "
        f"run, writes only private directories, and keeps {len(sandbox.env_kept)} variables "
        "of the environment"
    )
    why = "the lane sees only the caller root (read-only) and what it needs to run"
    added = Change("added", "<confine>", prefix, why)
    return replace(
        base,
        # The template's environment travels inside the prefix (--setenv); every variable of
        # toolgate's own environment not on the allow list is unset before bwrap runs.
        invoke=LaneInvocation(
            prefix[0],
            (*prefix[1:], sandbox.lane, *invoke.args),
            dict.fromkeys(sandbox.env_unset),
        ),
        binding=f"{lane_binding}; and {confine_binding}" if lane_binding else confine_binding,
        changes=(added, *changes),
        layers=(LANE_FLAGS, TREE_LOCK, CONFINE) if lane_binding else (TREE_LOCK, CONFINE),
        confinement=Confinement(
            sandbox.visible, sandbox.writable, sandbox.hidden, sandbox.env_kept
        ),
    )


def _confine_request(
    lane_name: str | None, lock: LockRequest, invoke: LaneInvocation, options: RewriteOptions
) -> ConfineRequest:
    """What `--confine` asks the host: the lane's needs (the generic plan for a lane toolgate
    has none for) and the caller's allowances."""
    from toolgate_cli.sandbox.confine import GENERIC, ConfineRequest

    lane = LANES.get(lane_name or "")
    needs = getattr(lane.module, "CONFINE", GENERIC) if lane is not None else GENERIC
    return ConfineRequest(
        needs,
        invoke.command,
        pass_env=options.pass_env,
        allow_read=(lock.confine or ConfineOptions()).allow_read,
        template_env=invoke.env,
        read_shell=options.read_shell_hook is not None,
    )


def probe_sandbox(
    request: DispatchRequest,
) -> tuple[tuple[str, ...], frozenset[str] | None] | None:
    """The bwrap words `request`'s lane would run under, with `/` as its working directory,
    and under --confine the names of the environment it keeps (None: all); for running the
    lane's own binary to ask its version. None when there is no sandbox to build or it cannot
    be built here (the decision says why)."""
    lock, invocation = request.lock, request.invocation
    if lock is None or invocation is None:
        return None
    caller_root = os.path.realpath(request.caller_root)
    verdict = read_only_verdict(ReadOnlyRequest(True, request.mode, request.cwd, caller_root))
    if isinstance(verdict, Refused):
        return None
    from toolgate_cli.sandbox.plan import wrapper_prefix

    # Planned for the lane's own working directory (a `./claude` is found from there), run
    # from `/`, as the binary's --version always is.
    if lock.confine is None:
        plan = lock.host.plan(caller_root, verdict.cwd)
        if isinstance(plan, str):
            return None
        return wrapper_prefix(replace(plan, cwd="/"), invocation.env), None
    confine = _confine_request(lane_kind(invocation.command), lock, invocation, request.options)
    plan = lock.host.plan(caller_root, verdict.cwd, confine)
    if isinstance(plan, str) or plan.confine is None:
        return None
    kept = frozenset(plan.confine.env_kept)
    return wrapper_prefix(replace(plan, cwd="/"), invocation.env), kept


def _version_words(version: str | None) -> tuple[str, ...]:
    return (version,) if version is not None else ()


def _shown_cwd(request: DispatchRequest) -> str:
    from toolgate_cli.verdict import resolve_read_only_cwd

    return resolve_read_only_cwd(request.cwd)
