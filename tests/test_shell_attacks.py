"""Attacks on the compound read shell, each shown to do harm before it is shown refused.

Every attack runs twice in a fresh scratch tree (a git repository, with whatever the attack
plants): once through real bash (or zsh) with the real programs, the way Claude Code runs a
command (`eval` of the text), which must really write, delete, run a planted program or contact
a server; and once through `check_read_only_command` with the place of that tree (the caller
root, the directory the command starts in), which must refuse it. An attack whose control leg
does no harm proves nothing, and fails.
"""

from __future__ import annotations

import http.server
import shutil
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.e2e.tree import changes, fresh_tree, git, snapshot
from tests.shell_harness import SHELLS, run_real
from toolgate_cli.shell import Place, check_read_only_command
from toolgate_cli.shell.host import HOST

PLANTED_PROGRAM = '#!/bin/sh\necho "$0 $*" >> {MARKER}\nexit 1\n'
"""What a planted config names (fsmonitor hook, external diff, ssh command): it leaves a
marker outside the tree, so the harm is seen even where git swallows its output."""


@dataclass
class Context:
    tree: Path
    outside: Path
    marker: Path
    url: str
    requests: list[str]

    def fill(self, text: str) -> str:
        return (
            text.replace("{TREE}", str(self.tree))
            .replace("{OUTSIDE}", str(self.outside))
            .replace("{MARKER}", str(self.marker))
            .replace("{URL}", self.url)
        )

    def program(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.fill(PLANTED_PROGRAM))
        path.chmod(0o755)
        return path


Setup = Callable[[Context], None]


@dataclass(frozen=True)
class Attack:
    """`command` (placeholders from `Context.fill`) is refused with one of `codes`; run by
    `shell` in `cwd` (below the tree) it does the harm `change` (a `tree.changes` entry), or
    runs the planted program (`marker`), or contacts the loopback server (`contact`)."""

    id: str
    command: str
    codes: tuple[str, ...]
    change: str = ""
    marker: bool = False
    contact: bool = False
    setup: Setup | None = None
    cwd: str = ""
    shell: str = "bash"
    env: dict[str, str] = field(default_factory=dict)
    needs: str = ""
    prefixes: tuple[str, ...] = ()


# --- setups ---------------------------------------------------------------------------------


def _script(name: str, text: str) -> Setup:
    def setup(ctx: Context) -> None:
        (ctx.tree / name).write_text(text)

    return setup


def _edit_readme(ctx: Context) -> None:
    (ctx.tree / "README.md").write_text("# edited, not committed\n")


def _evil_external_diff(ctx: Context) -> None:
    _edit_readme(ctx)
    ctx.program(ctx.tree / "evil.sh")


def _nested_repository(ctx: Context, where: Path) -> None:
    """A repository whose config runs a program on `git status` (core.fsmonitor)."""
    where.mkdir(parents=True, exist_ok=True)
    git(where, "init", "-q")
    (where / "f.txt").write_text("nested\n")
    git(where, "add", "-A")
    git(where, "commit", "-q", "-m", "nested")
    git(where, "config", "core.fsmonitor", str(ctx.program(ctx.outside / "fsmonitor.sh")))


def _nested(ctx: Context) -> None:
    _nested_repository(ctx, ctx.tree / "nested")


def _nested_link(ctx: Context) -> None:
    _nested(ctx)
    (ctx.tree / "link").symlink_to(ctx.tree / "nested")


def _embedded_bare(ctx: Context) -> None:
    """A bare repository inside the tree, two commits, whose config names an external diff."""
    (ctx.tree / "README.md").write_text("# second\n")
    git(ctx.tree, "commit", "-q", "-am", "second")
    git(ctx.tree, "clone", "-q", "--bare", str(ctx.tree), str(ctx.tree / "bare.git"))
    evil = ctx.program(ctx.outside / "external-diff.sh")
    git(ctx.tree / "bare.git", "config", "diff.external", str(evil))


