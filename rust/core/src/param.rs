//! Named, typed, documented parameters: the one definition of every configurable value.
//!
//! Every configuration struct of the algorithm crates (a scheme's constants, the transport's
//! timers, a switch's buffer) publishes a table of [`Param`]s: for each field its name as the
//! ns-3 attribute, the command-line option and the serde field spell it, what kind of value it
//! holds, the bounds it must respect, its unit and a help text, plus accessors that read and
//! write the field. The default is whatever the struct's `Default` holds, read through the
//! accessor, so it is written once.
//!
//! The ns-3 module builds its attributes from these tables (names, defaults, help), and the
//! examples build their command-line options from them; both hand the user's text or value
//! back to Rust, which parses it strictly ([`ParamSpec::parse`]), checks the bounds, and stores
//! it. Nothing about a parameter is repeated in C++.
//!
//! Strict parsing rules (a value is rejected unless the whole text matches):
//! - real numbers: finite decimals or scientific notation (`0.5`, `1e-3`);
//! - counts and bytes: whole numbers (`16`, `5e9` is 5 000 000 000), bytes optionally with a
//!   decimal or binary unit (`12.5KB` = 12 500 B, `64KiB` = 65 536 B); no sign, no fraction;
//! - durations need a unit (`ns`, `us`, `ms`, `s`) and must be whole nanoseconds (`4.545us`);
//! - rates need a unit (`bps`, `Kbps`, `Mbps`, `Gbps`, `Tbps`) and must be whole bits/s;
//! - a bare `0` is accepted for a duration or a rate (it is 0 in every unit);
//! - booleans: `true`, `false`, `1`, `0`;
//! - a parameter with an automatic value (e.g. "the path's BDP") also accepts `auto`, stored
//!   as 0.

use crate::{Bytes, ConfigError, Rate, Time};
use std::fmt;

/// What a parameter holds and how it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A real number (a ratio, a gain, a number of packets).
    Real,
    /// A whole number (a count).
    Count,
    /// A number of bytes.
    Bytes,
    /// A duration (integer nanoseconds).
    Time,
    /// A bit rate (integer bits per second).
    Rate,
    /// A yes/no switch.
    Bool,
    /// One name out of [`ParamSpec::choices`].
    Choice,
    /// Free text (a path, a list); must not be empty.
    Text,
}

/// A parameter's value, in the unit of its kind.
#[derive(Debug, Clone, PartialEq)]
pub enum ParamValue {
    /// [`ParamKind::Real`].
    Real(f64),
    /// [`ParamKind::Count`].
    Count(u64),
    /// [`ParamKind::Bytes`].
    Bytes(Bytes),
    /// [`ParamKind::Time`].
    Time(Time),
    /// [`ParamKind::Rate`].
    Rate(Rate),
    /// [`ParamKind::Bool`].
    Bool(bool),
    /// [`ParamKind::Choice`]: the chosen name.
    Choice(String),
    /// [`ParamKind::Text`].
    Text(String),
}

impl ParamValue {
    /// The kind this value belongs to.
    pub fn kind(&self) -> ParamKind {
        match self {
            ParamValue::Real(_) => ParamKind::Real,
            ParamValue::Count(_) => ParamKind::Count,
            ParamValue::Bytes(_) => ParamKind::Bytes,
            ParamValue::Time(_) => ParamKind::Time,
            ParamValue::Rate(_) => ParamKind::Rate,
            ParamValue::Bool(_) => ParamKind::Bool,
            ParamValue::Choice(_) => ParamKind::Choice,
            ParamValue::Text(_) => ParamKind::Text,
        }
    }

    /// The value on the real line, for bounds checks (`None` for names, text and booleans).
    pub fn magnitude(&self) -> Option<f64> {
        match *self {
            ParamValue::Real(x) => Some(x),
            ParamValue::Count(n) => Some(n as f64),
            ParamValue::Bytes(b) => Some(b.0 as f64),
            ParamValue::Time(t) => Some(t.0 as f64),
            ParamValue::Rate(r) => Some(r.0 as f64),
            _ => None,
        }
    }

    /// The real number held, 0 for other kinds.
    pub fn real(&self) -> f64 {
        match *self {
            ParamValue::Real(x) => x,
            _ => 0.0,
        }
    }

    /// The integer held by a count, bytes, time or rate (0 for other kinds).
    pub fn int(&self) -> u64 {
        match *self {
            ParamValue::Count(n) => n,
            ParamValue::Bytes(b) => b.0,
            ParamValue::Time(t) => t.0,
            ParamValue::Rate(r) => r.0,
            _ => 0,
        }
    }

    /// The boolean held (false for other kinds).
    pub fn flag(&self) -> bool {
        matches!(*self, ParamValue::Bool(true))
    }

    /// The name or text held ("" for other kinds).
    pub fn text(&self) -> &str {
        match self {
            ParamValue::Choice(s) | ParamValue::Text(s) => s,
            _ => "",
        }
    }
}

