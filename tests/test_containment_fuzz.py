"""Containment fuzz: random trees against an oracle that asks the operating system.

hypothesis builds a directory tree per example: directories, files and symlinks whose targets
lie inside the tree, outside it, in a sibling whose name shares the tree's prefix (`tree` and
`tree-other`), in chains of links, in loops, or nowhere. It then picks a caller root (which may
itself be a link, a file or missing) and a cwd written with `..`, `.`, doubled and trailing
slashes, non-ASCII names (NFC and NFD spellings of the same letter are different names on
Linux), parts that do not exist, relative to a random process working directory, or absent.

`read_only_verdict` must agree with `oracle`, written here without toolgate's code: existence
and type from `os.stat`/`os.lstat`, where the cwd really is from `os.chdir` + `os.getcwd()`,
and containment from `os.path.commonpath` over `os.path.realpath`. The verdict must also say
which kind of refusal it is (missing, dangling link, not a directory, outside the tree).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import stat
import tempfile
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from toolgate_cli.verdict import Allowed, ReadOnlyRequest, Refused, read_only_verdict

E_NFC = unicodedata.normalize("NFC", "é")
E_NFD = unicodedata.normalize("NFD", "é")
assert E_NFC != E_NFD

# Names a tree is built from: the seed's sibling-prefix pair and its cousins, non-ASCII, a space,
# a leading dash or dot. The tree under test is always called `tree`.
NAMES = ["tree", "tree-other", "tree2", "a", "b", f"tr{E_NFC}e", f"tr{E_NFD}e", "日本", "s p"]
NAMES += ["-x", ".h"]
SEGMENTS = [*NAMES, "..", ".", ""]  # "" between separators is a doubled slash

relative_paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map("/".join)
# Links get short names of their own, at places a cwd path is likely to walk through.
LINK_NAMES = ["l", "m"]
link_paths = st.sampled_from(["tree/l", "tree/m", "l", "m", "tree/a/l", "tree-other/l"])
SEGMENTS += LINK_NAMES * 2


@dataclass(frozen=True)
class Entry:
    """One thing to create under the base directory, at a relative path."""

    path: str
    kind: str  # "dir" | "file" | "link"
    target: str = ""  # for links: relative text, or an absolute path with {base} in it


link_targets = st.one_of(
    # relative targets: up, across to the sibling, down, itself (a loop), nowhere
    st.sampled_from(["..", "../..", "../tree-other", "../tree", "tree", "a", "a/b", ".", "loop"]),
    st.sampled_from(LINK_NAMES),  # itself or its sibling link: loops and chains
    st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=4).map("/".join),
    # absolute targets inside the base, at the file-system root, and missing ones
    relative_paths.map(lambda path: "{base}/" + path),
    st.sampled_from(["/", "{base}", "{base}/tree", "{base}/tree-other", "/nonexistent/x"]),
)

entries = st.lists(
    st.one_of(
        st.builds(Entry, relative_paths, st.just("dir")),
        st.builds(Entry, relative_paths, st.just("file")),
        st.builds(Entry, relative_paths, st.just("link"), link_targets),
        st.builds(Entry, link_paths, st.just("link"), link_targets),
    ),
    max_size=14,
)


@dataclass(frozen=True)
class Scenario:
    tree: tuple[Entry, ...]
    root: str  # relative to the base
    cwd_anchor: str  # "root" | "base" | "relative" | "none"
    cwd_segments: tuple[str, ...]
    trailing_slash: bool
    process_cwd: str  # relative to the base; falls back to the base when not a directory


# At least one link where a cwd walks (created first, so it wins its place), then anything.
trees = st.builds(
    lambda links, rest: (*links, *rest),
    st.lists(st.builds(Entry, link_paths, st.just("link"), link_targets), min_size=1, max_size=4),
    entries,
)

scenarios = st.builds(
    Scenario,
    trees,
    st.sampled_from(["tree"] * 5 + ["tree/a", ".", "l", "*"]).flatmap(
        lambda root: relative_paths if root == "*" else st.just(root)
    ),
    st.sampled_from(["root", "base", "relative", "none"]),
    st.lists(st.sampled_from(SEGMENTS), max_size=6).map(tuple),
    st.booleans(),
    st.one_of(st.just("tree"), st.just("."), relative_paths),
)


def build(base: str, tree: tuple[Entry, ...]) -> None:
    """Create the skeleton and then every entry that can be created (first one wins)."""
    for directory in ("tree/a/b", "tree-other/a", "tree2", "outside/a"):
        os.makedirs(os.path.join(base, directory), exist_ok=True)
    for entry in tree:
        path = os.path.join(base, entry.path)
        with contextlib.suppress(OSError):  # a parent that is a file or a dangling link
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if os.path.lexists(path):
                continue
            if entry.kind == "dir":
                os.mkdir(path)
            elif entry.kind == "file":
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write("x")
            else:
                os.symlink(entry.target.replace("{base}", base), path)


@contextlib.contextmanager
def working_directory(path: str) -> Iterator[None]:
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def cwd_text(base: str, scenario: Scenario) -> str | None:
    if scenario.cwd_anchor == "none":
        return None
    tail = "/".join(scenario.cwd_segments)
    if scenario.cwd_anchor == "root":
        text = os.path.join(base, scenario.root) + ("/" + tail if tail else "")
    elif scenario.cwd_anchor == "base":
        text = base + "/" + tail
    else:
        text = tail or "."
    if scenario.trailing_slash and not text.endswith("/"):
        text += "/"
    return text


# --- the oracle: the operating system's own answers, no toolgate code --------------------------


def classify(path: str) -> str:
    """ "dir", or what the OS says is wrong with entering `path`: "missing", "dangling" (the
    last name exists, what it points to does not), "file" (it exists and is not a directory),
    "notdir-on-the-way" (a part on the way is not a directory) or "loop" (the way leads
    through a symlink loop)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        if error.errno == errno.ENOENT:
            try:
                os.lstat(path)
            except OSError:
                return "missing"
            return "dangling"
        return {errno.ENOTDIR: "notdir-on-the-way", errno.ELOOP: "loop"}[error.errno]
    return "dir" if stat.S_ISDIR(mode) else "file"


