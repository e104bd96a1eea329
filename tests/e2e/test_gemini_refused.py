"""Why toolgate refuses gemini without the tree lock, measured with the real gemini 0.61.0.

gemini's `--approval-mode plan` is documented as a "read-only mode", and it is the spelling a
flag rewrite would use. Two routes get past it in a headless run, each a scenario here:
- the model itself: it writes a plan into gemini's plans directory (the one place plan mode
  lets `write_file` write), calls `exit_plan_mode`, and a headless run approves the plan and
  switches to YOLO ("all tool calls auto-approved"); its next `write_file` and
  `run_shell_command` write the tree;
- the user's `~/.gemini/settings.json` hooks run whatever the mode (SessionStart, BeforeTool,
  ...), and no command-line flag keeps that settings file from loading.

Each scenario runs three legs in fresh trees: the CONTROL (gemini as given) must write the
tree, else it proves nothing; through `toolgate dispatch --read-only --exec` gemini is refused
(exit 3) and never starts; through `--lock-tree` it runs and the tree does not change.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import toolgate_argv, toolgate_env
from tests.e2e.stub_gemini import MODEL, FunctionCall, StubGemini, response_text, scrubbed_environ
from tests.e2e.tree import changes, fresh_tree, snapshot

pytestmark = pytest.mark.e2e

SESSION = "11111111-2222-4333-8444-555555555555"
"""A fixed session id (`--session-id`), so the stub model can name gemini's plans directory:
`~/.gemini/tmp/<project>/<session>/plans`, the project being the tree's directory name."""

TREE_NAME = "tree"

Setup = Callable[[Path, Path], None]  # (tree, home)
Script = Callable[[Path, Path], list[FunctionCall]]  # (tree, home) -> the model's tool calls


def _plan_escape_script(tree: Path, home: Path) -> list[FunctionCall]:
    plans = home / ".gemini" / "tmp" / TREE_NAME / SESSION / "plans"
    return [
        FunctionCall("write_file", {"file_path": f"{plans}/plan.md", "content": "# plan\n"}),
        FunctionCall("exit_plan_mode", {"plan_filename": "plan.md"}),
        FunctionCall("write_file", {"file_path": f"{tree}/written.txt", "content": "w\n"}),
        FunctionCall("run_shell_command", {"command": f"touch {tree}/touched.txt"}),
    ]


def _read_script(tree: Path, home: Path) -> list[FunctionCall]:
    return [FunctionCall("read_file", {"file_path": f"{tree}/README.md"})]


def _settings_hooks(tree: Path, home: Path) -> None:
    settings_file = home / ".gemini" / "settings.json"
    settings = json.loads(settings_file.read_text())

    def hook(event: str) -> list[dict[str, object]]:
        command = {"type": "command", "name": event, "command": f"touch {tree}/hook-{event}"}
        return [{"hooks": [command]}]

    settings["hooks"] = {event: hook(event) for event in ("SessionStart", "BeforeTool")}
    settings_file.write_text(json.dumps(settings))


SCENARIOS: dict[str, tuple[Script, Setup | None, tuple[str, ...]]] = {
    # (the model's calls, what to plant first, what the control must change in the tree)
    "plan-mode/exit_plan_mode": (
        _plan_escape_script, None, ("new: written.txt", "new: touched.txt"),
    ),
    "plan-mode/settings-hooks": (_read_script, _settings_hooks, ("new: hook-SessionStart",)),
}  # fmt: skip


def _leg(
    gemini_bin: Path, scenario: str, parent: Path, toolgate_flags: tuple[str, ...] | None
) -> tuple[subprocess.CompletedProcess[str], list[str], StubGemini]:
    """One run in a fresh tree under `parent`: gemini directly (`toolgate_flags` None), or
    through `toolgate dispatch --read-only [FLAGS] --exec`."""
    make_script, setup, _ = SCENARIOS[scenario]
    parent.mkdir()
    tree = fresh_tree(parent, TREE_NAME)
    home = parent / "home"  # outside the tree: gemini keeps its sessions and plans there
    template = ["-p", "do the task", "--approval-mode", "plan", "--session-id", SESSION]
    with StubGemini(make_script(tree, home)) as stub:
        env = scrubbed_environ(toolgate_env())
        env.update(stub.gemini_env(home))
        if setup is not None:
            setup(tree, home)
        before = snapshot(tree)
        argv = [str(gemini_bin), *template, "-m", MODEL]
        if toolgate_flags is not None:
            argv = toolgate_argv(
                "dispatch", "--read-only", *toolgate_flags, "--exec",
                "--cwd", str(tree), "--caller-root", str(tree), "--", *argv,
            )  # fmt: skip
        done = subprocess.run(
            argv, cwd=tree, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=120, check=False,
        )  # fmt: skip
        return done, changes(before, snapshot(tree)), stub


def _describe(done: subprocess.CompletedProcess[str], changed: list[str], stub: StubGemini) -> str:
    return (
        f"exit {done.returncode}\nchanges: {changed}\n"
        f"tool results: {[response_text(r)[:160] for r in stub.function_responses()]}\n"
        f"stdout: {done.stdout[-600:]}\nstderr: {done.stderr[-1200:]}"
    )


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_gemini_plan_mode_writes_so_toolgate_refuses_it_and_the_lock_holds(
    scenario: str, gemini_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    control = _leg(gemini_bin, scenario, tmp_path / "control", None)
    missing = [want for want in SCENARIOS[scenario][2] if want not in control[1]]
    assert not missing, f"CONTROL did not write {missing}: proves nothing\n{_describe(*control)}"

    refused = _leg(gemini_bin, scenario, tmp_path / "refused", ())
    assert refused[0].returncode == 3, f"toolgate should refuse gemini\n{_describe(*refused)}"
    assert "--approval-mode plan" in refused[0].stderr, refused[0].stderr
    assert refused[1] == [] and refused[2].requests == [], _describe(*refused)

    locked = _leg(gemini_bin, scenario, tmp_path / "locked", ("--lock-tree",))
    assert locked[0].returncode == 0, f"gemini should run under the lock\n{_describe(*locked)}"
    assert locked[1] == [], f"the tree changed under the lock\n{_describe(*locked)}"
    assert locked[2].generate_requests(), f"gemini never asked the model\n{_describe(*locked)}"
