//! The values of a study's axes: a hardware field's (a number or RON text) and a
//! generator parameter's (a number, a list or a range), each read with a message that
//! says what was expected.

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use std::fmt;

/// A hardware field's value in a study: a number or RON text.
#[derive(Clone, Debug, PartialEq)]
pub enum AxisValue {
    /// A number.
    Int(i64),
    /// RON text, e.g. `Multicast` or `Xor(shift: 5, mask: 31)`.
    Text(String),
}

impl AxisValue {
    /// The value as RON text.
    pub fn ron(&self) -> String {
        match self {
            AxisValue::Int(i) => i.to_string(),
            AxisValue::Text(t) => t.clone(),
        }
    }
}

/// A generator parameter's values.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// One value.
    One(i64),
    /// A list of values.
    List(Vec<i64>),
    /// A range `"a..=b"`, `"a..b"`, optionally `:step`.
    Range(String),
}

/// The most values one range may give.
pub const MAX_RANGE_VALUES: i128 = 100_000;

/// The most cells a study may have (hardware configurations × workloads), checked
/// before any cell is made.
pub const MAX_CELLS: u128 = 1_000_000;

impl Values {
    /// How many values: what [`Values::expand`] gives, counted without making them.
    pub fn count(&self) -> Result<u128, String> {
        match self {
            Values::One(_) => Ok(1),
            Values::List(v) if v.is_empty() => Err("an empty list".into()),
            Values::List(v) => Ok(v.len() as u128),
            Values::Range(_) => self.range().map(|(a, end, step)| ((end - a) / step + 1) as u128),
        }
    }

    /// The values, in order.
    pub fn expand(&self) -> Result<Vec<i64>, String> {
        match self {
            Values::One(v) => Ok(vec![*v]),
            Values::List(v) if v.is_empty() => Err("an empty list".into()),
            Values::List(v) => Ok(v.clone()),
            Values::Range(_) => {
                let (a, end, step) = self.range()?;
                Ok((a..=end).step_by(step as usize).map(|v| v as i64).collect())
            }
        }
    }

    /// A range's first and last value and its step (checked: at most
    /// [`MAX_RANGE_VALUES`] values, computed without overflow).
    fn range(&self) -> Result<(i128, i128, i128), String> {
        match self {
            Values::Range(s) => {
                let bad = || format!("`{s}`: expected a range like \"0..=32\" or \"0..=64:4\"");
                let (range, step) = match s.split_once(':') {
                    Some((r, st)) => (r, st.trim().parse::<i64>().map_err(|_| bad())?),
                    None => (s.as_str(), 1),
                };
                let (a, b, inclusive) = if let Some((a, b)) = range.split_once("..=") {
                    (a, b, true)
                } else if let Some((a, b)) = range.split_once("..") {
                    (a, b, false)
                } else {
                    return Err(bad());
                };
                let a = a.trim().parse::<i64>().map_err(|_| bad())? as i128;
                let b = b.trim().parse::<i64>().map_err(|_| bad())? as i128;
                let (step, end) = (step as i128, if inclusive { b } else { b - 1 });
                if step <= 0 || end < a {
                    return Err(bad());
                }
                let n = (end - a) / step + 1;
                if n > MAX_RANGE_VALUES {
                    return Err(format!(
                        "`{s}`: {n} values, above the limit of {MAX_RANGE_VALUES} values a range may give"
                    ));
                }
                Ok((a, end, step))
            }
            _ => unreachable!("only ranges have bounds"),
        }
    }
}

/// What a generator parameter takes, for messages.
const VALUES_EXPECTED: &str =
    "a whole number, a list of whole numbers like [1, 2, 4], or a range like \"0..=32\" or \"0..=64:4\"";
/// What a hardware field takes, for messages.
const AXIS_EXPECTED: &str = "a whole number, or RON text in quotes like \"Xor(shift: 5, mask: 31)\"";

/// A whole number of an axis, from any integer type RON reads (`None`: out of `i64`).
fn whole<E: de::Error>(v: impl TryInto<i64> + fmt::Display + Copy, expected: &str) -> Result<i64, E> {
    v.try_into().map_err(|_| E::custom(format!("{v} is out of range: expected {expected}")))
}

/// A float where a whole number is expected.
fn float<E: de::Error>(v: f64, expected: &str) -> E {
    E::custom(format!("found the number {v}, which is not whole: expected {expected}"))
}

/// One whole number of a list.
struct Whole(i64);

impl<'de> Deserialize<'de> for Whole {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Whole, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Whole;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a whole number in the list")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Whole, E> {
                Ok(Whole(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Whole, E> {
                whole(v, "whole numbers in the list").map(Whole)
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Whole, E> {
                whole(v, "whole numbers in the list").map(Whole)
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Whole, E> {
                whole(v, "whole numbers in the list").map(Whole)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Whole, E> {
                Err(float(v, "whole numbers in the list"))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for Values {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Values, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Values;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(VALUES_EXPECTED)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Values, E> {
                Ok(Values::One(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Values, E> {
                whole(v, VALUES_EXPECTED).map(Values::One)
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<Values, E> {
                whole(v, VALUES_EXPECTED).map(Values::One)
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<Values, E> {
                whole(v, VALUES_EXPECTED).map(Values::One)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Values, E> {
                Err(float(v, VALUES_EXPECTED))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Values, E> {
                Ok(Values::Range(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Values, A::Error> {
                let mut out = Vec::new();
                while let Some(Whole(v)) = seq.next_element()? {
                    out.push(v);
                }
                Ok(Values::List(out))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for AxisValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<AxisValue, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = AxisValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(AXIS_EXPECTED)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<AxisValue, E> {
                Ok(AxisValue::Int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<AxisValue, E> {
                whole(v, AXIS_EXPECTED).map(AxisValue::Int)
            }
            fn visit_i128<E: de::Error>(self, v: i128) -> Result<AxisValue, E> {
                whole(v, AXIS_EXPECTED).map(AxisValue::Int)
            }
            fn visit_u128<E: de::Error>(self, v: u128) -> Result<AxisValue, E> {
                whole(v, AXIS_EXPECTED).map(AxisValue::Int)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<AxisValue, E> {
                Err(float(v, AXIS_EXPECTED))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<AxisValue, E> {
                Ok(AxisValue::Text(v.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use crate::study::Study;

    fn parse_err(params: &str) -> String {
        let text =
            format!("(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"tile\", params: {params})])");
        Study::parse(&text, "s.ron").unwrap_err().to_string()
    }

    #[test]
    fn values_say_what_was_expected() {
        let e = parse_err("{\"pad\": 1.5}");
        assert!(e.starts_with("s.ron:1:") && e.contains("1.5") && e.contains("a whole number"), "{e}");
        let e = parse_err("{\"pad\": [1, 2.5]}");
        assert!(e.contains("2.5") && e.contains("whole numbers in the list"), "{e}");
        let e = parse_err("{\"pad\": 18446744073709551615}");
        assert!(e.contains("out of range"), "{e}");
        let e = parse_err("{\"pad\": 1, \"pad\": 2}");
        assert!(e.contains("`pad` is given twice"), "{e}");
        for e in [parse_err("{\"pad\": 1.5}"), parse_err("{\"pad\": true}")] {
            assert!(!e.contains("untagged"), "{e}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        let text =
            "(name: \"s\", presets: [\"h100\"], workloads: [(gen: \"tile\", params: {\"pad\": \"0..=2\"})])";
        let plain = Study::parse(text, "s.ron").unwrap();
        assert_eq!(Study::parse(&format!("\u{feff}{text}"), "s.ron").unwrap(), plain);
    }
}
