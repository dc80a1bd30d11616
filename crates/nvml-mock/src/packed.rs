//! A YAML value tree in a compact binary form, read without a YAML parser: the built-in
//! profiles are parsed when the library is built (`build.rs` includes this file and writes
//! each profile's tree with [`pack`]), and [`unpack`] makes the same [`Value`] at the first
//! `nvmlInit` in a fraction of what parsing the YAML costs.
//!
//! The form: a tag byte per value, then its payload; integers little-endian, lengths `u32`.

use serde_yaml::value::{Tag, TaggedValue};
use serde_yaml::{Mapping, Number, Value};

const NULL: u8 = 0;
const FALSE: u8 = 1;
const TRUE: u8 = 2;
const UINT: u8 = 3;
const INT: u8 = 4;
const FLOAT: u8 = 5;
const STRING: u8 = 6;
const SEQUENCE: u8 = 7;
const MAPPING: u8 = 8;
const TAGGED: u8 = 9;

/// `v` in the packed form, appended to `out`; `None` for a length beyond `u32`.
#[allow(dead_code)] // `build.rs` packs; the library only unpacks (its tests pack).
pub fn pack(v: &Value, out: &mut Vec<u8>) -> Option<()> {
    let len = |n: usize, out: &mut Vec<u8>| -> Option<()> {
        out.extend_from_slice(&u32::try_from(n).ok()?.to_le_bytes());
        Some(())
    };
    match v {
        Value::Null => out.push(NULL),
        Value::Bool(b) => out.push(if *b { TRUE } else { FALSE }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                out.push(UINT);
                out.extend_from_slice(&u.to_le_bytes());
            } else if let Some(i) = n.as_i64() {
                out.push(INT);
                out.extend_from_slice(&i.to_le_bytes());
            } else {
                out.push(FLOAT);
                out.extend_from_slice(&n.as_f64()?.to_bits().to_le_bytes());
            }
        }
        Value::String(s) => {
            out.push(STRING);
            len(s.len(), out)?;
            out.extend_from_slice(s.as_bytes());
        }
        Value::Sequence(items) => {
            out.push(SEQUENCE);
            len(items.len(), out)?;
            for item in items {
                pack(item, out)?;
            }
        }
        Value::Mapping(m) => {
            out.push(MAPPING);
            len(m.len(), out)?;
            for (k, v) in m {
                pack(k, out)?;
                pack(v, out)?;
            }
        }
        Value::Tagged(t) => {
            out.push(TAGGED);
            let tag = t.tag.to_string();
            len(tag.len(), out)?;
            out.extend_from_slice(tag.as_bytes());
            pack(&t.value, out)?;
        }
    }
    Some(())
}

/// The value [`pack`] wrote at the start of `bytes`, which must hold it and nothing after it;
/// `None` for bytes that are not one packed value.
pub fn unpack(bytes: &[u8]) -> Option<Value> {
    let mut reader = Reader { bytes, at: 0 };
    let v = reader.value(0)?;
    (reader.at == bytes.len()).then_some(v)
}

/// The packed value of `key` in the packed mapping `bytes`, read without making the values:
/// `None` when `bytes` is not a mapping or has no such (string) key.
pub fn get<'a>(bytes: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let mut reader = Reader { bytes, at: 0 };
    if *reader.take(1)?.first()? != MAPPING {
        return None;
    }
    for _ in 0..reader.len()? {
        let k = reader.skip(0)?;
        let v = reader.skip(0)?;
        if k.first() == Some(&STRING) && k.get(5..) == Some(key.as_bytes()) {
            return Some(v);
        }
    }
    None
}

/// The number of items of the packed list `bytes`; `None` when it is not one.
pub fn items(bytes: &[u8]) -> Option<usize> {
    let mut reader = Reader { bytes, at: 0 };
    (*reader.take(1)?.first()? == SEQUENCE).then(|| reader.len()).flatten()
}

