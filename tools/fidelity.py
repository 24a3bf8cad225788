#!/usr/bin/env python3
"""Reruns every published claim that rdma-cc reproduces and writes the Fidelity page.

    tools/fidelity.py [--build DIR] [--quick | --only ID[,ID...]] [-j N] [--out DIR] [--page FILE] [--list]

`./waf fidelity [--quick] [-j N]` builds, then runs this with --build set to its build
directory; run by hand it needs a tree built by `./waf build` (default --build: build/).

Each claim is one row of the page: the claim, its source (paper section or figure, draft
section), the source's value, ours on each seed (and link speed), the verdict (✔ or miss) and,
for a miss, its named reason with the measurement that shows it (some reasons rerun a probe of
their own; the rest cite the doc section that measured them). The claims:

  LDCP (draft -01, the project's targets): the 16-sender incast's last FCT, the 1000 x 16 KB
  incast's goodput (window and rate variant) and the churn run's short flows, at 25, 100 and
  400 Gb/s, seeds 1-3;
  DCQCN (Zhu et al., SIGCOMM 2015): dcqcn-convergence against the section 5 fluid model
  (tools/dcqcn_fluid.py) for 2, 10 and 20 flows, seeds 1-3; Fig. 3/8 and Fig. 4/9 spread over
  ECMP path mappings (--mappings), seeds 1-3;
  RCM (Liu et al., NPC 2017): Fig. 6 (rcm-burst), Fig. 8 and Fig. 9 (fat-tree-workload, k = 6),
  seeds 1-3.

Every run is made afresh in --out (default results/fidelity/, emptied first; nothing is reused
from an earlier invocation), --jobs at a time (default 2). --quick runs the subset marked quick
in --list (well under 2 minutes on 2 cores; ./waf check runs it in tests/test_fidelity.py) and
writes its page to OUT/fidelity.md; the full run writes docs/fidelity.md (or --page) and states
its wall time there. --only reruns the named claims alone (ids as --list prints them) and
rewrites only their rows of the page (docs/fidelity.md or --page, which must hold a row for
each), leaving every other row and line as it was. All write OUT/verdicts.json: {claim id:
"pass" | "miss"} of the claims run.

Exit status: 0 the page is written (misses included: each has its named reason); 1 a run
crashed or exited other than 0 or 3, or a claim missed without a named reason (the page is
written, the row says so); 2 bad options.
"""

import argparse
import concurrent.futures
import csv
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import buildenv  # noqa: E402
import dcqcn_fluid  # noqa: E402

ROOT = buildenv.ROOT
SEEDS = (1, 2, 3)
SPEEDS = ("25Gbps", "100Gbps", "400Gbps")
# ECMP mappings (--mappings=N: --ecmpSeed=1..N) of the DCQCN Fig. 3/4/8/9 runs; the DCQCN victim
# runs (9 cases x seeds, 100 ms each) take 2 to keep the full run within about half an hour
MAPPINGS = 4
VICTIM_MAPPINGS = 2
MARKER = ".fidelity-out"  # an --out directory this tool made (and may empty)

RST = "../ns3-module/doc/rdma-cc.rst"
DOC_LDCP = RST + "#fidelity-ldcp-across-link-speeds"
DOC_FLUID = RST + "#fidelity-dcqcn-fluid-model"
DOC_RCM = RST + "#fidelity-rcm"
DOC_CAL = "calibration.md"
DOC_DCQCN = "schemes/dcqcn.md"
DOC_RCM_WL = "schemes/rcm.md#rcm-on-workloads-hot-spot-fig-8-and-enterprise--data-mining-fig-9"


class FidelityError(Exception):
    pass


# --------------------------------------------------------------------------------------------
# runs


class Runs:
    """Every example run the claims need, made once each (shared by claims), --jobs at a time."""

    def __init__(self):
        self.wanted = {}  # key -> (example, args)

    def need(self, example, *args):
        key = (example,) + tuple(args)
        self.wanted.setdefault(key, (example, list(args)))
        return key

    def execute(self, info, out, jobs):
        env = buildenv.run_env(info)
        self.dirs, self.status, self.logs = {}, {}, {}
        keys = sorted(self.wanted)
        for i, key in enumerate(keys):
            self.dirs[key] = os.path.join(out, "run%03d-%s" % (i, key[0]))

        def one(key):
            example, args = self.wanted[key]
            prog = buildenv.program_path(info, example)
            if not prog or not os.path.exists(prog):
                raise FidelityError("%s is not built (run ./waf build)" % example)
            cmd = [prog] + args + ["--out=" + self.dirs[key]]
            t0 = time.monotonic()
            p = subprocess.run(cmd, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            return key, cmd, p.returncode, p.stdout, time.monotonic() - t0

        done = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            for key, cmd, rc, log, secs in ex.map(one, keys):
                done += 1
                self.status[key] = rc
                self.logs[key] = log
                print("[%d/%d] %s: exit %d, %.1f s" % (done, len(keys), " ".join(key), rc, secs))
                sys.stdout.flush()
                if rc not in (0, 3):
                    raise FidelityError("%s\n%s exited %d" % (log[-3000:], " ".join(cmd), rc))

    def summary(self, key, case=None):
        """summary.json of a run (of one case: CASE/summary.json); None for a run whose
        invariants failed (exit 3)."""
        if self.status[key] == 3:
            return None
        path = os.path.join(self.dirs[key], *(([case] if case else []) + ["summary.json"]))
        with open(path) as f:
            return json.load(f)

    def dir(self, key):
        return self.dirs[key]


# --------------------------------------------------------------------------------------------
# formatting


def pct(x):
    return "%.1f %%" % (100 * x)


def signed(x):
    return "%+.1f %%" % (100 * x)


def by_seed(xs, fmt):
    return " / ".join(fmt(x) for x in xs)


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs)


class Claim:
    """One row: id, claim, source, source value; runs(runs) declares the runs; judge(runs)
    returns (ours text, passed, measured dict for the reason); reason(measured) names a miss."""

    quick = False
    probe = None  # optional: (runs) -> None, extra runs made for the reason (full mode only)

    def __init__(self, cid, area, claim, source, value, quick=False):
        self.id, self.area, self.claim, self.source, self.value, self.quick = cid, area, claim, source, value, quick

    def reason(self, m):
        return None


def rate_label(rate):
    return rate.replace("Gbps", " Gb/s")


# --------------------------------------------------------------------------------------------
# LDCP

LDCP_SRC = "LDCP draft -01 §3 (the project's targets: [calibration](%s#ldcp-defaults-from-the-sweep))" % DOC_CAL