impl fmt::Display for ParamValue {
    /// The value as a user would write it (parses back to itself).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Real(x) => write!(f, "{x}"),
            ParamValue::Count(n) => write!(f, "{n}"),
            ParamValue::Bytes(b) => write!(f, "{}", b.0),
            ParamValue::Time(t) => write!(f, "{}", format_time(*t)),
            ParamValue::Rate(r) => write!(f, "{}", format_rate(*r)),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Choice(s) | ParamValue::Text(s) => f.write_str(s),
        }
    }
}

/// A duration in the largest unit that keeps it whole: `55us`, `1ms`, `800ns`, `0`.
pub fn format_time(t: Time) -> String {
    if t.0 == 0 {
        return "0".to_string();
    }
    for (unit, ns) in [("s", 1_000_000_000u64), ("ms", 1_000_000), ("us", 1_000)] {
        if t.0.is_multiple_of(ns) {
            return format!("{}{unit}", t.0 / ns);
        }
    }
    format!("{}ns", t.0)
}

/// A rate in the largest unit that keeps it whole: `100Gbps`, `40Mbps`, `0`.
pub fn format_rate(r: Rate) -> String {
    if r.0 == 0 {
        return "0".to_string();
    }
    for (unit, bps) in [
        ("Tbps", 1_000_000_000_000u64),
        ("Gbps", 1_000_000_000),
        ("Mbps", 1_000_000),
        ("Kbps", 1_000),
    ] {
        if r.0.is_multiple_of(bps) {
            return format!("{}{unit}", r.0 / bps);
        }
    }
    format!("{}bps", r.0)
}

/// One end of a parameter's range, in the unit of its kind (ns, bit/s, bytes, ...).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limit {
    /// The bound.
    pub value: f64,
    /// Whether the bound itself is allowed.
    pub inclusive: bool,
}

impl Limit {
    /// `>= value` / `<= value`.
    pub const fn incl(value: f64) -> Option<Limit> {
        Some(Limit {
            value,
            inclusive: true,
        })
    }

    /// `> value` / `< value`.
    pub const fn excl(value: f64) -> Option<Limit> {
        Some(Limit {
            value,
            inclusive: false,
        })
    }
}

/// Everything about one parameter except how to reach its field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ParamSpec<'a> {
    /// The field's name in Rust and in serde files (`"ack_every"`).
    pub name: &'a str,
    /// The command-line option, without dashes (`"ackEvery"`).
    pub option: &'a str,
    /// The ns-3 attribute (`"AckEvery"`).
    pub attr: &'a str,
    /// The kind of value.
    pub kind: ParamKind,
    /// Unit for help texts where the kind does not imply one (`"packets"`); `""` otherwise.
    pub unit: &'a str,
    /// Smallest allowed value (`None`: no lower bound beyond the kind's).
    pub min: Option<Limit>,
    /// Largest allowed value (`None`: no upper bound beyond the kind's).
    pub max: Option<Limit>,
    /// When `Some(meaning)`, the value 0 (also written `auto`) is allowed whatever the bounds
    /// and means `meaning` (e.g. `"the path's BDP"`). With [`Self::zero_is_auto`] false, only
    /// the word `auto` means it (stored as 0; the caller tells them apart) and 0 is an
    /// ordinary value.
    pub auto: Option<&'a str>,
    /// Whether the value 0 means [`Self::auto`] (true for the tables' fields, where 0 is never
    /// a useful value of such a parameter).
    pub zero_is_auto: bool,
    /// The accepted names of a [`ParamKind::Choice`].
    pub choices: &'a [&'a str],
    /// One or two sentences for `--help` and the attribute's help string, citing the source
    /// of the rule where there is one.
    pub help: &'a str,
}

