"""Exit codes a shell script can branch on. One table, shared by every command.

Kept free of imports: the hook and the dispatch fast path import it.
"""

OK = 0
"""Success: the rewrite was printed or exec'd, the command or rule was admitted."""

NOT_ADMITTED = 1
"""check-command / rules: the command or rule was judged and not admitted."""

USAGE = 2
"""Bad invocation of toolgate itself (unknown option, missing command, bad value)."""

REFUSED = 3
"""dispatch / explain: the read-only verdict or the lane rewrite refused the dispatch."""

INTERNAL = 70
"""A bug in toolgate (EX_SOFTWARE): reported in one line, never as a traceback."""

CANNOT_CREATE = 73
"""A file toolgate was asked to write could not be written (EX_CANTCREAT): completion --install."""

NOT_EXECUTABLE = 126
"""--exec: the lane binary exists but cannot be executed (the shell's convention)."""

NOT_FOUND = 127
"""--exec: the lane binary was not found (the shell's convention)."""
