"""The tree lock's pure side (bwrap argv, mount table, `.git` files) and its place in the
dispatch decision, with a double for the machine side.

What the kernel makes of these words is proven in tests/e2e/test_lock_attacks.py and
tests/e2e/test_lock_tree_lanes.py; here the contract is the words themselves.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import run_toolgate
from tests.e2e.tree import git
from toolgate_cli.decision import DispatchRequest, LockRequest, decide_dispatch
from toolgate_cli.lanes.base import LaneInvocation
from toolgate_cli.records import replace
from toolgate_cli.sandbox.host import repository_dirs
from toolgate_cli.sandbox.mounts import Mount, gitdir_of, other_views, parse_mountinfo
from toolgate_cli.sandbox.plan import (
    BWRAP_VALUES,
    SANDBOX_OPTIONS,
    LockPlan,
    ancestors,
    prefix_units,
    unique_outside,
    wrapper_prefix,
)

PLAN = LockPlan("/usr/bin/bwrap", "/w/tree", ("/w/tree", "/w/main/.git"), "/w/tree/src")


def test_the_prefix_locks_every_read_only_path_on_top_of_the_whole_filesystem() -> None:
    words = wrapper_prefix(PLAN)
    assert words[0] == "/usr/bin/bwrap" and words[-1] == "--"
    bind_all = words.index("--bind")
    assert words[bind_all : bind_all + 3] == ("--bind", "/", "/")
    for path in PLAN.read_only:
        at = words.index(path)
        # A later mount covers an earlier one: the read-only binds must come after `/`.
        assert words[at - 1 : at + 2] == ("--ro-bind", path, path) and at > bind_all
    assert words[words.index("--chdir") + 1] == "/w/tree/src"


@pytest.mark.parametrize(
    ("option", "why"),
    [
        (("--cap-drop", "ALL"), "a root lane keeps CAP_SYS_ADMIN and can remount rw"),
        (("--unshare-pid",), "/proc/PID/root of outside processes leads to the unlocked tree"),
        (("--new-session",), "TIOCSTI into the caller's terminal"),
        (("--die-with-parent",), "the lane outlives a killed toolgate"),
        (("--dev", "/dev"), "the disk's block device would be writable by a root lane"),
        (("--proc", "/proc"), "the outside procfs"),
        (
            ("--ro-bind", "/proc/sys", "/proc/sys"),
            "a root lane sets core_pattern and the kernel's helper writes the tree",
        ),
        (("--ro-bind", "/sys", "/sys"), "a root lane sets uevent_helper where the kernel has it"),
    ],
)
def test_each_hardening_option_is_present(option: tuple[str, ...], why: str) -> None:
    words = wrapper_prefix(PLAN)
    starts = [i for i in range(len(words)) if words[i : i + len(option)] == option]
    assert starts, f"missing {' '.join(option)}: {why}"


def test_unique_outside_keeps_the_root_first_and_drops_covered_paths() -> None:
    assert unique_outside("/w/t", ["/w/t/.git", "/x/.git", "/x/.git/worktrees/t", "/x"]) == (
        "/w/t",
        "/x",
    )
    assert unique_outside("/w/t", ["/w", "/y"]) == ("/w", "/y")
    assert unique_outside("/w/t", []) == ("/w/t",)


MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
50 27 254:0 /w/tree /srv/alias rw,relatime shared:1 - ext4 /dev/vda rw
51 27 254:0 /w /mnt/parent\\040dir rw,relatime - ext4 /dev/vda rw
52 27 254:0 /w/tree/docs /mnt/docs rw,relatime - ext4 /dev/vda rw
53 27 254:0 /elsewhere /mnt/other rw,relatime - ext4 /dev/vda rw
54 27 254:0 /w/tree-sibling /mnt/sibling rw,relatime - ext4 /dev/vda rw
60 27 0:40 / /w/tree/data rw,relatime - tmpfs tmpfs rw
61 27 0:40 / /srv/data-again rw,relatime - tmpfs tmpfs rw
62 27 0:41 / /srv/unrelated rw,relatime - tmpfs tmpfs rw
63 27 254:0 /w/tree//deleted /mnt/gone rw,relatime - ext4 /dev/vda rw
"""


