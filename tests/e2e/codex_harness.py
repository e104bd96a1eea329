"""Run the real codex CLI against the stub Responses server, with or without toolgate in front.

A *leg* is one run in its own fresh git tree with its own CODEX_HOME and HOME: the CONTROL leg runs
codex directly (the template's write must happen there, or the scenario proves nothing), the GATED
leg runs `toolgate dispatch --read-only --exec ... -- codex ARGS` (the tree must not change).

CODEX_HOME is kept out of the system temp dir: under /tmp codex 0.171.0 refuses to create its
helper binaries and sandboxed commands then fail for a reason that has nothing to do with
read-only (see ../shared/lanes/FACTS.md). Homes live under `<checkout>/.cache/e2e-codex-home/`
(git-ignored) and are removed after the leg.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.conftest import REPO_ROOT, dispatch_exec_argv, toolgate_env
from tests.e2e.stub_openai import STUB_KEY_ENV, FunctionCall, StubOpenAI
from tests.e2e.tree import changes, fresh_tree, run_lane, snapshot

HOMES_ROOT = REPO_ROOT / ".cache" / "e2e-codex-home"
PROMPT = "do the task"
CODEX_TIMEOUT = 90.0

# Placeholders a template may carry; expanded per leg.
STUB = "<STUB>"  # the -c model_provider/model_providers.stub options and -m MODEL
STUB_NO_MODEL_FLAG = "<STUB-C>"  # same, but the model as -c model="..." (codex review has no -m)
TREE = "<TREE>"  # replaced inside any word by the leg's tree path
OTHER = "<OTHER>"  # a second directory beside the tree (for --add-dir / -C scenarios)
PORT = "<PORT>"  # the stub's port

Template = Sequence[str]
Setup = Callable[[Path, Path], None]  # (tree, codex_home) -> None, runs before the snapshot

MCP_WRITER = Path(__file__).with_name("codex_mcp_writer.py")

# The model asks to run its command outside the sandbox (exec_command's own parameter).
ESCALATED_TOUCH = FunctionCall(
    "exec_command",
    {"cmd": "touch X", "sandbox_permissions": "require_escalated", "justification": "needed"},
)


def exec_template(before: Sequence[str], after: Sequence[str] = ()) -> list[str]:
    """`codex BEFORE... --skip-git-repo-check <stub options> PROMPT AFTER...`"""
    return [*before, "--skip-git-repo-check", STUB, PROMPT, *after]


# What a blocked write looks like in the tool output codex returns to the model.
BLOCKED_MARKERS = (
    "Read-only file system",
    "patch rejected",
    "unsupported call",
    "requires approval",
    "approval policy is Never",
)


class Leg:
    """What one codex run did: exit status, output, what the stub saw, what changed on disk."""

    def __init__(
        self,
        *,
        gated: bool,
        argv: list[str],
        returncode: int,
        stdout: str,
        stderr: str,
        requests: list[dict[str, Any]],
        any_request: int,
        outputs: list[str],
        tree_changes: list[str],
        other_changes: list[str],
    ) -> None:
        self.gated = gated
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.requests = requests
        self.any_request = any_request
        self.outputs = outputs
        self.tree_changes = tree_changes
        self.other_changes = other_changes

    def describe(self) -> str:
        return (
            f"{'gated' if self.gated else 'control'} leg\n argv: {self.argv}\n"
            f" rc: {self.returncode}\n tree changes: {self.tree_changes}\n"
            f" other-dir changes: {self.other_changes}\n requests: {len(self.requests)}\n"
            f" tool outputs: {self.outputs}\n stdout tail: {self.stdout[-600:]!r}\n"
            f" stderr tail: {self.stderr[-1500:]!r}"
        )


def new_home() -> Path:
    home = HOMES_ROOT / uuid.uuid4().hex[:12]
    (home / "codex").mkdir(parents=True)
    (home / "home").mkdir()
    (home / "tmp").mkdir()
    return home


def expand(template: Template, stub: StubOpenAI, model: str, tree: Path, other: Path) -> list[str]:
    out: list[str] = []
    for word in template:
        if word == STUB:
            out.extend(stub.codex_args(model))
        elif word == STUB_NO_MODEL_FLAG:
            out.extend([*stub.codex_args(model)[:4], "-c", f'model="{model}"'])
        else:
            out.append(
                word.replace(TREE, str(tree))
                .replace(OTHER, str(other))
                .replace(PORT, str(stub.port))
            )
    return out


def codex_env(home: Path) -> dict[str, str]:
    # TMPDIR beside CODEX_HOME, not above it: codex 0.171.0 refuses to create its helper
    # binaries (apply_patch among them) when CODEX_HOME lies under the temp dir, so with a
    # checkout under /tmp every patch failed, control legs included (measured).
    env = {
        "CODEX_HOME": str(home / "codex"),
        "HOME": str(home / "home"),
        "TMPDIR": str(home / "tmp"),
        STUB_KEY_ENV: "sk-stub-not-a-secret",
        "NO_COLOR": "1",
    }
    return env


def run_leg(
    codex_bin: Path,
    template: Template,
    parent: Path,
    *,
    gated: bool,
    script: Sequence[FunctionCall],
    model: str = "gpt-5",
    setup: Setup | None = None,
    structured_answer: dict[str, Any] | None = None,
    toolgate_flags: Sequence[str] = (),
    git_dir: bool = False,
) -> Leg:
    """One run of `codex TEMPLATE` in a fresh tree under `parent` (control or through toolgate).

    `toolgate_flags`: extra `toolgate dispatch` options for the gated leg (e.g. `--lock-tree`).
    `git_dir`: the tree's changes include every file inside `.git` (see `tree.snapshot`)."""
    label = "gated" if gated else "control"
    tree = fresh_tree(parent, f"{label}-tree")
    other = fresh_tree(parent, f"{label}-other")
    home = new_home()
    try:
        if setup is not None:
            setup(tree, home / "codex")
        with StubOpenAI(script, structured_answer=structured_answer) as stub:
            args = expand(template, stub, model, tree, other)
            # Every scripted tool call may name the tree or the stub: expand them too.
            stub.script = [_expand_call(call, tree, other, stub.port) for call in stub.script]
            if gated:
                argv = dispatch_exec_argv(codex_bin, args, tree=tree, flags=toolgate_flags)
                env = toolgate_env(codex_env(home))
            else:
                argv = [str(codex_bin), *args]
                env = {**os.environ, **codex_env(home)}
            for key in ("OPENAI_API_KEY", "CODEX_API_KEY", "OPENAI_BASE_URL"):
                env.pop(key, None)
            before = snapshot(tree, git_dir=git_dir)
            before_other = snapshot(other)
            rc, out, err = run_lane(argv, cwd=tree, env=env, timeout=CODEX_TIMEOUT)
            return Leg(
                gated=gated,
                argv=argv,
                returncode=rc,
                stdout=out,
                stderr=err,
                requests=stub.responses_requests(),
                any_request=len(stub.requests),
                outputs=stub.function_outputs(),
                tree_changes=changes(before, snapshot(tree, git_dir=git_dir)),
                other_changes=changes(before_other, snapshot(other)),
            )
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _expand_call(call: FunctionCall, tree: Path, other: Path, port: int) -> FunctionCall:
    def sub(text: str) -> str:
        return text.replace(TREE, str(tree)).replace(OTHER, str(other)).replace(PORT, str(port))

    if isinstance(call.arguments, str):
        arguments: dict[str, Any] | str = sub(call.arguments)
    else:
        arguments = {k: sub(v) if isinstance(v, str) else v for k, v in call.arguments.items()}
    return FunctionCall(call.name, arguments, custom=call.custom, namespace=call.namespace)


