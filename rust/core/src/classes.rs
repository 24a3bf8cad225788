//! Traffic classes: the priority sets of the per-priority options (which priorities are
//! lossless, which are ECN-marked) and the class mix of generated flows.
//!
//! A data frame's class is its 802.1p priority, 0-7 (`--priority` is the NIC's default; a flow
//! may name another). These are the rules that read the options' text; the switch and the NIC
//! only apply the masks.

use crate::ConfigError;

/// Number of data priorities (802.1p).
pub const PRIORITIES: u8 = 8;

/// A set of priorities as a bit mask (bit `p` = priority `p`).
pub type PriorityMask = u8;

/// Parses the text of a per-priority on/off option (`--pfc`, `--ecn`) into a mask.
///
/// Accepted: `true`/`1` (the data priority `data`, today's one-class form), `false`/`0`/`none`
/// (no priority), `all` (every priority), or a comma-separated list of distinct priorities
/// `0-7` (`3,4`). A lone `0` or `1` is the boolean form; to name priority 0 or 1 alone, set it
/// as the data priority (`--priority`) and give `true`. `field` names the option in errors.
pub fn parse_priority_set(text: &str, data: u8, field: &str) -> Result<PriorityMask, ConfigError> {
    const RULE: &str = "must be true, false, 1, 0, none, all or a comma-separated list of \
                        distinct priorities 0-7 (e.g. 3,4)";
    if data >= PRIORITIES {
        return Err(ConfigError::new("priority", data, "must be a priority 0-7"));
    }
    match text {
        "true" | "1" => return Ok(1 << data),
        "false" | "0" | "none" => return Ok(0),
        "all" => return Ok(0xFF),
        _ => {}
    }
    let mut mask: PriorityMask = 0;
    for item in text.split(',') {
        let p: u8 = match item.parse::<u8>() {
            Ok(p) if p < PRIORITIES && item.len() == 1 => p,
            _ => {
                return Err(ConfigError::new(
                    field,
                    text,
                    format!("{RULE} ({item:?} is not a priority 0-7)"),
                ))
            }
        };
        if mask & (1 << p) != 0 {
            return Err(ConfigError::new(
                field,
                text,
                format!("{RULE} ({p} is named twice)"),
            ));
        }
        mask |= 1 << p;
    }
    Ok(mask)
}

/// The priorities of `mask`, ascending, as the list form of [`parse_priority_set`] writes them
/// (`3,5`; empty for none).
pub fn priority_list(mask: PriorityMask) -> String {
    (0..PRIORITIES)
        .filter(|p| mask & (1 << p) != 0)
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// How generated flows are spread over classes: `priority:share,...` (`3:0.7,5:0.3`), each
/// flow drawn independently with the shares as probabilities.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassMix {
    /// (priority, cumulative share), ascending in the order given; the last is 1.
    cumulative: Vec<(u8, f64)>,
}

impl ClassMix {
    /// Parses `priority:share,...`: distinct priorities 0-7, shares > 0 that sum to 1 (within
    /// 1e-9). `field` names the option in errors.
    pub fn parse(text: &str, field: &str) -> Result<ClassMix, ConfigError> {
        const RULE: &str = "must be PRIORITY:SHARE,... with distinct priorities 0-7 and shares \
                            > 0 summing to 1 (e.g. 3:0.7,5:0.3)";
        let bad = |why: String| ConfigError::new(field, text, format!("{RULE} ({why})"));
        let mut seen: PriorityMask = 0;
        let mut cumulative = Vec::new();
        let mut sum = 0.0;
        for item in text.split(',') {
            let Some((p, s)) = item.split_once(':') else {
                return Err(bad(format!("{item:?} has no ':'")));
            };
            let p: u8 = match p.parse::<u8>() {
                Ok(v) if v < PRIORITIES && p.len() == 1 => v,
                _ => return Err(bad(format!("{p:?} is not a priority 0-7"))),
            };
            let share: f64 = match s.parse::<f64>() {
                Ok(v) if v.is_finite() && v > 0.0 => v,
                _ => return Err(bad(format!("share {s:?} is not a number > 0"))),
            };
            if seen & (1 << p) != 0 {
                return Err(bad(format!("priority {p} is named twice")));
            }
            seen |= 1 << p;
            sum += share;
            cumulative.push((p, sum));
        }
        if (sum - 1.0).abs() > 1e-9 {
            return Err(bad(format!("the shares sum to {sum}")));
        }
        if let Some(last) = cumulative.last_mut() {
            last.1 = 1.0;
        }
        Ok(ClassMix { cumulative })
    }