def test_parse_mountinfo_reads_device_path_and_mount_point_with_escapes() -> None:
    mounts = parse_mountinfo(MOUNTINFO + "garbage line\n")
    assert mounts[0] == Mount("0:21", "/", "/proc")
    assert Mount("254:0", "/w", "/mnt/parent dir") in mounts
    # Every line but the //deleted one, and no garbage line.
    assert len(mounts) == MOUNTINFO.count("\n") - 1
    assert not any(mount.mount_point == "/mnt/gone" for mount in mounts)
    assert parse_mountinfo("1 1 8:1 relative /x rw - e s rw\n1 1 8:1 /a //b// rw - e s rw") == (
        Mount("8:1", "/a", "/b"),
    )


def test_other_views_finds_every_other_path_that_shows_the_trees_files() -> None:
    views = other_views("/w/tree", MOUNTINFO)
    assert sorted(views) == sorted(
        [
            "/srv/alias",  # a bind mount of the tree itself
            "/mnt/parent dir/tree",  # a bind mount of a directory above it
            "/mnt/docs",  # a bind mount of a directory inside it
            "/srv/data-again",  # a filesystem mounted inside the tree, mounted again
        ]
    )


def test_other_views_leaves_unrelated_sibling_and_deleted_mounts_alone() -> None:
    views = other_views("/w/tree", MOUNTINFO)
    for unrelated in ("/mnt/other", "/mnt/sibling", "/srv/unrelated", "/mnt/gone", "/", "/proc"):
        assert not any(view == unrelated or view.startswith(unrelated + "/") for view in views)


def test_other_views_of_a_plain_tree_and_of_the_whole_filesystem_are_empty() -> None:
    plain = "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
    assert other_views("/w/tree", plain) == ()
    assert other_views("/", MOUNTINFO) == ()
    assert other_views("/w/tree", "") == ()


def test_other_views_follow_the_mount_that_really_holds_the_tree() -> None:
    # The tree lies on a second filesystem mounted at /w; a bind of that filesystem's /tree
    # elsewhere is a view, one of the root filesystem's /w/tree is not (a different file).
    text = (
        "27 1 254:0 / / rw - ext4 /dev/vda rw\n"
        "30 27 8:1 / /w rw - ext4 /dev/sdb rw\n"
        "31 27 8:1 /tree /srv/b rw - ext4 /dev/sdb rw\n"
        "32 27 254:0 /w/tree /srv/a rw - ext4 /dev/vda rw\n"
    )
    assert other_views("/w/tree", text) == ("/srv/b",)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("gitdir: /repo/.git/worktrees/t\n", "/repo/.git/worktrees/t"),
        ("gitdir: ../.git/modules/sub\r\n", "/w/tree/../.git/modules/sub"),
        ("gitdir: /a b/c", "/a b/c"),
        ("gitdir: ", None),
        ("ref: refs/heads/main\n", None),
        ("", None),
    ],
)
def test_gitdir_of_reads_a_dot_git_file(text: str, expected: str | None) -> None:
    assert gitdir_of(text, "/w/tree") == expected


