"""Compound commands in the read shell: pipelines, chains, newline lists, /dev/null redirections,
`cd` and globs, judged against real scratch trees, and the split compared with what real bash
and zsh run (recording stubs on PATH)."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.shell_harness import SHELLS, STUB_PROGRAMS, Call, make_stubs, run_with_stubs
from toolgate_cli.shell import Place, ShellVerdict, check_read_only_command, shell_words
from toolgate_cli.shell.host import HOST
from toolgate_cli.shell.syntax import NODE_REFUSALS

# Everyday compound reads: each must be admitted without knowing the place.
ADMITTED = [
    "git log --oneline | head -20",
    "git diff HEAD~1 | head -100",
    "grep -rn TODO src | head",
    "ls | wc -l",
    "git status && git diff --stat",
    "git status; git log -3",
    "git log --oneline -5\ngit status --short",
    "git log --format='%h %s' | grep -i fix | wc -l",
    "cat README.md | sort | uniq -c | sort -rn | head -5",
    "ls -la 2>/dev/null",
    "git log 2>&1 | head",
    "grep -c x notes.txt || echo none",
    "find . -name '*.py' | sort | nl",
    "cut -d: -f1 /etc/passwd | sort -u | paste -sd,",
    "jq -r '.name' package.json | tr a-z A-Z",
    "tac notes.txt | rev | column -t",
    "echo 'a | b' && echo \"c && d\"",
    "ls src/ | head -3 ;",
    "ls >/dev/null 2>&1 && echo ok",
    "wc -l src/*.py | sort -n | tail -1",
    "git show HEAD --stat |\n  head -20",
    "sed -n 1,5p README.md </dev/null",
    "git grep -n foo -- '*.py' | cut -c1-80",
    "git branch -a | grep -v HEAD",
    "ls&&pwd",
    "uniq -c notes.txt | sort -rn",
]

# (command, code, why): compound attacks refused without a place (test_shell_attacks.py runs
# each kind in bash to show its harm).
REFUSED = [
    ("ls | sh", "wrapper", "a pipe into a shell runs what the left side prints"),
    ("ls | xargs rm", "wrapper", "xargs runs a program per input line"),
    ("ls | tee out", "not-allowed", "tee writes a file"),
    ("ls | dd of=out", "not-allowed", "dd writes a file"),
    ("ls | sponge out", "not-allowed", "sponge writes a file"),
    ("git diff | git apply -R", "not-allowed", "git apply rewrites the work tree"),
    ("ls | awk '{print}'", "wrapper", "awk runs system() and writes files"),
    ("git status && rm -rf x", "not-allowed", "a later part writes"),
    ("ls; touch x", "not-allowed", "a later part writes"),
    ("ls\ntouch x", "not-allowed", "a later line writes"),
    ("ls || find . -delete", "argument", "a later part deletes"),
    ("ls | find . -de\\lete", "argument", "an obfuscated option in a later part"),
    ("ls && sort -'o' out README.md", "argument", "a quoted option in a later part"),
    ("ls && git log --out\\put=x", "argument", "a backslashed option in a later part"),
    ("ls & touch x", "operator", "`&` backgrounds the first command"),
    ("ls &", "operator", "a background job outlives the check"),
    ("ls |& cat", "operator", "`|&` is a pipe and a redirection in one"),
    ("ls > out", "operator", "a redirection into a file writes it"),
    ("ls 2> err", "operator", "a redirection into a file writes it"),
    ("ls >> out", "operator", "appending writes"),
    ("ls >| out", "operator", "clobbering writes"),
    ("ls &> out", "operator", "both streams into a file"),
    ("ls >& out", "operator", "both streams into a file"),
    ("ls 1<>out", "syntax", "opening read-write creates the file (the grammar cannot read it)"),
    ("ls 2>/dev/null > out", "operator", "a harmless redirection does not hide a writing one"),
    ("ls >/dev/null >out", "operator", "the last redirection wins"),
    ("ls 2>&1 >out", "operator", "a duplication does not hide a file"),
    ("ls | head > out", "operator", "a write at the end of a pipeline"),
    ("ls 2>/dev/nullx", "operator", "not /dev/null"),
    ("ls 2>/dev/null/../out", "operator", "not /dev/null"),
    ("ls 3>/dev/null", "operator", "only the standard streams"),
    ("ls 2>&3", "operator", "only the standard streams"),
    ("ls >&-", "operator", "closing a stream is not admitted"),
    ("{ ls; } > out", "brace", "a group with a redirection"),
    ("(ls) > out", "operator", "a subshell with a redirection"),
    ("ls && (rm x)", "operator", "a subshell in a chain"),
    ("ls && { rm x; }", "brace", "a group in a chain"),
    ("cat <(rm x)", "operator", "process substitution runs a command"),
    ("ls > >(tee out)", "operator", "process substitution runs a command"),
    ("cat <<EOF > out\nx\nEOF", "operator", "a here-document"),
    ("cat <<< x > out", "operator", "a here-string"),
    ("ls && cat <<< x", "operator", "a here-string in a chain"),
    ("ls $(rm x) | head", "expansion", "command substitution"),
    ("ls | head `rm x`", "expansion", "backtick substitution"),
    ("ls && echo $HOME", "expansion", "a variable"),
    ("for f in a; do rm x; done", "syntax", "a loop"),
    ("ls; for f in a; do rm x; done", "syntax", "a loop after a command"),
    ("while true; do rm x; done", "syntax", "a loop"),
    ("if true; then rm x; fi", "syntax", "a conditional"),
    ("ls && f() { rm x; }", "syntax", "a function definition"),
    ("ls && ! rm x", "syntax", "negation"),
    ("ls && FOO=1 git log", "assignment", "an assignment in a later part"),
    ("ls | PAGER=x git log", "assignment", "an assignment in a pipeline"),
    ("ls && export X=1", "syntax", "a declaration"),
    ("ls; # rm x", "comment", "a comment hides text"),
    ("ls ;; ls", "syntax", "`;;` ends a case branch only"),
    ("ls && && ls", "syntax", "an empty command"),
    ("; ls", "syntax", "a leading separator"),
    ("ls |", "syntax", "a dangling pipe"),
    ("ls &&", "syntax", "a dangling chain"),
    ("ls | | wc", "syntax", "an empty pipeline element"),
    ("ls 'a\nb' | head", "invisible-character", "a newline inside a command"),
    ("ls \\\n-la && pwd", "invisible-character", "a line continuation inside a command"),
    ("ls\r\nrm x", "invisible-character", "a carriage return"),
    ("ls\n\trm x", "invisible-character", "a tab"),
    ("ls | git fetch", "network", "a later part contacts a remote"),
    ("ls && curl http://x", "network", "a later part contacts a remote"),
    ("cd src && ls", "cd", "without a caller root, cd cannot be confined"),
    ("ls && ls *", "glob", "without a place, a glob at a word's start is refused"),
    ("ls | uniq a b", "argument", "uniq writes its second operand"),
    ("ls 2>/dev/null -la", "operator", "a word after a redirection: the grammar reads it apart"),
    (" | ".join(["ls"] * 40), "too-long", "too many parts"),
    ("ls || " * 2700 + "ls", "too-long", "a chain nested thousands deep is refused, not a crash"),
]


@pytest.mark.parametrize("command", ADMITTED)
def test_everyday_compound_reads_are_admitted(command: str) -> None:
    verdict = check_read_only_command(command)
    assert verdict.ok, verdict.message
    assert verdict.parts and all(part.ok for part in verdict.parts)
    assert verdict.words is None or len(verdict.parts) == 1


@pytest.mark.parametrize(
    ("command", "code", "why"), REFUSED, ids=[repr(c)[:50] for c, *_ in REFUSED]
)
def test_compound_attacks_are_refused(command: str, code: str, why: str) -> None:
    verdict = check_read_only_command(command)
    assert not verdict.ok, why
    assert verdict.code == code, f"{why}: {verdict.message}"
    assert verdict.message and "\n" not in verdict.message


def test_the_refused_part_is_named_and_every_part_is_judged() -> None:
    verdict = check_read_only_command("git log | head -3 && rm -rf src; ls")
    assert not verdict.ok
    assert verdict.message.startswith("`rm -rf src` (part 3 of 4): ")
    assert [part.ok for part in verdict.parts] == [True, True, False, True]
    assert [part.operator for part in verdict.parts] == ["|", "&&", ";", None]
    assert verdict.parts[2].words == ["rm", "-rf", "src"]


def test_parts_carry_text_words_redirects_and_operators() -> None:
    verdict = check_read_only_command("git log --format='%h' 2>/dev/null | head -3\nls 2>&1")
    assert verdict.ok
    assert [part.to_json() for part in verdict.parts] == [
        {
            "text": "git log --format='%h'",
            "allowed": True,
            "code": "ok",
            "message": "",
            "words": ["git", "log", "--format=%h"],
            "redirects": ["2>/dev/null"],
            "operator": "|",
        },
        {
            "text": "head -3",
            "allowed": True,
            "code": "ok",
            "message": "",
            "words": ["head", "-3"],
            "redirects": [],
            "operator": "\n",
        },
        {
            "text": "ls",
            "allowed": True,
            "code": "ok",
            "message": "",
            "words": ["ls"],
            "redirects": ["2>&1"],
            "operator": None,
        },
    ]


def test_every_node_kind_refusal_has_a_reason() -> None:
    for kind, (code, why) in NODE_REFUSALS.items():
        assert why.strip(), kind
        assert code in {"expansion", "operator", "brace", "assignment", "comment", "syntax"}


def test_a_plain_command_never_loads_the_grammar() -> None:
    """The hot path: a plain command is judged by the lexer alone (the hook test proves the
    import list of a fresh interpreter; this proves the branch)."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from toolgate_cli.shell import check_read_only_command as c\n"
        "assert c('git log --format=\"%h | %s\" -5').ok\n"
        "print('tree_sitter._binding' in sys.modules)\n"
        "assert c('git log | head').ok\n"
        "print('tree_sitter._binding' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split() == ["False", "True"]


