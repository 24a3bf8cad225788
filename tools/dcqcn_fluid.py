#!/usr/bin/env python3
"""DCQCN's fluid model (Zhu et al., SIGCOMM 2015, section 5.1, equations (5)-(9)), for N flows
sharing one bottleneck, integrated with a fixed step; and its fixed point, solved directly.

    tools/dcqcn_fluid.py --config OUT/config.json [--duration 120ms] [--csv FILE] [--json]
    tools/dcqcn_fluid.py --flows 10 --duration 120ms --stagger 1ms
    tools/dcqcn_fluid.py --config OUT/config.json --fixed-point

The model (per flow i; every rate in packets/s, B and T·R_C in packets, as in the paper;
p' = p(t - tau*), R' = R_C,i(t - tau*)):

  (5) p(q)  = 0 for q <= K_min; (q - K_min)/(K_max - K_min)·P_max up to K_max; 1 above
  (6) dq/dt = sum_i R_C,i - C                            (q >= 0)
  (7) dα/dt = g/tau' · [(1 - (1-p')^(tau'·R')) - α]
  (8) dR_T/dt = -(R_T - R_C)/tau · (1 - (1-p')^(tau·R'))
              + R_AI·R'·(1-p')^(F·B)·p' / ((1-p')^(-B) - 1)
              + R_AI·R'·(1-p')^(F·T·R')·p' / ((1-p')^(-T·R') - 1)
  (9) dR_C/dt = -R_C·α/(2 tau) · (1 - (1-p')^(tau·R'))
              + (R_T - R_C)/2 · R'·p' / ((1-p')^(-B) - 1)
              + (R_T - R_C)/2 · R'·p' / ((1-p')^(-T·R') - 1)

tau is the CNP interval N, tau' the α period K, T the rate-increase timer, B the byte counter,
F the fast-recovery steps, R_AI the additive step, tau* the control-loop delay. The model has no
hyper increase (Figure 7's third phase) and no PFC; rates are kept within [min_rate, C], as the
simulator's are. Flow i starts at i x --stagger at line rate with α = 1, as dcqcn-convergence's
flows do.

Parameters: from a run's config.json (--config: every example writes OUT/config.json; its
`attributes` give ns3::RdmaNic's DCQCN constants, `resolved` the marking thresholds, the link
rate and the base RTT, `options` the flows, stagger and duration of dcqcn-convergence), else the
paper's defaults for 40 Gb/s (spec/dcqcn.md). Any explicit option overrides the file.

Rates: the model's C is the link rate in frames. The "payload" rates printed (and in --json)
are the frame rates scaled by payload/frame bytes, the unit of dcqcn-convergence's
settled_rate_bps (40 Gb/s with 1000 B payloads in 1082 B frames: 36.97 Gb/s of payload).

Output: the settled queue (mean over the last half of --duration), each flow's mean rate over
the last half, and the fixed point: every flow at R* = C/N, dα/dt = dR_T/dt = dR_C/dt = 0,
solved for the marking probability p* by bisection, and q* = K_min + p*/P_max·(K_max - K_min).
--csv FILE writes the trajectories (time_us, queue_bytes, p, then rc_bps/rt_bps/alpha per
flow) every --sample. --json prints one JSON object instead of the table.

Pure Python (standard library only). Euler steps of --step (default 1 us; tau* is rounded to
whole steps, at least one): 120 ms of 10 flows takes a few seconds.
"""

import argparse
import csv
import json
import math
import sys

# The paper's parameters for 40 Gb/s (spec/dcqcn.md), in SI units (bytes, seconds, bit/s).
PAPER = {
    "rate_bps": 40e9,
    "k_min_bytes": 5e3,
    "k_max_bytes": 200e3,
    "p_max": 0.01,
    "g": 1 / 256,
    "cnp_interval_s": 50e-6,
    "alpha_period_s": 55e-6,
    "increase_timer_s": 55e-6,
    "byte_counter_bytes": 10e6,
    "fast_recovery_steps": 5,
    "rate_ai_bps": 40e6,
    "min_rate_bps": 100e6,
    "frame_bytes": 1082,
    "payload_bytes": 1000,
    "delay_s": 4e-6,
    "flows": 2,
    "stagger_s": 5e-3,
    "duration_s": 60e-3,
}

