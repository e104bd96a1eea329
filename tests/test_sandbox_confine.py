"""`--confine`'s pure plan: the allow list, the private directories, the environment, the
secret stores, against a scripted filesystem.

What the kernel makes of these words, with the real lanes, is proven in
tests/e2e/test_confine.py; here the contract is the plan and the words.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from toolgate_cli.decision import (
    ConfineOptions,
    DispatchDecision,
    DispatchRequest,
    LockRequest,
    decide_dispatch,
)
from toolgate_cli.lanes import claude, codex
from toolgate_cli.lanes.base import ConfineNeeds, LaneInvocation, RewriteOptions, StateDir
from toolgate_cli.sandbox.confine import (
    COMMON_ENV,
    ETC,
    GENERIC,
    SECRET_STORES,
    ConfinePlan,
    ConfineRequest,
    Op,
    build,
    install_dir,
    install_prefix,
    location,
    split_env,
    store_of,
)
from toolgate_cli.sandbox.plan import LockPlan, prefix_units, wrapper_prefix
from toolgate_cli.verdict import is_within

if TYPE_CHECKING:
    from toolgate_cli.sandbox.confine import Kind

ROOT = "/home/u/proj"
HOME = "/home/u"
LANE_BIN = "/opt/lanes/node_modules/.bin/claude"
LANE_REAL = "/opt/lanes/node_modules/@anthropic-ai/claude-code/bin/claude.exe"


class FakeFs:
    """A filesystem of `files` (path -> "dir" | "file" | "other") and `links` (path -> target
    as written), answering like the host: lstat, realpath, readlink, #! lines, PATH lookup."""

    def __init__(
        self,
        files: Mapping[str, str],
        links: Mapping[str, str] | None = None,
        shebangs: Mapping[str, str] | None = None,
    ) -> None:
        self.files = dict(files)
        self.links = dict(links or {})
        self.shebangs = dict(shebangs or {})
        self.files["/"] = "dir"
        for path in [*self.files, *self.links]:  # every parent is a directory
            parent = posixpath.dirname(path)
            while parent != "/":
                self.files.setdefault(parent, "dir")
                parent = posixpath.dirname(parent)

    def kind(self, path: str) -> Kind:
        if path in self.links:
            return "link"
        return cast("Kind", self.files.get(path, "missing"))

    def resolve(self, path: str) -> str:
        parts = path.strip("/").split("/")
        current = "/"
        for part in parts:
            current = posixpath.join(current, part)
            for _ in range(40):
                if current not in self.links:
                    break
                target = self.links[current]
                current = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
        return current

    def readlink(self, path: str) -> str | None:
        return self.links.get(path)

    def shebang(self, path: str) -> str | None:
        return self.shebangs.get(path)

    def which(self, name: str, search_path: str) -> str | None:
        for directory in search_path.split(":"):
            candidate = posixpath.join(directory, name)
            if self.kind(self.resolve(candidate)) == "file":
                return candidate
        return None


