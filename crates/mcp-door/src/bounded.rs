//! Parsing a document into a JSON value within a budget of nodes and bytes
//! of text, so that what a document expands to is bounded by its size.
//!
//! A JSON or YAML text without YAML aliases holds at most about one node
//! and one byte of text per byte of input; an alias repeats its anchor's
//! whole subtree, so a few kilobytes of `*a` can expand to gigabytes
//! ("billion laughs"). The budget, counted while the value is built and
//! checked before each node is kept, stops such a document at a size an
//! alias-free one of the same length could reach, with memory to match.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// What a parse may build: nodes (every value, each map key included) and
/// bytes of text (strings and keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Budget {
    pub nodes: usize,
    pub text: usize,
}

impl Budget {
    /// Twice what an alias-free text of `len` bytes can hold, and 4 KiB
    /// more of each for very small documents.
    pub(crate) fn for_len(len: usize) -> Budget {
        let most = len.saturating_mul(2).saturating_add(4096);
        Budget {
            nodes: most,
            text: most,
        }
    }
}

/// Why a bounded parse failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The value would exceed the budget.
    Exceeded,
    /// The parser's own error.
    Syntax(String),
}

/// Parses `bytes` as JSON into a value within `budget`.
pub(crate) fn json(bytes: &[u8], budget: Budget) -> Result<Value, Failure> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let mut left = Left::new(budget);
    let value = Seed(&mut left)
        .deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v));
    finish(value.map_err(|e| e.to_string()), &left)
}

/// Parses `bytes` as one YAML document into a value within `budget`,
/// aliases expanded (and counted) where they stand.
pub(crate) fn yaml(bytes: &[u8], budget: Budget) -> Result<Value, Failure> {
    let de = serde_norway::Deserializer::from_slice(bytes);
    let mut left = Left::new(budget);
    let value = Seed(&mut left).deserialize(de);
    finish(value.map_err(|e| e.to_string()), &left)
}

fn finish(value: Result<Value, String>, left: &Left) -> Result<Value, Failure> {
    match value {
        Ok(v) => Ok(v),
        Err(_) if left.exceeded => Err(Failure::Exceeded),
        Err(e) => Err(Failure::Syntax(e)),
    }
}

/// The budget left while a value is built.
struct Left {
    nodes: usize,
    text: usize,
    exceeded: bool,
}

impl Left {
    fn new(budget: Budget) -> Left {
        Left {
            nodes: budget.nodes,
            text: budget.text,
            exceeded: false,
        }
    }

    /// Takes one node and `text` bytes from the budget.
    fn take<E: de::Error>(&mut self, text: usize) -> Result<(), E> {
        match (self.nodes.checked_sub(1), self.text.checked_sub(text)) {
            (Some(nodes), Some(left)) => {
                self.nodes = nodes;
                self.text = left;
                Ok(())
            }
            _ => {
                self.exceeded = true;
                Err(E::custom("the document is over its size budget"))
            }
        }
    }
}

/// Builds one value, taking from the budget before each node is kept.
struct Seed<'a>(&'a mut Left);

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

/// A map key, taken from the budget as a node and its text.
struct Key<'a>(&'a mut Left);

impl<'de> DeserializeSeed<'de> for Key<'_> {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_> {
    type Value = String;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a map key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<String, E> {
        self.0.take(v.len())?;
        Ok(v.to_owned())
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<String, E> {
        self.0.take(v.len())?;
        Ok(v)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(Value::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        self.0.take(v.len())?;
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Value, E> {
        self.0.take(v.len())?;
        Ok(Value::String(v))
    }

    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        self.visit_unit()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        self.0.take(0)?;
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        self.deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        self.0.take(0)?;
        let mut items = Vec::new();
        while let Some(item) = seq.next_element_seed(Seed(self.0))? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        self.0.take(0)?;
        let mut out = Map::new();
        while let Some(key) = map.next_key_seed(Key(self.0))? {
            let value = map.next_value_seed(Seed(self.0))?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_within_the_budget_is_the_plain_parse() {
        let text = br#"{"a": [1, -2, 3.5, true, null, "x"], "b": {"c": "d"}}"#;
        let plain: Value = serde_json::from_slice(text).unwrap();
        assert_eq!(json(text, Budget::for_len(text.len())).unwrap(), plain);
        // 13 nodes (keys included) and 5 bytes of text.
        let exact = Budget { nodes: 13, text: 5 };
        assert_eq!(json(text, exact).unwrap(), plain);
        assert!(matches!(
            json(text, Budget { nodes: 12, text: 5 }),
            Err(Failure::Exceeded)
        ));
        assert!(matches!(
            json(text, Budget { nodes: 13, text: 4 }),
            Err(Failure::Exceeded)
        ));
        assert!(matches!(json(b"{", exact), Err(Failure::Syntax(_))));
    }

    #[test]
    fn yaml_aliases_count_as_what_they_expand_to() {
        let text = b"a: &x [1, 2, 3]\nb: [*x, *x]\n200: ok\n";
        let value = yaml(text, Budget::for_len(text.len())).unwrap();
        assert_eq!(
            value,
            serde_json::json!({"a": [1, 2, 3], "b": [[1, 2, 3], [1, 2, 3]], "200": "ok"})
        );
        // map, 3 keys, 4 sequences, 9 numbers and "ok": 18 nodes.
        assert!(
            yaml(
                text,
                Budget {
                    nodes: 18,
                    text: 100
                }
            )
            .is_ok()
        );
        assert!(matches!(
            yaml(
                text,
                Budget {
                    nodes: 17,
                    text: 100
                }
            ),
            Err(Failure::Exceeded)
        ));
    }
}