_UNITS = [
    ("ns", 1e-9), ("us", 1e-6), ("ms", 1e-3), ("s", 1.0),
    ("Gbps", 1e9), ("Mbps", 1e6), ("Kbps", 1e3), ("bps", 1.0),
    ("KiB", 1024.0), ("MiB", 1024.0 ** 2), ("KB", 1e3), ("MB", 1e6), ("GB", 1e9), ("B", 1.0),
]


def parse_quantity(text):
    """'50us' -> 5e-05, '40Gbps' -> 4e10, '10MB' -> 1e7, '0.01' -> 0.01 (ns-3's and rdma-cc's
    spellings of times, rates and sizes; a bare number is taken as it is)."""
    t = str(text).strip()
    for suffix, scale in sorted(_UNITS, key=lambda u: -len(u[0])):
        if t.endswith(suffix):
            head = t[: -len(suffix)]
            try:
                return float(head) * scale
            except ValueError:
                continue
    if t.startswith("+") and t.endswith("ns"):  # ns-3's Time print: +5e+04ns
        return float(t[1:-2]) * 1e-9
    return float(t)


def _first(v):
    # config.json's attributes hold one value, or a list of the distinct values
    return v[0] if isinstance(v, list) else v


# Bytes around a RoCEv2 data payload (rust/core/src/wire.rs): Ethernet, IPv4, UDP, BTH and ICRC
# headers (62 B), plus 20 B of preamble and inter-frame gap on the wire.
DATA_HEADERS = 62
PREAMBLE_IFG = 20


def _auto(text):
    """An attribute left to its preset ('0', '+0ns', '0bps', 'auto')."""
    t = str(text).strip()
    if t == "auto":
        return True
    try:
        return parse_quantity(t) == 0
    except ValueError:
        return False


def params_from_config(path):
    """The model's parameters (PAPER's keys) from a run's config.json: ns3::RdmaNic's DCQCN
    attributes (those left auto take the paper preset's values), `resolved`'s link rate,
    K_min/K_max/P_max, MTU and base RTT, and dcqcn-convergence's flows/stagger/duration options.
    Raises ValueError for a run the model does not describe (another scheme, or a preset or
    option with rules the paper's model lacks)."""
    with open(path) as f:
        cfg = json.load(f)
    p = {}
    nic = {k: _first(v) for k, v in cfg.get("attributes", {}).get("ns3::RdmaNic", {}).items()}
    res = cfg.get("resolved", {})
    opts = cfg.get("options", {})
    if res.get("scheme", "dcqcn") != "dcqcn":
        raise ValueError("%s: scheme %s, not dcqcn" % (path, res.get("scheme")))
    preset = nic.get("DcqcnPreset", "paper")
    if preset != "paper":
        raise ValueError("%s: DCQCN preset %s; the fluid model is the paper's RP (section 5), "
                         "without periodic alpha or a least interval between cuts" % (path, preset))
    for name, rule in (("DcqcnAlphaMode", "on-cnp"), ("DcqcnKeepTarget", "false")):
        if name in nic and nic[name] not in ("auto", rule, "0"):
            raise ValueError("%s: %s = %s; the fluid model has %s only" % (path, name, nic[name], rule))
    if not _auto(nic.get("DcqcnMinCutInterval", "0")) and parse_quantity(nic["DcqcnMinCutInterval"]) > 1e-9:
        raise ValueError("%s: DcqcnMinCutInterval set; the fluid model cuts at every CNP" % path)
    for name, key, conv in (
        ("DcqcnG", "g", float),
        ("DcqcnAlphaPeriod", "alpha_period_s", parse_quantity),
        ("DcqcnIncreaseTimer", "increase_timer_s", parse_quantity),
        ("DcqcnByteCounter", "byte_counter_bytes", parse_quantity),
        ("DcqcnFastRecovery", "fast_recovery_steps", lambda v: int(float(v))),
        ("DcqcnRai", "rate_ai_bps", parse_quantity),
        ("DcqcnMinRate", "min_rate_bps", parse_quantity),
        ("CnpInterval", "cnp_interval_s", parse_quantity),
    ):
        if name in nic and not _auto(nic[name]):
            p[key] = conv(nic[name])
    for key, name in (("k_min_bytes", "k_min_bytes"), ("k_max_bytes", "k_max_bytes"),
                      ("p_max", "p_max"), ("rate_bps", "rate_bps")):
        if name in res:
            p[key] = float(res[name])
    if "base_rtt_ns" in res:
        p["delay_s"] = float(res["base_rtt_ns"]) * 1e-9
    if "mtu_bytes" in res:
        p["payload_bytes"] = float(res["mtu_bytes"])
        p["frame_bytes"] = p["payload_bytes"] + DATA_HEADERS + PREAMBLE_IFG
    for key, name, conv in (
        ("flows", "flows", int),
        ("stagger_s", "stagger", parse_quantity),
        ("duration_s", "duration", parse_quantity),
    ):
        if name in opts and opts[name] != "auto":
            p[key] = conv(opts[name])
    return p, cfg