/// How deep values may nest: a packed tree is the library's own, but a wrong one must not
/// overflow the stack.
const MAX_DEPTH: usize = 256;

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let taken = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(taken)
    }

    fn word(&mut self) -> Option<[u8; 8]> {
        self.take(8)?.try_into().ok()
    }

    fn len(&mut self) -> Option<usize> {
        let n: [u8; 4] = self.take(4)?.try_into().ok()?;
        usize::try_from(u32::from_le_bytes(n)).ok()
    }

    fn string(&mut self) -> Option<String> {
        let n = self.len()?;
        std::str::from_utf8(self.take(n)?).ok().map(str::to_string)
    }

    /// Steps over one value: its bytes.
    fn skip(&mut self, depth: usize) -> Option<&'a [u8]> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.at;
        match *self.take(1)?.first()? {
            NULL | FALSE | TRUE => {}
            UINT | INT | FLOAT => {
                self.take(8)?;
            }
            STRING => {
                let n = self.len()?;
                self.take(n)?;
            }
            SEQUENCE => {
                for _ in 0..self.len()? {
                    self.skip(depth + 1)?;
                }
            }
            MAPPING => {
                for _ in 0..self.len()? {
                    self.skip(depth + 1)?;
                    self.skip(depth + 1)?;
                }
            }
            TAGGED => {
                let n = self.len()?;
                self.take(n)?;
                self.skip(depth + 1)?;
            }
            _ => return None,
        }
        let bytes: &'a [u8] = self.bytes;
        bytes.get(start..self.at)
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let tag = *self.take(1)?.first()?;
        Some(match tag {
            NULL => Value::Null,
            FALSE => Value::Bool(false),
            TRUE => Value::Bool(true),
            UINT => Value::Number(Number::from(u64::from_le_bytes(self.word()?))),
            INT => Value::Number(Number::from(i64::from_le_bytes(self.word()?))),
            FLOAT => Value::Number(Number::from(f64::from_bits(u64::from_le_bytes(self.word()?)))),
            STRING => Value::String(self.string()?),
            SEQUENCE => {
                let n = self.len()?;
                // Each value takes a byte at least: a count beyond what is left is wrong.
                if n > self.bytes.len() - self.at {
                    return None;
                }
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                Value::Sequence(items)
            }
            MAPPING => {
                let n = self.len()?;
                if n > (self.bytes.len() - self.at) / 2 {
                    return None;
                }
                let mut m = Mapping::with_capacity(n);
                for _ in 0..n {
                    let k = self.value(depth + 1)?;
                    let v = self.value(depth + 1)?;
                    m.insert(k, v);
                }
                Value::Mapping(m)
            }
            TAGGED => {
                let tag = Tag::new(self.string()?);
                let value = self.value(depth + 1)?;
                Value::Tagged(Box::new(TaggedValue { tag, value }))
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_read_back_as_packed() {
        let text = "a: [1, -2, 2.5, 'x', null, true, false, {b: c}]\n18446744073709551615: !tag {k: v}\n'': ''\n";
        let v: Value = serde_yaml::from_str(text).unwrap();
        let mut bytes = Vec::new();
        pack(&v, &mut bytes).unwrap();
        assert_eq!(unpack(&bytes), Some(v));
        // Truncated or extended bytes are not a value.
        assert_eq!(unpack(&bytes[..bytes.len() - 1]), None);
        bytes.push(0);
        assert_eq!(unpack(&bytes), None);
        assert_eq!(unpack(&[SEQUENCE, 0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(unpack(&[42]), None);
        assert_eq!(unpack(&[]), None);
    }

    #[test]
    fn a_key_is_found_without_making_the_values() {
        let text = "name: x\nbase: [a, b]\ndevices: [{}, {k: [1, 2]}, 3]\nother: !t {a: -1.5}\n";
        let v: Value = serde_yaml::from_str(text).unwrap();
        let mut bytes = Vec::new();
        pack(&v, &mut bytes).unwrap();
        assert_eq!(get(&bytes, "devices").and_then(items), Some(3));
        assert_eq!(get(&bytes, "base").and_then(items), Some(2));
        assert_eq!(get(&bytes, "name").and_then(unpack), Some(Value::from("x")));
        assert_eq!(get(&bytes, "other").and_then(unpack), v.get("other").cloned());
        assert_eq!(get(&bytes, "nope"), None);
        assert_eq!(get(&bytes, "name").and_then(items), None);
        assert_eq!(get(&bytes[..bytes.len() - 1], "nope"), None);
    }
}
