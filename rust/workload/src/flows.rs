//! The HPCC simulator's flow file.

use crate::cdf::MAX_FLOW_BYTES;
use crate::error::ParseError;
use crate::text::{parse_digits, records};
use crate::topology::MAX_NODES;
use rdma_cc_core::param::{parse_real, parse_whole};
use rdma_cc_core::{Bytes, Operation, Time};

/// One flow of a flow file: a message of `bytes` from host `src` to host `dst` (node ids of
/// the topology file), starting at `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flow {
    /// Sending host.
    pub src: u32,
    /// Receiving host (differs from `src`).
    pub dst: u32,
    /// Priority class the file asks for (0–7): the flow's data priority (its traffic class: the
    /// ns-3 module runs the flow's data there, lossless when `--pfc` names it).
    pub priority: u8,
    /// Destination port the file gives (recorded; the NIC chooses its own ports, and ECMP
    /// hashes those).
    pub dport: u16,
    /// Message size (at least 1 byte).
    pub bytes: Bytes,
    /// Start time (the file's seconds, rounded to the nanosecond).
    pub start: Time,
    /// The RDMA operation: the optional seventh column (`write`, `send` or `read`; absent:
    /// `write`, what every flow was before operations existed). A READ moves its bytes from
    /// `src` (the responder, which holds the data) to `dst` (the requester, which posts the
    /// READ at `start`): `src` and `dst` always name the direction the data travels.
    pub op: Operation,
    /// The line of the file it is on.
    pub line: usize,
}

/// Latest start time: ns-3's time range (a signed 64-bit count of nanoseconds), in seconds.
const MAX_START_S: f64 = 9.2e9;

/// Parses and checks flow file `file` (text `text`; the name is used in messages only) for a
/// topology whose node `id` is a host when `is_host[id]` ([`crate::Topology::host_mask`]).
///
/// Format (whitespace-separated; blank lines are skipped, line numbers still count them):
///
/// ```text
/// COUNT
/// SRC DST PRIORITY DPORT BYTES START_SECONDS [OP]      (COUNT lines)
/// ```
///
/// as the HPCC simulator's traffic generator writes it (`13 6 3 100 24375 2.000000962`).
/// Checked: the count matches the lines; `SRC` and `DST` are hosts of the topology and differ;
/// `PRIORITY` in 0–7; `DPORT` in 0–65535; `BYTES` a whole number ≥ 1; `START_SECONDS` a finite
/// number ≥ 0 (within ns-3's time range); `OP`, when given, `write`, `send` or `read` (any
/// case; [`Flow::op`]), so that the HPCC simulator's 6-column files read as WRITEs. The rows are returned in file order (the file need
/// not be sorted by start time). Every error names the line, the field and the value.
pub fn parse_flows(file: &str, text: &str, is_host: &[bool]) -> Result<Vec<Flow>, ParseError> {
    let mut lines = records(text);
    let Some((l1, head)) = lines.next() else {
        return Err(ParseError::whole(
            file,
            "file",
            "\"\"",
            "is empty: the first line must be the number of flows",
        ));
    };
    let count = match head.as_slice() {
        [c] => parse_digits(c),
        _ => None,
    }
    .ok_or_else(|| {
        ParseError::at(
            file,
            l1,
            "count",
            head.join(" "),
            "the first line must be the number of flows, a whole number",
        )
    })?;
    if count == 0 {
        return Err(ParseError::at(
            file,
            l1,
            "count",
            0,
            "the file declares no flow: a run needs at least one",
        ));
    }
    let host = |l: usize, name: &str, text: &str| -> Result<u32, ParseError> {
        let id = parse_digits(text).ok_or_else(|| {
            ParseError::at(file, l, name, text, "must be a node id (digits only)")
        })?;
        match is_host.get(id as usize) {
            Some(true) => Ok(id as u32),
            Some(false) => Err(ParseError::at(
                file,
                l,
                name,
                text,
                "is a switch of the topology, not a host",
            )),
            None => Err(ParseError::at(
                file,
                l,
                name,
                text,
                format!(
                    "is not a node of the topology (ids 0..{})",
                    is_host.len().saturating_sub(1)
                ),
            )),
        }
    };
    let mut out = Vec::new();
    for (l, f) in lines {
        if out.len() as u64 == count {
            return Err(ParseError::at(
                file,
                l,
                "count",
                count,
                format!(
                    "line {l1} declares {count} flows but the file has more flow lines, from \
                     this one on"
                ),
            ));
        }
        if f.len() != 6 && f.len() != 7 {
            return Err(ParseError::at(
                file,
                l,
                "flow",
                f.join(" "),
                "must be 6 or 7 fields: src dst priority dport bytes start_seconds [op]",
            ));
        }
        let op = match f.get(6) {
            None => Operation::Write,
            Some(t) => Operation::from_name(t)
                .ok_or_else(|| ParseError::at(file, l, "op", t, "must be write, send or read"))?,
        };
        let src = host(l, "src", f[0])?;
        let dst = host(l, "dst", f[1])?;
        if src == dst {
            return Err(ParseError::at(file, l, "dst", dst, "must differ from src"));
        }
        let priority = parse_digits(f[2])
            .filter(|&p| p <= 7)
            .ok_or_else(|| ParseError::at(file, l, "priority", f[2], "must be in [0, 7]"))?
            as u8;
        let dport = parse_digits(f[3])
            .and_then(|p| u16::try_from(p).ok())
            .ok_or_else(|| ParseError::at(file, l, "dport", f[3], "must be in [0, 65535]"))?;
        let bytes = parse_whole(f[4])
            .filter(|&b| (1..=MAX_FLOW_BYTES).contains(&b))
            .ok_or_else(|| {
                ParseError::at(
                    file,
                    l,
                    "bytes",
                    f[4],
                    format!(
                        "must be a whole number of bytes in [1, {MAX_FLOW_BYTES}] (2^40, 1 TiB: \
                         a run counts its flows' bytes in 64 bits)"
                    ),
                )
            })?;
        let start = parse_real(f[5])
            .filter(|&s| (0.0..=MAX_START_S).contains(&s))
            .ok_or_else(|| {
                ParseError::at(
                    file,
                    l,
                    "start_seconds",
                    f[5],
                    "must be a number of seconds, at least 0 (and at most 9.2e9, ns-3's time \
                     range)",
                )
            })?;
        out.push(Flow {
            src,
            dst,
            priority,
            dport,
            bytes: Bytes(bytes),
            start: Time((start * 1e9).round() as u64),
            op,
            line: l,
        });
    }
    if (out.len() as u64) < count {
        return Err(ParseError::at(
            file,
            l1,
            "count",
            count,
            format!("the file has only {} flow lines", out.len()),
        ));
    }
    Ok(out)
}

