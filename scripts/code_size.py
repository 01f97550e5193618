#!/usr/bin/env python3
"""The code-size limits of docs/design.md, checked: no source file in src/, apps/ or python/
over 700 lines, and no function over 150 lines (signature to closing brace, lambdas inside it
included).

Usage: scripts/code_size.py [--check] [--top N] [ROOT]   (ROOT: the repository, default: here)
  --check  exit 1 naming every file and function over its limit (a ctest runs this)
  --top N  also print the N longest functions

A function is a brace block opened at the end of a line that closes a parameter list
(`...) {`, `...) const {`, `...) override {`, a TEST(...) {), not a control statement, a
lambda, a class or an initialiser; its length runs to the brace that closes it (string and
character literals and comments are skipped when matching braces)."""
import argparse
import pathlib
import re
import sys

MAX_FILE_LINES = 700
MAX_FUNCTION_LINES = 150
FOLDERS = ("src", "apps", "python")
SUFFIXES = {".cpp", ".h", ".cu", ".cuh", ".py"}
CONTROL = re.compile(r"^(\}\s*)?(if|for|while|switch|catch|else|do|try)\b")
OPENS_FUNCTION = re.compile(r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?"
                            r"(->\s*[\w:<>,\s*&]+)?\{$")


def code_only(line):
    """`line` without its string / character literals and // comments."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//", 1)[0]


def functions(lines):
    """(first line number, length, first line) of each C++ function in `lines`."""
    out = []
    i = 0
    in_block_comment = False
    while i < len(lines):
        text = code_only(lines[i]).rstrip()
        if "/*" in text and "*/" not in text:
            in_block_comment = True
        if in_block_comment:
            in_block_comment = "*/" not in text
            i += 1
            continue
        stripped = text.strip()
        is_lambda = re.search(r"\]\s*(\([^)]*\))?\s*(mutable\s*)?(->\s*[\w:<>&*\s]+)?\{$", stripped)
        if (OPENS_FUNCTION.search(stripped) and not CONTROL.match(stripped) and not is_lambda
                and not re.search(r"=\s*\{$", stripped)):
            depth, j = 0, i
            while j < len(lines):
                code = code_only(lines[j])
                depth += code.count("{") - code.count("}")
                if depth <= 0 and j > i or (depth == 0 and j == i and "}" in code):
                    break
                j += 1
            # The signature starts at the first line above that is not a continuation.
            start = i
            while start > 0 and lines[start - 1].strip() and not lines[start - 1].rstrip().endswith(
                    (";", "{", "}", "*/")) and not lines[start - 1].lstrip().startswith(("//", "#")):
                start -= 1
            out.append((start + 1, j - start + 1, lines[start].strip()))
            i = j + 1
            continue
        i += 1
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("root", nargs="?", default=".")
    p.add_argument("--check", action="store_true")
    p.add_argument("--top", type=int, default=0)
    a = p.parse_args()
    root = pathlib.Path(a.root)
    over, longest = [], []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file():
                continue
            lines = path.read_text(errors="replace").split("\n")
            rel = path.relative_to(root)
            if len(lines) - 1 > MAX_FILE_LINES:
                over.append(f"{rel}: {len(lines) - 1} lines (limit {MAX_FILE_LINES})")
            if path.suffix == ".py":
                continue
            for line, n, first in functions(lines):
                longest.append((n, f"{rel}:{line}", first))
                if n > MAX_FUNCTION_LINES:
                    over.append(f"{rel}:{line}: a function of {n} lines (limit "
                                f"{MAX_FUNCTION_LINES}): {first[:60]}")
    longest.sort(reverse=True)
    for n, where, first in longest[:a.top]:
        print(f"{n:5d}  {where}  {first[:70]}")
    for o in over:
        print(o)
    if a.check and over:
        return 1
    if a.check:
        print(f"code size: {len(longest)} functions, the longest {longest[0][0]} lines "
              f"({longest[0][1]}); no file over {MAX_FILE_LINES} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
