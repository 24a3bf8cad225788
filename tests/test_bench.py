"""The benchmark tool (tools/bench.py, ./waf bench): it runs, and its table agrees with the runs.

Timing itself is not tested (benchmarks, not tests); what is checked is that the numbers the tool
prints are the runs' own (events, flows, events per packet-hop) and that bad input is named.
"""

import csv
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir  # noqa: E402


def bench(*args):
    """Runs tools/bench.py on this build; (exit status, stdout, stderr)."""
    p = subprocess.run(
        [sys.executable, os.path.join(ROOT, "tools", "bench.py"), "--build", BUILD] + list(args),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=600,
    )
    return p.returncode, p.stdout, p.stderr


class Bench(ExampleTest):
    def test_one_incast_row_is_the_runs_own_numbers(self):
        out = output_dir("bench")
        rc, stdout, stderr = bench("--only", "incast-16x1MB", "--out", out)
        self.assertEqual(rc, 0, stdout + stderr)
        with open(os.path.join(out, "bench.csv")) as f:
            rows = list(csv.DictReader(f))
        self.assertEqual([r["scenario"] for r in rows], ["incast-16x1MB"])
        r = rows[0]
        with open(os.path.join(out, "incast-16x1MB", "summary.json")) as f:
            s = json.load(f)
        self.assertEqual(int(r["events"]), s["events"])
        self.assertEqual(r["flows_done"], "16/16")
        # 16 x 1 MB in 1000 B packets over 2 hops: at least 2 events per packet-hop (a
        # transmit-complete and an arrival), and the run's own ratio
        self.assertEqual(s["data_packets_sent"], 16 * 1000)
        # lossless, no retransmission: every data packet crosses its two links once
        self.assertEqual(s["data_frame_hops"], 2 * 16 * 1000)
        per_hop = float(r["events_per_packet_hop"])
        self.assertAlmostEqual(per_hop, s["events"] / (s["data_packets_sent"] * 2), places=2)
        self.assertGreaterEqual(per_hop, 2.0)
        self.assertGreater(float(r["peak_rss_mb"]), 1.0)
        self.assertGreater(float(r["process_s"]), float(r["run_s"]))
        self.assertIn("incast-16x1MB", stdout)

    def test_an_unknown_scenario_is_named(self):
        rc, _, stderr = bench("--only", "incast-17", "--out", output_dir("bench-bad"))
        self.assertEqual(rc, 2)
        self.assertIn("unknown scenario 'incast-17'", stderr)


if __name__ == "__main__":
    unittest.main()
