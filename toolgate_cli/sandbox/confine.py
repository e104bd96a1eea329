"""`--confine`: what a confined lane can see, as an allow list. Pure.

The tree lock shows the lane the whole filesystem with the caller root read-only on top.
Confinement turns that around: bubblewrap starts from an empty root, and only what is listed
here is mounted into it:

- the caller root (and its git dirs), read-only: what the lane is asked to read;
- the system, read-only: `/usr` and the top-level links into it, the pieces of `/etc` a program
  needs to start, resolve names and speak TLS (`ETC`; never `shadow`, `ssh/`, `ssl/private`,
  `sudoers`, `npmrc`, `machine-id`, ...), a fresh `/dev`, a `/proc` of the lane's own PID
  namespace, and two parts of `/sys` that runtimes read (`SYS`);
- the lane's binary and its install directory, and what its `#!` line runs, read-only;
- private, empty, writable directories, discarded when the lane ends: `/tmp`, HOME, and each
  state directory the lane declares (`ConfineNeeds.state`), into which only its credentials
  (`StateDir.keep`) are mounted from the real one, read-only;
- the lane's system-wide configuration (`ConfineNeeds.system`), files named by the variables
  it reads paths from (`ConfineNeeds.path_env`, `PATH_ENV`), and what the caller adds with
  `--allow-read`, read-only; every known secret store inside any of them is covered up.

Everything else is not there: the rest of HOME, sibling trees, what a symlink in the tree points
to outside it, other processes' `/proc/PID/environ`.

The environment is an allow list too: `COMMON_ENV`, the lane's own `ConfineNeeds.env` and the
names the caller declares with `--pass-env` are kept; every other variable is unset.

The host (`toolgate_cli.sandbox.host`) answers the questions asked here about the machine through
`Filesystem`; `build` turns the answers into a `ConfinePlan` or a refusal line.
"""

from __future__ import annotations

import posixpath

from toolgate_cli.lanes.base import ConfineNeeds
from toolgate_cli.records import record
from toolgate_cli.verdict import is_within

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Literal, Protocol

    Kind = Literal["dir", "file", "link", "other", "missing"]
    OpKind = Literal["ro", "tmpfs", "link", "hide-dir", "hide-file"]

    class Filesystem(Protocol):
        """What the plan asks the machine (`toolgate_cli.sandbox.host.HostFilesystem`)."""

        def kind(self, path: str) -> Kind:
            """What `path` is, not following a last symlink (lstat)."""

        def resolve(self, path: str) -> str:
            """`path` with every symlink resolved (realpath)."""

        def readlink(self, path: str) -> str | None:
            """The target of the symlink `path` as written, or None."""

        def shebang(self, path: str) -> str | None:
            """The `#!` line of the file `path` (without `#!`), or None."""

        def which(self, name: str, search_path: str) -> str | None:
            """The executable `name` is on `search_path` (absolute, not resolved), or None."""


GENERIC = ConfineNeeds()
"""The plan of a lane toolgate has no needs for: empty private HOME and temp, common env."""

COMMON_ENV: tuple[str, ...] = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "COLORTERM",
    "NO_COLOR",
    "TZ",
    "USER",
    "LOGNAME",
    "SHELL",
    # The lane reaches its model provider through these where there is a proxy.
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "all_proxy",
    # A CA bundle for a proxy that terminates TLS.
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
)
"""Kept for every lane: what a program needs to start, and to reach its provider."""

PATH_ENV: tuple[str, ...] = ("SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS")
"""Common variables whose value names a path the lane reads (shown read-only)."""

TMP = "/tmp"  # noqa: S108 - a private tmpfs, mounted fresh for each lane
"""The private temp directory; TMPDIR is set to it (the caller's TMPDIR is not visible)."""

