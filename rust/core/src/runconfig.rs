//! A run's recorded configuration (`config.json`) read back for a replay, and the "did you
//! mean" of an unknown name.
//!
//! Every example writes `config.json` beside its results: the example's name, the command line
//! it ran (`command_line`, one argument a string), and the effective value of every option
//! (`options`, as a user would write it). `--config=FILE` replays such a file: the example runs
//! the recorded command line again, and the values it then resolves are checked against the
//! recorded ones, so that a default changed since the recording cannot silently change the
//! replay. Bytes in, values out: the caller reads the file.

use crate::ConfigError;
use serde::Deserialize;

/// What a replay needs of a `config.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunConfig {
    /// The example that wrote it (`ldcp-incast`).
    pub example: String,
    /// Its command line, without the program name.
    pub command_line: Vec<String>,
    /// Every option's effective value, as text (`name`, `value`), sorted by name.
    pub options: Vec<(String, String)>,
    /// The case of a multi-case example this file records (empty: the whole run).
    pub case: String,
}

#[derive(Deserialize)]
struct File {
    example: String,
    command_line: Vec<String>,
    #[serde(default)]
    options: serde_json::Map<String, serde_json::Value>,
    #[serde(default)]
    case: String,
}

impl RunConfig {
    /// Reads a `config.json` from its bytes. The error names the field that is missing or
    /// malformed (`field` is the file's key; the caller adds the file's name).
    pub fn from_json(bytes: &[u8]) -> Result<RunConfig, ConfigError> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| ConfigError::new("config file", "bytes", format!("not UTF-8 ({e})")))?;
        let f: File = serde_json::from_str(text).map_err(|e| {
            ConfigError::new(
                "config file",
                "text",
                format!(
                    "not a config.json written by an rdma-cc example (needs \"example\" and \
                     \"command_line\"): {e}"
                ),
            )
        })?;
        let mut options = Vec::with_capacity(f.options.len());
        for (k, v) in f.options {
            let text = match v {
                serde_json::Value::String(s) => s,
                other => {
                    return Err(ConfigError::new(
                        format!("options.{k}"),
                        other,
                        "must be the option's value as text",
                    ))
                }
            };
            options.push((k, text));
        }
        if f.example.is_empty() {
            return Err(ConfigError::new("example", "\"\"", "must name the example"));
        }
        Ok(RunConfig {
            example: f.example,
            command_line: f.command_line,
            options,
            case: f.case,
        })
    }
}

/// The edit distance between `a` and `b`: insertions, deletions, substitutions and swaps of
/// two neighbours cost one each (optimal string alignment); ASCII case differences cost nothing.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().map(|c| c.to_ascii_lowercase()).collect();
    let b: Vec<char> = b.chars().map(|c| c.to_ascii_lowercase()).collect();
    let w = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * w];
    for (i, row) in d.chunks_mut(w).enumerate() {
        row[0] = i;
    }
    for (j, cell) in d.iter_mut().take(w).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[(i - 1) * w + j] + 1)
                .min(d[i * w + j - 1] + 1)
                .min(d[(i - 1) * w + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[(i - 2) * w + j - 2] + 1);
            }
            d[i * w + j] = v;
        }
    }
    d[a.len() * w + b.len()]
}

/// The candidate closest to `name`, when it is close enough to be what the user meant: at
/// most a third of the name's characters apart (at least one), or `name` is a prefix of it
/// or it of `name`. Ties go to the first candidate.
pub fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for &c in candidates {
        let d = distance(name, c);
        let cl = c.to_ascii_lowercase();
        let near = d <= (name.chars().count() / 3).max(1)
            || (lower.len() >= 3 && (cl.starts_with(&lower) || lower.starts_with(&cl)));
        if near && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_config_reads_back_with_its_command_line_and_options() {
        let json = br#"{"example": "ldcp-incast", "command_line": ["--senders=2", "--cc=dcqcn"],
            "options": {"senders": "2", "cc": "dcqcn"}, "seed": 1}"#;
        let c = RunConfig::from_json(json).unwrap();
        assert_eq!(c.example, "ldcp-incast");
        assert_eq!(c.command_line, vec!["--senders=2", "--cc=dcqcn"]);
        assert_eq!(
            c.options,
            vec![
                ("cc".to_string(), "dcqcn".to_string()),
                ("senders".to_string(), "2".to_string())
            ]
        );
    }

    #[test]
    fn a_file_that_is_not_a_config_names_what_it_lacks() {
        let e = RunConfig::from_json(br#"{"scheme": "ldcp"}"#).unwrap_err();
        assert!(e.to_string().contains("\"example\""), "{e}");
        let e = RunConfig::from_json(&[0xff, 0xfe, 0x00]).unwrap_err();
        assert!(e.to_string().contains("not UTF-8"), "{e}");
        let e =
            RunConfig::from_json(br#"{"example": "x", "command_line": [], "options": {"a": 1}}"#)
                .unwrap_err();
        assert_eq!(e.field, "options.a");
    }

    #[test]
    fn a_misspelt_name_finds_the_one_meant_and_a_stranger_finds_none() {
        let names = [
            "ldcp",
            "ldcp-rate",
            "dcqcn",
            "timely",
            "dctcp",
            "hpcc",
            "none",
        ];
        assert_eq!(closest("dcqnc", &names), Some("dcqcn"));
        assert_eq!(closest("DCQCN", &names), Some("dcqcn"));
        assert_eq!(closest("hpc", &names), Some("hpcc"));
        assert_eq!(closest("bbr", &names), None);
        let opts = ["senders", "size", "seed", "cc", "rate"];
        assert_eq!(closest("sender", &opts), Some("senders"));
        assert_eq!(closest("senderz", &opts), Some("senders"));
        assert_eq!(closest("completelydifferent", &opts), None);
    }
}
