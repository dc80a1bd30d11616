//! [`Value`]: NVML's `nvmlValue_t` union read according to the `nvmlValueType_t` that comes
//! with it; and the macros through which the generated enums of the other unions read and
//! write a union's members and bytes (generated code calls nothing unsafe itself).

/// A copy of member `$m` of the C union at place `$u`.
///
/// Only for the unions of nvml.h that a `tagged_unions` rule names: their members are plain
/// data (integers, floats, `char` arrays and records of them).
macro_rules! union_member {
    ($u:expr, $m:ident) => {{
        let u = &$u;
        // SAFETY: every member of the union is plain data, for which any bit pattern is valid,
        // and all of the union's bytes are initialised (zeroed by `Default` before the library
        // or `to_raw` wrote one member), so reading any member is defined.
        unsafe { u.$m }
    }};
}

/// The bytes of the C union at place `$u`, as a `Vec<u8>`.
macro_rules! union_bytes {
    ($u:expr) => {{
        let u = &$u;
        // SAFETY: the pointer and size are those of a live value, read as bytes; a union's bytes
        // are all initialised (see `union_member!`) and copies of a union keep every byte.
        unsafe { core::slice::from_raw_parts((u as *const _) as *const u8, core::mem::size_of_val(u)) }.to_vec()
    }};
}

/// The C union of type `$t` whose first bytes are `$bytes` (a `&[u8]`; the rest zero, longer
/// input cut to the union's size).
macro_rules! union_with_bytes {
    ($t:ty, $bytes:expr) => {{
        let mut u = <$t>::default();
        let bytes: &[u8] = $bytes;
        let n = bytes.len().min(core::mem::size_of::<$t>());
        // SAFETY: `n` bytes fit in `u` (at most its size); every member of the union is plain
        // data, so any bytes make a valid value.
        unsafe { core::ptr::copy_nonoverlapping(bytes.as_ptr(), (&mut u as *mut $t) as *mut u8, n) };
        u
    }};
}

use nvml_sys as sys;

use crate::ValueType;

/// A sample value, typed by the `nvmlValueType_t` the library returned with it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// An `f64`, typed `NVML_VALUE_TYPE_DOUBLE`.
    Double(
        /// The value.
        f64,
    ),
    /// A `u32`, typed `NVML_VALUE_TYPE_UNSIGNED_INT`.
    UnsignedInt(
        /// The value.
        u32,
    ),
    /// A `u64`, typed `NVML_VALUE_TYPE_UNSIGNED_LONG`.
    UnsignedLong(
        /// The value.
        u64,
    ),
    /// A `u64`, typed `NVML_VALUE_TYPE_UNSIGNED_LONG_LONG`.
    UnsignedLongLong(
        /// The value.
        u64,
    ),
    /// An `i64`, typed `NVML_VALUE_TYPE_SIGNED_LONG_LONG`.
    SignedLongLong(
        /// The value.
        i64,
    ),
    /// An `i32`, typed `NVML_VALUE_TYPE_SIGNED_INT`.
    SignedInt(
        /// The value.
        i32,
    ),
    /// A `u16`, typed `NVML_VALUE_TYPE_UNSIGNED_SHORT`.
    UnsignedShort(
        /// The value.
        u16,
    ),
    /// A value type newer than the header: the union's 64 bits as they are.
    Unknown {
        /// The type the library named.
        value_type: ValueType,
        /// The union's 64 bits.
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

    /// The union with the value in the member its type names, its other bytes zero (a literal
    /// of a member narrower than the union would leave the rest uninitialised).
    pub fn to_raw(&self) -> sys::nvmlValue_t {
        let mut raw = sys::nvmlValue_t { ullVal: 0 };
        match *self {
            Value::Double(v) => raw.dVal = v,
            Value::UnsignedInt(v) => raw.uiVal = v,
            // `unsigned long` is 64 bits on Linux, 32 on Windows.
            Value::UnsignedLong(v) => raw.ulVal = v as _,
            Value::UnsignedLongLong(v) => raw.ullVal = v,
            Value::SignedLongLong(v) => raw.sllVal = v,
            Value::SignedInt(v) => raw.siVal = v,
            Value::UnsignedShort(v) => raw.usVal = v,
            Value::Unknown { bits, .. } => raw.ullVal = bits,
        }
        raw
    }
}

impl Default for Value {
    /// `Double(0.0)`: what a zeroed `nvmlValue_t` holds with a zeroed type field
    /// (`NVML_VALUE_TYPE_DOUBLE` is 0), as in a C record the library left untouched.
    fn default() -> Value {
        Value::Double(0.0)
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
    fn union_bytes_round_trip() {
        let raw = sys::nvmlValue_t { ullVal: 0x0102_0304_0506_0708 };
        let bytes = union_bytes!(raw);
        assert_eq!(bytes, 0x0102_0304_0506_0708u64.to_ne_bytes());
        let back = union_with_bytes!(sys::nvmlValue_t, &bytes);
        assert_eq!(union_member!(back, ullVal), 0x0102_0304_0506_0708);
        // Longer input is cut to the union's size; shorter leaves the rest zero.
        assert_eq!(union_member!(union_with_bytes!(sys::nvmlValue_t, &[1u8; 20]), ullVal), u64::from_ne_bytes([1; 8]));
        assert_eq!(
            union_member!(union_with_bytes!(sys::nvmlValue_t, &[7u8]), ullVal),
            u64::from_ne_bytes([7, 0, 0, 0, 0, 0, 0, 0])
        );
    }

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