SYSTEM_ROOTS: tuple[str, ...] = ("/usr",)
TOP_LEVEL: tuple[str, ...] = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Merged-usr links into /usr (or, on older systems, directories of their own)."""

ETC: tuple[str, ...] = (
    # names and the network: the lane reaches its provider
    "/etc/resolv.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/nsswitch.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/networks",
    # users and groups (no password hashes: those are in shadow)
    "/etc/passwd",
    "/etc/group",
    # the dynamic linker
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    # locale and time
    "/etc/localtime",
    "/etc/timezone",
    "/etc/locale.alias",
    "/etc/locale.conf",
    "/etc/default/locale",
    # /usr/bin/awk and friends are links through here (Debian)
    "/etc/alternatives",
    # TLS trust, without the private keys beside it
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    "/etc/ca-certificates.conf",
    "/etc/pki/tls/certs",
    "/etc/pki/tls/openssl.cnf",
    "/etc/pki/ca-trust",
    "/etc/crypto-policies",
    # the system's git and shell configuration (the read shell runs git and a login shell)
    "/etc/gitconfig",
    "/etc/gitattributes",
    "/etc/profile",
    "/etc/profile.d",
    "/etc/bash.bashrc",
    "/etc/bashrc",
    "/etc/zsh",
    "/etc/zshenv",
    "/etc/zshrc",
    "/etc/zprofile",
    "/etc/inputrc",
    "/etc/shells",
    "/etc/terminfo",
    "/etc/os-release",
    "/etc/mime.types",
    "/etc/magic",
)
"""The pieces of /etc a confined lane sees, where they exist: what programs read to start, to
resolve names and to speak TLS. Measured with claude 2.1.332 and codex 0.171.0 (strace of a
run against the stub): both start, reach the stub and run git and a shell with these.
Not among them on purpose: `shadow`, `gshadow`, `ssh/` (host keys), `ssl/private`, `sudoers`,
`security/`, `npmrc`, `pip.conf`, `wgetrc` (they can hold tokens), `machine-id` (a host
identifier that machine-id(5) asks to keep confidential: claude reads it and runs without)."""

SYS: tuple[str, ...] = ("/sys/fs/cgroup", "/sys/devices/system/cpu")
"""The parts of /sys runtimes read (memory limits, CPU count); the rest of /sys, with its
kernel settings, is not there."""

SPECIAL: tuple[str, ...] = ("/proc", "/sys", "/dev")
"""Never mounted from the host by --allow-read: the host's /proc shows every process's
environment."""

SECRET_STORES: tuple[str, ...] = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".docker",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".pgpass",
    ".vault-token",
    ".password-store",
    ".terraform.d",
    ".terraformrc",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".m2/settings.xml",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/op",
    ".config/git/credentials",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    # the lanes' own credentials and transcripts
    ".claude",
    ".claude.json",
    ".config/anthropic",
    ".codex",
    ".copilot",
    ".gemini",
)
"""Places under a home that hold credentials (and the lanes' transcripts of other trees).
`--allow-read` never shows one: a directory inside one is refused, one inside a directory the
caller allows is covered up (for every home in /etc/passwd and HOME)."""

SYSTEM_SECRETS: tuple[str, ...] = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/ssh",
    "/etc/ssl/private",
    "/etc/pki/tls/private",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/security",
    "/etc/krb5.keytab",
    "/etc/docker",
    "/etc/containers",
    "/etc/machine-id",
)
"""The same for the system: never shown, covered up inside an allowed directory."""


@record(frozen=True)
class Op:
    """One mount of the confined sandbox: `ro` (bind `source` read-only at `path`), `tmpfs` (a
    private empty writable directory), `link` (a symlink at `path` to `source`), `hide-dir` and
    `hide-file` (cover a secret store with an empty read-only directory or /dev/null)."""

    kind: OpKind
    path: str
    source: str = ""

    def words(self) -> tuple[str, ...]:
        """The bwrap options for this mount."""
        if self.kind == "ro":
            return ("--ro-bind", self.source or self.path, self.path)
        if self.kind == "tmpfs":
            return ("--tmpfs", self.path)
        if self.kind == "link":
            return ("--symlink", self.source, self.path)
        if self.kind == "hide-dir":
            return ("--tmpfs", self.path, "--remount-ro", self.path)
        return ("--ro-bind", "/dev/null", self.path)


@record(frozen=True)
class ConfinePlan:
    """What the confined lane sees. `system` is mounted first, as listed; `layers` after it,
    outer paths before inner ones (so a private HOME does not cover the tree inside it);
    `lane` is the absolute path bwrap runs."""

    lane: str
    system: tuple[Op, ...]
    layers: tuple[Op, ...]
    env_kept: tuple[str, ...]
    env_unset: tuple[str, ...]

    @property
    def visible(self) -> tuple[str, ...]:
        """Every path shown read-only (the caller root is added by the lock's plan)."""
        return tuple(op.path for op in (*self.system, *self.layers) if op.kind in ("ro", "link"))

    @property
    def writable(self) -> tuple[str, ...]:
        """The private directories: empty at start, writable, discarded afterwards (not one
        that a later read-only bind covers, as `--allow-read ~` covers the private HOME)."""
        return tuple(
            op.path
            for index, op in enumerate(self.layers)
            if op.kind == "tmpfs"
            and not any(
                later.kind == "ro" and is_within(op.path, later.path)
                for later in self.layers[index + 1 :]
            )
        )

    @property
    def hidden(self) -> tuple[str, ...]:
        """Secret stores covered up inside a directory that is shown."""
        return tuple(op.path for op in self.layers if op.kind in ("hide-dir", "hide-file"))


@record(frozen=True)
class ConfineRequest:
    """What the dispatch asks of confinement: the lane's needs, its command word, the caller's
    `--pass-env` names and `--allow-read` paths, the template's own environment, and paths
    toolgate itself needs inside (its PreToolUse hook's interpreter and package, for
    `--read-shell`)."""

    needs: ConfineNeeds
    command: str
    pass_env: frozenset[str] = frozenset()
    allow_read: tuple[str, ...] = ()
    template_env: Mapping[str, str | None] | None = None
    read_shell: bool = False
    toolgate_paths: tuple[str, ...] = ()


def matches(name: str, patterns: Iterable[str]) -> bool:
    """Whether `name` is one of `patterns` (an exact name, or `PREFIX*`)."""
    return any(
        name == pattern or (pattern.endswith("*") and name.startswith(pattern[:-1]))
        for pattern in patterns
    )


def split_env(
    environ: Mapping[str, str], needs: ConfineNeeds, pass_env: Iterable[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The names of `environ` kept, and those unset, each sorted."""
    patterns = (*COMMON_ENV, *needs.env)
    declared = frozenset(pass_env)
    kept = sorted(name for name in environ if name in declared or matches(name, patterns))
    unset = sorted(name for name in environ if name not in kept)
    return tuple(kept), tuple(unset)


def location(where: Iterable[str], env: Mapping[str, str]) -> str | None:
    """The first of `where` that applies in `env` (see `StateDir.where`), absolute and
    normalised; None when none applies or it is not absolute."""
    for spelling in where:
        if spelling.startswith("~/"):
            home = env.get("HOME", "")
            path = posixpath.join(home, spelling[2:]) if home else ""
        elif spelling.startswith("$"):
            name, _, rest = spelling[1:].partition("/")
            base = env.get(name, "")
            if not base:
                continue
            path = posixpath.join(base, rest) if rest else base
        else:
            path = spelling
        if path.startswith("/"):
            return "/" + posixpath.normpath(path).lstrip("/")
        return None
    return None


def location_variables(needs: ConfineNeeds) -> frozenset[str]:
    """Every variable a state directory's location or a shown path is read from."""
    names = {
        spelling[1:].partition("/")[0]
        for state in needs.state
        for spelling in state.where
        if spelling.startswith("$")
    }
    return frozenset({*names, *needs.path_env, *PATH_ENV, "HOME"})


def store_of(path: str) -> str | None:
    """The secret store `path` lies in (or is), by name: a `.ssh` anywhere (a copy of a home
    is still a home), a `.config/gh` anywhere, or a system secret; None when it lies in none."""
    for secret in SYSTEM_SECRETS:
        if is_within(path, secret):
            return secret
    parts = path.strip("/").split("/")
    for store in SECRET_STORES:
        wanted = store.split("/")
        for start in range(len(parts) - len(wanted) + 1):
            if parts[start : start + len(wanted)] == wanted:
                return "/" + "/".join(parts[: start + len(wanted)])
    return None


def stores_inside(path: str, homes: Iterable[str], fs: Filesystem) -> list[Op]:
    """Cover-ups for every secret store that exists strictly inside `path`."""
    candidates = [*SYSTEM_SECRETS, *(posixpath.join(h, s) for h in homes for s in SECRET_STORES)]
    found: list[Op] = []
    for candidate in dict.fromkeys(candidates):
        if candidate == path or not is_within(candidate, path):
            continue
        kind = fs.kind(candidate)
        if kind == "dir":
            found.append(Op("hide-dir", candidate))
        elif kind != "missing":
            found.append(Op("hide-file", candidate))
    return found


def system_ops(fs: Filesystem) -> tuple[Op, ...]:
    """The system mounts: /usr, the top-level links, the pieces of /etc that exist."""
    ops = [Op("ro", root) for root in SYSTEM_ROOTS if fs.kind(root) == "dir"]
    for top in TOP_LEVEL:
        kind = fs.kind(top)
        if kind == "link":
            target = fs.readlink(top)
            if target is not None and _shows(fs.resolve(top)):
                ops.append(Op("link", top, target))
        elif kind == "dir":
            ops.append(Op("ro", top))
    ops += [Op("ro", path) for path in SYS if fs.kind(path) == "dir"]
    for path in ETC:
        kind = fs.kind(path)
        if kind in ("dir", "file"):
            ops.append(Op("ro", path))
        elif kind == "link":
            resolved = fs.resolve(path)
            target = fs.readlink(path)
            if target is not None and _shows(resolved):
                ops.append(Op("link", path, target))  # /etc/localtime -> /usr/share/zoneinfo
            elif fs.kind(resolved) in ("dir", "file"):
                # /etc/resolv.conf -> /run/...: its content, not the link into what is absent
                ops.append(Op("ro", path, resolved))
    return tuple(ops)


def _shows(path: str) -> bool:
    """Whether `path` lies in what the system mounts show anyway."""
    return any(is_within(path, root) for root in SYSTEM_ROOTS) or any(
        is_within(path, etc) for etc in ETC
    )


def lane_chain(fs: Filesystem, start: str) -> list[str]:
    """`start`, every symlink it goes through (as written, made absolute), and where it ends."""
    chain = [start]
    current = start
    for _ in range(40):  # the kernel's own limit on a chain of links
        target = fs.readlink(current)
        if target is None:
            break
        current = posixpath.normpath(posixpath.join(posixpath.dirname(current), target))
        chain.append(current)
    resolved = fs.resolve(start)
    if resolved not in chain:
        chain.append(resolved)
    return chain


def interpreter(fs: Filesystem, script: str, search_path: str) -> str | None:
    """The program a `#!` line of `script` runs (`/usr/bin/env node` finds node on the PATH)."""
    line = fs.shebang(script)
    if not line:
        return None
    words = line.split()
    if not words:
        return None
    program = words[0]
    if posixpath.basename(program) == "env":
        rest = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        return fs.which(rest[0], search_path) if rest else None
    return program if program.startswith("/") else None


def install_dir(path: str, homes: Iterable[str]) -> str:
    """What to show for a file of the lane's install: the outermost `node_modules` above it
    (an npm package finds its dependencies and native parts there), else its directory; the
    file alone when that directory is `/`, a home or above one, or a secret store."""
    parts = path.split("/")
    if "node_modules" in parts:
        candidate = "/".join(parts[: parts.index("node_modules") + 1])
    else:
        candidate = posixpath.dirname(path)
    too_wide = candidate == "/" or any(is_within(home, candidate) for home in homes)
    if too_wide or store_of(candidate) is not None:
        return path
    return candidate


def install_prefix(path: str, homes: Iterable[str]) -> str:
    """What to show for an interpreter a `#!` line runs: its install prefix (the directory
    above its `bin/`: a Python's standard library and a virtualenv's packages live there),
    unless that is too wide (a home or above, `~/.local`, a secret store); else as
    `install_dir`."""
    directory = posixpath.dirname(path)
    prefix = posixpath.dirname(directory)
    if posixpath.basename(directory) == "bin" and prefix != "/":
        too_wide = any(is_within(home, prefix) for home in homes) or prefix.endswith("/.local")
        if not too_wide and store_of(prefix) is None:
            return prefix
    return install_dir(path, homes)


def build(
    request: ConfineRequest,
    fs: Filesystem,
    *,
    environ: Mapping[str, str],
    homes: tuple[str, ...],
    caller_root: str,
    read_only: tuple[str, ...],
    cwd: str,
) -> ConfinePlan | str:
    """The confinement plan for `request` on this machine, or the one-line reason it cannot be
    built. `environ` is the environment toolgate runs in, `homes` every home directory,
    `read_only` what the lock shows read-only (the caller root first, then its git dirs)."""
    needs = request.needs
    template_env = dict(request.template_env or {})
    moved = sorted(set(template_env) & location_variables(needs))
    if moved:
        return (
            f"--confine: the lane template sets {', '.join(moved)}, which chooses a path the "
            "confined lane is shown (credentials, a CA bundle); set it in toolgate's own "
            "environment instead"
        )
    kept, unset = split_env(environ, needs, request.pass_env)
    lane_env = {name: environ[name] for name in kept}

    search_path = lane_env.get("PATH", "")
    command = request.command
    found = posixpath.join(cwd, command) if "/" in command else fs.which(command, search_path)
    if found is None or fs.kind(fs.resolve(found)) != "file":
        return (
            f"--confine: cannot find the lane {command!r} on PATH, so its install cannot be "
            "shown to it; install it or give its absolute path"
        )
    found = posixpath.normpath(found)

    layers: list[tuple[int, Op]] = [(0, Op("tmpfs", TMP))]
    home = lane_env.get("HOME", "")
    private: list[str] = [TMP]
    if home.startswith("/"):
        private.append("/" + posixpath.normpath(home).lstrip("/"))
    for state in needs.state:
        path = location(state.where, lane_env)
        if path is not None:
            private.append(path)
    kept_credentials: list[Op] = []
    for state in needs.state:
        base = location(state.where, lane_env)
        if base is None or not _may_be_private(base, caller_root):
            continue
        for name in state.keep:
            entry = posixpath.join(base, name)
            if fs.kind(entry) == "missing":
                continue
            source = fs.resolve(entry)
            if fs.kind(source) == "missing":
                continue
            kept_credentials.append(Op("ro", entry, "" if source == entry else source))
    for path in dict.fromkeys(private):
        if _may_be_private(path, caller_root) and path != TMP:
            layers.append((0, Op("tmpfs", path)))
    layers += [(1, op) for op in kept_credentials]

    # What the lane runs from (and what toolgate's hook needs): never wider than the file
    # when its directory would be a home or above one.
    chain = lane_chain(fs, found)
    automatic = [install_dir(path, homes) for path in chain]
    program = interpreter(fs, chain[-1], search_path)
    if program is not None:
        automatic += [install_prefix(path, homes) for path in lane_chain(fs, program)]
    automatic += [path for path in needs.system if fs.kind(path) != "missing"]
    automatic += list(request.toolgate_paths)
    for name in (*PATH_ENV, *needs.path_env):
        value = lane_env.get(name, "")
        if value.startswith("/"):
            automatic.append(value)
    allowed = _allowed_reads(request.allow_read, fs)
    if isinstance(allowed, str):
        return allowed

    wanted = [(path, False) for path in automatic] + [(path, True) for path in allowed]
    for given, explicit in wanted:
        path = "/" + posixpath.normpath(given).lstrip("/")
        if is_within(path, caller_root) or _shows(path) or fs.kind(path) == "missing":
            continue
        if not explicit and (path == "/" or any(is_within(h, path) for h in homes)):
            continue  # a home or above: only --allow-read shows that much
        store = store_of(path)
        if store is not None:
            return (
                f"--confine: {path} lies in {store}, a secret store, which a confined lane is "
                "never shown; move what the lane needs out of it"
            )
        source = fs.resolve(path)
        layers.append((1, Op("ro", path, "" if source == path else source)))
        layers += [(2, op) for op in stores_inside(path, homes, fs)]
    for path in read_only:
        layers.append((1, Op("ro", path)))
        layers += [(2, op) for op in stores_inside(path, homes, fs)]

    ordered = [op for _, op in sorted(layers, key=lambda item: (_depth(item[1].path), item[0]))]
    return ConfinePlan(
        lane=found,
        system=system_ops(fs),
        layers=_mountable(list(dict.fromkeys(ordered)), fs),
        env_kept=kept,
        env_unset=unset,
    )


def _mountable(ordered: list[Op], fs: Filesystem) -> tuple[Op, ...]:
    """`ordered` without what would fail or do nothing: a private directory that would need a
    new mount point inside a read-only bind (bwrap cannot create one there; with
    `--allow-read ~`, a state directory the real home does not have stays absent rather than
    failing the whole sandbox), and a cover-up of a store that a private directory already
    hides (claude's own `~/.claude` is private, not a read-only empty one)."""
    kept: list[Op] = []
    for op in ordered:
        covering = next((held for held in reversed(kept) if is_within(op.path, held.path)), None)
        inside_real = covering is not None and covering.kind == "ro" and covering.path != op.path
        if op.kind == "tmpfs" and inside_real and fs.kind(op.path) != "dir":
            continue
        if op.kind.startswith("hide") and (covering is None or covering.kind != "ro"):
            continue
        kept.append(op)
    return tuple(kept)


def _allowed_reads(paths: Iterable[str], fs: Filesystem) -> list[str] | str:
    """The `--allow-read` paths, resolved, or the refusal of the first that may not be shown."""
    allowed: list[str] = []
    for given in paths:
        path = fs.resolve(given)
        if path == "/" or any(is_within(path, special) for special in SPECIAL):
            return (
                f"--allow-read {given}: shows {'the whole filesystem' if path == '/' else path}"
                ", which undoes the confinement; name the directory the lane needs"
            )
        store = store_of(path)
        if store is not None:
            return (
                f"--allow-read {given}: {path} lies in {store}, a secret store; a confined "
                "lane is never shown one (give it a credential in its environment instead, "
                "with --pass-env)"
            )
        if fs.kind(path) == "missing":
            return f"--allow-read {given}: no such file or directory"
        allowed.append(path)
    return allowed


def _may_be_private(path: str, caller_root: str) -> bool:
    """A private directory cannot lie in the caller root (it would hide part of the tree) nor
    cover the system."""
    if path == "/" or is_within(path, caller_root):
        return False
    system = (*SYSTEM_ROOTS, *TOP_LEVEL, "/etc", *SPECIAL)
    return not any(is_within(path, place) or is_within(place, path) for place in system)


def _depth(path: str) -> int:
    return 0 if path == "/" else path.count("/")
