"""Splitting a compound command (`git log | head -20`, `cd src && ls`) into its commands with the
bash grammar (tree-sitter-bash), deny-by-default over the grammar's node kinds.

Only these pass: the program, lists (`&&`, `||`), pipelines (`|`), statements separated by `;`
or a newline, commands made of words, and redirections of a command to `/dev/null` or between
its standard streams (`2>&1`). Every other node kind is refused with its reason: subshells,
groups, loops, functions, `!`, here-documents, here-strings, substitutions, expansions,
assignments, comments, background `&`, `|&`.

The grammar proposes; the lexer (words.py) disposes. tree-sitter-bash is a grammar for editors
and can read some text differently from bash, so nothing here trusts its word boundaries: the
text of every command goes back through the lexer, which refuses any unquoted operator,
expansion or quote it cannot close, and `_cover` checks that the commands, redirections and
operators found account for every byte of the text, with nothing but blanks (and newlines where
bash reads them as separators) between them. So bash reads the same commands, joined by the same
operators: a misreading by the grammar can refuse a command, never admit one.

tree-sitter is imported on the first compound command only (plain commands never get here), and
its two extension modules are loaded directly: the packages' `__init__` files import `typing`
and `importlib.resources` (with `pathlib` and `tempfile`), which cost the hook about 8 ms.
"""

from __future__ import annotations

from toolgate_cli.shell.verdict import MAX_PARTS, ShellVerdict, display_text, refuse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

    from tree_sitter import Node, Parser

OPERATORS = ("|", "&&", "||", ";")
"""The operators admitted between commands (and a newline, which bash reads like `;`)."""

DEV_NULL_REDIRECTS = (">", ">>", "1>", "1>>", "2>", "2>>", "<", "0<")
"""Redirection operators admitted when their target is exactly `/dev/null`: writing there
writes nothing, and reading from it reads nothing."""

STREAM_REDIRECTS = ("2>&1", "1>&2", ">&2")
"""Redirections between the standard streams: they open no file."""

NODE_REFUSALS: dict[str, tuple[str, str]] = {
    "command_substitution": ("expansion", "command substitution runs another command"),
    "process_substitution": ("operator", "process substitution `<(...)`/`>(...)` runs a command"),
    "simple_expansion": ("expansion", "a variable's value is unknown to this check"),
    "expansion": ("expansion", "parameter expansion can build any word, even an option"),
    "arithmetic_expansion": ("expansion", "arithmetic expansion can assign variables"),
    "ansi_c_string": ("expansion", "$'...' quoting can spell any word, even an option"),
    "translated_string": ("expansion", '$"..." looks the text up in a message catalogue'),
    "brace_expression": ("brace", "brace expansion can build any word, even an option"),
    "subshell": ("operator", "a subshell `( ... )` runs any commands"),
    "compound_statement": ("brace", "a group `{ ...; }` runs any commands"),
    "variable_assignment": ("assignment", "an assignment changes the environment of what runs"),
    "variable_assignments": ("assignment", "an assignment changes the environment of what runs"),
    "comment": ("comment", "a comment hides text from the reader"),
    "heredoc_redirect": ("operator", "a here-document feeds text the check does not read"),
    "herestring_redirect": ("operator", "a here-string feeds text the check does not read"),
    "negated_command": ("syntax", "`!` runs a command and inverts its status; run it plainly"),
    "function_definition": ("syntax", "a function definition runs its body later"),
    "for_statement": ("syntax", "a loop runs commands the check cannot follow"),
    "c_style_for_statement": ("syntax", "a loop runs commands the check cannot follow"),
    "while_statement": ("syntax", "a loop runs commands the check cannot follow"),
    "if_statement": ("syntax", "a conditional runs commands the check cannot follow"),
    "case_statement": ("syntax", "a case statement runs commands the check cannot follow"),
    "declaration_command": ("syntax", "a declaration (export, declare, local) changes variables"),
    "unset_command": ("syntax", "unset changes variables and functions"),
    "test_command": ("syntax", "a test `[[ ... ]]` can run arithmetic and expansions"),
}
"""Node kinds refused with their own reason; any kind not admitted is refused all the same."""

TOKEN_REFUSALS: dict[str, tuple[str, str]] = {
    "&": ("operator", "`&` runs the command in the background, outliving this check"),
    "|&": ("operator", "`|&` pipes standard error too; use `2>&1 |`"),
}
"""Operator tokens between statements refused with their own reason (`;;` and the like too)."""

