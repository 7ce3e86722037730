//! Hardware presets and user config files.
//!
//! Presets are RON files in `configs/presets/`, embedded in the binary, so nothing has
//! to be found on disk. A user config is a RON file that either names a `base` preset
//! and overrides some fields, or gives every field:
//!
//! ```
//! let hw = configs::parse_config("(base: \"h100\", banks: 16, warp: 64)", "my.ron").unwrap();
//! assert_eq!((hw.name.as_str(), hw.banks, hw.warp), ("h100+", 16, 64));
//!
//! let err = configs::parse_config("(base: \"h100\", banks: 0, wrap: 64)", "bad.ron").unwrap_err();
//! let msg = err.to_string();
//! assert!(msg.contains("bad.ron:1") && msg.contains("`wrap`") && msg.contains("`banks`"));
//! ```
//!
//! Architecture invariant: this is the only crate that knows preset names and RON.
#![warn(missing_docs)]

pub mod study;

use serde::Deserialize;
use sim_core::{
    BankMapping, Crossbar, Hardware, LaneGroups, OpRule, OpRules, PairMerge, PhaseLanes, SameWord, Timing,
    Violation,
};
use std::path::{Path, PathBuf};

/// The preset used when none is named.
pub const DEFAULT_PRESET: &str = "h100";

const PRESETS: [(&str, &str); 14] = [
    ("h100", include_str!("../presets/h100.ron")),
    ("a100", include_str!("../presets/a100.ron")),
    ("v100", include_str!("../presets/v100.ron")),
    ("kepler", include_str!("../presets/kepler.ron")),
    ("gtx580", include_str!("../presets/gtx580.ron")),
    ("g80", include_str!("../presets/g80.ron")),
    ("hd5870", include_str!("../presets/hd5870.ron")),
    ("cdna3", include_str!("../presets/cdna3.ron")),
    ("cdna4", include_str!("../presets/cdna4.ron")),
    ("rdna3", include_str!("../presets/rdna3.ron")),
    ("h200", include_str!("../presets/h200.ron")),
    ("b200", include_str!("../presets/b200.ron")),
    ("rtx5090", include_str!("../presets/rtx5090.ron")),
    ("rdna4", include_str!("../presets/rdna4.ron")),
];

/// Loading a preset or config failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No preset has this name and no file has this path.
    #[error("unknown preset `{name}` (and no such file): known presets are {}", known.join(", "))]
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The known presets.
        known: Vec<&'static str>,
    },
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid RON, or a field has the wrong type.
    #[error("{file}:{line}:{column}: {message}")]
    Parse {
        /// The file.
        file: String,
        /// Line (1-based).
        line: usize,
        /// Column (1-based).
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// The study parses but has problems; every one is listed.
    #[error("{file}: invalid study:\n{}", violations.iter().map(|v| format!("  - {v}")).collect::<Vec<_>>().join("\n"))]
    Study {
        /// The file.
        file: String,
        /// Every problem, with its line where known (`file:line: `field`: problem`).
        violations: Vec<String>,
    },
    /// The config parses but breaks rules; every violation is listed.
    #[error("{file}: invalid config:\n{}", violations.iter().map(|v| format!("  - {v}")).collect::<Vec<_>>().join("\n"))]
    Invalid {
        /// The file.
        file: String,
        /// Every violation, with its line where known (`file:line: field: problem`).
        violations: Vec<String>,
    },
}

/// Names of the built-in presets.
pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}

/// The RON source of a built-in preset.
pub fn preset_source(name: &str) -> Option<&'static str> {
    PRESETS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
}

/// A built-in preset by name.
pub fn preset(name: &str) -> Result<Hardware, ConfigError> {
    let src = preset_source(name)
        .ok_or_else(|| ConfigError::UnknownPreset { name: name.into(), known: preset_names() })?;
    parse_config(src, &format!("preset {name}"))
}

/// A preset name or a path to a RON config file.
pub fn load(spec: &str) -> Result<Hardware, ConfigError> {
    if preset_source(spec).is_some() {
        return preset(spec);
    }
    let path = Path::new(spec);
    if !path.exists() {
        return Err(ConfigError::UnknownPreset { name: spec.into(), known: preset_names() });
    }
    if path.is_dir() {
        return Err(ConfigError::Io {
            path: path.into(),
            source: std::io::Error::other("is a directory, expected a RON config file"),
        });
    }
    let text =
        std::fs::read_to_string(path).map_err(|source| ConfigError::Io { path: path.into(), source })?;
    parse_config(&text, &path.display().to_string())
}

