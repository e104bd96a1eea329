"""The containment verdict: a read-only dispatch runs inside the caller's tree or not at all.

Every attack here is a way to make a cwd LOOK inside the tree while it is not (or the reverse):
sibling prefixes, `..`, symlinks, missing or non-directory paths. The last test checks the
verdict against an independent oracle (os.path.commonpath over realpaths) on random trees.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgate_cli.verdict import (
    Allowed,
    ReadOnlyRequest,
    Refused,
    Verdict,
    is_within,
    read_only_verdict,
    resolve_read_only_cwd,
)


def verdict(cwd: Path | str | None, root: Path | str, *, mode: str = "agent") -> Verdict:
    return read_only_verdict(
        ReadOnlyRequest(
            read_only=True,
            mode="answer" if mode == "answer" else "agent",
            cwd=None if cwd is None else str(cwd),
            caller_root=str(root),
        )
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """/tmp/.../x/tree with a subdirectory, beside /tmp/.../x/tree-other and /tmp/.../outside."""
    (tmp_path / "x" / "tree" / "src" / "deep").mkdir(parents=True)
    (tmp_path / "x" / "tree-other").mkdir()
    (tmp_path / "x" / "tree2").mkdir()
    (tmp_path / "outside").mkdir()
    return tmp_path / "x" / "tree"


# --- containment -----------------------------------------------------------------------------


def test_seed_sibling_prefix_is_not_inside(tree: Path) -> None:
    result = verdict(tree.parent / "tree-other", tree)
    assert isinstance(result, Refused)
    assert "tree-other" in result.refusal
    assert "outside the caller root" in result.refusal


def test_sibling_without_separator_after_the_prefix_is_not_inside(tree: Path) -> None:
    assert isinstance(verdict(tree.parent / "tree2", tree), Refused)


def test_the_root_itself_is_inside_and_the_cwd_comes_back_resolved(tree: Path) -> None:
    assert verdict(tree, tree) == Allowed(os.path.realpath(tree))


def test_a_subdirectory_is_inside(tree: Path) -> None:
    assert verdict(tree / "src" / "deep", tree) == Allowed(os.path.realpath(tree / "src/deep"))


def test_the_root_with_a_trailing_slash_still_contains_its_subdirectories(tree: Path) -> None:
    assert verdict(tree / "src", str(tree) + os.sep).ok


def test_dot_dot_leading_out_of_the_tree_is_refused(tree: Path) -> None:
    sneaky = f"{tree}/src/../../tree-other"
    result = verdict(sneaky, tree)
    assert isinstance(result, Refused)
    assert "outside" in result.refusal


def test_dot_dot_staying_inside_is_allowed_and_resolved(tree: Path) -> None:
    assert verdict(f"{tree}/src/deep/../..", tree) == Allowed(os.path.realpath(tree))


def test_dot_dot_through_a_symlink_follows_the_link_like_the_os_does(tree: Path) -> None:
    # `link/..` is the parent of the link's TARGET for the kernel, not `tree`: a lexical
    # normalisation would wrongly call it inside.
    (tree / "link").symlink_to(tree.parent.parent / "outside")
    result = verdict(f"{tree}/link/..", tree)
    assert isinstance(result, Refused)


def test_a_symlink_leading_out_of_the_tree_is_refused_and_the_refusal_shows_the_target(
    tree: Path,
) -> None:
    outside = tree.parent.parent / "outside"
    (tree / "escape").symlink_to(outside)
    result = verdict(tree / "escape", tree)
    assert isinstance(result, Refused)
    assert f"resolves to {os.path.realpath(outside)}" in result.refusal


def test_a_symlinked_parent_leading_out_of_the_tree_is_refused(tree: Path) -> None:
    (tree.parent.parent / "outside" / "sub").mkdir()
    (tree / "escape").symlink_to(tree.parent.parent / "outside")
    assert isinstance(verdict(tree / "escape" / "sub", tree), Refused)


def test_a_symlink_to_the_sibling_prefix_is_refused(tree: Path) -> None:
    (tree / "other").symlink_to(tree.parent / "tree-other")
    assert isinstance(verdict(tree / "other", tree), Refused)


def test_a_symlink_that_stays_inside_is_allowed_as_its_target(tree: Path) -> None:
    (tree / "shortcut").symlink_to(tree / "src" / "deep")
    assert verdict(tree / "shortcut", tree) == Allowed(os.path.realpath(tree / "src" / "deep"))


def test_a_caller_root_given_through_a_symlink_is_resolved_too(tree: Path) -> None:
    alias = tree.parent.parent / "alias"
    alias.symlink_to(tree)
    assert verdict(tree / "src", alias).ok
    assert isinstance(verdict(tree.parent / "tree-other", alias), Refused)


def test_a_cwd_reached_through_a_symlink_into_the_tree_is_inside(tree: Path) -> None:
    into = tree.parent.parent / "outside" / "into"
    into.symlink_to(tree / "src")
    assert verdict(into, tree) == Allowed(os.path.realpath(tree / "src"))


def test_the_parent_of_the_root_is_not_inside(tree: Path) -> None:
    assert isinstance(verdict(tree.parent, tree), Refused)


# --- paths that are not directories ------------------------------------------------------------


def test_a_missing_cwd_is_refused_and_the_refusal_says_it_does_not_exist(tree: Path) -> None:
    result = verdict(tree / "nope", tree)
    assert isinstance(result, Refused)
    assert result.refusal == f"cwd {tree / 'nope'} does not exist"


def test_a_cwd_that_is_a_file_is_refused_and_the_refusal_says_so(tree: Path) -> None:
    (tree / "file.txt").write_text("x")
    result = verdict(tree / "file.txt", tree)
    assert isinstance(result, Refused)
    assert result.refusal == f"cwd {tree / 'file.txt'} is not a directory"


def test_a_cwd_that_is_a_broken_symlink_is_refused_as_such(tree: Path) -> None:
    (tree / "dangling").symlink_to(tree / "gone")
    result = verdict(tree / "dangling", tree)
    assert isinstance(result, Refused)
    assert "broken symlink" in result.refusal


def test_a_cwd_under_a_file_is_refused(tree: Path) -> None:
    (tree / "file.txt").write_text("x")
    assert isinstance(verdict(tree / "file.txt" / "sub", tree), Refused)


def test_a_missing_caller_root_is_refused_naming_the_caller_root(tree: Path) -> None:
    result = verdict(tree, tree.parent / "missing-root")
    assert isinstance(result, Refused)
    assert result.refusal.startswith("caller root ")
    assert "does not exist" in result.refusal


def test_a_caller_root_that_is_a_file_is_refused(tree: Path) -> None:
    (tree / "file.txt").write_text("x")
    result = verdict(tree, tree / "file.txt")
    assert isinstance(result, Refused)
    assert "caller root" in result.refusal and "not a directory" in result.refusal


def test_a_refusal_quoting_a_path_with_a_newline_stays_on_one_line(tree: Path) -> None:
    result = verdict(tree / "two\nlines", tree)
    assert isinstance(result, Refused)
    assert "\n" not in result.refusal
    assert "two\\nlines" in result.refusal


def test_a_missing_cwd_is_refused_even_when_it_would_be_inside(tree: Path) -> None:
    # A missing directory could be created later as a symlink to anywhere.
    assert isinstance(verdict(tree / "src" / "later", tree), Refused)


# --- modes that are not confined ----------------------------------------------------------------


@pytest.mark.parametrize("where", ["outside", "x/tree-other", "missing", "file"])
def test_answer_mode_is_always_allowed(tree: Path, where: str) -> None:
    (tree.parent.parent / "file").write_text("x")
    result = verdict(tree.parent.parent / where, tree, mode="answer")
    assert result.ok


def test_answer_mode_is_allowed_even_when_the_caller_root_is_missing(tree: Path) -> None:
    assert verdict(tree, tree / "no-such-root", mode="answer").ok


def test_not_read_only_is_allowed_anywhere_and_the_cwd_is_not_resolved(tree: Path) -> None:
    link = tree / "escape"
    link.symlink_to(tree.parent.parent / "outside")
    result = read_only_verdict(ReadOnlyRequest(False, "agent", str(link), str(tree)))
    assert result == Allowed(str(link))


def test_no_cwd_means_the_current_directory(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree / "src")
    assert verdict(None, tree) == Allowed(os.path.realpath(tree / "src"))
    monkeypatch.chdir(tree.parent / "tree-other")
    assert isinstance(verdict(None, tree), Refused)


def test_a_relative_cwd_is_taken_from_the_current_directory(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tree)
    assert verdict("src/deep", tree) == Allowed(os.path.realpath(tree / "src" / "deep"))
    assert isinstance(verdict("../tree-other", tree), Refused)


# --- resolve_read_only_cwd --------------------------------------------------------------------


def test_resolve_prefers_the_cwd_then_the_fallback_then_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_read_only_cwd("/a/b", "/c") == "/a/b"
    assert resolve_read_only_cwd(None, "/c") == "/c"
    assert resolve_read_only_cwd("", "/c") == "/c"
    assert resolve_read_only_cwd(None) == os.getcwd()
    assert resolve_read_only_cwd("rel") == os.path.join(os.getcwd(), "rel")


def test_resolve_makes_absolute_but_does_not_follow_symlinks(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path.parent)
    assert resolve_read_only_cwd(str(tmp_path / "link")) == str(tmp_path / "link")


# --- is_within --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "root", "inside"),
    [
        ("/x/tree", "/x/tree", True),
        ("/x/tree/a", "/x/tree", True),
        ("/x/tree-other", "/x/tree", False),
        ("/x/tree2/a", "/x/tree", False),
        ("/x/tre", "/x/tree", False),
        ("/x", "/x/tree", False),
        ("/anything", "/", True),
        ("/", "/", True),
        ("/x/tree/a", "/x/tree/", True),
    ],
)
def test_is_within_uses_a_separator_boundary(path: str, root: str, inside: bool) -> None:
    assert is_within(path, root) is inside


# --- random trees against an independent oracle --------------------------------------------------

NAMES = ["a", "b", "tree", "tree-other", "tré", "t ree", "..", ".", ""]


def _oracle(cwd: str, root: str) -> bool | str:
    """What the verdict must say, computed without toolgate: False/True for outside/inside,
    "missing"/"file" for paths that are not directories."""
    if not os.path.lexists(cwd) or not os.path.exists(cwd):
        return "missing"
    if not os.path.isdir(cwd):
        return "file"
    real_cwd, real_root = os.path.realpath(cwd), os.path.realpath(root)
    return os.path.commonpath([real_cwd, real_root]) == real_root


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    links=st.lists(
        st.tuples(st.sampled_from(["a", "b", "tree/a", "tree/l"]), st.sampled_from(NAMES * 2)),
        max_size=4,
    ),
    parts=st.lists(st.sampled_from([*NAMES, "l", "f", "tree/l"]), min_size=0, max_size=6),
    slashes=st.sampled_from(["/", "//"]),
    trailing=st.booleans(),
)
def test_verdict_agrees_with_an_independent_oracle_on_random_trees(
    tmp_path_factory: pytest.TempPathFactory,
    links: list[tuple[str, str]],
    parts: list[str],
    slashes: str,
    trailing: bool,
) -> None:
    base = tmp_path_factory.mktemp("fuzz")
    for directory in ["tree/a/b", "tree-other/a", "a/b", "tré/a"]:
        (base / directory).mkdir(parents=True, exist_ok=True)
    (base / "tree" / "f").write_text("x")
    for where, target in links:
        link = base / where
        link.parent.mkdir(parents=True, exist_ok=True)
        if not os.path.lexists(link):
            link.symlink_to(target if target else "loop")  # may dangle or loop
    if not os.path.lexists(base / "l"):
        (base / "l").symlink_to("l")  # a loop
    root = str(base / "tree")
    cwd = str(base / "tree") + slashes + slashes.join(p for p in parts if p)
    if trailing:
        cwd += "/"
    expected = _oracle(cwd, root)
    result = verdict(cwd, root)
    if expected == "missing":
        assert isinstance(result, Refused) and (
            "does not exist" in result.refusal or "broken symlink" in result.refusal
        ), (cwd, result)
    elif expected == "file":
        assert isinstance(result, Refused) and "not a directory" in result.refusal, (cwd, result)
    else:
        assert result.ok is expected, (cwd, result)
        if isinstance(result, Allowed):
            assert result.cwd == os.path.realpath(cwd)