impl<'a> ParamSpec<'a> {
    /// A spec with no bounds, no automatic value and no unit; fill the rest with struct update
    /// syntax.
    pub const fn new(
        name: &'a str,
        option: &'a str,
        attr: &'a str,
        kind: ParamKind,
        help: &'a str,
    ) -> ParamSpec<'a> {
        ParamSpec {
            name,
            option,
            attr,
            kind,
            unit: "",
            min: None,
            max: None,
            auto: None,
            zero_is_auto: true,
            choices: &[],
            help,
        }
    }

    /// What the bounds require, for error messages and help (`"must be in (0, 1]"`).
    pub fn requirement(&self) -> String {
        let show = |l: Limit| self.show_limit(l.value);
        let range = match (self.min, self.max) {
            (Some(lo), Some(hi)) => format!(
                " in {}{}, {}{}",
                if lo.inclusive { "[" } else { "(" },
                show(lo),
                show(hi),
                if hi.inclusive { "]" } else { ")" },
            ),
            (Some(lo), None) => format!(" {} {}", if lo.inclusive { ">=" } else { ">" }, show(lo)),
            (None, Some(hi)) => format!(" {} {}", if hi.inclusive { "<=" } else { "<" }, show(hi)),
            (None, None) => String::new(),
        };
        let mut s = match self.kind {
            ParamKind::Choice | ParamKind::Text | ParamKind::Bool => self.kind_requirement(),
            _ if range.is_empty() => self.kind_requirement(),
            ParamKind::Real if self.unit.is_empty() => format!("must be a number{range}"),
            ParamKind::Real => format!("must be a number of {}{range}", self.unit),
            ParamKind::Count if self.unit.is_empty() => format!("must be a whole number{range}"),
            ParamKind::Count => format!("must be a whole number of {}{range}", self.unit),
            ParamKind::Bytes => format!("must be a whole number of bytes{range}"),
            ParamKind::Time => format!("must be a duration with its unit (e.g. 2us){range}"),
            ParamKind::Rate => format!("must be a rate with its unit (e.g. 100Gbps){range}"),
        };
        if let Some(a) = self.auto {
            let zero = self.zero_is_auto && self.kind != ParamKind::Bool;
            s.push_str(&format!(" (or {}auto: {a})", if zero { "0/" } else { "" }));
        }
        s
    }

    fn show_limit(&self, v: f64) -> String {
        match self.kind {
            ParamKind::Time => format_time(Time(v as u64)),
            ParamKind::Rate => format_rate(Rate(v as u64)),
            _ => format!("{v}"),
        }
    }

    fn kind_requirement(&self) -> String {
        match self.kind {
            ParamKind::Real => "must be a finite number".to_string(),
            ParamKind::Count => "must be a whole number >= 0".to_string(),
            ParamKind::Bytes => {
                "must be a whole number of bytes (e.g. 12500, 12.5KB, 64KiB)".to_string()
            }
            ParamKind::Time => {
                "must be a duration with its unit, e.g. 2us, 1.5ms, 0.1s, 800ns".to_string()
            }
            ParamKind::Rate => "must be a rate with its unit, e.g. 100Gbps, 40Mbps".to_string(),
            ParamKind::Bool => "must be true, false, 1 or 0".to_string(),
            ParamKind::Choice => format!("must be one of {}", self.choices.join(", ")),
            ParamKind::Text => "must not be empty".to_string(),
        }
    }

    /// What a count or a number of bytes must look like, with the bounds (the text given was
    /// not a whole number, or one above 2^53).
    fn malformed(&self) -> String {
        let cap = if self.max.is_none() {
            "at most 2^53"
        } else {
            ""
        };
        let example = if self.kind == ParamKind::Bytes {
            "e.g. 12500, 12.5KB, 64KiB"
        } else {
            ""
        };
        let extra: Vec<&str> = [cap, example]
            .into_iter()
            .filter(|x| !x.is_empty())
            .collect();
        if extra.is_empty() {
            self.requirement()
        } else {
            format!("{} ({})", self.requirement(), extra.join(", "))
        }
    }

    /// Parses `text` strictly (see the module documentation) and checks the bounds; the error
    /// names `field` (the spelling the user used: `--ackEvery`, `AckEvery`, ...).
    pub fn parse(&self, text: &str, field: &str) -> Result<ParamValue, ConfigError> {
        let err = |req: String| ConfigError::new(field, quoted(text), req);
        if self.auto.is_some() && text == "auto" {
            return Ok(self.zero());
        }
        let v = match self.kind {
            ParamKind::Real => {
                ParamValue::Real(parse_real(text).ok_or_else(|| err(self.requirement()))?)
            }
            ParamKind::Count => {
                ParamValue::Count(parse_whole(text).ok_or_else(|| err(self.malformed()))?)
            }
            ParamKind::Bytes => ParamValue::Bytes(Bytes(
                parse_bytes(text).ok_or_else(|| err(self.malformed()))?,
            )),
            ParamKind::Time => ParamValue::Time(Time(
                parse_time_ns(text).ok_or_else(|| err(self.kind_requirement()))?,
            )),
            ParamKind::Rate => ParamValue::Rate(Rate(
                parse_rate_bps(text).ok_or_else(|| err(self.kind_requirement()))?,
            )),
            ParamKind::Bool => ParamValue::Bool(match text {
                "true" | "1" => true,
                "false" | "0" => false,
                _ => return Err(err(self.kind_requirement())),
            }),
            ParamKind::Choice => {
                if self.choices.contains(&text) {
                    ParamValue::Choice(text.to_string())
                } else {
                    let hint = crate::runconfig::closest(text, self.choices)
                        .map(|c| format!(" (did you mean {c}?)"))
                        .unwrap_or_default();
                    return Err(err(format!("{}{hint}", self.kind_requirement())));
                }
            }
            ParamKind::Text => {
                if text.is_empty() {
                    return Err(err(self.kind_requirement()));
                }
                ParamValue::Text(text.to_string())
            }
        };
        // name the value as the user wrote it ("0bps", not "0")
        self.check(&v, field).map_err(|mut e| {
            e.value = quoted(text);
            e
        })?;
        Ok(v)
    }

    /// The zero of this kind (the automatic value when [`Self::auto`] is set).
    pub fn zero(&self) -> ParamValue {
        match self.kind {
            ParamKind::Real => ParamValue::Real(0.0),
            ParamKind::Count => ParamValue::Count(0),
            ParamKind::Bytes => ParamValue::Bytes(Bytes(0)),
            ParamKind::Time => ParamValue::Time(Time(0)),
            ParamKind::Rate => ParamValue::Rate(Rate(0)),
            ParamKind::Bool => ParamValue::Bool(false),
            ParamKind::Choice => {
                ParamValue::Choice(self.choices.first().copied().unwrap_or("").to_string())
            }
            ParamKind::Text => ParamValue::Text(String::new()),
        }
    }

    /// Checks that `v` has this spec's kind and lies within its bounds (0 is always allowed
    /// when the parameter has an automatic value); the error names `field`.
    pub fn check(&self, v: &ParamValue, field: &str) -> Result<(), ConfigError> {
        if v.kind() != self.kind {
            return Err(ConfigError::new(
                field,
                v,
                format!("is a {:?}, expected a {:?}", v.kind(), self.kind),
            ));
        }
        match v {
            ParamValue::Real(x) if !x.is_finite() => {
                return Err(ConfigError::new(field, v, self.requirement()))
            }
            ParamValue::Choice(s) if !self.choices.contains(&s.as_str()) => {
                return Err(ConfigError::new(field, v, self.kind_requirement()))
            }
            ParamValue::Text(s) if s.is_empty() => {
                return Err(ConfigError::new(field, "\"\"", self.kind_requirement()))
            }
            _ => {}
        }
        let Some(m) = v.magnitude() else {
            return Ok(());
        };
        if self.auto.is_some() && self.zero_is_auto && m == 0.0 {
            return Ok(());
        }
        let below = self
            .min
            .is_some_and(|l| m < l.value || (!l.inclusive && m == l.value));
        let above = self
            .max
            .is_some_and(|l| m > l.value || (!l.inclusive && m == l.value));
        if below || above {
            return Err(ConfigError::new(field, v, self.requirement()));
        }
        Ok(())
    }
}