/// [`parse_flows`] for a topology given as its node count `nodes` (at most [`MAX_NODES`])
/// and its switches' ids (every other node is a host; an id out of range is ignored). A node
/// count above the limit is an error of the whole file (field `topology nodes`).
pub fn parse_flows_on(
    file: &str,
    text: &str,
    nodes: u32,
    switches: &[u32],
) -> Result<Vec<Flow>, ParseError> {
    if u64::from(nodes) > MAX_NODES {
        return Err(ParseError::whole(
            file,
            "topology nodes",
            nodes,
            format!("must be at most {MAX_NODES}"),
        ));
    }
    let mut is_host = vec![true; nodes as usize];
    for &s in switches {
        if let Some(h) = is_host.get_mut(s as usize) {
            *h = false;
        }
    }
    parse_flows(file, text, &is_host)
}

#[cfg(test)]
mod tests {
    #[test]
    fn flows_on_a_node_count_and_switch_list_take_the_others_as_hosts() {
        // nodes 0, 1, 3 hosts; 2 a switch; 9 (out of range) ignored
        let f = parse_flows_on("f.txt", "1\n0 3 3 100 1000 0\n", 4, &[2, 9]).unwrap();
        assert_eq!((f[0].src, f[0].dst, f[0].bytes), (0, 3, Bytes(1000)));
        let e = parse_flows_on("f.txt", "1\n0 2 3 100 1000 0\n", 4, &[2]).unwrap_err();
        assert_eq!(e.line, Some(2));
        let big = (MAX_NODES + 1) as u32;
        let e = parse_flows_on("f.txt", "0\n", big, &[]).unwrap_err();
        assert_eq!((e.line, e.error.field.as_str()), (None, "topology nodes"));
        assert_eq!(
            e.to_string(),
            format!("f.txt: invalid topology nodes = {big}: must be at most {MAX_NODES}")
        );
    }

    use super::*;

    /// Hosts 0-3, switches 4-5.
    const HOSTS: [bool; 6] = [true, true, true, true, false, false];

    fn parse(text: &str) -> Result<Vec<Flow>, String> {
        parse_flows("w.flows", text, &HOSTS).map_err(|e| e.to_string())
    }