def control_and_gated(
    codex_bin: Path,
    template: Template,
    parent: Path,
    *,
    script: Sequence[FunctionCall],
    model: str = "gpt-5",
    setup: Setup | None = None,
    toolgate_flags: Sequence[str] = (),
    git_dir: bool = False,
) -> tuple[Leg, Leg]:
    """Both legs of a scenario, run side by side (separate trees, homes and stubs)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(
                run_leg,
                codex_bin,
                template,
                parent,
                gated=gated,
                script=script,
                model=model,
                setup=setup,
                toolgate_flags=toolgate_flags,
                git_dir=git_dir,
            )
            for gated in (False, True)
        ]
        control, gated_leg = (future.result() for future in futures)
    return control, gated_leg


# -- assertions --------------------------------------------------------------------------------
def assert_control_wrote(leg: Leg, expected: Sequence[str], *, where: str = "tree") -> None:
    """The control leg must have run and made every expected change (`new: X`, ...)."""
    seen = leg.tree_changes if where == "tree" else leg.other_changes
    missing = [item for item in expected if item not in seen]
    assert not missing, (
        f"CONTROL did not make {missing}: the scenario proves nothing\n{leg.describe()}"
    )


def assert_gated_held(leg: Leg, *, tool_attempted: bool) -> None:
    """The gated leg changed nothing; it either was refused before codex ran (exit 3, the stub
    saw no request), or codex ran and every scripted write came back blocked."""
    assert leg.tree_changes == [], f"toolgate let the tree change\n{leg.describe()}"
    assert leg.other_changes == [], f"toolgate let the other dir change\n{leg.describe()}"
    if leg.returncode == 3:
        assert leg.any_request == 0, f"refused (exit 3) but codex ran\n{leg.describe()}"
        assert leg.stderr.strip(), f"refusal without a reason on stderr\n{leg.describe()}"
        return
    assert leg.returncode == 0, f"gated run neither refused (3) nor succeeded\n{leg.describe()}"
    assert leg.requests, f"gated run made no model request\n{leg.describe()}"
    if tool_attempted:
        assert leg.outputs, f"the scripted tool call never came back\n{leg.describe()}"
        for output in leg.outputs:
            assert any(marker in output for marker in BLOCKED_MARKERS), (
                f"tool output does not show a blocked write: {output!r}\n{leg.describe()}"
            )


def assert_refused(leg: Leg) -> None:
    assert leg.returncode == 3, f"expected a refusal (exit 3)\n{leg.describe()}"
    assert leg.any_request == 0, f"refused but codex ran\n{leg.describe()}"
    assert leg.tree_changes == [] and leg.other_changes == [], leg.describe()