fn quoted(text: &str) -> String {
    if text.is_empty() {
        "\"\"".to_string()
    } else {
        text.to_string()
    }
}

/// A finite real number; the whole text must be one (no `inf`, `nan`, spaces or junk).
pub fn parse_real(text: &str) -> Option<f64> {
    // Rust's float grammar also accepts "inf", "infinity" and "nan": only digits, one sign,
    // a point and an exponent are allowed here
    if text.is_empty()
        || !text
            .bytes()
            .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'e' | b'E' | b'+' | b'-'))
    {
        return None;
    }
    text.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// Largest integer every `f64` below it represents exactly: 2^53.
const EXACT: f64 = 9_007_199_254_740_992.0;

/// A whole, non-negative number: digits (`16`) or an integral real (`5e9`, `1.5e3`) up to 2^53.
pub fn parse_whole(text: &str) -> Option<u64> {
    if !text.is_empty() && text.bytes().all(|c| c.is_ascii_digit()) {
        return text.parse::<u64>().ok();
    }
    let x = parse_real(text)?;
    (x >= 0.0 && x.fract() == 0.0 && x <= EXACT).then_some(x as u64)
}

/// Splits `text` into a number and a unit suffix from `units` (longest first).
fn split_unit<'a>(text: &'a str, units: &[(&str, f64)]) -> Option<(&'a str, f64)> {
    units
        .iter()
        .filter(|(u, _)| text.len() > u.len() && text.ends_with(u))
        .max_by_key(|(u, _)| u.len())
        .map(|&(u, scale)| (&text[..text.len() - u.len()], scale))
}

/// `number × scale` when it is a whole, non-negative number up to 2^53 (tolerating the
/// rounding of decimal fractions such as `4.545 × 1000`).
fn scaled_whole(number: &str, scale: f64) -> Option<u64> {
    if scale == 1.0 {
        return parse_whole(number);
    }
    let x = parse_real(number)? * scale;
    let r = x.round();
    (x >= 0.0 && (x - r).abs() <= 1e-6 * r.max(1.0) && r <= EXACT).then_some(r as u64)
}

/// Bytes: a whole number, optionally with `B`, `KB`, `MB`, `GB` (powers of 10) or `KiB`,
/// `MiB`, `GiB` (powers of 2).
pub fn parse_bytes(text: &str) -> Option<u64> {
    const UNITS: [(&str, f64); 7] = [
        ("B", 1.0),
        ("KB", 1e3),
        ("MB", 1e6),
        ("GB", 1e9),
        ("KiB", 1024.0),
        ("MiB", 1_048_576.0),
        ("GiB", 1_073_741_824.0),
    ];
    match split_unit(text, &UNITS) {
        Some((n, scale)) => scaled_whole(n, scale),
        None => parse_whole(text),
    }
}

/// A duration in whole nanoseconds: a number with `ns`, `us`, `ms` or `s`; bare `0` allowed.
pub fn parse_time_ns(text: &str) -> Option<u64> {
    const UNITS: [(&str, f64); 4] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9)];
    if text == "0" {
        return Some(0);
    }
    let (n, scale) = split_unit(text, &UNITS)?;
    scaled_whole(n, scale)
}

/// A rate in whole bits/s: a number with `bps`, `Kbps`, `Mbps`, `Gbps` or `Tbps` (decimal
/// prefixes, as ns-3's DataRate); bare `0` allowed.
pub fn parse_rate_bps(text: &str) -> Option<u64> {
    const UNITS: [(&str, f64); 5] = [
        ("bps", 1.0),
        ("Kbps", 1e3),
        ("Mbps", 1e6),
        ("Gbps", 1e9),
        ("Tbps", 1e12),
    ];
    if text == "0" {
        return Some(0);
    }
    let (n, scale) = split_unit(text, &UNITS)?;
    scaled_whole(n, scale)
}