    #[test]
    fn the_optional_seventh_column_is_the_operation_and_six_columns_are_writes() {
        let f =
            parse("3\n0 1 3 100 1000 0\n1 2 3 100 1000 0 READ\n2 3 3 100 1000 0 send\n").unwrap();
        assert_eq!(
            f.iter().map(|f| f.op).collect::<Vec<_>>(),
            [Operation::Write, Operation::Read, Operation::Send]
        );
        let e = parse("1\n0 1 3 100 1000 0 atomic\n").unwrap_err();
        assert!(e.starts_with("w.flows:2: invalid op = atomic"), "{e}");
        let e = parse("1\n0 1 3 100 1000 0 read x\n").unwrap_err();
        assert!(e.contains("6 or 7 fields"), "{e}");
    }

    #[test]
    fn rows_come_back_in_file_order_with_every_field() {
        let f =
            parse("3 \n1 2 3 100 24375 2.000000962\n\n0 3 0 65535 1 0\n3 0 7 0 1e6 1.5\n").unwrap();
        assert_eq!(
            f[0],
            Flow {
                src: 1,
                dst: 2,
                priority: 3,
                dport: 100,
                bytes: Bytes(24375),
                start: Time(2_000_000_962),
                op: Operation::Write,
                line: 2
            }
        );
        assert_eq!((f[1].src, f[1].start, f[1].line), (0, Time(0), 4));
        // not sorted by start: kept as written
        assert_eq!(
            (f[2].bytes, f[2].start, f[2].priority),
            (Bytes(1_000_000), Time(1_500_000_000), 7)
        );
    }

    #[test]
    fn count_mismatches_name_the_lines() {
        assert_eq!(
            parse("3\n0 1 3 100 10 2\n").unwrap_err(),
            "w.flows:1: invalid count = 3: the file has only 1 flow lines"
        );
        assert_eq!(
            parse("1\n0 1 3 100 10 2\n1 0 3 100 10 2\n").unwrap_err(),
            "w.flows:3: invalid count = 1: line 1 declares 1 flows but the file has more flow \
             lines, from this one on"
        );
        assert!(parse("").unwrap_err().starts_with("w.flows: invalid file"));
        assert!(parse("3 4\n")
            .unwrap_err()
            .starts_with("w.flows:1: invalid count = 3 4"));
        assert!(parse("x\n")
            .unwrap_err()
            .starts_with("w.flows:1: invalid count = x"));
        // no empty success: a file of no flow is refused
        assert_eq!(
            parse("0\n").unwrap_err(),
            "w.flows:1: invalid count = 0: the file declares no flow: a run needs at least one"
        );
    }

    #[test]
    fn field_errors_name_line_field_and_value() {
        for (row, msg) in [
            (
                "0 9 3 100 10 2",
                "invalid dst = 9: is not a node of the topology (ids 0..5)",
            ),
            (
                "4 1 3 100 10 2",
                "invalid src = 4: is a switch of the topology, not a host",
            ),
            ("x 1 3 100 10 2", "invalid src = x: must be a node id"),
            ("1 1 3 100 10 2", "invalid dst = 1: must differ from src"),
            ("0 1 8 100 10 2", "invalid priority = 8: must be in [0, 7]"),
            (
                "0 1 3 70000 10 2",
                "invalid dport = 70000: must be in [0, 65535]",
            ),
            (
                "0 1 3 100 0 2",
                "invalid bytes = 0: must be a whole number of bytes in [1, 1099511627776]",
            ),
            (
                "0 1 3 100 18446744073709551615 2",
                "invalid bytes = 18446744073709551615: must be a whole number of bytes in [1,",
            ),
            ("0 1 3 100 1.5 2", "invalid bytes = 1.5"),
            (
                "0 1 3 100 10 -1",
                "invalid start_seconds = -1: must be a number of seconds",
            ),
            ("0 1 3 100 10 nan", "invalid start_seconds = nan"),
            ("0 1 3 100 10 inf", "invalid start_seconds = inf"),
            ("0 1 3 100 10 1e10", "invalid start_seconds = 1e10"),
            (
                "0 1 3 100 10",
                "invalid flow = 0 1 3 100 10: must be 6 or 7 fields",
            ),
        ] {
            let e = parse(&format!("2\n1 0 3 100 10 2\n{row}\n")).unwrap_err();
            assert!(e.starts_with(&format!("w.flows:3: {msg}")), "{e}");
        }
    }
}