/// Fields a config may set, each optional; `base` names the preset to start from.
///
/// The crossbar's fields have two spellings: the `crossbar: (...)` section, and the older
/// top-level `phase_lanes`, `broadcast`, `write_collision`, `atomic`, `reduction` and
/// `load_pair_merge`, which mean what they always meant (`phase_lanes: T` is
/// `crossbar.lanes: T`, with `crossbar.width` the most bytes a phase of `T` moves).
#[derive(Debug, Default, Deserialize)]
pub struct Overrides {
    /// Preset to start from.
    pub base: Option<String>,
    /// Name of the resulting config.
    pub name: Option<String>,
    /// Number of banks.
    pub banks: Option<u32>,
    /// Bank word width in bytes.
    pub bank_bytes: Option<u32>,
    /// Lanes per warp.
    pub warp: Option<u32>,
    /// The crossbar's fields, each optional.
    pub crossbar: Option<CrossbarOverrides>,
    /// Old spelling of `crossbar.lanes`.
    pub phase_lanes: Option<PhaseLanes>,
    /// Old spelling of `crossbar.broadcast`.
    pub broadcast: Option<SameWord>,
    /// Old spelling of `crossbar.write_collision`.
    pub write_collision: Option<SameWord>,
    /// Old spelling of `crossbar.atomic`.
    pub atomic: Option<SameWord>,
    /// Old spelling of `crossbar.reduction`.
    pub reduction: Option<SameWord>,
    /// Old spelling of `crossbar.load_pair_merge` (`None` to disable).
    #[serde(default, deserialize_with = "present")]
    pub load_pair_merge: Option<Option<PairMerge>>,
    /// Bank mapping.
    pub mapping: Option<BankMapping>,
    /// Shared memory per SM in bytes.
    pub smem_per_sm: Option<u32>,
    /// Timing (`None` to drop it).
    #[serde(default, deserialize_with = "present")]
    pub timing: Option<Option<Timing>>,
}

/// The crossbar's fields a config may set, each optional (see [`sim_core::Crossbar`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrossbarOverrides {
    /// Bytes delivered per wavefront.
    pub width: Option<u32>,
    /// Lanes per phase by width (`None`: from the width).
    #[serde(default, deserialize_with = "present")]
    pub lanes: Option<Option<PhaseLanes>>,
    /// Explicit lane groups.
    pub groups: Option<Vec<LaneGroups>>,
    /// Loads: same-word rule.
    pub broadcast: Option<SameWord>,
    /// Stores: same-word rule.
    pub write_collision: Option<SameWord>,
    /// Returning atomics: same-word rule.
    pub atomic: Option<SameWord>,
    /// Reductions: same-word rule.
    pub reduction: Option<SameWord>,
    /// Wide-load pair merge (`None` to disable).
    #[serde(default, deserialize_with = "present")]
    pub load_pair_merge: Option<Option<PairMerge>>,
    /// Words a bank serves per wavefront.
    pub ports: Option<u32>,
    /// The tensor-core ops' rules, each optional.
    pub ops: Option<OpRulesOverrides>,
}

/// The tensor-core ops' rules a config may set, each optional (see [`sim_core::OpRules`]).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OpRulesOverrides {
    /// `ldmatrix`.
    pub ldsm: Option<OpRule>,
    /// `stmatrix`.
    pub stsm: Option<OpRule>,
    /// `cp.async.ca`.
    pub ldgsts: Option<OpRule>,
    /// `cp.async.cg`.
    pub ldgsts_cg: Option<OpRule>,
}

impl OpRulesOverrides {
    /// Applies every set rule to `r`.
    pub fn apply(&self, r: &mut OpRules) {
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = self.$f { r.$f = v; } )* };
        }
        set!(ldsm, stsm, ldgsts, ldgsts_cg);
    }
}

/// The old top-level spelling of a crossbar field and its name in `crossbar`.
const OLD_SPELLING: [(&str, &str); 6] = [
    ("phase_lanes", "lanes"),
    ("broadcast", "broadcast"),
    ("write_collision", "write_collision"),
    ("atomic", "atomic"),
    ("reduction", "reduction"),
    ("load_pair_merge", "load_pair_merge"),
];

