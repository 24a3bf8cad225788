//! Lines, fields and the unit-carrying values of the files.

use crate::error::{ParseError, WorkloadError};
use rdma_cc_core::param::{parse_real, parse_time_ns};
use rdma_cc_core::ConfigError;
use rdma_cc_core::{Rate, Time};
use std::io::ErrorKind;

/// The non-blank lines of `text` (numbered from 1, blank lines counted), each split into its
/// whitespace-separated fields: the HPCC simulator reads these files as whitespace-separated
/// streams, so spaces, tabs and `\r\n` line ends are all accepted.
pub(crate) fn records(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, f)| !f.is_empty())
}

/// Largest file the examples read, bytes (256 MiB: a flow file of millions of flows, far more
/// than a run can simulate; a larger input is a mistake, e.g. a device or a log).
pub const MAX_TEXT_BYTES: u64 = 256 << 20;

/// `path` as a message shows it: control characters escaped, so the message stays one line.
pub fn shown_path(path: &[u8]) -> String {
    String::from_utf8_lossy(path)
        .chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// A text input named on the command line (`--topo`, `--cdf`, `--config`): the option, the
/// path as messages show it, and the rules of reading it. The reading is the caller's; every
/// refusal is one line naming the option and the path (`invalid --topo = t.txt: no such
/// file`), and a fault of the text names the line (`t.txt:3: invalid text = ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextInput {
    option: String,
    shown: String,
}

impl TextInput {
    /// The input `path` given to `option`; refused when it names no file or is not UTF-8.
    pub fn new(path: &[u8], option: &str) -> Result<TextInput, WorkloadError> {
        let input = TextInput {
            option: option.to_string(),
            shown: shown_path(path),
        };
        if path.is_empty() {
            return Err(input.refuse("names no file"));
        }
        if std::str::from_utf8(path).is_err() {
            return Err(input.refuse("the path must be UTF-8 text"));
        }
        Ok(input)
    }

    /// The path as messages show it ([`shown_path`]).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The refusal of this input for `rule`.
    pub fn refuse(&self, rule: impl Into<String>) -> WorkloadError {
        WorkloadError::Config(ConfigError::new(&self.option, &self.shown, rule))
    }

    /// The refusal for an I/O error of kind `kind` whose message is `text`, in words and
    /// without the OS error number.
    pub fn io_error(&self, kind: ErrorKind, text: &str) -> WorkloadError {
        self.refuse(match kind {
            ErrorKind::NotFound => "no such file".into(),
            ErrorKind::PermissionDenied => "cannot be read: permission denied".into(),
            _ => {
                let text = text.split(" (os error").next().unwrap_or(text);
                format!("cannot be read: {}", text.to_lowercase())
            }
        })
    }

    /// Refuses a directory.
    pub fn check_not_dir(&self, is_dir: bool) -> Result<(), WorkloadError> {
        if is_dir {
            return Err(self.refuse("is a directory, not a file"));
        }
        Ok(())
    }

    /// How many bytes to read at most: a regular file of `len` bytes (refused above
    /// [`MAX_TEXT_BYTES`]) up to its size and one byte more (a byte more: it grew); a pipe or a
    /// device up to the limit and one byte more.
    pub fn read_limit(&self, regular: bool, len: u64) -> Result<u64, WorkloadError> {
        if regular && len > MAX_TEXT_BYTES {
            return Err(self.refuse(format!(
                "is {len} bytes: a text input is at most {MAX_TEXT_BYTES} bytes (256 MiB)"
            )));
        }
        Ok(if regular { len } else { MAX_TEXT_BYTES } + 1)
    }

    /// Checks what was read: `read` bytes of an input whose size was `len` when opened and is
    /// `now` after the read (a regular file must not have changed; a pipe or a device must
    /// have given at most [`MAX_TEXT_BYTES`]).
    pub fn check_read(
        &self,
        regular: bool,
        len: u64,
        read: u64,
        now: u64,
    ) -> Result<(), WorkloadError> {
        if !regular && read > MAX_TEXT_BYTES {
            return Err(self.refuse(format!(
                "gives more than {MAX_TEXT_BYTES} bytes (256 MiB): a text input is at most that"
            )));
        }
        if regular && (read != len || now != len) {
            return Err(self.refuse(format!(
                "changed while it was read ({len} bytes when opened, {} now): read it once it \
                 is complete",
                now.max(read)
            )));
        }
        Ok(())
    }