SYSTEM = {
    "/usr": "dir",
    "/usr/bin/node": "file",
    "/usr/bin/true": "file",
    "/etc/passwd": "file",
    "/etc/group": "file",
    "/etc/shadow": "file",
    "/etc/ssh/ssh_host_ed25519_key": "file",
    "/etc/ssl/certs/ca.pem": "file",
    "/etc/ssl/private/snakeoil.key": "file",
    "/etc/npmrc": "file",
    "/etc/machine-id": "file",
    "/usr/share/zoneinfo/UTC": "file",
    "/run/resolv.conf": "file",
    "/sys/fs/cgroup": "dir",
}
SYSTEM_LINKS = {
    "/bin": "usr/bin",
    "/lib": "usr/lib",
    "/etc/localtime": "/usr/share/zoneinfo/UTC",
    "/etc/resolv.conf": "../run/resolv.conf",
}
HOME_FILES = {
    f"{HOME}/secret.txt": "file",
    f"{HOME}/.ssh/id_ed25519": "file",
    f"{HOME}/.aws/credentials": "file",
    f"{HOME}/.netrc": "file",
    f"{HOME}/.claude/.credentials.json": "file",
    f"{HOME}/.claude/projects/other-repo/1.jsonl": "file",
    f"{HOME}/.claude.json": "file",
    f"{HOME}/docs/guide.md": "file",
    f"{ROOT}/README.md": "file",
    f"{ROOT}/.git/HEAD": "file",
    LANE_REAL: "file",
    "/opt/lanes/node_modules/@anthropic-ai/claude-code-linux-x64/claude": "file",
}
LANE_LINKS = {LANE_BIN: "../@anthropic-ai/claude-code/bin/claude.exe"}
ENVIRON = {
    "PATH": "/opt/lanes/node_modules/.bin:/usr/bin",
    "HOME": HOME,
    "LANG": "C.UTF-8",
    "TERM": "xterm",
    "ANTHROPIC_API_KEY": "sk-ant-x",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "GITHUB_TOKEN": "ghp-x",
    "SSH_AUTH_SOCK": "/tmp/ssh-x/agent.1",
    "TMPDIR": "/var/tmp/mine",
    "LC_ALL": "C.UTF-8",
}
HOMES = (HOME, "/root")


def filesystem(
    extra: Mapping[str, str] | None = None, links: Mapping[str, str] | None = None
) -> FakeFs:
    return FakeFs(
        {**SYSTEM, **HOME_FILES, **(extra or {})}, {**SYSTEM_LINKS, **LANE_LINKS, **(links or {})}
    )


def plan_for(
    request: ConfineRequest,
    fs: FakeFs | None = None,
    environ: Mapping[str, str] | None = None,
    root: str = ROOT,
) -> ConfinePlan | str:
    return build(
        request,
        fs or filesystem(),
        environ=ENVIRON if environ is None else environ,
        homes=HOMES,
        caller_root=root,
        read_only=(root,),
        cwd=root,
    )


def confined(
    request: ConfineRequest,
    fs: FakeFs | None = None,
    environ: Mapping[str, str] | None = None,
) -> ConfinePlan:
    plan = plan_for(request, fs, environ)
    assert isinstance(plan, ConfinePlan), plan
    return plan


CLAUDE = ConfineRequest(claude.CONFINE, "claude")


def shown(plan: ConfinePlan, path: str) -> bool:
    """Whether the lane could read `path`: the last mount over it shows it (a tmpfs or a
    cover-up hides what was mounted there before)."""
    state = False
    for op in (*plan.system, *plan.layers):
        if is_within(path, op.path):
            state = op.kind in ("ro", "link")
    return state


# --- what is visible ---------------------------------------------------------------------------
def test_nothing_is_bound_but_the_allow_list() -> None:
    plan = confined(CLAUDE)
    words = wrapper_prefix(LockPlan("/usr/bin/bwrap", ROOT, (ROOT,), ROOT, confine=plan))
    assert ("--bind", "/", "/") not in zip(words, words[1:], words[2:], strict=False)
    for path in (ROOT, "/usr", "/etc/passwd", "/opt/lanes/node_modules"):
        assert shown(plan, path), path
    for path in (
        f"{HOME}/secret.txt",
        f"{HOME}/.ssh/id_ed25519",
        f"{HOME}/docs/guide.md",
        f"{HOME}/.claude/projects/other-repo/1.jsonl",
        f"{HOME}/.claude.json",
        "/etc/shadow",
        "/etc/ssh/ssh_host_ed25519_key",
        "/etc/ssl/private/snakeoil.key",
        "/etc/npmrc",
        "/etc/machine-id",
    ):
        assert not shown(plan, path), path