class LdcpIncast16(Claim):
    def __init__(self, rate):
        super().__init__("ldcp.incast16@%s" % rate, "LDCP",
                         "16 × 256 KB incast at %s: last FCT / the lossless line-rate run's" % rate_label(rate),
                         LDCP_SRC, "≤ 1.10", quick=True)
        self.rate = rate

    def runs(self, r):
        self.k = [(r.need("ldcp-incast", "--rate=" + self.rate, "--seed=%d" % s),
                   r.need("ldcp-incast", "--cc=none", "--pfc=1", "--rate=" + self.rate, "--seed=%d" % s))
                  for s in SEEDS]

    def probe(self, r):
        if self.rate == "400Gbps":
            # K_fs (default 6 hop BDPs = 600 KB here) at 2 and 4 hop BDPs, seed 1
            self.pk = [(kfs, r.need("ldcp-incast", "--rate=400Gbps", "--kfs=%d" % kfs, "--seed=1"))
                       for kfs in (200000, 400000)]

    def judge(self, r):
        ratios, m = [], {"drops": [], "retx": [], "marks": []}
        for k, kp in self.k:
            s, p = r.summary(k), r.summary(kp)
            if s is None or p is None or s["flows_done"] != s["flows_total"]:
                return "a run failed its invariants", False, {"failed": True}
            ratios.append(s["fct_ns"]["max"] / p["fct_ns"]["max"])
            m["opt_ns"] = p["fct_ns"]["max"]
            m["kfs"], m["sent"] = s["k_fs_bytes"], s["bytes_sent"]
            m["drops"].append(s["first_rtt_drops"])
            m["retx"].append(s["retx_bytes"])
            m["marks"].append(s["marks"])
        if hasattr(self, "pk"):
            m["probe"] = [(kfs, r.summary(k)["fct_ns"]["max"] / m["opt_ns"]) for kfs, k in self.pk
                          if r.summary(k) is not None]
        m["ratios"] = ratios
        return by_seed(ratios, lambda x: "%.3f" % x), all(x <= 1.10 for x in ratios), m

    def reason(self, m):
        if m.get("failed"):
            return None
        resent = ("the 16 first-RTT bursts (IW = one path BDP each, sent Not-ECT) meet K_fs = %d KB: %s first-RTT "
                  "drops, and go-back-N resends %s KB, %s of the %d KB incast"
                  % (m["kfs"] / 1e3, "/".join("%d" % x for x in sorted(set(m["drops"]))),
                     "/".join("%d" % (x / 1e3) for x in sorted(set(m["retx"]))),
                     pct(max(m["retx"]) / m["sent"]), m["sent"] / 1e3))
        if self.rate == "400Gbps":
            probe = ""
            if m.get("probe"):
                probe = "; K_fs = %s (seed 1): %s, not within 1.1 either" % (
                    " and ".join("%d KB" % (k / 1e3) for k, _ in m["probe"]),
                    " and ".join("%.3f" % x for _, x in m["probe"]))
            return ("**IW resent on a run of a few RTTs**: %s; at 400 Gb/s IW is 4 × the 100 Gb/s one for the "
                    "same 256 KB messages and the lossless run takes only %.1f µs, so the recovery is not "
                    "amortised%s ([LDCP across speeds](%s), [K_fs sweep](%s))"
                    % (resent, m["opt_ns"] / 1e3, probe, DOC_LDCP, DOC_CAL))
        return ("**first-RTT resend, spread by RED's draws**: %s, the same on every seed; the seed moves only "
                "RED's marking draws (%d-%d marks), which spread the last FCT over %.3f-%.3f around the bound "
                "([LDCP across speeds](%s))"
                % (resent, min(m["marks"]), max(m["marks"]), min(m["ratios"]), max(m["ratios"]), DOC_LDCP))


class LdcpIncast1000(Claim):
    def __init__(self, rate, variant):
        rv = variant == "ldcp-rate"
        super().__init__("%s.incast1000@%s" % (variant, rate), "LDCP",
                         "1000 × 16 KB incast at %s%s: goodput / wire limit"
                         % (rate_label(rate), ", rate variant" if rv else ""),
                         LDCP_SRC, "≥ 90 %" if rv else "≥ 85 %")
        self.rate, self.variant, self.target = rate, variant, 0.90 if rv else 0.85

    def runs(self, r):
        self.k = [r.need("ldcp-incast", "--cc=" + self.variant, "--senders=1000", "--size=16384",
                         "--rate=" + self.rate, "--seed=%d" % s) for s in SEEDS]

    def probe(self, r):
        if self.variant == "ldcp-rate":
            # probes spaced by 4 data packets instead of one per RTT (seed 1)
            self.pp = r.need("ldcp-incast", "--cc=ldcp-rate", "--senders=1000", "--size=16384", "--rate=" + self.rate,
                             "--probePackets=4", "--seed=1")
        if self.variant == "ldcp" and self.rate == "25Gbps":
            # K_fs = 2 hop BDPs (2 x 25 Gb/s x 2 us = 12.5 KB) at 25 Gb/s: the incast and churn
            self.pk = r.need("ldcp-incast", "--senders=1000", "--size=16384", "--rate=25Gbps", "--kfs=12500",
                             "--seed=1")
            self.pc = r.need("ldcp-churn", "--rate=25Gbps", "--kfs=12500", "--seed=1")
            self.pc0 = r.need("ldcp-churn", "--rate=25Gbps", "--seed=1")

    def judge(self, r):
        g, m = [], {}
        for k in self.k:
            s = r.summary(k)
            if s is None or s["flows_done"] != s["flows_total"]:
                return "a run failed its invariants (collapse?)", False, {"failed": True}
            g.append(s["goodput_active_bps"] / s["wire_limit_bps"])
            m.setdefault("queue_avg", s["queue_avg_bytes"])
            m.setdefault("buf", s["buf_max_bytes"])
            m.setdefault("stable_drops", s["stable_stage_drops"])
            m.setdefault("first_rtt_drops", s["first_rtt_drops"])
            m.setdefault("data_packets", s["data_packets_sent"])
            m.setdefault("retx", s["retx_bytes"])
            m.setdefault("sent", s["bytes_sent"])
            m.setdefault("probes", s["probes_sent"])
        if hasattr(self, "pp") and r.summary(self.pp) is not None:
            p = r.summary(self.pp)
            m["pp"] = (p["goodput_active_bps"] / p["wire_limit_bps"], p["probes_sent"] / (p["probes_sent"] + p["data_packets_sent"]),
                       p["stable_stage_drops"])
        if hasattr(self, "pk") and r.summary(self.pk) is not None:
            p, c, c0 = r.summary(self.pk), r.summary(self.pc), r.summary(self.pc0)
            m["probe"] = (p["goodput_active_bps"] / p["wire_limit_bps"], c["short_slowdown"]["p99"],
                          c0["short_slowdown"]["p99"])
        m["g"] = g
        return by_seed(g, pct), all(x >= self.target for x in g), m

    def reason(self, m):
        if m.get("failed"):
            return None
        if self.variant == "ldcp-rate":
            pp = ""
            if "pp" in m:
                pp = ("; spacing probes by 4 data packets (seed 1) cuts them to %s of the frames and gives %s "
                      "with %d stable-stage drops" % (pct(m["pp"][1]), pct(m["pp"][0]), m["pp"][2]))
            return ("**probes against stable-stage loss, beside a standing queue**: one probe per RTT (the "
                    "default) puts %d probes beside %d data packets (%s of the frames) through the bottleneck, "
                    "and R = cw·MTU/RTT with 1000 flows at the floor γ = 1/4 holds at least 250 packets queued "
                    "(measured %.0f KB average); %d stable-stage drops, %.2f × the payload resent%s "
                    "([LDCP across speeds](%s), [probe spacing sweep](%s#ldcp-rate-variant-start-pacing-probes-decisions-from-the-sweep))"
                    % (m["probes"], m["data_packets"], pct(m["probes"] / (m["probes"] + m["data_packets"])),
                       m["queue_avg"] / 1e3, m["stable_drops"], m["retx"] / m["sent"], pp, DOC_LDCP, DOC_CAL))
        probe = ""
        if "probe" in m:
            g, p99, p99_0 = m["probe"]
            probe = ("; rerun with K_fs = 2 hop BDPs (12.5 KB, seed 1): %s, but the churn short-flow p99 "
                     "goes %.1f → %.1f, so the one default stays" % (pct(g), p99_0, p99))
        return ("**IW ≈ a whole message at low speed**: at 25 Gb/s IW is 15 packets, so each 16-packet "
                "message goes almost whole as Not-ECT in its first RTT and meets K_fs: %d first-RTT drops "
                "(seed 1)%s ([LDCP across speeds](%s), [IW × γ sweep](%s))"
                % (m["first_rtt_drops"], probe, DOC_LDCP, DOC_CAL))