def test_repository_dirs_of_a_top_level_a_subdirectory_and_a_plain_directory(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    top = os.path.realpath(repo)
    assert repository_dirs(top) == [os.path.join(top, ".git")]
    # A caller root below the top level: the repository's .git is outside it.
    assert repository_dirs(os.path.join(top, "src")) == [os.path.join(top, ".git")]
    plain = tmp_path / "plain"
    plain.mkdir()
    if not any((parent / ".git").exists() for parent in plain.resolve().parents):
        assert repository_dirs(os.path.realpath(plain)) == []


def test_repository_dirs_of_a_linked_worktree_are_its_gitdir_and_the_common_dir(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    git(repo, "commit", "-q", "--allow-empty", "-m", "x")
    git(repo, "worktree", "add", "-q", str(tmp_path / "linked"))
    common = os.path.realpath(repo / ".git")
    dirs = repository_dirs(os.path.realpath(tmp_path / "linked"))
    assert dirs == [os.path.join(common, "worktrees", "linked"), common]
    root = os.path.realpath(tmp_path / "linked")
    assert unique_outside(root, dirs) == (root, common)


class FakeHost:
    """The machine side, scripted: a plan (or the refusal `plan_says`), a trial verdict."""

    def __init__(self, plan_says: str | None = None, trial_says: str | None = None) -> None:
        self.plan_says = plan_says
        self.trial_says = trial_says
        self.calls: list[tuple[object, ...]] = []

    def plan(self, caller_root: str, cwd: str, confine: object = None) -> LockPlan | str:
        assert confine is None, "the lock alone asks for no confinement"
        self.calls.append(("plan", caller_root, cwd))
        if self.plan_says is not None:
            return self.plan_says
        return LockPlan("/usr/bin/bwrap", caller_root, (caller_root,), cwd)

    def trial(self, prefix: Sequence[str], option: str = "--lock-tree") -> str | None:
        assert option == "--lock-tree"
        self.calls.append(("trial", tuple(prefix)))
        return self.trial_says


def locked_request(
    tree: Path,
    invocation: LaneInvocation,
    host: FakeHost | None,
    *,
    lane_flags: bool = True,
    cwd: str | None = None,
) -> DispatchRequest:
    """A read-only agent dispatch in `tree`, under the lock `host` scripts (None: no lock)."""
    return DispatchRequest(
        invocation=invocation,
        read_only=True,
        mode="agent",
        cwd=cwd or str(tree),
        caller_root=str(tree),
        lock=LockRequest(host, lane_flags) if host is not None else None,  # type: ignore[arg-type]
    )


def decide(
    tree: Path, command: str, *args: str, host: FakeHost | None = None, lane_flags: bool = True
) -> object:
    invocation = LaneInvocation(command, args, {"ANTHROPIC_MODEL": "opus"})
    return decide_dispatch(locked_request(tree, invocation, host, lane_flags=lane_flags)).as_json()


def has_run(words: Sequence[str], *run: str) -> bool:
    return any(tuple(words[i : i + len(run)]) == run for i in range(len(words)))


def test_lane_environment_goes_inside_the_sandbox_after_the_mounts() -> None:
    words = wrapper_prefix(PLAN, {"LD_PRELOAD": "/x/evil.so", "HOME": None})
    assert has_run(words, "--setenv", "LD_PRELOAD", "/x/evil.so")
    assert has_run(words, "--unsetenv", "HOME")
    assert words.index("--setenv") > words.index("--ro-bind")
    assert words[-3:] == ("--chdir", "/w/tree/src", "--")


def lane_words(result: dict[str, object]) -> list[str]:
    invoke = result["invoke"]
    assert isinstance(invoke, dict)
    args = invoke["args"]
    return list(args[args.index("--") + 1 :])


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    path = tmp_path / "tree"
    path.mkdir()
    return Path(os.path.realpath(path))


def test_claude_under_the_lock_holds_both_layers(tree: Path) -> None:
    host = FakeHost()
    locked = decide(tree, "claude", "-p", "review", host=host)
    plain = decide(tree, "claude", "-p", "review")
    assert isinstance(locked, dict) and isinstance(plain, dict)
    assert locked["ok"] and locked["layers"] == ["lane-flags", "tree-lock"]
    assert plain["layers"] == ["lane-flags"]
    assert locked["invoke"]["command"] == "/usr/bin/bwrap"
    # The lane after `--` is exactly the flag rewrite, with the template's environment.
    assert lane_words(locked) == [plain["invoke"]["command"], *plain["invoke"]["args"]]
    # The template's environment is set inside the sandbox, never on bwrap itself.
    assert locked["invoke"]["env"] == {}
    assert has_run(locked["invoke"]["args"], "--setenv", "ANTHROPIC_MODEL", "opus")
    assert "dontAsk" in locked["binding"] and "bubblewrap" in locked["binding"]
    assert locked["changes"][0]["flag"] == "<tree-lock>"
    assert [call[0] for call in host.calls] == ["plan", "trial"]
    # The trial ran the very words the lane runs under.
    args = locked["invoke"]["args"]
    assert host.calls[1][1] == ("/usr/bin/bwrap", *args[: args.index("--") + 1])


@pytest.mark.parametrize("lane", ["opencode", "agy", "gemini", "/opt/bin/mylane"])
def test_a_lane_without_read_only_flags_runs_under_the_lock_alone(tree: Path, lane: str) -> None:
    result = decide(tree, lane, "run", "--yolo", host=FakeHost())
    assert isinstance(result, dict)
    assert result["ok"] and result["layers"] == ["tree-lock"]
    assert lane_words(result) == [lane, "run", "--yolo"]
    assert "lock alone" in result["changes"][1]["reason"]
    assert decide(tree, lane, "run")["ok"] is False  # type: ignore[index]


def test_lock_only_runs_a_wide_open_template_as_given(tree: Path) -> None:
    template = ("-p", "--dangerously-skip-permissions", "--allowedTools", "Write")
    result = decide(tree, "claude", *template, host=FakeHost(), lane_flags=False)
    assert isinstance(result, dict)
    assert result["ok"] and result["layers"] == ["tree-lock"]
    assert lane_words(result) == ["claude", *template]
    assert "--lock-only" in result["changes"][1]["reason"]


def test_a_flag_refusal_stands_under_the_lock_and_points_at_lock_only(tree: Path) -> None:
    host = FakeHost()
    result = decide(tree, "claude", "review", host=host)  # no -p: claude cannot be bound
    assert isinstance(result, dict)
    assert not result["ok"] and result["layers"] == [] and result["invoke"] is None
    assert "--lock-only" in result["refusal"]
    assert host.calls == []


@pytest.mark.parametrize("which", ["plan", "trial"])
def test_when_the_lock_cannot_be_had_the_dispatch_is_refused(tree: Path, which: str) -> None:
    says = "--lock-tree needs bubblewrap (bwrap): install it"
    host = FakeHost(**{f"{which}_says": says})
    result = decide(tree, "opencode", "run", host=host)
    assert isinstance(result, dict)
    assert not result["ok"] and result["refusal"] == says
    assert result["invoke"] is None and result["layers"] == []


def test_the_verdict_comes_before_the_lock(tree: Path) -> None:
    host = FakeHost()
    decision = decide_dispatch(
        locked_request(tree, LaneInvocation("opencode", ("run",)), host, cwd="/")
    )
    assert not decision.ok and "outside" in (decision.refusal or "")
    assert host.calls == []


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--lock-tree", "--", "opencode"], "--lock-tree needs --read-only"),
        (["--lock-only", "--", "claude", "-p", "x"], "--lock-only needs --read-only"),
        (["--read-only", "--lock-tree", "--mode", "answer"], "answer mode spawns nothing"),
        (["--read-only", "--lock-only", "--read-shell", "--", "claude", "-p", "x"], "--read-shell"),
        (["--read-only", "--lock-only", "--pass-flag", "--x", "--", "claude"], "--pass-flag"),
        (["--read-only", "--lock-only", "--pass-env", "X", "--", "claude"], "--pass-env"),
    ],
)
def test_contradictory_lock_options_are_usage_errors(args: list[str], says: str) -> None:
    result = run_toolgate(["dispatch", *args])
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1 and says in result.stderr


