"""copilot: every way a template could grant, trust or load, and the rewrite's contract.

Outputs are checked as copilot's own parser (clap, modelled in reference_parsers.py) would read
them, by `assert_copilot_read_only`: a headless run with the read-only options once each in
front (COPILOT_READ_ONLY), no subcommand, no `--` tail and no grant left. The end-to-end proof
that each of these holds against the real binary is tests/e2e/test_copilot_readonly.py.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import run_toolgate
from tests.lane_checks import (
    COPILOT_GRANTS,
    COPILOT_HOME_UNSET,
    COPILOT_READ_ONLY,
    COPILOT_SUBCOMMANDS,
    LaneRewrites,
    assert_copilot_read_only,
    changes,
    tree_beside_outside,
)
from toolgate_cli import exitcodes
from toolgate_cli.lanes import LANES, copilot
from toolgate_cli.lanes.base import PassFlag, RewriteOptions
from toolgate_cli.lanes.copilot_home import auth_config, make_private_home, user_config_path

_copilot = LaneRewrites("copilot", assert_copilot_read_only)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return tree_beside_outside(tmp_path)


@pytest.fixture
def home(tmp_path: Path) -> str:
    private = tmp_path / "private-home"
    private.mkdir()
    return str(private)


def opts(tree: Path, home: str, **more: object) -> RewriteOptions:
    real = os.path.realpath(tree)
    return RewriteOptions(cwd=real, caller_root=real, lane_home=home, **more)  # type: ignore[arg-type]


def ok(tree: Path, home: str, *args: str, env: dict[str, str | None] | None = None):  # type: ignore[no-untyped-def]
    return _copilot.ok(*args, env=env, options=opts(tree, home))


def refused(tree: Path, home: str, *args: str, env: dict[str, str | None] | None = None):  # type: ignore[no-untyped-def]
    return _copilot.refused(*args, env=env, options=opts(tree, home))


# --- the binding ---------------------------------------------------------------------------


def test_a_headless_run_gets_the_read_only_options_in_front_and_a_private_home(
    tree: Path, home: str
) -> None:
    result = ok(tree, home, "-p", "review the diff")
    assert result.invoke.args == (*COPILOT_READ_ONLY, "-p", "review the diff")
    assert result.invoke.env == {"COPILOT_HOME": home, **dict.fromkeys(COPILOT_HOME_UNSET)}
    assert result.binding.startswith("copilot --available-tools=view,grep,glob")
    added = [words for _, words in changes(result, "added")]
    assert added[: len(COPILOT_READ_ONLY)] == [(word,) for word in COPILOT_READ_ONLY]
    assert (f"COPILOT_HOME={home}",) in added


def test_every_spelling_of_the_prompt_is_a_headless_run(tree: Path, home: str) -> None:
    for args in (("--prompt", "x y"), ("--prompt=x y",), ("-px y",), ("-p=x y",), ("-sp", "x")):
        result = ok(tree, home, *args)
        assert result.invoke.args[len(COPILOT_READ_ONLY) :] == args


def test_the_rewrite_is_fitted_to_no_version_in_particular(tree: Path, home: str) -> None:
    # Only 1.0.102 is supported: the rewrite is the same whatever version it is told.
    plain = ok(tree, home, "-p", "x").invoke
    fitted = _copilot.ok("-p", "x", options=opts(tree, home, lane_version="1.0.102")).invoke
    assert plain == fitted


# --- grants in the template ----------------------------------------------------------------


@pytest.mark.parametrize(
    "grant",
    [
        ("--allow-all-tools",),
        ("--allow-all",),
        ("--yolo",),
        ("--allow-tool", "shell", "write"),
        ("--allow-tool=shell",),
        ("--allow-tool",),
        ("--allow-all-paths",),
        ("--allow-all-urls",),
        ("--allow-url", "github.com"),
        ("--trust-folder",),
        ("--mode", "autopilot"),
        ("--mode=plan",),
        ("--autopilot",),
        ("--plan",),
        ("--assisted-approval",),
        ("--config-dir", "/elsewhere"),
        ("--additional-mcp-config", '{"mcpServers": {}}'),
        ("--additional-mcp-config=@mcp.json",),
        ("--enable-mcp-server", "github-mcp-server"),
        ("--no-sandbox",),
        ("--available-tools", "bash", "create"),
        ("--available-tools=bash,create,edit",),
        ("--available-tools",),
        ("--disable-builtin-mcps",),
        ("--no-auto-update",),
    ],
    ids=lambda grant: " ".join(grant),
)
def test_a_grant_or_an_option_toolgate_sets_is_removed_wherever_it_stands(
    tree: Path, home: str, grant: tuple[str, ...]
) -> None:
    for args in ((*grant, "-p", "x"), ("-p", "x", *grant)):
        result = ok(tree, home, *args)
        assert result.invoke.args == (*COPILOT_READ_ONLY, "-p", "x"), args
        removed = changes(result, "stripped") + changes(result, "replaced")
        assert [words for _, words in removed] == [grant]


def test_the_grant_list_of_the_checks_is_the_tables(tree: Path) -> None:
    for name in COPILOT_GRANTS:
        spec = copilot.FLAGS.get(name)
        assert spec is not None, name
        assert spec.action.value in ("strip", "replace", "refuse"), name


def test_the_templates_own_denials_and_exclusions_stay(tree: Path, home: str) -> None:
    args = ("-p", "x", "--deny-tool", "shell(git)", "url", "--excluded-tools=view", "--deny-url=a")
    result = ok(tree, home, *args)
    assert result.invoke.args == (*COPILOT_READ_ONLY, *args)


def test_an_open_zero_or_more_option_keeps_its_words_when_a_grant_after_it_goes(
    tree: Path, home: str
) -> None:
    # `--deny-tool MyMCP --yolo -p x`: --deny-tool reads `MyMCP`, then stops at --yolo.
    result = ok(tree, home, "--deny-tool", "MyMCP", "--yolo", "-p", "x")
    assert result.invoke.args == (*COPILOT_READ_ONLY, "--deny-tool", "MyMCP", "-p", "x")


def test_a_template_carrying_toolgates_own_denials_gets_them_once(tree: Path, home: str) -> None:
    args = ("-p", "x", "--deny-tool=shell", "--deny-tool", "write", COPILOT_READ_ONLY[1])
    result = ok(tree, home, *args)
    assert result.invoke.args == (*COPILOT_READ_ONLY, "-p", "x")
    assert len(changes(result, "replaced")) == 3


# --- not a lane run --------------------------------------------------------------------------


def test_without_a_prompt_copilot_is_interactive_and_refused(tree: Path, home: str) -> None:
    result = refused(tree, home, "--model", "gpt-5")
    assert "copilot without -p starts an interactive session" in result.reason
    assert "copilot -p PROMPT" in result.reason


def test_interactive_is_refused_even_with_a_prompt(tree: Path, home: str) -> None:
    assert "-i x" in refused(tree, home, "-p", "y", "-i", "x").reason


@pytest.mark.parametrize("subcommand", COPILOT_SUBCOMMANDS)
def test_every_subcommand_is_refused_even_after_a_prompt(
    tree: Path, home: str, subcommand: str
) -> None:
    # Measured: `copilot -p x mcp --help` prints the mcp help; clap reads the word as a
    # subcommand whatever came before it.
    for args in ((subcommand,), ("-p", "x", subcommand), ("-p", "x", subcommand, "list")):
        result = refused(tree, home, *args)
        assert f"copilot {subcommand!r}: a subcommand, not a lane run" in result.reason


def test_any_other_word_is_refused_as_a_subcommand_copilot_does_not_have(
    tree: Path, home: str
) -> None:
    result = refused(tree, home, "-p", "review", "the", "diff")
    assert "copilot 'the': copilot reads any word that is no option's value" in result.reason


def test_words_after_a_double_dash_are_refused(tree: Path, home: str) -> None:
    assert "no words after --" in refused(tree, home, "-p", "x", "--", "y").reason


@pytest.mark.parametrize(
    "args",
    [
        ("-p", "/tmp/extension_bootstrap.mjs"),
        ("--prompt=see ./x/extension_bootstrap.mjs",),
        ("-p", "x", "--model", "extension_bootstrap.mjs"),
        ("-p", "x", "--add-dir", "C:\\x\\extension_bootstrap.mjs"),
    ],
)
def test_a_word_naming_the_extension_bootstrap_is_refused_anywhere(
    tree: Path, home: str, args: tuple[str, ...]
) -> None:
    # copilot's entry imports its extension bootstrap (and then $EXTENSION_PATH) instead of
    # the CLI when any argv word's file name is extension_bootstrap.mjs.
    assert "extension_bootstrap.mjs" in refused(tree, home, *args).reason


@pytest.mark.parametrize(
    ("option", "why"),
    [
        (("-w", "wt"), "creates a git worktree"),
        (("--worktree",), "creates a git worktree"),
        (("-C", "src"), "past toolgate's check"),
        (("--agent", "x"), "its own tools"),
        (("--plugin-dir", "p"), "plugins bring hooks"),
        (("--prefer-version", "1.0.103"), "another cached package"),
        (("--resume",), "stored session"),
        (("--continue",), "stored session"),
        (("--session-id", "abc"), "stored session"),
        (("--experimental",), "unverified features"),
        (("--bash-env", "on"), "BASH_ENV"),
        (("--server",), "server mode"),
        (("--acp",), "Agent Client Protocol"),
        (("--remote",), "remote party"),
        (("--share-gist",), "gist"),
        (("--print-debug-info",), "not a lane run"),
        (("--extension-sdk-path", "/x"), "extension processes"),
    ],
)
def test_options_that_cannot_be_part_of_a_read_only_run_are_refused(
    tree: Path, home: str, option: tuple[str, ...], why: str
) -> None:
    result = refused(tree, home, "-p", "x", *option)
    assert why in result.reason


# --- files copilot writes itself ----------------------------------------------------------------


@pytest.mark.parametrize(
    "option", ["--share", "--log-dir", "--usage-output-file", "--save-trajectory-output"]
)
def test_a_file_copilot_writes_is_kept_only_outside_the_tree(
    tree: Path, home: str, option: str
) -> None:
    outside = str(tree.parent / "outside" / "out")
    assert ok(tree, home, "-p", "x", f"{option}={outside}").invoke.args[-1] == f"{option}={outside}"
    for inside in ("out", str(tree / "out"), "../tree/src/out"):
        assert (
            "point it outside the tree"
            in refused(tree, home, "-p", "x", f"{option}={inside}").reason
        )


def test_a_bare_share_writes_into_the_working_directory_and_is_refused(
    tree: Path, home: str
) -> None:
    assert "copilot-session-<id>.md" in refused(tree, home, "-p", "x", "--share").reason


def test_without_a_tree_no_output_file_is_kept() -> None:
    result = _copilot.refused(
        "-p", "x", "--usage-output-file=/elsewhere/u.json", options=RewriteOptions(lane_home="/h")
    )
    assert "point it outside the tree" in result.reason


# --- the private config home ------------------------------------------------------------------


def test_without_a_private_home_copilot_is_refused_with_why() -> None:
    result = _copilot.refused("-p", "x")
    assert "no flag turns them off" in result.reason
    assert "lane_home" in result.reason


def test_a_private_home_inside_the_tree_is_refused(tree: Path) -> None:
    inside = str(tree / "src")
    result = _copilot.refused("-p", "x", options=opts(tree, inside))
    assert "lies inside the caller's tree" in result.reason


# --- environment the template sets ---------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "COPILOT_ALLOW_ALL",
        "GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS",
        "GITHUB_COPILOT_PROMPT_MODE_WORKSPACE_MCP",
        "GITHUB_COPILOT_PROMPT_MODE_EXTENSIONS",
        "COPILOT_HOME",
        "COPILOT_CACHE_HOME",
        "COPILOT_PKG_CACHE_HOME",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_HOME",
        "COPILOT_CLI_DIST_DIR",
        "COPILOT_CLI_VERSION",
        "COPILOT_PROVIDER_API_KEY_COMMAND",
        "COPILOT_OTEL_FILE_EXPORTER_PATH",
        "COPILOT_EVENTS_LOG_DIRECTORY",
        "COPILOT_PROCESS_LOG_FILE",
        "COPILOT_SKILLS_DIRS",
        "COPILOT_ASSISTED_APPROVAL",
        "COPILOT_BASH_PATH",
        "EDITOR",
        "USE_BUILTIN_RIPGREP",
        "EXTENSION_PATH",
        "NODE_OPTIONS",
        "HOME",
    ],
)
def test_environment_that_widens_trusts_or_names_what_copilot_runs_or_writes_is_refused(
    tree: Path, home: str, name: str
) -> None:
    result = refused(tree, home, "-p", "x", env={name: "true"})
    assert f"environment variable {name}" in result.reason


@pytest.mark.parametrize(
    "name",
    [
        "COPILOT_PROVIDER_BASE_URL",
        "COPILOT_PROVIDER_API_KEY",
        "COPILOT_MODEL",
        "COPILOT_OFFLINE",
        "COPILOT_GITHUB_TOKEN",
        "GH_TOKEN",
        "COPILOT_AUTO_UPDATE",
        "NO_COLOR",
    ],
)
def test_endpoint_credentials_and_display_variables_are_kept(
    tree: Path, home: str, name: str
) -> None:
    result = ok(tree, home, "-p", "x", env={name: "v"})
    assert result.invoke.env[name] == "v"
    assert result.invoke.env["COPILOT_HOME"] == home


def test_a_template_that_unsets_a_trust_variable_is_kept_and_toolgate_unsets_it_too(
    tree: Path, home: str
) -> None:
    result = ok(tree, home, "-p", "x", env={"COPILOT_ALLOW_ALL": None, "COPILOT_HOME": None})
    assert result.invoke.env["COPILOT_ALLOW_ALL"] is None
    assert result.invoke.env["COPILOT_HOME"] == home


def test_an_unknown_variable_needs_a_declaration(tree: Path, home: str) -> None:
    assert "--pass-env MY_VAR" in refused(tree, home, "-p", "x", env={"MY_VAR": "1"}).reason
    declared = _copilot.ok(
        "-p", "x", env={"MY_VAR": "1"}, options=opts(tree, home, pass_env=frozenset({"MY_VAR"}))
    )
    assert declared.invoke.env["MY_VAR"] == "1"


# --- declarations ---------------------------------------------------------------------------


def test_an_unknown_option_is_refused_and_can_be_declared(tree: Path, home: str) -> None:
    assert "--pass-flag --frob" in refused(tree, home, "-p", "x", "--frob").reason
    declared = _copilot.ok(
        "-p", "x", "--frob", options=opts(tree, home, pass_flags=(PassFlag("--frob"),))
    )
    assert declared.invoke.args[-1] == "--frob"


def test_a_declaration_cannot_override_a_known_option(tree: Path, home: str) -> None:
    result = _copilot.refused("-p", "x", options=opts(tree, home, pass_flags=(PassFlag("--yolo"),)))
    assert "already knows this copilot option" in result.reason


# --- the lane interface ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "version"),
    [
        ("GitHub Copilot CLI 1.0.102.\nRun 'copilot update' to check for updates.\n", "1.0.102"),
        ("GitHub Copilot CLI 1.2.3\n", "1.2.3"),
        ("fake package ran\n", None),
        ("", None),
        ("1.0.102\n", None),
    ],
)
def test_version_of_reads_what_copilot_version_prints(output: str, version: str | None) -> None:
    assert copilot.version_of(output) == version


def test_the_lane_is_registered_with_its_versions_and_probe_words() -> None:
    lane = LANES["copilot"]
    assert lane.versions.oldest_supported == "1.0.102"
    assert lane.versions_proven == ("1.0.102",)
    assert lane.probe_args == ("--no-auto-update",)
    assert LANES["claude"].probe_args == () and LANES["codex"].probe_args == ()
    assert lane.private_home_maker == "toolgate_cli.lanes.copilot_home"
    assert LANES["claude"].private_home_maker is None


def test_the_help_surface_knows_the_table_and_relies_on_what_the_rewrite_adds() -> None:
    (surface,) = copilot.help_surfaces()
    assert surface.args == ("--help",)
    assert surface.known == frozenset(copilot.FLAGS.names())
    added = {word.partition("=")[0] for word in COPILOT_READ_ONLY}
    assert surface.relied == frozenset({*added, "--prompt"})


# --- the private home: made by the dispatch host ------------------------------------------------


def test_auth_config_keeps_only_the_authentication_keys() -> None:
    text = (
        "// User settings belong in settings.json.\n// This file is managed automatically.\n"
        + json.dumps(
            {
                "loggedInUsers": [{"host": "https://github.com", "login": "me"}],
                "lastLoggedInUser": {"host": "https://github.com", "login": "me"},
                "copilotTokens": {"https://github.com:me": "gho_x"},
                "trustedFolders": ["/tree"],
                "installedPlugins": [{"name": "evil"}],
            }
        )
    )
    assert set(auth_config(text)) == {"loggedInUsers", "lastLoggedInUser", "copilotTokens"}
    for broken in ("", "[1]", "{", "// only a comment"):
        assert auth_config(broken) == {}


def test_make_private_home_is_new_private_and_carries_only_the_login(tmp_path: Path) -> None:
    user = tmp_path / "user-copilot"
    user.mkdir()
    (user / "config.json").write_text(
        json.dumps({"lastLoggedInUser": {"login": "me"}, "trustedFolders": ["/tree"]})
    )
    (user / "hooks").mkdir()
    (tmp_path / "tmp").mkdir()
    tree = str(tmp_path / "tree")
    environ = {"COPILOT_HOME": str(user), "TMPDIR": str(tmp_path / "tmp")}
    made = Path(make_private_home(environ, outside=tree))
    again = Path(make_private_home(environ, outside=tree))
    assert made != again and made.parent == tmp_path / "tmp"
    assert stat.S_IMODE(made.stat().st_mode) == 0o700
    assert sorted(p.name for p in made.iterdir()) == ["config.json"]
    assert json.loads((made / "config.json").read_text()) == {"lastLoggedInUser": {"login": "me"}}
    assert stat.S_IMODE((made / "config.json").stat().st_mode) == 0o600
    elsewhere = {"COPILOT_HOME": str(tmp_path / "missing"), "TMPDIR": str(tmp_path / "tmp")}
    nobody = Path(make_private_home(elsewhere, outside=tree))
    assert list(nobody.iterdir()) == []
    with pytest.raises(ValueError, match="lies inside"):
        make_private_home(elsewhere, outside=str(tmp_path))


def test_the_user_config_is_read_where_copilot_reads_it() -> None:
    assert user_config_path({"COPILOT_HOME": "/x"}) == "/x/config.json"
    assert user_config_path({}).endswith("/.copilot/config.json")


def test_dispatch_makes_a_private_home_for_copilot_and_for_no_other_lane(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {"TMPDIR": str(temporary), "HOME": str(tmp_path / "home")}
    common = ["dispatch", "--read-only", "--cwd", str(tree), "--caller-root", str(tree), "--"]
    result = run_toolgate([*common, "copilot", "-p", "x"], env=env)
    assert result.returncode == exitcodes.OK, result.stderr
    private = json.loads(result.stdout)["invoke"]["env"]["COPILOT_HOME"]
    assert Path(private).parent == temporary and Path(private).is_dir()
    for lane in (["claude", "-p", "x"], ["codex", "exec", "two words"]):
        assert run_toolgate([*common, *lane], env=env).returncode == exitcodes.OK
    assert list(temporary.iterdir()) == [Path(private)]


def test_dispatch_with_a_temporary_directory_inside_the_tree_refuses_copilot(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    (tree / "tmp").mkdir(parents=True)
    env = {"TMPDIR": str(tree / "tmp")}
    common = ["dispatch", "--read-only", "--cwd", str(tree), "--caller-root", str(tree), "--"]
    result = run_toolgate([*common, "copilot", "-p", "x"], env=env)
    assert result.returncode == exitcodes.REFUSED
    assert "a TMPDIR it can write, outside the caller's tree" in result.stdout
    assert "none was made for this run" in result.stderr
    # Not even toolgate's own directory was made in the tree.
    assert list((tree / "tmp").iterdir()) == []


FAKE_COPILOT = """#!{python}
import json, os, sys
with open(os.environ["ASKED"], "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
if "--version" in sys.argv:
    print("GitHub Copilot CLI 1.0.102.")
"""


def test_exec_asks_copilots_version_with_no_auto_update(tmp_path: Path) -> None:
    """copilot --version runs the newest cached package (measured): toolgate's probe must not."""
    lanes = tmp_path / "bin"
    lanes.mkdir()
    fake = lanes / "copilot"
    fake.write_text(FAKE_COPILOT.format(python=sys.executable))
    fake.chmod(0o755)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tmp_path / "tmp").mkdir()
    asked = tmp_path / "asked.log"
    env = {
        "PATH": f"{lanes}{os.pathsep}{os.environ['PATH']}",
        "ASKED": str(asked),
        "TOOLGATE_CACHE_DIR": str(tmp_path / "cache"),
        "TMPDIR": str(tmp_path / "tmp"),
    }
    common = ["dispatch", "--read-only", "--exec", "--cwd", str(tree), "--caller-root", str(tree)]
    result = run_toolgate([*common, "--", "copilot", "-p", "x"], env=env)
    assert result.returncode == exitcodes.OK, result.stderr
    calls = [json.loads(line) for line in asked.read_text().splitlines()]
    assert calls[0] == ["--no-auto-update", "--version"]
    assert calls[1] == [*COPILOT_READ_ONLY, "-p", "x"]
    checked = run_toolgate(["lanes", "--check", "--json"], env=env)
    calls = [json.loads(line) for line in asked.read_text().splitlines()]
    assert ["--no-auto-update", "--help"] in calls, checked.stdout
    assert all(call[0] == "--no-auto-update" for call in calls[2:]), calls