class LdcpChurn(Claim):
    def __init__(self, rate):
        super().__init__("ldcp.churn@%s" % rate, "LDCP",
                         "churn at %s: fast start beats none (p50 and p99), short-flow slowdown p50" % rate_label(rate),
                         LDCP_SRC, "better; p50 ≤ 2", quick=True)
        self.rate = rate

    def runs(self, r):
        self.k = [(r.need("ldcp-churn", "--rate=" + self.rate, "--seed=%d" % s),
                   r.need("ldcp-churn", "--fastStart=0", "--rate=" + self.rate, "--seed=%d" % s)) for s in SEEDS]

    def judge(self, r):
        cells, ok = [], True
        for k, k0 in self.k:
            fs, nofs = r.summary(k), r.summary(k0)
            if fs is None or nofs is None:
                return "a run failed its invariants", False, {"failed": True}
            a, b = fs["short_slowdown"], nofs["short_slowdown"]
            ok &= a["p50"] < b["p50"] and a["p99"] < b["p99"] and a["p50"] <= 2.0
            cells.append("%.2f (none %.1f)" % (a["p50"], b["p50"]))
        return " / ".join(cells), ok, {}


# --------------------------------------------------------------------------------------------
# DCQCN


DCQCN_SRC = "DCQCN (SIGCOMM 2015)"


def queue_time_shares(run_dir, t0, t1, kmin, kmax):
    """Shares of [t0, t1) during which the bottleneck's queue (queue.csv, one port; each sample
    holds until the next, a missing sample being an empty queue, the last holding one sample
    interval) was above kmax and below kmin."""
    with open(os.path.join(run_dir, "queue.csv")) as f:
        q = [(int(x["time_ns"]), int(x["bytes"])) for x in csv.DictReader(f)]
    step = min((b[0] - a[0] for a, b in zip(q, q[1:])), default=1)
    above = below_covered = 0
    for i, (t, b) in enumerate(q):
        if not t0 <= t < t1:
            continue
        span = min(q[i + 1][0] - t if i + 1 < len(q) else step, step, t1 - t)
        if b > kmax:
            above += span
        if b >= kmin:
            below_covered += span
    return above / (t1 - t0), 1 - below_covered / (t1 - t0)


class DcqcnFluid(Claim):
    def __init__(self, flows, quick=False):
        super().__init__("dcqcn.fluid.n%d" % flows, "DCQCN",
                         "dcqcn-convergence, %d flows (1 ms apart, 120 ms): settled queue and mean rate "
                         "against the fluid model" % flows,
                         "%s §5, eqs. (5)-(9) ([tools/dcqcn_fluid.py](../tools/dcqcn_fluid.py))" % DCQCN_SRC,
                         "queue ± 30 %, mean rate ± 10 %", quick=quick)
        self.flows = flows

    def args(self, *extra):
        return ("--flows=%d" % self.flows, "--stagger=1ms", "--duration=120ms") + extra

    def runs(self, r):
        self.k = [r.need("dcqcn-convergence", *self.args("--seed=%d" % s)) for s in SEEDS]

    def probe(self, r):
        if self.flows in (10, 20):
            self.pk = r.need("dcqcn-convergence", *self.args("--kmax=400KB", "--pmax=0.02", "--seed=1"))

    def judge(self, r):
        models = r.models
        qs, rs, qm, rm, swings = [], [], None, None, []
        for k in self.k:
            s = r.summary(k)
            if s is None:
                return "a run failed its invariants", False, {"failed": True}
            model = models[k]
            qm, rm = model["settled_queue_bytes"], mean(model["settled_rate_bps"].values())
            qs.append(s["settled_queue_bytes"])
            rs.append(mean(s["settled_rate_bps"].values()))
            # the settled half (as the example's settled values)
            half = s["duration_ns"] // 2
            swings.append(queue_time_shares(r.dir(k), half, 2 * half, s["k_min_bytes"], s["k_max_bytes"]))
        ok = all(abs(q / qm - 1) < 0.30 for q in qs) and all(abs(x / rm - 1) < 0.10 for x in rs)
        text = "queue %s KB (model %.1f); rate %s Gb/s (model %.2f)" % (
            by_seed(qs, lambda q: "%.1f" % (q / 1e3)), qm / 1e3, by_seed(rs, lambda x: "%.2f" % (x / 1e9)), rm / 1e9)
        m = {"q_ratio": [q / qm for q in qs], "r_ratio": [x / rm for x in rs], "qm": qm,
             "above": [a for a, _ in swings], "below": [b for _, b in swings]}
        if hasattr(self, "pk") and r.summary(self.pk) is not None:
            ps = r.summary(self.pk)
            pm = models[self.pk]
            half = ps["duration_ns"] // 2
            above = queue_time_shares(r.dir(self.pk), half, 2 * half, ps["k_min_bytes"], ps["k_max_bytes"])[0]
            m["probe"] = (ps["settled_queue_bytes"] / pm["settled_queue_bytes"], pm["settled_queue_bytes"], above)
        return text, ok, m

    def reason(self, m):
        if m.get("failed"):
            return None
        probe = ""
        if "probe" in m:
            ratio, qm, above = m["probe"]
            probe = ("; moving the cliff (K_max 400 KB, P_max 2 %%: p(q) unchanged up to 200 KB) brings seed 1 "
                     "to %.2f × its model's %.1f KB, its queue above the moved K_max %s of the time"
                     % (ratio, qm / 1e3, pct(above)))
        fp = dcqcn_fluid.fixed_point(dict(dcqcn_fluid.PAPER, flows=self.flows))[0]
        where = ("q* = %.0f KB, %.0f KB under K_max" % (fp / 1e3, (200e3 - fp) / 1e3) if fp
                 else "no fixed point under K_max (p* > P_max): the model itself rides the cliff")
        return ("**the marking cliff at K_max**: the model is a mean field (%s); the simulator's queue "
                "swings with its discrete per-flow cuts, the swings cross K_max where p jumps from 1 %% "
                "to 1, every flow is cut and the queue drains: over the settled half the queue is above "
                "K_max %s of the time and below K_min %s (seeds 1/2/3); ours %s × the model's queue, mean rate "
                "%s ×%s ([fluid model](%s); expected failures in tests/test_fluid.py)"
                % (where, by_seed(m["above"], pct), by_seed(m["below"], pct),
                   by_seed(m["q_ratio"], lambda x: "%.2f" % x), by_seed(m["r_ratio"], lambda x: "%.2f" % x),
                   probe, DOC_FLUID))


