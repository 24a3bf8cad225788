//! Bridge for parameter tables (`rdma_cc_core::param`): the shared value and description types
//! every area's configuration crosses the bridge with, and the strict parser.
//!
//! C++ builds ns-3 attributes and command-line options from [`ParamInfo`] lists that the
//! area bridges return (e.g. `nic_param_specs` in the transport bridge), and hands values
//! back as [`ParamValue`]s; the Rust side checks and stores them. Options an example declares
//! for itself (e.g. `--senders`) are described by an [`OptionSpec`] and parsed here with the
//! same strict rules.

use rdma_cc_core::param::{rename_field, Limit, ParamKind as Kind, ParamSpec, ParamValue as Value};
use rdma_cc_core::{Bytes, ConfigError, Rate, Time};

#[cxx::bridge(namespace = "rdmacc_ffi")]
pub mod ffi {
    /// What a parameter holds (see `rdma_cc_core::param::ParamKind`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum ParamKind {
        /// A real number.
        Real,
        /// A whole number.
        Count,
        /// Bytes.
        Bytes,
        /// A duration, in `uint` nanoseconds.
        Time,
        /// A rate, in `uint` bits per second.
        Rate,
        /// A yes/no switch, in `flag`.
        Bool,
        /// One of `ParamInfo::choices`, in `text`.
        Choice,
        /// Free text, in `text`.
        Text,
    }

    /// A parameter value: `kind` says which field holds it (`real` for Real; `uint` for Count,
    /// Bytes, Time in ns, Rate in bit/s; `flag` for Bool; `text` for Choice and Text).
    #[derive(Debug, Clone, PartialEq)]
    struct ParamValue {
        kind: ParamKind,
        real: f64,
        uint: u64,
        flag: bool,
        text: String,
    }

    /// Everything about one parameter, for building an ns-3 attribute or a command-line option.
    #[derive(Debug, Clone)]
    struct ParamInfo {
        /// Rust / serde field name (`ack_every`).
        name: String,
        /// Command-line option without dashes (`ackEvery`); empty: attribute only.
        option: String,
        /// ns-3 attribute name (`AckEvery`).
        attr: String,
        kind: ParamKind,
        /// The help text, followed by the rule (bounds, automatic value) and the unit.
        help: String,
        /// The default value.
        default_value: ParamValue,
        /// The default as a user would write it (`55us`, `100Gbps`, `auto`).
        default_text: String,
        /// Accepted names of a Choice.
        choices: Vec<String>,
    }

    /// A command-line option an example declares for itself, parsed by the same strict rules
    /// as the tables' parameters. `min`/`max` are bounds in the kind's unit (ns, bit/s,
    /// bytes); `has_min`/`has_max` say whether they apply; `min_inclusive`/`max_inclusive`
    /// whether the bound itself is allowed.
    #[derive(Debug, Clone)]
    struct OptionSpec {
        name: String,
        kind: ParamKind,
        unit: String,
        has_min: bool,
        min: f64,
        min_inclusive: bool,
        has_max: bool,
        max: f64,
        max_inclusive: bool,
        /// `|`-separated accepted names of a Choice.
        choices: String,
        /// A Choice only: the value is a comma-separated list of distinct names, each one of
        /// `choices` (e.g. the schemes to run, one case each).
        list: bool,
        /// Non-empty: the value 0 (also written `auto`) is allowed whatever the bounds and
        /// means this.
        auto_meaning: String,
    }

    /// A run's recorded configuration (`config.json`), for `--config=FILE`
    /// (`rdma_cc_core::runconfig::RunConfig`).
    #[derive(Debug, Clone)]
    struct RunConfigFile {
        /// The example that wrote it.
        example: String,
        /// Its command line, without the program name.
        command_line: Vec<String>,
        /// Every option's name (sorted) ...
        option_names: Vec<String>,
        /// ... and its effective value, as text.
        option_values: Vec<String>,
        /// The case of a multi-case example the file records (empty: the whole run).
        case_name: String,
    }

    extern "Rust" {
        /// Reads the `config.json` at `path`; the error is one line naming the file and what
        /// is wrong with it (missing, a directory, unreadable, not such a file).
        fn run_config_read(path: &str) -> Result<RunConfigFile>;
        /// The one of `candidates` that `name` is most likely a misspelling of ("" if none is
        /// close): the "did you mean" of an unknown option or name.
        fn closest_name(name: &str, candidates: &[String]) -> String;
        /// Checks that command-line argument `arg` (its bytes) is UTF-8 text, before anything
        /// reads it as text; the error is one line showing the argument with the bad bytes
        /// replaced (`invalid argument --cc=\u{fffd}: must be UTF-8 text`).
        fn argument_check(arg: &[u8]) -> Result<()>;
        /// Parses `text` for option `--NAME` of `spec`: a full-string match, the kind's unit
        /// rules, the bounds. The error is one line naming the option, the value and the rule.
        fn option_parse(spec: &OptionSpec, text: &str) -> Result<ParamValue>;
        /// The rule `spec` imposes, for help texts ("must be a whole number in [1, 100000]").
        fn option_requirement(spec: &OptionSpec) -> String;
        /// `v` as a user would write it.
        fn param_value_text(v: &ParamValue) -> String;
    }

    // the area bridges return lists of parameter descriptions
    impl Vec<ParamInfo> {}
}