/// The most bytes one phase of `lanes` moves: the width the old `phase_lanes` implied
/// (`None` where no entry is valid; validation names the bad ones).
fn implied_width(lanes: &PhaseLanes) -> Option<u32> {
    let valid = |l: u32| l.is_power_of_two() && l <= 64;
    sim_core::WIDTHS.iter().filter(|&&w| valid(lanes.lanes(w))).map(|&w| lanes.lanes(w) * w as u32).max()
}

impl CrossbarOverrides {
    /// Applies every set field to `c`.
    pub fn apply(&self, c: &mut Crossbar) {
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = &self.$f { c.$f = v.clone(); } )* };
        }
        set!(width, lanes, groups, broadcast, write_collision, atomic, reduction, load_pair_merge, ports);
        if let Some(ops) = &self.ops {
            ops.apply(&mut c.ops);
        }
    }

    /// Which fields are set, by name.
    fn given(&self) -> [(&'static str, bool); 10] {
        [
            ("width", self.width.is_some()),
            ("lanes", self.lanes.is_some()),
            ("groups", self.groups.is_some()),
            ("broadcast", self.broadcast.is_some()),
            ("write_collision", self.write_collision.is_some()),
            ("atomic", self.atomic.is_some()),
            ("reduction", self.reduction.is_some()),
            ("load_pair_merge", self.load_pair_merge.is_some()),
            ("ports", self.ports.is_some()),
            ("ops", self.ops.is_some()),
        ]
    }
}

/// A field that is present, even as `None`, becomes `Some(..)`; an absent one stays `None`.
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

/// How [`to_ron`] lays a value out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RonStyle {
    /// One field per line, struct names left out: a config file `--config` reads back
    /// (`Hardware::to_ron` in Python, `calibration.ron`).
    File,
    /// One line, fields `, `-separated (`Hardware(...)` in Python's `repr`).
    Line,
}

/// `value` as RON text: the one writer of RON in banksim, as [`load`] and
/// [`parse_config`] are its readers.
pub fn to_ron<T: serde::Serialize + ?Sized>(value: &T, style: RonStyle) -> Result<String, ron::Error> {
    let pretty = ron::ser::PrettyConfig::new();
    let pretty = match style {
        RonStyle::File => pretty.struct_names(false),
        RonStyle::Line => pretty.new_line("").indentor("").separator(" "),
    };
    let text = ron::ser::to_string_pretty(value, pretty)?;
    Ok(match style {
        RonStyle::File => text,
        RonStyle::Line => spaced(&text),
    })
}

/// One-line RON as people write it: `(a: 1,b: [2,3,],)` -> `(a: 1, b: [2, 3])`.
fn spaced(ron: &str) -> String {
    let (mut out, mut quoted, mut prev) = (String::with_capacity(ron.len() + 64), false, '\0');
    let mut chars = ron.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if prev != '\\' => quoted = !quoted,
            ',' if !quoted => {
                if !matches!(chars.peek(), Some(')' | ']' | '}')) {
                    out.push_str(", ");
                }
                prev = c;
                continue;
            }
            _ => {}
        }
        out.push(c);
        prev = c;
    }
    out
}

pub(crate) fn ron_options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .with_recursion_limit(RECURSION_LIMIT)
}

/// The deepest nesting of brackets a config or study may have.
pub const RECURSION_LIMIT: usize = 64;

/// The parser's message for `code`, in banksim's words where the parser's would name its
/// own internals.
pub(crate) fn ron_message(code: &ron::Error) -> String {
    match code {
        ron::Error::ExceededRecursionLimit => {
            format!("nested too deeply: more than {RECURSION_LIMIT} levels of brackets")
        }
        other => {
            let text = other.to_string();
            // the parser names the Rust types; say what they are in the file
            [
                ("`WorkloadSpec`", "a workload"),
                ("`PlotSpec`", "`plot`"),
                ("`Study`", "the study"),
                ("`CrossbarOverrides`", "`crossbar`"),
                ("`Overrides`", "the config"),
            ]
            .iter()
            .fold(text, |t, (from, to)| t.replace(from, to))
        }
    }
}

