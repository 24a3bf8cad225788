"""docs/: the generated references are current and complete, and every relative link of the
README, docs/ and rdma-cc.rst resolves (file and #anchor).

- tools/gen_reference.py (./waf docs) regenerated into a temporary directory must give the
  checked-in docs/reference/options.md, attributes.md and rdma-cc.rst byte for byte;
- every attribute of every TypeId in the group RdmaCc (--PrintGroup=RdmaCc, --PrintAttributes)
  and every option of every example (--help) appears in the checked-in reference;
- every Markdown link [text](path#anchor) that is not a URL names a file of the checkout, and
  its anchor a heading of that file (GitHub's rule: lower case, punctuation dropped, spaces to
  hyphens, -1, -2 ... for repeats)."""

import glob
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ExampleTest, output_dir  # noqa: E402
from common import ROOT as _ROOT  # noqa: E402

ROOT = os.path.abspath(_ROOT)

sys.path.insert(0, os.path.join(ROOT, "tools"))
import gen_reference  # noqa: E402

GENERATED = [
    os.path.join("docs", "reference", "options.md"),
    os.path.join("docs", "reference", "attributes.md"),
    gen_reference.RST,
]


def read(path):
    with open(path) as f:
        return f.read()


def pages():
    return [os.path.join(ROOT, "README.md")] + sorted(
        glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True)
    )


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)  # GitHub keeps letters, digits, _, - and spaces
    return s.replace(" ", "-")


def anchors(path):
    found = set()
    text = re.sub(r"^```.*?^```", "", read(path), flags=re.M | re.S)
    for h in re.findall(r"^#{1,6} (.*)$", text, re.M):
        base = slug(h)
        a, n = base, 0
        while a in found:
            n += 1
            a = "%s-%d" % (base, n)
        found.add(a)
    return found


def links(path):
    text = re.sub(r"^```.*?^```", "", read(path), flags=re.M | re.S)
    text = re.sub(r"`[^`\n]*`", "", text)  # code spans hold no links
    return re.findall(r"\[[^\]\n]*\]\(([^)\s]+)\)", text)


class GeneratedReference(ExampleTest):
    @classmethod
    def setUpClass(cls):
        cls.tmp = output_dir("docs-gen")
        p = subprocess.run(
            [sys.executable, os.path.join(ROOT, "tools", "gen_reference.py"), "--build", BUILD, "--out", cls.tmp],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600,
        )
        if p.returncode != 0:
            raise AssertionError("gen_reference.py failed:\n" + p.stdout)

    def test_the_checked_in_reference_is_current(self):
        for rel in GENERATED:
            self.assertEqual(
                read(os.path.join(ROOT, rel)),
                read(os.path.join(self.tmp, rel)),
                "%s is stale: run ./waf docs and commit the result" % rel,
            )

    def test_every_attribute_of_every_type_is_in_the_reference(self):
        build = os.path.abspath(BUILD)
        gen_reference.ENV = gen_reference.be.run_env(gen_reference.be.load(build))
        types = gen_reference.group_types(build)
        for t in ("ns3::RdmaNic", "ns3::SwitchNode", "ns3::QbbNetDevice", "ns3::QbbChannel", "ns3::RedEcnQueueDisc"):
            self.assertIn(t, types)
        doc = read(os.path.join(ROOT, "docs", "reference", "attributes.md"))
        sections = dict(re.findall(r"^## (ns3::\S+)\n(.*?)(?=^## |\Z)", doc, re.M | re.S))
        total = 0
        for t in types:
            self.assertIn(t, sections, "TypeId %s missing from attributes.md" % t)
            for name, _, _ in gen_reference.attributes(build, t):
                self.assertIn("| `%s` |" % name, sections[t], "%s::%s missing from attributes.md" % (t, name))
                total += 1
        self.assertGreaterEqual(total, 61 + 10, "the NIC alone has 61 attributes")

    def test_every_option_of_every_example_is_in_the_reference(self):
        doc = read(os.path.join(ROOT, "docs", "reference", "options.md"))
        for name in gen_reference.be.examples(ROOT):
            self.assertIn("\n## %s\n" % name, doc)
        self.assertIn("| `--cc` |", doc)
        self.assertIn("`ns3::RdmaNic::Scheme`", doc)


class Links(unittest.TestCase):
    def test_every_relative_link_resolves(self):
        bad = []
        count = 0
        for page in pages() + [os.path.join(ROOT, gen_reference.RST)]:
            for target in links(page):
                if re.match(r"^[a-z]+:", target):
                    continue  # a URL
                count += 1
                path, _, frag = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
                rel = os.path.relpath(page, ROOT)
                if not os.path.exists(dest):
                    bad.append("%s: %s (no such file)" % (rel, target))
                elif frag and dest.endswith(".md") and frag not in anchors(dest):
                    bad.append("%s: %s (no such heading)" % (rel, target))
        self.assertEqual(bad, [], "\n".join(bad))
        self.assertGreater(count, 50)

    def test_the_docs_index_links_every_page(self):
        index = os.path.join(ROOT, "docs", "README.md")
        linked = {os.path.normpath(os.path.join(ROOT, "docs", l.partition("#")[0])) for l in links(index)}
        for page in pages():
            if page not in (index, os.path.join(ROOT, "README.md")):
                self.assertIn(page, linked, "docs/README.md does not link %s" % os.path.relpath(page, ROOT))


if __name__ == "__main__":
    unittest.main()
