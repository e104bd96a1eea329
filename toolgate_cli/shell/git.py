"""git: the subcommands and options a read shell admits, the ones that run programs, write or
contact a remote, and the checks that apply them. Where git may run at all (not in a nested or
embedded repository) is decided in place.py.
"""

from __future__ import annotations

from toolgate_cli.shell.programs import check_table, forbidden_entry
from toolgate_cli.shell.verdict import ShellVerdict, display_text, refuse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolgate_cli.shell.words import Word

GIT_GLOBAL_OPTIONS_ALLOWED: dict[str, str] = {
    "--no-pager": "never start a pager",
    "-P": "never start a pager (--no-pager)",
    "--no-optional-locks": "skip the optional index refresh, so git status writes nothing",
    "--literal-pathspecs": "treat pathspecs literally",
    "--glob-pathspecs": "treat pathspecs as globs",
    "--noglob-pathspecs": "treat pathspecs literally",
    "--icase-pathspecs": "match pathspecs case-insensitively",
    "--no-replace-objects": "ignore replacement refs",
    "--no-lazy-fetch": "never fetch missing objects from a promisor remote (git 2.44 and later)",
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
    "archive": {
        "-o": "writes the archive to a file (--output)",
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

GIT_BRANCH_SHORT_CLUSTER = frozenset("arv")

GIT_NETWORK_SUBCOMMANDS: dict[str, str] = {
    "fetch": "downloads objects and refs from a remote",
    "pull": "fetches from a remote, then merges into the work tree",
    "push": "uploads objects and refs to a remote",
    "clone": "copies a remote repository",
    "ls-remote": "lists the refs of a remote, which it contacts",
    "fetch-pack": "downloads objects from a remote",
    "send-pack": "uploads objects to a remote",
    "request-pull": "asks the upstream whether it has the commits (ls-remote)",
    "lfs": "git-lfs downloads and uploads large files (its subcommands are not told apart here)",
    "svn": "talks to a Subversion server",
    "p4": "talks to a Perforce server",
    "cvsimport": "talks to a CVS server",
    "http-fetch": "downloads from a remote over HTTP",
    "http-push": "uploads to a remote over HTTP",
    "imap-send": "uploads patches to an IMAP server",
    "send-email": "sends patches by mail",
    "daemon": "serves repositories to the network",
    "instaweb": "starts a web server for the repository",
    "maintenance": "its prefetch task fetches from every remote (and it rewrites the repository)",
}
"""git subcommands that contact another machine, with why: never admitted, not even under a
caller's --allow-bash-prefix. `GIT_NETWORK_FORMS` lists the subcommands that contact one only in
some forms, `GIT_NETWORK_ARGUMENTS` the options that make a local subcommand contact one."""

GIT_NETWORK_ARGUMENTS: dict[str, dict[str, str]] = {
    "archive": {"--remote": "fetches the archive from a remote repository"},
}
"""git subcommand -> option that contacts another machine -> why, matched like
`GIT_FORBIDDEN_ARGUMENTS` (abbreviations included)."""

GIT_NETWORK_FORMS: dict[str, dict[str, str]] = {
    "remote": {
        "update": "fetches from the remotes",
        "prune": "asks each remote which branches it still has",
        "show": "asks the remote for its branches (`git remote show -n` does not)",
        "set-head": "asks the remote for its default branch with -a/--auto",
    },
    "submodule": {
        "update": "clones or fetches the submodules",
        "add": "clones a repository",
    },
}
"""git SUBCOMMAND ACTION forms that contact another machine (the action is the first word after
the subcommand that is not an option). `remote show -n` and `remote set-head` without
-a/--auto stay local and are not refused."""


def git_global_refusal(option: str) -> str:
    """Why the git global option `option` (as spelled, value attached or not) is refused."""
    name = option.split("=", 1)[0]
    if name[:2] in ("-c", "-C"):
        name = name[:2]  # -ccore.pager=x, -C/path: the value attached to the short option
    return GIT_GLOBAL_OPTIONS_REFUSED.get(name, "not one of the read-only global options")


def git_normal_form(words: list[Word]) -> list[Word] | ShellVerdict:
    """`git [allowed global options] SUBCOMMAND ARGS` with the global options dropped, or the
    refusal of the first global option that is not read-only."""
    index = 1
    while index < len(words) and words[index].text.startswith("-"):
        option = words[index].text
        if option not in GIT_GLOBAL_OPTIONS_ALLOWED:
            why = git_global_refusal(option)
            allowed = ", ".join(GIT_GLOBAL_OPTIONS_ALLOWED)
            return refuse(
                "argument",
                f"git global option {display_text(option)} refused: {why} (allowed before the "
                f"subcommand: {allowed})",
            )
        index += 1
    return [words[0], *words[index:]]


def _is_branch_listing_argument(text: str, listing: bool) -> bool:
    if text.startswith("--"):
        name, equals, _ = text.partition("=")
        return (name + equals) in GIT_BRANCH_LISTING_OPTIONS
    if text.startswith("-") and len(text) > 1:
        return text in GIT_BRANCH_LISTING_OPTIONS or set(text[1:]) <= GIT_BRANCH_SHORT_CLUSTER
    return listing and not text.startswith("-")  # a pattern under --list


def _check_git_branch(arguments: list[Word]) -> ShellVerdict:
    listing = any(word.text == "--list" for word in arguments)
    for word in arguments:
        if _is_branch_listing_argument(word.text, listing):
            continue
        what = "a non-listing option" if word.text.startswith("-") else "a branch name"
        return refuse(
            "argument",
            f"git branch {display_text(word.text)} refused: {what} can create, delete, rename or "
            "re-point a branch; only listing is admitted (patterns need --list)",
        )
    return ShellVerdict(True)


def check_git(words: list[Word]) -> ShellVerdict:
    subcommand = words[1].text
    arguments = words[2:]
    for word in arguments:
        for text, reason in GIT_FORBIDDEN_TEXT.items():
            if text in word.text:
                return refuse(
                    "argument", f"git {subcommand} {display_text(word.text)} refused: {reason}"
                )
    verdict = check_table(f"git {subcommand}", arguments, GIT_FORBIDDEN_ARGUMENTS["*"])
    if verdict.ok and subcommand in GIT_FORBIDDEN_ARGUMENTS:
        verdict = check_table(f"git {subcommand}", arguments, GIT_FORBIDDEN_ARGUMENTS[subcommand])
    if verdict.ok and subcommand == "branch":
        verdict = _check_git_branch(arguments)
    return verdict


def without_git_global_options(words: list[str]) -> list[str]:
    """`git` prefix words without the read-only global options, which commands may also omit."""
    index = 1
    while index < len(words) and words[index] in GIT_GLOBAL_OPTIONS_ALLOWED:
        index += 1
    return [words[0], *words[index:]]


def git_network_reason(subcommand: str, arguments: list[str]) -> str | None:
    """Why `git SUBCOMMAND ARGUMENTS` contacts another machine, or None."""
    # git's own lookup is case-sensitive, but an external `git-Fetch` would be found as
    # `git-fetch` on a case-insensitive file system.
    subcommand = subcommand.lower()
    reason = GIT_NETWORK_SUBCOMMANDS.get(subcommand)
    if reason is not None:
        return f"git {subcommand} {reason}"
    for argument in arguments:
        hit = forbidden_entry(argument, GIT_NETWORK_ARGUMENTS.get(subcommand, {}))
        if hit is not None:
            return f"git {subcommand} `{hit[0]}` {hit[1]}"
    forms = GIT_NETWORK_FORMS.get(subcommand)
    if forms is None:
        return None
    action = next((word for word in arguments if not word.startswith("-")), None)
    if action is None or action not in forms:
        return None
    if action == "show" and any(word == "-n" for word in arguments):
        return None
    if action == "set-head" and not any(word in ("-a", "--auto") for word in arguments):
        return None
    return f"git {subcommand} {action} {forms[action]}"