def test_only_the_etc_pieces_listed_are_ever_mounted() -> None:
    plan = confined(CLAUDE)
    etc = [op.path for op in plan.system if op.path.startswith("/etc")]
    assert etc and all(path in ETC for path in etc), etc
    assert "/etc/ssl/certs" in etc and "/etc/ssl" not in etc


def test_a_system_link_into_usr_stays_a_link_and_one_elsewhere_shows_its_content() -> None:
    plan = confined(CLAUDE)
    by_path = {op.path: op for op in plan.system}
    assert by_path["/bin"] == Op("link", "/bin", "usr/bin")
    assert by_path["/etc/localtime"] == Op("link", "/etc/localtime", "/usr/share/zoneinfo/UTC")
    # /etc/resolv.conf -> /run/...: /run is not shown, so its content is bound in its place.
    assert by_path["/etc/resolv.conf"] == Op("ro", "/etc/resolv.conf", "/run/resolv.conf")


def test_private_directories_come_before_what_is_shown_inside_them() -> None:
    """A mount covers whatever was mounted under its path before it: HOME's tmpfs must come
    before the tree inside HOME, and claude's state dir before its credentials."""
    plan = confined(CLAUDE)
    paths = [op.path for op in plan.layers]
    for index, op in enumerate(plan.layers):
        for later in plan.layers[index + 1 :]:
            assert not (is_within(op.path, later.path) and op.path != later.path), (op, paths)
    assert plan.writable == ("/tmp", HOME, f"{HOME}/.claude", f"{HOME}/.config/anthropic")
    assert Op("ro", f"{HOME}/.claude/.credentials.json") in plan.layers
    assert shown(plan, f"{HOME}/.claude/.credentials.json")


def test_the_state_dir_follows_its_variable() -> None:
    environ = {**ENVIRON, "CLAUDE_CONFIG_DIR": "/srv/claude-cfg"}
    plan = confined(CLAUDE, environ=environ)
    assert "/srv/claude-cfg" in plan.writable and f"{HOME}/.claude" not in plan.writable


def test_state_and_home_inside_the_tree_stay_the_trees() -> None:
    """A private directory there would hide part of the tree (and make it look writable)."""
    environ = {**ENVIRON, "HOME": f"{ROOT}/home", "CLAUDE_CONFIG_DIR": f"{ROOT}/.cfg"}
    plan = confined(CLAUDE, environ=environ)
    assert plan.writable == ("/tmp",)


def test_the_lane_install_is_its_outermost_node_modules() -> None:
    assert install_dir(LANE_REAL, HOMES) == "/opt/lanes/node_modules"
    assert install_dir("/opt/x/bin/lane", HOMES) == "/opt/x/bin"
    # A binary right in a home, or in / : the file alone, never the home.
    assert install_dir(f"{HOME}/lane", HOMES) == f"{HOME}/lane"
    assert install_dir("/lane", HOMES) == "/lane"
    assert install_dir(f"{HOME}/.ssh/lane", HOMES) == f"{HOME}/.ssh/lane"


def test_the_interpreter_of_a_script_lane_is_shown_too() -> None:
    fs = FakeFs(
        {**SYSTEM, "/opt/codex/node_modules/@openai/codex/bin/codex.js": "file",
         "/opt/node/bin/node": "file", ROOT + "/README.md": "file"},
        {**SYSTEM_LINKS, "/opt/codex/node_modules/.bin/codex": "../@openai/codex/bin/codex.js"},
        {"/opt/codex/node_modules/@openai/codex/bin/codex.js": "/usr/bin/env node"},
    )  # fmt: skip
    environ = {**ENVIRON, "PATH": "/opt/codex/node_modules/.bin:/opt/node/bin:/usr/bin"}
    plan = confined(ConfineRequest(codex.CONFINE, "codex"), fs=fs, environ=environ)
    assert plan.lane == "/opt/codex/node_modules/.bin/codex"
    assert shown(plan, "/opt/codex/node_modules/@openai/codex/bin/codex.js")
    assert shown(plan, "/opt/node/bin/node")


