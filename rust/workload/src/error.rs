use rdma_cc_core::ConfigError;
use std::fmt;

/// An error in a workload or topology file: the file, the line (1-based; `None` for a
/// property of the whole file, such as a host no link reaches), and the field, value and rule.
///
/// Displayed as `FILE:LINE: invalid FIELD = VALUE: RULE` (or `FILE: invalid ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// The file's name as the caller gave it.
    pub file: String,
    /// The line the error is on, counting from 1.
    pub line: Option<usize>,
    /// The field, its value and what it must satisfy.
    pub error: ConfigError,
}

impl ParseError {
    /// An error on `line` of `file`.
    pub fn at(
        file: &str,
        line: usize,
        field: impl Into<String>,
        value: impl fmt::Display,
        requirement: impl Into<String>,
    ) -> Self {
        Self {
            file: file.to_string(),
            line: Some(line),
            error: ConfigError::new(field, value, requirement),
        }
    }

    /// An error of the whole of `file`.
    pub fn whole(
        file: &str,
        field: impl Into<String>,
        value: impl fmt::Display,
        requirement: impl Into<String>,
    ) -> Self {
        Self {
            file: file.to_string(),
            line: None,
            error: ConfigError::new(field, value, requirement),
        }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.error),
            None => write!(f, "{}: {}", self.file, self.error),
        }
    }
}

impl std::error::Error for ParseError {}

/// Why a workload could not be made: a fault in a file it reads (the line and field), or in
/// one of its settings (the field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkloadError {
    /// A fault in a file.
    File(ParseError),
    /// A setting out of its range.
    Config(ConfigError),
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::File(e) => e.fmt(f),
            WorkloadError::Config(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for WorkloadError {}

impl From<ParseError> for WorkloadError {
    fn from(e: ParseError) -> Self {
        WorkloadError::File(e)
    }
}

impl From<ConfigError> for WorkloadError {
    fn from(e: ConfigError) -> Self {
        WorkloadError::Config(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_file_line_field_value_and_rule() {
        let e = ParseError::at("fat-tree.txt", 17, "rate", "100Gbs", "must be a rate");
        assert_eq!(
            e.to_string(),
            "fat-tree.txt:17: invalid rate = 100Gbs: must be a rate"
        );
        let e = ParseError::whole("t.txt", "host", 3, "has no link");
        assert_eq!(e.to_string(), "t.txt: invalid host = 3: has no link");
        // a workload error reads as the error it carries
        assert_eq!(WorkloadError::from(e.clone()).to_string(), e.to_string());
        let c = ConfigError::new("pattern", "ring", "must be one of uniform");
        assert_eq!(WorkloadError::from(c.clone()).to_string(), c.to_string());
    }
}
