"""End-to-end proof that `toolgate dispatch --read-only --lock-tree` holds with the real lanes.

The tree lock runs the lane under bubblewrap with the caller's tree mounted read-only, so it
must hold even where the lane's own flags grant every write. Each writing scenario runs twice,
each time in a fresh git tree (snapshots include every file inside `.git`):
- CONTROL: the lane with the template as given, WIDE open; the scripted writes MUST land, else
  the scenario proves nothing and the test fails;
- GATED: `toolgate dispatch --read-only --lock-only --exec` (the template is NOT rewritten, the
  lock alone holds): the lane runs, the model's writing tool calls are really attempted and
  come back with "Read-only file system" / EROFS, and nothing in the tree changes.

Then the two layers together (`--lock-tree`: the lane's read-only flags plus the lock) must
leave the lanes' ordinary reading intact, and an unknown lane binary (which has no read-only
flags) runs under the lock alone.

Measured with claude 2.1.197, codex 0.171.0, opencode 1.18.33, gemini 0.61.0, copilot 1.0.102,
bubblewrap 0.8.0, running as root; the facts behind each scenario are in the comments.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import run_toolgate, toolgate_argv, toolgate_env
from tests.e2e import codex_harness, copilot_harness
from tests.e2e.claude_harness import (
    PROMPT,
    Context,
    Scenario,
    commit_all,
    hooks_writing,
    write_json,
)
from tests.e2e.claude_harness import Leg as ClaudeLeg
from tests.e2e.claude_harness import run_leg as run_claude_leg
from tests.e2e.codex_harness import exec_template
from tests.e2e.stub_anthropic import StubAnthropic, ToolCall, scrubbed_environ
from tests.e2e.stub_chat import ToolCall as ChatCall
from tests.e2e.stub_gemini import MODEL as GEMINI_MODEL
from tests.e2e.stub_gemini import FunctionCall as GeminiCall
from tests.e2e.stub_gemini import StubGemini
from tests.e2e.stub_gemini import response_text as gemini_response_text
from tests.e2e.stub_gemini import scrubbed_environ as gemini_scrubbed_environ
from tests.e2e.stub_openai import shell
from tests.e2e.tree import changes, fresh_tree, snapshot

pytestmark = pytest.mark.e2e

EROFS_MARKERS = ("read-only file system", "erofs")
"""How a write the kernel refused reads in a tool result, lower-cased: claude's own Write and
Edit report Node's `EROFS: read-only file system, open '...'`; bash and coreutils say
`Read-only file system`, zsh (claude's Bash picks it when $SHELL is unset) says
`read-only file system`."""

SEED_TEXT = "# sample tree"
"""The first line of the tree's README.md (tests/e2e/tree.py)."""

GIT_COMMIT = (
    "git -c user.name=e2e -c user.email=e2e@toolgate.invalid commit -q --allow-empty -m evil"
)


def _blocked(text: str) -> bool:
    lowered = text.lower()
    return any(marker in lowered for marker in EROFS_MARKERS)


def _assert_call_answered(call: object, expect: str, result: str) -> None:
    """One scripted call's result under the lock, by what the script expects of it: "erofs"
    (the kernel refused the write), "read" (the tree's README came back) or "outside" (a
    write outside the tree landed)."""
    if expect == "erofs":
        assert _blocked(result), f"{call} was not refused by the kernel: {result!r}"
    elif expect == "read":
        assert SEED_TEXT in result, f"the read under the lock failed: {result!r}"
    else:
        assert expect == "outside", expect
        assert "wrote-outside" in result, f"the write outside the tree failed: {result!r}"


# ---- 1. claude, template wide open, --lock-only ------------------------------------------
# (call, what a blocked call's result must show: "erofs", "read" (the README), or "outside")
CLAUDE_SCRIPT: tuple[tuple[ToolCall, str], ...] = (
    (ToolCall("Write", {"file_path": "{TREE}/written.txt", "content": "written\n"}), "erofs"),
    (ToolCall("Read", {"file_path": "{TREE}/README.md"}), "read"),
    (
        ToolCall(
            "Edit",
            {"file_path": "{TREE}/README.md", "old_string": "sample", "new_string": "EDITED"},
        ),
        "erofs",
    ),
    (ToolCall("Bash", {"command": "touch {TREE}/touched.txt"}), "erofs"),
    (ToolCall("Bash", {"command": "echo x > {TREE}/echoed.txt"}), "erofs"),
    (ToolCall("Bash", {"command": f"cd {{TREE}} && {GIT_COMMIT}"}), "erofs"),
    # The lane keeps its home writable: a write outside the tree still lands.
    (ToolCall("Bash", {"command": "echo outside > {HOME}/outside.txt && echo wrote-outside"}),
     "outside"),
)  # fmt: skip

CLAUDE_CONTROL_WRITES = (
    "new: written.txt",
    "changed: README.md",
    "new: touched.txt",
    "new: echoed.txt",
    "changed: .git/refs/heads/main",  # the git commit
    "new: hook-SessionStart",  # the project settings' hooks
    "new: hook-PreToolUse",
)


def _project_hooks(ctx: Context) -> None:
    # The reviewed tree's own .claude/settings.json runs hooks under -p (no trust dialog).
    write_json(ctx.tree / ".claude" / "settings.json", {"hooks": hooks_writing(f"{ctx.tree}/hook")})
    commit_all(ctx.tree, "project hooks")


# claude refuses --dangerously-skip-permissions and bypassPermissions as root unless
# IS_SANDBOX=1 (measured in 2.1.197: `process.env.IS_SANDBOX!=="1"` guards the refusal); the
# variable changes nothing else we rely on, and is harmless for a non-root run.
WIDE_OPEN_ENV = {"IS_SANDBOX": "1"}

CLAUDE_WIDE_OPEN = {
    "skip-permissions": ("-p", "--dangerously-skip-permissions", PROMPT),
    "bypassPermissions+allowedTools": (
        "-p", "--permission-mode", "bypassPermissions", "--allowedTools", "Write,Edit,Bash",
        "--", PROMPT,
    ),
}  # fmt: skip


def _claude_legs(scenario: Scenario, parent: Path, claude_bin: Path) -> tuple[ClaudeLeg, ClaudeLeg]:
    # The two legs share nothing (own tree, HOME and stub), so they run side by side.
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(run_claude_leg, scenario, parent, claude_bin, gated=gated, git_dir=True)
            for gated in (False, True)
        ]
        control, gated_leg = (future.result() for future in futures)
    return control, gated_leg