def marking(q, k_min, k_max, p_max):
    """RED's marking probability at queue q, equation (5)."""
    if q <= k_min:
        return 0.0
    if q <= k_max:
        return (q - k_min) / (k_max - k_min) * p_max
    return 1.0


def _event_rate(p, ln1p, n):
    """p / ((1-p)^(-n) - 1): increase events per packet for a counter of n unmarked packets
    (n > 0); 1/n as p -> 0."""
    if p <= 0.0:
        return 1.0 / n
    x = -n * ln1p
    if x > 700.0:  # (1-p)^(-n) overflows: as good as no event
        return p * math.exp(-x)
    d = math.expm1(x)
    return p / d if d > 0 else 1.0 / n


def fixed_point(m):
    """The model's fixed point for m['flows'] equal flows: (q*, p*, R* in bit/s of frames,
    R_T* in bit/s, α*). q* is None when no p* below P_max balances (9): the queue then settles
    above K_max."""
    n = m["flows"]
    pkt_bits = 8 * m["frame_bytes"]
    rc = m["rate_bps"] / n / pkt_bits
    b = m["byte_counter_bytes"] / m["frame_bytes"]
    r_ai = m["rate_ai_bps"] / pkt_bits
    tau, tau_a, t = m["cnp_interval_s"], m["alpha_period_s"], m["increase_timer_s"]
    f = m["fast_recovery_steps"]

    def terms(p):
        ln1p = math.log1p(-p)
        a = -math.expm1(tau * rc * ln1p)  # a CNP within one tau: cuts per tau
        alpha = -math.expm1(tau_a * rc * ln1p)  # (7) at rest
        k_b = _event_rate(p, ln1p, b)
        k_t = _event_rate(p, ln1p, t * rc)
        inc = r_ai * rc * (math.exp(f * b * ln1p) * k_b + math.exp(f * t * rc * ln1p) * k_t)
        gap = inc * tau / a  # (8) at rest: R_T - R_C
        return a, alpha, k_b, k_t, gap

    def excess_cut(p):
        a, alpha, k_b, k_t, gap = terms(p)
        return rc * alpha * a / (2 * tau) - gap / 2 * rc * (k_b + k_t)  # (9): cuts - increases

    lo, hi = 1e-12, m["p_max"]
    if excess_cut(hi) <= 0:
        return None, None, rc * pkt_bits, None, None
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if excess_cut(mid) > 0 else (mid, hi)
    p = hi
    _, alpha, _, _, gap = terms(p)
    q = m["k_min_bytes"] + p / m["p_max"] * (m["k_max_bytes"] - m["k_min_bytes"])
    return q, p, rc * pkt_bits, (rc + gap) * pkt_bits, alpha