pub use ffi::{OptionSpec, ParamInfo, ParamKind, ParamValue, RunConfigFile};

fn run_config_read(path: &str) -> Result<RunConfigFile, String> {
    // the one reader of every input file (missing, directory, not UTF-8 ...: one line each)
    let text =
        crate::workload::read_text(path.as_bytes(), "--config").map_err(|e| e.to_string())?;
    let c = rdma_cc_core::runconfig::RunConfig::from_json(text.as_bytes()).map_err(|e| {
        ConfigError::new(
            "--config",
            path,
            format!("{} {}: {}", e.field, e.value, e.requirement),
        )
        .to_string()
    })?;
    let (option_names, option_values) = c.options.into_iter().unzip();
    Ok(RunConfigFile {
        example: c.example,
        command_line: c.command_line,
        option_names,
        option_values,
        case_name: c.case,
    })
}

fn closest_name(name: &str, candidates: &[String]) -> String {
    let c: Vec<&str> = candidates.iter().map(String::as_str).collect();
    rdma_cc_core::runconfig::closest(name, &c)
        .unwrap_or("")
        .to_string()
}

impl From<Kind> for ParamKind {
    fn from(k: Kind) -> ParamKind {
        match k {
            Kind::Real => ParamKind::Real,
            Kind::Count => ParamKind::Count,
            Kind::Bytes => ParamKind::Bytes,
            Kind::Time => ParamKind::Time,
            Kind::Rate => ParamKind::Rate,
            Kind::Bool => ParamKind::Bool,
            Kind::Choice => ParamKind::Choice,
            Kind::Text => ParamKind::Text,
        }
    }
}

fn kind_from(k: ParamKind) -> Result<Kind, ConfigError> {
    Ok(match k {
        ParamKind::Real => Kind::Real,
        ParamKind::Count => Kind::Count,
        ParamKind::Bytes => Kind::Bytes,
        ParamKind::Time => Kind::Time,
        ParamKind::Rate => Kind::Rate,
        ParamKind::Bool => Kind::Bool,
        ParamKind::Choice => Kind::Choice,
        ParamKind::Text => Kind::Text,
        other => {
            return Err(ConfigError::new(
                "kind",
                other.repr,
                "unknown parameter kind",
            ))
        }
    })
}

/// The bridge form of a value.
pub fn to_ffi(v: &Value) -> ParamValue {
    let mut out = ParamValue {
        kind: v.kind().into(),
        real: 0.0,
        uint: 0,
        flag: false,
        text: String::new(),
    };
    match v {
        Value::Real(x) => out.real = *x,
        Value::Bool(b) => out.flag = *b,
        Value::Choice(s) | Value::Text(s) => out.text = s.clone(),
        _ => out.uint = v.int(),
    }
    out
}