# PFC alone makes no random draw (no ECN reaction; the seed drives RED draws, arrivals and sizes):
# its runs are the same on every seed (issue 25 found them bit-identical), so they run on seed 1
def fairness_pfc_run(r):
    return r.need("dcqcn-fairness", "--schemes=none", "--mappings=%d" % MAPPINGS, "--seed=1")


def fairness_runs(r):
    return [r.need("dcqcn-fairness", "--schemes=dcqcn", "--mappings=%d" % MAPPINGS, "--seed=%d" % s) for s in SEEDS]


class DcqcnFig3(Claim):
    def __init__(self):
        super().__init__("dcqcn.fig3", "DCQCN",
                         "PFC alone is unfair: H4 (alone on its ingress port of T4) gets more than "
                         "H1-H3; over %d ECMP mappings (seed 1: PFC alone draws nothing random)" % MAPPINGS,
                         "%s §2.2, Fig. 3 (b)" % DCQCN_SRC, "H4's minimum > the maximum of H1-H3")

    def runs(self, r):
        self.k = fairness_pfc_run(r)

    def judge(self, r):
        s = r.summary(self.k)
        if s is None:
            return "a run failed its invariants", False, {"failed": True}
        c = s["none"]
        mean_, lo, hi = c["throughput_bps"], c["throughput_min_bps"], c["throughput_max_bps"]
        others = ("H1", "H2", "H3")
        h4_lo, rest_hi = lo["H4"], max(hi[h] for h in others)
        text = "H4 %.2f-%.2f (mean %.2f); H1-H3 %.2f-%.2f (means %s) Gb/s" % (
            lo["H4"] / 1e9, hi["H4"] / 1e9, mean_["H4"] / 1e9, min(lo[h] for h in others) / 1e9, rest_hi / 1e9,
            ", ".join("%.2f" % (mean_[h] / 1e9) for h in others))
        m = {"h4_lo": h4_lo, "rest_hi": rest_hi, "h4_mean": mean_["H4"], "rest_mean": max(mean_[h] for h in others)}
        return text, h4_lo > rest_hi, m

    def reason(self, m):
        if "h4_lo" not in m:
            return None
        return ("**a tie at the parking-lot share**: when ECMP puts one of H1-H3 alone on one of T4's ports P3/P4 "
                "and the other two on the other, PFC's per-port round robin gives that flow and H4 a third of "
                "the link each (H4's minimum %.2f, the others' maximum %.2f Gb/s); the paper's testbed, over "
                "1000 transfers, still saw H4 above; H4's mean (%.2f) is %.2f × the best other's"
                % (m["h4_lo"] / 1e9, m["rest_hi"] / 1e9, m["h4_mean"] / 1e9, m["h4_mean"] / m["rest_mean"]))


class DcqcnFig8(Claim):
    def __init__(self):
        super().__init__("dcqcn.fig8", "DCQCN",
                         "DCQCN shares equally: Jain's index of the 4 senders, worst of %d mappings" % MAPPINGS,
                         "%s §3.3, Fig. 8" % DCQCN_SRC, "equal shares (≥ 0.99)")

    def runs(self, r):
        self.k = fairness_runs(r)

    def judge(self, r):
        js = []
        for k in self.k:
            s = r.summary(k)
            if s is None:
                return "a run failed its invariants", False, {"failed": True}
            js.append(s["dcqcn"]["jain_index_min"])
        return by_seed(js, lambda x: "%.3f" % x), all(j >= 0.99 for j in js), {}


def victim_pfc_run(r):
    # as fairness_pfc_run; PFC alone is steady from the start: 50 ms (tests/test_dcqcn.py)
    return r.need("dcqcn-victim", "--schemes=none", "--mappings=%d" % MAPPINGS, "--duration=50ms", "--seed=1")


def victim_runs(r):
    # DCQCN's victim climbs back from the line-rate start for about 30 ms: 100 ms, the last half
    return [r.need("dcqcn-victim", "--schemes=dcqcn", "--mappings=%d" % VICTIM_MAPPINGS, "--duration=100ms",
                   "--seed=%d" % s) for s in SEEDS]


def victim_means(r, key, scheme):
    s = r.summary(key)
    out = []
    for e in ("0", "1", "2"):
        out.append(s["%s-extra%s" % (scheme, e)]["victim_bps"])
    return out


class DcqcnFig4(Claim):
    def __init__(self):
        super().__init__("dcqcn.fig4", "DCQCN",
                         "PFC alone: the victim loses throughput as 0, 1, 2 senders are added under T3, "
                         "mean over %d mappings (seed 1)" % MAPPINGS, "%s §2.2, Fig. 4 (b)" % DCQCN_SRC,
                         "10 → 4.5 Gb/s (median): falls with each sender")

    def runs(self, r):
        self.k = victim_pfc_run(r)

    def judge(self, r):
        if r.summary(self.k) is None:
            return "a run failed its invariants", False, {"failed": True}
        v = victim_means(r, self.k, "none")
        return " → ".join("%.1f" % (x / 1e9) for x in v) + " Gb/s", v[1] < v[0] and v[2] < v[1], {}


def max_min_shares(flows_on_link, capacity):
    """Max-min fair rates by water-filling: links maps a link to the flows on it, each link
    carries `capacity`; returns flow -> rate (also tests/test_dcqcn.py's)."""
    links = {l: set(f) for l, f in flows_on_link.items()}
    left = {l: float(capacity) for l in links}
    rate = {}
    while True:
        active = {l: f - set(rate) for l, f in links.items()}
        active = {l: f for l, f in active.items() if f}
        if not active:
            return rate
        # the link whose remaining capacity, shared equally, gives the least: its flows freeze
        share, link = min((left[l] / len(f), l) for l, f in active.items())
        for fl in active[link]:
            rate[fl] = share
            for l, f in links.items():
                if fl in f:
                    left[l] -= share


class DcqcnFig9(Claim):
    def __init__(self):
        super().__init__("dcqcn.fig9", "DCQCN",
                         "DCQCN: the victim keeps its throughput as 0, 1, 2 senders are added under T3 "
                         "(within 10 %% of its rate with 0), mean over %d mappings" % VICTIM_MAPPINGS,
                         "%s §3.3, Fig. 9" % DCQCN_SRC, "does not change")

    def runs(self, r):
        self.k = victim_runs(r)

    def judge(self, r):
        cells, ok, dev = [], True, []
        for k in self.k:
            if r.summary(k) is None:
                return "a run failed its invariants", False, {"failed": True}
            v = victim_means(r, k, "dcqcn")
            ok &= all(abs(x / v[0] - 1) <= 0.10 for x in v[1:])
            cells.append(" → ".join("%.1f" % (x / 1e9) for x in v))
            # each mapping's victim against its max-min fair share (40 Gb/s: 36.97 of payload)
            d = os.path.join(r.dir(k), "")
            for e in ("0", "1", "2"):
                for i in range(1, VICTIM_MAPPINGS + 1):
                    p = os.path.join(d, "dcqcn-extra" + e, "map-%d" % i, "summary.json")
                    with open(p) as f:
                        case = json.load(f)
                    fair = max_min_shares(case["flows_on_link"], 36.97e9)[case["victim_flow"]]
                    got = case["victim_bps"]
                    dev.append(got / fair - 1)
        return " / ".join(cells) + " Gb/s", ok, {"dev": dev}

    def reason(self, m):
        if "dev" not in m:
            return None
        return ("**its fair share is not flat**: the victim shares a T1 uplink with the incast flows ECMP put "
                "there, each owed 1/n of R's link (n = 4, 5, 6), so its max-min share rises with n; every "
                "mapping and seed is within %s .. %s of that share ([DCQCN](%s); tests/test_dcqcn.py)"
                % (signed(min(m["dev"])), signed(max(m["dev"])), DOC_DCQCN))


