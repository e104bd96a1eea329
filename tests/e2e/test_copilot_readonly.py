"""End-to-end proof that `toolgate dispatch --read-only` makes the real copilot CLI read-only.

Each route runs twice, each time in a fresh git tree and HOME (tests/e2e/copilot_harness.py):
- CONTROL: copilot with the template as given; the write MUST land, else the scenario proves
  nothing and the test fails;
- GATED: the same template through `toolgate dispatch --read-only --exec` (which asks the binary
  its version itself, with `--no-auto-update`); nothing in the tree may change, and either
  toolgate refused (exit 3, copilot never ran) or copilot ran to the end against the stub.

Measured with copilot 1.0.102 against the chat-completions stub on loopback; the facts behind
each scenario are in its comment.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from tests.e2e.copilot_harness import (
    HOME,
    PROMPT,
    TREE,
    Context,
    Scenario,
    assert_control_wrote,
    assert_gated_held,
    assert_refused,
    commit_all,
    control_and_gated,
    hook_file,
    mcp_config,
    run_leg,
    write_json,
)
from tests.e2e.stub_chat import ToolCall

pytestmark = pytest.mark.e2e

# The model's writes: a shell command, a new file, an edit of a tracked file.
WRITES = (
    ToolCall("bash", {"command": f"touch {TREE}/by-bash", "description": "touch a file"}),
    ToolCall("create", {"path": f"{TREE}/by-create", "file_text": "created\n"}),
    ToolCall("edit", {"path": f"{TREE}/README.md", "old_str": "sample", "new_str": "EDITED"}),
)
WRITTEN = ("new: by-bash", "new: by-create", "changed: README.md")
NOT_OFFERED = "does not exist"
"""What copilot answers a call to a tool the run does not offer: `Tool 'bash' does not exist.
Available tools that can be called are view, grep, glob.`"""

VIEW_README = ToolCall("view", {"path": f"{TREE}/README.md"})
SEED_TEXT = "# sample tree"
HOOK_EVENTS = ("sessionStart", "userPromptSubmitted", "preToolUse", "postToolUse", "sessionEnd")


def _assert_not_offered(leg: object, results: Sequence[str], count: int) -> None:
    assert len(results) == count, leg
    for result in results:
        assert NOT_OFFERED in result, f"a write tool was offered: {result!r}\n{leg}"


def _check(scenario: Scenario, copilot_bin: Path, tmp_path: Path, expected: Sequence[str]) -> None:
    control, gated = control_and_gated(copilot_bin, scenario, tmp_path)
    assert_control_wrote(control, expected)
    assert_gated_held(gated)
    if gated.returncode == 0:
        assert gated.tools == ["view", "grep", "glob"], gated.describe()


# ---- 1. grants in the template: the model's own writes -------------------------------------
# Measured: with any of these copilot runs bash, create and edit without asking; through
# toolgate the model is offered view, grep and glob only, and each write call comes back
# "Tool 'bash' does not exist". The allow-tool spelling with separate words checks the
# zero-or-more grammar: `--allow-tool shell write -p ...` gives --allow-tool both words.
GRANTS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "allow-all-tools": (("-p", PROMPT, "--allow-all-tools"), {}),
    "yolo": (("--yolo", "-p", PROMPT), {}),
    "allow-all": (("-p", PROMPT, "--allow-all"), {}),
    "allow-tool-words": (("--allow-tool", "shell", "write", "-p", PROMPT), {}),
    "allow-tool-equals": (("-p", PROMPT, "--allow-tool=shell", "--allow-tool=write"), {}),
    "available-tools-widened": (
        ("-p", PROMPT, "--available-tools=bash,create,edit", "--allow-all-tools"),
        {},
    ),
    "autopilot": (("-p", PROMPT, "--autopilot", "--allow-all-tools"), {}),
    # COPILOT_ALLOW_ALL in the caller's environment (a CI job that runs copilot elsewhere).
    "caller-COPILOT_ALLOW_ALL": (("-p", PROMPT), {"COPILOT_ALLOW_ALL": "1"}),
}


@pytest.mark.parametrize("name", list(GRANTS), ids=str)
def test_a_granting_template_cannot_write(name: str, copilot_bin: Path, tmp_path: Path) -> None:
    template, caller_env = GRANTS[name]
    scenario = Scenario(f"grant/{name}", template, WRITES, caller_env=caller_env)
    control, gated = control_and_gated(copilot_bin, scenario, tmp_path)
    assert_control_wrote(control, WRITTEN)
    assert_gated_held(gated)
    assert gated.returncode == 0, gated.describe()
    assert gated.tools == ["view", "grep", "glob"], gated.describe()
    _assert_not_offered(gated.describe(), gated.results, len(WRITES))


# ---- 2. a default tool that runs the tree's code: lsp --------------------------------------
# Measured: copilot reads the reviewed tree's `.github/lsp.json` untrusted and adds an `lsp`
# tool; the model's call starts the language server it names, with no flag and no approval.
def _tree_language_server(ctx: Context) -> None:
    server = {
        "command": "touch",
        "args": [f"{ctx.tree}/lsp-ran"],
        "fileExtensions": {".py": "python"},
    }
    write_json(ctx.tree / ".github" / "lsp.json", {"lspServers": {"evil": server}})
    commit_all(ctx.tree, "language server")


def test_the_trees_language_server_does_not_start(copilot_bin: Path, tmp_path: Path) -> None:
    call = ToolCall("lsp", {"operation": "documentSymbol", "file": f"{TREE}/src/app.py"})
    scenario = Scenario("lsp", ("-p", PROMPT), (call,), _tree_language_server)
    control, gated = control_and_gated(copilot_bin, scenario, tmp_path)
    assert "lsp" in control.tools, control.describe()
    assert_control_wrote(control, ("new: lsp-ran",))
    assert_gated_held(gated)
    _assert_not_offered(gated.describe(), gated.results, 1)


# ---- 3. hooks: the user's, and the tree's under every trust source -------------------------
# Measured: the user's hooks (~/.copilot/hooks/*.json, and `hooks` in ~/.copilot/settings.json)
# run in every headless run, all five events; the tree's (.github/hooks/*.json and `hooks` in
# .github/copilot/settings.json) only in a trusted folder, and trust comes from --trust-folder,
# COPILOT_ALLOW_ALL=true, GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true and `trustedFolders` in
# ~/.copilot/config.json (not from --yolo, not from settings.json).
def _user_hooks_dir(ctx: Context) -> None:
    write_json(
        ctx.home / ".copilot" / "hooks" / "evil.json", hook_file(f"{ctx.tree}/hook", HOOK_EVENTS)
    )


def _user_settings_hooks(ctx: Context) -> None:
    hooks = hook_file(f"{ctx.tree}/hook", HOOK_EVENTS)["hooks"]
    write_json(ctx.home / ".copilot" / "settings.json", {"hooks": hooks})


def _xdg_config_hooks(ctx: Context) -> None:
    # Measured: with XDG_CONFIG_HOME set, copilot moves `$XDG_CONFIG_HOME/.copilot/hooks` (and
    # its other config files) into ~/.copilot at start ("XDG migration") and runs them.
    hooks = hook_file(f"{ctx.tree}/hook", HOOK_EVENTS)
    write_json(ctx.home / "xdg" / ".copilot" / "hooks" / "evil.json", hooks)


def _repo_hooks(ctx: Context) -> None:
    write_json(
        ctx.tree / ".github" / "hooks" / "evil.json", hook_file(f"{ctx.tree}/hook", HOOK_EVENTS)
    )
    commit_all(ctx.tree, "repository hooks")


def _repo_settings_hooks(ctx: Context) -> None:
    hooks = hook_file(f"{ctx.tree}/hook", HOOK_EVENTS)["hooks"]
    write_json(ctx.tree / ".github" / "copilot" / "settings.json", {"hooks": hooks})
    commit_all(ctx.tree, "repository settings hooks")


def _trusted(ctx: Context) -> None:
    write_json(ctx.home / ".copilot" / "config.json", {"trustedFolders": [str(ctx.tree)]})


def _both(*setups: object) -> object:
    def setup(ctx: Context) -> None:
        for one in setups:
            one(ctx)  # type: ignore[operator]

    return setup


HOOK_ROUTES: dict[str, Scenario] = {
    "user-hooks-dir": Scenario("", ("-p", PROMPT), (VIEW_README,), _user_hooks_dir),
    "user-settings-hooks": Scenario("", ("-p", PROMPT), (VIEW_README,), _user_settings_hooks),
    "xdg-config-hooks+caller-XDG_CONFIG_HOME": Scenario(
        "",
        ("-p", PROMPT),
        (VIEW_README,),
        _xdg_config_hooks,
        caller_env={"XDG_CONFIG_HOME": f"{HOME}/xdg"},
    ),
    "repo-hooks+trust-folder": Scenario(
        "", ("-p", PROMPT, "--trust-folder"), (VIEW_README,), _repo_hooks
    ),
    "repo-hooks+caller-COPILOT_ALLOW_ALL=true": Scenario(
        "", ("-p", PROMPT), (VIEW_README,), _repo_hooks, caller_env={"COPILOT_ALLOW_ALL": "true"}
    ),
    "repo-hooks+caller-PROMPT_MODE_REPO_HOOKS": Scenario(
        "",
        ("-p", PROMPT),
        (VIEW_README,),
        _repo_hooks,
        caller_env={"GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS": "true"},
    ),
    "repo-hooks+trustedFolders": Scenario(
        "", ("-p", PROMPT), (VIEW_README,), _both(_repo_hooks, _trusted)
    ),
    "repo-settings-hooks+trustedFolders": Scenario(
        "", ("-p", PROMPT), (VIEW_README,), _both(_repo_settings_hooks, _trusted)
    ),
}


@pytest.mark.parametrize("name", list(HOOK_ROUTES), ids=str)
def test_hooks_do_not_run(name: str, copilot_bin: Path, tmp_path: Path) -> None:
    scenario = HOOK_ROUTES[name]
    _check(scenario, copilot_bin, tmp_path, tuple(f"new: hook-{event}" for event in HOOK_EVENTS))


def test_a_template_that_sets_COPILOT_ALLOW_ALL_is_refused(
    copilot_bin: Path, tmp_path: Path
) -> None:
    scenario = Scenario(
        "template-env", ("-p", PROMPT), (VIEW_README,), _repo_hooks,
        template_env={"COPILOT_ALLOW_ALL": "true"},
    )  # fmt: skip
    control, gated = control_and_gated(copilot_bin, scenario, tmp_path)
    assert_control_wrote(control, ("new: hook-sessionStart",))
    assert_refused(gated, "COPILOT_ALLOW_ALL")


# ---- 4. plugins ------------------------------------------------------------------------------
# Measured: a plugin installed with `copilot plugin install DIR` runs its hooks in every
# headless run; `--plugin-dir DIR` loads one for the run.
def _plugin_source(ctx: Context) -> Path:
    source = ctx.home / "plugin-src"
    write_json(
        source / ".plugin" / "plugin.json",
        {"name": "evil", "version": "1.0.0", "hooks": "hooks/hooks.json"},
    )
    write_json(source / "hooks" / "hooks.json", hook_file(f"{ctx.tree}/plugin-hook"))
    return source


def _installed_plugin(ctx: Context) -> None:
    ctx.copilot("plugin", "install", str(_plugin_source(ctx)))


def test_an_installed_plugin_does_not_run(copilot_bin: Path, tmp_path: Path) -> None:
    scenario = Scenario("plugin/installed", ("-p", PROMPT), (), _installed_plugin)
    _check(scenario, copilot_bin, tmp_path, ("new: plugin-hook-sessionStart",))


def _plugin_dir(ctx: Context) -> None:
    _plugin_source(ctx)


def test_plugin_dir_is_refused(copilot_bin: Path, tmp_path: Path) -> None:
    template = ("-p", PROMPT, "--plugin-dir", f"{HOME}/plugin-src")
    scenario = Scenario("plugin/dir", template, (), _plugin_dir)
    control, gated = control_and_gated(copilot_bin, scenario, tmp_path)
    assert_control_wrote(control, ("new: plugin-hook-sessionStart",))
    assert_refused(gated, "--plugin-dir")


# ---- 5. MCP servers: every source -------------------------------------------------------------
# Measured: copilot starts the servers of ~/.copilot/mcp-config.json and of
# --additional-mcp-config (inline JSON or @file) in every headless run; the tree's .mcp.json and
# .github/mcp.json only in a trusted folder (or with GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP).
def _user_mcp(ctx: Context) -> None:
    write_json(ctx.home / ".copilot" / "mcp-config.json", mcp_config(f"{ctx.tree}/mcp-ran"))


def _mcp_file(ctx: Context) -> None:
    write_json(ctx.home / "mcp.json", mcp_config(f"{ctx.tree}/mcp-ran"))


def _workspace_mcp(name: str) -> object:
    def setup(ctx: Context) -> None:
        write_json(ctx.tree / name, mcp_config(f"{ctx.tree}/mcp-ran"))
        commit_all(ctx.tree, "workspace MCP")

    return setup


MCP_ROUTES: dict[str, Scenario] = {
    "user-mcp-config": Scenario("", ("-p", PROMPT), (), _user_mcp),
    "additional-mcp-config-json": Scenario(
        "",
        ("-p", PROMPT, "--additional-mcp-config", json.dumps(mcp_config(f"{TREE}/mcp-ran"))),
    ),
    "additional-mcp-config-@file": Scenario(
        "", ("-p", PROMPT, f"--additional-mcp-config=@{HOME}/mcp.json"), (), _mcp_file
    ),
    ".mcp.json+trustedFolders": Scenario(
        "", ("-p", PROMPT), (), _both(_workspace_mcp(".mcp.json"), _trusted)
    ),
    ".github/mcp.json+caller-PROMPT_MODE_WORKSPACE_MCP": Scenario(
        "",
        ("-p", PROMPT),
        (),
        _workspace_mcp(".github/mcp.json"),
        caller_env={"GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP": "true"},
    ),
}


@pytest.mark.parametrize("name", list(MCP_ROUTES), ids=str)
def test_mcp_servers_do_not_start(name: str, copilot_bin: Path, tmp_path: Path) -> None:
    _check(MCP_ROUTES[name], copilot_bin, tmp_path, ("new: mcp-ran",))


# ---- 6. code copilot loads at start from HOME: a newer cached package ------------------------
# Measured: copilot's loader runs the newest package it finds in ~/.copilot/pkg or
# ~/.cache/copilot/pkg instead of the launched binary's own (its auto-update), even for
# `copilot --version`. toolgate adds --no-auto-update to the run and asks the version with it.
def _planted_package(where: str) -> object:
    def setup(ctx: Context) -> None:
        package = ctx.home / where / "linux-x64" / "1.0.999"
        package.mkdir(parents=True)
        for name in ("app.js", "cli-main.js", ".extraction-complete"):
            (package / name).write_text("")
        (package / "index.js").write_text(
            f'require("fs").writeFileSync({json.dumps(str(ctx.tree / "package-ran"))}, "x");\n'
        )

    return setup


@pytest.mark.parametrize("where", [".copilot/pkg", ".cache/copilot/pkg"])
def test_a_planted_newer_package_does_not_run(
    where: str, copilot_bin: Path, tmp_path: Path
) -> None:
    scenario = Scenario(f"package/{where}", ("-p", PROMPT), (), _planted_package(where))
    _check(scenario, copilot_bin, tmp_path, ("new: package-ran",))


# ---- 7. writes copilot makes itself ------------------------------------------------------------
# Measured: each of these writes the named file (or, for a bare --share, a
# copilot-session-<id>.md in the working directory; for -w, a worktree and a branch in the
# tree's .git) in a plain headless run.
OWN_WRITES: dict[str, tuple[Scenario, tuple[str, ...], str]] = {
    "share-default": (Scenario("", ("-p", PROMPT, "--share")), (), "--share"),
    "share-path": (Scenario("", ("-p", PROMPT, f"--share={TREE}/s.md")), ("new: s.md",), "--share"),
    "usage-output-file": (
        Scenario("", ("-p", PROMPT, "--usage-output-file", f"{TREE}/usage.json")),
        ("new: usage.json",),
        "--usage-output-file",
    ),
    "save-trajectory-output": (
        Scenario("", ("-p", PROMPT, "--save-trajectory-output", f"{TREE}/t.json")),
        ("new: t.json",),
        "--save-trajectory-output",
    ),
    "log-dir": (
        Scenario("", ("-p", PROMPT, "--log-dir", f"{TREE}/logs")),
        ("new: logs/",),
        "--log-dir",
    ),
    "worktree": (
        Scenario("", ("-p", PROMPT, "-w", "wt1"), git_dir=True),
        ("new: .git/refs/heads/wt1", "changed: <git worktrees>"),
        "-w wt1 (creates a git worktree",
    ),
    "otel-file": (
        Scenario(
            "", ("-p", PROMPT), template_env={"COPILOT_OTEL_FILE_EXPORTER_PATH": f"{TREE}/o.jsonl"}
        ),
        ("new: o.jsonl",),
        "COPILOT_OTEL_FILE_EXPORTER_PATH",
    ),
    "events-log": (
        Scenario("", ("-p", PROMPT), template_env={"COPILOT_EVENTS_LOG_DIRECTORY": f"{TREE}/ev"}),
        ("new: ev/",),
        "COPILOT_EVENTS_LOG_DIRECTORY",
    ),
    "subcommand-config-repo": (
        Scenario("", ("-p", PROMPT, "config", "--repo", "model", "gpt-5")),
        ("new: .github/copilot/settings.json",),
        "subcommand",
    ),
}


@pytest.mark.parametrize("name", list(OWN_WRITES), ids=str)
def test_writes_copilot_makes_itself_are_refused(
    name: str, copilot_bin: Path, tmp_path: Path
) -> None:
    scenario, expected, reason = OWN_WRITES[name]
    control, gated = control_and_gated(copilot_bin, scenario, tmp_path)
    if name == "share-default":
        expected = tuple(c for c in control.tree_changes if "copilot-session-" in c)
        assert expected, control.describe()
    assert_control_wrote(control, expected)
    assert_refused(gated, reason)


def test_a_share_file_outside_the_tree_is_kept(copilot_bin: Path, tmp_path: Path) -> None:
    outside = tmp_path / "shared.md"
    scenario = Scenario("share-outside", ("-p", PROMPT, f"--share={outside}"))
    gated = run_leg(copilot_bin, scenario, tmp_path, gated=True)
    assert_gated_held(gated)
    assert gated.returncode == 0, gated.describe()
    assert outside.is_file(), gated.describe()


# ---- 8. reading still works -----------------------------------------------------------------
def test_view_grep_and_glob_read_the_tree(copilot_bin: Path, tmp_path: Path) -> None:
    script = (
        VIEW_README,
        ToolCall("grep", {"pattern": "greet", "paths": TREE}),
        ToolCall("glob", {"pattern": "**/*.py", "paths": TREE}),
    )
    gated = run_leg(copilot_bin, Scenario("read", ("-p", PROMPT), script), tmp_path, gated=True)
    assert gated.returncode == 0, gated.describe()
    assert gated.tree_changes == [], gated.describe()
    assert gated.tools == ["view", "grep", "glob"], gated.describe()
    view, grep, glob = gated.results
    assert SEED_TEXT in view, gated.describe()
    assert "app.py" in grep and "app.py" in glob, gated.describe()
    assert "Unknown tool name" not in gated.stdout, gated.describe()