def integrate(m, step_s=1e-6, sample_s=10e-6, trajectory=None):
    """Integrates (5)-(9) from t = 0 to m['duration_s'] with Euler steps of step_s. Returns
    (settled queue in bytes, [settled rate of each flow in bit/s of frames], final state).
    trajectory: a callable(time_s, q, p, rc[], rt[], alpha[]) called every sample_s."""
    n = m["flows"]
    pkt_bits = 8 * m["frame_bytes"]
    c = m["rate_bps"] / pkt_bits  # packets/s
    lo_rate = m["min_rate_bps"] / pkt_bits
    b = m["byte_counter_bytes"] / m["frame_bytes"]
    r_ai = m["rate_ai_bps"] / pkt_bits
    tau, tau_a, t_inc = m["cnp_interval_s"], m["alpha_period_s"], m["increase_timer_s"]
    g, f = m["g"], m["fast_recovery_steps"]
    k_min, k_max, p_max = m["k_min_bytes"], m["k_max_bytes"], m["p_max"]
    frame = m["frame_bytes"] - PREAMBLE_IFG  # what a queued frame occupies in the buffer
    dt = step_s
    steps = int(round(m["duration_s"] / dt))
    lag = max(1, int(round(m["delay_s"] / dt)))
    start = [int(round(i * m["stagger_s"] / dt)) for i in range(n)]
    half = steps // 2
    every = max(1, int(round(sample_s / dt)))

    rc = [0.0] * n
    rt = [0.0] * n
    alpha = [1.0] * n
    on = [False] * n
    q = 0.0  # bytes
    # ring buffers of p and each R_C, `lag` steps deep: the values tau* ago
    hist_p = [0.0] * lag
    hist_rc = [[0.0] * lag for _ in range(n)]
    q_sum = 0.0
    r_sum = [0.0] * n
    settled_steps = 0
    fb = f * b
    for k in range(steps):
        for i in range(n):
            if not on[i] and k >= start[i]:
                on[i], rc[i], rt[i], alpha[i] = True, c, c, 1.0
        slot = k % lag
        p = marking(q, k_min, k_max, p_max)
        if trajectory is not None and k % every == 0:
            trajectory(k * dt, q, p, rc, rt, alpha)
        pd = hist_p[slot]  # p(t - tau*)
        hist_p[slot] = p
        if pd > 0.0:
            ln1p = math.log1p(-pd) if pd < 1.0 else -745.0
            keep_fb = math.exp(fb * ln1p)
            k_b = _event_rate(pd, ln1p, b)
        else:
            ln1p, keep_fb, k_b = 0.0, 1.0, 1.0 / b
        total = 0.0
        for i in range(n):
            hr = hist_rc[i]
            rd = hr[slot]  # R_C(t - tau*)
            hr[slot] = rc[i]
            if not on[i]:
                continue
            x, y, a = rc[i], rt[i], alpha[i]
            total += x
            if pd > 0.0:
                cut = -math.expm1(tau * rd * ln1p)
                cut_a = -math.expm1(tau_a * rd * ln1p)
                tr = t_inc * rd
                k_t = _event_rate(pd, ln1p, tr) if tr > 0 else 0.0
                keep_ft = math.exp(f * tr * ln1p)
            else:
                cut = cut_a = 0.0
                tr = t_inc * rd
                k_t = 1.0 / tr if tr > 0 else 0.0
                keep_ft = 1.0
            da = g / tau_a * (cut_a - a)
            dy = -(y - x) / tau * cut + r_ai * rd * (keep_fb * k_b + keep_ft * k_t)
            dx = -x * a / (2 * tau) * cut + (y - x) / 2 * rd * (k_b + k_t)
            alpha[i] = min(1.0, max(0.0, a + dt * da))
            y = min(c, y + dt * dy)
            x = min(c, max(lo_rate, x + dt * dx))
            rt[i] = max(y, x)
            rc[i] = x
        # (6): the queue in bytes (frames without preamble and gap), never below 0
        q = max(0.0, q + dt * (total - c) * frame)
        if k >= half:
            q_sum += q
            for i in range(n):
                r_sum[i] += rc[i]
            settled_steps += 1
    if trajectory is not None:
        trajectory(steps * dt, q, marking(q, k_min, k_max, p_max), rc, rt, alpha)
    m_steps = max(1, settled_steps)
    rates = [r / m_steps * pkt_bits for r in r_sum]
    return q_sum / m_steps, rates, {"q": q, "rc": rc, "rt": rt, "alpha": alpha}