def test_a_script_lanes_interpreter_is_shown_with_its_prefix() -> None:
    """A Python lane in a virtualenv needs the venv's packages and the base Python's standard
    library: both live above the interpreter's `bin/`."""
    venv, base = "/opt/venv", "/opt/python3.11"
    fs = FakeFs(
        {**SYSTEM, f"{venv}/bin/mylane": "file", f"{base}/bin/python3.11": "file",
         f"{base}/lib/python3.11/os.py": "file", f"{venv}/lib/site.py": "file",
         ROOT + "/README.md": "file"},
        {**SYSTEM_LINKS, f"{venv}/bin/python": f"{base}/bin/python3.11"},
        {f"{venv}/bin/mylane": f"{venv}/bin/python"},
    )  # fmt: skip
    environ = {**ENVIRON, "PATH": f"{venv}/bin:/usr/bin"}
    plan = confined(ConfineRequest(GENERIC, "mylane"), fs=fs, environ=environ)
    for path in (f"{base}/lib/python3.11/os.py", f"{venv}/lib/site.py", f"{venv}/bin/mylane"):
        assert shown(plan, path), path
    # ~/.local/bin/python would show ~/.local (other programs' data): its bin/ alone then.
    assert install_prefix(f"{HOME}/.local/bin/python", HOMES) == f"{HOME}/.local/bin"
    assert install_prefix(f"{HOME}/bin/python", HOMES) == f"{HOME}/bin"


def test_a_lane_not_on_path_is_refused() -> None:
    said = plan_for(ConfineRequest(GENERIC, "nolane"))
    assert isinstance(said, str) and said.startswith("--confine: cannot find the lane 'nolane'")


# --- the environment ---------------------------------------------------------------------------
def test_only_the_allow_list_of_the_environment_is_kept() -> None:
    kept, unset = split_env(ENVIRON, claude.CONFINE, ())
    assert kept == (
        "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "HOME", "LANG", "LC_ALL", "PATH", "TERM",
    )  # fmt: skip
    assert set(unset) == {"AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "TMPDIR"}
    kept, _ = split_env(ENVIRON, GENERIC, ("GITHUB_TOKEN",))
    assert "GITHUB_TOKEN" in kept and "ANTHROPIC_API_KEY" not in kept


def test_every_common_name_is_kept_for_every_lane() -> None:
    environ = {name.replace("*", "ALL"): "x" for name in COMMON_ENV}
    kept, unset = split_env(environ, GENERIC, ())
    assert unset == () and len(kept) == len(COMMON_ENV)


def test_the_plan_unsets_every_other_variable_and_the_prefix_sets_tmpdir() -> None:
    plan = confined(CLAUDE)
    assert set(plan.env_kept) | set(plan.env_unset) == set(ENVIRON)
    words = wrapper_prefix(LockPlan("/usr/bin/bwrap", ROOT, (ROOT,), ROOT, confine=plan))
    assert ("--setenv", "TMPDIR", "/tmp") in zip(words, words[1:], words[2:], strict=False)
    assert "aws-secret" not in words and "sk-ant-x" not in words  # values never in argv


@pytest.mark.parametrize(
    "name", ["CLAUDE_CONFIG_DIR", "ANTHROPIC_CONFIG_DIR", "NODE_EXTRA_CA_CERTS", "HOME"]
)
def test_a_template_that_moves_what_is_shown_is_refused(name: str) -> None:
    """`--env ANTHROPIC_CONFIG_DIR=~/.aws` would have the plan show ~/.aws/credentials as the
    lane's own 'credentials'."""
    request = ConfineRequest(claude.CONFINE, "claude", template_env={name: f"{HOME}/.aws"})
    said = plan_for(request)
    assert isinstance(said, str) and name in said and said.startswith("--confine:")


# --- --allow-read and the secret stores ---------------------------------------------------------
def test_allow_read_shows_a_directory_and_covers_the_stores_inside_it() -> None:
    plan = confined(ConfineRequest(claude.CONFINE, "claude", allow_read=(HOME,)))
    assert shown(plan, f"{HOME}/docs/guide.md") and shown(plan, f"{HOME}/secret.txt")
    for store in (f"{HOME}/.ssh/id_ed25519", f"{HOME}/.aws/credentials", f"{HOME}/.netrc"):
        assert not shown(plan, store), store
    assert f"{HOME}/.ssh" in plan.hidden and f"{HOME}/.netrc" in plan.hidden
    assert Op("hide-file", f"{HOME}/.netrc") in plan.layers
    # The real home replaces the private one; claude's own state stays private (not a
    # read-only cover-up), and a state dir the real home lacks is left out (no mount point).
    assert HOME not in plan.writable and f"{HOME}/.claude" in plan.writable
    assert f"{HOME}/.claude" not in plan.hidden
    assert f"{HOME}/.config/anthropic" not in plan.writable


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("/", "the whole filesystem"),
        ("/proc", "undoes the confinement"),
        (f"{HOME}/.ssh", "a secret store"),
        (f"{HOME}/.aws/credentials", "a secret store"),
        ("/etc/ssh", "a secret store"),
        (f"{HOME}/nothing-here", "no such file"),
    ],
)
def test_allow_read_refuses_what_would_undo_the_confinement(given: str, said: str) -> None:
    refusal = plan_for(ConfineRequest(GENERIC, "claude", allow_read=(given,)))
    assert isinstance(refusal, str) and said in refusal and refusal.startswith("--allow-read")