def test_without_bwrap_on_path_the_lock_is_refused_naming_what_to_install(
    tree: Path, tmp_path: Path
) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    marker = tmp_path / "ran"
    result = run_toolgate(
        ["dispatch", "--read-only", "--lock-tree", "--exec", "--cwd", str(tree),
         "--caller-root", str(tree), "--", sys.executable, "-c", f"open({str(marker)!r}, 'w')"],
        env={"PATH": str(empty)},
    )  # fmt: skip
    assert result.returncode == 3 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "bubblewrap" in line and "apt-get install bubblewrap" in line
    assert not marker.exists()
    as_json = run_toolgate(
        ["dispatch", "--read-only", "--lock-tree", "--cwd", str(tree), "--caller-root",
         str(tree), "--", "opencode"],
        env={"PATH": str(empty)},
    )  # fmt: skip
    assert as_json.returncode == 3
    assert json.loads(as_json.stdout)["ok"] is False


CLOSE_CHECK = """
import json, os, sys
from toolgate_cli.execlane import exec_lane
from toolgate_cli.lanes.base import LaneInvocation
kept = os.dup2(os.open(sys.argv[1], os.O_RDONLY), 57)  # above the number listdir takes
def record(file, argv, env):
    print(json.dumps({"kept": kept, "open": sorted(int(n) for n in os.listdir("/proc/self/fd"))}))
exec_lane(LaneInvocation("x", ()), sys.argv[1], None, only_std_fds=sys.argv[2] == "1",
          execvpe=record)
"""


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd")
@pytest.mark.parametrize("lock", [True, False])
def test_under_the_lock_no_descriptor_but_0_1_2_crosses_the_exec(tree: Path, lock: bool) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CLOSE_CHECK, str(tree), "1" if lock else "0"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    report = json.loads(done.stdout)
    # listdir's own descriptor shows in its listing; everything else above 2 must be gone.
    left = [fd for fd in report["open"] if fd > 2]
    if lock:
        assert report["kept"] not in left and len(left) <= 1
    else:
        assert report["kept"] in left


