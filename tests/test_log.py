"""End-to-end checks of logging through ns-3's NS_LOG: the Rust crates' (one component per crate),
with the node and flow each record belongs to, and the C++ model's (RdmaNic, QbbNetDevice,
SwitchNode, FabricHelper)."""

import json
import os
import re
import sys
import unittest
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))
from common import BUILD, ExampleTest, read_bytes, read_csv, run_example, stable_summary, summary  # noqa: E402

# ns-3's time prefix ("+0.000012345s "), as NS_LOG writes it for its own components
TIME = r"\+(\d+(?:\.\d+)?)s "
# the context of a flow's sender ("[node 3 flow 7] ") and of a node's own lines ("[node 12] ")
FLOW = r"\[node (\d+) flow (\d+)\] "
NODE = r"\[node (\d+)\] "
# ns-3's level prefix of LOG_INFO
INFO = r"\[INFO \] "
# 16 senders with fast start on a lossy priority: the first-RTT bursts overflow K_fs
INCAST = ("--senders=16", "--size=262144")
NO_LOG = {"NS_LOG": None}


def ns(seconds):
    return round(float(seconds) * 1e9)


def assert_same_outputs(test, logged, plain):
    """Same stdout (but wall-clock figures and the output directory) and output files."""
    (p, a), (q, b) = logged, plain

    def stdout(proc, out):
        return [l.replace(out, "OUT") for l in proc.stdout.splitlines() if "wall" not in l]

    test.assertEqual(stdout(p, a), stdout(q, b))
    test.assertEqual(sorted(os.listdir(a)), sorted(os.listdir(b)))
    for name in os.listdir(a):
        if name == "summary.json":
            test.assertEqual(stable_summary(a), stable_summary(b))
        else:
            test.assertEqual(read_bytes(a, name), read_bytes(b, name), name)