def test_a_store_is_one_wherever_it_lies() -> None:
    assert store_of("/mnt/backup/u/.ssh/id_rsa") == "/mnt/backup/u/.ssh"
    assert store_of(f"{HOME}/.config/gh/hosts.yml") == f"{HOME}/.config/gh"
    assert store_of("/etc/shadow") == "/etc/shadow"
    assert store_of(f"{HOME}/.config/ghost") is None and store_of(ROOT) is None
    assert all(not name.startswith("/") for name in SECRET_STORES)


def test_a_path_variable_into_a_secret_store_is_refused() -> None:
    environ = {**ENVIRON, "NODE_EXTRA_CA_CERTS": f"{HOME}/.ssh/id_ed25519"}
    said = plan_for(CLAUDE, environ=environ)
    assert isinstance(said, str) and ".ssh" in said and "secret store" in said


def test_location_spellings() -> None:
    env = {"HOME": "/h", "X": "/x/", "EMPTY": ""}
    assert location(("$X",), env) == "/x"
    assert location(("$EMPTY", "$X/sub"), env) == "/x/sub"
    assert location(("$UNSET", "~/.c"), env) == "/h/.c"
    assert location(("$UNSET",), env) is None
    assert location(("$REL",), {"REL": "relative"}) is None


def test_the_generic_plan_is_an_empty_home_and_temp() -> None:
    fs = filesystem({"/usr/bin/mylane": "file"})
    plan = confined(ConfineRequest(GENERIC, "mylane"), fs=fs)
    assert plan.writable == ("/tmp", HOME)
    assert plan.env_kept == ("HOME", "LANG", "LC_ALL", "PATH", "TERM")


def test_explain_can_split_a_confined_prefix_into_its_options() -> None:
    plan = confined(ConfineRequest(claude.CONFINE, "claude", allow_read=(HOME,)))
    full = LockPlan("/usr/bin/bwrap", ROOT, (ROOT,), ROOT, own_user_namespace=True, confine=plan)
    words = wrapper_prefix(full, {"A": "x", "B": None})[1:]
    starts, separator = prefix_units(words)
    assert words[separator] == "--" and separator == len(words) - 1
    assert all(words[start].startswith("--") for start in starts)
    assert {"--tmpfs", "--symlink", "--remount-ro", "--ro-bind"} <= {words[s] for s in starts}


