"""Every system function's keywords are its command's flags, with the same defaults: both come
from one option table per system (sparsemap/option_table.h), read by the CLI's flags and by the
function's keywords, which the docstring lists."""
import re

import pytest

import sparsemap as sm

# function -> (command, the command's flags of the CLI only: printing and output files)
SYSTEMS = {
    "map_model": ("map", {"json", "quiet", "wide"}),
    "codesign": ("codesign", {"json", "quiet", "wide", "plot"}),
    "attention": ("attention", {"json", "quiet", "plot"}),
    "fuse": ("fuse", {"json", "quiet", "groups"}),
    "schedule": ("schedule", {"json", "quiet"}),
    "hwalloc": ("hwalloc", {"json", "quiet", "plot"}),
    "report": ("report", {"json", "quiet"}),
    "mse": ("mse", {"json", "quiet"}),
    "eval_model": ("eval", {"json"}),
    "timeloop": ("timeloop", {"json"}),
    "prune_study": ("prune-study", {"json"}),
    "spmm_bench": ("spmm-bench", {"json", "detail"}),
    "sparse_price": ("sparse-price", {"json", "quiet"}),
    "train": ("train", {"json", "quiet"}),
    "nm_study": ("nm-study", {"json", "quiet"}),
    "fuse_train": ("fuse-train", {"json", "quiet"}),
    "nongemm": ("nongemm", {"json", "quiet"}),
    "prune_train": ("prune-train", {"json", "quiet"}),
    "prune_compare": ("prune-compare", {"json", "quiet"}),
    "prune_overhead": ("prune-overhead", {"json", "quiet"}),
}

HELP_FLAG = re.compile(r"^  (?:-h,)?--([a-z0-9.-]+)(?:,--[a-z-]+)?(?: ([A-Z]+)[^ =]*(?:=(\S+))?)?")
DOC_KEYWORD = re.compile(r"^  ([a-z0-9_]+) \((\w+), default (.*?)\): ", re.M)


def help_flags(cli, command):
    """{flag: default text or None} of `sparsemap COMMAND --help`."""
    rc, out, err = cli(command, "--help")
    assert rc == 0, err
    flags = {}
    for line in out.splitlines():
        m = HELP_FLAG.match(line)
        if m and m.group(1) != "help":
            flags[m.group(1).replace("-", "_").replace(".", "_")] = m.group(3)
    return flags


def same_default(kind, doc, shown):
    """Whether the docstring's default `doc` of a `kind` keyword is what --help shows."""
    if kind == "bool":  # a flag: --help shows no default (--x,--no-x may default to True)
        return shown is None and doc in ("False", "True")
    if shown is None:  # none shown: an empty text
        return doc == "None"
    if shown.startswith("["):  # a list, shown as [1,2,2]
        return kind == "list"
    if doc.startswith("'"):
        return doc.strip("'") == shown
    return float(doc) == float(shown)


@pytest.mark.parametrize("function", sorted(SYSTEMS))
def test_keywords_are_the_commands_flags_with_its_defaults(cli, function):
    command, cli_only = SYSTEMS[function]
    flags = help_flags(cli, command)
    doc = {k: (t, d) for k, t, d in DOC_KEYWORD.findall(getattr(sm, function).__doc__)}
    assert len(doc) >= 3 and cli_only <= set(flags), (doc, flags)
    assert set(doc) == set(flags) - cli_only, (sorted(set(doc) ^ (set(flags) - cli_only)))
    for key, (kind, default) in doc.items():
        assert same_default(kind, default, flags[key]), (key, kind, default, flags[key])
