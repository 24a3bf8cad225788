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


if __name__ == "__main__":
    unittest.main()