def test_needs_shape_is_plain_data() -> None:
    needs = ConfineNeeds(env=("X_*",), state=(StateDir(("~/.x",), keep=("k",)),))
    plan = confined(ConfineRequest(needs, "claude"))
    assert f"{HOME}/.x" in plan.writable


# --- the dispatch decision, confined -----------------------------------------------------------
class ConfineHost:
    """The machine side for a confined dispatch: the plan `build` makes on the scripted
    filesystem, a trial verdict; records what it was asked."""

    def __init__(self, trial_says: str | None = None) -> None:
        self.trial_says = trial_says
        self.asked: list[ConfineRequest] = []
        self.trials: list[str] = []

    def plan(
        self, caller_root: str, cwd: str, confine: ConfineRequest | None = None
    ) -> LockPlan | str:
        assert confine is not None
        self.asked.append(confine)
        fs = filesystem({"/usr/bin/mylane": "file", "/usr/bin/codex": "file"})
        built = build(
            confine, fs, environ=ENVIRON, homes=HOMES, caller_root=caller_root,
            read_only=(caller_root,), cwd=cwd,
        )  # fmt: skip
        if isinstance(built, str):
            return built
        return LockPlan("/usr/bin/bwrap", caller_root, (caller_root,), cwd, confine=built)

    def trial(self, prefix: Sequence[str], option: str = "--lock-tree") -> str | None:
        self.trials.append(option)
        return self.trial_says


@pytest.fixture
def real_root(tmp_path: Path) -> str:
    """A caller root that exists (the verdict looks), resolved."""
    (tmp_path / "proj").mkdir()
    return os.path.realpath(tmp_path / "proj")


def confined_decision(
    root: str,
    command: str,
    *args: str,
    host: ConfineHost | None = None,
    options: RewriteOptions | None = None,
    lane_flags: bool = True,
    allow_read: tuple[str, ...] = (),
    env: Mapping[str, str | None] | None = None,
    lane_version: str | None = None,
) -> DispatchDecision:
    request = DispatchRequest(
        invocation=LaneInvocation(command, args, env or {}),
        read_only=True,
        mode="agent",
        cwd=root,
        caller_root=root,
        options=options or RewriteOptions(),
        lock=LockRequest(host or ConfineHost(), lane_flags, ConfineOptions(allow_read)),  # type: ignore[arg-type]
        lane_version=lane_version,
        version_asked=lane_version is not None,
    )
    return decide_dispatch(request)