class RustLog(ExampleTest):
    def test_incast_writes_transport_lines_with_time_prefix(self):
        env = {"NS_LOG": "RdmaCcTransport=debug|prefix_time:RdmaCcSwitch=debug"}
        p, out = run_example("ldcp-incast", *INCAST, env=env, split_stderr=True)
        s = summary(out)
        self.assertGreater(s["first_rtt_drops"], 0, s)
        self.assertEqual(s["pfc_pause_frames"], 0, s)
        lines = p.stderr.splitlines()
        go_back = re.compile(TIME + FLOW + r"(NACK|RTO): go back N from (\d+) \(sent up to (\d+)\)$")
        matches = [go_back.match(l) for l in lines]
        # every line is the transport's (the lossy switch never pauses: no RdmaCcSwitch line)
        self.assertEqual([l for l, m in zip(lines, matches) if not m], [])
        times = [ns(m.group(1)) for m in matches]
        # every flow lost part of its fast-start burst and went back at least once
        self.assertGreaterEqual(len(lines), s["senders"], p.stderr[:2000])
        self.assertEqual(times, sorted(times))  # written in simulated-time order
        self.assertGreater(times[0], 0)
        self.assertLessEqual(times[-1], s["sim_time_ns"])
        for m in matches:
            self.assertLessEqual(int(m.group(6)), s["size_bytes"])
            self.assertLess(int(m.group(5)), int(m.group(6)))  # goes back below what was sent
        # each line names its flow and the flow's sending host, and every flow went back
        flows = {(r["src"], r["flow_id"]) for r in read_csv(out, "fct.csv")}
        self.assertEqual({(m.group(2), m.group(3)) for m in matches}, flows)

    def test_component_names_and_prefixes(self):
        env = {"NS_LOG": "RdmaCcTransport=debug|prefix_all:RdmaCcLdcp=debug|prefix_func"}
        p, out = run_example("ldcp-incast", *INCAST, env=env, split_stderr=True)
        s = summary(out)
        lines = p.stderr.splitlines()
        transport = re.compile(TIME + r"(\d+) " + FLOW + r"RdmaCcTransport:sender\(\): \[DEBUG\] (NACK|RTO): go back N ")
        ldcp = re.compile(FLOW + r"RdmaCcLdcp:ldcp\(\): fast start ends \((Loss|AllAcked)\): cw ")
        regime = re.compile(
            FLOW + r"RdmaCcLdcp:ldcp\(\): (enters|leaves) the sub-packet regime: cw ([\d.]+) -> ([\d.]+)$"
        )
        t = [transport.match(l) for l in lines]
        f = [ldcp.match(l) for l in lines]
        r = [regime.match(l) for l in lines]
        self.assertEqual([l for l, a, b, c in zip(lines, t, f, r) if not (a or b or c)], [])
        # every flow leaves fast start exactly once
        self.assertEqual(sum(1 for m in f if m), s["senders"])
        # every flow leaves fast start exactly once, in its own context
        flows = {(r["src"], r["flow_id"]) for r in read_csv(out, "fct.csv")}
        self.assertEqual(sorted((m.group(1), m.group(2)) for m in f if m), sorted(flows))
        # the sub-packet regime is cw < 1
        for m in filter(None, r):
            self.assertIn((m.group(1), m.group(2)), flows)
            before, after = float(m.group(4)), float(m.group(5))
            if m.group(3) == "enters":
                self.assertTrue(after < 1 <= before, m.group(0))
            else:
                self.assertTrue(before < 1 <= after, m.group(0))
        # the node prefix (ns-3's context) is the sending host's node id, and the record's own
        # context names the same host and one of its flows
        nodes = {m.group(2) for m in t if m}
        self.assertTrue(nodes, p.stderr[:2000])
        for m in filter(None, t):
            self.assertEqual(m.group(2), m.group(3))
            self.assertIn((m.group(3), m.group(4)), flows)

    def test_pfc_incast_writes_one_line_per_pause_and_resume(self):
        args = ("--senders=8", "--size=2000000", "--pfc=1")
        env = {"NS_LOG": "RdmaCcSwitch=debug|prefix_time|prefix_node|prefix_func"}
        p, out = run_example("pfc-incast", *args, env=env, split_stderr=True)
        s = summary(out)
        self.assertGreater(s["pfc_pause_frames"], 0, s)
        line = re.compile(
            TIME + r"(\d+) " + NODE + r"RdmaCcSwitch:mmu\(\): (PAUSE|RESUME) port (\d+) prio 3: ingress queue \d+ B"
        )
        matches = [line.match(l) for l in p.stderr.splitlines()]
        self.assertTrue(all(matches), p.stderr[:2000])
        # the record's context is the switch that ns-3's node prefix names
        self.assertTrue(all(m.group(2) == m.group(3) for m in matches))
        logged = Counter((m.group(4).lower(), m.group(2), m.group(5), ns(m.group(1))) for m in matches)
        # the MMU decides each PAUSE once and the switch sends it at once (no pause outlasts its
        # refresh at this load): the log and pfc.csv list the same frames
        frames = Counter((r["kind"], r["node"], r["port"], int(r["time_ns"])) for r in read_csv(out, "pfc.csv"))
        self.assertEqual(logged, frames)
        self.assertEqual(sum(1 for m in matches if m.group(4) == "PAUSE"), s["pfc_pause_frames"])

        plain = run_example("pfc-incast", *args, env=NO_LOG, split_stderr=True)
        self.assertEqual(plain[0].stderr, "")
        assert_same_outputs(self, (p, out), plain)

    def test_without_ns_log_nothing_is_written_and_outputs_are_identical(self):
        env = {"NS_LOG": "RdmaCcTransport=level_logic|prefix_all:RdmaCcLdcp=level_debug:RdmaCcSwitch=level_logic"}
        logged = run_example("ldcp-incast", *INCAST, env=env, split_stderr=True)
        # level_logic includes trace: one line per data packet sent, at least
        self.assertGreater(logged[0].stderr.count("RdmaCcTransport:sender(): [LOGIC] send "), 16 * 262)
        plain = run_example("ldcp-incast", *INCAST, env=NO_LOG, split_stderr=True)
        self.assertEqual(plain[0].stderr, "")
        assert_same_outputs(self, logged, plain)
        # an unrelated ns-3 component enabled: no rdma-cc line either
        other = run_example("ldcp-incast", *INCAST, env={"NS_LOG": "Simulator=level_error"}, split_stderr=True)
        self.assertEqual(other[0].stderr, "")


def build_profile():
    """The profile of the build under test (./waf configure --build-profile; rdma-cc-build.json)."""
    with open(os.path.join(BUILD, "rdma-cc-build.json")) as f:
        return json.load(f).get("profile", "default")


