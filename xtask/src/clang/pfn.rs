//! `cudaTypedefs.h`'s function-pointer typedefs, `PFN_cuX_vNNNNN[_ptds|_ptsz]`: the CUDA
//! version from which each ABI version of a driver function stands, which `cuGetProcAddress`
//! chooses by. Only the names are read (as text, line by line): their signatures are `cuda.h`'s,
//! which libclang parses. Each typedef sits on one line of the header; a line that names a
//! `PFN_` typedef in another form is an error naming the line.

use std::collections::BTreeMap;

use crate::diag::Diagnostics;

/// One typedef: `PFN_{base}_v{version}{suffix}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pfn {
    pub base: String,
    /// `1000 * major + 10 * minor`, as `cuGetProcAddress` takes it.
    pub version: i32,
    /// `_ptds` or `_ptsz` for a per-thread default stream's variant, else empty.
    pub suffix: String,
    pub line: usize,
}

/// The `PFN_` typedefs of `text` (the header at `display`), in the header's order.
pub fn read(text: &str, display: &str, d: &mut Diagnostics) -> Vec<Pfn> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if !t.starts_with("typedef") || !t.contains("PFN_") {
            continue;
        }
        let place = format!("{display}:{}", i + 1);
        match parse(t) {
            Some((base, version, suffix)) => out.push(Pfn { base, version, suffix, line: i + 1 }),
            None => d.error(place, format!("a `PFN_` typedef not of the form `(CUDAAPI *PFN_cuX_vN)(…)`: {t}")),
        }
    }
    out
}

/// `typedef R (CUDAAPI *PFN_{base}_v{version}{suffix})(…);` → its three parts.
fn parse(line: &str) -> Option<(String, i32, String)> {
    let name = line.split("(CUDAAPI *PFN_").nth(1)?.split(')').next()?;
    let (name, suffix) = match name.strip_suffix("_ptds").or_else(|| name.strip_suffix("_ptsz")) {
        Some(n) => (n, &name[n.len()..]),
        None => (name, ""),
    };
    let (base, version) = name.rsplit_once("_v")?;
    let valid = base.starts_with("cu") && base.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let version: i32 = version.parse().ok().filter(|v| *v >= 1000)?;
    valid.then(|| (base.to_string(), version, suffix.to_string()))
}

/// Each function's ABI versions from `pfns`, oldest first: `(version, export)`, where the first
/// version's export is the base name and the k-th's `{base}_v{k}` (the scheme NVIDIA's
/// programming guide gives, "Driver Function Typedefs"). Per-thread variants are left out: a
/// version's `_ptds`/`_ptsz` export is its export with the suffix.
pub fn versions(pfns: &[Pfn]) -> BTreeMap<String, Vec<(i32, String)>> {
    let mut by_base: BTreeMap<String, Vec<i32>> = BTreeMap::new();
    for p in pfns.iter().filter(|p| p.suffix.is_empty()) {
        by_base.entry(p.base.clone()).or_default().push(p.version);
    }
    by_base
        .into_iter()
        .map(|(base, mut vs)| {
            vs.sort_unstable();
            vs.dedup();
            let exports = vs
                .iter()
                .enumerate()
                .map(|(k, v)| (*v, if k == 0 { base.clone() } else { format!("{base}_v{}", k + 1) }))
                .collect();
            (base, exports)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_versions_are_read_and_numbered_as_the_exports_are() {
        let text = "\
typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v3020)(CUdeviceptr_v2 *dptr, size_t bytesize);
typedef CUresult (CUDAAPI *PFN_cuMemcpyHtoD_v7000_ptds)(CUdeviceptr_v2 dstDevice, const void *srcHost, size_t ByteCount);
    typedef CUresult (CUDAAPI *PFN_cuMemAlloc_v2000)(CUdeviceptr_v1 *dptr, unsigned int bytesize);
#define PFN_cuMemAlloc  PFN_cuMemAlloc_v3020
typedef CUresult (CUDAAPI *PFN_cuInit_v2000)(unsigned int Flags);
";
        let mut d = Diagnostics::new("parse");
        let pfns = read(text, "t.h", &mut d);
        assert_eq!(pfns.len(), 4);
        assert_eq!(pfns[1], Pfn { base: "cuMemcpyHtoD".into(), version: 7000, suffix: "_ptds".into(), line: 2 });
        let v = versions(&pfns);
        assert_eq!(v["cuMemAlloc"], vec![(2000, "cuMemAlloc".to_string()), (3020, "cuMemAlloc_v2".to_string())]);
        assert_eq!(v["cuInit"], vec![(2000, "cuInit".to_string())]);
        assert!(!v.contains_key("cuMemcpyHtoD"), "a per-thread variant alone is no version: {v:?}");
        assert!(d.items().is_empty(), "{:?}", d.items());
    }

    #[test]
    fn a_typedef_of_another_form_is_an_error_naming_its_line() {
        let mut d = Diagnostics::new("parse");
        let pfns = read("typedef int x;\ntypedef CUresult (*PFN_cuInit)(unsigned int);\n", "t.h", &mut d);
        assert!(pfns.is_empty());
        let places: Vec<&str> = d.items().iter().map(|i| i.place.as_str()).collect();
        assert_eq!(places, ["t.h:2"]);
        assert!(d.has_errors());
    }
}