/// A parse error of `file`, with its line and column.
pub(crate) fn parse_error(e: &ron::error::SpannedError, file: &str) -> ConfigError {
    ConfigError::Parse {
        file: file.into(),
        line: e.span.start.line,
        column: e.span.start.col,
        message: ron_message(&e.code),
    }
}

/// The crossbar's fields, as `crossbar.FIELD` names them.
pub(crate) const CROSSBAR_FIELDS: [&str; 10] = [
    "width",
    "lanes",
    "groups",
    "broadcast",
    "write_collision",
    "atomic",
    "reduction",
    "load_pair_merge",
    "ports",
    "ops",
];

/// Why a `crossbar.width` that `o` gives would be ignored in `hw` (the result), if it
/// would: `phase_lanes` (the old spelling, which sets the lanes and the width) is given
/// too; or, with `strict` (a study's axes, never read back from a file banksim wrote),
/// the lanes per phase are set at all (given, or fixed by the base), since they, not the
/// width, make the phases. A contradiction is refused, not resolved either way. (A config
/// file may give `crossbar: (width: .., lanes: Some(..))`: the lanes take precedence, as
/// documented, and that is what banksim writes for such hardware.)
pub(crate) fn width_ignored(o: &Overrides, hw: &Hardware, strict: bool) -> Option<String> {
    let width = o.crossbar.as_ref().is_some_and(|x| x.width.is_some());
    if !width || hw.crossbar.lanes.is_none() || (!strict && o.phase_lanes.is_none()) {
        return None;
    }
    let given = if o.phase_lanes.is_some() {
        "`phase_lanes` is given too"
    } else if o.crossbar.as_ref().is_some_and(|x| matches!(x.lanes, Some(Some(_)))) {
        "`crossbar.lanes` is given too"
    } else {
        "the base config fixes `crossbar.lanes`"
    };
    Some(format!(
        "would be ignored: {given}, and the lanes per phase, not the width, make the phases; give one of the two (`crossbar.lanes: None` takes the lanes from the width)"
    ))
}

const FIELDS: [&str; 15] = [
    "base",
    "name",
    "banks",
    "bank_bytes",
    "warp",
    "crossbar",
    "phase_lanes",
    "broadcast",
    "write_collision",
    "atomic",
    "reduction",
    "load_pair_merge",
    "mapping",
    "smem_per_sm",
    "timing",
];

impl Overrides {
    /// Applies every set field to `hw`; a changed config gets a `+` on its name unless
    /// `name` is set. Old spellings apply first, then the `crossbar` section. Changing
    /// `bank_bytes` alone keeps the lanes per phase (as it always did): where the
    /// crossbar's lanes came from its width, they are fixed at the old bank width's.
    pub fn apply(&self, hw: &mut Hardware) {
        let before = hw.clone();
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = &self.$f { hw.$f = v.clone(); } )* };
        }
        set!(banks, bank_bytes, warp, mapping, smem_per_sm, timing);
        macro_rules! set_crossbar {
            ($($f:ident),*) => { $( if let Some(v) = &self.$f { hw.crossbar.$f = v.clone(); } )* };
        }
        set_crossbar!(broadcast, write_collision, atomic, reduction, load_pair_merge);
        if let Some(lanes) = &self.phase_lanes {
            hw.crossbar.lanes = Some(*lanes);
            if let Some(width) = implied_width(lanes) {
                hw.crossbar.width = width;
            }
        }
        let xbar = self.crossbar.clone().unwrap_or_default();
        xbar.apply(&mut hw.crossbar);
        let lanes_named = self.phase_lanes.is_some() || xbar.width.is_some() || xbar.lanes.is_some();
        if hw.bank_bytes != before.bank_bytes && before.crossbar.lanes.is_none() && !lanes_named {
            hw.crossbar.lanes = Some(Crossbar::width_lanes(before.crossbar.width, before.bank_bytes));
        }
        match &self.name {
            Some(n) => hw.name = n.clone(),
            None if *hw != before => hw.name.push('+'),
            None => {}
        }
    }

    /// Crossbar fields given in both spellings: (old name, `crossbar.` name).
    fn both_spellings(&self) -> Vec<(&'static str, &'static str)> {
        let Some(x) = &self.crossbar else { return Vec::new() };
        let old = [
            self.phase_lanes.is_some(),
            self.broadcast.is_some(),
            self.write_collision.is_some(),
            self.atomic.is_some(),
            self.reduction.is_some(),
            self.load_pair_merge.is_some(),
        ];
        let given = x.given();
        OLD_SPELLING
            .iter()
            .zip(old)
            .filter(|&(&(_, new), o)| o && given.iter().any(|&(f, g)| g && f == new))
            .map(|(&pair, _)| pair)
            .collect()
    }
}