# --------------------------------------------------------------------------------------------
# RCM

RCM_SRC = "RCM (NPC 2017)"


def rcm_burst_runs(r):
    return [r.need("rcm-burst", "--seed=%d" % s) for s in SEEDS]


def rates_between(path, t0, t1):
    sums, counts = {}, {}
    with open(path) as f:
        for row in csv.DictReader(f):
            t = int(row["time_ns"])
            if t0 <= t < t1:
                k = int(row["flow_id"])
                sums[k] = sums.get(k, 0.0) + float(row["rate_bps"])
                counts[k] = counts.get(k, 0) + 1
    return {k: sums[k] / counts[k] for k in sums}


class RcmFig6b(Claim):
    def __init__(self):
        super().__init__("rcm.fig6b", "RCM", "rcm-burst, DCQCN alone: the burst keeps about half of B's output "
                         "(payload over its active time)", "%s Fig. 6 (b)" % RCM_SRC, "50 Gb/s (40-55)", quick=True)

    def runs(self, r):
        self.k = rcm_burst_runs(r)

    def judge(self, r):
        b = []
        for k in self.k:
            s = r.summary(k)
            if s is None:
                return "a run failed its invariants", False, {"failed": True}
            b.append(s["dcqcn"]["burst_bps"])
        return by_seed(b, lambda x: "%.1f" % (x / 1e9)) + " Gb/s", all(40e9 < x < 55e9 for x in b), {}


def incast_lead_share(path, t0, t1, flows):
    """Mean over the rate samples in [t0, t1) of the largest of `flows`' share of their bytes in
    the sample (1/len(flows) when they arrive interleaved at equal rates)."""
    by = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            t, k = int(row["time_ns"]), int(row["flow_id"])
            if t0 <= t < t1 and k in flows:
                by.setdefault(t, {})[k] = float(row["rate_bps"])
    shares = [max(v.values()) / sum(v.values()) for v in by.values() if sum(v.values()) > 0]
    return mean(shares) if shares else 0.0


def rcm_burst_cut(r, k):
    """rcm-burst run `k`'s RCM case, tests/test_rcm.py's measure: (burst, incast) Gb/s at D from
    5 us after B's root activation until the burst ends, W_c / W at that activation, and the
    leading incast flow's share (incast_lead_share) over the 50 us before the burst; None if the
    run failed its invariants."""
    if r.summary(k) is None:
        return None
    c = r.summary(k, "rcm")
    d = os.path.join(r.dir(k), "rcm")
    start, done, burst = c["burst_start_ns"], c["burst_done_ns"], c["burst_flow"]
    with open(os.path.join(d, "rcc.csv")) as f:
        row = next(x for x in csv.DictReader(f) if x["node"] == "7" and x["port"] == "1"
                   and x["change"] == "on" and int(x["time_ns"]) >= start)
    on = int(row["time_ns"])
    rates = rates_between(os.path.join(d, "rates.csv"), on + 5000, done)
    incast = [f for f in rates if f != burst]
    out = {"burst": rates[burst], "incast": sum(rates[f] for f in incast),
           "wc": int(row["w_c_bytes"]) / int(row["w_bytes"]),
           "lead": incast_lead_share(os.path.join(d, "rates.csv"), start - 50000, start, set(incast))}
    alone = os.path.join(r.dir(k), "dcqcn", "rates.csv")
    if os.path.exists(alone):
        out["lead_dcqcn"] = incast_lead_share(alone, start - 50000, start, set(incast))
    return out


# the probe of rcm.fig6a: rcm-burst with one output FIFO per egress queue, not the paper's VOQ
# switches (NPC 2017 section 4.1; rcm-burst's default --voq=true)
RCM_FIFO = "--voq=false"


class RcmFig6a(Claim):
    def __init__(self):
        super().__init__("rcm.fig6a", "RCM", "rcm-burst with RCM: the burst is cut at B (mean rate at D from "
                         "5 µs after B's activation until the burst ends)", "%s Fig. 6 (a)" % RCM_SRC,
                         "25 ± 5 Gb/s", quick=True)

    def runs(self, r):
        self.k = rcm_burst_runs(r)

    def probe(self, r):
        self.kp = [r.need("rcm-burst", RCM_FIFO, "--seed=%d" % s) for s in SEEDS]

    def judge(self, r):
        m = [rcm_burst_cut(r, k) for k in self.k]
        if any(x is None for x in m):
            return "a run failed its invariants", False, {"failed": True}
        b = [x["burst"] for x in m]
        out = {"runs": m}
        if hasattr(self, "kp"):
            p = [rcm_burst_cut(r, k) for k in self.kp]
            if all(x is not None for x in p):
                out["probe"] = p
        return (by_seed(b, lambda x: "%.1f" % (x / 1e9)) + " Gb/s", all(20e9 <= x <= 30e9 for x in b), out)

    def reason(self, m):
        if "runs" not in m:
            return None

        def col(runs, key, fmt):
            return by_seed([x[key] for x in runs], fmt)

        def gbps(x):
            return "%.1f" % (x / 1e9)

        def two(x):
            return "%.2f" % x

        text = ("**the cut at B with VOQ switches** (NPC 2017 §4.1, rcm-burst's default `--voq=true`): the "
                "leading incast flow carries %s of the incast's bytes in each 1 µs at D (the 50 µs before the "
                "burst, seeds 1/2/3; DCQCN alone: %s; interleaved: 0.25), B's root activates with W_c = %s of W "
                "(the cut to 25 needs the burst's share, 1/2) and the incast gets %s Gb/s meanwhile"
                % (col(m["runs"], "lead", two), col(m["runs"], "lead_dcqcn", two), col(m["runs"], "wc", two),
                   col(m["runs"], "incast", gbps)))
        if "probe" in m:
            p = m["probe"]
            text += ("; probe with one output FIFO per egress queue (`%s`: PFC restarts the four senders in turn "
                     "and A forwards the incast in runs of one flow, leading share %s): burst %s Gb/s, W_c = %s "
                     "of W at activation, incast %s Gb/s"
                     % (RCM_FIFO, col(p, "lead", two), col(p, "burst", gbps), col(p, "wc", two),
                        col(p, "incast", gbps)))
        return text + " ([Fidelity: RCM](%s))" % DOC_RCM