    /// The text of the bytes read ([`decode_text`]).
    pub fn decode(&self, bytes: &[u8]) -> Result<String, WorkloadError> {
        Ok(decode_text(&self.shown, bytes)?.to_string())
    }
}

/// The text of file `file` (the name is used in messages only), checked to be plain UTF-8
/// text: no byte-order mark (it would hide in the first field: `invalid nodes = \u{feff}376`),
/// no NUL byte and valid UTF-8 throughout. The error names the line, the column (in bytes,
/// from 1) and the byte at fault (`t.txt:3: invalid text = byte 0xFF at column 7: must be
/// UTF-8 text ...`), so a binary file given by mistake gets the same answer as any other
/// malformed file.
pub fn decode_text<'a>(file: &str, bytes: &'a [u8]) -> Result<&'a str, ParseError> {
    // line and column (both from 1) of byte offset `at`
    let place = |at: usize| {
        let before = &bytes[..at.min(bytes.len())];
        let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = at
            - before
                .iter()
                .rposition(|&b| b == b'\n')
                .map_or(0, |p| p + 1)
            + 1;
        (line, column)
    };
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return Err(ParseError::at(
            file,
            1,
            "text",
            "byte-order mark EF BB BF",
            "must be plain UTF-8 text without a byte-order mark (save the file without BOM)",
        ));
    }
    if let Some(at) = bytes.iter().position(|&b| b == 0) {
        let (line, column) = place(at);
        return Err(ParseError::at(
            file,
            line,
            "text",
            format!("NUL byte at column {column}"),
            "must be text without NUL bytes (is it a binary file?)",
        ));
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        let (line, column) = place(at);
        let byte = bytes.get(at).copied().unwrap_or(0);
        ParseError::at(
            file,
            line,
            "text",
            format!("byte 0x{byte:02X} at column {column}"),
            "must be UTF-8 text (is it a binary file?)",
        )
    })
}