/// One parameter of configuration type `C`: its [`ParamSpec`] and how to read and write the
/// field. `set` receives a value already checked against the spec.
pub struct Param<C> {
    /// What the parameter is.
    pub spec: ParamSpec<'static>,
    /// Reads the field.
    pub get: fn(&C) -> ParamValue,
    /// Writes the field (the value has the spec's kind and bounds).
    pub set: fn(&mut C, &ParamValue),
}

/// A configuration whose fields are described by a parameter table.
pub trait Params: Default + Clone + 'static {
    /// The table, in the order help texts list it.
    fn params() -> &'static [Param<Self>];

    /// Checks relations between fields that single-field bounds cannot express; the error
    /// names a field by its Rust name ([`ParamSpec::name`]).
    fn validate_fields(&self) -> Result<(), ConfigError> {
        Ok(())
    }

    /// The spec of the field called `name` (Rust spelling).
    fn spec(name: &str) -> Option<&'static ParamSpec<'static>> {
        Self::params()
            .iter()
            .find(|p| p.spec.name == name)
            .map(|p| &p.spec)
    }

    /// Checks every field against its spec, then [`Self::validate_fields`].
    fn validate_all(&self) -> Result<(), ConfigError> {
        for p in Self::params() {
            p.spec.check(&(p.get)(self), p.spec.name)?;
        }
        self.validate_fields()
    }

    /// Sets parameter `index` to `v` after checking it (the error names the Rust field).
    fn set_param(&mut self, index: usize, v: &ParamValue) -> Result<(), ConfigError> {
        let p = Self::params()
            .get(index)
            .ok_or_else(|| ConfigError::new("parameter", index, "no such parameter"))?;
        p.spec.check(v, p.spec.name)?;
        (p.set)(self, v);
        Ok(())
    }

    /// Reads parameter `index` (`None` past the end of the table).
    fn get_param(&self, index: usize) -> Option<ParamValue> {
        Self::params().get(index).map(|p| (p.get)(self))
    }

    /// Sets the parameter whose command-line option is `option` from `text`, as `--OPTION=text`
    /// would (the error names `option` for a bad text, the Rust field for a value out of
    /// bounds, `option` = `option` when no parameter has that option).
    fn set_by_option(&mut self, option: &str, text: &str) -> Result<(), ConfigError> {
        let i = Self::params()
            .iter()
            .position(|p| p.spec.option == option)
            .ok_or_else(|| ConfigError::new("option", option, "no such option"))?;
        let v = Self::params()[i].spec.parse(text, option)?;
        self.set_param(i, &v)
    }
}

/// A part of configuration `C` that has a parameter table of its own (a field of `C`, or `C`
/// itself): one table of a [`FlatTable`].
pub trait Part<C> {
    /// Number of parameters in the part's table.
    fn count(&self) -> usize;
    /// The spec of the part's parameter `i`.
    fn spec(&self, i: usize) -> Option<&'static ParamSpec<'static>>;
    /// Reads the part's parameter `i` of `c` ([`Params::get_param`]).
    fn get(&self, c: &C, i: usize) -> Option<ParamValue>;
    /// Checks and writes the part's parameter `i` of `c` ([`Params::set_param`]).
    fn set(&self, c: &mut C, i: usize, v: &ParamValue) -> Result<(), ConfigError>;
}

/// The part of `C` of type `P`, reached through two accessors (`|c| &c.mmu`,
/// `|c| &mut c.mmu`; `|c| c` twice for `C`'s own table).
pub struct Field<C, P> {
    /// Reads the part.
    pub get: fn(&C) -> &P,
    /// Writes the part.
    pub get_mut: fn(&mut C) -> &mut P,
}

impl<C, P: Params> Part<C> for Field<C, P> {
    fn count(&self) -> usize {
        P::params().len()
    }

    fn spec(&self, i: usize) -> Option<&'static ParamSpec<'static>> {
        P::params().get(i).map(|p| &p.spec)
    }

    fn get(&self, c: &C, i: usize) -> Option<ParamValue> {
        (self.get)(c).get_param(i)
    }

    fn set(&self, c: &mut C, i: usize, v: &ParamValue) -> Result<(), ConfigError> {
        (self.get_mut)(c).set_param(i, v)
    }
}

/// One flat parameter table over the tables of several parts of a configuration `C`: the
/// parts' parameters one after the other, a flat index naming (part, index in the part).
/// A configuration made of several [`Params`] structs (a switch: its MMU and its own fields)
/// publishes its parameters as one list this way.
pub struct FlatTable<C: 'static> {
    /// The parts, in table order.
    pub parts: &'static [&'static dyn Part<C>],
}

