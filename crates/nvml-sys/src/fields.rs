//! Field ids per driver: NVIDIA renumbered `NVML_FI_*` between releases (251 is
//! `NVML_FI_PWR_SMOOTHING_ENABLED` on R570 and from 580.82, but a clock-event field on R575 and
//! 580.65), so a field id means what the running driver's header says. [`FieldNumbering`] maps
//! the ids of the header these bindings were generated from to a driver's and back, from the
//! generated table of every published header (`generated/field_numbering.rs`).

use std::fmt;

use crate::generated::field_numbering::{FieldNumberingTable, HEADERS, NUMBERINGS};
use crate::generated::HEADER_VERSION;

/// The numbering of the header these bindings were generated from: every id as it is.
static SAME: FieldNumberingTable = FieldNumberingTable { moved: &[], back: &[], absent: &[], later: &[] };

/// How one driver numbers the `NVML_FI_*` field ids: the numbering of the published `nvml.h`
/// that shipped with it. Ids here are this crate's constants (the generated header's numbers,
/// [`HEADER_VERSION`]); [`FieldNumbering::to_driver`] gives the number to send that driver,
/// [`FieldNumbering::from_driver`] reads a number it answers.
///
/// ```
/// use nvml_sys::{FieldNumbering, NVML_FI_PWR_SMOOTHING_ENABLED as ENABLED};
///
/// // R575 numbers the power-smoothing fields 5 higher than R570 and 580.82 do.
/// let r575 = FieldNumbering::for_driver("575.57.08").unwrap();
/// assert_eq!(r575.to_driver(ENABLED as u32), Some(256));
/// assert_eq!(r575.from_driver(256), Some(ENABLED as u32));
/// // R550 predates them.
/// assert_eq!(FieldNumbering::for_driver("550.54.15").unwrap().to_driver(ENABLED as u32), None);
/// ```
#[derive(Clone, Copy)]
pub struct FieldNumbering {
    header: &'static str,
    table: &'static FieldNumberingTable,
}

impl fmt::Debug for FieldNumbering {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("FieldNumbering").field(&self.header).finish()
    }
}

impl Default for FieldNumbering {
    fn default() -> FieldNumbering {
        FieldNumbering::newest()
    }
}

/// `575.57.08` → `[575, 57, 8]`; one to three numbers (`570.26` → `[570, 26, 0]`), else `None`.
pub fn parse_driver_version(version: &str) -> Option<[u32; 3]> {
    let mut out = [0; 3];
    let mut parts = version.trim().split('.');
    for (i, slot) in out.iter_mut().enumerate() {
        match parts.next() {
            Some(p) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => *slot = p.parse().ok()?,
            None if i > 0 => break,
            _ => return None,
        }
    }
    parts.next().is_none().then_some(out)
}

impl FieldNumbering {
    /// The numbering of the header these bindings were generated from: every id as it is.
    pub fn newest() -> FieldNumbering {
        FieldNumbering { header: HEADER_VERSION, table: &SAME }
    }

    /// The numbering of the driver whose `nvmlSystemGetDriverVersion` is `version`, or `None`
    /// when that is not a driver version. The driver's branch (its major version) picks
    /// the published headers of that branch, and the newest of them whose first driver is not
    /// after `version` numbers its fields (580.65.06 → 13.0.39's numbers, 580.82.07 →
    /// 13.0.87's); a driver older than its branch's first header gets that header's numbers. A
    /// branch without a header gets the newest header of an older branch (565 → R560's); a
    /// driver newer than every known branch gets [`FieldNumbering::newest`].
    pub fn for_driver(version: &str) -> Option<FieldNumbering> {
        let v = parse_driver_version(version)?;
        let known = || HEADERS.iter().filter_map(|(h, d, n)| d.map(|d| (*h, d, *n)));
        let Some(newest_branch) = known().map(|(_, d, _)| d[0]).max() else {
            return Some(FieldNumbering::newest());
        };
        if v[0] > newest_branch {
            return Some(FieldNumbering::newest());
        }
        let mut pick = None;
        for (h, d, n) in known().filter(|(_, d, _)| d[0] == v[0]) {
            if pick.is_none() || d <= v {
                pick = Some((h, n));
            }
        }
        if pick.is_none() {
            pick = known().filter(|(_, d, _)| d[0] < v[0]).map(|(h, _, n)| (h, n)).next_back();
        }
        let (header, n) = pick.or_else(|| HEADERS.first().map(|(h, _, n)| (*h, *n)))?;
        Some(FieldNumbering { header, table: NUMBERINGS.get(n).unwrap_or(&SAME) })
    }