def model_params(args):
    m = dict(PAPER)
    cfg = None
    if args.config:
        got, cfg = params_from_config(args.config)
        m.update(got)
    for key, val in (
        ("flows", args.flows),
        ("stagger_s", args.stagger),
        ("duration_s", args.duration),
        ("rate_bps", args.rate),
        ("k_min_bytes", args.kmin),
        ("k_max_bytes", args.kmax),
        ("p_max", args.pmax),
        ("g", args.g),
        ("cnp_interval_s", args.cnp_interval),
        ("alpha_period_s", args.alpha_period),
        ("increase_timer_s", args.timer),
        ("byte_counter_bytes", args.byte_counter),
        ("fast_recovery_steps", args.f),
        ("rate_ai_bps", args.rai),
        ("min_rate_bps", args.min_rate),
        ("delay_s", args.delay),
        ("frame_bytes", args.frame),
        ("payload_bytes", args.payload),
    ):
        if val is not None:
            m[key] = val
    return m, cfg


def check_params(m, integrating=True):
    if m["flows"] < 1:
        raise ValueError("flows must be at least 1")
    if not 0 <= m["k_min_bytes"] < m["k_max_bytes"]:
        raise ValueError("need 0 <= K_min < K_max")
    if not 0 < m["p_max"] <= 1:
        raise ValueError("P_max must be in (0, 1]")
    if integrating and (m["flows"] - 1) * m["stagger_s"] >= m["duration_s"] / 2:
        raise ValueError("every flow must start in the first half of the duration (stagger x (flows-1) < duration/2)")
    for k in ("rate_bps", "g", "cnp_interval_s", "alpha_period_s", "increase_timer_s", "byte_counter_bytes",
              "rate_ai_bps", "frame_bytes", "payload_bytes", "duration_s"):
        if not m[k] > 0:
            raise ValueError("%s must be positive" % k)