@pytest.mark.parametrize("output", ["--json", "--exec"])
def test_a_copilot_dispatch_imports_none_of_the_heavy_standard_modules(
    output: str, tmp_path: Path
) -> None:
    """The private home is made on the dispatch path: without `tempfile` (`re`, `enum`) and,
    when no login is stored, without `json` (tests/test_dispatch_fast_path.py)."""
    from tests.conftest import REPO_ROOT, toolgate_env
    from tests.test_dispatch_fast_path import HEAVY_STANDARD_MODULES

    lane = tmp_path / "copilot"
    lane.write_text("#!/bin/sh\necho 'GitHub Copilot CLI 1.0.102.'\n")
    lane.chmod(0o755)
    (tmp_path / "tmp").mkdir()
    probe = (
        "import os, sys\n"
        f"sys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "def report(*args):\n"
        "    heavy = [m for m in sys.argv[-1].split(',') if m in sys.modules]\n"
        "    sys.stderr.write(f'loaded={heavy}\\n')\n"
        "    os._exit(0)\n"
        "os.execvpe = report\n"
        "sys.argv = ['toolgate', *sys.argv[1:-1]]\n"
        "from toolgate_cli.__main__ import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    report()\n"
    )
    tree = tmp_path / "tree"
    tree.mkdir()
    where = ["--cwd", str(tree), "--caller-root", str(tree)]
    words = ["dispatch", "--read-only", output, *where, "--", str(lane), "-p", "x"]
    env = {
        **toolgate_env(),
        "TOOLGATE_CACHE_DIR": str(tmp_path / "cache"),
        "TMPDIR": str(tmp_path / "tmp"),
        "HOME": str(tmp_path / "home"),
    }
    env.pop("COPILOT_HOME", None)
    import subprocess

    for _ in range(2):  # the first --exec asks the binary, the second reads the cache
        result = subprocess.run(
            [sys.executable, "-S", "-c", probe, *words, ",".join(HEAVY_STANDARD_MODULES)],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            check=False,
        )
        assert result.stderr.strip().splitlines()[-1] == "loaded=[]", result.stderr
    assert len(list((tmp_path / "tmp").iterdir())) == 2  # one private home per dispatch


def test_under_confine_the_sandbox_gives_the_private_home_and_toolgate_sets_none() -> None:
    # --confine mounts a fresh private ~/.copilot (or $COPILOT_HOME) for the lane, and refuses a
    # template environment that would choose such a path: the rewrite sets no COPILOT_HOME.
    result = _copilot.ok("-p", "x", options=RewriteOptions(confine=True))
    assert result.invoke.args == (*COPILOT_READ_ONLY, "-p", "x")
    assert result.invoke.env == dict.fromkeys(COPILOT_HOME_UNSET)
    assert copilot.CONFINE.state[0].where == ("$COPILOT_HOME", "~/.copilot")


def test_a_confined_dispatch_makes_no_private_home(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tmp_path / "tmp").mkdir()
    env = {"TMPDIR": str(tmp_path / "tmp")}
    words = ["dispatch", "--read-only", "--confine", "--cwd", str(tree), "--caller-root"]
    run_toolgate([*words, str(tree), "--", "copilot", "-p", "x"], env=env)
    assert list((tmp_path / "tmp").iterdir()) == []