    /// The priority of a flow whose uniform draw in `[0, 1)` is `u`: the first class whose
    /// cumulative share exceeds `u`.
    pub fn priority_of(&self, u: f64) -> u8 {
        self.cumulative
            .iter()
            .find(|&&(_, c)| u < c)
            .or(self.cumulative.last())
            .map_or(0, |&(p, _)| p)
    }

    /// The priority of flow number `index` of a run of seed `seed`: a draw of its own (a hash
    /// of the seed and the index, [`crate::hash::mix64`]), so that the classes leave every other
    /// random draw of the run as it was.
    pub fn priority_of_flow(&self, seed: u64, index: u64) -> u8 {
        let h = crate::hash::mix64(
            crate::hash::mix64(seed ^ 0x636c_6173_7365_7321).wrapping_add(index),
        );
        // 53 random bits, uniform in [0, 1)
        self.priority_of((h >> 11) as f64 / (1u64 << 53) as f64)
    }

    /// The priorities of the mix as a mask.
    pub fn mask(&self) -> PriorityMask {
        self.cumulative.iter().fold(0, |m, &(p, _)| m | (1 << p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boolean_forms_name_the_data_priority_or_none() {
        assert_eq!(parse_priority_set("true", 3, "--pfc").unwrap(), 0x08);
        assert_eq!(parse_priority_set("1", 5, "--pfc").unwrap(), 0x20);
        assert_eq!(parse_priority_set("false", 3, "--pfc").unwrap(), 0);
        assert_eq!(parse_priority_set("0", 3, "--pfc").unwrap(), 0);
        assert_eq!(parse_priority_set("none", 3, "--pfc").unwrap(), 0);
        assert_eq!(parse_priority_set("all", 3, "--pfc").unwrap(), 0xFF);
    }

    #[test]
    fn a_list_names_each_priority() {
        assert_eq!(parse_priority_set("3,4", 3, "--pfc").unwrap(), 0x18);
        assert_eq!(parse_priority_set("7", 3, "--pfc").unwrap(), 0x80);
        assert_eq!(parse_priority_set("0,1", 3, "--pfc").unwrap(), 0x03);
        assert_eq!(priority_list(0x18), "3,4");
        assert_eq!(priority_list(0), "");
    }

    #[test]
    fn bad_lists_are_refused_naming_the_option() {
        for bad in ["8", "3,3", "yes", "", "3,", "-1", "03", "3;4"] {
            let e = parse_priority_set(bad, 3, "--pfc").unwrap_err();
            assert_eq!(e.field, "--pfc", "{bad}");
            assert!(e.to_string().starts_with("invalid --pfc = "), "{e}");
        }
    }

    #[test]
    fn class_mix_draws_by_cumulative_share() {
        let m = ClassMix::parse("3:0.7,5:0.3", "--classes").unwrap();
        assert_eq!(m.priority_of(0.0), 3);
        assert_eq!(m.priority_of(0.6999), 3);
        assert_eq!(m.priority_of(0.7), 5);
        assert_eq!(m.priority_of(0.99999), 5);
        assert_eq!(m.mask(), 0x28);
    }

    #[test]
    fn class_mix_shares_hold_over_many_flows_and_repeat_for_a_seed() {
        let m = ClassMix::parse("3:0.25,5:0.75", "--classes").unwrap();
        let n = 100_000;
        let fives = (0..n).filter(|&i| m.priority_of_flow(1, i) == 5).count();
        let share = fives as f64 / n as f64;
        assert!((share - 0.75).abs() < 0.01, "{share}");
        let a: Vec<u8> = (0..100).map(|i| m.priority_of_flow(7, i)).collect();
        let b: Vec<u8> = (0..100).map(|i| m.priority_of_flow(7, i)).collect();
        assert_eq!(a, b);
        let c: Vec<u8> = (0..100).map(|i| m.priority_of_flow(8, i)).collect();
        assert_ne!(a, c, "another seed draws other classes");
    }

    #[test]
    fn class_mix_refuses_bad_mixes() {
        for bad in [
            "3:0.5",
            "3:0.5,3:0.5",
            "9:1",
            "3:0,5:1",
            "3",
            "3:x",
            "3:0.5,5:0.6",
            "",
        ] {
            let e = ClassMix::parse(bad, "--classes").unwrap_err();
            assert_eq!(e.field, "--classes", "{bad}");
        }
    }
}