# NPC 2017 section 4.1 setting, scaled down to k = 6 (tests/test_rcm_workload.py)
WL_SETTING = ["--k=6", "--load=0.6", "--cc=dcqcn", "--xoffBeta=0", "--xoffStatic=100KB", "--dcqcnPreset=mellanox"]
WL_CDF = {
    "enterprise": ["--cdf=workloads/Enterprise_distribution.txt", "--duration=2ms"],
    "datamining": ["--cdf=workloads/DataMining_distribution.txt", "--duration=3ms"],
}
WL_PATTERN = {
    "group": ["--pattern=group", "--group=9"],
    "hotspot": ["--pattern=hotspot", "--hotspotTraffic=0.15", "--hotspotHosts=0.125"],
}


def wl_keys(r, cdf, pattern):
    """{seed: (dcqcn run, rcm run)}"""
    out = {}
    for s in SEEDS:
        base = WL_SETTING + WL_CDF[cdf] + WL_PATTERN[pattern]
        out[s] = (r.need("fat-tree-workload", *(base + ["--rcm=0", "--seed=%d" % s])),
                  r.need("fat-tree-workload", *(base + ["--rcm=1", "--seed=%d" % s])))
    return out


def wl_change(r, pair, path):
    """RCM's figure over DCQCN's, minus 1 (negative: lower with RCM); None if a run failed."""
    vals = []
    for k in pair:
        s = r.summary(k)
        if s is None:
            return None
        for p in path:
            s = s[p]
        vals.append(s)
    return vals[1] / vals[0] - 1


class RcmWorkload(Claim):
    def __init__(self, cid, claim, source, value, keys, path, test, reason_fn=None, extra=None, measure=None):
        super().__init__(cid, "RCM", claim, source, value)
        self.keys, self.path, self.test, self.reason_fn, self.extra = keys, path, test, reason_fn, extra
        self.measure = measure  # (runs, {pattern name: (DCQCN run, RCM run)}) -> dict, per seed, for the reason

    def runs(self, r):
        self.k = {name: wl_keys(r, *kp) for name, kp in self.keys.items()}

    def judge(self, r):
        ch = {}
        for name in self.keys:
            ch[name] = [wl_change(r, self.k[name][s], self.path) for s in SEEDS]
            if any(c is None for c in ch[name]):
                return "a run failed its invariants", False, {"failed": True}
        m = {"ch": ch}
        if self.measure:
            m["fct"] = [self.measure(r, {name: self.k[name][s] for name in self.keys}) for s in SEEDS]
        if self.extra:
            first = next(iter(self.keys))
            m["extra"] = {name: [wl_change(r, self.k[first][s], p) for s in SEEDS] for name, p in self.extra.items()}
            # the first pattern's DCQCN-alone runs: each size class's share of the bytes and throughput
            m["dcqcn"] = [r.summary(self.k[first][s][0])["fct_by_size"] for s in SEEDS]
        text = "; ".join(("%s: " % n if len(ch) > 1 else "") + by_seed(v, signed) for n, v in ch.items())
        return text, self.test(ch), m

    def reason(self, m):
        if "ch" not in m or not self.reason_fn:
            return None
        return self.reason_fn(m)


def fat_tree_host_ports(k):
    """{host node id: (edge switch node id, port)} of FabricHelper::FatTree(k): the k^2/4 cores
    first, then per pod its k/2 aggregation switches and, per edge switch, the switch (ports
    0..k/2-1 to the aggregation switches) and its k/2 hosts (ports k/2..k-1)."""
    half = k // 2
    out, node = {}, half * half
    for _pod in range(k):
        node += half
        for _e in range(half):
            edge = node
            node += 1
            for h in range(half):
                out[node] = (edge, half + h)
                node += 1
    return out


def fig8_hot_measure(r, pairs):
    """From the fct.csv of the hot-spot (DCQCN, RCM) runs and the RCM run's rcc.csv: the hot
    class's share of the bytes and of its flows under 1 MB, each class's > 1 MB flows' mean
    throughput change, and the time RCC was on per hot host's and per cold host's downlink (its
    edge switch's port)."""
    pair = pairs["hot"]
    s = r.summary(pair[0])
    hot = set(s["hot_hosts"])
    rows = []
    for k in pair:
        with open(os.path.join(r.dir(k), "fct.csv")) as f:
            rows.append(list(csv.DictReader(f)))

    def big_thr(rs, cls):
        t = [int(x["size_bytes"]) * 8 / int(x["fct_ns"]) for x in rs
             if x["class"] == cls and int(x["size_bytes"]) > 1000000]
        return mean(t) if t else float("nan")

    hot_rows = [x for x in rows[0] if x["class"] == "hot"]
    out = {"hot_bytes": sum(int(x["size_bytes"]) for x in hot_rows) / sum(int(x["size_bytes"]) for x in rows[0]),
           "hot_small": sum(1 for x in hot_rows if int(x["size_bytes"]) < 1000000) / len(hot_rows),
           "hot_big": sum(1 for x in hot_rows if int(x["size_bytes"]) > 1000000)}
    for cls in ("hot", "background"):
        out["big_" + cls] = big_thr(rows[1], cls) / big_thr(rows[0], cls) - 1
    ports = {v: h for h, v in fat_tree_host_ports(s["k"]).items()}
    on, time_on = {}, {"hot": 0, "cold": 0}
    end = r.summary(pair[1])["sim_time_ns"]
    with open(os.path.join(r.dir(pair[1]), "rcc.csv")) as f:
        for x in csv.DictReader(f):
            h = ports.get((int(x["node"]), int(x["port"])))
            if h is None:
                continue
            if x["change"] == "on":
                on[h] = int(x["time_ns"])
            elif x["change"] == "off" and h in on:
                time_on["hot" if h in hot else "cold"] += int(x["time_ns"]) - on.pop(h)
    for h, t in on.items():
        time_on["hot" if h in hot else "cold"] += end - t
    out["rcc_hot_us"] = time_on["hot"] / len(hot) / 1e3
    out["rcc_cold_us"] = time_on["cold"] / (len(ports) - len(hot)) / 1e3
    return out


def fig8_hot_reason(m):
    f = m.get("fct")
    text = ("**the claim's per-flow mean is the mice's; RCC slows only the hot elephants' gain**: with RCM the hot flows gain %s and "
            "the background %s (seeds 1/2/3); " % (by_seed(m["ch"]["hot"], signed),
                                                    by_seed(m["extra"]["background"], signed)))
    if f:
        def col(key, fmt):
            return by_seed([x[key] for x in f], fmt)

        text += ("%s of the hot flows are < 1 MB, and the per-flow mean follows them: they gain with the "
                 "background's (SAR places every new flow, hot ones too: about two thirds of both classes' "
                 "gain); RCC is aimed at the heavy flows a CAM samples "
                 "(§3.3-3.4), and the hot flows > 1 MB (%s flows) change %s against the background's %s: they "
                 "gain less on every "
                 "seed, the paper's direction (\"accurate congestion control on hot flows\", §4.2), but are "
                 "slower on seed 1 only. The hot spot is hot on two seeds of three: the hot hosts receive %s "
                 "of the bytes (nominal 15 %%: heavy-tailed sizes, about 750 hot flows in 2 ms) and RCC is on "
                 "%s µs per hot host's downlink against %s µs per cold one's; the hot class's gain falls as "
                 "that rises. "
                 % (col("hot_small", pct), col("hot_big", lambda x: "%d" % x), col("big_hot", signed),
                    col("big_background", signed), col("hot_bytes", pct),
                    col("rcc_hot_us", lambda x: "%.0f" % x), col("rcc_cold_us", lambda x: "%.0f" % x)))
    return text + ("Fig. 8 gives neither its throughput metric nor its sizes or load; a uniform-destination "
                   "reading, a third of the marks, SAR off and no W_c recovery were each tried and move the "
                   "classes alike ([Fidelity: RCM](%s))" % DOC_RCM)