# --------------------------------------------------------------------------------------------
# cd, git and globs against real trees
# --------------------------------------------------------------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A caller root with a repository marker, plain directories, a nested repository, an
    embedded bare repository, symlinks in and out, and a directory of option-like names."""
    root = tmp_path / "root"
    for directory in ("src/deep", "docs", "trap", "nested/.git", "bare.git/objects"):
        (root / directory).mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "bare.git" / "HEAD").write_text("ref: refs/heads/main\n")
    for name in ("README.md", "src/a.py", "trap/-delete", "trap/--output=x", "trap/.keep"):
        (root / name).write_text("x\n")
    (root / "to-nested").symlink_to(root / "nested")
    (root / "to-outside").symlink_to(tmp_path)
    (root / "broken-git").mkdir()
    (root / "broken-git" / ".git").symlink_to(tmp_path / "missing")
    (tmp_path / "outside").mkdir()
    return root


def place(root: Path, cwd: Path | str | None = None, **kwargs: object) -> Place:
    start = str(root if cwd is None else cwd)
    return Place(HOST, start, str(root), **kwargs)  # type: ignore[arg-type]


PLACE_CASES: list[tuple[str, str, str, str]] = [
    # (command, start below the root, expected code, why)
    ("cd src && ls", "", "ok", "a plain directory inside the root"),
    ("cd src/deep && git log --oneline | head", "", "ok", "git finds the root's repository"),
    ("cd ./docs; git status", "", "ok", "`;` after cd"),
    ("cd src; cd deep; git log", "", "ok", "cds relative to where the last one led"),
    ("cd {ROOT}/src && git status", "", "ok", "an absolute path inside the root"),
    ("cd . && ls", "", "ok", "the same directory"),
    ("cd src/ && ls *.py", "", "ok", "a trailing slash; a glob in a clean directory"),
    ("git status", "src/deep", "ok", "a start below the root, no nested repository between"),
    ("ls *.md", "", "ok", "the root holds no option-like name"),
    ("cd nested && ls", "", "ok", "cd into a nested repository only to list it"),
    ("cd nested && git status", "", "repository", "the nested repository's config"),
    ("cd to-nested && git log", "", "repository", "a symlink into a nested repository"),
    ("cd bare.git && git log", "", "repository", "an embedded bare repository"),
    ("cd .git && git log", "", "repository", "inside .git git treats it as the repository"),
    ("cd broken-git && git status", "", "repository", "a broken .git symlink still counts"),
    ("cd src || cd nested; git log", "", "repository", "either cd may have happened"),
    ("cd nested; cd ../src; git log", "", "cd", "`..` is refused"),
    ("git status", "nested", "repository", "the session already sits in a nested repository"),
    ("git log | head", "bare.git", "repository", "the session sits in an embedded repository"),
    ("cd ..", "src", "cd", "`..`"),
    ("cd to-outside && ls", "", "cd", "a symlink out of the root"),
    ("cd {OUTSIDE} && ls", "", "cd", "an absolute path out of the root"),
    ("cd / && ls", "", "cd", "the file system root"),
    ("cd missing && ls", "", "cd", "no such directory from anywhere"),
    ("cd", "", "cd", "cd alone goes home"),
    ("cd -", "", "cd", "cd - goes to $OLDPWD"),
    ("cd ~ && ls", "", "cd", "home"),
    ("cd ~/x", "", "cd", "home"),
    ("cd src docs", "", "cd", "zsh reads two operands as a substitution"),
    ("cd -P src", "", "cd", "an option"),
    ("cd s* && ls", "", "cd", "a glob operand"),
    ("ls | cd src", "", "cd", "zsh runs the last pipeline element in the shell"),
    ("cd src | git status", "", "cd", "cd in a pipeline"),
    ("ls *", "trap", "glob", "`-delete` is an entry"),
    ("cd trap && find *", "", "glob", "the glob is judged where cd leads"),
    ("cd src || cd trap; ls ?*", "", "glob", "either directory may be the one"),
    ("git diff [-]*", "trap", "glob", "a bracket pattern"),
    ("ls trap/*", "", "ok", "a glob after a literal directory never starts with `-`"),
    ("cd src; cd src; cd src; cd src; ls", "", "ok", "repeated cds that fail stay bounded"),
]


@pytest.mark.parametrize(
    ("command", "start", "code", "why"), PLACE_CASES, ids=[c for c, *_ in PLACE_CASES]
)
def test_cd_git_and_globs_are_judged_in_the_tree(
    tree: Path, command: str, start: str, code: str, why: str
) -> None:
    text = command.replace("{ROOT}", str(tree)).replace("{OUTSIDE}", str(tree.parent / "outside"))
    verdict = check_read_only_command(text, place=place(tree, tree / start))
    assert verdict.code == code, f"{why}: {verdict.message}"


def test_a_relative_cd_while_cdpath_is_set_needs_dot_slash(tree: Path) -> None:
    assert not check_read_only_command("cd src", place=place(tree, cdpath_set=True)).ok
    assert check_read_only_command("cd ./src", place=place(tree, cdpath_set=True)).ok
    assert check_read_only_command(f"cd {tree}/src", place=place(tree, cdpath_set=True)).ok


def test_without_a_caller_root_cd_is_refused_and_git_judged_as_before(tree: Path) -> None:
    no_root = Place(HOST, str(tree / "nested"), None)
    assert check_read_only_command("cd src", place=no_root).code == "cd"
    assert check_read_only_command("git status", place=no_root).ok
    assert check_read_only_command("ls *", place=Place(HOST, str(tree), None)).ok


def test_an_unknown_working_directory_refuses_what_depends_on_it(tree: Path) -> None:
    unknown = Place(HOST, None, str(tree))
    assert check_read_only_command("git status", place=unknown).code == "repository"
    assert check_read_only_command("ls *", place=unknown).code == "glob"
    assert check_read_only_command("cd src", place=unknown).code == "cd"
    assert check_read_only_command("ls src", place=unknown).ok
    relative = Place(HOST, "src", str(tree))
    assert check_read_only_command("git status", place=relative).code == "repository"


def test_a_start_outside_the_caller_root_refuses_git(tree: Path) -> None:
    outside = place(tree, tree.parent / "outside")
    verdict = check_read_only_command("git log", place=outside)
    assert verdict.code == "repository"
    assert "outside the caller root" in verdict.message


def test_a_caller_root_that_is_not_a_directory_refuses_cd_and_git(tree: Path) -> None:
    gone = Place(HOST, str(tree), str(tree / "missing"))
    assert check_read_only_command("cd src", place=gone).code == "cd"
    assert check_read_only_command("git log", place=gone).code == "repository"


def test_an_unreadable_directory_refuses_a_glob(tree: Path) -> None:
    class Unreadable:
        def realpath(self, path: str) -> str:
            return HOST.realpath(path)

        def is_dir(self, path: str) -> bool:
            return HOST.is_dir(path)

        def lexists(self, path: str) -> bool:
            return HOST.lexists(path)

        def names(self, path: str) -> list[str] | None:
            return None

    verdict = check_read_only_command("ls *", place=Place(Unreadable(), str(tree), str(tree)))
    assert verdict.code == "glob" and "cannot be listed" in verdict.message


# --------------------------------------------------------------------------------------------
# The split compared with real bash and zsh
# --------------------------------------------------------------------------------------------

ATOMS = [
    "git log --oneline -3",
    "git status --short",
    "git diff --stat",
    "head -20",
    "wc -l",
    "ls -la",
    "cat README.md",
    "grep -n 'a|b' README.md",
    "sort -u",
    "uniq -c",
    "cut -d: -f1",
    "tr a-z A-Z",
    "nl",
    "jq .",
    "echo 'x;y' \"a && b\"",
    "echo a\\ b 'c''d'",
    "sed -n 1,5p README.md",
    "find . -name '*.py'",
    "rg -n 'TODO|FIXME'",
    "tail -n 3",
    "pwd",
    "tac",
    "rev",
    "column -t",
    "paste -sd,",
    "echo '$(not run)' '`x`'",
    "grep -e '-delete' README.md",
]
REDIRECTS = ["", "", "", " 2>/dev/null", " 2>&1", " >/dev/null", " </dev/null", " 2> /dev/null"]
CDS = ["cd src", "cd ./docs", "cd src/deep", "cd {ROOT}", "cd .", "cd {ROOT}/docs"]
JOINS = [" && ", " || ", "; ", "\n", " ;\n", "&&\n  ", "||", ";", "&&"]
PIPES = [" | ", "|", " |\n "]


@st.composite
def compound_commands(draw: st.DrawFn) -> str:
    pipelines = []
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        if draw(st.integers(min_value=0, max_value=3)) == 0:
            pipelines.append(draw(st.sampled_from(CDS)))
            continue
        elements = [
            draw(st.sampled_from(ATOMS)) + draw(st.sampled_from(REDIRECTS))
            for _ in range(draw(st.integers(min_value=1, max_value=3)))
        ]
        pipe = draw(st.sampled_from(PIPES))
        pipelines.append(pipe.join(elements))
    text = pipelines[0]
    for pipeline in pipelines[1:]:
        text += draw(st.sampled_from(JOINS)) + pipeline
    return text + draw(st.sampled_from(["", "", ";", "\n", " "]))


def _expected_calls(verdict: ShellVerdict, root: Path) -> list[Call]:
    """What bash runs for the admitted `verdict` when every program succeeds: a pipeline after
    `&&` runs when the status is 0, after `||` when it is not; `cd` changes the directory when
    the target exists (status 1 otherwise)."""
    calls: list[Call] = []
    cwd = str(root)
    status = 0
    operator: str | None = None
    pipeline: list[list[str]] = []
    for part in verdict.parts:
        assert part.words is not None
        pipeline.append(part.words)
        if part.operator == "|":
            continue
        run = not ((operator == "&&" and status != 0) or (operator == "||" and status == 0))
        if run:
            status = 0
            for words in pipeline:
                if words[0] == "cd":
                    target = os.path.realpath(os.path.join(cwd, words[1]))
                    if os.path.isdir(target):
                        cwd = target
                    else:
                        status = 1
                else:
                    calls.append(Call(words[0], cwd, tuple(words[1:])))
        operator = part.operator
        pipeline = []
    return calls


@pytest.fixture(scope="module")
def stub_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("compound")
    root = (base / "root").resolve()
    for directory in ("src/deep", "docs", ".git"):
        (root / directory).mkdir(parents=True)
    (root / "README.md").write_text("# x\n")
    return root, make_stubs(base / "stubs"), base / "calls"


@pytest.mark.skipif(not SHELLS, reason="neither bash nor zsh is installed")
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(compound_commands())
def test_admitted_compounds_run_exactly_the_parts_in_bash_and_zsh(
    stub_tree: tuple[Path, Path, Path], command: str
) -> None:
    root, stubs, calls = stub_tree
    text = command.replace("{ROOT}", str(root))
    verdict = check_read_only_command(text, place=place(root))
    assert verdict.ok, f"{text!r}: {verdict.message}"
    expected = Counter(_expected_calls(verdict, root))
    for shell in SHELLS:
        done, recorded = run_with_stubs(shell, text, root, stubs, calls)
        assert Counter(recorded) == expected, (shell, text, done.stderr[-400:])


# Pieces of shell text, dangerous and harmless, for the adversarial property below: commands
# built from programs and arguments (globs, quoted and backslashed options, cds into a directory
# of option-like names and into a nested repository), joined by operators, with raw shell syntax
# spliced in anywhere.
PROGRAMS = [
    "ls", "git log", "git status", "git diff", "cat", "head", "echo", "sort", "uniq", "find",
    "cd", "rm", "touch", "tee", "sh", "grep -n x", "wc -l", "sed -n 1p", "tail", "jq .",
    "cd trap", "cd src", "cd nested", "cd src ||  cd trap;",
]  # fmt: skip
ARGUMENTS = [
    "README.md", "src", "trap", "nested", "*", "?*", "trap/*", "'*'", "\\*", "-delete",
    "-de\\lete", "'-o'", "-o", "--output=w", "w", "-", "--", "./trap", "in", "*.md", "[-]*",
    "-n", "3",
]  # fmt: skip
SYNTAX = [
    " | ", " || ", " && ", "; ", "\n", " & ", " > out", " 2>/dev/null", " 2>&1", " >/dev/null",
    " < in", " >> out", " $(touch s)", " `touch b`", " $x", "(", ")", "{ ", " }", "! ", " #",
    "'", '"', "\\", " x=1 ", " <<< x", " <(ls)", " |& ", " ;; ",
]  # fmt: skip
JOINERS = [" | ", " || ", " && ", "; ", "\n", " |\n", "|", "&&"]


@st.composite
def soup(draw: st.DrawFn) -> str:
    text = ""
    for index in range(draw(st.integers(min_value=1, max_value=4))):
        if index:
            text += draw(st.sampled_from(JOINERS))
        words = [draw(st.sampled_from(PROGRAMS))]
        words += draw(st.lists(st.sampled_from(ARGUMENTS), max_size=3))
        text += " ".join(words)
        if draw(st.integers(min_value=0, max_value=3)) == 0:
            text += draw(st.sampled_from(SYNTAX))
    if draw(st.booleans()):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:at] + draw(st.sampled_from(SYNTAX)) + text[at:]
    return text


SOUP = soup()


@pytest.fixture(scope="module")
def trap_tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("soup")
    root = (base / "root").resolve()
    for directory in ("src", "trap", "nested/.git", ".git"):
        (root / directory).mkdir(parents=True)
    for name in ("README.md", "in", "trap/-delete", "trap/--output=w", "trap/-o"):
        (root / name).write_text("x\n")
    return root, make_stubs(base / "stubs"), base / "calls"


def _snapshot(root: Path) -> set[str]:
    return {str(path.relative_to(root)) for path in root.rglob("*")}


@pytest.mark.skipif(not SHELLS, reason="neither bash nor zsh is installed")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SOUP)
@example("cd trap; ls *")
@example("cd src || cd trap; ls *")
@example("cd trap && git status")
@example("cd nested; git log | head")
@example("ls * 2>/dev/null | sort")
def test_whatever_is_admitted_runs_only_read_programs_with_no_hidden_option(
    trap_tree: tuple[Path, Path, Path], command: str
) -> None:
    """Random shell text: when the checker admits it, bash and zsh run nothing but the read
    programs, never in a nested repository, with no option-like word the checker did not see,
    and create nothing in the tree."""
    root, stubs, calls = trap_tree
    verdict = check_read_only_command(command, place=place(root))
    if not verdict.ok:
        return
    seen = {word for part in verdict.parts for word in part.words or []}
    before = _snapshot(root)
    for shell in SHELLS:
        _, recorded = run_with_stubs(shell, command, root, stubs, calls)
        created = _snapshot(root) - before
        for name in sorted(created, reverse=True):  # leave the tree as it was for the next one
            path = root / name
            path.rmdir() if path.is_dir() else path.unlink()
        assert not created, (shell, command, created)
        for call in recorded:
            assert call.name not in ("rm", "touch", "tee", "sh"), (shell, command, call)
            assert call.name in STUB_PROGRAMS
            assert Path(call.cwd).is_relative_to(root), (shell, command, call)
            if call.name == "git":
                assert not Path(call.cwd).is_relative_to(root / "nested"), (shell, command)
            for arg in call.args:
                assert not arg.startswith(("-", "+")) or arg in seen, (shell, command, call)


@given(st.sampled_from(ADMITTED), st.sampled_from(ADMITTED), st.sampled_from(["|", "&&", ";"]))
def test_joining_two_admitted_commands_is_admitted(left: str, right: str, join: str) -> None:
    assert check_read_only_command(f"{left.rstrip(';')} {join} {right}").ok


@given(
    st.sampled_from(ADMITTED),
    st.sampled_from([r for r, c, _ in REFUSED if c in ("not-allowed", "wrapper", "argument")]),
    st.sampled_from(["|", "&&", "||", ";", "\n"]),
    st.booleans(),
)
def test_a_refused_part_is_refused_wherever_it_stands(
    admitted: str, refused: str, join: str, first: bool
) -> None:
    admitted = admitted.rstrip(";")
    text = f"{refused} {join} {admitted}" if first else f"{admitted} {join} {refused}"
    assert not check_read_only_command(text).ok, text


def test_a_words_split_agrees_with_shell_words() -> None:
    verdict = check_read_only_command("echo 'a b' c\\ d | grep -e '-x'")
    assert [part.words for part in verdict.parts] == [
        shell_words("echo 'a b' c\\ d"),
        shell_words("grep -e '-x'"),
    ]