/// The Rust form of a bridge value (kinds the bridge does not know are an error).
pub fn from_ffi(v: &ParamValue) -> Result<Value, ConfigError> {
    Ok(match kind_from(v.kind)? {
        Kind::Real => Value::Real(v.real),
        Kind::Count => Value::Count(v.uint),
        Kind::Bytes => Value::Bytes(Bytes(v.uint)),
        Kind::Time => Value::Time(Time(v.uint)),
        Kind::Rate => Value::Rate(Rate(v.uint)),
        Kind::Bool => Value::Bool(v.flag),
        Kind::Choice => Value::Choice(v.text.clone()),
        Kind::Text => Value::Text(v.text.clone()),
    })
}

/// The bridge description of `spec` with its default `default`.
pub fn info(spec: &ParamSpec, default: &Value) -> ParamInfo {
    let auto_default = spec.auto.is_some() && default.magnitude() == Some(0.0);
    let rule = spec.requirement();
    ParamInfo {
        name: spec.name.to_string(),
        option: spec.option.to_string(),
        attr: spec.attr.to_string(),
        kind: spec.kind.into(),
        help: format!("{} Value: {rule}.", spec.help),
        default_value: to_ffi(default),
        default_text: if auto_default {
            "auto".to_string()
        } else {
            default.to_string()
        },
        choices: spec.choices.iter().map(|c| c.to_string()).collect(),
    }
}

/// The bridge descriptions of `specs`, each with its default `default(i)` (a spec without
/// one is left out).
pub fn infos(specs: &[&ParamSpec], default: impl Fn(usize) -> Option<Value>) -> Vec<ParamInfo> {
    specs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| default(i).map(|v| info(s, &v)))
        .collect()
}

/// `e` with its field renamed from a Rust name of `specs` to its ns-3 attribute.
pub fn to_attr(e: ConfigError, specs: &[&ParamSpec]) -> ConfigError {
    rename_field(e, |f| {
        specs
            .iter()
            .find(|s| s.name == f)
            .map(|s| s.attr.to_string())
    })
}

/// Parameter `index` of a table in bridge form, from the table's `get(index)` answer `v`;
/// `None` is the error `missing(index)`.
pub fn get_param(
    v: Option<Value>,
    index: usize,
    missing: fn(usize) -> ConfigError,
) -> Result<ParamValue, ConfigError> {
    v.map(|v| to_ffi(&v)).ok_or_else(|| missing(index))
}

/// Whether `a` and `b` hold the same value in every parameter `get` reads (index 0 up to the
/// first it has not in either): a real compares by its bits, so `-0` is not `0` and a NaN is
/// itself. Tables that are the same read as the same text, parameter by parameter.
pub fn same_params<C>(a: &C, b: &C, get: impl Fn(&C, usize) -> Option<Value>) -> bool {
    let mut i = 0;
    loop {
        match (get(a, i), get(b, i)) {
            (None, None) => return true,
            (Some(x), Some(y)) if same_value(&x, &y) => i += 1,
            _ => return false,
        }
    }
}

/// `a` is `b` (a real's bits: see [`same_params`]).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Parses `text` for parameter `index` of `specs` given as its command-line option
/// (`--OPTION`) and stores it with `set`. Errors: `missing(index)` when `specs` has no such
/// parameter; the parse error, naming `--OPTION`; `set`'s error passed through `rename` (with
/// the parameter's spec).
pub fn set_option(
    specs: &[&ParamSpec],
    index: usize,
    text: &str,
    missing: fn(usize) -> ConfigError,
    set: impl FnOnce(&Value) -> Result<(), ConfigError>,
    rename: impl FnOnce(ConfigError, &ParamSpec) -> ConfigError,
) -> Result<(), ConfigError> {
    let spec = specs.get(index).copied().ok_or_else(|| missing(index))?;
    let v = spec.parse(text, &format!("--{}", spec.option))?;
    set(&v).map_err(|e| rename(e, spec))
}

