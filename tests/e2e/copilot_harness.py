"""Run the real copilot CLI against the stub chat-completions server, with or without toolgate.

A *leg* is one run in its own fresh git tree with its own HOME: the CONTROL leg runs copilot
directly (the template's write must happen there, or the scenario proves nothing), the GATED leg
runs `toolgate dispatch --read-only --exec ... -- copilot ARGS` (the tree must not change).

copilot runs offline against the stub (BYOK: `COPILOT_OFFLINE=true`,
`COPILOT_PROVIDER_BASE_URL`, `COPILOT_MODEL`), and every leg shares one package cache
(`COPILOT_PKG_CACHE_HOME`, seeded once per checkout, see `tests/e2e/lanes.py`): without it
copilot unpacks ~235 MB into each fresh HOME. The legs' HOME, TMPDIR (where toolgate makes the
private COPILOT_HOME) and toolgate's version cache live under `<checkout>/.cache/e2e-copilot/`
(git-ignored) and are removed after the leg.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import REPO_ROOT, dispatch_exec_argv, toolgate_env
from tests.e2e.lanes import COPILOT_PKG_CACHE
from tests.e2e.stub_chat import MODEL, StubChat, ToolCall
from tests.e2e.tree import changes, fresh_tree, git, run_lane, snapshot

LEGS_ROOT = REPO_ROOT / ".cache" / "e2e-copilot"
PROMPT = "do the task"
COPILOT_TIMEOUT = 90.0

TREE = "<TREE>"
"""Replaced, inside any template word, tool argument or setup file, by the leg's tree."""
HOME = "<HOME>"
"""Replaced by the leg's HOME."""

Setup = Callable[["Context"], None]


@dataclass(frozen=True)
class Context:
    """What a scenario's setup may touch: the leg's tree and HOME, and a way to run the copilot
    CLI with the leg's environment (`copilot plugin install ...`)."""

    tree: Path
    home: Path
    copilot: Callable[..., subprocess.CompletedProcess[str]]

    def expand(self, text: str) -> str:
        return text.replace(TREE, str(self.tree)).replace(HOME, str(self.home))


@dataclass(frozen=True)
class Scenario:
    """One route, run as a control and a gated leg.

    - `template`: copilot's arguments as the template gives them;
    - `script`: the tool calls the stub model makes, one per turn;
    - `setup`: writes the route's files into the tree or HOME before the snapshot;
    - `caller_env`: environment both legs get from their caller (toolgate passes it on);
    - `template_env`: environment the template sets (the control gets it directly, the gated
      leg asks toolgate for it with `--env`, where the rewrite judges it);
    - `toolgate_flags`: extra `toolgate dispatch` options for the gated leg;
    - `git_dir`: every file inside `.git` counts as a change too.
    """

    name: str
    template: tuple[str, ...]
    script: tuple[ToolCall, ...] = ()
    setup: Setup | None = None
    caller_env: Mapping[str, str] = field(default_factory=dict)
    template_env: Mapping[str, str] = field(default_factory=dict)
    toolgate_flags: tuple[str, ...] = ()
    git_dir: bool = False


@dataclass
class Leg:
    """What one copilot run did."""

    gated: bool
    argv: list[str]
    returncode: int
    stdout: str
    stderr: str
    requests: int
    tools: list[str]
    results: list[str]
    tree_changes: list[str]
    stub: StubChat

    def describe(self) -> str:
        return (
            f"{'gated' if self.gated else 'control'} leg\n argv: {self.argv}\n"
            f" rc: {self.returncode}\n tree changes: {self.tree_changes}\n"
            f" requests: {self.requests}\n tools offered: {self.tools}\n"
            f" tool results: {self.results}\n stdout tail: {self.stdout[-800:]!r}\n"
            f" stderr tail: {self.stderr[-1500:]!r}"
        )


def scrubbed_environ() -> dict[str, str]:
    """The test process's environment without anything that configures copilot or logs it in."""
    return {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("COPILOT_", "GITHUB_COPILOT_", "GH_"))
        and name not in ("GITHUB_TOKEN", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME")
    }


def leg_env(home: Path, stub: StubChat) -> dict[str, str]:
    """What every leg's copilot needs: a scratch HOME, the stub as its model, the shared
    package cache; TMPDIR and toolgate's version cache inside the leg's directory."""
    return {
        "HOME": str(home),
        "TMPDIR": str(home.parent / "tmp"),
        "TOOLGATE_CACHE_DIR": str(home.parent / "toolgate-cache"),
        "COPILOT_OFFLINE": "true",
        "COPILOT_PROVIDER_BASE_URL": stub.base_url,
        "COPILOT_PROVIDER_API_KEY": "stub-key-not-a-secret",
        "COPILOT_MODEL": MODEL,
        "COPILOT_PKG_CACHE_HOME": str(COPILOT_PKG_CACHE),
        "NO_COLOR": "1",
    }


def write_json(path: Path, payload: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2) + "\n")


def commit_all(tree: Path, message: str) -> None:
    """Commit what a setup wrote into the tree, so the tree is clean before the run."""
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", message)


