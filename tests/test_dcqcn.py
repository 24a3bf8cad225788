"""End-to-end checks of DCQCN against the paper's experiments (Zhu et al., SIGCOMM 2015):
PFC's unfairness and victim flow (Figures 3 and 4) against DCQCN's equal shares and steady
victim (Figures 8 and 9), convergence of two flows to fair rates and a low queue (section 5),
and a lossless incast with far fewer PAUSEs than PFC alone."""

import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ROOT, ExampleTest, output_dir, read_csv, run_example, summary  # noqa: E402


def top_summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


class DcqcnFairness(ExampleTest):
    def test_pfc_alone_is_unfair_and_dcqcn_shares_equally(self):
        # 100 ms: DCQCN (the paper's 40 Gb/s parameters) cuts hard on the line-rate start, then
        # recovers additively (R_AI = 40 Mb/s per 55 us) for about 15 ms
        _, out = run_example("dcqcn-fairness", "--duration=100ms")
        s = top_summary(out)
        # every case checked its own invariants (lossless: no drop)
        for scheme in ("none", "dcqcn"):
            self.assertEqual(s[scheme]["exit_status"], 0, s)
            case = summary(os.path.join(out, scheme))
            self.assertEqual(case["invariants"], "ok", case)
            self.assertEqual(case["drops_total"], 0, case)
            self.assertEqual(case["run_ends"], "duration", case)
        # Figure 3: H4, alone on its ingress port of T4, gets clearly more than any of H1-H3
        pfc = s["none"]["throughput_bps"]
        others = max(pfc["H1"], pfc["H2"], pfc["H3"])
        self.assertGreater(pfc["H4"], 1.5 * others, pfc)
        # the bottleneck is full either way (40 Gb/s, 1000 B payloads: 36.97 Gb/s of payload)
        for scheme in ("none", "dcqcn"):
            total = sum(s[scheme]["throughput_bps"].values())
            self.assertGreater(total, 0.95 * 36.97e9, s[scheme])
            self.assertLess(total, 36.97e9 * 1.001, s[scheme])
        # Figure 8: DCQCN's shares are equal over the last half
        self.assertGreaterEqual(s["dcqcn"]["jain_index"], 0.99, s["dcqcn"])
        self.assertLess(s["none"]["jain_index"], 0.9, s["none"])
        # and PFC is rarely triggered
        self.assertLess(s["dcqcn"]["pfc_pause_frames"], s["none"]["pfc_pause_frames"] / 10, s)


class DcqcnVictim(ExampleTest):
    def test_victim_keeps_its_throughput_with_dcqcn_and_loses_it_with_pfc_alone(self):
        _, out = run_example("dcqcn-victim", "--duration=50ms")
        s = top_summary(out)
        v = {k: c["victim_bps"] for k, c in s.items()}
        for k, c in s.items():
            self.assertEqual(c["exit_status"], 0, s)
        # Figure 4: with PFC alone the victim gets about 10 Gb/s though its path has room for
        # about 20, and it loses more with each sender added under T3 (cascading PAUSEs)
        self.assertLess(v["none-extra0"], 12e9, v)
        self.assertLess(v["none-extra1"], 0.9 * v["none-extra0"], v)
        self.assertLess(v["none-extra2"], 0.9 * v["none-extra1"], v)
        # Figure 9: with DCQCN the victim keeps its throughput as senders are added under T3:
        # never below 90 % of what it had without them (it may gain: the incast flows that
        # share its uplink of T1 get a smaller share of R's link, and leave it more room), and
        # at least twice what PFC alone leaves it
        base = v["dcqcn-extra0"]
        self.assertGreater(base, 0.9 * 20e9, v)
        for e in ("0", "1", "2"):
            self.assertGreaterEqual(v["dcqcn-extra" + e], 0.9 * base, v)
            self.assertGreater(v["dcqcn-extra" + e], 2 * v["none-extra" + e], v)