def fig9b_measure(r, pairs):
    """Per workload: flows, PFC PAUSEs under DCQCN alone, RCC activations and SAR detours with RCM,
    the mice's mean FCT change, and (DCQCN alone) the > 10 MB flows' share of the summed FCT."""
    out = {}
    for name, (dk, rk) in pairs.items():
        d, c = r.summary(dk), r.summary(rk)
        with open(os.path.join(r.dir(dk), "fct.csv")) as f:
            rows = list(csv.DictReader(f))
        out[name] = {
            "flows": len(rows),
            "pauses": d["pfc_pause_frames"],
            "rcc": c["rcm"]["rcc_activations"],
            "sar": c["rcm"]["sar_detours"],
            "mice": c["fct_by_size"]["mice"]["fct_ns"]["avg"] / d["fct_by_size"]["mice"]["fct_ns"]["avg"] - 1,
            "eleph_fct": sum(int(x["fct_ns"]) for x in rows if int(x["size_bytes"]) > 10000000)
            / sum(int(x["fct_ns"]) for x in rows),
        }
    return out


def fig9b_reason(m):
    thr = [d["elephants"]["throughput_bps"]["avg"] for d in m["dcqcn"]]
    f = m.get("fct")

    def col(name, key, fmt):
        return by_seed([x[name][key] for x in f], fmt)

    def whole(x):
        return "%d" % x

    text = ("**RCM has little to act on in data mining here, and its mean FCT is its elephants'**: the "
            "paper credits data mining's larger gain to its being \"more heavily congested\" with more "
            "elephant path collisions (§4.3); in ours (seeds 1/2/3) its 3 ms of arrivals are %s flows against "
            "enterprise's %s in 2 ms, with %s PFC PAUSEs under DCQCN alone against %s, and RCM activates RCC "
            "%s times against %s and detours %s flows against %s; its flows > 10 MB hold %s of the summed FCT "
            "and already run at %s Gb/s of payload under DCQCN alone (the link's limit is 92.5), and the paper "
            "itself says RCM has \"little impact on the elephant flow\" (§4.3): their mean FCT changes %s, and "
            "the mean with it; data mining's mice change %s against enterprise's %s. SAR `new` never moves a "
            "placed flow, and the groups are pods, as the paper's 12 groups of 36 of 432 hosts are at k = 12 (in "
            "a pod SAR chooses only among an edge switch's uplinks, 3 at k = 6, never a core) "
            "([Fidelity: RCM](%s), [RCM workloads](%s))"
            % (col("data mining", "flows", whole), col("enterprise", "flows", whole),
               col("data mining", "pauses", whole), col("enterprise", "pauses", whole),
               col("data mining", "rcc", whole), col("enterprise", "rcc", whole),
               col("data mining", "sar", whole), col("enterprise", "sar", whole),
               col("data mining", "eleph_fct", pct), by_seed(thr, lambda x: "%.1f" % (x / 1e9)),
               by_seed(m["extra"]["elephants"], signed),
               col("data mining", "mice", signed), col("enterprise", "mice", signed), DOC_RCM, DOC_RCM_WL))
    return text


def rcm_workload_claims():
    return [
        RcmWorkload("rcm.fig8.background", "fat-tree-workload k = 6, enterprise, hot spot: background flows' "
                    "mean throughput with RCM over DCQCN", "%s Fig. 8 (a)" % RCM_SRC, "+12.2 % (> +5 %)",
                    {"hot spot": ("enterprise", "hotspot")}, ("fct_by_class", "background", "throughput_bps", "avg"),
                    lambda ch: all(c > 0.05 for c in ch["hot spot"])),
        RcmWorkload("rcm.fig8.hot", "same runs: hot flows' mean throughput with RCM over DCQCN",
                    "%s Fig. 8 (b)" % RCM_SRC, "slightly lower (< 0)",
                    {"hot": ("enterprise", "hotspot")}, ("fct_by_class", "hot", "throughput_bps", "avg"),
                    lambda ch: all(c < 0 for c in ch["hot"]), fig8_hot_reason,
                    extra={"background": ("fct_by_class", "background", "throughput_bps", "avg")},
                    measure=fig8_hot_measure),
        RcmWorkload("rcm.fig9a", "fat-tree-workload k = 6, enterprise: mice (< 1 MB) mean FCT with RCM over "
                    "DCQCN, group and hot-spot patterns", "%s Fig. 9 (a), §5" % RCM_SRC, "> 10 % lower",
                    {"group": ("enterprise", "group"), "hot spot": ("enterprise", "hotspot")},
                    ("fct_by_size", "mice", "fct_ns", "avg"),
                    lambda ch: all(c < -0.10 for v in ch.values() for c in v)),
        RcmWorkload("rcm.fig9b", "group pattern: mean FCT change with RCM, data mining against enterprise",
                    "%s Fig. 9 (b)" % RCM_SRC, "data mining gains more",
                    {"data mining": ("datamining", "group"), "enterprise": ("enterprise", "group")},
                    ("fct_by_size", "all", "fct_ns", "avg"),
                    lambda ch: all(d < e for d, e in zip(ch["data mining"], ch["enterprise"])), fig9b_reason,
                    extra={"elephants": ("fct_by_size", "elephants", "fct_ns", "avg")}, measure=fig9b_measure),
    ]


# --------------------------------------------------------------------------------------------


def claims():
    """Every claim, in page order."""
    cs = []
    for rate in SPEEDS:
        cs.append(LdcpIncast16(rate))
    for rate in SPEEDS:
        cs.append(LdcpIncast1000(rate, "ldcp"))
    for rate in SPEEDS:
        cs.append(LdcpIncast1000(rate, "ldcp-rate"))
    for rate in SPEEDS:
        cs.append(LdcpChurn(rate))
    cs += [DcqcnFluid(2, quick=True), DcqcnFluid(10), DcqcnFluid(20)]
    cs += [DcqcnFig3(), DcqcnFig8(), DcqcnFig4(), DcqcnFig9()]
    cs += [RcmFig6b(), RcmFig6a()]
    cs += rcm_workload_claims()
    for c in cs:
        if c.id in {x.id for x in cs if x is not c}:
            raise AssertionError("claim id %s twice" % c.id)
    return cs


def fluid_model(config_path):
    got, _ = dcqcn_fluid.params_from_config(config_path)
    m = dict(dcqcn_fluid.PAPER)
    m.update(got)
    res = dcqcn_fluid.run(m)
    return {"settled_queue_bytes": res["settled_queue_bytes"], "settled_rate_bps": res["settled_rate_bps"]}


def models_for(runs, jobs):
    """The fluid model of every dcqcn-convergence run (processes, jobs at a time; one per
    distinct config: the seed changes nothing the model reads, so seeds share one)."""
    keys = [k for k in runs.wanted if k[0] == "dcqcn-convergence" and runs.status[k] == 0]
    by_params = {}
    for k in keys:
        params = tuple(a for a in k[1:] if not a.startswith("--seed="))
        by_params.setdefault(params, k)
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as ex:
        futures = {p: ex.submit(fluid_model, os.path.join(runs.dir(k), "config.json")) for p, k in by_params.items()}
        done = {p: f.result() for p, f in futures.items()}
    return {k: done[tuple(a for a in k[1:] if not a.startswith("--seed="))] for k in keys}


