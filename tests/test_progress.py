"""The progress line (rdmacc::ProgressLine): shown on standard error only when it is a terminal,
and changing no output (summary.json, fct.csv and the events count are those of a run without
it). RDMACC_PROGRESS=0 starts it at once (instead of after 2 s of wall time) so the runs here
stay short."""

import os
import pty
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir, read_bytes, run_example, stable_summary  # noqa: E402


def run_on_a_terminal(name, *args):
    """Runs examples/NAME with standard error on a pseudo-terminal; returns (exit status, what
    the terminal got, output directory)."""
    out = output_dir(name)
    env = dict(os.environ, RDMACC_PROGRESS="0.0")
    master, slave = pty.openpty()
    with open(os.devnull, "w") as null:
        p = subprocess.Popen([os.path.join(BUILD, "examples", name), "--out=" + out] + list(args),
                             cwd=ROOT, env=env, stdout=null, stderr=slave)
    os.close(slave)
    got = b""
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:  # the terminal's other end closed
            break
        if not data:
            break
        got += data
    os.close(master)
    return p.wait(timeout=600), got.decode("utf-8", "replace"), out


class ProgressLine(ExampleTest):
    def check(self, name, args, expect):
        rc, tty, out = run_on_a_terminal(name, *args)
        self.assertEqual(rc, 0, tty)
        for e in expect:
            self.assertIn(e, tty)
        self.assertIn(" M events/s, wall ", tty)
        self.assertTrue(tty.endswith("\r\x1b[K"), repr(tty[-80:]))  # erased at the end
        p, plain = run_example(name, *args, env={"RDMACC_PROGRESS": "0.0"})
        self.assertNotIn("events/s, wall", p.stdout)  # not a terminal: no line
        self.assertEqual(stable_summary(out), stable_summary(plain))
        return out, plain

    def test_shown_on_a_terminal_and_changes_no_output(self):
        out, plain = self.check(
            "fat-tree-workload", ["--k=4", "--duration=200us", "--cc=dcqcn"], ["fat-tree-workload: sim ", "% of --limit=10s", "flows done"]
        )
        self.assertEqual(read_bytes(out, "fct.csv"), read_bytes(plain, "fct.csv"))
        self.assertEqual(read_bytes(out, "queue.csv"), read_bytes(plain, "queue.csv"))
        self.check("pfc-incast", ["--senders=4", "--size=200000"], ["pfc-incast: sim ", "% of --limit="])


if __name__ == "__main__":
    unittest.main()