class DcqcnConvergence(ExampleTest):
    def test_two_flows_converge_and_the_queue_settles_without_pfc(self):
        _, out = run_example("dcqcn-convergence", "--flows=2", "--stagger=5ms", "--duration=60ms")
        s = summary(out)
        self.assertEqual(s["invariants"], "ok", s)
        self.assertEqual(s["drops_total"], 0, s)
        r = s["settled_rate_bps"]
        a, b = r["0"], r["1"]
        # the two flows within 10 % of each other, and the link full
        self.assertLess(abs(a - b), 0.1 * max(a, b), r)
        self.assertGreater(a + b, 0.95 * 36.97e9, r)
        # the queue settles at a level near K_min (far below K_max), with no PAUSE in the
        # settled half
        self.assertGreater(s["settled_queue_bytes"], 0, s)
        self.assertLess(s["settled_queue_bytes"], 0.5 * s["k_max_bytes"], s)
        half = s["duration_ns"] / 2
        late = [p for p in read_csv(out, "pfc.csv") if p["kind"] == "pause" and int(p["time_ns"]) > half]
        self.assertEqual(late, [], "PAUSE frames in the settled half")
        # rates.csv: a row per flow per 10 us sample
        rows = read_csv(out, "rates.csv")
        self.assertEqual(len(rows), 2 * (60000 // 10 + 1))


class DcqcnIncast(ExampleTest):
    def test_lossless_incast_has_no_drop_and_far_fewer_pauses_than_pfc_alone(self):
        # 4 MB each: the PAUSEs of DCQCN's line-rate start (before the first CNPs return
        # through the queue they built) are a fixed cost; PFC alone keeps pausing to the end
        _, out = run_example("ldcp-incast", "--cc=dcqcn", "--senders=16", "--size=4000000")
        d = summary(out)
        _, out2 = run_example("ldcp-incast", "--cc=none", "--pfc=1", "--senders=16", "--size=4000000")
        p = summary(out2)
        for s in (d, p):
            self.assertEqual(s["invariants"], "ok", s)
            self.assertIs(s["complete"], True, s)
            self.assertEqual(s["drops_total"], 0, s)
        self.assertGreater(p["pfc_pause_frames"], 0, p)
        self.assertLess(d["pfc_pause_frames"], p["pfc_pause_frames"] / 5, (d, p))
        # DCQCN's CNPs and per-64 KB ACKs are control frames; rates appear in flows.csv
        self.assertGreater(d["marks"], 0, d)


class Compare(ExampleTest):
    def test_compare_runs_every_scheme_and_prints_one_table(self):
        out = output_dir("compare")
        p = subprocess.run(
            [sys.executable, os.path.join(ROOT, "tools", "compare.py"), "--build", BUILD, "--out", out,
             "--run", "ldcp-incast --senders=8 --size=200000", "--schemes=ldcp,dcqcn,none"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600,
        )
        self.assertEqual(p.returncode, 0, p.stdout)
        lines = p.stdout.splitlines()
        head = [i for i, l in enumerate(lines) if l.split()[:1] == ["scheme"]]
        self.assertEqual(len(head), 1, p.stdout)
        rows = [l.split() for l in lines[head[0] + 1 : head[0] + 4]]
        self.assertEqual([r[0] for r in rows], ["ldcp", "dcqcn", "none"], p.stdout)
        self.assertTrue(all(r[1] == "8/8" for r in rows), p.stdout)
        for cc in ("ldcp", "dcqcn", "none"):
            s = summary(os.path.join(out, "ldcp-incast-" + cc))
            self.assertEqual(s["scheme"], cc, s)
            self.assertEqual(s["invariants"], "ok", s)
        # DCQCN runs lossless as deployed: PAUSEs, no drop; LDCP and line rate lossy
        self.assertEqual(summary(os.path.join(out, "ldcp-incast-dcqcn"))["drops_total"], 0)

    def test_compare_none_with_pfc_is_the_lossless_line_rate_baseline(self):
        # SCHEME+pfc: --cc=SCHEME --pfc=1. Line rate lossy drops (the 16 x 256 KB incast
        # overflows its 2 MB lossy buffer); on PFC it drops nothing and ends as the lossless
        # line-rate run the LDCP tests compare with.
        out = output_dir("compare-pfc")
        p = subprocess.run(
            [sys.executable, os.path.join(ROOT, "tools", "compare.py"), "--build", BUILD, "--out", out,
             "--run", "ldcp-incast", "--schemes=none,none+pfc"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=600,
        )
        self.assertEqual(p.returncode, 0, p.stdout)
        lines = p.stdout.splitlines()
        head = [i for i, l in enumerate(lines) if l.split()[:1] == ["scheme"]]
        self.assertEqual(len(head), 1, p.stdout)
        self.assertEqual([l.split()[0] for l in lines[head[0] + 1 : head[0] + 3]], ["none", "none+pfc"], p.stdout)
        lossy = summary(os.path.join(out, "ldcp-incast-none"))
        pfc = summary(os.path.join(out, "ldcp-incast-none+pfc"))
        _, direct = run_example("ldcp-incast", "--cc=none", "--pfc=1")
        ref = summary(direct)
        for s in (lossy, pfc):
            self.assertEqual((s["scheme"], s["invariants"], s["flows_done"]), ("none", "ok", 16), s)
        self.assertGreater(lossy["drops_total"], 0, lossy)
        self.assertEqual(pfc["drops_total"], 0, pfc)
        self.assertEqual(pfc["retx_bytes"], 0, pfc)
        self.assertEqual(pfc["fct_ns"], ref["fct_ns"], (pfc, ref))


if __name__ == "__main__":
    unittest.main()