/// Parses a config (preset or user file) from RON text; `file` is used in messages.
pub fn parse_config(text: &str, file: &str) -> Result<Hardware, ConfigError> {
    resolve(text, file, None)
}

/// Parses the fields of a config from RON text and applies them to `base` (or, where
/// the text names a `base` preset, to that preset), with the checks and messages of
/// [`parse_config`]: for overrides given other than as a file (the Python package's
/// keyword arguments), on a machine that may itself not be a preset.
///
/// ```
/// let h100 = configs::preset("h100").unwrap();
/// let hw = configs::parse_overrides(&h100, "(banks: 64)", "overrides").unwrap();
/// assert_eq!((hw.name.as_str(), hw.banks), ("h100+", 64));
/// let err = configs::parse_overrides(&hw, "(banks: 0)", "overrides").unwrap_err();
/// assert!(err.to_string().contains("overrides:1: `banks`: must be between 1 and 1024, got 0"));
/// ```
pub fn parse_overrides(base: &Hardware, text: &str, file: &str) -> Result<Hardware, ConfigError> {
    resolve(text, file, Some(base))
}

/// [`parse_config`] (no `base_hw`: a config without `base` gives every field) and
/// [`parse_overrides`] (a config without `base` starts from `base_hw`).
fn resolve(text: &str, file: &str, base_hw: Option<&Hardware>) -> Result<Hardware, ConfigError> {
    // a byte-order mark (some editors write one) is not part of the config
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let overrides: Overrides = ron_options().from_str(text).map_err(|e| parse_error(&e, file))?;
    let mut violations: Vec<String> = unknown_fields(text)
        .into_iter()
        .map(|f| {
            format!(
                "{file}:{}: `{f}`: unknown field; expected one of {}",
                line_of_field(text, &f),
                FIELDS.join(", ")
            )
        })
        .collect();
    for (old, new) in overrides.both_spellings() {
        violations.push(format!(
            "{file}:{}: `{old}`: also given as `crossbar.{new}`; give one of the two",
            line_of_field(text, old)
        ));
    }
    let mut hw = match &overrides.base {
        Some(base) => match preset_source(base) {
            Some(src) => parse_config(src, &format!("preset {base}"))?,
            None => {
                violations.push(format!(
                    "{file}:{}: `base`: unknown preset `{base}`; known presets are {}",
                    line_of_field(text, "base"),
                    preset_names().join(", ")
                ));
                return Err(ConfigError::Invalid { file: file.into(), violations });
            }
        },
        None => match base_hw {
            Some(hw) => hw.clone(),
            None => {
                let missing = missing_fields(&overrides);
                if !missing.is_empty() {
                    violations.extend(missing.iter().map(|f| {
                        format!("{file}: `{f}`: missing; give it, or name a preset with `base: \"h100\"` to inherit it")
                    }));
                    return Err(ConfigError::Invalid { file: file.into(), violations });
                }
                placeholder()
            }
        },
    };
    overrides.apply(&mut hw);
    if let Some(problem) = width_ignored(&overrides, &hw, false) {
        violations.push(format!("{file}:{}: `crossbar.width`: {problem}", line_of_field(text, "crossbar")));
    }
    if let Err(vs) = hw.validate() {
        violations.extend(vs.iter().map(|v| describe(text, file, v)));
    }
    if violations.is_empty() {
        Ok(hw)
    } else {
        Err(ConfigError::Invalid { file: file.into(), violations })
    }
}

/// Applies `overrides` to `hw` and validates the result (for command-line overrides).
pub fn apply_overrides(hw: &Hardware, overrides: &Overrides, what: &str) -> Result<Hardware, ConfigError> {
    let mut hw = hw.clone();
    overrides.apply(&mut hw);
    hw.validate().map_err(|vs| ConfigError::Invalid {
        file: what.into(),
        violations: vs.iter().map(|v| format!("{what}: {v}")).collect(),
    })?;
    Ok(hw)
}

