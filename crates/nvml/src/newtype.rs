//! The macro the generated open newtypes invoke (C enums, and `values` rules: families of
//! `#define`s), so what they share is written once: `Debug` by constant name, `From` the raw
//! value, and `serde::Serialize` as the constant's name or, for a value the header does not
//! name, the number.

/// `open_newtype!(Name(repr), signed)`, or `unsigned`: the type must have `pub const fn
/// name(self) -> Option<&'static str>` and its value in field `.0`.
macro_rules! open_newtype {
    ($name:ident($repr:ty), $sign:ident) => {
        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match self.name() {
                    Some(n) => write!(f, "{}::{}", stringify!($name), n),
                    None => write!(f, "{}({})", stringify!($name), self.0),
                }
            }
        }

        impl From<$repr> for $name {
            fn from(v: $repr) -> Self {
                $name(v)
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self.name() {
                    Some(n) => s.serialize_str(n),
                    None => open_newtype!(@number $sign, s, self.0),
                }
            }
        }
    };
    (@number signed, $s:ident, $v:expr) => {
        $s.serialize_i64($v as i64)
    };
    (@number unsigned, $s:ident, $v:expr) => {
        $s.serialize_u64($v as u64)
    };
}