/// `text` with every whole-word occurrence of `word` (not inside a longer name) replaced by
/// `by`.
pub fn replace_word(text: &str, word: &str, by: &str) -> String {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    while let Some(i) = text[from..].find(word).map(|i| i + from) {
        let end = i + word.len();
        out.push_str(&text[from..i]);
        if boundary(text[..i].chars().next_back()) && boundary(text[end..].chars().next()) {
            out.push_str(by);
        } else {
            out.push_str(word);
        }
        from = end;
    }
    out.push_str(&text[from..]);
    out
}

/// `e` in the words of a command line that declares `options` (names without dashes): the
/// field, and every attribute the requirement names, become `--option` where the example has
/// that option, the attribute otherwise.
pub fn to_options(e: ConfigError, specs: &[&ParamSpec], options: &[String]) -> ConfigError {
    let option = |s: &ParamSpec| {
        (!s.option.is_empty() && options.iter().any(|o| o == s.option))
            .then(|| format!("--{}", s.option))
    };
    let mut e = rename_field(e, |f| {
        specs
            .iter()
            .find(|s| s.name == f || s.attr == f)
            .map(|s| option(s).unwrap_or_else(|| s.attr.to_string()))
    });
    for s in specs {
        if let Some(o) = option(s) {
            e.requirement = replace_word(&e.requirement, s.attr, &o);
            // a rule written with the Rust field (`must be < t_high`): a snake_case name is
            // distinctive enough to be the field wherever it stands as a word
            if s.name.contains('_') {
                e.requirement = replace_word(&e.requirement, s.name, &o);
            }
        }
    }
    e
}

/// The core spec of an option an example declares for itself (borrowing its names).
fn core_spec<'a>(s: &'a OptionSpec, choices: &'a [&'a str]) -> Result<ParamSpec<'a>, ConfigError> {
    Ok(ParamSpec {
        unit: &s.unit,
        min: s.has_min.then_some(Limit {
            value: s.min,
            inclusive: s.min_inclusive,
        }),
        max: s.has_max.then_some(Limit {
            value: s.max,
            inclusive: s.max_inclusive,
        }),
        choices,
        auto: (!s.auto_meaning.is_empty()).then_some(s.auto_meaning.as_str()),
        // an example's own options: only the word `auto` is automatic, 0 is a value
        zero_is_auto: false,
        ..ParamSpec::new(&s.name, &s.name, &s.name, kind_from(s.kind)?, "")
    })
}

fn choices_of(s: &OptionSpec) -> Vec<&str> {
    if s.choices.is_empty() {
        Vec::new()
    } else {
        s.choices.split('|').collect()
    }
}

fn argument_check(arg: &[u8]) -> Result<(), String> {
    match std::str::from_utf8(arg) {
        Ok(_) => Ok(()),
        Err(e) => {
            let shown = rdma_cc_workload::shown_path(arg);
            Err(format!(
                "invalid argument {shown}: must be UTF-8 text (byte 0x{:02X} at position {} is \
                 not)",
                arg.get(e.valid_up_to()).copied().unwrap_or(0),
                e.valid_up_to() + 1
            ))
        }
    }
}

fn option_parse(spec: &OptionSpec, text: &str) -> Result<ParamValue, ConfigError> {
    let choices = choices_of(spec);
    let s = core_spec(spec, &choices)?;
    let field = format!("--{}", spec.name);
    if !spec.list {
        return Ok(to_ffi(&s.parse(text, &field)?));
    }
    // a list: every item one of the choices, each once; the error names the whole value and
    // the first bad item
    let shown = if text.is_empty() { "\"\"" } else { text };
    let items: Vec<&str> = text.split(',').collect();
    for (i, item) in items.iter().enumerate() {
        let why = if !choices.contains(item) {
            match rdma_cc_core::runconfig::closest(item, &choices) {
                Some(c) => format!("{item:?} is not one of them; did you mean {c}?"),
                None => format!("{item:?} is not one of them"),
            }
        } else if items[..i].contains(item) {
            format!("{item} is named twice")
        } else {
            continue;
        };
        return Err(ConfigError::new(
            &field,
            shown,
            format!("{} ({why})", list_requirement(&choices)),
        ));
    }
    let mut v = to_ffi(&Value::Choice(String::new()));
    v.text = text.to_string();
    Ok(v)
}