def test_a_confined_claude_holds_three_layers_and_keeps_only_the_allowed_environment(
    real_root: str,
) -> None:
    host = ConfineHost()
    decision = confined_decision(real_root, "claude", "-p", "review it", host=host)
    assert decision.ok, decision.refusal
    assert decision.layers == ("lane-flags", "tree-lock", "confine")
    assert host.trials == ["--confine"]
    assert host.asked[0].needs == claude.CONFINE
    invoke = decision.invoke
    assert invoke is not None and invoke.command == "/usr/bin/bwrap"
    separator = invoke.args.index("--")
    assert invoke.args[separator + 1] == LANE_BIN  # bwrap runs the path the plan showed
    assert invoke.env == dict.fromkeys(
        ["AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "SSH_AUTH_SOCK", "TMPDIR"]
    )
    document = decision.as_json()
    confinement = document["confinement"]
    assert isinstance(confinement, dict)
    assert real_root in confinement["visible"] and HOME in confinement["writable"]
    assert confinement["env_kept"] == list(split_env(ENVIRON, claude.CONFINE, ())[0])
    assert decision.changes[0].flag == "<confine>"


def test_confined_claude_has_no_web_tools_and_restricted_only_where_it_exists(
    real_root: str,
) -> None:
    for version, restricted in ((None, False), ("2.1.197", False), ("2.1.332", True)):
        decision = confined_decision(real_root, "claude", "-p", "review it", lane_version=version)
        assert decision.invoke is not None
        args = decision.invoke.args
        lane_args = args[args.index("--") + 2 :]
        tools = lane_args[lane_args.index("--tools") + 1]
        assert "WebFetch" not in tools and "WebSearch" not in tools, tools
        denied = lane_args[lane_args.index("--disallowedTools") + 1]
        assert "WebFetch" in denied and "WebSearch" in denied
        assert ("--restricted" in lane_args) is restricted, (version, lane_args)


def test_the_read_shell_keeps_bash_and_asks_for_the_hooks_interpreter(real_root: str) -> None:
    host = ConfineHost()
    options = RewriteOptions(read_shell_hook="/usr/bin/python3 -c hook")
    decision = confined_decision(real_root, "claude", "-p", "x", host=host, options=options)
    assert decision.invoke is not None
    assert "Read,Glob,Grep,Bash" in decision.invoke.args
    assert host.asked[0].read_shell


def test_confined_codex_turns_web_search_off_whatever_the_template_says(real_root: str) -> None:
    for template in (
        ("exec", "review this"),
        ("--search", "exec", "review this"),
        ("exec", "-c", 'web_search="live"', "review this"),
        ("exec", "-c", "tools.web_search=true", "review this"),
    ):
        decision = confined_decision(real_root, "codex", *template)
        assert decision.ok, (template, decision.refusal)
        assert decision.invoke is not None
        words = decision.invoke.args[decision.invoke.args.index("--") + 2 :]
        assert "--search" not in words
        settings = [words[i + 1] for i, word in enumerate(words) if word == "-c"]
        web = [value for value in settings if "web_search" in value]
        assert web == ['web_search="disabled"'], (template, words)


def test_an_unknown_lane_runs_confined_with_the_generic_plan(real_root: str) -> None:
    host = ConfineHost()
    decision = confined_decision(real_root, "mylane", "go", host=host)
    assert decision.ok, decision.refusal
    assert decision.layers == ("tree-lock", "confine")
    assert host.asked[0].needs == GENERIC


def test_a_plan_that_cannot_be_built_or_tried_refuses_the_dispatch(real_root: str) -> None:
    decision = confined_decision(real_root, "claude", "-p", "x", allow_read=("/",))
    assert not decision.ok and decision.invoke is None
    assert decision.refusal is not None and decision.refusal.startswith("--allow-read /")
    said = "--confine: bubblewrap cannot build the sandbox here (bwrap: nope)"
    decision = confined_decision(real_root, "claude", "-p", "x", host=ConfineHost(trial_says=said))
    assert not decision.ok and decision.refusal == said and decision.confinement is None


def test_a_template_setting_a_state_variable_is_refused_when_confined(real_root: str) -> None:
    decision = confined_decision(
        real_root, "claude", "-p", "x", env={"ANTHROPIC_CONFIG_DIR": f"{HOME}/.aws"}
    )
    assert not decision.ok and "ANTHROPIC_CONFIG_DIR" in (decision.refusal or "")


def test_explain_shows_what_the_confined_lane_sees(real_root: str) -> None:
    from toolgate_cli.commands.explain import render
    from toolgate_cli.explanation import explain

    decision = confined_decision(real_root, "claude", "-p", "review it")
    request = DispatchRequest(LaneInvocation("claude", ("-p", "review it")), True, "agent",
                              real_root, real_root)  # fmt: skip
    shown = explain(request, decision, real_root)
    text = render(shown, colour=False, width=100)
    assert shown.headline == "claude runs read-only and confined"
    assert "What the confined lane sees" in text
    for path in (real_root, "/opt/lanes/node_modules", HOME, "ANTHROPIC_API_KEY"):
        assert path in text, path
    assert "AWS_SECRET_ACCESS_KEY" not in text.split("What toolgate does")[0]
