#!/usr/bin/python3
"""Tests of scripts/readme_figures.py on READMEs written here: --check passes on the data's
figures and names each drifted, unknown or missing one; --write repairs drift. Standard
library only (ctest: readme_figures_selftest)."""
import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "readme_figures.py")
spec = importlib.util.spec_from_file_location("readme_figures", SCRIPT)
rf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rf)


def run(readme, *flags):
    p = subprocess.run([sys.executable, SCRIPT, "--readme", readme, *flags],
                       capture_output=True, text=True)
    return p.returncode, p.stderr


class ReadmeFigures(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "README.md")
        self.want = {f.id: f.text() for f in rf.FIGURES}
        self.placed = [f.id for f in rf.FIGURES if f.placed]

    def tearDown(self):
        self.dir.cleanup()

    def write(self, texts):
        with open(self.path, "w") as f:
            f.write("| a | b |\n|---|---|\n")
            for fid, t in texts.items():
                f.write(f"| {fid} | x <!-- fig:{fid} -->{t}<!-- /fig --> y |\n")

    def test_the_data_figures_pass(self):
        self.write({i: self.want[i] for i in self.placed})
        self.assertEqual(run(self.path, "--check"), (0, ""))

    def test_a_drifted_figure_is_named_and_write_repairs_it(self):
        texts = {i: self.want[i] for i in self.placed}
        texts["codesign_edge_x_grid"] = "1.39x"
        self.write(texts)
        rc, err = run(self.path, "--check")
        self.assertEqual(rc, 1)
        self.assertIn("codesign_edge_x_grid: README says '1.39x', "
                      f"bench/data/codesign_table_results.jsonl gives "
                      f"'{self.want['codesign_edge_x_grid']}'", err)
        self.assertEqual(err.count("README says"), 1)
        self.assertEqual(run(self.path, "--write")[0], 0)
        self.assertEqual(run(self.path, "--check"), (0, ""))
        self.assertIn(f"<!-- fig:codesign_edge_x_grid -->{self.want['codesign_edge_x_grid']}"
                      "<!-- /fig --> y |", open(self.path).read())

    def test_unknown_and_missing_markers_fail(self):
        texts = {i: self.want[i] for i in self.placed if i != "codesign_edge_dist"}
        texts["codesign_no_such_figure"] = "2x"
        self.write(texts)
        rc, err = run(self.path, "--check")
        self.assertEqual(rc, 1)
        self.assertIn("codesign_no_such_figure: a README marker with no entry in FIGURES", err)
        self.assertIn("codesign_edge_dist: no <!-- fig:codesign_edge_dist --> marker", err)

    def test_an_unplaced_figure_may_be_absent_but_is_checked_when_placed(self):
        unplaced = [f.id for f in rf.FIGURES if not f.placed]
        texts = {i: self.want[i] for i in self.placed}
        self.write(texts)
        self.assertEqual(run(self.path, "--check")[0], 0)
        for i in unplaced:
            texts[i] = "wrong"
        self.write(texts)
        self.assertEqual(run(self.path, "--check")[0], 1 if unplaced else 0)


if __name__ == "__main__":
    unittest.main()
