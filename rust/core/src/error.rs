use std::fmt;

/// A configuration value that cannot be used, with the field it came from.
///
/// The message is meant for a researcher at a command line: it names the field (as the ns-3
/// attribute or command-line option spells it), the value given, and what is required.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Name of the offending field, e.g. `"KMin"` or `"p_max"`.
    pub field: String,
    /// The value that was given, rendered for humans.
    pub value: String,
    /// What the value must satisfy, e.g. `"must be <= KMax (20000 B)"`.
    pub requirement: String,
}

impl ConfigError {
    /// Builds an error for `field` holding `value`, which violates `requirement`.
    pub fn new(
        field: impl Into<String>,
        value: impl fmt::Display,
        requirement: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            value: value.to_string(),
            requirement: requirement.into(),
        }
    }

    /// Returns `Err` naming `field` unless `ok` holds.
    pub fn check(
        ok: bool,
        field: &str,
        value: impl fmt::Display,
        requirement: &str,
    ) -> Result<(), ConfigError> {
        if ok {
            Ok(())
        } else {
            Err(Self::new(field, value, requirement))
        }
    }

    /// [`Self::check`] whose requirement is written only when `ok` fails: for a requirement
    /// that quotes a value (`format!`), checked where it is called often (per port and
    /// priority at set-up), so a value that passes costs no formatting nor allocation.
    pub fn check_with(
        ok: bool,
        field: &str,
        value: impl fmt::Display,
        requirement: impl FnOnce() -> String,
    ) -> Result<(), ConfigError> {
        if ok {
            Ok(())
        } else {
            Err(Self::new(field, value, requirement()))
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid {} = {}: {}",
            self.field, self.value, self.requirement
        )
    }
}

impl std::error::Error for ConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_names_field_value_and_requirement() {
        let e = ConfigError::new("KMin", "30000 B", "must be <= KMax (20000 B)");
        assert_eq!(
            e.to_string(),
            "invalid KMin = 30000 B: must be <= KMax (20000 B)"
        );
    }

    #[test]
    fn check_passes_when_condition_holds() {
        assert!(ConfigError::check(true, "x", 1, "positive").is_ok());
        let e = ConfigError::check(false, "x", -1, "must be positive").unwrap_err();
        assert_eq!(e.field, "x");
        assert_eq!(e.value, "-1");
    }

    #[test]
    fn check_with_writes_the_requirement_only_when_the_check_fails() {
        let mut written = 0;
        assert!(ConfigError::check_with(true, "x", 1, || {
            written += 1;
            "positive".to_owned()
        })
        .is_ok());
        assert_eq!(written, 0);
        let e = ConfigError::check_with(false, "x", -1, || format!("must be > {}", 0)).unwrap_err();
        assert_eq!(e, ConfigError::new("x", -1, "must be > 0"));
    }
}
