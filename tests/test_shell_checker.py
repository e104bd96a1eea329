"""The read-only shell checker: a table of attacks and ordinary reads, the data tables exercised
entry by entry, and properties (hypothesis) including a differential test against real bash."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolgate_cli.shell import (
    FORBIDDEN_ARGUMENTS,
    GIT_BRANCH_LISTING_OPTIONS,
    GIT_FORBIDDEN_ARGUMENTS,
    GIT_GLOBAL_OPTIONS_ALLOWED,
    GIT_GLOBAL_OPTIONS_REFUSED,
    GIT_NETWORK_ARGUMENTS,
    GIT_NETWORK_FORMS,
    GIT_NETWORK_SUBCOMMANDS,
    MAX_COMMAND_CHARS,
    NETWORK_COMMANDS,
    NEVER_COMMANDS,
    READ_BASH_PREFIXES,
    REFUSAL_CODES,
    ShellVerdict,
    check_read_only_command,
    has_unsafe_shell_syntax,
    prefix_problem,
    shell_words,
)

# (command, extra prefixes) that must be admitted: ordinary reads a review lane runs.
ADMITTED: list[tuple[str, tuple[str, ...]]] = [
    ("pwd", ()),
    ("ls", ()),
    ("ls -la", ()),
    ("ls -la src/", ()),
    ("ls src/*.py", ()),
    ("ls ~", ()),
    ("ls ~/projects", ()),
    ("cat README.md", ()),
    ("cat 'file with spaces.txt'", ()),
    ('cat "file with spaces.txt"', ()),
    ("cat file\\ with\\ spaces.txt", ()),
    ("cat src/*.py", ()),
    ("cat 'it''s'", ()),
    ("cat caf\u00e9.txt", ()),
    ("cat '\u4e2d\\'", ()),
    ("head -n 20 src/app.py", ()),
    ("head -20 src/app.py", ()),
    ("tail -n 5 notes.txt", ()),
    ("tail -f build.log", ()),
    ("wc -l src/app.py", ()),
    ("grep -rn 'def ' src", ()),
    ("grep -E 'a|b' README.md", ()),
    ('grep -n "x > y" src/app.py', ()),
    ("grep -e '-delete' notes.txt", ()),
    ("rg -n TODO", ()),
    ("rg --type py 'import os'", ()),
    ("rg -g '*.py' foo", ()),
    ("rg --files", ()),
    ("rg --pretty foo", ()),
    ("rg -i -C 3 'fn main'", ()),
    ("find . -name '*.py'", ()),
    ("find . -type f -newer README.md", ()),
    ("find src -maxdepth 2 -print", ()),
    ("find . ! -name x", ()),
    ("find . -not -path './.git/*'", ()),
    ("find src/*", ()),
    ("stat README.md", ()),
    ("file src/app.py", ()),
    ("file -b -m magic src/app.py", ()),
    ("du -sh .", ()),
    ("tree -L 2", ()),
    ("tree -a -I node_modules", ()),
    ("diff a.txt b.txt", ()),
    ("diff -u a.txt b.txt", ()),
    ("sort notes.txt", ()),
    ("sort -u -k 2 notes.txt", ()),
    ("sort --check notes.txt", ()),
    ("sed -n 1,20p src/app.py", ()),
    ("sed -n 5p src/app.py", ()),
    ("sed -n '10,$p' src/app.py", ()),
    ("sed -n 1p a.txt b.txt", ()),
    ("echo hello", ()),
    ("echo 'a;b|c&d'", ()),
    ('echo "a > b"', ()),
    ("echo a\\;b", ()),
    ("echo '$(not run)'", ()),
    ("echo '!x'", ()),
    ("which git", ()),
    ("basename /a/b", ()),
    ("dirname /a/b", ()),
    ("realpath .", ()),
    ("readlink -f link", ()),
    ("git status", ()),
    ("git status --porcelain", ()),
    ("git --no-optional-locks status", ()),
    ("git --no-pager log -5", ()),
    ("git -P log", ()),
    ("git log --oneline -n 10", ()),
    ("git log --format='%H %s'", ()),
    ("git log -p -- src/app.py", ()),
    ("git log --output-indicator-new=+ -p", ()),
    ("git log -c", ()),
    ("git diff", ()),
    ("git diff --stat HEAD~1", ()),
    ("git diff --no-ext-diff --no-textconv", ()),
    ("git diff --cached", ()),
    ("git show HEAD", ()),
    ("git show HEAD~1:src/app.py", ()),
    ("git show HEAD^", ()),
    ("git show --stat", ()),
    ("git blame src/app.py", ()),
    ("git blame -L 1,5 src/app.py", ()),
    ("git blame --contents other.py src/app.py", ()),
    ("git branch", ()),
    ("git branch -a", ()),
    ("git branch -vv", ()),
    ("git branch -av", ()),
    ("git branch --show-current", ()),
    ("git branch --list 'feat*'", ()),
    ("git branch -r --format='%(refname)'", ()),
    ("git branch --contains=HEAD", ()),
    ("git grep -n foo", ()),
    ("git grep -e foo -- '*.py'", ()),
    ("git rev-parse HEAD", ()),
    ("git rev-parse --show-toplevel", ()),
    ("git ls-files", ()),
    ("git ls-tree HEAD", ()),
    ("git cat-file -p HEAD", ()),
    ("git describe --tags", ()),
    ("git merge-base main HEAD", ()),
    ("jq . data.json", ("jq",)),
    ("git shortlog -sn", ("git shortlog",)),
    ("git --no-pager shortlog -sn", ("git --no-pager shortlog",)),
    ("git shortlog -sn", ("git --no-pager shortlog",)),
    ("cargo-tree --depth 1", ("cargo-tree",)),
]

# (command, expected refusal code, why this must be refused, extra prefixes)
REFUSED: list[tuple[str, str, str, tuple[str, ...]]] = [
    # --- chaining, pipes, redirection, subshells, backgrounding
    ("ls; rm -rf x", "not-allowed", "`;` runs a second command, checked on its own", ()),
    ("ls && rm x", "not-allowed", "`&&` runs a second command, checked on its own", ()),
    ("ls || rm x", "not-allowed", "`||` runs a second command, checked on its own", ()),
    ("ls | sh", "wrapper", "a pipe feeds another program (here a shell)", ()),
    ("ls & rm x", "operator", "`&` backgrounds and starts a second command", ()),
    ("ls &", "operator", "a background job outlives the check", ()),
    ("echo hi > f", "operator", "redirection writes a file", ()),
    ("echo hi >> f", "operator", "redirection appends to a file", ()),
    ("ls >| f", "operator", "clobbering redirection writes a file", ()),
    ("ls 2>/dev/null/x", "operator", "only /dev/null itself is a harmless target", ()),
    ("cat < /etc/hosts", "operator", "input redirection is shell syntax, not a literal call", ()),
    ("cat <<EOF\nx\nEOF", "operator", "a here-document feeds text the check does not read", ()),
    ("cat <<EOF", "syntax", "an unterminated here-document cannot be parsed", ()),
    ("ls ;; x", "syntax", "`;;` only ends a case branch", ()),
    ("ls && ! rm x", "syntax", "`!` inverts a status inside a compound", ()),
    ("ls && for x in a; do rm x; done", "syntax", "a loop runs commands", ()),
    ("ls\n# hidden\nrm x", "comment", "a comment hides text from the reader", ()),
    ("cat <(rm x)", "operator", "process substitution runs a command", ()),
    ("diff >(rm x) a", "operator", "process substitution runs a command", ()),
    ("(rm x)", "operator", "a subshell runs any command", ()),
    ("ls |& cat", "operator", "a pipe feeds another program", ()),
    ("ls &> f", "operator", "redirection writes a file", ()),
    # --- expansions and substitutions
    ("ls $(rm x)", "expansion", "command substitution runs a command", ()),
    ("ls `rm x`", "expansion", "backtick substitution runs a command", ()),
    ('ls "$(rm x)"', "expansion", "substitution runs even inside double quotes", ()),
    ('ls "`rm x`"', "expansion", "substitution runs even inside double quotes", ()),
    ("ls $HOME", "expansion", "a variable's value is unknown to the check", ()),
    ("ls ${IFS}x", "expansion", "parameter expansion can split words or hide text", ()),
    ("echo $((1+1))", "expansion", "arithmetic expansion can assign variables", ()),
    ("find . $'\\x2ddelete'", "expansion", "ANSI-C quoting can spell -delete invisibly", ()),
    ('git log "$GIT_PAGER"', "expansion", "a variable inside double quotes still expands", ()),
    ("find . {-delete,}", "brace", "brace expansion builds `-delete` from pieces", ()),
    ("{ rm x; }", "brace", "a brace group runs commands", ()),
    ("git show HEAD@{1}", "brace", "zsh may brace-expand it; quote it instead", ()),
    ("echo !!", "history", "history expansion re-runs an earlier command", ()),
    ('echo "!x"', "history", "history expansion happens inside double quotes", ()),
    ("echo a!b", "history", "history expansion inside a word", ()),
    # --- globs that could expand into an option
    ("find . -name *", "glob", "`*` can expand to a file named `-delete`", ()),
    ("rg foo *", "glob", "`*` can expand to a file named `--pre=./x`", ()),
    ("find . ?delete", "glob", "`?delete` matches a file named `-delete`", ()),
    ("ls [-]*", "glob", "a bracket pattern at the start can match `-` names", ()),
    ("ls ''*", "glob", "an empty quoted prefix does not anchor the pattern", ()),
    ("ls -*", "glob", "a pattern starting with `-` expands to options", ()),
    ("find . ^foo", "glob", "zsh EXTENDED_GLOB negation matches `-delete`", ()),
    ("sort '-'*", "glob", "a quoted `-` still starts the expanded word", ()),
    ("tail +*", "glob", "`+5` is an option to tail and sort", ()),
    # --- invisible and control characters
    ("ls\nrm x", "not-allowed", "a newline starts a second command, checked on its own", ()),
    ("ls 'a\nb'", "invisible-character", "a newline inside a command hides text", ()),
    ("ls\rrm x", "invisible-character", "a carriage return hides text on a terminal", ()),
    ("ls\trm", "invisible-character", "control characters are not admitted", ()),
    ("ls\x00x", "invisible-character", "NUL truncates the command for some readers", ()),
    ("ls \x1b[2K", "invisible-character", "escape sequences rewrite the terminal", ()),
    ("ls \u202e", "invisible-character", "a bidi override displays text reordered", ()),
    ("ls\u200b", "invisible-character", "a zero-width space hides a word boundary", ()),
    ("ls\u00a0-la", "invisible-character", "a no-break space looks like a separator", ()),
    ("ls\u2028x", "invisible-character", "a line separator looks like a newline", ()),
    ("ls \ufeff", "invisible-character", "a byte-order mark is invisible", ()),
    ("ls \udcff", "invisible-character", "a lone surrogate is not text", ()),
    # --- quoting that cannot be parsed
    ("ls 'unterminated", "unterminated-quote", "an open quote hides the rest", ()),
    ('ls "unterminated', "unterminated-quote", "an open quote hides the rest", ()),
    ("ls \\", "unterminated-quote", "a trailing backslash continues the line", ()),
    ("ls #; rm", "comment", "a comment hides text from the reader", ()),
    ("ls \u4e2d\\;rm x", "multibyte-escape", "GBK reads 0x5C as part of the character", ()),
    ('ls "\u4e2d\\"; rm x"', "multibyte-escape", "GBK hides the escape of the quote", ()),
    ("", "empty", "nothing to run", ()),
    ("   ", "empty", "nothing to run", ()),
    ("ls " + "x" * MAX_COMMAND_CHARS, "too-long", "bounded work on every tool call", ()),
    # --- leading assignments
    ("FOO=bar ls", "assignment", "an assignment changes the program's environment", ()),
    ("PAGER='sh -c x' git log", "assignment", "PAGER names a program git may run", ()),
    ("LD_PRELOAD=/tmp/x.so cat f", "assignment", "LD_PRELOAD loads code into cat", ()),
    ("GIT_EXTERNAL_DIFF=x git diff", "assignment", "git runs GIT_EXTERNAL_DIFF", ()),
    ("A+=b ls", "assignment", "an appending assignment is still an assignment", ()),
    # --- wrappers, interpreters, pagers: never, even under a caller prefix
    ("sudo ls", "wrapper", "runs ls as root", ()),
    ("env ls", "wrapper", "env runs any program", ()),
    ("env FOO=bar rg x", "wrapper", "env sets variables and runs a program", ()),
    ("timeout 5 ls", "wrapper", "timeout runs any program", ()),
    ("nice ls", "wrapper", "nice runs any program", ()),
    ("nohup ls", "wrapper", "nohup runs any program (and writes nohup.out)", ()),
    ("xargs rm", "wrapper", "xargs runs a program on stdin words", ()),
    ("sh -c 'rm x'", "wrapper", "a shell runs any command", ()),
    ("bash -c ls", "wrapper", "a shell runs any command", ()),
    ("zsh -c ls", "wrapper", "a shell runs any command", ()),
    ("python -c 'import os'", "wrapper", "an interpreter runs any code", ()),
    ("python3.12 x.py", "wrapper", "a versioned interpreter runs any code", ()),
    ("node -e 1", "wrapper", "an interpreter runs any code", ()),
    ("perl -e 1", "wrapper", "an interpreter runs any code", ()),
    ("npm run build", "wrapper", "package scripts run anything", ()),
    ("npx foo", "wrapper", "npx downloads and runs a package", ()),
    ("make", "wrapper", "Makefile recipes run anything", ()),
    ("awk '{print > \"f\"}' x", "wrapper", "awk writes files and calls system()", ()),
    ("less README.md", "wrapper", "less runs shell commands with !", ()),
    ("man git", "wrapper", "man runs a pager", ()),
    ("vim x", "wrapper", "an editor writes files", ()),
    ("/usr/bin/env ls", "wrapper", "a path does not hide env", ()),
    ("\\sudo ls", "wrapper", "a backslash does not hide sudo", ()),
    ("'sudo' ls", "wrapper", "quotes do not hide sudo", ()),
    ("exec ls", "wrapper", "exec replaces the shell with any program", ()),
    ("eval ls", "wrapper", "eval runs its arguments as shell code", ()),
    ("command ls", "wrapper", "command runs any program, bypassing functions", ()),
    ("time ls", "wrapper", "the time keyword runs a pipeline", ()),
    (". ./script", "wrapper", "`.` runs a file as shell code", ()),
    ("source ./script", "wrapper", "source runs a file as shell code", ()),
    ("busybox rm x", "wrapper", "busybox runs any applet", ()),
    ("ssh host rm x", "wrapper", "ssh runs a command elsewhere", ()),
    ("noglob ls", "wrapper", "a zsh precommand modifier runs the next word", ()),
    ("open -a Terminal .", "wrapper", "opens other applications", ()),
    ("xdg-open x", "wrapper", "opens other applications", ()),
    ("npm test", "wrapper", "never admitted even when the caller allows it", ("npm test",)),
    ("sudo ls", "wrapper", "never admitted even when the caller allows it", ("sudo",)),
    ("Sudo ls", "wrapper", "case-insensitive file systems run sudo", ()),
    # --- not read-only programs
    ("rm -rf x", "not-allowed", "deletes files", ()),
    ("touch x", "not-allowed", "creates a file", ()),
    ("mkdir d", "not-allowed", "creates a directory", ()),
    ("cp a b", "not-allowed", "writes a file", ()),
    ("mv a b", "not-allowed", "renames a file", ()),
    ("tee f", "not-allowed", "writes a file", ()),
    ("chmod +x f", "not-allowed", "changes permissions", ()),
    ("curl -o x http://example.invalid", "network", "downloads into a file", ()),
    ("uniq in out", "argument", "uniq writes its second operand", ()),
    ("uniq src/*.txt", "argument", "a glob can expand to two operands", ()),
    ("lsx", "not-allowed", "prefixes match whole words only", ()),
    ("ls-la", "not-allowed", "prefixes match whole words only", ()),
    ("git logx", "not-allowed", "prefixes match whole words only", ()),
    ("git commit -m x", "not-allowed", "writes a commit", ()),
    ("git checkout main", "not-allowed", "rewrites the work tree", ()),
    ("git stash", "not-allowed", "stashes (and resets) changes", ()),
    ("git reset --hard", "not-allowed", "discards changes", ()),
    ("git push", "network", "writes to a remote", ()),
    ("git fetch", "network", "contacts a remote even under a caller prefix", ("git fetch",)),
    ("cd ..", "cd", "`..` resolves differently in bash and the kernel", ()),
    ("cd src", "cd", "without a caller root, cd cannot be confined", ()),
    ("git config core.pager x", "not-allowed", "writes configuration", ()),
    ("git tag v1", "not-allowed", "creates a tag", ()),
    ("git", "not-allowed", "no subcommand to check", ()),
    ("./ls", "not-allowed", "a script in the tree named like a read command", ()),
    ("/tmp/ls", "not-allowed", "a program outside PATH named like a read command", ()),
    ("!", "not-allowed", "the negation keyword is not a command", ()),
    ("jqx .", "not-allowed", "a caller prefix also matches whole words only", ("jq",)),
    ("git add x", "not-allowed", "a bare `git` caller prefix admits nothing", ("git",)),
    # --- arguments that make an allowed command write or run something
    ("find . -delete", "argument", "deletes files", ()),
    ("find . -exec rm '{}' '+'", "argument", "runs rm on every match", ()),
    ("find . -execdir sh -c x '{}' '+'", "argument", "runs a shell on every match", ()),
    ("find . -ok rm '{}' '+'", "argument", "runs rm on every match", ()),
    ("find . -okdir rm '{}' '+'", "argument", "runs rm on every match", ()),
    ("find . -fprint out", "argument", "writes a file", ()),
    ("find . -fprint0 out", "argument", "writes a file", ()),
    ("find . -fprintf out '%p'", "argument", "writes a file", ()),
    ("find . -fls out", "argument", "writes a file", ()),
    ("find . '-delete'", "argument", "single quotes do not hide -delete", ()),
    ('find . "-delete"', "argument", "double quotes do not hide -delete", ()),
    ("find . -de\\lete", "argument", "a backslash does not hide -delete", ()),
    ("find . -name x -delete", "argument", "-delete after a test still deletes", ()),
    ("rg --pre=sh x", "argument", "runs sh on every file", ()),
    ("rg --pre sh x", "argument", "runs sh on every file", ()),
    ("rg --pre-glob '*.gz' x", "argument", "selects files for --pre", ()),
    ("rg --hostname-bin=./x y", "argument", "runs a program for the host name", ()),
    ("rg -z x", "argument", "runs decompressors", ()),
    ("rg --search-zip x", "argument", "runs decompressors", ()),
    ("rg -inz x", "argument", "-z inside a short-option cluster", ()),
    ("sort -o out in", "argument", "writes out", ()),
    ("sort --output=out in", "argument", "writes out", ()),
    ("sort --out=out in", "argument", "GNU accepts abbreviated long options", ()),
    ("sort -nro out in", "argument", "-o at the end of a cluster takes the next word", ()),
    ("sort in -o out", "argument", "GNU permutes options after operands", ()),
    ("sort --compress-program=sh in", "argument", "runs sh", ()),
    ("sort -T . in", "argument", "spills temporary files into the tree", ()),
    ("tree -o out", "argument", "writes out", ()),
    ("tree -R -H . -L 1", "argument", "writes 00Tree.html in every directory", ()),
    ("file -C -m magic", "argument", "writes magic.mgc", ()),
    ("file -z x.gz", "argument", "runs decompressors", ()),
    ("diff -l a b", "argument", "runs pr", ()),
    ("sed -i s/a/b/ f", "argument", "edits in place", ()),
    ("sed -n 1p f -i", "argument", "GNU sed takes -i after the operands too", ()),
    ("sed -n 'w out' f", "argument", "w writes a file", ()),
    ("sed -n '1e rm x' f", "argument", "e runs a command", ()),
    ("sed 's/a/b/w out' f", "argument", "the w flag writes a file", ()),
    ("sed -n '1,5p;w x' f", "argument", "a second command writes a file", ()),
    ("sed -n 1p --in-place f", "argument", "edits in place", ()),
    ("sed -n 1*p f", "argument", "a pattern is not a line number", ()),
    ("sed", "argument", "no script to prove read-only", ()),
    ("git -c core.pager=sh log", "argument", "core.pager runs a program", ()),
    ("git -ccore.pager=sh log", "argument", "attached -c value", ()),
    ("git --config-env=core.pager=X log", "argument", "config from the environment", ()),
    ("git -C /tmp/repo log", "argument", "another repository's config runs programs", ()),
    ("git --git-dir=/tmp/x log", "argument", "another repository's config runs programs", ()),
    ("git --work-tree=/tmp log", "argument", "another work tree", ()),
    ("git --exec-path=/tmp log", "argument", "runs git subcommands from /tmp", ()),
    ("git -p log", "argument", "starts a pager", ()),
    ("git --paginate log", "argument", "starts a pager", ()),
    ("git --help log", "argument", "runs man or a browser", ()),
    ("git --bare log", "argument", "treats the directory as a bare repository", ()),
    ("git --no-pager -c core.pager=x log", "argument", "an allowed option does not hide -c", ()),
    ("git log --output=/tmp/x", "argument", "writes a file", ()),
    ("git log --output /tmp/x", "argument", "writes a file", ()),
    ("git diff --output=x", "argument", "writes a file", ()),
    ("git show --output=x HEAD", "argument", "writes a file", ()),
    ("git diff --outp=x", "argument", "an abbreviation of --output", ()),
    ("git diff --ext-diff", "argument", "runs the external diff program", ()),
    ("git log -p --textconv", "argument", "runs textconv filters", ()),
    ("git log --help", "argument", "runs man or a browser", ()),
    ("git grep -O x", "argument", "opens matches in a pager program", ()),
    ("git grep --open-files-in-pager=vim x", "argument", "runs vim", ()),
    ("git grep -nO x", "argument", "-O inside a short-option cluster", ()),
    ("git cat-file --filters HEAD:x", "argument", "runs filter programs", ()),
    ("git cat-file --textconv HEAD:x", "argument", "runs textconv programs", ()),
    ("git branch -d main", "argument", "deletes a branch", ()),
    ("git branch -D main", "argument", "deletes a branch", ()),
    ("git branch -m a b", "argument", "renames a branch", ()),
    ("git branch -c a b", "argument", "copies a branch", ()),
    ("git branch --set-upstream-to=origin/x", "argument", "re-points upstream", ()),
    ("git branch new-branch", "argument", "creates a branch", ()),
    ("git branch -f main HEAD~3", "argument", "moves a branch", ()),
    ("git branch --edit-description", "argument", "runs an editor", ()),
    ("git branch -l x", "argument", "-l created a reflog before git 2.20", ()),
    ("git branch -vd main", "argument", "-d inside a short-option cluster", ()),
    ("git branch --format x", "argument", "a detached value would be a branch name", ()),
    ("git branch -a new", "argument", "a name without --list creates a branch", ()),
    ("git status --output=x", "argument", "generic git --output rule", ()),
    ("git log --show-signature", "argument", "runs gpg", ()),
    ("git log '--format=%G?'", "argument", "a signature placeholder runs gpg", ()),
    ("git log '--pretty=format:%h %GS'", "argument", "a signature placeholder runs gpg", ()),
    ("git branch '--format=%(signature)'", "argument", "a signature atom runs gpg", ()),
    # --- caller prefixes get the same checks
    ("jq . x > y", "operator", "a caller prefix does not admit redirection", ("jq",)),
    ("/usr/bin/find . -delete", "argument", "rules follow the base name", ("/usr/bin/find",)),
    ("git shortlog --upload-pack=x", "argument", "runs a program", ("git shortlog",)),
    ("git -c x=y shortlog", "argument", "caller git prefixes keep the -c rule", ("git shortlog",)),
    ("find . -delete", "argument", "a longer caller prefix keeps the rules", ("find .",)),
    ("sed -i s/a/b/ f", "argument", "a caller prefix keeps the sed rule", ("sed -i",)),
]

# Refusals that are conservative, not attacks: documented so a change in them is deliberate.
CONSERVATIVE: list[tuple[str, str, str]] = [
    ("rg -- --pre", "argument", "options are looked for after `--` as well"),
    ("rg -e --pre x", "argument", "an option-looking value is treated as the option"),
    ("sort -ko x", "argument", "letters after a value-taking short option still count"),
    ("git -C . status", "argument", "-C is refused even for the current directory"),
    ("ls 2>/dev/null -la", "operator", "a word after a redirection: the grammar reads it apart"),
    ('ls 2>"/dev/null"', "operator", "a quoted /dev/null is refused, not unquoted"),
    ("ls &>/dev/null", "operator", "&> is bash's, not POSIX sh's (backgrounds there)"),
    ("ls ~-*", "ok", "tilde first: expands to a path, never an option"),
]


def _assert_one_line_refusal(verdict: ShellVerdict) -> None:
    assert not verdict.ok
    assert verdict.message
    assert "\n" not in verdict.message and "\r" not in verdict.message
    assert verdict.code in REFUSAL_CODES


@pytest.mark.parametrize(("command", "extra"), ADMITTED, ids=[c for c, _ in ADMITTED])
def test_ordinary_reads_are_admitted(command: str, extra: tuple[str, ...]) -> None:
    verdict = check_read_only_command(command, extra)
    assert verdict.ok, verdict.message
    assert verdict.code == "ok"
    assert verdict.message == ""


@pytest.mark.parametrize(
    ("command", "code", "why", "extra"), REFUSED, ids=[repr(c)[:60] for c, *_ in REFUSED]
)
def test_attacks_are_refused(command: str, code: str, why: str, extra: tuple[str, ...]) -> None:
    verdict = check_read_only_command(command, extra)
    _assert_one_line_refusal(verdict)
    assert verdict.code == code, f"{why}: {verdict.message}"


@pytest.mark.parametrize(("command", "code", "why"), CONSERVATIVE)
def test_documented_conservative_verdicts(command: str, code: str, why: str) -> None:
    verdict = check_read_only_command(command)
    assert verdict.code == code, why


def test_the_table_is_large_and_every_attack_has_a_reason() -> None:
    assert len(ADMITTED) + len(REFUSED) >= 150
    assert all(why.strip() for _, _, why, _ in REFUSED)
    # `repository` needs a place (a tree with a nested repository): tests/test_shell_compound.py
    assert {code for _, code, _, _ in REFUSED} == set(REFUSAL_CODES) - {"ok", "repository"}


# --------------------------------------------------------------------------------------------
# The data tables, entry by entry
# --------------------------------------------------------------------------------------------


def test_every_default_prefix_has_a_reason_and_is_a_valid_prefix() -> None:
    for prefix, reason in READ_BASH_PREFIXES.items():
        assert reason.strip(), prefix
        if prefix != "cd":  # cd has its own rule, never a caller prefix
            assert prefix_problem(prefix) is None, prefix


@pytest.mark.parametrize("prefix", [p for p in READ_BASH_PREFIXES if p not in ("sed", "cd")])
def test_every_default_prefix_alone_is_admitted(prefix: str) -> None:
    assert check_read_only_command(prefix).ok


@pytest.mark.parametrize(
    ("program", "key"),
    [(program, key) for program, table in FORBIDDEN_ARGUMENTS.items() for key in table],
)
def test_every_forbidden_argument_is_refused_with_its_reason(program: str, key: str) -> None:
    if key.startswith("--"):
        spellings = [key, f"{key}=value", key[:-1]]  # abbreviations count for GNU and git
    elif len(key) == 2:
        spellings = [key, f"-q{key[1]}"]  # a short option inside a cluster
    else:
        spellings = [key]  # find primaries: exact words
    for spelled in spellings:
        verdict = check_read_only_command(f"{program} {spelled} operand")
        _assert_one_line_refusal(verdict)
        assert verdict.code == "argument"
        assert f"`{key}`" in verdict.message
        assert FORBIDDEN_ARGUMENTS[program][key] in verdict.message


GIT_DEFAULT_SUBCOMMANDS = [p.split(" ")[1] for p in READ_BASH_PREFIXES if p.startswith("git ")]


@pytest.mark.parametrize("subcommand", GIT_DEFAULT_SUBCOMMANDS)
@pytest.mark.parametrize("key", list(GIT_FORBIDDEN_ARGUMENTS["*"]))
def test_generic_git_forbidden_arguments_apply_to_every_subcommand(
    subcommand: str, key: str
) -> None:
    verdict = check_read_only_command(f"git {subcommand} {key}=x")
    _assert_one_line_refusal(verdict)
    assert verdict.code == "argument"
    assert f"`{key}`" in verdict.message


@pytest.mark.parametrize("option", list(GIT_GLOBAL_OPTIONS_REFUSED))
def test_refused_git_global_options(option: str) -> None:
    verdict = check_read_only_command(f"git {option} x log")
    _assert_one_line_refusal(verdict)
    assert verdict.code == "argument"
    assert GIT_GLOBAL_OPTIONS_REFUSED[option] in verdict.message


def test_an_unknown_git_global_option_is_refused() -> None:
    verdict = check_read_only_command("git --frobnicate log")
    _assert_one_line_refusal(verdict)
    assert "--frobnicate" in verdict.message


@pytest.mark.parametrize("option", list(GIT_GLOBAL_OPTIONS_ALLOWED))
def test_allowed_git_global_options(option: str) -> None:
    assert check_read_only_command(f"git {option} log --oneline").ok


@pytest.mark.parametrize("option", list(GIT_BRANCH_LISTING_OPTIONS))
def test_git_branch_listing_options(option: str) -> None:
    spelled = option + "x" if option.endswith("=") else option
    assert check_read_only_command(f"git branch {spelled}").ok


@pytest.mark.parametrize("name", list(NEVER_COMMANDS))
def test_never_commands_are_refused_even_as_caller_prefixes(name: str) -> None:
    verdict = check_read_only_command(f"{name} x", extra_prefixes=[name])
    _assert_one_line_refusal(verdict)
    assert verdict.code == "wrapper"
    assert prefix_problem(name) is not None


@pytest.mark.parametrize("name", list(NETWORK_COMMANDS))
def test_network_programs_are_refused_even_as_caller_prefixes(name: str) -> None:
    verdict = check_read_only_command(f"{name} http://127.0.0.1/x", extra_prefixes=[name])
    _assert_one_line_refusal(verdict)
    assert verdict.code == "network"
    assert NETWORK_COMMANDS[name] in verdict.message
    problem = prefix_problem(name)
    assert problem is not None and NETWORK_COMMANDS[name] in problem


@pytest.mark.parametrize("subcommand", list(GIT_NETWORK_SUBCOMMANDS))
def test_git_network_subcommands_are_refused_even_as_caller_prefixes(subcommand: str) -> None:
    prefix = f"git {subcommand}"
    for command in (
        f"{prefix} origin",
        f"git --no-pager {subcommand}",
        f"git {subcommand.upper()}",
    ):
        verdict = check_read_only_command(command, extra_prefixes=[prefix])
        _assert_one_line_refusal(verdict)
        assert verdict.code == "network", command
        assert GIT_NETWORK_SUBCOMMANDS[subcommand] in verdict.message
    assert prefix_problem(prefix) is not None


@pytest.mark.parametrize(
    ("subcommand", "action"),
    [(sub, action) for sub, forms in GIT_NETWORK_FORMS.items() for action in forms],
)
def test_git_network_forms_are_refused_under_a_caller_prefix(subcommand: str, action: str) -> None:
    extra = "-a" if action == "set-head" else ""
    command = f"git {subcommand} {action} origin {extra}".strip()
    verdict = check_read_only_command(command, extra_prefixes=[f"git {subcommand}"])
    assert verdict.code == "network", verdict.message
    assert GIT_NETWORK_FORMS[subcommand][action] in verdict.message


@pytest.mark.parametrize(
    "command",
    ["git remote -v", "git remote show -n origin", "git remote set-head origin main",
     "git submodule status", "git archive HEAD"],
)  # fmt: skip
def test_local_forms_of_network_subcommands_stay_admitted_under_a_prefix(command: str) -> None:
    prefix = " ".join(command.split(" ")[:2])
    assert check_read_only_command(command, extra_prefixes=[prefix]).ok


def test_every_network_argument_is_refused() -> None:
    for subcommand, table in GIT_NETWORK_ARGUMENTS.items():
        for key, reason in table.items():
            for spelled in (f"{key}=host:x", key[:-1] + "=host:x"):
                verdict = check_read_only_command(
                    f"git {subcommand} {spelled} HEAD", extra_prefixes=[f"git {subcommand}"]
                )
                assert verdict.code == "network" and reason in verdict.message, spelled


@pytest.mark.parametrize(
    ("prefix", "problem"),
    [
        ("", "words"),
        ("git", "subcommand"),
        ("/usr/bin/git", "subcommand"),
        ("ls  -la", "words"),
        ("ls;", "`;`"),
        ("l*", "`*`"),
        ("'ls'", "`'`"),
        ("env", "never admitted"),
        ("python3.11 -m http.server", "never admitted"),
        ("git -c core.pager=less log", "core.pager"),
        ("git --no-pager", "subcommand"),
    ],
)
def test_prefix_problems(prefix: str, problem: str) -> None:
    message = prefix_problem(prefix)
    assert message is not None
    assert problem in message


def test_a_rejected_caller_prefix_admits_nothing() -> None:
    assert not check_read_only_command("git add x", ["git"]).ok
    assert not check_read_only_command("l* x", ["l*"]).ok


def test_a_bare_string_of_prefixes_is_one_prefix_not_its_letters() -> None:
    assert check_read_only_command("jq .", "jq").ok  # type: ignore[arg-type]
    assert not check_read_only_command("j", "jq").ok  # type: ignore[arg-type]


def test_admitted_verdict_carries_the_words() -> None:
    verdict = check_read_only_command("git log --format='%H %s' -- 'a b'")
    assert verdict.words == ["git", "log", "--format=%H %s", "--", "a b"]
    assert verdict.to_json() == {
        "allowed": True,
        "code": "ok",
        "message": "",
        "words": ["git", "log", "--format=%H %s", "--", "a b"],
        "parts": [
            {
                "text": "git log --format='%H %s' -- 'a b'",
                "allowed": True,
                "code": "ok",
                "message": "",
                "words": ["git", "log", "--format=%H %s", "--", "a b"],
                "redirects": [],
                "operator": None,
            }
        ],
    }


@pytest.mark.parametrize("value", [None, 3, b"ls", ["ls"]])
def test_non_text_is_refused_not_raised(value: object) -> None:
    verdict = check_read_only_command(value)  # type: ignore[arg-type]
    _assert_one_line_refusal(verdict)


# --------------------------------------------------------------------------------------------
# Word splitting
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("find . '-delete'", ["find", ".", "-delete"]),
        ('find . "-delete"', ["find", ".", "-delete"]),
        ("find . -de\\lete", ["find", ".", "-delete"]),
        ("find . -'de'\"le\"te", ["find", ".", "-delete"]),
        ("echo '' x", ["echo", "", "x"]),
        ('echo "a\\"b" "c\\\\d" "e\\f"', ["echo", 'a"b', "c\\d", "e\\f"]),
        ("echo   a    b ", ["echo", "a", "b"]),
        ("echo a\\ b", ["echo", "a b"]),
        ("echo 'it''s'", ["echo", "its"]),
    ],
)
def test_shell_words_removes_quotes_like_bash(command: str, words: list[str]) -> None:
    assert shell_words(command) == words


@pytest.mark.parametrize("command", ["ls; x", "ls $(x)", "ls\nx", "ls 'x"])
def test_shell_words_refuses_unsafe_syntax(command: str) -> None:
    with pytest.raises(ValueError, match=r"refused|unterminated"):
        shell_words(command)
    assert has_unsafe_shell_syntax(command)


BASH = shutil.which("bash")


def _bash_words(command: str, cwd: Path) -> list[str]:
    """The words bash passes to the program: `printf '%s\\0'` stands in for it.

    Globbing is off (`set -f`): this compares quote and backslash removal; which names a glob
    expands to depends on the filesystem (`/*` does match), and the glob rule is tested apart.
    """
    assert BASH is not None
    done = subprocess.run(
        [BASH, "--norc", "--noprofile", "-c", "set -f; printf '%s\\0' " + command],
        cwd=cwd,
        capture_output=True,
        check=False,
        timeout=10,
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent-home"},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode("utf-8", "surrogateescape").split("\0")[:-1]


def _expected_words(command: str) -> list[str]:
    return [
        "/nonexistent-home" + w[1:] if w == "~" or w.startswith("~/") else w
        for w in shell_words(command)
    ]


@pytest.mark.skipif(BASH is None, reason="bash not installed")
@pytest.mark.parametrize(("command", "extra"), ADMITTED, ids=[c for c, _ in ADMITTED])
def test_admitted_commands_split_exactly_as_bash_splits_them(
    command: str, extra: tuple[str, ...], tmp_path: Path
) -> None:
    assert _bash_words(command, tmp_path) == _expected_words(command)


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

SHELLISH = st.text(
    alphabet=st.sampled_from(
        list("abcdz-_./=:,@%+ ") + list("'\"\\$`;&|<>(){}[]*?!#~^\n\t") + ["\u202e", "é"]
    ),
    max_size=40,
)


@given(st.text(max_size=200))
def test_never_raises_on_arbitrary_text(command: str) -> None:
    verdict = check_read_only_command(command)
    assert isinstance(verdict, ShellVerdict)
    if not verdict.ok:
        assert verdict.message and "\n" not in verdict.message


@given(SHELLISH, st.lists(st.sampled_from(["jq", "git shortlog", "ls -la"]), max_size=2))
def test_never_raises_on_shell_like_text(command: str, extra: list[str]) -> None:
    for prefix in ("", "ls ", "git log ", "find . ", "sed -n 1p "):
        verdict = check_read_only_command(prefix + command, extra)
        assert isinstance(verdict, ShellVerdict)
        assert verdict.ok or verdict.code in REFUSAL_CODES


def _quote_pieces(word: str, styles: list[int]) -> str:
    """`word` with every character quoted one of four ways (raw, backslash, '', "")."""
    out = []
    for char, style in zip(word, styles, strict=False):
        if style == 1:
            out.append("\\" + char)
        elif style == 2:
            out.append(f"'{char}'")
        elif style == 3:
            out.append(f'"{char}"')
        else:
            out.append(char)
    out.append(word[len(styles) :])
    return "".join(out)


FORBIDDEN_SAMPLES = [
    ("find . {}", "-delete"),
    ("find . {} rm x", "-exec"),
    ("find . {} out", "-fprint"),
    ("rg {} x", "--pre=sh"),
    ("rg {} x", "-z"),
    ("sort {} out in", "-o"),
    ("sort in {}", "--output=out"),
    ("git log {}", "--output=x"),
    ("git diff {}", "--ext-diff"),
    ("git grep {} x", "-O"),
    ("git branch {} main", "-D"),
    ("git {} log", "-c"),
    ("sed {} s/a/b/ f", "-i"),
    ("{} ls", "sudo"),
    ("{} ls", "env"),
]


@given(
    st.sampled_from(FORBIDDEN_SAMPLES),
    st.lists(st.integers(min_value=0, max_value=3), max_size=20),
)
def test_quoting_variants_of_a_forbidden_word_are_all_refused(
    sample: tuple[str, str], styles: list[int]
) -> None:
    template, word = sample
    variant = _quote_pieces(word, styles)
    command = template.format(variant)
    assert shell_words(variant) == [word]
    verdict = check_read_only_command(command)
    assert not verdict.ok, command
    assert verdict.code in {"argument", "wrapper"}


@given(st.sampled_from(list(READ_BASH_PREFIXES)), st.text("abcxyz-_.0123", min_size=1))
def test_prefixes_match_whole_words_only(prefix: str, suffix: str) -> None:
    glued = prefix + suffix
    if glued.split(" ")[-1] in {p.split(" ")[-1] for p in READ_BASH_PREFIXES}:
        return  # gluing happened to spell another allowed program
    verdict = check_read_only_command(glued)
    assert not verdict.ok
    assert verdict.code in {"not-allowed", "wrapper"}


@given(
    st.sampled_from([c for c, extra in ADMITTED if not extra]),
    st.sampled_from([";", "&&", "||", "|", "&", ">", ">>", "<", "\n", "$(", "`", "<(", "|&"]),
    st.sampled_from(["rm -rf x", "touch y", "", "x"]),
)
def test_chaining_anything_onto_an_admitted_command_is_refused(
    command: str, operator: str, tail: str
) -> None:
    for joined in (f"{command} {operator} {tail}", f"{command}{operator}{tail}"):
        verdict = check_read_only_command(joined)
        if tail == "" and operator in (";", "\n"):
            assert verdict.ok, joined  # a trailing separator joins nothing
        else:
            assert not verdict.ok, joined


_UNSAFE_UNQUOTED = set(";&|<>()$`{}\n")


def _unquoted_characters(command: str) -> list[str]:
    """The characters of `command` that no quote or backslash protects (a second, simpler reading
    than the checker's lexer, to cross-check it)."""
    out: list[str] = []
    quote = ""
    escaped = False
    for char in command:
        if escaped:
            escaped = False
        elif quote == "'":
            quote = "" if char == "'" else quote
        elif quote == '"':
            if char == "\\":
                escaped = True
            elif char == '"':
                quote = ""
        elif char == "\\":
            escaped = True
        elif char in "'\"":
            quote = char
        else:
            out.append(char)
    return out


_SPECIALS = "'\"\\$`;&|<>(){}[]*?!#~^ "
_PLAIN = "abcdz019-_./=:,@%+"

# Words built from every quoting form, holding operator characters inside quotes: most of them
# are admitted, so the differential test below sees many tricky but valid commands.
QUOTED_SEGMENT = st.one_of(
    st.text(_PLAIN, min_size=1, max_size=4),
    st.text(_PLAIN + _SPECIALS.replace("'", ""), max_size=6).map(lambda s: f"'{s}'"),
    st.lists(
        st.one_of(
            st.text(_PLAIN + ";&|<>(){}[]*?#~^' ", min_size=1, max_size=3),
            st.sampled_from(['\\"', "\\\\", "\\$", "\\`", "\\a"]),
        ),
        max_size=3,
    ).map(lambda parts: '"' + "".join(parts) + '"'),
    st.sampled_from(list(_SPECIALS)).map(lambda c: "\\" + c),
)
QUOTED_WORDS = st.lists(
    st.lists(QUOTED_SEGMENT, min_size=1, max_size=4).map("".join), max_size=5
).map(" ".join)


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    program=st.sampled_from(["ls", "echo", "cat", "git log", "grep -n", "find ."]),
    tail=st.one_of(SHELLISH, QUOTED_WORDS),
)
def test_whatever_is_admitted_has_no_unquoted_operator_and_splits_like_bash(
    tmp_path: Path, program: str, tail: str
) -> None:
    command = f"{program} {tail}"
    verdict = check_read_only_command(command)
    if not verdict.ok:
        return
    # A compound is split by the grammar (test_shell_compound.py runs it in bash); every part
    # on its own is one literal invocation with no operator left in it.
    for part in verdict.parts:
        assert not (set(_unquoted_characters(part.text)) & _UNSAFE_UNQUOTED), command
        if BASH is not None and "~" not in part.text:
            assert _bash_words(part.text, tmp_path) == shell_words(part.text)


def test_every_interpreter_head_of_the_rule_grammar_is_never_admitted_here() -> None:
    """rules.py refuses prefix rules that stop at these programs; the checker must never admit
    them either, so the two lists cannot drift apart silently."""
    from toolgate_cli.rules import INTERPRETER_HEADS

    for name in INTERPRETER_HEADS:
        verdict = check_read_only_command(f"{name} x", extra_prefixes=[name])
        assert verdict.code == "wrapper", name