/// A whole number written with digits only (`17`; not `+17`, `1e3` or `17.0`): node ids,
/// counts, priorities and ports.
pub(crate) fn parse_digits(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The units of an ns-3 `DataRate` string (ns-3's `DataRate::DoParse`), in bit/s per unit.
const RATE_UNITS: [(&str, f64); 26] = [
    ("bps", 1.0),
    ("b/s", 1.0),
    ("Bps", 8.0),
    ("B/s", 8.0),
    ("kbps", 1e3),
    ("kb/s", 1e3),
    ("Kbps", 1e3),
    ("Kb/s", 1e3),
    ("kBps", 8e3),
    ("kB/s", 8e3),
    ("KBps", 8e3),
    ("KB/s", 8e3),
    ("Kib/s", 1024.0),
    ("KiB/s", 8192.0),
    ("Mbps", 1e6),
    ("Mb/s", 1e6),
    ("MBps", 8e6),
    ("MB/s", 8e6),
    ("Mib/s", 1_048_576.0),
    ("MiB/s", 8_388_608.0),
    ("Gbps", 1e9),
    ("Gb/s", 1e9),
    ("GBps", 8e9),
    ("GB/s", 8e9),
    ("Gib/s", 1_073_741_824.0),
    ("GiB/s", 8_589_934_592.0),
];

/// What [`parse_data_rate`] accepts, for error messages.
pub(crate) const RATE_RULE: &str = "must be a rate above 0 in whole bit/s, a number with an ns-3 \
     DataRate unit: bps, b/s, Bps, B/s with k, K, M, G (e.g. 100Gbps, 400Gb/s, 25Mbps, 12.5GBps) \
     or Ki, Mi, Gi before b/s or B/s";

/// A link rate as an ns-3 `DataRate` string writes it (`100Gbps`, `400Gb/s`, `10Mbps`,
/// `1KiB/s`: a decimal number followed by one of ns-3's units, bits or bytes per second with
/// the prefixes k/K, M, G and Ki, Mi, Gi). Unlike ns-3, the rate must come to a whole number of
/// bit/s above 0 and a unit is required (ns-3 reads a bare number as bit/s; the HPCC files
/// always write the unit). `None` when the text is not such a rate.
pub fn parse_data_rate(text: &str) -> Option<Rate> {
    let split = text.find(|c: char| !c.is_ascii_digit() && c != '.')?;
    let (number, unit) = text.split_at(split);
    let scale = RATE_UNITS.iter().find(|(u, _)| *u == unit)?.1;
    // digits with at most one decimal point (ns-3 takes the longest such prefix; the whole
    // number must be one here)
    if number.bytes().filter(|&c| c == b'.').count() > 1 || !number.bytes().any(|c| c != b'.') {
        return None;
    }
    let bits = parse_real(number)? * scale;
    let whole = bits.round();
    // tolerate the rounding of a decimal fraction (`2.5Gbps`), as the option parser does
    let exact = (bits - whole).abs() <= 1e-6 * whole.max(1.0);
    (exact && whole >= 1.0 && whole < u64::MAX as f64).then_some(Rate(whole as u64))
}

/// What [`parse_delay`] accepts, for error messages.
pub(crate) const DELAY_RULE: &str = "must be a duration in whole nanoseconds with its unit ns, \
     us, ms or s (e.g. 1000ns, 1us, 0.001ms), or 0";

/// A link delay: a number with `ns`, `us`, `ms` or `s` (`1000ns`, `1us`, `0.001ms`), whole
/// nanoseconds (ns-3's default time resolution), or a bare `0`. `None` otherwise.
pub fn parse_delay(text: &str) -> Option<Time> {
    parse_time_ns(text).map(Time)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_text_inputs_rules_are_one_line_naming_the_option_and_path() {
        fn msg<T: std::fmt::Debug>(r: Result<T, WorkloadError>) -> String {
            r.unwrap_err().to_string()
        }
        assert_eq!(
            msg(TextInput::new(b"", "--topo")),
            "invalid --topo = : names no file"
        );
        assert_eq!(
            msg(TextInput::new(b"/t/\xFFx\n", "--cdf")),
            "invalid --cdf = /t/\u{fffd}x\\n: the path must be UTF-8 text"
        );
        let t = TextInput::new(b"t.txt", "--topo").unwrap();
        assert_eq!(t.shown(), "t.txt");
        assert_eq!(
            t.io_error(ErrorKind::NotFound, "x").to_string(),
            "invalid --topo = t.txt: no such file"
        );
        assert_eq!(
            t.io_error(ErrorKind::Other, "Input/output error (os error 5)")
                .to_string(),
            "invalid --topo = t.txt: cannot be read: input/output error"
        );
        assert!(msg(t.check_not_dir(true)).ends_with("is a directory, not a file"));
        t.check_not_dir(false).unwrap();
        // a regular file: its size and a byte more; a pipe: the limit and a byte more
        assert_eq!(t.read_limit(true, 10).unwrap(), 11);
        assert_eq!(t.read_limit(false, 0).unwrap(), MAX_TEXT_BYTES + 1);
        assert_eq!(
            t.read_limit(true, MAX_TEXT_BYTES).unwrap(),
            MAX_TEXT_BYTES + 1
        );
        assert!(msg(t.read_limit(true, MAX_TEXT_BYTES + 1))
            .contains("is 268435457 bytes: a text input is at most 268435456 bytes"));
        t.check_read(true, 10, 10, 10).unwrap();
        t.check_read(false, 0, MAX_TEXT_BYTES, 0).unwrap();
        assert!(msg(t.check_read(false, 0, MAX_TEXT_BYTES + 1, 0)).contains("gives more than"));
        assert!(msg(t.check_read(true, 10, 11, 11))
            .contains("changed while it was read (10 bytes when opened, 11 now)"));
        assert!(msg(t.check_read(true, 10, 10, 12)).contains("12 now"));
        assert_eq!(t.decode(b"4 1\n").unwrap(), "4 1\n");
        assert!(msg(t.decode(b"4\n\x00")).starts_with("t.txt:2: invalid text = NUL byte"));
    }

    use super::*;

    #[test]
    fn records_skip_blank_lines_and_keep_their_numbers() {
        let r: Vec<_> = records("a b\n\n  \r\nc\td\r\n").collect();
        assert_eq!(r, vec![(1, vec!["a", "b"]), (4, vec!["c", "d"])]);
    }

    #[test]
    fn digits_only() {
        assert_eq!(parse_digits("0"), Some(0));
        assert_eq!(parse_digits("375"), Some(375));
        for bad in [
            "",
            "+1",
            "-1",
            "1e3",
            "1.0",
            " 1",
            "x",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_digits(bad), None, "{bad}");
        }
    }

    #[test]
    fn rates_of_every_ns3_unit() {
        for (text, bps) in [
            ("100Gbps", 100_000_000_000),
            ("400Gbps", 400_000_000_000),
            ("400Gb/s", 400_000_000_000),
            ("2.5Gbps", 2_500_000_000),
            ("25Mbps", 25_000_000),
            ("10kbps", 10_000),
            ("10Kbps", 10_000),
            ("1000bps", 1000),
            ("1Bps", 8),
            ("12.5GBps", 100_000_000_000),
            ("1KiB/s", 8192),
            ("1Kib/s", 1024),
            ("1Mib/s", 1_048_576),
            ("1Gib/s", 1_073_741_824),
            ("1GiB/s", 8_589_934_592),
            ("1kB/s", 8000),
        ] {
            assert_eq!(parse_data_rate(text), Some(Rate(bps)), "{text}");
        }
    }

    #[test]
    fn rates_without_a_known_unit_or_not_whole_are_refused() {
        for bad in [
            "100",
            "100Gbs",
            "100gbps",
            "100Tbps",
            "100 Gbps",
            "Gbps",
            ".Gbps",
            "1.2.3Gbps",
            "-1Gbps",
            "0Gbps",
            "0.5bps",
            "1e9bps",
            "100Kibps",
            "",
            "1e30GBps",
        ] {
            assert_eq!(parse_data_rate(bad), None, "{bad}");
        }
    }

    #[test]
    fn delays_in_whole_nanoseconds() {
        for (text, ns) in [("1000ns", 1000), ("1us", 1000), ("0.001ms", 1000), ("0", 0)] {
            assert_eq!(parse_delay(text), Some(Time(ns)), "{text}");
        }
        for bad in ["1000", "1ps", "0.5ns", "-1us", "1 us", "1min"] {
            assert_eq!(parse_delay(bad), None, "{bad}");
        }
    }

    #[test]
    fn text_must_be_utf8_without_bom_or_nul() {
        assert_eq!(decode_text("t", b"4 1 3\n"), Ok("4 1 3\n"));
        assert_eq!(
            decode_text("t", "caf\u{e9} 1\n".as_bytes()),
            Ok("caf\u{e9} 1\n")
        );
        let e = |b: &[u8]| decode_text("t.txt", b).unwrap_err().to_string();
        assert_eq!(
            e(b"\xEF\xBB\xBF376 1 2\n"),
            "t.txt:1: invalid text = byte-order mark EF BB BF: must be plain UTF-8 text without \
             a byte-order mark (save the file without BOM)"
        );
        assert_eq!(
            e(b"1 2\n3 \x004\n"),
            "t.txt:2: invalid text = NUL byte at column 3: must be text without NUL bytes (is \
             it a binary file?)"
        );
        assert_eq!(
            e(b"1 2\n\n34 5\xFF\n"),
            "t.txt:3: invalid text = byte 0xFF at column 5: must be UTF-8 text (is it a binary \
             file?)"
        );
        // a truncated multi-byte character at the end
        assert!(e(b"1 \xC3").starts_with("t.txt:1: invalid text = byte 0xC3 at column 3"));
        // any bytes at all: an answer, never a panic
        let mut x: u64 = 1;
        for _ in 0..200 {
            let junk: Vec<u8> = (0..64)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    (x >> 56) as u8
                })
                .collect();
            let _ = decode_text("j", &junk);
        }
    }
}