impl<C: 'static> FlatTable<C> {
    /// Every parameter's spec, in flat order.
    pub fn specs(&self) -> Vec<&'static ParamSpec<'static>> {
        self.parts
            .iter()
            .flat_map(|p| (0..p.count()).filter_map(|i| p.spec(i)))
            .collect()
    }

    /// The part holding flat index `i`, and the index within it (`None` past the end).
    fn locate(&self, mut i: usize) -> Option<(&'static dyn Part<C>, usize)> {
        for &p in self.parts {
            if i < p.count() {
                return Some((p, i));
            }
            i -= p.count();
        }
        None
    }

    /// Reads parameter `i` of `c` (`None` past the end).
    pub fn get(&self, c: &C, i: usize) -> Option<ParamValue> {
        let (p, j) = self.locate(i)?;
        p.get(c, j)
    }

    /// Checks `v` against parameter `i`'s spec and stores it in `c` (the error names the Rust
    /// field); `None` past the end, for the caller to say what its table is.
    pub fn set(&self, c: &mut C, i: usize, v: &ParamValue) -> Option<Result<(), ConfigError>> {
        let (p, j) = self.locate(i)?;
        Some(p.set(c, j, v))
    }

    /// [`Self::set`], with an error naming `parameter` = `i` past the end.
    pub fn set_checked(&self, c: &mut C, i: usize, v: &ParamValue) -> Result<(), ConfigError> {
        self.set(c, i, v)
            .unwrap_or_else(|| Err(ConfigError::new("parameter", i, "no such parameter")))
    }
}

/// Renames the field of `e` from a Rust name to the user's spelling given by `map`
/// (`"ack_every"` → `"--ackEvery"`), when `map` knows it.
pub fn rename_field(mut e: ConfigError, map: impl Fn(&str) -> Option<String>) -> ConfigError {
    if let Some(f) = map(&e.field) {
        e.field = f;
    }
    e
}

// ----- pieces every controller's configuration uses -----

/// Where the constants a controller's configuration does not give come from (DCTCP, HPCC and
/// TIMELY; DCQCN has presets of its own).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// The HPCC simulator's values (Li et al., SIGCOMM 2019, its public simulator), which
    /// users compare against.
    #[default]
    HpccSim,
    /// The algorithm's paper, the simulator's values where the paper is silent.
    Paper,
}

impl Preset {
    /// Every preset's name, in declaration order (the choices of the `--…Preset` options).
    pub const NAMES: [&'static str; 2] = ["hpcc-sim", "paper"];

    /// The name used in options and files: `hpcc-sim`, `paper`.
    pub const fn name(self) -> &'static str {
        match self {
            Preset::HpccSim => Self::NAMES[0],
            Preset::Paper => Self::NAMES[1],
        }
    }

    /// The preset called `name` ([`Self::name`]'s spelling).
    pub fn from_name(name: &str) -> Option<Preset> {
        [Preset::HpccSim, Preset::Paper]
            .into_iter()
            .find(|p| p.name() == name)
    }
}

/// Reads a real "auto" field (0 = auto).
pub fn opt_real(x: Option<f64>) -> ParamValue {
    ParamValue::Real(x.unwrap_or(0.0))
}

/// Writes a real "auto" field (0 = auto).
pub fn set_real(v: &ParamValue) -> Option<f64> {
    let x = v.real();
    (x != 0.0).then_some(x)
}

/// Writes a duration "auto" field (0 = auto).
pub fn set_time(v: &ParamValue) -> Option<Time> {
    (v.int() > 0).then_some(Time(v.int()))
}

/// Writes a rate "auto" field (0 = auto).
pub fn set_rate(v: &ParamValue) -> Option<Rate> {
    (v.int() > 0).then_some(Rate(v.int()))
}

/// Reads a switch with an `auto` entry (`auto`, `true`, `false`).
pub fn switch_text(x: Option<bool>) -> ParamValue {
    ParamValue::Choice(
        match x {
            None => "auto",
            Some(true) => "true",
            Some(false) => "false",
        }
        .to_string(),
    )
}

/// A real constant in `(0, 1]` with an automatic value.
pub const fn fraction(
    name: &'static str,
    option: &'static str,
    attr: &'static str,
    auto: &'static str,
    help: &'static str,
) -> ParamSpec<'static> {
    ParamSpec {
        max: Limit::incl(1.0),
        ..positive(name, option, attr, ParamKind::Real, auto, help)
    }
}

/// A positive duration, rate or byte count with an automatic value.
pub const fn positive(
    name: &'static str,
    option: &'static str,
    attr: &'static str,
    kind: ParamKind,
    auto: &'static str,
    help: &'static str,
) -> ParamSpec<'static> {
    ParamSpec {
        min: Limit::excl(0.0),
        auto: Some(auto),
        ..ParamSpec::new(name, option, attr, kind, help)
    }
}