def test_explain_shows_the_lock_one_option_a_line_and_the_lane_after_the_separator(
    tree: Path,
) -> None:
    from toolgate_cli.explanation import explain

    request = locked_request(tree, LaneInvocation("codex", ("exec", "explain main.py")), FakeHost())
    shown = explain(request, decide_dispatch(request), str(tree))
    assert shown.command_line is not None
    lines = [line.strip() for line in shown.command_line.wrapped(160, starts=shown.line_starts)]
    assert lines[:3] == ["/usr/bin/bwrap \\", "--die-with-parent \\", "--new-session \\"]
    assert "--cap-drop ALL \\" in lines and "--bind / / \\" in lines
    assert f"--ro-bind {tree} {tree} \\" in lines
    assert "-- codex exec \\" in lines and lines[-1] == "'explain main.py'"
    assert "--sandbox read-only \\" in lines
    alone = replace(request, invocation=LaneInvocation("opencode", ("run", "x")))
    assert "tree locked" in explain(alone, decide_dispatch(alone), str(tree)).headline


def test_every_directory_above_a_locked_path_becomes_a_mount_point_before_the_locks() -> None:
    words = wrapper_prefix(PLAN)
    binds = [words[i + 1] for i in range(len(words)) if words[i] == "--bind"]
    # `/` first, then outer to inner: /w (above both /w/tree and /w/main/.git), /w/main.
    assert binds == ["/", "/w", "/w/main"]
    last_bind = max(i for i in range(len(words)) if words[i] == "--bind")
    first_lock = words.index("--ro-bind")
    assert last_bind < first_lock, "a later bind above the tree would cover the read-only one"
    assert ancestors(["/", "/a"]) == ()
    assert ancestors(["/a/b/c", "/a/d"]) == ("/a", "/a/b")


