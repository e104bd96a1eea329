"""The program tables: what may run in a read shell, what never may, and which arguments turn
an allowed program into a writer, a runner or a network client. Data first; the small functions
at the end apply it.
"""

from __future__ import annotations

from toolgate_cli.shell.verdict import ShellVerdict, display_text, refuse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolgate_cli.shell.words import Word

# ---------------------------------------------------------------------------------------------
# The allowed prefixes
# ---------------------------------------------------------------------------------------------

READ_BASH_PREFIXES: dict[str, str] = {
    "pwd": "prints the working directory",
    "cd": "changes the directory of the commands after it: one operand, a directory inside the "
    "caller root (resolved like the kernel does, symlinks followed), never `..`, `-` or `~`",
    "ls": "lists directory entries; no option writes or runs a program",
    "cat": "prints files",
    "head": "prints the start of files",
    "tail": "prints the end of files (-f only waits for more)",
    "wc": "counts lines, words and bytes",
    "grep": "searches file contents; GNU and BSD grep have no option that writes or runs",
    "rg": "searches file contents; --pre, --hostname-bin and -z run programs and are refused",
    "find": "walks the tree; -exec*, -ok*, -delete, -fprint* and -fls are refused",
    "stat": "prints file metadata",
    "file": "guesses file types; -C writes a .mgc file and -z/-Z run decompressors: refused",
    "du": "sums disk usage",
    "tree": "prints the tree; -o writes a file and -R writes 00Tree.html files: refused",
    "diff": "compares files; -l/--paginate runs `pr` and is refused",
    "sort": "sorts lines to stdout; -o writes, -T spills into a chosen dir, --compress-program "
    "runs a program: refused",
    "sed": "only `sed -n Np FILE...` / `sed -n M,Np FILE...` (print lines); nothing else",
    "uniq": "filters repeated lines to stdout; a second operand is the file it writes, so at "
    "most one operand, and no glob (it could expand to two)",
    "cut": "prints selected fields or columns; no option writes or runs",
    "tr": "translates characters from stdin to stdout; it takes no file operands",
    "nl": "numbers lines; no option writes or runs",
    "column": "lays text out in columns; no option writes or runs (-o is a separator string)",
    "paste": "joins lines of files side by side; no option writes or runs",
    "rev": "reverses each line; no option writes or runs",
    "tac": "prints lines last to first; no option writes or runs",
    "jq": "filters JSON to stdout; no option writes, and the jq language can neither write "
    "files nor run programs",
    "echo": "prints its arguments",
    "which": "looks a program up on PATH without running it",
    "basename": "strips a path to its last component (pure string operation)",
    "dirname": "strips the last component of a path (pure string operation)",
    "realpath": "resolves a path",
    "readlink": "prints a symlink's target",
    "git status": "shows the working-tree state; may refresh the stat cache in .git/index, "
    "never the tree, refs or config (--no-optional-locks avoids even that)",
    "git log": "shows history; --output, --ext-diff and --textconv are refused",
    "git diff": "shows changes; --output, --ext-diff and --textconv are refused",
    "git show": "shows objects; --output, --ext-diff and --textconv are refused",
    "git blame": "annotates lines (--contents only reads another file)",
    "git branch": "lists branches only: create/delete/rename/upstream flags are refused",
    "git grep": "searches tracked files; -O/--open-files-in-pager runs a program: refused",
    "git rev-parse": "resolves revisions and repository paths",
    "git ls-files": "lists index entries",
    "git ls-tree": "lists a tree object",
    "git cat-file": "prints objects; --filters and --textconv run programs: refused",
    "git describe": "names a commit from its tags",
    "git merge-base": "finds a common ancestor",
}
"""Default read-only prefixes, each with why it is read-only. `--allow-bash-prefix` adds to them."""

SUBCOMMAND_PROGRAMS: dict[str, str] = {
    "git": "`git` alone would admit every subcommand, including aliases that run shell code",
}
"""Programs whose prefix must name a subcommand: a bare `git` prefix is refused."""


