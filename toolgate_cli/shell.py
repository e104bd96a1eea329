"""The read-only shell checker: is one Bash command provably read-only?

`check_read_only_command(command, extra_prefixes)` admits a command only when all of these hold,
checked in this order (the first failure is the verdict):

1. The text is bounded and carries no control, format (bidi, zero-width) or non-space blank
   character: those change what runs or what a person sees without being visible.
2. It is a single literal invocation under bash *and* zsh: no operator that chains, pipes,
   redirects, backgrounds or opens a subshell (`; & | < > ( )`), no expansion that runs or reads
   anything this check cannot see (`$` in any form, backticks, `{}` braces, history `!`), no
   comment, and no glob that could expand into an option (see `_GLOB_CHARACTERS`).
3. Its words, split the way bash splits them (quotes and backslashes removed, so `'-delete'`,
   `"-delete"` and `-de\\lete` are all `-delete`), do not start with a variable assignment and do
   not name a program that runs other programs (`NEVER_COMMANDS`).
4. The leading words equal an allowed prefix on whole words (`READ_BASH_PREFIXES` plus the
   caller's `extra_prefixes`; `git log` never admits `git logx`). For git, the read-only global
   options in `GIT_GLOBAL_OPTIONS_ALLOWED` may come before the subcommand; every other global
   option is refused (`GIT_GLOBAL_OPTIONS_REFUSED`).
5. No argument makes the command write or run something: `FORBIDDEN_ARGUMENTS`,
   `GIT_FORBIDDEN_ARGUMENTS` and the allowlist forms of `sed` and `git branch`. Caller prefixes get
   the same checks as the defaults.

Everything is decided from the text alone; nothing runs. The module is on the Claude hook's hot
path: it imports nothing at runtime beyond the standard library's `unicodedata` (and only for
non-ASCII text).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

MAX_COMMAND_CHARS = 16_384
"""Longer commands are refused: a read is short, and the check must stay cheap on every call."""


class ShellVerdict:
    """The checker's answer. `ok` is True for an admitted command; otherwise `code` is a stable
    identifier from `REFUSAL_CODES` and `message` one line naming what was refused and why."""

    __slots__ = ("code", "message", "ok", "words")

    def __init__(
        self, ok: bool, code: str = "ok", message: str = "", words: list[str] | None = None
    ) -> None:
        self.ok = ok
        self.code = code
        self.message = message
        self.words = words

    def __bool__(self) -> bool:
        return self.ok

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ShellVerdict):
            return NotImplemented
        return (self.ok, self.code, self.message) == (other.ok, other.code, other.message)

    __hash__ = None  # type: ignore[assignment]  # mutable value object

    def __repr__(self) -> str:
        if self.ok:
            return "ShellVerdict(ok=True)"
        return f"ShellVerdict(ok=False, code={self.code!r}, message={self.message!r})"

    def to_json(self) -> dict[str, object]:
        """The stable JSON shape `toolgate check-command --json` prints."""
        return {
            "allowed": self.ok,
            "code": self.code,
            "message": self.message,
            "words": self.words,
        }


REFUSAL_CODES: dict[str, str] = {
    "ok": "admitted: a single read-only invocation",
    "empty": "the command is empty",
    "too-long": f"the command is longer than {MAX_COMMAND_CHARS} characters",
    "invisible-character": "a control, format (bidi, zero-width) or non-space blank character",
    "unterminated-quote": "a quote is not closed, or the text ends in a backslash",
    "multibyte-escape": "a backslash right after a non-ASCII character (legacy multibyte "
    "locales such as GBK, Big5 or Shift_JIS read the backslash as part of that character)",
    "operator": "an operator that chains, pipes, redirects, backgrounds or opens a subshell",
    "expansion": "`$` or backtick expansion: substitution, variables, arithmetic, $'' quoting",
    "brace": "`{` or `}`: brace expansion or a command group",
    "history": "`!` outside single quotes (history expansion in interactive shells)",
    "comment": "an unquoted `#` starting a word (a comment hides text from the reader)",
    "glob": "a glob that could expand to a file name starting with `-` (an option)",
    "assignment": "a leading VAR=value assignment (changes the environment of the program)",
    "wrapper": "a program that runs other programs (or shell code) from its arguments",
    "not-allowed": "the leading words match no allowed read-only prefix",
    "argument": "an argument that makes an allowed command write or run something",
}
"""Every `ShellVerdict.code`, with what it means. Stable: scripts may branch on these."""


# ---------------------------------------------------------------------------------------------
# The allowed prefixes
# ---------------------------------------------------------------------------------------------

READ_BASH_PREFIXES: dict[str, str] = {
    "pwd": "prints the working directory",
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
_SHELL = "a shell runs any command given to it (-c, a script, or stdin)"
_PAGER = "a pager can run shell commands (!cmd) and input preprocessors (LESSOPEN)"
_EDITOR = "an editor writes files and can run shell commands"
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
    "man": _PAGER + " (man runs a pager)",
    "vi": _EDITOR,
    "vim": _EDITOR,
    "nvim": _EDITOR,
    "emacs": _EDITOR,
    "nano": _EDITOR,
    "ed": _EDITOR,
    "ex": _EDITOR,
    "noglob": _runs("(a zsh precommand modifier)"),
    "nocorrect": _runs("(a zsh precommand modifier)"),
    "sudoedit": _EDITOR + " as another user",
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

GIT_GLOBAL_OPTIONS_ALLOWED: dict[str, str] = {
    "--no-pager": "never start a pager",
    "-P": "never start a pager (--no-pager)",
    "--no-optional-locks": "skip the optional index refresh, so git status writes nothing",
    "--literal-pathspecs": "treat pathspecs literally",
    "--glob-pathspecs": "treat pathspecs as globs",
    "--noglob-pathspecs": "treat pathspecs literally",
    "--icase-pathspecs": "match pathspecs case-insensitively",
    "--no-replace-objects": "ignore replacement refs",
}
"""git options that may come before the subcommand: they only change how git reads."""

GIT_GLOBAL_OPTIONS_REFUSED: dict[str, str] = {
    "-c": "sets configuration for this run: core.pager, core.fsmonitor, diff.external, "
    "alias.* and friends name programs to run",
    "--config-env": "sets configuration for this run from the environment (core.pager, "
    "core.fsmonitor, diff.external name programs to run)",
    "-C": "runs in another directory, whose repository config (say an embedded bare "
    "repository) can name programs to run",
    "--git-dir": "uses another repository, whose config can name programs to run",
    "--work-tree": "uses another work tree with this repository",
    "--bare": "treats the directory as a bare repository, whose config can name programs to run",
    "--exec-path": "runs git subcommands from another directory",
    "-p": "starts a pager, which runs a program",
    "--paginate": "starts a pager, which runs a program",
    "--namespace": "reads refs from another namespace",
    "--super-prefix": "internal option",
    "--help": "runs man, info or a web browser",
    "-h": "prints help (use `git SUBCOMMAND -h`)",
    "--html-path": "prints a path; not a read of the repository",
    "--man-path": "prints a path; not a read of the repository",
    "--info-path": "prints a path; not a read of the repository",
    "--version": "prints the version; not a read of the repository",
}
"""Known git global options that are refused, with why; any other global option is refused too."""

_GIT_RUNS_OR_WRITES: dict[str, str] = {
    "--output": "writes the output to a file",
    "--ext-diff": "runs the external diff program",
    "--textconv": "runs the textconv filter program",
    "--exec": "runs a program",
    "--paginate": "starts a pager, which runs a program",
    "--help": "runs man, info or a web browser",
    "--show-signature": "runs gpg.program to verify signatures (it writes to ~/.gnupg)",
    "--upload-pack": "runs the given program",
    "--receive-pack": "runs the given program",
}

GIT_FORBIDDEN_ARGUMENTS: dict[str, dict[str, str]] = {
    "*": _GIT_RUNS_OR_WRITES,
    "grep": {
        "--open-files-in-pager": "runs a pager program on the matching files",
        "-O": "runs a pager program on the matching files (--open-files-in-pager)",
    },
    "cat-file": {
        "--filters": "runs the configured filter programs",
    },
}
"""git subcommand -> forbidden argument -> why, matched like `FORBIDDEN_ARGUMENTS`. The `*` entry
applies to every subcommand, including the ones a caller adds with --allow-bash-prefix."""

GIT_FORBIDDEN_TEXT: dict[str, str] = {
    "%G": "a %G... format placeholder runs gpg.program to verify a signature",
    "%(signature": "a %(signature) format atom runs gpg.program to verify a signature",
}
"""Text that no git argument may contain, anywhere in the word (formats are option values)."""

GIT_BRANCH_LISTING_OPTIONS: dict[str, str] = {
    "--list": "list mode: every positional argument is a pattern",
    "--show-current": "print the current branch",
    "-a": "list local and remote-tracking branches",
    "--all": "list local and remote-tracking branches",
    "-r": "list remote-tracking branches",
    "--remotes": "list remote-tracking branches",
    "-v": "show hash and subject",
    "-vv": "show hash, subject and upstream",
    "--verbose": "show hash and subject",
    "--color": "colour the list",
    "--no-color": "do not colour the list",
    "--no-column": "one branch per line",
    "--contains": "filter the list",
    "--no-contains": "filter the list",
    "--merged": "filter the list",
    "--no-merged": "filter the list",
    "--ignore-case": "filter and sort case-insensitively",
    "--format=": "format the list (value attached)",
    "--sort=": "sort the list (value attached)",
    "--color=": "colour the list (value attached)",
    "--column=": "lay the list out in columns (value attached)",
    "--abbrev=": "abbreviate hashes (value attached)",
    "--contains=": "filter the list (value attached)",
    "--no-contains=": "filter the list (value attached)",
    "--merged=": "filter the list (value attached)",
    "--no-merged=": "filter the list (value attached)",
    "--points-at=": "filter the list (value attached)",
}
"""The only arguments `git branch` accepts here (an entry ending in `=` is a prefix). Anything
else can create, delete, rename, copy, re-point or edit a branch (-d -D -m -M -c -C -f -u
--set-upstream-to --unset-upstream --edit-description --track, or a bare branch name). Positional
arguments are patterns only under an explicit `--list` (`-l` meant --create-reflog before git
2.20, so it is not accepted)."""

_GIT_BRANCH_SHORT_CLUSTER = frozenset("arv")

_SED_FORM = "only `sed -n Np [FILE...]` or `sed -n M,Np [FILE...]` (print lines) is admitted"


# ---------------------------------------------------------------------------------------------
# Lexing
# ---------------------------------------------------------------------------------------------

_OPERATORS: dict[str, str] = {
    ";": "it chains another command",
    "&": "it backgrounds the command or chains another (&&)",
    "|": "it pipes into, or chains, another command",
    "<": "it redirects input (or substitutes a process, <(...))",
    ">": "it redirects output into a file (or substitutes a process, >(...))",
    "(": "it opens a subshell or a process/extended-glob group",
    ")": "it closes a subshell or a group",
}

_GLOB_CHARACTERS = frozenset("*?[^#~")
"""Characters that make a word a pattern in bash or zsh: `* ? [` everywhere, and `^ # ~` under
zsh's EXTENDED_GLOB. A pattern expands to file names, which are read-only, but a name can be
`-delete` or `--pre=sh`: so a word with an unquoted pattern character must begin with a literal
character that no option starts with (see `_GLOB_SAFE_FIRST`). `#` and `~` at the start of a word
are a comment and a tilde expansion instead, handled on their own."""

_GLOB_SAFE_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/~")
"""First characters that let a word hold a pattern: no option of any tool here starts with one
(`+` does for tail and sort, `-` for everything). `~` is a tilde expansion to a path."""

_NAME_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
_NAME_REST = _NAME_START | frozenset("0123456789")

_PREFIX_WORD_CHARACTERS = _NAME_REST | frozenset("./:@%+,=-")

_BIDI_AND_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs"})


class _Word:
    __slots__ = ("glob", "text")

    def __init__(self, text: str, glob: bool) -> None:
        self.text = text
        self.glob = glob


def display_text(text: str, limit: int = 60) -> str:
    """`text` in backticks for a one-line message: control and invisible characters escaped (so
    a message can neither break a line nor display reordered), length capped at `limit`."""
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    out = []
    for char in text:
        code = ord(char)
        if 32 <= code < 127:
            out.append(char)
        elif code < 128 or _invisible(char):
            out.append(f"\\x{code:02x}" if code < 256 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "`" + "".join(out) + "`"


def _invisible(char: str) -> bool:
    if char.isascii():
        return not (32 <= ord(char) < 127)
    # Imported here: only non-ASCII text needs it, and the hook pays for every import.
    import unicodedata

    return char != " " and unicodedata.category(char) in _BIDI_AND_INVISIBLE_CATEGORIES


def _refuse(code: str, message: str) -> ShellVerdict:
    return ShellVerdict(False, code, message)


def _refuse_multibyte_escape() -> ShellVerdict:
    # UTF-8 text run by a shell in a GBK, Big5 or Shift_JIS locale: the last byte of a non-ASCII
    # character can pair with the 0x5C that follows, so the shell sees no backslash and the
    # character this check thinks is escaped (`;`, a quote) is live there.
    return _refuse(
        "multibyte-escape",
        "backslash after a non-ASCII character refused: in GBK, Big5 or Shift_JIS locales the "
        "shell reads it as part of that character; quote with '' instead",
    )


def _lex(command: str) -> list[_Word] | ShellVerdict:
    """Split `command` into words like bash (and zsh), or refuse the first unsafe construct."""
    words: list[_Word] = []
    text: list[str] = []
    started = False  # a word is in progress (quotes can start an empty one)
    glob = False
    i = 0
    n = len(command)
    while i < n:
        char = command[i]
        if char == " ":
            if started:
                words.append(_Word("".join(text), glob))
                text, started, glob = [], False, False
            i += 1
            continue
        if char == "'":
            end = command.find("'", i + 1)
            if end < 0:
                return _refuse("unterminated-quote", "unterminated single quote: cannot parse")
            text.append(command[i + 1 : end])
            started = True
            i = end + 1
            continue
        if char == '"':
            i += 1
            started = True
            while True:
                if i >= n:
                    return _refuse("unterminated-quote", "unterminated double quote: cannot parse")
                inner = command[i]
                if inner == '"':
                    i += 1
                    break
                if inner == "\\" and i > 0 and not command[i - 1].isascii():
                    return _refuse_multibyte_escape()
                if inner == "\\" and i + 1 < n and command[i + 1] in '$`"\\':
                    text.append(command[i + 1])
                    i += 2
                    continue
                if inner == "$":
                    return _refuse(
                        "expansion",
                        "`$` refused: variable, command or arithmetic expansion (even inside "
                        "double quotes) cannot be checked before it runs",
                    )
                if inner == "`":
                    return _refuse(
                        "expansion", "backtick refused: command substitution runs another command"
                    )
                if inner == "!":
                    return _refuse(
                        "history",
                        "`!` inside double quotes refused: history expansion can rewrite the "
                        "command; use single quotes",
                    )
                text.append(inner)
                i += 1
            continue
        if char == "\\":
            if i > 0 and not command[i - 1].isascii():
                return _refuse_multibyte_escape()
            if i + 1 >= n:
                return _refuse(
                    "unterminated-quote", "trailing backslash refused: it continues the line"
                )
            text.append(command[i + 1])
            started = True
            i += 2
            continue
        reason = _OPERATORS.get(char)
        if reason is not None:
            return _refuse(
                "operator", f"`{char}` refused: {reason}; only one plain command is allowed"
            )
        if char == "$":
            return _refuse(
                "expansion",
                "`$` refused: variable, command or arithmetic expansion and $'' quoting cannot "
                "be checked before it runs",
            )
        if char == "`":
            return _refuse(
                "expansion", "backtick refused: command substitution runs another command"
            )
        if char in "{}":
            return _refuse(
                "brace",
                f"`{char}` refused: brace expansion can build any word (even an option) and "
                "`{ ...; }` groups commands; quote it",
            )
        if char == "!":
            alone = not started and (i + 1 == n or command[i + 1] == " ")
            if not alone:
                return _refuse(
                    "history",
                    "`!` refused: history expansion can rewrite the command; quote it with '' "
                    "or use it as a word of its own",
                )
        elif char == "#" and not started:
            return _refuse("comment", "`#` refused: a comment hides text from the reader; quote it")
        elif char == "~" and not started:
            pass  # tilde expansion: a home or working directory path, never an option
        elif char in _GLOB_CHARACTERS:
            # The first character is fixed once the word holds one, so check only once.
            if not glob and "".join(text)[:1] not in _GLOB_SAFE_FIRST:
                return _refuse(
                    "glob",
                    f"unquoted `{char}` refused: a pattern at the start of a word can expand to "
                    "a file named like an option (`-delete`, `--pre=...`); quote it or begin "
                    "the word with a directory such as ./",
                )
            glob = True
        text.append(char)
        started = True
        i += 1
    if started:
        words.append(_Word("".join(text), glob))
    return words


def _precheck(command: object) -> ShellVerdict | None:
    if not isinstance(command, str):
        return _refuse("empty", "the command is not text")
    if len(command) > MAX_COMMAND_CHARS:
        return _refuse("too-long", f"the command is longer than {MAX_COMMAND_CHARS} characters")
    if command.strip(" ") == "":
        return _refuse("empty", "the command is empty")
    if command.isascii() and command.isprintable():
        return None
    for char in command:
        code = ord(char)
        if _invisible(char):
            name = {10: "newline", 13: "carriage return", 9: "tab"}.get(code)
            what = name or f"character U+{code:04X}"
            return _refuse(
                "invisible-character",
                f"{what} refused: control, format (bidi, zero-width) and non-space blank "
                "characters can run a second command or hide what runs",
            )
    return None


def has_unsafe_shell_syntax(command: str) -> str | None:
    """Why `command` is not a single literal invocation (one line), or None if it is one."""
    verdict = _precheck(command)
    if verdict is None:
        lexed = _lex(command)
        if isinstance(lexed, ShellVerdict):
            verdict = lexed
    return verdict.message if verdict is not None else None


def shell_words(cmd: str) -> list[str]:
    """Split a single literal invocation into words, quotes and backslashes removed the way bash
    removes them (`'-delete'`, `"-delete"` and `-de\\lete` all give `-delete`).

    Raises ValueError (with the refusal message) if `cmd` has unsafe syntax: words of a command
    that chains, substitutes or expands would not be the words that run.
    """
    verdict = _precheck(cmd)
    if verdict is not None:
        raise ValueError(verdict.message)
    lexed = _lex(cmd)
    if isinstance(lexed, ShellVerdict):
        raise ValueError(lexed.message)
    return [word.text for word in lexed]


# ---------------------------------------------------------------------------------------------
# Prefixes
# ---------------------------------------------------------------------------------------------


def _program_key(name: str) -> str:
    """The name rules are looked up by: the last path component, lower-cased (`/usr/bin/Find`
    runs find on a case-insensitive file system)."""
    return name.rsplit("/", 1)[-1].lower()


_NEVER_BY_KEY = {name.lower(): reason for name, reason in NEVER_COMMANDS.items()}


def _never_reason(name: str) -> str | None:
    base = _program_key(name)
    reason = _NEVER_BY_KEY.get(base)
    if reason is None and base.startswith(("python", "pypy", "node", "perl", "ruby", "php", "lua")):
        tail = base.lstrip("abcdefghijklmnopqrstuvwxyz")
        if tail and all(c in "0123456789." for c in tail):
            reason = _INTERPRETER
    return reason


def prefix_problem(prefix: str) -> str | None:
    """Why `prefix` cannot be an allowed prefix (one line), or None if it can.

    A prefix is one or more plain words separated by spaces (letters, digits and `._/:@%+,=-`):
    no quoting, globbing or operators, so it means the same words to every reader. It must not
    name a program in `NEVER_COMMANDS`, and `git` must be followed by a subcommand.
    """
    if not isinstance(prefix, str):
        return "a prefix must be text"
    words = prefix.split(" ")
    if not prefix.strip() or any(word == "" for word in words):
        return f"{display_text(prefix)}: a prefix is one or more words separated by single spaces"
    for word in words:
        bad = next((char for char in word if char not in _PREFIX_WORD_CHARACTERS), None)
        if bad is not None:
            return (
                f"{display_text(prefix)}: {display_text(bad)} is not allowed in a prefix "
                "(only letters, digits and ._/:@%+,=- in plain words)"
            )
    never = _never_reason(words[0])
    if never is not None:
        return f"{display_text(prefix)}: `{words[0]}` is never admitted: it {never}"
    program = _program_key(words[0])
    if program == "git":
        words = _without_git_global_options(words)
        if len(words) > 1 and words[1].startswith("-"):
            option = display_text(words[1])
            why = _git_global_refusal(words[1])
            return f"{display_text(prefix)}: git global option {option} is refused ({why})"
    if program in SUBCOMMAND_PROGRAMS and len(words) < 2:
        return f"{display_text(prefix)}: {SUBCOMMAND_PROGRAMS[program]}; name the subcommand"
    return None


def _without_git_global_options(words: list[str]) -> list[str]:
    """`git` prefix words without the read-only global options, which commands may also omit."""
    index = 1
    while index < len(words) and words[index] in GIT_GLOBAL_OPTIONS_ALLOWED:
        index += 1
    return [words[0], *words[index:]]


def _parse_prefixes(prefixes: Sequence[str]) -> list[tuple[str, ...]]:
    if isinstance(prefixes, str):  # one prefix passed bare: never iterate its characters
        prefixes = [prefixes]
    parsed = []
    for prefix in prefixes:
        if prefix_problem(prefix) is None:
            words = prefix.split(" ")
            if _program_key(words[0]) == "git":
                words = _without_git_global_options(words)
            parsed.append(tuple(words))
    return parsed


_DEFAULT_PREFIXES: list[tuple[str, ...]] = _parse_prefixes(list(READ_BASH_PREFIXES))
_ALLOWED_SUMMARY = (
    ", ".join(p for p in READ_BASH_PREFIXES if not p.startswith("git "))
    + ", git "
    + "/".join(p[4:] for p in READ_BASH_PREFIXES if p.startswith("git "))
)


def _git_global_refusal(option: str) -> str:
    """Why the git global option `option` (as spelled, value attached or not) is refused."""
    name = option.split("=", 1)[0]
    if name[:2] in ("-c", "-C"):
        name = name[:2]  # -ccore.pager=x, -C/path: the value attached to the short option
    return GIT_GLOBAL_OPTIONS_REFUSED.get(name, "not one of the read-only global options")


def _git_normal_form(words: list[_Word]) -> list[_Word] | ShellVerdict:
    """`git [allowed global options] SUBCOMMAND ARGS` with the global options dropped, or the
    refusal of the first global option that is not read-only."""
    index = 1
    while index < len(words) and words[index].text.startswith("-"):
        option = words[index].text
        if option not in GIT_GLOBAL_OPTIONS_ALLOWED:
            why = _git_global_refusal(option)
            allowed = ", ".join(GIT_GLOBAL_OPTIONS_ALLOWED)
            return _refuse(
                "argument",
                f"git global option {display_text(option)} refused: {why} (allowed before the "
                f"subcommand: {allowed})",
            )
        index += 1
    return [words[0], *words[index:]]


# ---------------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------------


def _forbidden(argument: str, table: dict[str, str]) -> tuple[str, str] | None:
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


def _check_table(program: str, arguments: list[_Word], table: dict[str, str]) -> ShellVerdict:
    for word in arguments:
        hit = _forbidden(word.text, table)
        if hit is not None:
            key, reason = hit
            spelled = "" if word.text == key else f" (as {display_text(word.text)})"
            return _refuse("argument", f"{program} `{key}`{spelled} refused: it {reason}")
    return ShellVerdict(True)


def _is_line_address(text: str) -> bool:
    return text == "$" or (text.isdigit() and text.isascii())


def _check_sed(arguments: list[_Word]) -> ShellVerdict:
    if len(arguments) < 2 or arguments[0].text != "-n":
        return _refuse("argument", f"sed refused: {_SED_FORM}; -i edits files, w writes, e runs")
    script = arguments[1]
    addresses = script.text[:-1].split(",") if script.text.endswith("p") else []
    if script.glob or not 1 <= len(addresses) <= 2 or not all(map(_is_line_address, addresses)):
        return _refuse(
            "argument",
            f"sed script {display_text(script.text)} refused: {_SED_FORM}; other scripts can write "
            "(w) or run (e) something",
        )
    for word in arguments[2:]:
        if word.text.startswith("-"):
            return _refuse(
                "argument",
                f"sed {display_text(word.text)} refused: {_SED_FORM}; an option after the script "
                "still counts (-i edits in place)",
            )
    return ShellVerdict(True)


def _is_branch_listing_argument(text: str, listing: bool) -> bool:
    if text.startswith("--"):
        name, equals, _ = text.partition("=")
        return (name + equals) in GIT_BRANCH_LISTING_OPTIONS
    if text.startswith("-") and len(text) > 1:
        return text in GIT_BRANCH_LISTING_OPTIONS or set(text[1:]) <= _GIT_BRANCH_SHORT_CLUSTER
    return listing and not text.startswith("-")  # a pattern under --list


def _check_git_branch(arguments: list[_Word]) -> ShellVerdict:
    listing = any(word.text == "--list" for word in arguments)
    for word in arguments:
        if _is_branch_listing_argument(word.text, listing):
            continue
        what = "a non-listing option" if word.text.startswith("-") else "a branch name"
        return _refuse(
            "argument",
            f"git branch {display_text(word.text)} refused: {what} can create, delete, rename or "
            "re-point a branch; only listing is admitted (patterns need --list)",
        )
    return ShellVerdict(True)


def _check_git(words: list[_Word]) -> ShellVerdict:
    subcommand = words[1].text
    arguments = words[2:]
    for word in arguments:
        for text, reason in GIT_FORBIDDEN_TEXT.items():
            if text in word.text:
                return _refuse(
                    "argument", f"git {subcommand} {display_text(word.text)} refused: {reason}"
                )
    verdict = _check_table(f"git {subcommand}", arguments, GIT_FORBIDDEN_ARGUMENTS["*"])
    if verdict.ok and subcommand in GIT_FORBIDDEN_ARGUMENTS:
        verdict = _check_table(f"git {subcommand}", arguments, GIT_FORBIDDEN_ARGUMENTS[subcommand])
    if verdict.ok and subcommand == "branch":
        verdict = _check_git_branch(arguments)
    return verdict


# ---------------------------------------------------------------------------------------------
# The checker
# ---------------------------------------------------------------------------------------------


def _is_assignment(text: str) -> bool:
    name, equals, _ = text.partition("=")
    name = name.removesuffix("+")
    return bool(
        equals and name and name[0] in _NAME_START and all(char in _NAME_REST for char in name[1:])
    )


def check_read_only_command(command: str, extra_prefixes: Sequence[str] = ()) -> ShellVerdict:
    """Whether one Bash command is admitted in read access (see the module docstring).

    `extra_prefixes` are the caller's `--allow-bash-prefix` values; they get the same syntax and
    argument checks as the defaults. A prefix that `prefix_problem` rejects admits nothing (the
    command line layers reject it up front). Never raises on any `command` value.
    """
    verdict = _precheck(command)
    if verdict is not None:
        return verdict
    lexed = _lex(command)
    if isinstance(lexed, ShellVerdict):
        return lexed
    words = lexed
    texts = [word.text for word in words]
    if not words:
        return _refuse("empty", "the command is empty")
    program = words[0].text
    if _is_assignment(program):
        return _refuse(
            "assignment",
            f"{display_text(program)} refused: a leading assignment changes the environment the "
            "program runs with (PAGER=, GIT_*=, LD_PRELOAD=)",
        )
    never = _never_reason(program)
    if never is not None:
        return _refuse("wrapper", f"{display_text(program)} refused: it {never}")

    key = _program_key(program)
    normal = words
    if key == "git":
        git_form = _git_normal_form(words)
        if isinstance(git_form, ShellVerdict):
            return git_form
        normal = git_form
        if len(normal) < 2:
            return _refuse("not-allowed", "git without a subcommand refused: name one")
    normal_texts = [word.text for word in normal]

    prefixes = _DEFAULT_PREFIXES
    if extra_prefixes:
        prefixes = prefixes + _parse_prefixes(extra_prefixes)
    if not any(tuple(normal_texts[: len(prefix)]) == prefix for prefix in prefixes):
        lead = " ".join(normal_texts[:2]) if key == "git" else program
        return _refuse(
            "not-allowed",
            f"{display_text(lead)} refused: not a read-only command here "
            f"(allowed: {_ALLOWED_SUMMARY}; plus any --allow-bash-prefix)",
        )

    if key == "git":
        verdict = _check_git(normal)
    elif key == "sed":
        verdict = _check_sed(normal[1:])
    elif key in FORBIDDEN_ARGUMENTS:
        verdict = _check_table(key, normal[1:], FORBIDDEN_ARGUMENTS[key])
    else:
        verdict = ShellVerdict(True)
    if verdict.ok:
        verdict.words = texts
    return verdict
