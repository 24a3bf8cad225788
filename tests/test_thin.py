"""The C++ half stays thin (issue 26): the scenario helpers are pieces with one job each and
the examples are short programs on them.

- no file of ns3-module/helper/ over 600 lines;
- no function of ns3-module/helper/ over 80 lines (from its opening brace to its closing one);
- no example (examples/*.cc) over 250 lines.

Function lengths use a brace heuristic that holds for the ns-3 style clang-format gives: a
function body opens with a `{` alone at column 0 and closes with the next `}` alone at column 0
(a class, struct, enum or namespace body, whose `{` follows such a keyword, is not a function).
Needs no build.

Not yet thin: the entries of REMAINING, each at most its size when listed. They may shrink,
not grow; one that meets the limit must leave the list (a test says so), so that the list only
ever gets shorter. It is empty now: red-ecn-dumbbell's options, checks and network moved to
dumbbell-options, dumbbell-routing and queue-disc-monitor, fat-tree-workload's options of the
topology and the flows to workload-options."""

import glob
import os
import re
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HELPER = os.path.join(ROOT, "ns3-module", "helper")
EXAMPLES = os.path.join(ROOT, "examples")

MAX_HELPER_FILE = 600
MAX_FUNCTION = 80
MAX_EXAMPLE = 250

# what is still over a limit: file (or "file function") -> its lines today
REMAINING = {}

NOT_A_FUNCTION = re.compile(r"^\s*(namespace|class|struct|enum|union|extern)\b")


def lines_of(path):
    with open(path) as f:
        return f.read().split("\n")


def line_count(path):
    with open(path) as f:
        return sum(1 for _ in f)


def functions(path):
    """(first line of the signature, 1-based, its text, length in lines of the body) per
    function body at column 0 of `path`."""
    lines = lines_of(path)
    out = []
    for i, line in enumerate(lines):
        if line.rstrip() != "{":
            continue
        head = i - 1
        while head >= 0 and not lines[head].strip():
            head -= 1
        if head < 0 or NOT_A_FUNCTION.match(lines[head]):
            continue
        # the signature: back to the line after the previous blank, comment or closing line
        start = head
        while start > 0 and lines[start - 1].strip() and not lines[start - 1].startswith(
            ("}", "//", " *", "/*", "#")
        ):
            start -= 1
        end = next((j for j in range(i + 1, len(lines)) if lines[j].rstrip() in ("}", "};")), None)
        if end is None or lines[end].rstrip() == "};":
            continue
        out.append((start + 1, lines[head].strip(), end - i + 1))
    return out


def over(measured, limit):
    """The entries of `measured` (name -> lines) over `limit`, less those REMAINING allows."""
    return {k: n for k, n in measured.items() if n > limit and n > REMAINING.get(k, 0)}


def sources(directory, patterns):
    return sorted(p for pat in patterns for p in glob.glob(os.path.join(directory, pat)))


def helper_files():
    return {
        os.path.relpath(p, ROOT): line_count(p)
        for p in sources(HELPER, ["*.cc", "*.h", "*/*.cc", "*/*.h"])
    }


def helper_functions():
    return {
        "%s %s" % (os.path.relpath(p, ROOT), name): n
        for p in sources(HELPER, ["*.cc", "*.h", "*/*.cc", "*/*.h"])
        for _, name, n in functions(p)
    }


def example_files():
    return {os.path.relpath(p, ROOT): line_count(p) for p in sources(EXAMPLES, ["*.cc"])}


def limit_of(key):
    """The limit an entry of REMAINING is measured against."""
    if key.startswith("examples/"):
        return MAX_EXAMPLE
    return MAX_FUNCTION if " " in key else MAX_HELPER_FILE


class ThinTest(unittest.TestCase):
    def test_no_helper_file_over_600_lines(self):
        self.assertEqual(over(helper_files(), MAX_HELPER_FILE), {})

    def test_no_helper_function_over_80_lines(self):
        self.assertEqual(over(helper_functions(), MAX_FUNCTION), {})

    def test_no_example_over_250_lines(self):
        self.assertEqual(over(example_files(), MAX_EXAMPLE), {})

    def test_remaining_list_holds_only_what_is_still_over(self):
        measured = {**helper_files(), **helper_functions(), **example_files()}
        done = [k for k in REMAINING if measured.get(k, 0) <= limit_of(k)]
        self.assertEqual(done, [], "now within the limit: remove from REMAINING")

    def test_heuristic_finds_a_known_function(self):
        # the heuristic must see functions at all (an empty list would pass the tests above)
        names = helper_functions()
        self.assertTrue(any("RdmaScenario::Finish" in n for n in names), list(names)[:5])
        finish = "ns3-module/helper/rdma-scenario-results.cc RdmaScenario::Finish(const rdmacc::JsonObject& extra)"
        self.assertLess(names[finish], 40, "Finish() is a short sequence of calls")


if __name__ == "__main__":
    unittest.main()