def where_chdir_lands(path: str) -> str:
    with working_directory(path):
        return os.getcwd()


def oracle(cwd: str | None, root: str) -> tuple[str, str | None]:
    """("root-" + kind) or ("cwd-" + kind) for a path that is not a directory; ("inside", real
    cwd) or ("outside", None) otherwise. Run in the process working directory of the case."""
    root_kind = classify(root)
    if root_kind != "dir":
        return "root-" + root_kind, None
    chosen = cwd if cwd else os.getcwd()
    cwd_kind = classify(chosen)
    if cwd_kind != "dir":
        return "cwd-" + cwd_kind, None
    real_root = os.path.realpath(root)
    real_cwd = os.path.realpath(chosen)
    # realpath and the kernel must agree on where the directory is; chdir is the ground truth.
    assert real_cwd == where_chdir_lands(chosen), (chosen, real_cwd)
    inside = os.path.commonpath([real_root, real_cwd]) == real_root
    return ("inside", real_cwd) if inside else ("outside", None)


# What the refusal must say for each kind. A path through a file (`f/x`, `f/`) and a path
# through a symlink loop have no single right word: either message is true of them.
REFUSAL_WORDS = {
    "missing": ("does not exist",),
    "dangling": ("broken symlink",),
    "file": ("not a directory",),
    "notdir-on-the-way": ("does not exist", "not a directory"),
    "loop": ("does not exist", "broken symlink"),
}


def through_a_link(path: str | None) -> bool:
    """Whether some part of `path` (as written, before any resolution) is a symlink."""
    if not path:
        return False
    parts = path.split("/")
    return any(os.path.islink("/".join(parts[:end])) for end in range(1, len(parts) + 1))


def check(base: str, scenario: Scenario) -> str:
    """Build the scenario under `base`, judge it both ways, compare; return the oracle's kind."""
    build(base, scenario.tree)
    root = os.path.join(base, scenario.root)
    cwd = cwd_text(base, scenario)
    process_cwd = os.path.join(base, scenario.process_cwd)
    if classify(process_cwd) != "dir":
        process_cwd = base
    with working_directory(process_cwd):
        expected, real_cwd = oracle(cwd, root)
        verdict = read_only_verdict(ReadOnlyRequest(True, "agent", cwd, root))
    case = f"cwd={cwd!r} root={root!r} process cwd={process_cwd!r}: {verdict}"
    if expected == "inside":
        assert isinstance(verdict, Allowed), case
        assert verdict.cwd == real_cwd, case
    elif expected == "outside":
        assert isinstance(verdict, Refused), case
        assert "outside the caller root" in verdict.refusal, case
    else:
        assert isinstance(verdict, Refused), case
        role, kind = expected.split("-", 1)
        assert verdict.refusal.startswith("caller root" if role == "root" else "cwd"), case
        assert any(words in verdict.refusal for words in REFUSAL_WORDS[kind]), case
    with working_directory(process_cwd):
        linked = through_a_link(cwd) or through_a_link(root)
    return expected + (" (through a symlink)" if linked else "")


# --- the tests -----------------------------------------------------------------------------------


def _scenario(
    *tree: Entry, root: str = "tree", anchor: str = "root", segments: str = ""
) -> Scenario:
    parts = tuple(segments.split("/")) if segments else ()
    return Scenario(tuple(tree), root, anchor, parts, False, "tree")