@pytest.mark.parametrize("template", list(CLAUDE_WIDE_OPEN), ids=str)
def test_claude_wide_open_template_cannot_write_under_the_lock_alone(
    template: str, claude_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    scenario = Scenario(
        f"lock-only/{template}",
        CLAUDE_WIDE_OPEN[template],
        CLAUDE_CONTROL_WRITES,
        tuple(call for call, _ in CLAUDE_SCRIPT),
        setup=_project_hooks,
        env=WIDE_OPEN_ENV,
        toolgate_flags=("--lock-only",),
    )
    control, gated = _claude_legs(scenario, tmp_path, claude_bin)

    missing = [want for want in CLAUDE_CONTROL_WRITES if want not in control.changes]
    assert not missing, f"CONTROL did not write {missing}: proves nothing\n{control.describe()}"
    assert len(control.stub.tool_result_texts()) == len(CLAUDE_SCRIPT), control.describe()

    assert gated.returncode == 0, f"claude should run under the lock\n{gated.describe()}"
    assert gated.changes == [], f"the tree changed under the lock\n{gated.describe()}"
    offered = set(gated.stub.main_turns()[0].tool_names)
    assert {"Write", "Edit", "Bash"} <= offered, f"--lock-only rewrote the tools\n{offered}"
    results = gated.stub.tool_result_texts()
    assert len(results) == len(CLAUDE_SCRIPT), f"a call went unanswered\n{gated.describe()}"
    for (call, expect), result in zip(CLAUDE_SCRIPT, results, strict=True):
        _assert_call_answered(call, expect, result)
    outside = tmp_path / "gated-home" / "outside.txt"
    assert outside.read_text() == "outside\n", gated.describe()


# ---- 2. codex, template wide open, --lock-only ---------------------------------------------
CODEX_SCRIPT = (
    shell("touch X"),
    shell("echo x > f"),
    shell(GIT_COMMIT),
    shell("git branch evil"),
)
CODEX_CONTROL_WRITES = (
    "new: X",
    "new: f",
    "changed: .git/refs/heads/main",
    "changed: <git branches>",
)
CODEX_WIDE_OPEN = {
    "dangerously-bypass": exec_template(["exec", "--dangerously-bypass-approvals-and-sandbox"]),
    "danger-full-access": exec_template(["exec", "--sandbox", "danger-full-access"]),
}


@pytest.mark.parametrize("template", list(CODEX_WIDE_OPEN), ids=str)
def test_codex_wide_open_template_cannot_write_under_the_lock_alone(
    template: str, codex_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    control, gated = codex_harness.control_and_gated(
        codex_bin,
        CODEX_WIDE_OPEN[template],
        tmp_path,
        script=CODEX_SCRIPT,
        toolgate_flags=("--lock-only",),
        git_dir=True,
    )
    codex_harness.assert_control_wrote(control, CODEX_CONTROL_WRITES)
    assert gated.returncode == 0, f"codex should run under the lock\n{gated.describe()}"
    assert gated.tree_changes == [], f"the tree changed under the lock\n{gated.describe()}"
    assert len(gated.outputs) == len(CODEX_SCRIPT), f"a call went unanswered\n{gated.describe()}"
    for call, output in zip(CODEX_SCRIPT, gated.outputs, strict=True):
        assert _blocked(output), f"{call} was not refused: {output!r}"


# ---- 3. both layers: the lanes still read ------------------------------------------------
@pytest.mark.parametrize(
    ("flags", "call"),
    [
        ((), ToolCall("Read", {"file_path": "{TREE}/README.md"})),
        (("--read-shell",), ToolCall("Bash", {"command": "cat {TREE}/README.md"})),
    ],
    ids=["Read", "read-shell-cat"],
)
def test_claude_reads_under_both_layers(
    flags: tuple[str, ...], call: ToolCall, claude_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    """`--lock-tree` with claude's read-only rewrite: a read returns the file (with
    `--read-shell`, toolgate's own PreToolUse hook runs inside the lock too)."""
    scenario = Scenario("both-layers/read", ("-p", PROMPT), (), (call,),
                        toolgate_flags=("--lock-tree", *flags))  # fmt: skip
    gated = run_claude_leg(scenario, tmp_path, claude_bin, gated=True, git_dir=True)
    assert gated.returncode == 0, gated.describe()
    assert gated.changes == [], gated.describe()
    results = gated.stub.tool_result_texts()
    assert len(results) == 1 and SEED_TEXT in results[0], gated.describe()


# codex's own sandbox is bubblewrap too (the first `bwrap` on PATH, else its bundled one), so
# it nests inside the lock. Measured as root before the lock gave a root-started lane a user
# namespace of its own: the nested bwrap failed with "bwrap: setting up uid map: Operation not
# permitted" (every capability dropped, and since Linux 5.12 mapping uid 0 into a new user
# namespace needs CAP_SETFCAP), so no codex shell command could run, reads included. This test
# is what keeps that fixed (toolgate_cli/treelock.py, ROOT_LANE_UID).


def test_codex_shell_read_under_both_layers(codex_bin: Path, bwrap: Path, tmp_path: Path) -> None:
    gated = codex_harness.run_leg(
        codex_bin,
        exec_template(["exec"]),
        tmp_path,
        gated=True,
        script=[shell("cat README.md")],
        toolgate_flags=("--lock-tree",),
        git_dir=True,
    )
    assert gated.returncode == 0, gated.describe()
    assert gated.tree_changes == [], gated.describe()
    assert len(gated.outputs) == 1, gated.describe()
    assert SEED_TEXT in gated.outputs[0], gated.describe()


# ---- 4. an unknown lane binary runs under the lock alone ---------------------------------
MYLANE = f"""#!{sys.executable}
\"\"\"A lane toolgate knows nothing about: it tries to write into its cwd, into the tree's .git
and outside the tree (argv[1]), and reports each outcome.\"\"\"
import subprocess
import sys

def attempt(name, action):
    try:
        action()
        print(name, "wrote")
    except OSError as error:
        print(name, "failed:", error.strerror)

def write(path):
    with open(path, "w") as handle:
        handle.write("mylane\\n")

attempt("cwd", lambda: write("lane-wrote.txt"))
attempt("git-config", lambda: open(".git/config", "a").write("[evil]\\n"))
attempt("git-hook", lambda: write(".git/hooks/post-checkout"))
attempt("outside", lambda: write(sys.argv[1]))
done = subprocess.run(["git", "branch", "evil"], capture_output=True, text=True)
print("git-branch", "wrote" if done.returncode == 0 else "failed: " + done.stderr.strip())
"""
MYLANE_STEPS = ("cwd", "git-config", "git-hook", "git-branch")


def run_lane(
    template: list[str], tree: Path, env: dict[str, str], *, gated: bool, timeout: int = 120
) -> subprocess.CompletedProcess[str]:
    """`template` run in `tree`: as given (the control), or through
    `toolgate dispatch --read-only --lock-tree --exec` (gated), the lock alone for a lane
    toolgate has no flags for."""
    argv = template
    if gated:
        argv = toolgate_argv(
            "dispatch", "--read-only", "--lock-tree", "--exec",
            "--cwd", str(tree), "--caller-root", str(tree), "--", *template,
        )  # fmt: skip
    return subprocess.run(
        argv, cwd=tree, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def _mylane_leg(parent: Path, bin_dir: Path, *, gated: bool) -> tuple[str, list[str], Path]:
    name = "gated" if gated else "control"
    tree = fresh_tree(parent, f"{name}-tree")
    outside = parent / f"{name}-outside.txt"
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    before = snapshot(tree, git_dir=True)
    done = run_lane(["mylane", str(outside)], tree, toolgate_env(env), gated=gated, timeout=60)
    assert done.returncode == 0, f"{name}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done.stdout, changes(before, snapshot(tree, git_dir=True)), outside


def test_unknown_lane_runs_under_the_lock_alone(bwrap: Path, tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mylane").write_text(MYLANE)
    (bin_dir / "mylane").chmod(0o755)
    tree = fresh_tree(tmp_path, "json-tree")
    shown = run_toolgate(
        ["dispatch", "--read-only", "--lock-tree", "--json", "--cwd", str(tree),
         "--caller-root", str(tree), "--", "mylane", "x"],
        env={"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    decision = json.loads(shown.stdout)
    assert decision["ok"] is True and decision["layers"] == ["tree-lock"], decision
    assert decision["invoke"]["command"] == str(bwrap.resolve()), decision
    assert decision["invoke"]["args"][-3:] == ["--", "mylane", "x"], decision

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(_mylane_leg, tmp_path, bin_dir, gated=g) for g in (False, True)]
        (control_out, control_changes, _), (gated_out, gated_changes, outside) = (
            future.result() for future in futures
        )
    for step in MYLANE_STEPS:
        assert f"{step} wrote" in control_out, f"CONTROL: {step} did not write\n{control_out}"
        assert f"{step} failed" in gated_out, f"{step} was not refused\n{gated_out}"
    assert "new: lane-wrote.txt" in control_changes and "changed: .git/config" in control_changes
    assert gated_changes == [], f"the tree changed under the lock: {gated_changes}\n{gated_out}"
    assert gated_out.count("Read-only file system") == len(MYLANE_STEPS), gated_out
    assert "outside wrote" in gated_out and outside.read_text() == "mylane\n", gated_out


# ---- 5. opencode (no read-only flags) under the lock alone --------------------------------
# Measured with opencode 1.18.33: its built-in `anthropic` provider takes a `baseURL` from
# OPENCODE_CONFIG_CONTENT and talks to the Messages stub; OPENCODE_DISABLE_MODELS_FETCH keeps
# it off the network. `run --auto` approves every tool call. The control also writes
# `.git/opencode` (opencode caches its project id there); under the lock that write fails and
# opencode carries on. Its `write` tool reports a refused write as
# "Unknown: FileSystem.writeFile (PATH)", without the errno.
OPENCODE_SCRIPT: tuple[tuple[ToolCall, str], ...] = (
    (ToolCall("bash", {"command": "touch {TREE}/touched.txt", "description": "touch"}), "erofs"),
    (ToolCall("write", {"filePath": "{TREE}/written.txt", "content": "w\n"}), "failed"),
    (ToolCall("bash", {"command": "cd {TREE} && " + GIT_COMMIT, "description": "commit"}),
     "erofs"),
    (ToolCall("read", {"filePath": "{TREE}/README.md"}), "read"),
)  # fmt: skip
OPENCODE_CONTROL_WRITES = ("new: touched.txt", "new: written.txt", "changed: .git/refs/heads/main")
OPENCODE_WROTE = "Wrote file successfully"
"""What opencode's `write` tool answers when the file was written (measured)."""


def _opencode_leg(
    opencode_bin: Path,
    parent: Path,
    *,
    gated: bool,
    calls: tuple[ToolCall, ...] = tuple(call for call, _ in OPENCODE_SCRIPT),
    project_config: dict[str, object] | None = None,
) -> tuple[subprocess.CompletedProcess[str], list[str], StubAnthropic]:
    name = "gated" if gated else "control"
    tree = fresh_tree(parent, f"{name}-tree")
    home = parent / f"{name}-home"  # outside the tree: opencode keeps its state under XDG dirs
    if project_config is not None:
        write_json(tree / "opencode.json", project_config)
        commit_all(tree, "project opencode.json")
    script = [
        ToolCall(call.name, {k: v.replace("{TREE}", str(tree)) for k, v in call.input.items()})
        for call in calls
    ]
    before = snapshot(tree, git_dir=True)
    with StubAnthropic(script=script) as stub:
        provider = {"options": {"baseURL": f"{stub.url}/v1", "apiKey": "sk-ant-stub"}}
        config = {"provider": {"anthropic": provider}, "autoupdate": False, "share": "disabled"}
        env = scrubbed_environ(toolgate_env())
        env.update(
            {
                "HOME": str(home),
                "XDG_CONFIG_HOME": str(home / ".config"),
                "XDG_DATA_HOME": str(home / ".local" / "share"),
                "XDG_CACHE_HOME": str(home / ".cache"),
                "XDG_STATE_HOME": str(home / ".local" / "state"),
                "OPENCODE_CONFIG_CONTENT": json.dumps(config),
                "OPENCODE_DISABLE_MODELS_FETCH": "1",
                "OPENCODE_DISABLE_AUTOUPDATE": "1",
                "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
            }
        )
        template = [str(opencode_bin), "run", "--auto", "-m", "anthropic/claude-sonnet-4-5", PROMPT]
        done = run_lane(template, tree, env, gated=gated)
    return done, changes(before, snapshot(tree, git_dir=True)), stub


def test_opencode_cannot_write_under_the_lock_alone(
    opencode_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(_opencode_leg, opencode_bin, tmp_path, gated=gated)
            for gated in (False, True)
        ]
        (control, control_changes, control_stub), (gated, gated_changes, gated_stub) = (
            future.result() for future in futures
        )

    def describe(done: subprocess.CompletedProcess[str], stub: StubAnthropic) -> str:
        return (
            f"exit {done.returncode}\ntool results: {stub.tool_result_texts()}\n"
            f"stdout: {done.stdout[-600:]}\nstderr: {done.stderr[-1500:]}"
        )

    missing = [want for want in OPENCODE_CONTROL_WRITES if want not in control_changes]
    assert not missing, f"CONTROL did not write {missing}: proves nothing\n" + describe(
        control, control_stub
    )
    assert gated.returncode == 0, describe(gated, gated_stub)
    assert gated_changes == [], f"the tree changed: {gated_changes}\n" + describe(gated, gated_stub)
    results = gated_stub.tool_result_texts()
    assert len(results) == len(OPENCODE_SCRIPT), describe(gated, gated_stub)
    for (call, expect), result in zip(OPENCODE_SCRIPT, results, strict=True):
        if expect == "failed":
            assert OPENCODE_WROTE not in result and "written.txt" in result, (call, result)
        else:
            _assert_call_answered(call, expect, result)
    assert OPENCODE_WROTE in control_stub.tool_result_texts()[1], describe(control, control_stub)


def test_opencode_rewrites_the_trees_own_config_at_start_but_not_under_the_lock(
    opencode_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    """Measured with 1.18.33: when the tree has an `opencode.json`, opencode rewrites it at
    start (reformatted), with no tool call from the model and whatever the agent or its
    permissions: a write no flag stops, one more reason opencode is refused without the
    lock."""
    legs = [
        _opencode_leg(
            opencode_bin,
            tmp_path / name,
            gated=gated,
            calls=(),
            project_config={"autoupdate": False},
        )
        for name, gated in (("control", False), ("gated", True))
    ]
    (control, control_changes, _), (gated, gated_changes, gated_stub) = legs
    assert "changed: opencode.json" in control_changes, (control_changes, control.stderr[-800:])
    assert gated.returncode == 0, gated.stderr[-1500:]
    assert gated_changes == [], f"the tree changed under the lock: {gated_changes}"
    assert gated_stub.requests, "opencode never asked the model under the lock"


# ---- 6. gemini (refused for its flags) under the lock alone ---------------------------------
# Measured with gemini 0.61.0: with GOOGLE_GEMINI_BASE_URL, GEMINI_API_KEY and the auth type
# `gemini-api-key` in its settings it POSTs `models/*:streamGenerateContent?alt=sse` to the stub
# (tests/e2e/stub_gemini.py). --yolo and --approval-mode yolo approve every tool call in a
# trusted folder. Under the lock its `write_file` and `replace` tools answer the model with
# `response.error` "... EROFS: read-only file system, open '...'", its shell with "Read-only
# file system", and gemini carries on to its final answer (exit 0).
GEMINI_SCRIPT: tuple[tuple[GeminiCall, str], ...] = (
    (GeminiCall("write_file", {"file_path": "{TREE}/written.txt", "content": "w\n"}), "erofs"),
    (GeminiCall("replace", {"file_path": "{TREE}/README.md", "instruction": "edit",
                            "old_string": "sample", "new_string": "EDITED"}), "erofs"),
    (GeminiCall("run_shell_command", {"command": "touch {TREE}/touched.txt"}), "erofs"),
    (GeminiCall("run_shell_command", {"command": "cd {TREE} && " + GIT_COMMIT}), "erofs"),
    (GeminiCall("read_file", {"file_path": "{TREE}/README.md"}), "read"),
    # The lane keeps its home writable: a write outside the tree still lands.
    (GeminiCall("run_shell_command",
                {"command": "echo outside > {HOME}/outside.txt && echo wrote-outside"}),
     "outside"),
)  # fmt: skip
GEMINI_CONTROL_WRITES = (
    "new: written.txt",
    "changed: README.md",
    "new: touched.txt",
    "changed: .git/refs/heads/main",
)
GEMINI_WIDE_OPEN = {
    "yolo": ("-p", PROMPT, "--yolo"),
    "approval-mode-yolo": ("-p", PROMPT, "--approval-mode", "yolo"),
}


class GeminiLeg:
    """One gemini run: what it printed, how the tree changed, what the stub saw."""

    __slots__ = ("changes", "done", "home", "stub")

    def __init__(
        self,
        done: subprocess.CompletedProcess[str],
        tree_changes: list[str],
        stub: StubGemini,
        home: Path,
    ) -> None:
        self.done = done
        self.changes = tree_changes
        self.stub = stub
        self.home = home

    def describe(self) -> str:
        return (
            f"exit {self.done.returncode}\nchanges: {self.changes}\n"
            f"tool results: {self.stub.response_texts()}\n"
            f"stdout: {self.done.stdout[-600:]}\nstderr: {self.done.stderr[-1500:]}"
        )


def _gemini_leg(
    gemini_bin: Path, template: tuple[str, ...], parent: Path, *, gated: bool
) -> GeminiLeg:
    name = "gated" if gated else "control"
    tree = fresh_tree(parent, f"{name}-tree")
    home = parent / f"{name}-home"  # outside the tree: gemini keeps sessions under ~/.gemini
    script = [
        GeminiCall(
            call.name,
            {
                key: value.replace("{TREE}", str(tree)).replace("{HOME}", str(home))
                for key, value in call.args.items()
            },
        )
        for call, _ in GEMINI_SCRIPT
    ]
    before = snapshot(tree, git_dir=True)
    with StubGemini(script) as stub:
        env = gemini_scrubbed_environ(toolgate_env())
        env.update(stub.gemini_env(home))
        done = run_lane([str(gemini_bin), *template, "-m", GEMINI_MODEL], tree, env, gated=gated)
    return GeminiLeg(done, changes(before, snapshot(tree, git_dir=True)), stub, home)


@pytest.mark.parametrize("template", list(GEMINI_WIDE_OPEN), ids=str)
def test_gemini_wide_open_template_cannot_write_under_the_lock_alone(
    template: str, gemini_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    """`--lock-tree` for gemini is the lock alone (toolgate has no read-only flags for it), so
    the template runs as given, --yolo included."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [
            pool.submit(_gemini_leg, gemini_bin, GEMINI_WIDE_OPEN[template], tmp_path, gated=g)
            for g in (False, True)
        ]
        control, gated = (future.result() for future in futures)

    missing = [want for want in GEMINI_CONTROL_WRITES if want not in control.changes]
    assert not missing, f"CONTROL did not write {missing}: proves nothing\n{control.describe()}"
    assert control.done.returncode == 0, control.describe()

    assert gated.done.returncode == 0, f"gemini should run under the lock\n{gated.describe()}"
    assert gated.changes == [], f"the tree changed under the lock\n{gated.describe()}"
    offered = set(gated.stub.tool_names())
    assert {"write_file", "replace", "run_shell_command"} <= offered, offered
    results = gated.stub.function_responses()
    assert len(results) == len(GEMINI_SCRIPT), f"a call went unanswered\n{gated.describe()}"
    for (call, expect), response in zip(GEMINI_SCRIPT, results, strict=True):
        assert response.get("name") == call.name, (call, response)
        _assert_call_answered(call, expect, gemini_response_text(response))
    assert (gated.home / "outside.txt").read_text() == "outside\n", gated.describe()


# ---- 7. claude's Bash runs the user's shell start-up files -----------------------------------
# Measured with claude 2.1.197: before its first Bash command claude takes a snapshot of the
# user's shell by running a login shell that sources `$HOME/.bashrc` (or `.zshrc`); the snapshot
# replays their aliases and functions before every command. So with `--read-shell`, files that
# toolgate neither sees nor rewrites run as code, and a `ls` the checker admits may be an alias.
# The README names this route as outside the flag layer and points at `--lock-tree`; this test
# keeps both statements true: the files run and write under the flags alone, and under the lock
# they still run (their write outside the tree lands) but cannot change the tree.
SHELL_START_UP_FILES = (
    ".bashrc", ".bash_profile", ".profile", ".zshenv", ".zprofile", ".zshrc",
)  # fmt: skip


def _hostile_start_up_files(ctx: Context) -> None:
    for name in SHELL_START_UP_FILES:
        mark = name.lstrip(".")
        (ctx.home / name).write_text(
            f"touch {ctx.home}/ran-{mark}\n"
            f"touch {ctx.tree}/rc-{mark}\n"
            f"alias ls='touch {ctx.tree}/aliased-ls; ls'\n"
        )


@pytest.mark.parametrize("shell_name", ["bash", "zsh"])
def test_shell_start_up_files_run_under_read_shell_and_the_lock_holds_them(
    shell_name: str, claude_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    shell_path = shutil.which(shell_name)
    if shell_path is None:
        pytest.skip(f"{shell_name} is not installed")
    flag_sets = {"flags": ("--read-shell",), "lock": ("--read-shell", "--lock-tree")}
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures: dict[str, Future[ClaudeLeg]] = {}
        for name, flags in flag_sets.items():
            parent = tmp_path / name
            parent.mkdir()
            scenario = Scenario(
                f"start-up-files/{name}", ("-p", PROMPT), (),
                (ToolCall("Bash", {"command": "ls {TREE}"}),),
                setup=_hostile_start_up_files, env={"SHELL": shell_path}, toolgate_flags=flags,
            )  # fmt: skip
            futures[name] = pool.submit(
                run_claude_leg, scenario, parent, claude_bin, gated=True, git_dir=True
            )
        legs = {name: future.result() for name, future in futures.items()}

    flags_only, locked = legs["flags"], legs["lock"]
    # The flag layer alone: the hook admitted `ls`, and the start-up files wrote the tree.
    assert flags_only.returncode == 0, flags_only.describe()
    wrote = [change for change in flags_only.changes if change.startswith("new: rc-")]
    assert wrote, (
        f"the start-up files did not run: the README is out of date\n{flags_only.describe()}"
    )
    assert "new: aliased-ls" in flags_only.changes, flags_only.describe()

    # Both layers: the same files ran (their marks outside the tree landed), the tree did not
    # change, and `ls` still answered.
    assert locked.returncode == 0, locked.describe()
    home = tmp_path / "lock" / "gated-home"
    assert any(home.glob("ran-*")), f"the start-up files did not run\n{locked.describe()}"
    assert locked.changes == [], f"the tree changed under the lock\n{locked.describe()}"
    results = locked.stub.tool_result_texts()
    assert len(results) == 1 and "README.md" in results[0], locked.describe()


# ---- 8. copilot: wide open under the lock alone, and both layers ---------------------------
# copilot's own writes under the lock: its bash (coreutils: "Read-only file system"), create and
# edit (Node's EROFS) are attempted and refused by the kernel; its private COPILOT_HOME and its
# HOME, outside the tree, stay writable.
COPILOT_SCRIPT: tuple[tuple[ChatCall, str], ...] = (
    (ChatCall("bash", {"command": "touch <TREE>/touched.txt", "description": "t"}), "erofs"),
    (ChatCall("create", {"path": "<TREE>/created.txt", "file_text": "x\n"}), "erofs"),
    (ChatCall("edit", {"path": "<TREE>/README.md", "old_str": "sample", "new_str": "EDITED"}),
     "erofs"),
    (ChatCall("bash", {"command": f"cd <TREE> && {GIT_COMMIT}", "description": "c"}), "erofs"),
    (ChatCall("view", {"path": "<TREE>/README.md"}), "read"),
    (ChatCall("bash", {"command": "echo x > <HOME>/o.txt && echo wrote-outside",
                       "description": "o"}), "outside"),
)  # fmt: skip
COPILOT_CONTROL_WRITES = (
    "new: touched.txt",
    "new: created.txt",
    "changed: README.md",
    "changed: .git/refs/heads/main",
)
COPILOT_WIDE_OPEN = {
    "yolo": ("--yolo", "-p", "do the task"),
    "allow-all-tools+paths+trust": (
        "-p",
        "do the task",
        "--allow-all-tools",
        "--allow-all-paths",
        "--trust-folder",
    ),
}


@pytest.mark.parametrize("template", list(COPILOT_WIDE_OPEN), ids=str)
def test_copilot_wide_open_template_cannot_write_under_the_lock_alone(
    template: str, copilot_bin: Path, bwrap: Path, tmp_path: Path
) -> None:
    scenario = copilot_harness.Scenario(
        f"lock-only/{template}",
        COPILOT_WIDE_OPEN[template],
        tuple(call for call, _ in COPILOT_SCRIPT),
        toolgate_flags=("--lock-only",),
        git_dir=True,
    )
    control, gated = copilot_harness.control_and_gated(copilot_bin, scenario, tmp_path)
    copilot_harness.assert_control_wrote(control, COPILOT_CONTROL_WRITES)
    assert gated.returncode == 0, f"copilot should run under the lock\n{gated.describe()}"
    assert gated.tree_changes == [], f"the tree changed under the lock\n{gated.describe()}"
    assert "bash" in gated.tools, f"--lock-only must not rewrite the flags\n{gated.describe()}"
    assert len(gated.results) == len(COPILOT_SCRIPT), gated.describe()
    for (call, expect), result in zip(COPILOT_SCRIPT, gated.results, strict=True):
        _assert_call_answered(call, expect, result)


def test_copilot_reads_under_both_layers(copilot_bin: Path, bwrap: Path, tmp_path: Path) -> None:
    """`--lock-tree` with copilot's rewrite: the read tools only, and view returns the file."""
    script = (ChatCall("view", {"path": "<TREE>/README.md"}), COPILOT_SCRIPT[0][0])
    scenario = copilot_harness.Scenario(
        "both-layers/read", ("-p", "do the task", "--yolo"), script,
        toolgate_flags=("--lock-tree",), git_dir=True,
    )  # fmt: skip
    gated = copilot_harness.run_leg(copilot_bin, scenario, tmp_path, gated=True)
    assert gated.returncode == 0, gated.describe()
    assert gated.tree_changes == [], gated.describe()
    assert gated.tools == ["view", "grep", "glob"], gated.describe()
    view, bash = gated.results
    assert SEED_TEXT in view, gated.describe()
    assert "does not exist" in bash, gated.describe()


# ---- the JSON says which layers hold --------------------------------------------------------
@pytest.mark.parametrize(
    ("template", "flag", "layers"),
    [
        (("claude", "-p", "review this tree"), "--lock-tree", ["lane-flags", "tree-lock"]),
        (("claude", "-p", "--dangerously-skip-permissions", "review it"), "--lock-only",
         ["tree-lock"]),
        (("codex", "exec", "review this tree"), "--lock-tree", ["lane-flags", "tree-lock"]),
        (("codex", "exec", "--sandbox", "danger-full-access", "review it"), "--lock-only",
         ["tree-lock"]),
        (("opencode", "run", "--auto", "review it"), "--lock-tree", ["tree-lock"]),
        (("gemini", "-p", "review it", "--yolo"), "--lock-tree", ["tree-lock"]),
        (("gemini", "-p", "review it", "--approval-mode", "yolo"), "--lock-tree",
         ["tree-lock"]),
        (("copilot", "-p", "review this tree"), "--lock-tree", ["lane-flags", "tree-lock"]),
        (("copilot", "--yolo", "-p", "review it"), "--lock-only", ["tree-lock"]),
    ],
    ids=["claude-both", "claude-lock-only", "codex-both", "codex-lock-only", "opencode",
         "gemini-yolo", "gemini-approval-mode-yolo", "copilot-both", "copilot-lock-only"],
)  # fmt: skip
def test_json_names_the_layers_and_the_wrapped_argv(
    template: tuple[str, ...], flag: str, layers: list[str], bwrap: Path, tmp_path: Path
) -> None:
    tree = fresh_tree(tmp_path)
    shown = run_toolgate(
        ["dispatch", "--read-only", flag, "--json", "--cwd", str(tree), "--caller-root",
         str(tree), "--", *template],
        env={"TMPDIR": str(tmp_path)},  # copilot's private COPILOT_HOME is made there
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    decision = json.loads(shown.stdout)
    assert decision["layers"] == layers, decision
    args = decision["invoke"]["args"]
    assert decision["invoke"]["command"] == str(bwrap.resolve()), decision
    ro_bind = args.index("--ro-bind")
    assert args[ro_bind + 1 : ro_bind + 3] == [str(tree), str(tree)], args
    lane = args[args.index("--") + 1 :]
    assert lane[0] == template[0], args
    if "lane-flags" in layers:
        assert lane != list(template), f"--lock-tree must rewrite {template[0]}'s flags: {args}"
    else:
        assert lane == list(template), f"the lock alone runs the template as given: {args}"
