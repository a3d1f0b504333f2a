#!/usr/bin/env python3
"""No function outside src/crypto/ is longer than 100 lines.

CONTRIBUTING.md: a function longer than about 60 lines is a list of steps,
and each step gets a name; make check holds every function to 100 lines.
A function's length runs from the first line of its signature to its closing
brace, both counted.  Prints one line per function over the limit,
"path:line: name() is N lines", and exits 1 if there is any; 0 if none;
2 when a file cannot be read or its braces do not balance.  src/crypto/ is
exempt (the house rule's one exception): its vector ChaCha20 bodies keep
their rounds, transposes and stores in one function each.

  python3 scripts/funclen.py              the C files git tracks, but src/crypto/
  python3 scripts/funclen.py FILE...      those files
  FUNCLEN_MAX=60 python3 scripts/funclen.py   another limit

The scan knows what the tree's C looks like, not all of C: comments, strings
and character constants are blanked; preprocessor lines (with their
continuations) are skipped, and every branch of an #if/#elif/#else starts
from the brace depth of its #if, so a body whose branches each open their
own `if (...) {` still balances; a top-level `{` opens a function when the
text before it ends with `)` and holds a `(` but no `=` (so an initializer
such as `static const struct x y[] = {` is none).
"""
import os
import re
import subprocess
import sys

EXEMPT = ("src/crypto/",)
IDENT = re.compile(r"[A-Za-z_]\w*")


def blank(text):
    """The text with comments, strings and character constants as spaces
    (newlines kept, so line numbers hold)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_attributes(head):
    """head without its __attribute__((...)) groups."""
    while True:
        m = re.search(r"\b__attribute__\s*\(", head)
        if not m:
            return head
        depth, j = 0, m.end() - 1
        while j < len(head):
            depth += {"(": 1, ")": -1}.get(head[j], 0)
            j += 1
            if depth == 0:
                break
        head = head[: m.start()] + " " + head[j:]


def function_name(head):
    """The name of the function whose signature is head, or None when the
    text before a top-level brace is no signature."""
    head = strip_attributes(head).strip()
    if not head.endswith(")") or "(" not in head:
        return None
    depth = 0
    for c in head:
        depth += {"(": 1, ")": -1}.get(c, 0)
        if c == "=" and depth == 0:
            return None
    names = IDENT.findall(head[: head.index("(")])
    return names[-1] if names else None


def functions(path, text):
    """(first line, last line, name) of every function defined in text."""
    lines = blank(text).split("\n")
    found = []
    depth = 0
    head, head_line = [], None  # top-level text since the last ; { or }
    start = None  # (line, name) of the function being read
    externs = 0  # open extern "C" { blocks: they add no depth
    conds = []  # per open #if: [depth at the #if, depth after its first branch]
    cont = False
    for no, line in enumerate(lines, 1):
        if cont or line.lstrip().startswith("#"):
            cont = line.rstrip().endswith("\\")
            if not cont:
                directive = line.lstrip()[1:].split()
                word = directive[0] if directive else ""
                if word in ("if", "ifdef", "ifndef"):
                    conds.append([depth, None])
                elif word in ("elif", "else") and conds:
                    if conds[-1][1] is None:
                        conds[-1][1] = depth
                    depth = conds[-1][0]
                elif word == "endif" and conds:
                    at_if, first = conds.pop()
                    if first is not None:
                        depth = first
            continue
        for col, c in enumerate(line):
            if depth == 0 and c not in "{};":
                if head_line is None and not c.isspace():
                    head_line = no
                head.append(c)
                continue
            if c == "{":
                if depth == 0:
                    name = function_name("".join(head))
                    if name:
                        start = (head_line, name)
                    elif re.fullmatch(r'\s*extern\s+"?\s*"?\s*', "".join(head)):
                        # extern "C" { (its string blanked): no depth of its own
                        externs += 1
                        head, head_line = [], None
                        continue
                depth += 1
            elif c == "}":
                if depth == 0 and externs:
                    externs -= 1
                    continue
                depth -= 1
                if depth < 0:
                    raise ValueError(f"{path}:{no}: a closing brace with none open")
                if depth == 0 and start:
                    found.append((start[0], no, start[1]))
                    start = None
            if depth == 0:
                head, head_line = [], None
        if depth == 0 and head:
            head.append("\n")
    if depth or externs:
        raise ValueError(f"{path}: {depth + externs} braces still open at the end")
    return found


def tracked():
    """The C files git tracks; outside a checkout (or in a copy of the tree
    inside an ignored folder of one, as make mutate's), those under the tree."""
    try:
        out = subprocess.run(["git", "ls-files", "-z", "--", "*.c", "*.h"], capture_output=True,
                             text=True, check=True).stdout
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:
        for root, dirs, names in os.walk("."):
            dirs[:] = sorted(d for d in dirs if d != "build" and not d.startswith("."))
            files += [os.path.relpath(os.path.join(root, f)) for f in sorted(names)
                      if f.endswith((".c", ".h"))]
    return [f for f in files if not f.startswith(EXEMPT)]


def main(argv):
    limit = int(os.environ.get("FUNCLEN_MAX", "100"))
    files = argv[1:] or tracked()
    if not files:
        print("funclen: no C files to read", file=sys.stderr)
        return 2
    long_ones = 0
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                found = functions(path, f.read())
        except (OSError, ValueError) as e:
            print(f"funclen: {e}", file=sys.stderr)
            return 2
        for first, last, name in found:
            if last - first + 1 > limit:
                print(f"{path}:{first}: {name}() is {last - first + 1} lines")
                long_ones += 1
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