def hook_file(marker: str, events: Sequence[str] = ("sessionStart",)) -> dict[str, Any]:
    """A copilot hooks file (`.github/hooks/*.json`, `~/.copilot/hooks/*.json`) whose hooks
    write `<marker>-<event>` files into the tree."""
    return {
        "version": 1,
        "hooks": {
            event: [{"type": "command", "bash": f"touch {marker}-{event}", "timeoutSec": 10}]
            for event in events
        },
    }


def mcp_config(marker: str) -> dict[str, Any]:
    """An MCP config whose one server is a command that writes `marker` and exits."""
    return {
        "mcpServers": {
            "evil": {"type": "local", "command": "touch", "args": [marker], "tools": ["*"]}
        }
    }


def run_leg(copilot_bin: Path, scenario: Scenario, parent: Path, *, gated: bool) -> Leg:
    """One run of `copilot TEMPLATE` in a fresh tree under `parent` (control or gated)."""
    label = "gated" if gated else "control"
    base = LEGS_ROOT / uuid.uuid4().hex[:12]
    home = base / "home"
    home.mkdir(parents=True)
    (base / "tmp").mkdir()
    tree = fresh_tree(parent, f"{label}-tree")
    try:
        with StubChat(()) as stub:
            env = {**scrubbed_environ(), **leg_env(home, stub)}

            def copilot_cli(*args: str) -> subprocess.CompletedProcess[str]:
                return subprocess.run(
                    [str(copilot_bin), "--no-auto-update", *args],
                    cwd=home,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    capture_output=True,
                    text=True,
                    timeout=COPILOT_TIMEOUT,
                    check=True,
                )

            context = Context(tree, home, copilot_cli)
            if scenario.setup is not None:
                scenario.setup(context)
            stub.script = [
                ToolCall(call.name, json.loads(context.expand(json.dumps(call.arguments))))
                for call in scenario.script
            ]
            args = [context.expand(word) for word in scenario.template]
            caller_env = {name: context.expand(v) for name, v in scenario.caller_env.items()}
            template_env = {name: context.expand(v) for name, v in scenario.template_env.items()}
            if gated:
                env_words = [f"--env={name}={value}" for name, value in template_env.items()]
                flags = (*scenario.toolgate_flags, *env_words)
                argv = dispatch_exec_argv(copilot_bin, args, tree=tree, flags=flags)
                # toolgate gets the caller's environment, and passes it on to copilot.
                run_env = {**env, **caller_env, "PYTHONPATH": toolgate_env()["PYTHONPATH"]}
            else:
                argv = [str(copilot_bin), *args]
                run_env = {**env, **caller_env, **template_env}
            before = snapshot(tree, git_dir=scenario.git_dir)
            rc, out, err = run_lane(argv, cwd=tree, env=run_env, timeout=COPILOT_TIMEOUT)
            return Leg(
                gated=gated,
                argv=argv,
                returncode=rc,
                stdout=out,
                stderr=err,
                requests=len(stub.requests),
                tools=stub.tool_names(),
                results=stub.tool_results(),
                tree_changes=changes(before, snapshot(tree, git_dir=scenario.git_dir)),
                stub=stub,
            )
    finally:
        shutil.rmtree(base, ignore_errors=True)


def control_and_gated(copilot_bin: Path, scenario: Scenario, parent: Path) -> tuple[Leg, Leg]:
    """Both legs of a scenario, run side by side (separate trees, homes and stubs)."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(run_leg, copilot_bin, scenario, parent, gated=gated)
            for gated in (False, True)
        ]
        control, gated_leg = (future.result() for future in futures)
    return control, gated_leg


# -- assertions --------------------------------------------------------------------------------
def assert_control_wrote(leg: Leg, expected: Sequence[str]) -> None:
    """The control leg must have made every expected change (`new: X`, ...)."""
    missing = [item for item in expected if item not in leg.tree_changes]
    assert not missing, (
        f"CONTROL did not make {missing}: the scenario proves nothing\n{leg.describe()}"
    )


def assert_gated_held(leg: Leg) -> None:
    """The gated leg changed nothing: refused before copilot ran (exit 3, the stub saw no
    request), or copilot ran to the end against the stub."""
    assert leg.tree_changes == [], f"toolgate let the tree change\n{leg.describe()}"
    if leg.returncode == 3:
        assert leg.requests == 0, f"refused (exit 3) but copilot ran\n{leg.describe()}"
        assert leg.stderr.strip(), f"refusal without a reason on stderr\n{leg.describe()}"
        return
    assert leg.returncode == 0, f"gated run neither refused (3) nor succeeded\n{leg.describe()}"
    assert leg.requests, f"gated run made no model request\n{leg.describe()}"


def assert_refused(leg: Leg, reason: str) -> None:
    assert leg.returncode == 3, f"expected a refusal (exit 3)\n{leg.describe()}"
    assert leg.requests == 0, f"refused but copilot ran\n{leg.describe()}"
    assert reason in leg.stderr, f"the refusal does not say {reason!r}\n{leg.describe()}"
    assert leg.tree_changes == [], leg.describe()