def walk(data: st.DataObject, start: str) -> tuple[str, ...]:
    """Path segments chosen among what is really there at each step (links followed, as
    listdir does), plus `..`, `.`, an empty segment and a name that is not there."""
    segments: list[str] = []
    here = start
    for _ in range(data.draw(st.integers(0, 5), label="steps")):
        try:
            names = sorted(os.listdir(here))
        except OSError:
            names = []
        # Links weigh three times: they are where containment goes wrong.
        links = [name for name in names if os.path.islink(os.path.join(here, name))]
        choices = [*names, *links, *links, "..", ".", "", "nope"]
        step = data.draw(st.sampled_from(choices), label="step")
        segments.append(step)
        here = os.path.join(here, step)
    return tuple(segments)


@settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(scenarios, st.data())
def test_the_verdict_agrees_with_the_operating_system_on_random_trees(
    scenario: Scenario, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        # realpath of the base itself: on some systems the temp dir is behind a symlink
        base = os.path.realpath(scratch)
        build(base, scenario.tree)
        walking = data.draw(st.integers(0, 3), label="walk the tree") > 0
        if scenario.cwd_anchor != "none" and walking:
            start = {
                "root": os.path.join(base, scenario.root),
                "base": base,
                "relative": os.path.join(base, scenario.process_cwd),
            }[scenario.cwd_anchor]
            scenario = dataclasses.replace(scenario, cwd_segments=walk(data, start))
        event(check(base, scenario))


def _scenario(
    *tree: Entry, root: str = "tree", anchor: str = "root", segments: str = ""
) -> Scenario:
    parts = tuple(segments.split("/")) if segments else ()
    return Scenario(tuple(tree), root, anchor, parts, False, "tree")


CHOSEN_CASES = [
    # the seed's sibling prefix, and a link into it
    _scenario(anchor="base", segments="tree-other"),
    _scenario(Entry("tree/l", "link", "../tree-other"), segments="l"),
    # `..` after a link that leads out: the OS goes to the parent of the link's target
    _scenario(Entry("tree/l", "link", "{base}/outside/a"), segments="l/.."),
    _scenario(Entry("tree/l", "link", "{base}/outside/a"), segments="l/../../tree"),
    # `..` after a part that does not exist: the OS says it does not exist
    _scenario(segments="missing/.."),
    # a chain of links ending outside, a loop, a link to the root of the file system
    _scenario(Entry("tree/l1", "link", "l2"), Entry("tree/l2", "link", "../tree2"), segments="l1"),
    _scenario(Entry("tree/l", "link", "l"), segments="l"),
    _scenario(Entry("tree/l", "link", "m"), Entry("tree/m", "link", "l"), segments="l/x"),
    _scenario(Entry("tree/l", "link", "/"), segments="l/tmp"),
    # the root itself through a link, as a file, as a dangling link; the cwd under a file
    _scenario(Entry("r", "link", "tree"), root="r", segments="a//b/./"),
    _scenario(Entry("r", "file"), root="r"),
    _scenario(Entry("r", "link", "nowhere"), root="r"),
    _scenario(Entry("tree/f", "file"), segments="f"),
    _scenario(Entry("tree/f", "file"), segments="f/"),
    _scenario(Entry("tree/f", "file"), segments="f/x"),
    # NFC and NFD spellings of one name are two directories
    _scenario(
        Entry(f"tr{E_NFC}e", "dir"),
        Entry(f"tr{E_NFD}e", "link", f"tr{E_NFC}e"),
        root=f"tr{E_NFC}e",
        anchor="base",
        segments=f"tr{E_NFD}e",
    ),
    # relative to the process working directory, and no cwd at all (the process cwd)
    dataclasses.replace(_scenario(anchor="relative", segments="../tree-other"), process_cwd="tree"),
    dataclasses.replace(_scenario(anchor="none"), process_cwd="tree/a/b"),
    dataclasses.replace(_scenario(anchor="none"), process_cwd="tree-other"),
]


@pytest.mark.parametrize("scenario", CHOSEN_CASES)
def test_the_verdict_agrees_with_the_operating_system_on_chosen_trees(scenario: Scenario) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        check(os.path.realpath(scratch), scenario)


def test_the_oracle_can_tell_inside_from_outside() -> None:
    """The oracle is not vacuous: the same tree gives each answer for the right cwd."""
    with tempfile.TemporaryDirectory() as scratch:
        base = os.path.realpath(scratch)
        build(base, (Entry("tree/out", "link", "{base}/outside"), Entry("tree/f", "file")))
        root = os.path.join(base, "tree")
        assert oracle(os.path.join(root, "a"), root) == ("inside", os.path.join(root, "a"))
        assert oracle(os.path.join(root, "out"), root) == ("outside", None)
        assert oracle(os.path.join(base, "tree-other"), root) == ("outside", None)
        assert oracle(os.path.join(root, "f"), root) == ("cwd-file", None)
        assert oracle(os.path.join(root, "f", "x"), root) == ("cwd-notdir-on-the-way", None)
        assert oracle(os.path.join(root, "nope"), root) == ("cwd-missing", None)
        assert oracle(root, os.path.join(base, "nope")) == ("root-missing", None)