@unittest.skipIf(
    build_profile() == "fast",
    "a --build-profile=fast build compiles NS_LOG out of the C++ model (test_build_profile.py checks that it writes nothing)",
)
class ModelLog(ExampleTest):
    """The C++ model's components: RdmaNic, QbbNetDevice, SwitchNode, FabricHelper."""

    def test_nic_info_names_each_flow_at_its_start_and_finish(self):
        # ns-3's level_info is error, warn, debug and info: no per-packet line (those are logic)
        env = {"NS_LOG": "RdmaNic=level_info|prefix_time|prefix_level"}
        p, out = run_example("ldcp-incast", "--senders=2", env=env, split_stderr=True)
        start = re.compile(TIME + NODE + INFO + r"flow (\d+) start: node (\d+) -> node (\d+), (\d+) B, (\w+)$")
        finish = re.compile(
            TIME + NODE + INFO + r"flow (\d+) finish: node (\d+) -> node (\d+), (\d+) B, FCT (\d+) ns, "
            r"retransmitted (\d+) B, (\d+) timeouts, (\d+) NACKs$"
        )
        retx = re.compile(TIME + NODE + INFO + r"flow (\d+) retransmits from seq (\d+) \((NACK|timeout); sent up to (\d+)\)$")
        lines = p.stderr.splitlines()
        starts = [m for m in map(start.match, lines) if m]
        finishes = [m for m in map(finish.match, lines) if m]
        info = [l for l in lines if "[INFO " in l]
        self.assertEqual([l for l in info if not (start.match(l) or finish.match(l) or retx.match(l))], [])
        rows = read_csv(out, "fct.csv")
        self.assertEqual(len(rows), 2)
        # the rest: a few lines per flow (added, receiver made and retired), none per packet
        self.assertTrue(all("[DEBUG]" in l for l in lines if l not in info), p.stderr[:2000])
        self.assertLessEqual(len(lines) - len(info), 3 * len(rows), p.stderr[:2000])
        for r in rows:
            # one start and one finish line per flow, at the flow's times, naming its hosts
            (b,) = [m for m in starts if m.group(3) == r["flow_id"]]
            (e,) = [m for m in finishes if m.group(3) == r["flow_id"]]
            for m in (b, e):
                self.assertEqual((m.group(2), m.group(4), m.group(5), m.group(6)), (r["src"], r["src"], r["dst"], r["size_bytes"]))
            self.assertEqual(b.group(7), "ldcp")
            self.assertEqual(ns(b.group(1)), int(r["start_ns"]))
            self.assertEqual(ns(e.group(1)), int(r["finish_ns"]))
            self.assertEqual(e.group(7), r["fct_ns"])

    def test_device_info_writes_each_pause_and_resume_sent_and_received(self):
        args = ("--senders=8", "--size=2000000", "--pfc=1")
        env = {"NS_LOG": "QbbNetDevice=level_info|prefix_time|prefix_level"}
        p, out = run_example("pfc-incast", *args, env=env, split_stderr=True)
        s = summary(out)
        self.assertGreater(s["pfc_pause_frames"], 0, s)
        port = r"\[node (\d+) port (\d+)\] "
        sent = re.compile(TIME + port + INFO + r"(PAUSE|RESUME) sent: priority 3(, 65535 quanta)?$")
        received = re.compile(TIME + port + INFO + r"(PAUSE|RESUME) received: priority 3")
        lines = p.stderr.splitlines()
        self.assertEqual([l for l in lines if not (sent.match(l) or received.match(l))], [])
        tx = [m for m in map(sent.match, lines) if m]
        rx = [m for m in map(received.match, lines) if m]
        # the device writes each PFC frame it sends: the frames of pfc.csv
        logged = Counter((m.group(4).lower(), m.group(2), m.group(3), ns(m.group(1))) for m in tx)
        frames = Counter((r["kind"], r["node"], r["port"], int(r["time_ns"])) for r in read_csv(out, "pfc.csv"))
        self.assertEqual(logged, frames)
        # and its peer each one it receives (a frame takes a link's delay to arrive)
        self.assertEqual(Counter(m.group(4) for m in rx), Counter(m.group(4) for m in tx))
        self.assertTrue(all(m.group(4) == "PAUSE" or not m.group(5) for m in tx))

    def test_switch_info_writes_each_drop_with_its_reason(self):
        env = {"NS_LOG": "SwitchNode=level_info|prefix_level"}
        p, out = run_example("ldcp-incast", *INCAST, env=env, split_stderr=True)
        s = summary(out)
        self.assertGreater(s["first_rtt_drops"], 0, s)
        drop = re.compile(NODE + INFO + r"drop \((\w+)\) from port (\d+) priority 3, (\d+) B: DATA ")
        matches = [drop.match(l) for l in p.stderr.splitlines() if "[DEBUG]" not in l]
        self.assertTrue(matches and all(matches), p.stderr[:2000])
        self.assertEqual(len(matches), s["drops_total"], s)
        self.assertEqual(Counter(m.group(2) for m in matches), Counter(s["drops"]), s["drops"])

    def test_every_model_component_logs_and_outputs_do_not_change(self):
        components = ("RdmaNic", "QbbNetDevice", "SwitchNode", "FabricHelper")
        env = {"NS_LOG": ":".join(c + "=level_all|prefix_func|prefix_level" for c in components)}
        args = ("--senders=2", "--size=20000")
        logged = run_example("ldcp-incast", *args, env=env, split_stderr=True)
        lines = logged[0].stderr.splitlines()
        for c in components:
            mine = [l for l in lines if c + ":" in l]
            # NS_LOG_FUNCTION lines have no level label
            self.assertTrue(any("(): [" not in l for l in mine), c)
            for level in ("LOGIC", "DEBUG", "INFO"):
                # none in this run: the helper has no per-packet work, the device has no debug line,
                # and this small lossy run neither pauses nor drops (other tests see those)
                if (c, level) in (("FabricHelper", "LOGIC"), ("QbbNetDevice", "DEBUG"), ("QbbNetDevice", "INFO"), ("SwitchNode", "INFO")):
                    continue
                self.assertTrue(any("(): [" + level in l for l in mine), (c, level))
        plain = run_example("ldcp-incast", *args, env=NO_LOG, split_stderr=True)
        self.assertEqual(plain[0].stderr, "")
        assert_same_outputs(self, logged, plain)


if __name__ == "__main__":
    unittest.main()