def _outside_repository(ctx: Context) -> None:
    _nested_repository(ctx, ctx.outside / "repo")


def _outside_link(ctx: Context) -> None:
    _outside_repository(ctx)
    (ctx.tree / "out").symlink_to(ctx.outside / "repo")


def _cdpath_repository(ctx: Context) -> None:
    """`src` also exists under a CDPATH entry outside the tree, as a repository."""
    _nested_repository(ctx, ctx.outside / "cdpath" / "src")


def _trap(*names: str) -> Setup:
    """A directory `trap` holding files named like options (and a hidden victim)."""

    def setup(ctx: Context) -> None:
        trap = ctx.tree / "trap"
        trap.mkdir()
        for name in (*names, ".victim"):
            (trap / name).write_text("x\n")

    return setup


def _rg_trap(ctx: Context) -> None:
    """A file named `--pre=pre.sh` beside a planted `pre.sh` (found on PATH here)."""
    _trap("--pre=pre.sh", "a.txt")(ctx)
    ctx.program(ctx.tree / "trap" / "pre.sh")


def _two_files(ctx: Context) -> None:
    (ctx.tree / "two").mkdir()
    (ctx.tree / "two" / "a.txt").write_text("a\na\n")
    (ctx.tree / "two" / "b.txt").write_text("b\n")


def _remote(ctx: Context) -> None:
    git(ctx.tree, "remote", "add", "origin", ctx.url)


def _submodule(ctx: Context) -> None:
    (ctx.tree / ".gitmodules").write_text(
        f'[submodule "sub"]\n\tpath = sub\n\turl = {ctx.url}/sub\n'
    )
    head = git(ctx.tree, "rev-parse", "HEAD").strip()
    git(ctx.tree, "update-index", "--add", "--cacheinfo", f"160000,{head},sub")
    git(ctx.tree, "commit", "-q", "-m", "submodule")


def _ssh_recorder(ctx: Context) -> None:
    ctx.program(ctx.outside / "ssh.sh")


SSH = {"GIT_SSH_COMMAND": "{OUTSIDE}/ssh.sh"}