# ---------------------------------------------------------------------------------------------
# Programs never admitted, even under a caller prefix
# ---------------------------------------------------------------------------------------------

_RUNS_PROGRAM = "runs another program named in its arguments, which this check cannot see"


def _runs(how: str) -> str:
    return f"runs another program {how}, named in its arguments, which this check cannot see"


_INTERPRETER = "interprets code given in its arguments or files, which can write or run anything"
_SHELL = "runs any command given to it (-c, a script, or stdin), as every shell does"
_PAGER = "can run shell commands (!cmd) and input preprocessors (LESSOPEN), as pagers do"
_EDITOR = "writes files and can run shell commands, as editors do"
_TASK_RUNNER = "runs project-defined scripts or build steps, which can do anything"

NEVER_COMMANDS: dict[str, str] = {
    "env": _runs("with a changed environment"),
    "sudo": _runs("as another user"),
    "doas": _runs("as another user"),
    "su": _runs("as another user"),
    "runuser": _runs("as another user"),
    "pkexec": _runs("as another user"),
    "timeout": _RUNS_PROGRAM,
    "nice": _RUNS_PROGRAM,
    "ionice": _RUNS_PROGRAM,
    "nohup": _RUNS_PROGRAM,
    "setsid": _RUNS_PROGRAM,
    "stdbuf": _RUNS_PROGRAM,
    "chrt": _RUNS_PROGRAM,
    "taskset": _RUNS_PROGRAM,
    "flock": _RUNS_PROGRAM,
    "chroot": _RUNS_PROGRAM,
    "unshare": _RUNS_PROGRAM,
    "nsenter": _RUNS_PROGRAM,
    "watch": _runs("repeatedly"),
    "script": _runs("and writes a typescript file"),
    "strace": _RUNS_PROGRAM,
    "ltrace": _RUNS_PROGRAM,
    "gdb": _RUNS_PROGRAM,
    "valgrind": _RUNS_PROGRAM,
    "xargs": _runs("with arguments read from stdin"),
    "parallel": _RUNS_PROGRAM,
    "busybox": "runs any of its built-in applets, including rm and sh",
    "time": _runs("(a shell keyword)"),
    "exec": _runs("(a shell builtin)"),
    "eval": "runs its arguments as shell code (a shell builtin)",
    "command": _runs("(a shell builtin)"),
    "builtin": _runs("(a shell builtin)"),
    "source": "runs a file as shell code (a shell builtin)",
    ".": "runs a file as shell code (a shell builtin)",
    "coproc": _runs("(a shell keyword)"),
    "sh": _SHELL,
    "bash": _SHELL,
    "zsh": _SHELL,
    "dash": _SHELL,
    "ksh": _SHELL,
    "mksh": _SHELL,
    "ash": _SHELL,
    "powershell": _SHELL,
    "fish": _SHELL,
    "csh": _SHELL,
    "tcsh": _SHELL,
    "pwsh": _SHELL,
    "python": _INTERPRETER,
    "python3": _INTERPRETER,
    "pypy": _INTERPRETER,
    "pypy3": _INTERPRETER,
    "perl": _INTERPRETER,
    "ruby": _INTERPRETER,
    "node": _INTERPRETER,
    "nodejs": _INTERPRETER,
    "deno": _INTERPRETER,
    "bun": _INTERPRETER,
    "php": _INTERPRETER,
    "lua": _INTERPRETER,
    "Rscript": _INTERPRETER,
    "osascript": _INTERPRETER,
    "tclsh": _INTERPRETER,
    "wish": _INTERPRETER,
    "luajit": _INTERPRETER,
    "julia": _INTERPRETER,
    "r": _INTERPRETER + " (R; in zsh, `r` re-runs the previous command)",
    "unbuffer": _RUNS_PROGRAM,
    "pnpx": _TASK_RUNNER,
    "awk": _INTERPRETER + " (system(), print > file, cmd | getline)",
    "gawk": _INTERPRETER + " (system(), print > file, cmd | getline)",
    "mawk": _INTERPRETER + " (system(), print > file, cmd | getline)",
    "nawk": _INTERPRETER + " (system(), print > file, cmd | getline)",
    "npm": _TASK_RUNNER,
    "npx": _TASK_RUNNER,
    "pnpm": _TASK_RUNNER,
    "yarn": _TASK_RUNNER,
    "bunx": _TASK_RUNNER,
    "make": _TASK_RUNNER,
    "gmake": _TASK_RUNNER,
    "just": _TASK_RUNNER,
    "cargo": _TASK_RUNNER + " (build.rs, cargo aliases)",
    "go": _TASK_RUNNER + " (go generate, go run)",
    "gradle": _TASK_RUNNER,
    "mvn": _TASK_RUNNER,
    "pip": _TASK_RUNNER + " (package build hooks)",
    "pip3": _TASK_RUNNER + " (package build hooks)",
    "uv": _TASK_RUNNER,
    "uvx": _TASK_RUNNER,
    "pipx": _TASK_RUNNER,
    "poetry": _TASK_RUNNER,
    "tox": _TASK_RUNNER,
    "nox": _TASK_RUNNER,
    "pytest": _TASK_RUNNER + " (conftest.py is code)",
    "less": _PAGER,
    "more": _PAGER,
    "most": _PAGER,
    "man": "runs a pager, which " + _PAGER,
    "vi": _EDITOR,
    "vim": _EDITOR,
    "nvim": _EDITOR,
    "emacs": _EDITOR,
    "nano": _EDITOR,
    "ed": _EDITOR,
    "ex": _EDITOR,
    "noglob": _runs("(a zsh precommand modifier)"),
    "nocorrect": _runs("(a zsh precommand modifier)"),
    "sudoedit": "runs an editor as another user, which " + _EDITOR,
    "fakeroot": _runs("under a fake root"),
    "firejail": _runs("in a sandbox"),
    "bwrap": _runs("in a sandbox"),
    "systemd-run": _runs("as a service"),
    "at": _runs("later (at)"),
    "batch": _runs("later (batch)"),
    "expect": _INTERPRETER,
    "rlwrap": _RUNS_PROGRAM,
    "entr": _runs("whenever files change"),
    "open": "opens files and URLs with other applications (macOS)",
    "xdg-open": "opens files and URLs with other applications",
    "arch": _runs("under another architecture (macOS)"),
    "caffeinate": _RUNS_PROGRAM + " (macOS)",
    "xcrun": _RUNS_PROGRAM + " (macOS developer tools)",
    "ssh": "runs a command on another machine",
    "tmux": "types commands into other shells (send-keys) and runs new ones",
    "screen": "runs commands in new or existing terminals",
}
"""Never admitted, not even under a caller's --allow-bash-prefix: these run other programs or
code under their own name, so allowing the name would allow everything they can launch (seed 002's
circumvention list). Matched on the command word and on its last path component
(`/usr/bin/env`); `python3.12`-style names count as `python`."""

