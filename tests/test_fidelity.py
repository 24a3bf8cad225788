"""The Fidelity page (docs/fidelity.md, written by tools/fidelity.py) against a fresh rerun of
its quick claims: each quick claim's verdict now must be the one the committed page records (a
claim flipping, either way, fails: rerun `./waf fidelity` and commit the page, with the reason
for a new miss), and the page's rows are the tool's claim list, in order."""

import json
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir  # noqa: E402

TOOL = os.path.join(ROOT, "tools", "fidelity.py")
PAGE = os.path.join(ROOT, "docs", "fidelity.md")
# | `id` (quick) | claim | source | source value | ours | verdict | reason |  (a cell escapes | as \|)
ROW = re.compile(r"^\| `([^`]+)`( \(quick\))? \|.*\| (✔|\*\*miss\*\*) \|(?:[^|\\]|\\.)*\|$")


def page_rows(path):
    """[(claim id, quick, "pass" | "miss")] of the page's table, in order."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ROW.match(line.rstrip("\n"))
            if m:
                rows.append((m.group(1), bool(m.group(2)), "pass" if m.group(3) == "✔" else "miss"))
    return rows


def tool_claims():
    """[(claim id, quick)] of tools/fidelity.py --list."""
    p = subprocess.run([sys.executable, TOOL, "--list"], stdout=subprocess.PIPE, universal_newlines=True, check=True)
    return [(line.split()[0], line.split()[1:] == ["quick"]) for line in p.stdout.splitlines() if line.strip()]


class FidelityPage(ExampleTest):
    def test_page_rows_are_the_tools_claims_in_order(self):
        rows = page_rows(PAGE)
        self.assertEqual([(c, q) for c, q, _ in rows], tool_claims())
        # every miss on the page names its reason (the tool writes NO NAMED REASON otherwise)
        with open(PAGE, encoding="utf-8") as f:
            self.assertNotIn("NO NAMED REASON", f.read())

    def test_quick_claims_keep_the_verdicts_the_page_records(self):
        out = output_dir("fidelity")
        p = subprocess.run([sys.executable, TOOL, "--build", BUILD, "--quick", "--out", out],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=900)
        self.assertEqual(p.returncode, 0, p.stdout[-4000:])
        with open(os.path.join(out, "verdicts.json")) as f:
            now = json.load(f)
        recorded = {c: v for c, q, v in page_rows(PAGE) if q}
        self.assertEqual(sorted(now), sorted(recorded), "the quick claims ran are the page's quick rows")
        flipped = {c: (recorded[c], now[c]) for c in now if now[c] != recorded[c]}
        self.assertEqual(flipped, {}, "claim: (page, now)\n" + p.stdout[-3000:])
        # the quick page has the same rows as the committed one for these claims
        self.assertEqual([c for c, _, _ in page_rows(os.path.join(out, "fidelity.md"))],
                         [c for c, q, _ in page_rows(PAGE) if q])

    def test_only_rewrites_the_named_rows_alone_and_refuses_unknown_ids(self):
        out = output_dir("fidelity-only")
        page = os.path.join(out, "page.md")
        os.makedirs(out, exist_ok=True)
        with open(PAGE, encoding="utf-8") as f:
            before = f.read()
        marked = before.replace("| `rcm.fig6b` (quick) | rcm-burst", "| `rcm.fig6b` (quick) | OLD rcm-burst")
        self.assertNotEqual(marked, before)
        with open(page, "w", encoding="utf-8") as f:
            f.write(marked)
        runs = os.path.join(out, "runs")
        p = subprocess.run([sys.executable, TOOL, "--build", BUILD, "--only", "rcm.fig6b", "--out", runs,
                            "--page", page], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stdout[-4000:])
        with open(os.path.join(runs, "verdicts.json")) as f:
            self.assertEqual(list(json.load(f)), ["rcm.fig6b"])
        with open(page, encoding="utf-8") as f:
            after = f.read().splitlines()
        # the named row is rewritten (the marker gone), every other line is as it was
        old = marked.splitlines()
        self.assertEqual(len(after), len(old))
        changed = [i for i, (a, b) in enumerate(zip(old, after)) if a != b]
        self.assertEqual([old[i].split(" |")[0] for i in changed], ["| `rcm.fig6b` (quick)"])
        self.assertNotIn("OLD", after[changed[0]])
        # an unknown id is refused (exit 2), the page untouched
        q = subprocess.run([sys.executable, TOOL, "--build", BUILD, "--only", "rcm.nope", "--out", runs,
                            "--page", page], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=60)
        self.assertEqual(q.returncode, 2, q.stdout)
        self.assertIn("--only", q.stdout)
        with open(page, encoding="utf-8") as f:
            self.assertEqual(f.read().splitlines(), after)


if __name__ == "__main__":
    unittest.main()