_COMMAND_NODES = frozenset(
    {"command_name", "word", "number", "raw_string", "string", "string_content", "concatenation"}
)
"""The node kinds a command may be made of: words, plain and quoted."""

_PARSERS: list[Parser] = []
"""The parser, once made (a list, so no `global` statement is needed)."""


class Part:
    """One command of a compound: its text, the redirections after it, and the operator that
    joins it to the next command (None for the last)."""

    __slots__ = ("operator", "redirects", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.redirects: list[str] = []
        self.operator: str | None = None


def _load_extension(package: str, module: str) -> ModuleType:
    """`package.module` (an extension module) without running `package/__init__.py`."""
    import importlib.machinery
    import importlib.util

    found = importlib.machinery.PathFinder.find_spec(package)
    if found is None or found.submodule_search_locations is None:
        raise ImportError(f"{package} is not installed")
    spec = importlib.machinery.PathFinder.find_spec(
        f"{package}.{module}", list(found.submodule_search_locations)
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"{package}.{module} is not installed")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


def _parser() -> Parser:
    """The tree-sitter parser for bash, made once. Raises ImportError without tree-sitter."""
    if not _PARSERS:
        try:
            binding = _load_extension("tree_sitter", "_binding")
            language = _load_extension("tree_sitter_bash", "_binding").language
            parser_type, language_type = binding.Parser, binding.Language
        except (ImportError, AttributeError, OSError):
            import tree_sitter
            import tree_sitter_bash

            parser_type, language_type = tree_sitter.Parser, tree_sitter.Language
            language = tree_sitter_bash.language
        _PARSERS.append(parser_type(language_type(language())))
    return _PARSERS[0]


def _node_refusal(node: Node) -> ShellVerdict:
    kind = node.type
    code, why = NODE_REFUSALS.get(kind, ("syntax", ""))
    shown = display_text((node.text or b"").decode("utf-8", "replace"), 40)
    if not why:
        why = f"`{kind}` is not a plain command, a pipe, a chain or a /dev/null redirection"
    return refuse(code, f"{shown} refused: {why}")


def _token_refusal(token: str) -> ShellVerdict:
    code, why = TOKEN_REFUSALS.get(
        token, ("syntax", "only `|`, `&&`, `||`, `;` and newlines may join commands")
    )
    return refuse(code, f"{display_text(token)} refused: {why}")


class _Pieces:
    """The commands, redirections and operators found in the tree, as byte ranges."""

    def __init__(self) -> None:
        self.found: list[tuple[int, int, str]] = []  # (start, end, "command"|"redirect"|op)

    def add(self, node: Node, kind: str) -> None:
        self.found.append((node.start_byte, node.end_byte, kind))


def _screen_command(node: Node) -> ShellVerdict | None:
    """The refusal of the first node in a command that is not a word, or None."""
    stack = list(node.children)
    while stack:
        child = stack.pop()
        if child.is_named:
            if child.type not in _COMMAND_NODES:
                return _node_refusal(child)
        elif child.type != '"':
            return (
                _node_refusal(child)
                if child.type in NODE_REFUSALS
                else refuse(
                    "syntax",
                    f"{display_text(child.type)} refused: only words may make up a command",
                )
            )
        stack.extend(child.children)
    return None


def _collect(root: Node, pieces: _Pieces) -> ShellVerdict | None:
    """Add the pieces of a program; the refusal of the first node kind that is not admitted, or
    None. Iterative: a chain of thousands of `&&` nests as deep, which recursion would not
    survive (the order found does not matter, `_cover` sorts the pieces)."""
    stack = [root]
    while stack:
        node = stack.pop()
        redirected = node.type == "redirected_statement"
        bodies = 0
        for child in node.children:
            kind = child.type
            if not child.is_named:
                if not redirected and kind in OPERATORS:
                    pieces.add(child, kind)
                elif redirected or kind != "\n":
                    return _token_refusal(kind)
            elif kind in ("list", "pipeline"):
                stack.append(child)
                bodies += 1
            elif kind == "command":
                refusal = _screen_command(child)
                if refusal is not None:
                    return refusal
                pieces.add(child, "command")
                bodies += 1
            elif kind == "redirected_statement" and not redirected:
                stack.append(child)
            elif kind == "file_redirect" and redirected:
                # tree-sitter-bash reads `a | b 2>/dev/null` as the redirection of the whole
                # pipeline (or list); bash gives it to the last command. Only the flat order
                # of the pieces is kept (`_cover` attaches a redirection to the command
                # before it, as bash does), so either reading leads to the same check.
                pieces.add(child, "redirect")
            else:
                return _node_refusal(child)
        if redirected and bodies != 1:
            return refuse("operator", "a redirection without its command refused")
    return None


def _redirect_problem(text: str) -> str | None:
    """Why the redirection `text` is not admitted, or None for `>/dev/null`-like and `2>&1`."""
    if text in STREAM_REDIRECTS:
        return None
    operator, _, target = text.partition("/")
    if operator.rstrip(" ") in DEV_NULL_REDIRECTS and target == "dev/null":
        return None
    return (
        f"redirection {display_text(text)} refused: only >/dev/null, 2>/dev/null, </dev/null, "
        "2>&1 and >&2 are admitted (anything else can write a file)"
    )


def _blank(gap: str, newlines: bool) -> bool:
    return all(char == " " or (newlines and char == "\n") for char in gap)


def _cover(source: bytes, found: list[tuple[int, int, str]]) -> list[Part] | ShellVerdict:
    """The commands in source order, if the pieces account for every byte with only blanks
    between them, in an order bash reads the same way; else the refusal."""
    parts: list[Part] = []
    previous = "start"  # "start", "command", "redirect" or an operator
    position = 0
    for start, end, kind in sorted(found):
        if start < position:
            return refuse("syntax", "the bash grammar read overlapping pieces: cannot check it")
        gap = source[position:start].decode("utf-8")
        text = source[start:end].decode("utf-8")
        position = end
        if kind == "command":
            if previous in ("command", "redirect"):
                if "\n" not in gap or not _blank(gap, newlines=True):
                    return refuse("syntax", f"{display_text(gap)} between commands refused")
                parts[-1].operator = "\n"
            elif not _blank(gap, newlines=True):
                return refuse("syntax", f"{display_text(gap)} before a command refused")
            parts.append(Part(text))
        elif kind == "redirect":
            problem = _redirect_problem(text)
            if problem is not None:
                return refuse("operator", problem)
            if previous not in ("command", "redirect") or not _blank(gap, newlines=False):
                return refuse("syntax", f"redirection {display_text(text)} is not after a command")
            if text[:1].isdigit() and not gap:
                # `ls2>x` is the word `ls2` and `>x` to bash: a descriptor needs a blank before it.
                return refuse("syntax", f"{display_text(text)} glued to the word before it")
            parts[-1].redirects.append(text)
        else:
            if previous not in ("command", "redirect") or not _blank(gap, newlines=False):
                return refuse("syntax", f"`{kind}` refused: an operator must follow a command")
            parts[-1].operator = kind
        previous = kind
        if len(parts) > MAX_PARTS:
            return refuse("too-long", f"more than {MAX_PARTS} commands in one line refused")
    tail = source[position:].decode("utf-8")
    if not _blank(tail, newlines=True) or previous not in ("command", "redirect", ";"):
        return refuse("syntax", f"the command ends in {display_text(previous)}: cannot check it")
    if parts and parts[-1].operator == ";":
        parts[-1].operator = None  # a trailing `;` joins nothing
    if not parts:
        return refuse("empty", "the command is empty")
    return parts


def split_commands(command: str) -> list[Part] | ShellVerdict:
    """The commands of `command` with their redirections and operators, or the refusal of the
    first construct that is not a plain command joined by `| && || ;` or a newline."""
    try:
        parser = _parser()
    except ImportError:
        return refuse(
            "syntax",
            "compound commands need tree-sitter and tree-sitter-bash, which are not installed; "
            "run one plain command",
        )
    source = command.encode("utf-8")
    root = parser.parse(source).root_node
    if root.has_error:
        return refuse("syntax", "the bash grammar cannot parse this command: run simpler ones")
    pieces = _Pieces()
    refusal = _collect(root, pieces)
    if refusal is not None:
        return refusal
    try:
        return _cover(source, pieces.found)
    except UnicodeDecodeError:  # a piece boundary inside a character: never trust that split
        return refuse("syntax", "the bash grammar split a character: cannot check it")
