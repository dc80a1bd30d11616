//! Workspace-level tests.
//!
//! Each fixture's expected generator output (`tests/fixtures/<case>/expected/`) is mounted
//! here in the module layout of nvml-sys, next to nvml-sys's own hand-written loader and
//! macros, so a golden that does not compile — layout assertions included — fails the build.

/// The goldens of `tests/fixtures/basic`.
#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals, dead_code, deprecated, clippy::all)]
pub mod basic;

#[cfg(test)]
mod tests {
    use super::basic::*;

    #[test]
    fn golden_constants_and_layouts_have_header_values() {
        assert_eq!(nvmlMemory_v2, 40 | 2 << 24);
        assert_eq!(NVML_VALUE_NOT_AVAILABLE, -1);
        assert_eq!(NVML_BIG_MASK, 0x8000_0000_0000_0000);
        assert_eq!(NVML_API_VERSION_STR, "13");
        assert_eq!(NVML_FLAG_HIGH, 0x8000_0000);
        assert_eq!(std::mem::size_of::<nvmlMemory_v2_t>(), 40);
        assert_eq!(std::mem::offset_of!(nvmlMemory_v2_t, r#type), 16);
        let m = nvmlMemory_t::default();
        assert_eq!((m.version, m.total), (0, 0));
    }

    #[test]
    fn golden_table_lists_every_function_and_family() {
        assert_eq!(
            SYMBOLS.len(),
            14,
            "the fixture declares 14 functions (nvmlDeviceGetProcessList and nvmlDeviceGetSlotList are the lists inside records)"
        );
        assert!(SYMBOLS.windows(2).all(|w| w[0] < w[1]), "slots are in name order");
        let init = FAMILIES.iter().find(|(api, _)| *api == "nvmlInit").map(|(_, s)| *s);
        assert_eq!(init, Some(&["nvmlInit_v2", "nvmlInit"][..]));
    }

    /// A real shared library without NVML's symbols: every lookup is an `Err` naming what was
    /// asked for, never a panic.
    #[test]
    fn golden_accessors_report_missing_symbols() {
        let lib = NvmlLib::open_path("libc.so.6").expect("libc is loadable");
        let err = lib.nvmlInit_v2().unwrap_err();
        assert_eq!(err.symbol(), "nvmlInit_v2");
        assert_eq!(err.to_string(), "the NVML library does not export `nvmlInit_v2` (it predates that function?)");
        // Cached: the second lookup gives the same answer.
        assert_eq!(lib.nvmlInit_v2().unwrap_err(), err);
        let fam = lib.nvmlInit_newest().unwrap_err();
        assert_eq!(fam.tried(), ["nvmlInit_v2", "nvmlInit"]);
        assert!(!lib.has_symbol("nvmlShutdown"));
        assert!(!lib.has_symbol("not_in_the_header"));
    }
}