# ---------------------------------------------------------------------------------------------
# Programs that contact another machine: never admitted (a reviewing read shell needs no network)
# ---------------------------------------------------------------------------------------------

NETWORK_COMMANDS: dict[str, str] = {
    "curl": "transfers data from or to a URL",
    "wget": "downloads from a URL",
    "aria2c": "downloads from URLs",
    "lftp": "transfers files with a remote server",
    "ftp": "transfers files with a remote server",
    "sftp": "transfers files with a remote server over ssh",
    "scp": "copies files to or from another machine",
    "rsync": "copies files, also to or from another machine (host:path, rsync://)",
    "nc": "opens network connections",
    "ncat": "opens network connections",
    "netcat": "opens network connections",
    "socat": "relays data between network connections and files",
    "telnet": "opens a network connection",
    "ping": "sends packets to another machine",
    "ping6": "sends packets to another machine",
    "traceroute": "sends packets towards another machine",
    "tracepath": "sends packets towards another machine",
    "mtr": "sends packets towards another machine",
    "dig": "queries DNS servers",
    "nslookup": "queries DNS servers",
    "host": "queries DNS servers",
    "whois": "queries whois servers",
    "nmap": "scans other machines",
    "http": "sends HTTP requests (HTTPie)",
    "https": "sends HTTP requests (HTTPie)",
    "xh": "sends HTTP requests",
    "gh": "calls the GitHub API",
    "glab": "calls the GitLab API",
    "hub": "calls the GitHub API",
    "svn": "talks to a Subversion server (checkout, update, log of a URL)",
    "hg": "talks to Mercurial servers (pull, push, clone, incoming)",
}
"""Never admitted, not even under a caller's --allow-bash-prefix: each contacts another machine
(a read of the reviewed tree needs none, and a request can carry what it read away). Matched
like `NEVER_COMMANDS`; git's network subcommands are in git.py (`GIT_NETWORK_SUBCOMMANDS`)."""