fn list_requirement(choices: &[&str]) -> String {
    format!(
        "must be a comma-separated list of distinct names among {}",
        choices.join(", ")
    )
}

fn option_requirement(spec: &OptionSpec) -> String {
    let choices = choices_of(spec);
    if spec.list {
        return list_requirement(&choices);
    }
    core_spec(spec, &choices).map_or_else(|e| e.to_string(), |s| s.requirement())
}

fn param_value_text(v: &ParamValue) -> String {
    from_ffi(v).map_or_else(|e| e.to_string(), |v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_params_compares_every_value_and_a_reals_bits() {
        let get = |t: &Vec<Value>, i: usize| t.get(i).cloned();
        let a = vec![Value::Real(0.5), Value::Count(3), Value::Text("x".into())];
        assert!(same_params(&a, &a.clone(), get));
        let mut b = a.clone();
        b[2] = Value::Text("y".into());
        assert!(!same_params(&a, &b, get), "the last value differs");
        assert!(
            !same_params(&a, &a[..2].to_vec(), get),
            "one table is longer"
        );
        let zero = vec![Value::Real(0.0)];
        assert!(
            !same_params(&zero, &vec![Value::Real(-0.0)], get),
            "-0 reads as -0, not 0"
        );
        let nan = vec![Value::Real(f64::NAN)];
        assert!(same_params(&nan, &nan.clone(), get), "a NaN is itself");
    }

    #[test]
    fn words_are_replaced_whole() {
        assert_eq!(
            replace_word(
                "Headroom, AllowHeadroomOverrun or Headroom",
                "Headroom",
                "--h"
            ),
            "--h, AllowHeadroomOverrun or --h"
        );
    }

    fn spec(kind: ParamKind) -> OptionSpec {
        OptionSpec {
            name: "senders".into(),
            kind,
            unit: String::new(),
            has_min: true,
            min: 1.0,
            min_inclusive: true,
            has_max: true,
            max: 100_000.0,
            max_inclusive: true,
            choices: String::new(),
            list: false,
            auto_meaning: String::new(),
        }
    }

    #[test]
    fn a_list_option_takes_distinct_choices_only() {
        let s = OptionSpec {
            kind: ParamKind::Choice,
            choices: "none|dcqcn|hpcc".into(),
            list: true,
            has_min: false,
            has_max: false,
            ..spec(ParamKind::Choice)
        };
        assert_eq!(option_parse(&s, "dcqcn,none").unwrap().text, "dcqcn,none");
        assert_eq!(option_parse(&s, "hpcc").unwrap().text, "hpcc");
        for bad in [
            "",
            "foo",
            "dcqcn,foo",
            "dcqcn,",
            ",dcqcn",
            "dcqcn,dcqcn",
            "DCQCN",
        ] {
            let e = option_parse(&s, bad).unwrap_err().to_string();
            assert!(e.starts_with("invalid --senders = "), "{e}");
            assert!(
                e.contains("comma-separated list of distinct names among none, dcqcn, hpcc"),
                "{e}"
            );
        }
    }

    #[test]
    fn example_options_are_strict_and_named() {
        let s = spec(ParamKind::Count);
        assert_eq!(option_parse(&s, "16").unwrap().uint, 16);
        for bad in ["16abc", "1e18", "3.7", "-1", "", "0"] {
            let e = option_parse(&s, bad).unwrap_err().to_string();
            assert!(e.starts_with("invalid --senders = "), "{e}");
        }
        assert_eq!(
            option_requirement(&s),
            "must be a whole number in [1, 100000]"
        );
    }

    #[test]
    fn values_round_trip_through_the_bridge_form() {
        for v in [
            Value::Real(0.5),
            Value::Time(Time::us(55)),
            Value::Rate(Rate::mbps(40)),
            Value::Bool(true),
            Value::Choice("ldcp".into()),
            Value::Bytes(Bytes(12_500)),
        ] {
            assert_eq!(from_ffi(&to_ffi(&v)).unwrap(), v);
        }
        assert_eq!(
            param_value_text(&to_ffi(&Value::Time(Time::us(55)))),
            "55us"
        );
    }
}