ATTACKS = [
    # --- a pipe into something that runs or writes
    Attack("pipe-sh", "echo touch PWNED | sh", ("wrapper",), change="new: PWNED"),
    Attack("pipe-bash-script", "cat script.txt | bash", ("wrapper",), change="new: PWNED",
           setup=_script("script.txt", "touch PWNED\n")),
    Attack("pipe-python", "echo 'open(\"PWNED\", \"w\")' | python3", ("wrapper",),
           change="new: PWNED"),
    Attack("pipe-xargs", "echo PWNED | xargs touch", ("wrapper",), change="new: PWNED"),
    Attack("pipe-tee", "ls | tee PWNED", ("not-allowed",), change="new: PWNED"),
    Attack("pipe-dd", "ls | dd of=PWNED", ("not-allowed",), change="new: PWNED"),
    Attack("pipe-sponge", "ls | sponge PWNED", ("not-allowed",), change="new: PWNED",
           needs="sponge"),
    Attack("pipe-git-apply", "git diff | git apply -R", ("not-allowed",),
           change="changed: README.md", setup=_edit_readme),
    Attack("pipe-awk", "ls | awk '{system(\"touch PWNED\")}'", ("wrapper",),
           change="new: PWNED"),
    Attack("pipe-and-stderr", "ls |& tee PWNED", ("operator",), change="new: PWNED"),
    # --- a chain whose later part writes
    Attack("and-touch", "ls && touch PWNED", ("not-allowed",), change="new: PWNED"),
    Attack("or-touch", "ls missing || touch PWNED", ("not-allowed",), change="new: PWNED"),
    Attack("semicolon-touch", "ls; touch PWNED", ("not-allowed",), change="new: PWNED"),
    Attack("newline-touch", "ls\ntouch PWNED", ("not-allowed",), change="new: PWNED"),
    Attack("status-then-rm", "git status && rm README.md", ("not-allowed",),
           change="gone: README.md"),
    Attack("pipe-then-sed-i", "cat README.md | head -1 && sed -i s/sample/EDITED/ README.md",
           ("argument",), change="changed: README.md"),
    Attack("then-find-delete", "ls | head -1; find src -delete", ("argument",),
           change="gone: src/app.py"),
    Attack("background-then-touch", "ls & touch PWNED", ("operator",), change="new: PWNED"),
    # --- a write hidden in a redirection
    Attack("redirect-out", "ls > PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-err", "ls 2> PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-append", "ls >> PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-after-dev-null", "ls 2>/dev/null > PWNED", ("operator",),
           change="new: PWNED"),
    Attack("redirect-last-wins", "ls >/dev/null >PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-after-dup", "ls 2>&1 >PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-end-of-pipeline", "ls | head > PWNED", ("operator",),
           change="new: PWNED"),
    Attack("redirect-both", "ls &> PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-both-old", "ls >& PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-clobber", "ls >| PWNED", ("operator",), change="new: PWNED"),
    Attack("redirect-read-write", "ls 1<>PWNED", ("syntax", "operator"), change="new: PWNED"),
    Attack("redirect-group", "{ ls; } > PWNED", ("brace",), change="new: PWNED"),
    Attack("redirect-subshell", "(ls) > PWNED", ("operator",), change="new: PWNED"),
    Attack("process-substitution", "cat <(touch PWNED)", ("operator",), change="new: PWNED"),
    Attack("here-document", "cat <<EOF > PWNED\nx\nEOF", ("operator",), change="new: PWNED"),
    Attack("here-string", "cat <<< x > PWNED", ("operator",), change="new: PWNED"),
    Attack("command-substitution", "ls $(touch PWNED) | head", ("expansion",),
           change="new: PWNED"),
    Attack("backticks", "ls | head `touch PWNED`", ("expansion",), change="new: PWNED"),
    # --- shell syntax that runs commands
    Attack("for-loop", "for f in a; do touch PWNED; done", ("syntax",), change="new: PWNED"),
    Attack("while-loop", "while true; do touch PWNED; break; done", ("syntax",),
           change="new: PWNED"),
    Attack("if", "if true; then touch PWNED; fi", ("syntax",), change="new: PWNED"),
    Attack("case", "case x in x) touch PWNED;; esac", ("operator", "syntax"),
           change="new: PWNED"),
    Attack("function", "f() { touch PWNED; }; f", ("operator", "syntax"), change="new: PWNED"),
    Attack("subshell", "ls; (touch PWNED)", ("operator",), change="new: PWNED"),
    Attack("group", "ls; { touch PWNED; }", ("brace",), change="new: PWNED"),
    Attack("negation", "ls && ! touch PWNED", ("syntax",), change="new: PWNED"),
    Attack("assignment", "GIT_EXTERNAL_DIFF=./evil.sh git diff", ("assignment",), marker=True,
           setup=_evil_external_diff),
    Attack("assignment-in-chain", "ls && GIT_EXTERNAL_DIFF=./evil.sh git diff | head",
           ("assignment",), marker=True, setup=_evil_external_diff),
    # --- cd, then a write or git in another repository
    Attack("cd-then-touch", "cd src && touch PWNED", ("not-allowed",),
           change="new: src/PWNED"),
    Attack("cd-nested-git", "cd nested && git status", ("repository",), marker=True,
           setup=_nested),
    Attack("cd-nested-semicolon", "cd nested; git status --short | head", ("repository",),
           marker=True, setup=_nested),
    Attack("cd-nested-trailing-slash", "cd ./nested/. && git status", ("repository",),
           marker=True, setup=_nested),
    Attack("cd-symlink-to-nested", "cd link && git status", ("repository",), marker=True,
           setup=_nested_link),
    Attack("cd-embedded-bare", "cd bare.git && git diff HEAD~1 HEAD", ("repository",),
           marker=True, setup=_embedded_bare),
    Attack("session-in-nested", "git status", ("repository",), marker=True, setup=_nested,
           cwd="nested"),
    Attack("cd-dotdot", "cd ../outside/repo && git status", ("cd",), marker=True,
           setup=_outside_repository),
    Attack("cd-absolute-outside", "cd {OUTSIDE}/repo && git status", ("cd",), marker=True,
           setup=_outside_repository),
    Attack("cd-symlink-outside", "cd out && git status", ("cd",), marker=True,
           setup=_outside_link),
    Attack("cd-home", "cd && git status", ("cd",), marker=True, setup=_outside_repository,
           env={"HOME": "{OUTSIDE}/repo"}),
    Attack("cd-tilde", "cd ~ && git status", ("cd",), marker=True, setup=_outside_repository,
           env={"HOME": "{OUTSIDE}/repo"}),
    Attack("cd-dash", "cd - && git status", ("cd",), marker=True, setup=_outside_repository,
           env={"OLDPWD": "{OUTSIDE}/repo"}),
    Attack("cd-cdpath", "cd src && git status", ("cd",), marker=True, setup=_cdpath_repository,
           env={"CDPATH": "{OUTSIDE}/cdpath"}),
    Attack("zsh-cd-at-pipeline-end", "ls | cd nested; git status", ("cd",), marker=True,
           setup=_nested, shell="zsh"),
    # --- globs that expand into an option
    Attack("glob-find-delete", "find *", ("glob",), change="gone: trap/.victim",
           setup=_trap("-delete"), cwd="trap"),
    Attack("cd-then-glob", "cd trap && find *", ("glob",), change="gone: trap/.victim",
           setup=_trap("-delete")),
    Attack("glob-git-output", "git diff *", ("glob",), change="new: trap/PWNED",
           setup=_trap("--output=PWNED", "a.txt"), cwd="trap"),
    Attack("glob-sort-output", "ls | sort *", ("glob",), change="new: trap/PWNED",
           setup=_trap("-oPWNED", "data.txt"), cwd="trap"),
    Attack("glob-bracket", "sort [-]* data.txt", ("glob",), change="new: trap/PWNED",
           setup=_trap("-oPWNED", "data.txt"), cwd="trap"),
    Attack("glob-rg-pre", "rg foo *", ("glob",), marker=True, needs="rg", cwd="trap",
           setup=_rg_trap, env={"PATH": "{TREE}/trap:/usr/local/bin:/usr/bin:/bin"}),
    Attack("glob-uniq-second-operand", "uniq *", ("argument",), change="changed: two/b.txt",
           setup=_two_files, cwd="two"),
    # --- obfuscated option words
    Attack("backslash-delete", "ls | find src -de\\lete", ("argument",),
           change="gone: src/app.py"),
    Attack("quoted-delete", "ls && find src '-delete'", ("argument",),
           change="gone: src/app.py"),
    Attack("quoted-sort-o", "ls; sort -\"o\" PWNED README.md", ("argument",),
           change="new: PWNED"),
    Attack("backslash-output", "git log --out\\put=PWNED -1 | head", ("argument",),
           change="new: PWNED"),
    Attack("abbreviated-output", "git diff --ou\"tp\"ut=PWNED && ls", ("argument",),
           change="new: PWNED"),
    Attack("backslash-fprint", "find src -fpri\\nt PWNED | head", ("argument",),
           change="new: PWNED"),
    # --- the network
    Attack("git-ls-remote", "git ls-remote {URL}", ("network",), contact=True),
    Attack("git-fetch", "git fetch {URL}", ("network",), contact=True),
    Attack("git-pull", "git pull {URL}", ("network",), contact=True),
    Attack("git-clone", "git clone {URL} copy", ("network",), contact=True),
    Attack("git-push", "git push {URL} main", ("network",), contact=True),
    Attack("git-remote-update", "git remote update", ("network",), contact=True,
           setup=_remote),
    Attack("git-remote-show", "git remote show origin", ("network",), contact=True,
           setup=_remote, prefixes=("git remote",)),
    Attack("git-submodule-update", "git submodule update --init", ("network",), contact=True,
           setup=_submodule, prefixes=("git submodule",)),
    Attack("git-archive-remote", "git archive --remote=example.invalid:repo HEAD", ("network",),
           marker=True, setup=_ssh_recorder, env=SSH, prefixes=("git archive",)),
    Attack("git-fetch-in-chain", "git status && git fetch {URL}", ("network",), contact=True,
           prefixes=("git fetch",)),
    Attack("curl", "curl -s {URL}", ("network",), contact=True, needs="curl"),
    Attack("wget-in-pipe", "ls | wget -q -O /dev/null {URL}", ("network",), contact=True,
           needs="wget"),
]  # fmt: skip


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str]

    def do_GET(self) -> None:
        self.requests.append(self.path)
        self.send_response(404)
        self.end_headers()

    do_POST = do_GET

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server that records every request path (and answers 404)."""
    requests: list[str] = []
    handler = type("Handler", (_Recorder,), {"requests": requests})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", requests
    httpd.shutdown()
    httpd.server_close()


@pytest.mark.parametrize("attack", ATTACKS, ids=lambda a: a.id)
def test_the_attack_does_harm_in_real_shell_and_is_refused(
    attack: Attack, tmp_path: Path, server: tuple[str, list[str]]
) -> None:
    if attack.shell not in SHELLS:
        pytest.skip(f"{attack.shell} is not installed")
    tree = fresh_tree(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    url, requests = server
    ctx = Context(tree, outside, tmp_path / "marker.txt", f"{url}/{attack.id}", requests)
    if attack.setup is not None:
        attack.setup(ctx)
    command = ctx.fill(attack.command)
    env = {name: ctx.fill(value) for name, value in attack.env.items()}
    start = tree / attack.cwd

    # Refused first: the verdict reads the tree as the attack left it, before the control runs.
    where = Place(HOST, str(start), str(tree), cdpath_set="CDPATH" in env)
    verdict = check_read_only_command(command, attack.prefixes, place=where)
    assert not verdict.ok, f"{attack.id} was admitted: {command!r}"
    assert verdict.code in attack.codes, f"{attack.id}: {verdict.code}: {verdict.message}"
    assert verdict.message and "\n" not in verdict.message

    if attack.needs and shutil.which(attack.needs) is None:
        pytest.skip(f"refused; the control leg needs {attack.needs}, which is not installed")
    env.setdefault("HOME", str(outside / "home"))
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "no_proxy": "*", "NO_PROXY": "*"})
    before = snapshot(tree)
    done = run_real(attack.shell, command, start, env)
    after = snapshot(tree)
    harm = []
    if attack.change:
        harm.append(any(attack.change in change for change in changes(before, after)))
    if attack.marker:
        harm.append(ctx.marker.exists())
    if attack.contact:
        harm.append(any(path.startswith(f"/{attack.id}") for path in requests))
    assert harm and all(harm), (
        f"CONTROL did no harm: the attack proves nothing\n{changes(before, after)}\n"
        f"stdout: {done.stdout[-400:]!r}\nstderr: {done.stderr[-600:]!r}"
    )


def test_every_refusal_code_of_the_new_forms_is_shown_by_an_attack() -> None:
    codes = {code for attack in ATTACKS for code in attack.codes}
    assert {"cd", "repository", "glob", "network", "operator", "syntax"} <= codes


def test_a_local_remote_show_stays_admitted_under_a_caller_prefix(tmp_path: Path) -> None:
    """`git remote show -n` asks no remote: the network class refuses only what contacts one."""
    tree = fresh_tree(tmp_path)
    where = Place(HOST, str(tree), str(tree))
    assert check_read_only_command("git remote show -n origin", ["git remote"], place=where).ok
    assert check_read_only_command("git remote -v", ["git remote"], place=where).ok
    assert check_read_only_command("git remote show origin", ["git remote"], place=where).code == (
        "network"
    )
