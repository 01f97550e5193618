#!/usr/bin/env python3
"""scripts/code_size.py on a made-up tree: a 151-line function and a 701-line file fail the
check, a 150-line function, a long lambda inside a short function's caller, control blocks and
initialisers do not count as functions of their own."""
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def check(files):
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        for name, text in files.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        r = subprocess.run([sys.executable, str(HERE / "code_size.py"), "--check", str(root)],
                           capture_output=True, text=True)
        return r.returncode, r.stdout


def function(name, lines):
    body = "".join(f"  x += {i};\n" for i in range(lines - 2))
    return f"int {name}(int x) {{\n{body}}}\n"


def main():
    rc, out = check({"src/a.cpp": function("ok", 150)})
    assert rc == 0 and "longest 150 lines" in out, out
    rc, out = check({"src/a.cpp": function("f", 151)})
    assert rc == 1 and "src/a.cpp:1: a function of 151 lines" in out, out
    rc, out = check({"apps/b.cpp": "// x\n" * 701})
    assert rc == 1 and "apps/b.cpp: 701 lines" in out, out
    # A multi-line signature counts from its first line; a `"{"` in a string is no brace.
    text = "void g(int a,\n       int b) {\n  const char* s = \"{\";\n" + "  a++;\n" * 147 + "}\n"
    rc, out = check({"python/src/c.cpp": text})
    assert rc == 1 and "c.cpp:1: a function of 151 lines" in out, out
    # Control blocks, lambdas and initialisers inside a function are part of it, not functions.
    inner = "  if (x) {\n" + "    x++;\n" * 10 + "  }\n  auto f = [&](int y) {\n    return y;\n  };\n"
    rc, out = check({"src/d.cpp": "int h(int x) {\n" + inner + "  return x;\n}\n"})
    assert rc == 0 and "1 functions" in out, out
    print("code_size selftest: ok")


if __name__ == "__main__":
    main()