# ---------------------------------------------------------------------------------------------
# Forbidden arguments
# ---------------------------------------------------------------------------------------------

FORBIDDEN_ARGUMENTS: dict[str, dict[str, str]] = {
    "find": {
        "-exec": "runs a program for every match",
        "-execdir": "runs a program for every match",
        "-ok": "runs a program for every match",
        "-okdir": "runs a program for every match",
        "-delete": "deletes the matching files",
        "-fprint": "writes the matches to a file",
        "-fprint0": "writes the matches to a file",
        "-fprintf": "writes the matches to a file",
        "-fls": "writes the matches to a file",
    },
    "rg": {
        "--pre": "runs a program on every searched file",
        "--pre-glob": "selects files for --pre, which runs a program",
        "--hostname-bin": "runs a program to find the host name",
        "--search-zip": "runs decompression programs on compressed files",
        "-z": "runs decompression programs on compressed files (--search-zip)",
    },
    "sort": {
        "--output": "writes the result to a file",
        "-o": "writes the result to a file (--output)",
        "--temporary-directory": "writes spill files into the given directory",
        "-T": "writes spill files into the given directory (--temporary-directory)",
        "--compress-program": "runs the given program to compress spill files",
    },
    "tree": {
        "-o": "writes the listing to a file",
        "--output": "writes the listing to a file",
        "-R": "reruns tree in every directory with -o 00Tree.html, writing files",
    },
    "file": {
        "--compile": "writes a compiled magic file (.mgc)",
        "-C": "writes a compiled magic file (.mgc) (--compile)",
        "--uncompress": "runs decompression programs",
        "-z": "runs decompression programs (--uncompress)",
        "--uncompress-noreport": "runs decompression programs",
        "-Z": "runs decompression programs (--uncompress-noreport)",
    },
    "diff": {
        "--paginate": "runs the `pr` program on the output",
        "-l": "runs the `pr` program on the output (--paginate)",
        "--output": "some diff implementations write their result to this file",
    },
}
"""command -> forbidden argument -> why. How an entry matches, by its spelling:
`--name` matches `--name`, `--name=VALUE` and every abbreviation `--na`, `--nam` (GNU getopt and
git accept unambiguous abbreviations); `-x` (one letter) matches any single-dash word whose
letters include x (short options cluster: `-nro FILE` is `-o FILE`); `-name` (longer, find-style)
matches that exact word. Options are looked for in every word, also after `--`: that can refuse a
harmless operand (`rg -- --pre`), never admit an option."""


_SED_FORM = "only `sed -n Np [FILE...]` or `sed -n M,Np [FILE...]` (print lines) is admitted"

UNIQ_VALUE_OPTIONS = frozenset({"-f", "-s", "-w"})
"""uniq's short options that take a value (the next word when not attached): their value is
not an operand when counting operands."""


# ---------------------------------------------------------------------------------------------
# Applying the tables
# ---------------------------------------------------------------------------------------------


def program_key(name: str) -> str:
    """The name rules are looked up by: the last path component, lower-cased (`/usr/bin/Find`
    runs find on a case-insensitive file system)."""
    return name.rsplit("/", 1)[-1].lower()


