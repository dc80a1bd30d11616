//! [`Value`]: NVML's `nvmlValue_t` union read according to the `nvmlValueType_t` that comes
//! with it.

use nvml_sys as sys;

use crate::ValueType;

/// A sample value, typed by the `nvmlValueType_t` the library returned with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Double(f64),
    UnsignedInt(u32),
    UnsignedLong(u64),
    UnsignedLongLong(u64),
    SignedLongLong(i64),
    SignedInt(i32),
    UnsignedShort(u16),
    /// A value type newer than the header: the union's 64 bits as they are.
    Unknown {
        value_type: ValueType,
        bits: u64,
    },
}

impl Value {
    /// Reads `raw` as the member `value_type` names.
    pub fn from_raw(value_type: ValueType, raw: &sys::nvmlValue_t) -> Value {
        // SAFETY: every member of `nvmlValue_t` is a plain integer or float for which any bit
        // pattern is valid, and the union's 8 bytes are initialised (by the library, or by
        // `Default` before the call), so reading any member is defined.
        unsafe {
            match value_type {
                ValueType::DOUBLE => Value::Double(raw.dVal),
                ValueType::UNSIGNED_INT => Value::UnsignedInt(raw.uiVal),
                ValueType::SIGNED_INT => Value::SignedInt(raw.siVal),
                ValueType::UNSIGNED_SHORT => Value::UnsignedShort(raw.usVal),
                // `unsigned long` is 64 bits on Linux, 32 on Windows.
                #[allow(clippy::useless_conversion)]
                ValueType::UNSIGNED_LONG => Value::UnsignedLong(raw.ulVal.into()),
                ValueType::UNSIGNED_LONG_LONG => Value::UnsignedLongLong(raw.ullVal),
                ValueType::SIGNED_LONG_LONG => Value::SignedLongLong(raw.sllVal),
                _ => Value::Unknown { value_type, bits: raw.ullVal },
            }
        }
    }

    /// The value as an `f64` (integers converted; `None` for an unknown type).
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            Value::Double(v) => v,
            Value::UnsignedInt(v) => v.into(),
            Value::UnsignedLong(v) | Value::UnsignedLongLong(v) => v as f64,
            Value::SignedLongLong(v) => v as f64,
            Value::SignedInt(v) => v.into(),
            Value::UnsignedShort(v) => v.into(),
            Value::Unknown { .. } => return None,
        })
    }

    /// The value as a `u64`, when it is a non-negative integer.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Value::UnsignedInt(v) => Some(v.into()),
            Value::UnsignedLong(v) | Value::UnsignedLongLong(v) => Some(v),
            Value::SignedLongLong(v) => u64::try_from(v).ok(),
            Value::SignedInt(v) => u64::try_from(v).ok(),
            Value::UnsignedShort(v) => Some(v.into()),
            Value::Double(_) | Value::Unknown { .. } => None,
        }
    }
}

impl Value {
    /// The `nvmlValueType_t` that names the value's member.
    pub fn value_type(&self) -> ValueType {
        match *self {
            Value::Double(_) => ValueType::DOUBLE,
            Value::UnsignedInt(_) => ValueType::UNSIGNED_INT,
            Value::UnsignedLong(_) => ValueType::UNSIGNED_LONG,
            Value::UnsignedLongLong(_) => ValueType::UNSIGNED_LONG_LONG,
            Value::SignedLongLong(_) => ValueType::SIGNED_LONG_LONG,
            Value::SignedInt(_) => ValueType::SIGNED_INT,
            Value::UnsignedShort(_) => ValueType::UNSIGNED_SHORT,
            Value::Unknown { value_type, .. } => value_type,
        }
    }

    /// The union with the value in the member its type names.
    pub fn to_raw(&self) -> sys::nvmlValue_t {
        match *self {
            Value::Double(v) => sys::nvmlValue_t { dVal: v },
            Value::UnsignedInt(v) => sys::nvmlValue_t { uiVal: v },
            // `unsigned long` is 64 bits on Linux, 32 on Windows.
            Value::UnsignedLong(v) => sys::nvmlValue_t { ulVal: v as _ },
            Value::UnsignedLongLong(v) => sys::nvmlValue_t { ullVal: v },
            Value::SignedLongLong(v) => sys::nvmlValue_t { sllVal: v },
            Value::SignedInt(v) => sys::nvmlValue_t { siVal: v },
            Value::UnsignedShort(v) => sys::nvmlValue_t { usVal: v },
            Value::Unknown { bits, .. } => sys::nvmlValue_t { ullVal: bits },
        }
    }
}

impl Default for Value {
    /// `UnsignedInt(0)`.
    fn default() -> Value {
        Value::UnsignedInt(0)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Value {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match *self {
            Value::Double(v) => s.serialize_f64(v),
            Value::UnsignedInt(v) => s.serialize_u32(v),
            Value::UnsignedLong(v) | Value::UnsignedLongLong(v) => s.serialize_u64(v),
            Value::SignedLongLong(v) => s.serialize_i64(v),
            Value::SignedInt(v) => s.serialize_i32(v),
            Value::UnsignedShort(v) => s.serialize_u16(v),
            Value::Unknown { bits, .. } => s.serialize_u64(bits),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_read_at_their_width() {
        let mut raw = sys::nvmlValue_t::default();
        raw.uiVal = 77;
        assert_eq!(Value::from_raw(ValueType::UNSIGNED_INT, &raw), Value::UnsignedInt(77));
        raw.siVal = -5;
        assert_eq!(Value::from_raw(ValueType::SIGNED_INT, &raw), Value::SignedInt(-5));
        raw.dVal = 2.5;
        assert_eq!(Value::from_raw(ValueType::DOUBLE, &raw).as_f64(), Some(2.5));
        raw.ullVal = 1 << 40;
        assert_eq!(Value::from_raw(ValueType::UNSIGNED_LONG_LONG, &raw).as_u64(), Some(1 << 40));
        raw.sllVal = -1;
        assert_eq!(Value::from_raw(ValueType::SIGNED_LONG_LONG, &raw).as_u64(), None);
        raw.usVal = 9;
        assert_eq!(Value::from_raw(ValueType::UNSIGNED_SHORT, &raw), Value::UnsignedShort(9));
        raw.ullVal = 0x1234_5678_9abc;
        assert_eq!(
            Value::from_raw(ValueType(99), &raw),
            Value::Unknown { value_type: ValueType(99), bits: 0x1234_5678_9abc }
        );
        assert_eq!(Value::from_raw(ValueType(99), &raw).as_f64(), None);
    }

    #[test]
    fn values_write_back_their_member_and_type() {
        for v in [Value::Double(-2.5), Value::UnsignedInt(7), Value::SignedInt(-3), Value::UnsignedShort(5)] {
            assert_eq!(Value::from_raw(v.value_type(), &v.to_raw()), v);
        }
        let unknown = Value::Unknown { value_type: ValueType(99), bits: 1 << 50 };
        assert_eq!(Value::from_raw(unknown.value_type(), &unknown.to_raw()), unknown);
    }
}
