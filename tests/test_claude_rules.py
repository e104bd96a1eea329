"""Claude Code's own rule syntax (`toolgate_cli.claude_rules`, `toolgate rules lint`).

Tables first: rules that lint clean, each error and each warning with the docs' or claude
2.1.197's reason for it, then the findings across lists, then properties. What the real binary
says about the same rules is pinned by tests/e2e/test_claude_rules_lint.py.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolgate_cli.claude_rules import (
    ERROR_CODES,
    KNOWN_TOOLS,
    LEGACY_TOOL_NAMES,
    WARNING_CODES,
    lint_rule,
    lint_rules,
)

# Allow rules that lint with neither error nor warning: the docs' own examples first.
CLEAN = [
    # code.claude.com/docs/en/permissions
    "Bash(npm run build)",
    "Bash(npm run test *)",
    "Bash(git commit *)",
    "Bash(npm run test:*)",
    "Read(./.env)",
    "Read(~/.zshrc)",
    "Read(//Users/alice/secrets/**)",
    "Read(~/Documents/*.pdf)",
    "Edit(/src/**/*.ts)",
    "Edit(/docs/**)",
    "Edit(//tmp/scratch.txt)",
    "Read(src/**)",
    "Read(*.env)",
    "WebFetch(domain:example.com)",
    "mcp__puppeteer",
    "mcp__puppeteer__*",
    "mcp__puppeteer__puppeteer_navigate",
    "Agent(Explore)",
    "Agent(my-custom-agent)",
    # tools-reference
    "PowerShell(Get-Content README.md)",
    "Skill(deploy *)",
    "WebSearch",
    "ExitPlanMode",
    # the 2.1.197 validator's own examples
    "WebFetch(domain:*.google.com)",
    "mcp__github__get_*",
    # real settings files (the issue's, and shapes seen in public .claude/settings.json)
    "Bash(git diff *)",
    "Bash(gh pr view:*)",
    "Bash(python3 -m py_compile:*)",
    "mcp__github__get_issue",
    "Read(./secrets/**)",
    "Read(**/.env)",
    "Edit(src/**)",
    "Read(/docs/**)",
    # legacy names claude 2.1.197 still reads
    "Task(Explore)",
    "KillShell",
    "BashOutput",
    # escaped parentheses are literal content
    "Bash(echo \\(x\\))",
]


@pytest.mark.parametrize("text", CLEAN)
def test_a_good_rule_lints_clean(text: str) -> None:
    for list_name in ("allow", "ask", "deny"):
        record = lint_rule(text, list_name)
        assert record.ok and record.errors == (), record
        assert record.warnings == (), record


def test_legacy_names_are_read_as_todays_tool() -> None:
    assert lint_rule("Task(Explore)", "allow").tool == "Agent"
    assert lint_rule("KillShell", "deny").tool == "TaskStop"
    assert set(LEGACY_TOOL_NAMES.values()) <= set(KNOWN_TOOLS)


def test_the_specifier_is_unescaped_and_star_is_the_whole_tool() -> None:
    assert lint_rule("Bash(echo \\(x\\))", "allow").specifier == "echo (x)"
    whole = lint_rule("Bash(*)", "deny")
    assert whole.specifier is None and whole.ok and whole.warnings == ()


# (rule text, list, error code). Each line says where Claude Code's behaviour comes from.
ERRORS = [
    (7, "allow", "not_a_string"),  # 2.1.197: "Non-string value in allow array was removed"
    ("", "deny", "empty"),  # 2.1.197: "Permission rule cannot be empty"
    ("   ", "allow", "empty"),
    ("Bash(ls", "allow", "malformed"),  # 2.1.197: "Mismatched parentheses"
    ('Bash(echo ")")', "deny", "malformed"),  # 2.1.197 too (2.1.332 reads it literally)
    ("Bash(ls) x", "deny", "malformed"),  # 2.1.332: "Malformed Tool(content) rule"
    ("Bash ls)", "allow", "malformed"),
    ("(ls)", "allow", "malformed"),
    (" Bash(ls)", "deny", "malformed"),
    ("Bash()", "allow", "empty_parentheses"),  # 2.1.197: "Empty parentheses"
    ("bash(ls)", "allow", "tool_name_case"),  # 2.1.197: "Tool names must start with uppercase"
    ("read", "deny", "tool_name_case"),
    ("Raed", "allow", "unknown_tool"),  # 2.1.197 (deny/ask): "matches no known tool"
    ("Frobnicate", "deny", "unknown_tool"),
    ("MultiEdit", "allow", "unknown_tool"),  # measured: not a tool of 2.1.197
    ("NotebookRead", "deny", "unknown_tool"),
    ("LS", "allow", "unknown_tool"),
    ("ExitPlanMode(x)", "allow", "no_specifier"),  # tools-reference: bare name only
    ("Glob(src/**)", "allow", "no_specifier"),  # 2.1.332: "not matched by file permission checks"
    ("Write(./out/*)", "deny", "no_specifier"),
    ("NotebookEdit(x.ipynb)", "ask", "no_specifier"),
    ("Grep(./**)", "allow", "no_specifier"),
    ("WebSearch(a*)", "allow", "no_specifier"),  # 2.1.197: "WebSearch does not support wildcards"
    ("mcp__gh__x(y)", "allow", "mcp_specifier"),  # 2.1.197: "MCP rules do not support patterns"
    ("mcp__gh(*)", "deny", "mcp_specifier"),
    ("mcp__*", "allow", "wildcard_tool_name"),  # 2.1.197: "Wildcard tool name ... in allow"
    ("*", "allow", "wildcard_tool_name"),
    ("Bash*", "allow", "wildcard_tool_name"),
    ("Bash(:*)", "allow", "empty_prefix"),  # 2.1.197: "Prefix cannot be empty before :*"
    ("Bash(git:* push)", "allow", "colon_star_inside"),  # 2.1.197: ":* must be at the end"
    ("Read(src:*)", "allow", "colon_star_in_path"),  # 2.1.197: ':* syntax is only for Bash'
    ("Edit(docs/**:*)", "deny", "colon_star_in_path"),
    ("WebFetch(https://x.com)", "allow", "webfetch_domain"),  # 2.1.197: "use domain format"
    ("WebFetch(example.com)", "deny", "webfetch_domain"),  # 2.1.197: 'must use "domain:"'
    ("WebFetch(domain:)", "allow", "webfetch_domain"),
    ("WebFetch(domain:github.com/org)", "allow", "webfetch_domain"),
    ("Bash(command:ls)", "ask", "raw_field"),  # 2.1.197: "targets command as a raw string"
    ("Read(file_path:x)", "deny", "raw_field"),
]


@pytest.mark.parametrize(("text", "list_name", "code"), ERRORS)
def test_an_error_names_its_code_in_one_line(text: object, list_name, code: str) -> None:
    record = lint_rule(text, list_name)
    assert not record.ok
    assert [finding.code for finding in record.errors] == [code], record
    assert all(f.message and "\n" not in f.message for f in record.errors)


def test_every_error_code_is_exercised() -> None:
    assert {code for _, _, code in ERRORS} == set(ERROR_CODES)


def test_a_wildcard_tool_name_is_only_an_allow_error() -> None:
    for text in ("mcp__*", "*", "Bash*"):
        assert lint_rule(text, "deny").ok and lint_rule(text, "ask").ok


def test_an_unknown_tool_suggests_the_closest_name() -> None:
    assert "did you mean Read?" in lint_rule("Raed", "allow").errors[0].message
    assert "write Bash" in lint_rule("bash(ls)", "allow").errors[0].message
    assert "Edit rules cover" in lint_rule("MultiEdit", "deny").errors[0].message
    assert "write Read(src/**)" in lint_rule("Glob(src/**)", "allow").errors[0].message


# (rule text, warning code), judged as an allow rule. The breadth codes are the seeds'
# questions (seed 003) asked of Claude Code's syntax; the rest are claude's own warnings.
WARNINGS = [
    ("Bash", "whole_tool"),
    ("Bash(*)", "whole_tool"),
    ("Read", "whole_tool"),
    ("WebFetch", "whole_tool"),
    ("Bash(mkdir:*)", "broad_prefix"),  # seed 003's own example
    ("Bash(npm *)", "broad_prefix"),
    ("Bash(FOO=1 make:*)", "broad_prefix"),
    ("Bash(cd /tmp && npm:*)", "compound_prefix"),  # seed 003's own example
    ("Bash(python:*)", "bare_interpreter_prefix"),  # seed 003's own example
    ("Bash(node *)", "bare_interpreter_prefix"),
    ("Bash(bash -c *)", "bare_interpreter_prefix"),
    ("Bash(ruff check*)", "no_word_boundary"),  # docs: Bash(ls*) also matches lsof
    ("Bash(* --version)", "leading_wildcard"),  # docs' example, in an allow list
    ("Bash(* install)", "leading_wildcard"),
    ("Bash(git * main)", "inner_wildcard"),  # 2.1.332: "a wildcard before the rest"
    ("Bash(FOO=* make)", "wildcard_in_assignment"),  # 2.1.332: "a * in a variable's value"
    ("Bash(npm*:*)", "star_with_colon_star"),  # 2.1.332: "mixes * with the trailing :*"
    ("Read(//**)", "broad_path"),
    ("Edit(~/**)", "broad_path"),
    ("Read(/home/eddie/pdca/**)", "project_relative_slash"),  # seen in a public settings file
    ("Edit(/Users/alice/file)", "project_relative_slash"),  # docs: "NOT an absolute path"
    ("WebFetch(domain:*)", "broad_domain"),
    ("WebSearch(claude ai)", "undocumented_specifier"),
    ("Bash(ls\u202e)", "invisible_characters"),
]
BREADTH = frozenset(
    {
        "whole_tool",
        "broad_prefix",
        "compound_prefix",
        "bare_interpreter_prefix",
        "no_word_boundary",
        "leading_wildcard",
        "inner_wildcard",
        "wildcard_in_assignment",
        "broad_path",
        "broad_domain",
    }
)


@pytest.mark.parametrize(("text", "code"), WARNINGS)
def test_a_warning_never_fails_the_rule(text: str, code: str) -> None:
    record = lint_rule(text, "allow")
    assert record.ok, record
    assert code in [finding.code for finding in record.warnings], record
    assert all(f.message and "\n" not in f.message for f in record.warnings)


@pytest.mark.parametrize(("text", "code"), [(t, c) for t, c in WARNINGS if c in BREADTH])
def test_breadth_is_judged_on_allow_and_ask_never_on_deny(text: str, code: str) -> None:
    assert code in [f.code for f in lint_rule(text, "ask").warnings]
    deny = lint_rule(text, "deny")
    assert deny.ok and not {f.code for f in deny.warnings} & BREADTH, deny


def test_every_warning_code_is_exercised() -> None:
    crossed = {"shadowed", "duplicate"}  # need more than one rule: below
    assert {code for _, code in WARNINGS} | crossed == set(WARNING_CODES)


def test_a_prefix_that_names_its_subcommand_is_not_broad() -> None:
    for text in ("Bash(npm run test:*)", "Bash(git diff *)", "Bash(python manage.py test:*)"):
        assert lint_rule(text, "allow").warnings == ()


def codes(records, list_name: str, index: int) -> list[str]:
    (record,) = [r for r in records if r.list_name == list_name and r.index == index]
    return [f.code for f in (*record.errors, *record.warnings)]


def test_a_rule_that_a_deny_or_ask_rule_repeats_is_shadowed() -> None:
    records = lint_rules(
        [
            ("allow", ["Read(./.env)", "Bash(git push *)", "Bash(ls -la *)", "Bash(ls -la *)"]),
            ("ask", ["Bash(git push *)"]),
            ("deny", ["Read(./.env)"]),
        ]
    )
    assert codes(records, "allow", 0) == ["shadowed"]
    assert "deny[0]" in records[0].warnings[0].message
    assert codes(records, "allow", 1) == ["shadowed"]
    assert codes(records, "allow", 2) == []
    assert codes(records, "allow", 3) == ["duplicate"]
    assert codes(records, "ask", 0) == [] and codes(records, "deny", 0) == []


def test_a_whole_tool_deny_shadows_every_rule_for_that_tool() -> None:
    records = lint_rules([("allow", ["Bash(npm test)", "Read"]), ("deny", ["Bash"])])
    assert codes(records, "allow", 0) == ["shadowed"]
    assert "whole_tool" in codes(records, "allow", 1)
    assert "shadowed" not in codes(records, "allow", 1)


def test_the_issues_example_lints_clean_but_for_two_honest_warnings() -> None:
    """Issue 16: all valid Claude Code rules; the seeds' grammar rejected 6 of these 9."""
    records = lint_rules(
        [
            (
                "allow",
                [
                    "Read",
                    "Bash(npm run test:*)",
                    "Edit(src/**)",
                    "WebFetch(domain:github.com)",
                    "mcp__github__get_issue",
                    "Read(./.env)",
                    "Bash(git diff *)",
                ],
            ),
            ("deny", ["Read(./.env)", "Bash(curl:*)"]),
        ]
    )
    assert all(record.ok for record in records)
    found = [(r.list_name, r.index, f.code) for r in records for f in r.warnings]
    assert found == [("allow", 0, "whole_tool"), ("allow", 5, "shadowed")]


@settings(max_examples=400)
@given(
    st.one_of(
        st.text(),
        st.builds(
            lambda t, c: f"{t}({c})", st.sampled_from([*KNOWN_TOOLS, "mcp__x", "x"]), st.text()
        ),
    ),
    st.sampled_from(["allow", "ask", "deny"]),
)
def test_lint_never_raises_and_speaks_only_its_codes(text: str, list_name) -> None:
    record = lint_rule(text, list_name)
    assert {f.code for f in record.errors} <= set(ERROR_CODES)
    assert {f.code for f in record.warnings} <= set(WARNING_CODES)
    for finding in (*record.errors, *record.warnings):
        assert finding.message and "\n" not in finding.message
    assert record.ok == (not record.errors)