fn describe(text: &str, file: &str, v: &Violation) -> String {
    // a crossbar field given in the old spelling is named as written
    let old = v.field.strip_prefix("crossbar.").and_then(|rest| {
        let (head, tail) = rest.split_once('.').map_or((rest, ""), |(h, t)| (h, t));
        OLD_SPELLING
            .iter()
            .find(|(old, new)| *new == head && find_field_line(text, old).is_some())
            .map(|(old, _)| if tail.is_empty() { old.to_string() } else { format!("{old}.{tail}") })
    });
    let v = match old {
        Some(field) => Violation { field, problem: v.problem.clone() },
        None => v.clone(),
    };
    let top = v.field.split('.').next().unwrap_or(&v.field);
    match find_field_line(text, top) {
        Some(line) => format!("{file}:{line}: {v}"),
        None => format!("{file}: {v} (inherited from the base preset)"),
    }
}

fn missing_fields(o: &Overrides) -> Vec<&'static str> {
    let mut present = vec![
        ("name", o.name.is_some()),
        ("banks", o.banks.is_some()),
        ("bank_bytes", o.bank_bytes.is_some()),
        ("warp", o.warp.is_some()),
    ];
    match &o.crossbar {
        // the new spelling: a width and the four same-word rules (in either spelling)
        Some(x) => present.extend([
            ("crossbar.width", x.width.is_some()),
            ("crossbar.broadcast", x.broadcast.is_some() || o.broadcast.is_some()),
            ("crossbar.write_collision", x.write_collision.is_some() || o.write_collision.is_some()),
            ("crossbar.atomic", x.atomic.is_some() || o.atomic.is_some()),
            ("crossbar.reduction", x.reduction.is_some() || o.reduction.is_some()),
        ]),
        // the old spelling, every field as before
        None => present.extend([
            ("phase_lanes", o.phase_lanes.is_some()),
            ("broadcast", o.broadcast.is_some()),
            ("write_collision", o.write_collision.is_some()),
            ("atomic", o.atomic.is_some()),
            ("reduction", o.reduction.is_some()),
            ("load_pair_merge", o.load_pair_merge.is_some()),
        ]),
    }
    present.extend([
        ("mapping", o.mapping.is_some()),
        ("smem_per_sm", o.smem_per_sm.is_some()),
        ("timing", o.timing.is_some()),
    ]);
    present.iter().filter(|(_, p)| !p).map(|(f, _)| *f).collect()
}

fn placeholder() -> Hardware {
    Hardware {
        name: String::new(),
        banks: 0,
        bank_bytes: 0,
        warp: 0,
        crossbar: Crossbar {
            width: 0,
            lanes: None,
            groups: Vec::new(),
            broadcast: SameWord::Multicast,
            write_collision: SameWord::Multicast,
            atomic: SameWord::Serialize,
            reduction: SameWord::Multicast,
            load_pair_merge: None,
            ports: 1,
            ops: OpRules::default(),
        },
        mapping: BankMapping::Linear,
        smem_per_sm: 0,
        timing: None,
    }
}

/// The top-level fields of a RON struct with the line each starts on. A small scan
/// (strings, comments and nesting aware), so every field gets a line even where the
/// struct sits on one line.
fn top_level_fields(text: &str) -> Vec<(String, usize)> {
    let bytes = text.as_bytes();
    let (mut i, mut line, mut depth) = (0, 1, 0i32);
    let mut out = Vec::new();
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => line += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    if bytes.get(i) == Some(&b'\n') {
                        line += 1;
                    }
                    i += 1;
                }
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            c if depth == 1 && (c.is_ascii_alphabetic() || c == b'_') => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let mut j = i;
                while j < bytes.len() && (bytes[j] == b' ' || bytes[j] == b'\t') {
                    j += 1;
                }
                if bytes.get(j) == Some(&b':') {
                    out.push((text[start..i].to_string(), line));
                }
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Top-level field names that are not config fields.
fn unknown_fields(text: &str) -> Vec<String> {
    top_level_fields(text).into_iter().map(|(f, _)| f).filter(|f| !FIELDS.contains(&f.as_str())).collect()
}

fn find_field_line(text: &str, field: &str) -> Option<usize> {
    top_level_fields(text).into_iter().find(|(f, _)| f == field).map(|(_, l)| l)
}

fn line_of_field(text: &str, field: &str) -> usize {
    find_field_line(text, field).unwrap_or(1)
}
