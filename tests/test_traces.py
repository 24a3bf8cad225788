"""Traces hold a flow's rows only while it is active: flows.csv and rates.csv have no row of a
flow before its start or after its finish, and each finished flow's last sample row is at its
finish (rates.csv: with every byte delivered; flows.csv sampled with --flowSample). flows.csv
without --flowSample has a row per change, the last one at or before the finish."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from common import ExampleTest, read_csv, run_example  # noqa: E402


def by_flow(rows):
    out = {}
    for r in rows:
        out.setdefault(int(r["flow_id"]), []).append(r)
    return out


class ActiveRowsOnly(ExampleTest):
    def check(self, out, trace, finished_value=None, finish_row=True):
        fct = {int(r["flow_id"]): r for r in read_csv(out, "fct.csv")}
        rows = by_flow(read_csv(out, trace))
        self.assertTrue(rows, "%s has rows" % trace)
        for fid, rs in rows.items():
            start = int(fct[fid]["start_ns"])
            times = [int(r["time_ns"]) for r in rs]
            self.assertEqual(times, sorted(times))
            self.assertGreaterEqual(times[0], start, "flow %d: no row before its start" % fid)
            if fct[fid]["finish_ns"]:
                finish = int(fct[fid]["finish_ns"])
                if finish_row:
                    self.assertEqual(times[-1], finish, "flow %d: its last row is at its finish" % fid)
                else:
                    self.assertLessEqual(times[-1], finish, "flow %d: no row after its finish" % fid)
                if finished_value:
                    key, want = finished_value(fct[fid])
                    self.assertEqual(int(rs[-1][key]), want, "flow %d's finish row" % fid)
        return fct, rows

    def test_sampled_flow_trace_of_a_workload_stops_at_each_finish(self):
        _, out = run_example("fat-tree-workload", "--k=4", "--duration=300us", "--load=0.5", "--flowTrace",
                             "--flowSample=5us")
        fct, rows = self.check(out, "flows.csv")
        done = [f for f in fct.values() if f["finish_ns"]]
        self.assertGreater(len(done), 10, "many flows finish within the run")
        self.assertEqual({int(f["flow_id"]) for f in done} - set(rows), set(), "every finished flow has rows")

    def test_change_driven_flow_trace_has_no_row_after_each_finish(self):
        # a row per change of window, rate or srtt: none after the last, none after the finish
        _, out = run_example("ldcp-incast", "--senders=8", "--size=100000", "--flowTrace")
        self.check(out, "flows.csv", finish_row=False)

    def test_rate_series_starts_at_each_start_and_ends_at_each_finish(self):
        # rcm-burst: the burst starts late and finishes within the run; the incast outlasts it
        _, out = run_example("rcm-burst", "--duration=200us", "--cases=dcqcn")
        fct, rows = self.check(os.path.join(out, "dcqcn"), "rates.csv",
                               lambda f: ("delivered_bytes", int(f["size_bytes"])))
        late = [f for f in fct.values() if int(f["start_ns"]) > 0]
        self.assertTrue(late, "the burst starts after 0")
        for f in late:
            first = int(rows[int(f["flow_id"])][0]["time_ns"])
            self.assertGreaterEqual(first, int(f["start_ns"]))
        _, out = run_example("dcqcn-convergence", "--flows=3", "--stagger=50us", "--duration=400us")
        fct, rows = self.check(out, "rates.csv")
        self.assertEqual([int(rows[i][0]["time_ns"]) for i in range(3)], [0, 50000, 100000])


if __name__ == "__main__":
    unittest.main()
