"""`toolgate dispatch` after its options are parsed: one implementation for both entry points.

The click command (`toolgate_cli.commands.dispatch`) and the click-free fast path
(`toolgate_cli.dispatch_main`, which a launcher hits before every lane start) both parse the
command line into the same `params` mapping, the one click builds from the options in
`toolgate_cli.commands.common.dispatch_options`, and call `run_dispatch`. Usage problems are
raised as `UsageProblem` before anything is written, so the fast path can hand the command
line to click, which reports them in its usual one-line form.

No click here, no rich: only the decision modules.
"""

from __future__ import annotations

import os
import sys

from toolgate_cli import exitcodes
from toolgate_cli.decision import (
    TREE_LOCK,
    ConfineOptions,
    DispatchDecision,
    DispatchRequest,
    LockRequest,
    decide_dispatch,
)
from toolgate_cli.lanes.base import LaneInvocation, PassFlag, RewriteOptions
from toolgate_cli.messages import shortened
from toolgate_cli.records import replace
from toolgate_cli.verdict import git_top_level, one_line

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from toolgate_cli.verdict import Mode

# The directory holding the `toolgate_cli` package this code runs from.
TOOLGATE_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class UsageProblem(Exception):
    """The command line cannot be run as given; `message` is the one-line reason."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def parse_pass_flag(text: str) -> PassFlag:
    name, has_value, value = text.partition("=")
    if not name.startswith("-"):
        raise UsageProblem(f"--pass-flag {text}: give an option name, like --foo or --foo=1")
    if not has_value:
        return PassFlag(name)
    if value not in ("0", "1"):
        raise UsageProblem(f"--pass-flag {text}: the value count must be 0 or 1")
    return PassFlag(name, takes_value=value == "1")


def parse_env(pairs: Sequence[str], unset: Sequence[str]) -> dict[str, str | None]:
    env: dict[str, str | None] = {}
    for pair in pairs:
        name, has_equals, value = pair.partition("=")
        if not has_equals or not name:
            raise UsageProblem(f"--env {pair}: expected NAME=VALUE")
        env[name] = value
    for name in unset:
        env[name] = None
    return env


def default_caller_root(start: str) -> str:
    """The git top-level containing `start` (a `.git` directory or file), else `start`."""
    return git_top_level(start) or os.path.realpath(start)


def hook_command(prefixes: Sequence[str], caller_root: str | None = None) -> str:
    """The shell command line that runs this very toolgate's PreToolUse hook.

    The same interpreter and the same package directory, pinned: `python -m` would put the lane's
    working directory first on sys.path, and a tree that ships its own `toolgate_cli` package
    must not get to answer for toolgate. `caller_root` (absolute) lets the hook admit `cd` into
    it and judge git's repository against it.
    """
    bootstrap = (
        f"import sys; sys.path[0] = {TOOLGATE_PACKAGE_PARENT!r}; "
        "from toolgate_cli.__main__ import main; main()"
    )
    argv = [sys.executable, "-E", "-s", "-c", bootstrap, "hook", "claude-pretooluse"]
    if caller_root is not None:
        argv += ["--caller-root", caller_root]
    for prefix in prefixes:
        argv += ["--allow-bash-prefix", prefix]
    import shlex  # only --read-shell needs it

    return shlex.join(argv)


def non_utf8_argument(words: Sequence[str]) -> int | None:
    """The index of the first word holding bytes that are not UTF-8 (surrogate escapes)."""
    for index, word in enumerate(words):
        try:
            word.encode("utf-8")
        except UnicodeEncodeError:
            return index
    return None


def build_request(params: Mapping[str, object]) -> DispatchRequest:
    """Turn the dispatch options into a DispatchRequest; raise UsageProblem on bad input.

    `params` holds what click passes the command: `lane_command` (a tuple of words),
    `read_only`, `read_shell`, `lock_tree`, `lock_only`, `confine`, `require_proven` (bools),
    `mode` ("agent" or "answer"), `cwd`, `caller_root` and `lane_version` (str or None), and
    the tuples `bash_prefixes`, `pass_flags`, `pass_config`, `pass_env`, `env_pairs`,
    `unset_env`, `allow_read`.
    """
    words = _words(params, "lane_command")
    if params["mode"] not in ("agent", "answer"):
        raise UsageProblem(f"--mode {params['mode']}: choose agent or answer")
    mode: Mode = "answer" if params["mode"] == "answer" else "agent"
    if not words and mode != "answer":
        raise UsageProblem("no lane command: put it after --, e.g. -- claude -p 'review this'")
    if params["read_shell"] and not params["read_only"]:
        raise UsageProblem("--read-shell needs --read-only")
    if params["bash_prefixes"] and not params["read_shell"]:
        raise UsageProblem("--allow-bash-prefix needs --read-shell")
    lock = _lock_request(params, mode)
    cwd = _optional_text(params, "cwd")
    caller_root = _optional_text(params, "caller_root") or default_caller_root(os.getcwd())
    env = parse_env(_words(params, "env_pairs"), _words(params, "unset_env"))
    invocation = LaneInvocation(words[0], words[1:], env) if words else None
    # The hook resolves the root the way decide_dispatch does (--read-shell needs --read-only);
    # built only for --read-shell, since shlex costs every other dispatch its import.
    hook = None
    if params["read_shell"]:
        hook = hook_command(_words(params, "bash_prefixes"), os.path.realpath(caller_root))
    options = RewriteOptions(
        pass_flags=tuple(parse_pass_flag(text) for text in _words(params, "pass_flags")),
        pass_config=frozenset(_words(params, "pass_config")),
        pass_env=frozenset(_words(params, "pass_env")),
        read_shell_hook=hook,
    )
    if (
        invocation is not None
        and params["read_only"]
        and mode == "agent"
        and (lock is None or (lock.lane_flags and lock.confine is None))
    ):
        root = caller_root or default_caller_root(os.getcwd())
        options = replace(options, lane_home=private_lane_home(invocation.command, root))
    lane_version = _lane_version(params)
    return DispatchRequest(
        invocation=invocation,
        read_only=bool(params["read_only"]),
        mode=mode,
        cwd=cwd,
        caller_root=caller_root,
        options=options,
        lock=lock,
        lane_version=lane_version,
        version_asked=lane_version is not None,
        require_proven=bool(params.get("require_proven")),
    )


def private_lane_home(command: str, caller_root: str) -> str | None:
    """A new private directory for one run of a lane whose module asks for one (copilot's
    `COPILOT_HOME`, see `RewriteOptions.lane_home`); None for other lanes, or when it cannot be
    made outside `caller_root` (the rewrite then refuses and says why)."""
    from toolgate_cli.lanes import LANES, lane_kind

    lane = LANES.get(lane_kind(command))
    maker = lane.private_home_maker if lane is not None else None
    if maker is None:
        return None
    # __import__, not importlib.import_module: importing importlib costs the dispatch path.
    __import__(maker)
    try:
        home: str = sys.modules[maker].make_private_home(outside=caller_root)
    except (OSError, ValueError):
        return None
    return home


def _lane_version(params: Mapping[str, object]) -> str | None:
    """`--lane-version V`, normalised (`v2.1.332` is `2.1.332`); UsageProblem if V is none."""
    given = params.get("lane_version")
    if given is None:
        return None
    from toolgate_cli.lanes.versions import normal_version

    version = normal_version(str(given))
    if version is None:
        raise UsageProblem(
            f"--lane-version {given}: expected a version of dotted numbers, like 2.1.332"
        )
    return version


def with_binary_version(request: DispatchRequest) -> DispatchRequest:
    """`request` with the version of the lane binary `--exec` is about to run, read from the
    binary itself (cached, see `toolgate_cli.lane_probe`), when the caller did not say it and
    the lane has a flag rewrite to fit to it. A binary that cannot tell leaves the version
    unknown but asked, which `LaneVersions.fit` treats as unproven."""
    invocation = request.invocation
    if (
        request.version_asked
        or invocation is None
        or not request.read_only
        or request.mode == "answer"
        or (request.lock is not None and not request.lock.lane_flags)
    ):
        return request
    from toolgate_cli.lanes import LANES, lane_kind

    lane = LANES.get(lane_kind(invocation.command))
    if lane is None:
        return request
    from toolgate_cli.lane_probe import NOT_FOUND, binary_version

    cwd = request.cwd if request.cwd is not None else os.getcwd()
    run = _sandboxed_probe(request) if request.lock is not None else None
    version = binary_version(
        invocation.command, cwd, lane.module.version_of, run, args=(*lane.probe_args, "--version")
    )
    if version == NOT_FOUND:
        return request  # nothing to ask: the exec reports the missing binary (exit 127)
    return replace(request, lane_version=version, version_asked=True)


def _sandboxed_probe(
    request: DispatchRequest,
) -> Callable[[str, Sequence[str]], str | None]:
    """A `run` for `binary_version` that asks the binary inside the sandbox its lane will run
    in (working directory `/`, and under --confine only the environment the lane keeps): the
    template names the binary, and one in the reviewed tree must not run outside the lock, or
    unconfined, to say its version (measured: `./claude --version` from the tree ran with
    toolgate's whole environment and filesystem before the sandbox existed). Built on first
    use, so a cached version costs no plan; a sandbox that cannot be built answers nothing (the
    decision then refuses, saying why)."""
    from toolgate_cli.decision import probe_sandbox
    from toolgate_cli.lane_probe import run_binary

    def run(path: str, args: Sequence[str]) -> str | None:
        sandbox = probe_sandbox(request)
        if sandbox is None:
            return None
        prefix, kept = sandbox
        env = {k: v for k, v in os.environ.items() if k in kept} if kept is not None else None
        return run_binary(path, args, prefix, env)

    return run


def _lock_request(params: Mapping[str, object], mode: Mode) -> LockRequest | None:
    """`--lock-tree` / `--lock-only` / `--confine` as a LockRequest (None without them);
    UsageProblem when they are combined with options they contradict."""
    lock_only = bool(params.get("lock_only"))
    confine = bool(params.get("confine"))
    allow_read = _words(params, "allow_read") if "allow_read" in params else ()
    if allow_read and not confine:
        raise UsageProblem("--allow-read needs --confine")
    if not (params.get("lock_tree") or lock_only or confine):
        return None
    name = "--confine" if confine else "--lock-only" if lock_only else "--lock-tree"
    if not params["read_only"]:
        raise UsageProblem(f"{name} needs --read-only")
    if mode == "answer":
        raise UsageProblem(f"{name} with --mode answer: answer mode spawns nothing to lock")
    if lock_only:
        # Nothing is rewritten, so options that steer the rewrite would be silently ignored
        # (--pass-env also keeps a variable under --confine).
        for key, option in _REWRITE_OPTIONS.items():
            if params[key] and not (confine and key == "pass_env"):
                raise UsageProblem(f"{option} has no effect with --lock-only (no rewrite)")
    for given in allow_read:
        if not given:
            raise UsageProblem("--allow-read: empty path")
    from toolgate_cli.sandbox.host import HOST

    return LockRequest(
        HOST,
        lane_flags=not lock_only,
        confine=ConfineOptions(tuple(os.path.abspath(path) for path in allow_read))
        if confine
        else None,
    )


_REWRITE_OPTIONS = {
    "read_shell": "--read-shell",
    "bash_prefixes": "--allow-bash-prefix",
    "pass_flags": "--pass-flag",
    "pass_config": "--pass-config",
    "pass_env": "--pass-env",
}


def _words(params: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = params[key]
    if not isinstance(value, tuple | list):  # pragma: no cover - wiring error
        raise TypeError(f"{key}: expected a sequence of words")
    return tuple(str(word) for word in value)


def _optional_text(params: Mapping[str, object], key: str) -> str | None:
    value = params[key]
    if value is None:
        return None
    if not value:
        raise UsageProblem(f"--{key.replace('_', '-')}: empty path")
    return str(value)


def decision_json_bytes(decision: DispatchDecision) -> bytes:
    """The decision as one line of JSON, or UsageProblem when a value in it (a path, an
    environment value) holds bytes that are not UTF-8: JSON text is UTF-8, and writing the raw
    bytes back would give the reader something that is not JSON."""
    from toolgate_cli.json_text import dumps

    payload = decision.as_json()
    text = dumps(payload)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        fields = [
            key for key, value in payload.items() if non_utf8_argument([dumps(value)]) is not None
        ]
        raise UsageProblem(
            f"{', '.join(fields) or 'the result'} is not valid UTF-8, so JSON cannot carry it "
            "(--exec passes it through byte for byte)"
        ) from None
    return data + b"\n"


def run_dispatch(params: Mapping[str, object], output: str) -> int:
    """Decide, then print the JSON (`output` "json") or exec the lane ("exec"); return the exit
    status. Raises UsageProblem before writing anything."""
    request = build_request(params)
    bad = non_utf8_argument(_words(params, "lane_command"))
    if bad is not None and output == "json":
        raise UsageProblem(
            f"argument {bad + 1} of the lane command is not valid UTF-8; JSON cannot carry it "
            "(--exec passes it through byte for byte)"
        )
    if output == "exec" and request.mode == "answer":
        raise UsageProblem("--exec with --mode answer: answer mode spawns nothing")
    if output == "exec":
        request = with_binary_version(request)
    decision = decide_dispatch(request)
    if decision.version_notice is not None:
        _say(f"toolgate: {decision.version_notice}")
    if output == "exec":
        return _exec(decision)
    data = decision_json_bytes(decision)
    sys.stdout.buffer.write(data)
    sys.stdout.flush()
    if not decision.ok:
        _say(f"toolgate: refused: {decision.refusal}")
        return exitcodes.REFUSED
    return exitcodes.OK


def _exec(decision: DispatchDecision) -> int:
    from toolgate_cli.execlane import ExecFailure, exec_lane

    if not decision.ok or decision.invoke is None:
        _say(f"toolgate: refused: {decision.refusal}")
        return exitcodes.REFUSED
    root = decision.caller_root if decision.read_only else None
    try:
        exec_lane(decision.invoke, decision.cwd, root, only_std_fds=TREE_LOCK in decision.layers)
    except ExecFailure as failure:
        _say(f"toolgate: {failure.message}")
        return failure.status
    return exitcodes.OK  # pragma: no cover - exec_lane returns only with a test double


def refusal_line(refusal: str) -> str:
    """The one line `dispatch` (and `explain`) write on stderr for a refusal, shortened if long."""
    return shortened(one_line(f"toolgate: refused: {refusal}"))


def _say(line: str) -> None:
    """One line on stderr, shortened if long; never raises for text that is not UTF-8."""
    sys.stderr.write(shortened(one_line(line)) + "\n")
    sys.stderr.flush()