/// A positive rate with an automatic value ([`positive`] of [`ParamKind::Rate`]).
pub const fn rate(
    name: &'static str,
    option: &'static str,
    attr: &'static str,
    auto: &'static str,
    help: &'static str,
) -> ParamSpec<'static> {
    positive(name, option, attr, ParamKind::Rate, auto, help)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_round_trip_and_auto_fields_read_zero_as_auto() {
        for name in Preset::NAMES {
            assert_eq!(Preset::from_name(name).map(Preset::name), Some(name));
        }
        assert_eq!(Preset::default(), Preset::HpccSim);
        assert_eq!(Preset::from_name("mellanox"), None);
        assert_eq!(opt_real(None), ParamValue::Real(0.0));
        assert_eq!(set_real(&ParamValue::Real(0.0)), None);
        assert_eq!(set_real(&ParamValue::Real(0.5)), Some(0.5));
        assert_eq!(set_time(&ParamValue::Time(Time(0))), None);
        assert_eq!(set_rate(&ParamValue::Rate(Rate(7))), Some(Rate(7)));
        assert_eq!(switch_text(Some(false)), ParamValue::Choice("false".into()));
        let f = fraction("g", "g", "G", "the preset's", "gain");
        assert_eq!((f.min, f.max), (Limit::excl(0.0), Limit::incl(1.0)));
        assert_eq!(f.auto, Some("the preset's"));
        let r = rate("r", "r", "R", "line rate", "rate");
        assert_eq!((r.kind, r.min), (ParamKind::Rate, Limit::excl(0.0)));
    }

    #[test]
    fn set_by_option_parses_checks_and_names_an_unknown_option() {
        let mut c = Inner::default();
        c.set_by_option("n", "3").unwrap();
        assert_eq!(c.n, 3);
        // below the table's minimum of 1: the field is named
        assert_eq!(c.set_by_option("n", "0").unwrap_err().field, "n");
        assert_eq!(c.n, 3);
        let e = c.set_by_option("nope", "1").unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("option", "nope"));
    }

    const ALPHA: ParamSpec<'static> = ParamSpec {
        min: Limit::excl(0.0),
        max: Limit::incl(1.0),
        unit: "packets",
        ..ParamSpec::new("alpha", "alpha", "Alpha", ParamKind::Real, "AI step")
    };

    #[test]
    fn reals_are_parsed_whole_and_finite() {
        assert_eq!(parse_real("0.5"), Some(0.5));
        assert_eq!(parse_real("1e-3"), Some(0.001));
        for bad in ["", "inf", "nan", "NaN", "1.0x", " 1", "0x10", "1,5"] {
            assert_eq!(parse_real(bad), None, "{bad}");
        }
    }

    #[test]
    fn counts_reject_junk_fractions_signs_and_huge_values() {
        assert_eq!(parse_whole("16"), Some(16));
        assert_eq!(parse_whole("5e9"), Some(5_000_000_000));
        for bad in ["16abc", "3.7", "-1", "1e18", "", "+", "1e400"] {
            assert_eq!(parse_whole(bad), None, "{bad}");
        }
    }

    #[test]
    fn bytes_take_decimal_and_binary_units() {
        assert_eq!(parse_bytes("12500"), Some(12_500));
        assert_eq!(parse_bytes("12.5KB"), Some(12_500));
        assert_eq!(parse_bytes("64KiB"), Some(65_536));
        assert_eq!(parse_bytes("2MB"), Some(2_000_000));
        assert_eq!(parse_bytes("100B"), Some(100));
        for bad in ["1.5", "1.0001KB", "KB", "10kb", "-5", "5 KB"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
    }

    #[test]
    fn durations_need_a_unit_and_whole_nanoseconds() {
        assert_eq!(parse_time_ns("4.545us"), Some(4_545));
        assert_eq!(parse_time_ns("1.5ms"), Some(1_500_000));
        assert_eq!(parse_time_ns("0.1s"), Some(100_000_000));
        assert_eq!(parse_time_ns("800ns"), Some(800));
        assert_eq!(parse_time_ns("0"), Some(0));
        for bad in ["1", "1.5ns", "10Gbpsx", "-1us", "us", "1 us", "1e30s", ""] {
            assert_eq!(parse_time_ns(bad), None, "{bad}");
        }
    }

    #[test]
    fn rates_need_a_unit_and_whole_bits() {
        assert_eq!(parse_rate_bps("100Gbps"), Some(100_000_000_000));
        assert_eq!(parse_rate_bps("40Mbps"), Some(40_000_000));
        assert_eq!(parse_rate_bps("2.5Gbps"), Some(2_500_000_000));
        assert_eq!(parse_rate_bps("0"), Some(0));
        for bad in ["100", "100G", "1.5bps", "-1Gbps", "Gbps"] {
            assert_eq!(parse_rate_bps(bad), None, "{bad}");
        }
    }

    #[test]
    fn bounds_are_checked_and_named() {
        assert_eq!(ALPHA.parse("1", "--alpha").unwrap(), ParamValue::Real(1.0));
        let e = ALPHA.parse("0", "--alpha").unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid --alpha = 0: must be a number of packets in (0, 1]"
        );
        let e = ALPHA.parse("1.5x", "--alpha").unwrap_err();
        assert_eq!(e.field, "--alpha");
        let e = ALPHA.parse("", "--alpha").unwrap_err();
        assert_eq!(e.value, "\"\"");
    }

    #[test]
    fn malformed_counts_and_bytes_say_what_is_accepted() {
        let size = ParamSpec {
            min: Limit::incl(1.0),
            ..ParamSpec::new("size", "size", "Size", ParamKind::Bytes, "")
        };
        assert_eq!(
            size.parse("1e18", "--size").unwrap_err().to_string(),
            "invalid --size = 1e18: must be a whole number of bytes >= 1 (at most 2^53, e.g. \
             12500, 12.5KB, 64KiB)"
        );
        assert_eq!(
            size.parse("0", "--size").unwrap_err().to_string(),
            "invalid --size = 0: must be a whole number of bytes >= 1"
        );
        let n = ParamSpec::new("n", "n", "N", ParamKind::Count, "");
        assert_eq!(
            n.parse("3.7", "--n").unwrap_err().requirement,
            "must be a whole number >= 0 (at most 2^53)"
        );
    }

    #[test]
    fn auto_allows_zero_whatever_the_bounds() {
        let iw = ParamSpec {
            min: Limit::excl(0.0),
            auto: Some("the path's BDP"),
            ..ParamSpec::new("iw", "iw", "Iw", ParamKind::Real, "initial window")
        };
        assert_eq!(iw.parse("auto", "--iw").unwrap(), ParamValue::Real(0.0));
        assert_eq!(iw.parse("0", "--iw").unwrap(), ParamValue::Real(0.0));
        assert!(iw.parse("-1", "--iw").is_err());
        assert!(iw.requirement().contains("auto: the path's BDP"));
    }

    #[test]
    fn values_print_as_they_parse() {
        let t = ParamSpec::new("t", "t", "T", ParamKind::Time, "");
        for s in ["55us", "1ms", "800ns", "0", "3s"] {
            assert_eq!(t.parse(s, "t").unwrap().to_string(), s);
        }
        let r = ParamSpec::new("r", "r", "R", ParamKind::Rate, "");
        for s in ["40Mbps", "100Gbps", "7bps", "0"] {
            assert_eq!(r.parse(s, "r").unwrap().to_string(), s);
        }
    }

    #[derive(Debug, Clone, Default, PartialEq)]
    struct Inner {
        n: u64,
    }

    #[derive(Debug, Clone, Default, PartialEq)]
    struct Outer {
        inner: Inner,
        flag: bool,
    }

    const INNER: &[Param<Inner>] = &[Param {
        spec: ParamSpec {
            min: Limit::incl(1.0),
            ..ParamSpec::new("n", "n", "N", ParamKind::Count, "")
        },
        get: |c| ParamValue::Count(c.n),
        set: |c, v| c.n = v.int(),
    }];

    const OUTER: &[Param<Outer>] = &[Param {
        spec: ParamSpec::new("flag", "flag", "Flag", ParamKind::Bool, ""),
        get: |c| ParamValue::Bool(c.flag),
        set: |c, v| c.flag = v.flag(),
    }];

    impl Params for Inner {
        fn params() -> &'static [Param<Self>] {
            INNER
        }
    }

    impl Params for Outer {
        fn params() -> &'static [Param<Self>] {
            OUTER
        }
    }

    const FLAT: FlatTable<Outer> = FlatTable {
        parts: &[
            &Field {
                get: |c: &Outer| &c.inner,
                get_mut: |c: &mut Outer| &mut c.inner,
            },
            &Field {
                get: |c: &Outer| c,
                get_mut: |c: &mut Outer| c,
            },
        ],
    };

    #[test]
    fn a_flat_table_chains_the_parts_tables() {
        let names: Vec<&str> = FLAT.specs().iter().map(|s| s.name).collect();
        assert_eq!(names, ["n", "flag"]);
        let mut c = Outer::default();
        FLAT.set(&mut c, 0, &ParamValue::Count(3)).unwrap().unwrap();
        FLAT.set(&mut c, 1, &ParamValue::Bool(true))
            .unwrap()
            .unwrap();
        assert_eq!(
            c,
            Outer {
                inner: Inner { n: 3 },
                flag: true
            }
        );
        assert_eq!(FLAT.get(&c, 0), Some(ParamValue::Count(3)));
        assert_eq!(FLAT.get(&c, 1), Some(ParamValue::Bool(true)));
        assert_eq!(FLAT.get(&c, 2), None);
        assert!(FLAT.set(&mut c, 2, &ParamValue::Bool(true)).is_none());
        // the part's own check, naming its Rust field
        let e = FLAT
            .set(&mut c, 0, &ParamValue::Count(0))
            .unwrap()
            .unwrap_err();
        assert_eq!(e.field, "n");
        assert_eq!(c.inner.n, 3);
    }

    #[test]
    fn choices_and_booleans_are_exact() {
        let c = ParamSpec {
            choices: &["ldcp", "none"],
            ..ParamSpec::new("scheme", "cc", "Scheme", ParamKind::Choice, "")
        };
        assert_eq!(c.parse("none", "--cc").unwrap().text(), "none");
        assert_eq!(
            c.parse("dctcp", "--cc").unwrap_err().to_string(),
            "invalid --cc = dctcp: must be one of ldcp, none"
        );
        let b = ParamSpec::new("b", "b", "B", ParamKind::Bool, "");
        assert!(b.parse("", "--fastStart").is_err());
        assert!(b.parse("yes", "--fastStart").is_err());
        assert!(b.parse("1", "--fastStart").unwrap().flag());
    }
}