def esc(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def page(rows, quick, wall_s, jobs):
    head = [
        "# Fidelity: the papers' and the draft's claims, rerun",
        "",
        "Back to the [docs index](README.md).",
        "",
        "Generated by `./waf fidelity` (`tools/fidelity.py`): do not edit by hand. Each row is one "
        "published claim, rerun by the tool on seeds 1, 2, 3 (and 25, 100, 400 Gb/s for LDCP), every run "
        "made afresh; ✔: the source's value holds on every seed; **miss**: it does not, and the last "
        "column names the reason with the measurement that shows it (the numbers given per seed, and those "
        "of a probe, come from this run; the others, and the full sweeps, from the linked section).",
        "",
        ("This page: `--quick` subset, %.0f s wall with -j %d." % (wall_s, jobs)) if quick else
        ("This page: full run, %.0f s wall with -j %d on this project's 2-core build machine; "
         "`./waf fidelity --quick` reruns the rows marked quick (`./waf check` does, in "
         "tests/test_fidelity.py, and fails if one of their verdicts flips)." % (wall_s, jobs)),
        "",
        "| id | claim | source | source value | ours (seeds 1 / 2 / 3) | verdict | reason for a miss |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines = []
    for c, text, ok, reason in rows:
        cid = "`%s`%s" % (c.id, " (quick)" if c.quick else "")
        verdict = "✔" if ok else "**miss**"
        lines.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            cid, esc(c.claim), esc(c.source), esc(c.value), esc(text), verdict,
            esc(reason) if not ok else ""))
    tail = [
        "",
        "Runs: LDCP `ldcp-incast` (16 × 256 KB, and `--senders=1000 --size=16384`), `ldcp-churn`, every "
        "default, `--rate` and `--seed` set; the optimum is `--cc=none --pfc=1` at the same rate and seed. "
        "DCQCN: `dcqcn-convergence --stagger=1ms --duration=120ms`, the model integrated with each run's "
        "config.json; `dcqcn-fairness` and `dcqcn-victim --duration=100ms` with `--mappings=%d` "
        "(`--ecmpSeed=1..%d`; the DCQCN victim runs `--mappings=%d`; PFC alone, which draws nothing random, on seed 1). RCM: `rcm-burst` defaults; `fat-tree-workload` in "
        "tests/test_rcm_workload.py's k = 6 setting (`%s`)." % (MAPPINGS, MAPPINGS, VICTIM_MAPPINGS, " ".join(WL_SETTING)),
    ]
    return "\n".join(head + lines + tail) + "\n"


def row_id(line):
    """The claim id of a page's table row (None for any other line)."""
    if not line.startswith("| `"):
        return None
    return line[3:].split("`", 1)[0]


def merge_rows(old_page, new_page, ids):
    """old_page with its rows of the claims `ids` replaced by new_page's."""
    new = {row_id(line): line for line in new_page.splitlines() if row_id(line) in ids}
    out = [new.get(row_id(line), line) for line in old_page.splitlines()]
    return "\n".join(out) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/fidelity.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="a built tree [build/]")
    ap.add_argument("--quick", action="store_true", help="the quick claims only (page to OUT/fidelity.md)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="runs at a time [2]")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "fidelity"),
                    help="directory of the runs, emptied first [results/fidelity]")
    ap.add_argument("--page", help="the page to write [docs/fidelity.md; --quick: OUT/fidelity.md]")
    ap.add_argument("--only", help="comma-separated claim ids (as --list prints them): rerun these alone and "
                    "rewrite only their rows of the page")
    ap.add_argument("--list", action="store_true", help="print every claim id (quick ones marked) and exit")
    a = ap.parse_args(argv)
    if a.jobs < 1:
        print("invalid --jobs = %d: must be >= 1" % a.jobs)
        return 2
    all_claims = claims()
    if a.list:
        for c in all_claims:
            print("%s%s" % (c.id, " quick" if c.quick else ""))
        return 0
    only = None
    if a.only is not None:
        if a.quick:
            print("invalid --only with --quick: choose one")
            return 2
        only = [x for x in a.only.split(",") if x]
        known = {c.id for c in all_claims}
        bad = [x for x in only if x not in known]
        if bad or not only:
            print("invalid --only = %s: %s (see --list)" % (a.only, "unknown claim " + ", ".join(bad) if bad else "no claim"))
            return 2
        only_page = a.page or os.path.join(ROOT, "docs", "fidelity.md")
        try:
            with open(only_page) as f:
                old_page = f.read()
        except OSError as e:
            print("invalid --page = %s: %s" % (only_page, e.strerror))
            return 2
        have = {row_id(line) for line in old_page.splitlines()}
        missing = [x for x in only if x not in have]
        if missing:
            print("invalid --page = %s: no row for %s" % (only_page, ", ".join(missing)))
            return 2
    try:
        info = buildenv.load(a.build)
    except buildenv.BuildError as e:
        print(e)
        return 2
    out = os.path.abspath(a.out)
    if os.path.exists(out):
        if os.listdir(out) and not os.path.exists(os.path.join(out, MARKER)):
            print("invalid --out = %s: not empty and not made by tools/fidelity.py" % a.out)
            return 2
        shutil.rmtree(out)
    os.makedirs(out)
    open(os.path.join(out, MARKER), "w").close()

    chosen = [c for c in all_claims if (c.id in only if only is not None else c.quick or not a.quick)]
    t0 = time.monotonic()
    runs = Runs()
    for c in chosen:
        c.runs(runs)
        if c.probe and not a.quick:
            c.probe(runs)
    try:
        runs.execute(info, out, a.jobs)
    except FidelityError as e:
        print(e)
        return 1
    runs.models = models_for(runs, a.jobs)
    rows, unnamed = [], []
    for c in chosen:
        text, ok, m = c.judge(runs)
        reason = None if ok else c.reason(m)
        if not ok and not reason:
            reason = "NO NAMED REASON: a new miss, to find"
            unnamed.append(c.id)
        rows.append((c, text, ok, reason))
    wall = time.monotonic() - t0
    page_path = a.page or (os.path.join(out, "fidelity.md") if a.quick else os.path.join(ROOT, "docs", "fidelity.md"))
    text = page(rows, a.quick, wall, a.jobs)
    if only is not None:
        text = merge_rows(old_page, text, set(only))
    with open(page_path, "w") as f:
        f.write(text)
    with open(os.path.join(out, "verdicts.json"), "w") as f:
        json.dump({c.id: "pass" if ok else "miss" for c, _, ok, _ in rows}, f, indent=1, sort_keys=True)
        f.write("\n")
    print()
    for c, text, ok, reason in rows:
        print("%-26s %-5s %s" % (c.id, "ok" if ok else "MISS", text))
    print("%d claims, %d missed, %.0f s; page: %s" % (len(rows), sum(1 for r in rows if not r[2]), wall, page_path))
    if unnamed:
        print("missed without a named reason: %s" % ", ".join(unnamed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
