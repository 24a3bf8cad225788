"""End-to-end checks of DCQCN against the paper's experiments (Zhu et al., SIGCOMM 2015):
PFC's unfairness and victim flow (Figures 3 and 4) against DCQCN's equal shares and steady
victim (Figures 8 and 9), convergence of two flows to fair rates and a low queue (section 5),
and a lossless incast with far fewer PAUSEs than PFC alone."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ROOT, ExampleTest, run_compare, output_dir, read_csv, run_example, summary  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tools"))
import dcqcn_fluid  # noqa: E402
from fidelity import max_min_shares  # noqa: E402


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


def paper_fixed_point_queue(flows, c_bps, frame_bytes, k_min, k_max, p_max):
    """The queue at the fixed point of DCQCN's fluid model (Zhu et al., section 5.1,
    equations (5)-(9)) for `flows` flows sharing one link of `c_bps`, with the paper's other
    parameters: tools/dcqcn_fluid.py's fixed_point."""
    m = dict(dcqcn_fluid.PAPER, flows=flows, rate_bps=c_bps, frame_bytes=frame_bytes,
             k_min_bytes=k_min, k_max_bytes=k_max, p_max=p_max)
    return dcqcn_fluid.fixed_point(m)[0]


class DcqcnVictim(ExampleTest):
    def test_victim_keeps_its_fair_share_with_dcqcn_and_loses_it_with_pfc_alone(self):
        # PFC alone is steady from the start; DCQCN's victim, cut to a few Gb/s by the line-rate
        # start (alpha = 1, a cut per CNP while the start's queue drains), climbs back by
        # R_AI = 40 Mb/s per 55 us for about 30 ms: 100 ms leaves the last half (what the
        # example measures) to the settled rates
        _, out_pfc = run_example("dcqcn-victim", "--schemes=none", "--duration=50ms")
        _, out = run_example("dcqcn-victim", "--schemes=dcqcn", "--duration=100ms")
        s = dict(top_summary(out_pfc), **top_summary(out))
        self.assertEqual(len(s), 6, s)
        v = {k: c["victim_bps"] for k, c in s.items()}
        for k, c in s.items():
            self.assertEqual(c["exit_status"], 0, s)
        # Figure 4: with PFC alone the victim gets about 10 Gb/s though its path has room for
        # about 20, and it loses more with each sender added under T3 (cascading PAUSEs)
        self.assertLess(v["none-extra0"], 12e9, v)
        self.assertLess(v["none-extra1"], 0.9 * v["none-extra0"], v)
        self.assertLess(v["none-extra2"], 0.9 * v["none-extra1"], v)
        # Figure 9: with DCQCN the victim gets its max-min fair share in every case, within
        # 10 %, computed here from the links each flow's data took (ECMP's choices, from the
        # example). The issue asked for a victim flat within 10 % as senders are added under
        # T3, but its fair share is not flat: it shares one uplink of T1 with the incast flows
        # ECMP put there, each of which gets 1/n of R's link (n = 4, 5, 6 senders to R), so
        # with 2 of them on its uplink it is owed C - 2C/n = 18.5, 22.2, 24.6 Gb/s of payload
        # (+20 %, +33 %). Measured (seeds 1-3): +8.6, +4.3, +4.1 %; +6.4, +3.9, 0.0 %; +6.4,
        # +7.6, +1.7 % from those shares (above them: the two incast flows on its uplink are
        # marked at two queues, T1's and T4's, and get less than 1/n). README "DCQCN" says so.
        fair = {}
        for e in ("0", "1", "2"):
            case = summary(os.path.join(out, "dcqcn-extra" + e))
            # 40 Gb/s, 1000 B payloads: 36.97 Gb/s of payload on every link
            shares = max_min_shares(case["flows_on_link"], 36.97e9)
            fair[e] = shares[case["victim_flow"]]
            got = v["dcqcn-extra" + e]
            self.assertLess(abs(got - fair[e]), 0.1 * fair[e], (e, got, fair[e], case["flows_on_link"]))
            # and at least twice what PFC alone leaves it
            self.assertGreater(got, 2 * v["none-extra" + e], v)
        # the share the victim is owed never falls as senders are added away from its path
        self.assertLessEqual(fair["0"], fair["1"] * 1.0001, fair)
        self.assertLessEqual(fair["1"], fair["2"] * 1.0001, fair)


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
        # the queue settles near K_min, where the paper's fluid model puts it: at the model's
        # fixed point for 2 flows on 40 Gb/s with the paper's parameters (g = 1/256, N = 50 us,
        # K = T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mb/s; 1082 B frames: 1000 B of payload)
        # RED marks with p* = 0.084 %, at q* = K_min + p*/P_max (K_max - K_min) = 21.4 KB
        # (4.3 K_min). The mean of the settled half lies within a factor 2 of q* (10.7 to
        # 42.8 KB; K_max is 200 KB), with no PAUSE in the settled half
        q_star = paper_fixed_point_queue(2, 40e9, 1082, s["k_min_bytes"], s["k_max_bytes"], 0.01)
        self.assertAlmostEqual(q_star, 21.4e3, delta=0.1e3)
        self.assertGreater(s["settled_queue_bytes"], max(s["k_min_bytes"], q_star / 2), s)
        self.assertLess(s["settled_queue_bytes"], 2 * q_star, s)
        half = s["duration_ns"] / 2
        late = [p for p in read_csv(out, "pfc.csv") if p["kind"] == "pause" and int(p["time_ns"]) > half]
        self.assertEqual(late, [], "PAUSE frames in the settled half")
        # rates.csv: a row per flow per 10 us sample from its start (flow 1 at the 5 ms
        # stagger) to the end of the run
        rows = read_csv(out, "rates.csv")
        self.assertEqual(len(rows), (60000 // 10 + 1) + ((60000 - 5000) // 10 + 1))
        self.assertEqual(min(int(r["time_ns"]) for r in rows if r["flow_id"] == "1"), 5000000)


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
        rc, stdout = run_compare(out, "ldcp-incast --senders=8 --size=200000", "ldcp,dcqcn,none")
        self.assertEqual(rc, 0, stdout)
        lines = stdout.splitlines()
        head = [i for i, l in enumerate(lines) if l.split()[:1] == ["scheme"]]
        self.assertEqual(len(head), 1, stdout)
        rows = [l.split() for l in lines[head[0] + 1 : head[0] + 4]]
        self.assertEqual([r[0] for r in rows], ["ldcp", "dcqcn", "none"], stdout)
        self.assertTrue(all(r[1] == "8/8" for r in rows), stdout)
        for cc in ("ldcp", "dcqcn", "none"):
            s = summary(os.path.join(out, "ldcp-incast-" + cc))
            self.assertEqual(s["scheme"], cc, s)
            self.assertEqual(s["invariants"], "ok", s)
        # DCQCN runs lossless as deployed: PAUSEs, no drop; LDCP and line rate lossy
        self.assertEqual(summary(os.path.join(out, "ldcp-incast-dcqcn"))["drops_total"], 0)

    def test_compare_tables_and_outputs_do_not_depend_on_jobs(self):
        # --jobs runs several schemes and seeds at once (default: the machine's cores): the
        # table (but its wall-clock column) and every run's fct.csv are the same with 1 and 3
        def table_and_fcts(jobs):
            out = output_dir("compare-jobs%d" % jobs)
            rc, stdout = run_compare(
                out, "ldcp-incast --senders=8 --size=100000", "ldcp,dcqcn,none", extra=["--seeds=1,2", "--jobs=%d" % jobs]
            )
            self.assertEqual(rc, 0, stdout)
            lines = stdout.splitlines()
            head = [i for i, l in enumerate(lines) if l.split()[:1] == ["scheme"]]
            self.assertEqual(len(head), 1, stdout)
            # without the last cell, "wall s" (its mean and "±" interval over the two seeds)
            rows = [l.split()[:-2] for l in lines[head[0] + 1 : head[0] + 4]]
            fcts = {}
            for cc in ("ldcp", "dcqcn", "none"):
                for seed in (1, 2):
                    with open(os.path.join(out, "ldcp-incast-%s-seed%d" % (cc, seed), "fct.csv")) as f:
                        fcts[cc, seed] = f.read()
            return rows, fcts

        one, three = table_and_fcts(1), table_and_fcts(3)
        self.assertEqual([r[0] for r in one[0]], ["ldcp", "dcqcn", "none"], one)
        self.assertEqual(one, three)

    def test_compare_none_with_pfc_is_the_lossless_line_rate_baseline(self):
        # SCHEME+pfc: --cc=SCHEME --pfc=1. Line rate lossy drops (the 16 x 256 KB incast
        # overflows its 2 MB lossy buffer); on PFC it drops nothing and ends as the lossless
        # line-rate run the LDCP tests compare with.
        out = output_dir("compare-pfc")
        rc, stdout = run_compare(out, "ldcp-incast", "none,none+pfc")
        self.assertEqual(rc, 0, stdout)
        lines = stdout.splitlines()
        head = [i for i, l in enumerate(lines) if l.split()[:1] == ["scheme"]]
        self.assertEqual(len(head), 1, stdout)
        self.assertEqual([l.split()[0] for l in lines[head[0] + 1 : head[0] + 3]], ["none", "none+pfc"], stdout)
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