    /// The published header whose numbering this is.
    pub fn header(&self) -> &'static str {
        self.header
    }

    /// The number to send the driver for field `id` (this crate's number); `None` when the
    /// driver's header has no such field. An id the generated header does not name is sent
    /// as it is.
    pub fn to_driver(&self, id: u32) -> Option<u32> {
        if self.table.absent.binary_search(&id).is_ok() {
            return None;
        }
        match self.table.moved.binary_search_by_key(&id, |p| p.0) {
            Ok(i) => Some(self.table.moved[i].1),
            Err(_) => Some(id),
        }
    }

    /// Whether the driver's header has field `id` (this crate's number): `false` for a field
    /// [`FieldNumbering::to_driver`] refuses and for one it sends as it is although the header
    /// lacks it (a later driver of the branch may know it, as 580.159.04 answers fields of 13.x
    /// headers after 13.0.87, whose numbering it is matched with).
    pub fn has(&self, id: u32) -> bool {
        self.table.absent.binary_search(&id).is_err() && self.table.later.binary_search(&id).is_err()
    }

    /// This crate's number for field `id` as the driver numbers it; `None` when the generated
    /// header has no field of that number in the driver (the id names, in the driver, a field
    /// the generated header numbers differently and no field takes its place).
    pub fn from_driver(&self, id: u32) -> Option<u32> {
        if let Ok(i) = self.table.back.binary_search_by_key(&id, |p| p.0) {
            return Some(self.table.back[i].1);
        }
        let gone =
            self.table.absent.binary_search(&id).is_ok() || self.table.moved.binary_search_by_key(&id, |p| p.0).is_ok();
        (!gone).then_some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generated::*;

    const ENABLED: u32 = NVML_FI_PWR_SMOOTHING_ENABLED as u32;
    const MIG_QUERY: u32 = NVML_FI_DEV_IS_MIG_MODE_INDEPENDENT_MIG_QUERY_CAPABLE as u32;

    fn on(driver: &str) -> FieldNumbering {
        FieldNumbering::for_driver(driver).unwrap()
    }

    /// The facts of the headers' text: each driver's number for two moved fields.
    #[test]
    fn moved_fields_have_each_drivers_number() {
        assert_eq!((ENABLED, MIG_QUERY), (251, 199), "13.5.37's numbers");
        for (driver, header, enabled, mig) in [
            ("550.54.15", "12.4.127", None, Some(199)),
            ("555.42.06", "12.5.82", None, Some(200)),
            ("560.35.03", "12.6.77", None, Some(200)),
            ("570.124.06", "12.8.90", Some(251), Some(199)),
            ("570.195.03", "12.8.90", Some(251), Some(199)),
            ("575.57.08", "12.9.79", Some(256), Some(199)),
            ("580.65.06", "13.0.39", Some(256), Some(199)),
            ("580.76.05", "13.0.39", Some(256), Some(199)),
            ("580.82.07", "13.0.87", Some(251), Some(199)),
            ("580.95.05", "13.0.87", Some(251), Some(199)),
        ] {
            let n = on(driver);
            assert_eq!(n.header(), header, "{driver}");
            assert_eq!(n.to_driver(ENABLED), enabled, "{driver}");
            assert_eq!(n.to_driver(MIG_QUERY), mig, "{driver}");
            if let Some(e) = enabled {
                assert_eq!(n.from_driver(e), Some(ENABLED), "{driver}");
            }
        }
        // A field newer than the driver's header whose number no header gives another field is
        // sent as it is: 580.159.04 (matched with 13.0.87) answers NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR
        // (275, first numbered by a later header), as the differential test's run on that driver showed.
        let late = on("580.159.04");
        for id in [NVML_FI_DEV_EDPP_MULTIPLIER as u32, NVML_FI_PWR_SMOOTHING_PRIMARY_POWER_FLOOR as u32] {
            assert_eq!((late.to_driver(id), late.from_driver(id), late.has(id)), (Some(id), Some(id), false));
        }
        // But not one whose number meant another field somewhere: R550 never gets 251.
        assert!(!on("550.54.15").has(ENABLED));
        // On R555/R560, 199 is NVML_FI_DEV_NVLINK_GET_POWER_THRESHOLD_MAX (200 from R570).
        let r560 = on("560.35.03");
        assert_eq!(r560.from_driver(199), Some(NVML_FI_DEV_NVLINK_GET_POWER_THRESHOLD_MAX as u32));
        assert_eq!(r560.from_driver(200), Some(MIG_QUERY));
        // On R575, 251 is the SW thermal slowdown field, which 13.5.37 numbers 269.
        assert_eq!(on("575.51.03").from_driver(251), Some(NVML_FI_DEV_CLOCKS_EVENT_REASON_SW_THERM_SLOWDOWN as u32));
        // An id no header names passes as it is.
        assert_eq!(on("575.51.03").to_driver(5000), Some(5000));
    }

    #[test]
    fn branches_without_a_header_and_odd_versions() {
        assert_eq!(on("565.57.01").header(), "12.6.77", "R565 has no toolkit: R560's numbers");
        assert_eq!(on("510.47.03").header(), "11.7.91", "older than the corpus: the oldest");
        assert_eq!(on("999.1").header(), HEADER_VERSION);
        assert_eq!(on("570.20").header(), "12.8.55", "before its branch's first header: that header");
        for bad in ["", "r575", "575.57.08.1", "575..1", "575.x", " "] {
            assert!(FieldNumbering::for_driver(bad).is_none(), "{bad:?}");
        }
        assert_eq!(parse_driver_version(" 575.57.08\n"), Some([575, 57, 8]));
        let n = FieldNumbering::newest();
        assert_eq!((n.to_driver(ENABLED), n.from_driver(256)), (Some(ENABLED), Some(256)));
    }
}