_NEVER_BY_KEY = {name.lower(): reason for name, reason in NEVER_COMMANDS.items()}
_NETWORK_BY_KEY = {name.lower(): reason for name, reason in NETWORK_COMMANDS.items()}


def never_reason(name: str) -> str | None:
    """Why the program `name` is never admitted (it runs other programs), or None."""
    base = program_key(name)
    reason = _NEVER_BY_KEY.get(base)
    if reason is None and base.startswith(("python", "pypy", "node", "perl", "ruby", "php", "lua")):
        tail = base.lstrip("abcdefghijklmnopqrstuvwxyz")
        if tail and all(c in "0123456789." for c in tail):
            reason = _INTERPRETER
    return reason


def network_reason(name: str) -> str | None:
    """Why the program `name` is never admitted (it contacts another machine), or None."""
    return _NETWORK_BY_KEY.get(program_key(name))


def forbidden_entry(argument: str, table: dict[str, str]) -> tuple[str, str] | None:
    """The entry of `table` that `argument` spells (see `FORBIDDEN_ARGUMENTS`), if any."""
    if argument.startswith("--"):
        name = argument[2:].split("=", 1)[0]
        if not name:
            return None
        for key, reason in table.items():
            if key.startswith("--") and key[2:].startswith(name):
                return key, reason
        return None
    if argument.startswith("-") and len(argument) > 1:
        exact = table.get(argument)
        if exact is not None:
            return argument, exact
        letters = argument[1:]
        for key, reason in table.items():
            if len(key) == 2 and key[0] == "-" and key[1] in letters:
                return key, reason
    return None


def check_table(program: str, arguments: list[Word], table: dict[str, str]) -> ShellVerdict:
    for word in arguments:
        hit = forbidden_entry(word.text, table)
        if hit is not None:
            key, reason = hit
            spelled = "" if word.text == key else f" (as {display_text(word.text)})"
            return refuse("argument", f"{program} `{key}`{spelled} refused: it {reason}")
    return ShellVerdict(True)


def _is_line_address(text: str) -> bool:
    return text == "$" or (text.isdigit() and text.isascii())


def check_sed(arguments: list[Word]) -> ShellVerdict:
    if len(arguments) < 2 or arguments[0].text != "-n":
        return refuse("argument", f"sed refused: {_SED_FORM}; -i edits files, w writes, e runs")
    script = arguments[1]
    addresses = script.text[:-1].split(",") if script.text.endswith("p") else []
    if script.glob or not 1 <= len(addresses) <= 2 or not all(map(_is_line_address, addresses)):
        return refuse(
            "argument",
            f"sed script {display_text(script.text)} refused: {_SED_FORM}; other scripts can write "
            "(w) or run (e) something",
        )
    for word in arguments[2:]:
        if word.text.startswith("-"):
            return refuse(
                "argument",
                f"sed {display_text(word.text)} refused: {_SED_FORM}; an option after the script "
                "still counts (-i edits in place)",
            )
    return ShellVerdict(True)


def check_uniq(arguments: list[Word]) -> ShellVerdict:
    """`uniq [OPTION]... [INPUT [OUTPUT]]` writes OUTPUT: admit at most one operand, and no
    glob, which could expand to two."""
    operands: list[Word] = []
    index = 0
    options_done = False
    while index < len(arguments):
        word = arguments[index]
        text = word.text
        index += 1
        if word.glob:
            return refuse(
                "argument",
                f"uniq {display_text(text)} refused: a pattern can expand to two names, and "
                "uniq writes its second operand",
            )
        if options_done or text == "-" or not text.startswith("-"):
            operands.append(word)
        elif text == "--":
            options_done = True
        elif text in UNIQ_VALUE_OPTIONS:
            index += 1  # the value: a count, not an operand
    if len(operands) > 1:
        return refuse(
            "argument",
            f"uniq {display_text(operands[1].text)} refused: uniq writes its output into a "
            "second operand; give it one input at most",
        )
    return ShellVerdict(True)