def test_a_lane_started_by_root_gets_a_user_namespace_of_its_own() -> None:
    as_root = wrapper_prefix(replace(PLAN, own_user_namespace=True))
    start = as_root.index("--unshare-user")
    assert as_root[start : start + 5] == ("--unshare-user", "--uid", "1000", "--gid", "1000")
    assert "--cap-drop" in as_root  # the namespace is as well as, not instead of, the drop
    assert "--unshare-user" not in wrapper_prefix(PLAN)


mount_paths = st.sampled_from(["/", "/w", "/w/tree", "/w/tree/sub", "/srv", "/srv/x", "/w/t r"])
mount_lines = st.builds(
    lambda device, fs_path, point: (
        f"1 1 {device} {fs_path.replace(' ', chr(92) + '040')} "
        f"{point.replace(' ', chr(92) + '040')} rw - ext4 src rw"
    ),
    st.sampled_from(["254:0", "8:1", "0:40"]),
    mount_paths,
    mount_paths,
)


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(mount_lines | st.text(max_size=40), max_size=8), root=mount_paths)
def test_other_views_never_fails_and_never_names_a_path_inside_the_tree(
    lines: list[str], root: str
) -> None:
    views = other_views(root, "\n".join(lines))
    assert all(not (view == root or view.startswith(root.rstrip("/") + "/")) for view in views)
    # Every view is a place where some mount of a device that holds part of the tree sits.
    points = {mount.mount_point for mount in parse_mountinfo("\n".join(lines))}
    assert all(
        any(view == p or view.startswith(p.rstrip("/") + "/") for p in points) for view in views
    )


def test_explain_says_the_lock_cannot_be_set_up_and_how_to_fix_it(tree: Path) -> None:
    from toolgate_cli.explanation import explain

    says = "--lock-tree needs bubblewrap (bwrap), which is not on PATH: install bubblewrap"
    request = locked_request(tree, LaneInvocation("opencode", ("run", "x")), FakeHost(says))
    shown = explain(request, decide_dispatch(request), str(tree))
    assert shown.outcome == "refused"
    assert shown.headline == "the tree lock cannot be set up here"
    [advice] = shown.advice
    assert "make bubblewrap usable" in advice and "without --lock-tree" in advice


def test_the_host_refuses_off_linux_and_without_bwrap(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from toolgate_cli.sandbox import host

    monkeypatch.setattr(host.sys, "platform", "darwin")
    said = host.HOST.plan(str(tree), str(tree))
    assert isinstance(said, str) and "needs Linux" in said
    monkeypatch.setattr(host.sys, "platform", "linux")
    monkeypatch.setattr(host.shutil, "which", lambda name: None)
    said = host.HOST.plan(str(tree), str(tree))
    assert isinstance(said, str) and "apt-get install bubblewrap" in said


def test_the_host_trial_reports_the_first_line_bwrap_said(tmp_path: Path) -> None:
    from toolgate_cli.sandbox.host import HOST

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    said = HOST.trial([str(fake), "--"])
    assert said is not None and "No permissions to create new namespace" in said
    assert HOST.trial(["/bin/sh", "-c", 'exec "$0"']) is None  # runs `true`: the sandbox ran


def test_explain_knows_how_many_values_each_option_the_lock_writes_takes() -> None:
    """`prefix_units` (how explain groups the words) must split a prefix with every kind of
    option exactly where `wrapper_prefix` put each option."""
    full = replace(PLAN, own_user_namespace=True)
    words = wrapper_prefix(full, {"A": "--looks-like-an-option", "B": None})[1:]
    starts, separator = prefix_units(words)
    assert words[separator] == "--" and separator == len(words) - 1
    options = [words[start] for start in starts]
    assert all(option.startswith("--") for option in options)
    assert options.count("--setenv") == 1 and options.count("--unsetenv") == 1
    assert set(options) <= {*BWRAP_VALUES, *SANDBOX_OPTIONS, "--unshare-user"}