def run(m, step_s=1e-6, csv_path=None, sample_s=10e-6):
    """Integrates and solves the fixed point; returns the result as a dict (what --json prints)."""
    check_params(m)
    writer, fh = None, None
    if csv_path:
        fh = open(csv_path, "w", newline="")
        writer = csv.writer(fh)
        head = ["time_us", "queue_bytes", "p"]
        for i in range(m["flows"]):
            head += ["rc%d_bps" % i, "rt%d_bps" % i, "alpha%d" % i]
        writer.writerow(head)
    pkt_bits = 8 * m["frame_bytes"]

    def traj(t, q, p, rc, rt, alpha):
        row = ["%.3f" % (t * 1e6), "%.1f" % q, "%.6g" % p]
        for x, y, a in zip(rc, rt, alpha):
            row += ["%.6g" % (x * pkt_bits), "%.6g" % (y * pkt_bits), "%.6g" % a]
        writer.writerow(row)

    try:
        q, rates, _ = integrate(m, step_s, sample_s, traj if writer else None)
    finally:
        if fh:
            fh.close()
    q_star, p_star, r_star, rt_star, a_star = fixed_point(m)
    scale = m["payload_bytes"] / m["frame_bytes"]
    return {
        "params": m,
        "step_s": step_s,
        "settled_queue_bytes": q,
        "settled_rate_bps": {str(i): r * scale for i, r in enumerate(rates)},
        "settled_frame_rate_bps": {str(i): r for i, r in enumerate(rates)},
        "fixed_point": {
            "queue_bytes": q_star,
            "p": p_star,
            "rate_bps": r_star * scale,
            "frame_rate_bps": r_star,
            "target_frame_rate_bps": rt_star,
            "alpha": a_star,
        },
    }


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tools/dcqcn_fluid.py", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    q = parse_quantity
    ap.add_argument("--config", help="a run's config.json: the parameters (explicit options override it)")
    ap.add_argument("--flows", type=int, help="N, the flows at the bottleneck (default 2)")
    ap.add_argument("--stagger", type=q, help="flow i starts at i x stagger (default 5ms)")
    ap.add_argument("--duration", type=q, help="integrated time (default 60ms); settled = the last half")
    ap.add_argument("--rate", type=q, help="C, the bottleneck's link rate (default 40Gbps)")
    ap.add_argument("--kmin", type=q, help="K_min (default 5KB)")
    ap.add_argument("--kmax", type=q, help="K_max (default 200KB)")
    ap.add_argument("--pmax", type=float, help="P_max (default 0.01)")
    ap.add_argument("--g", type=float, help="g, α's gain (default 1/256)")
    ap.add_argument("--cnp-interval", type=q, help="tau, the CNP interval N (default 50us)")
    ap.add_argument("--alpha-period", type=q, help="tau', α's period K (default 55us)")
    ap.add_argument("--timer", type=q, help="T, the rate-increase timer (default 55us)")
    ap.add_argument("--byte-counter", type=q, help="B, the byte counter (default 10MB)")
    ap.add_argument("--f", type=int, help="F, the fast-recovery steps (default 5)")
    ap.add_argument("--rai", type=q, help="R_AI (default 40Mbps)")
    ap.add_argument("--min-rate", type=q, help="the rate floor (default 100Mbps)")
    ap.add_argument("--delay", type=q, help="tau*, the control-loop delay (default: the run's base RTT, else 4us)")
    ap.add_argument("--frame", type=float, help="bytes per data frame on the wire (default 1082)")
    ap.add_argument("--payload", type=float, help="payload bytes per data frame (default 1000)")
    ap.add_argument("--step", type=q, default=1e-6, help="Euler step (default 1us)")
    ap.add_argument("--sample", type=q, default=10e-6, help="--csv sampling interval (default 10us)")
    ap.add_argument("--csv", help="write the trajectories to this file")
    ap.add_argument("--fixed-point", action="store_true", help="only solve the fixed point (no integration)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    try:
        m, _ = model_params(args)
        if args.fixed_point:
            check_params(m, integrating=False)
            q_star, p_star, r_star, rt_star, a_star = fixed_point(m)
            res = {"params": m, "fixed_point": {
                "queue_bytes": q_star, "p": p_star, "rate_bps": r_star * m["payload_bytes"] / m["frame_bytes"],
                "frame_rate_bps": r_star, "target_frame_rate_bps": rt_star, "alpha": a_star}}
        else:
            res = run(m, args.step, args.csv, args.sample)
    except (ValueError, OSError) as e:
        sys.stderr.write("dcqcn_fluid: %s\n" % e)
        return 2
    if args.json:
        print(json.dumps(res, indent=1, sort_keys=True))
        return 0
    fp = res["fixed_point"]
    print("DCQCN fluid model: %d flows, C %.2f Gb/s, K_min %.0f B, K_max %.0f B, P_max %g, tau* %.2f us"
          % (m["flows"], m["rate_bps"] / 1e9, m["k_min_bytes"], m["k_max_bytes"], m["p_max"], m["delay_s"] * 1e6))
    if fp["queue_bytes"] is None:
        print("  fixed point   none with p <= P_max: the queue settles above K_max")
    else:
        print("  fixed point   q* %.0f B, p* %.4g %%, R* %.3f Gb/s payload, R_T* - R* %.1f Mb/s, alpha* %.4g"
              % (fp["queue_bytes"], 100 * fp["p"], fp["rate_bps"] / 1e9,
                 (fp["target_frame_rate_bps"] - fp["frame_rate_bps"]) / 1e6, fp["alpha"]))
    if "settled_queue_bytes" in res:
        print("  integrated    %.1f ms, stagger %.2f ms, step %.2f us" % (
            m["duration_s"] * 1e3, m["stagger_s"] * 1e3, res["step_s"] * 1e6))
        print("  settled queue %.0f B (mean over the last half)" % res["settled_queue_bytes"])
        for i, r in sorted(res["settled_rate_bps"].items(), key=lambda kv: int(kv[0])):
            print("  flow %s  settled rate %.3f Gb/s payload" % (i, r / 1e9))
    return 0


if __name__ == "__main__":
    sys.exit(main())
