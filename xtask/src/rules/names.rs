//! Rust names for C names: snake-case methods and parameters, CamelCase types, and the
//! constant names of enums and bitflags.

/// `GetBAR1MemoryInfo` → `get_bar1_memory_info`; `pciBusId` → `pci_bus_id`.
pub fn snake(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    let mut out = String::with_capacity(name.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' {
            if !out.ends_with('_') && !out.is_empty() {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = prev.is_ascii_lowercase()
                || (prev.is_ascii_digit() && next_lower)
                || (prev.is_ascii_uppercase() && next_lower);
            if boundary && !out.ends_with('_') {
                out.push('_');
            }
        }
        out.push(c.to_ascii_lowercase());
    }
    out.trim_end_matches('_').to_string()
}

/// A snake-case name in CamelCase: `device_queries` → `DeviceQueries`, `ecc_mode` → `EccMode`.
pub fn camel(snake_case: &str) -> String {
    snake_case.split('_').filter(|w| !w.is_empty()).map(|w| w[..1].to_ascii_uppercase() + &w[1..]).collect()
}

/// `nvmlMemory_v2_t` → `MemoryV2`; `nvmlGpmMetric_t_metricInfo` → `GpmMetricMetricInfo`.
pub fn type_name(c_name: &str) -> String {
    let s = c_name.strip_prefix("nvml").unwrap_or(c_name);
    let mut s = s;
    for suffix in ["_t", "_st", "_struct", "_enum", "_union"] {
        if let Some(rest) = s.strip_suffix(suffix) {
            s = rest;
            break;
        }
    }
    let mut out = String::new();
    for seg in s.split('_').filter(|seg| !seg.is_empty() && *seg != "t" && *seg != "st") {
        let mut cs = seg.chars();
        if let Some(first) = cs.next() {
            out.push(first.to_ascii_uppercase());
            out.extend(cs);
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'T');
    }
    out
}

/// The constant names of an enum (or flag set) with the values' common prefix removed at an
/// `_` boundary: `NVML_CLOCK_GRAPHICS` → `GRAPHICS`. A name that would start with a digit or
/// be empty keeps one more segment: `NVML_PCIE_LINK_MAX_SPEED_2500MBPS` → `SPEED_2500MBPS`.
pub fn constant_names(names: &[&str]) -> Vec<String> {
    let prefix_len = match names {
        [] => 0,
        [one] => one.find('_').map(|i| i + 1).unwrap_or(0),
        _ => {
            let first = names[0];
            let mut len = first.len();
            for n in &names[1..] {
                len = len.min(first.bytes().zip(n.bytes()).take_while(|(a, b)| a == b).count());
            }
            first[..len].rfind('_').map(|i| i + 1).unwrap_or(0)
        }
    };
    names
        .iter()
        .map(|n| {
            let mut start = prefix_len.min(n.len());
            while start > 0 && (n[start..].is_empty() || n[start..].starts_with(|c: char| c.is_ascii_digit())) {
                start = n[..start - 1].rfind('_').map(|i| i + 1).unwrap_or(0);
            }
            screaming(&n[start..])
        })
        .collect()
}

/// The name in its type of a constant of a `bitflags` or `values` rule: what follows the rule's
/// prefix, keeping one more `_` segment where that would start with a digit or be empty, as
/// [`constant_names`] does (`NVML_PCIE_LINK_MAX_SPEED_2500MBPS` → `SPEED_2500MBPS`).
pub fn prefixed_name(constant: &str, prefix: &str) -> String {
    let rest = constant.strip_prefix(prefix).unwrap_or(constant).trim_start_matches('_');
    let mut start = constant.len() - rest.len();
    while start > 0 && (constant[start..].is_empty() || constant[start..].starts_with(|c: char| c.is_ascii_digit())) {
        start = constant[..start - 1].rfind('_').map(|i| i + 1).unwrap_or(0);
    }
    screaming(&constant[start..])
}

/// `XidCriticalError` → `XID_CRITICAL_ERROR`; `GPU_IS_LOST` stays.
pub fn screaming(name: &str) -> String {
    if name.chars().all(|c| !c.is_ascii_lowercase()) {
        return name.to_string();
    }
    snake(name).to_ascii_uppercase()
}

/// `GPU_IS_LOST` → `GpuIsLost`.
pub fn camel_from_screaming(name: &str) -> String {
    name.split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let lower = s.to_ascii_lowercase();
            let mut cs = lower.chars();
            match cs.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + cs.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case() {
        assert_eq!(snake("GetBAR1MemoryInfo"), "get_bar1_memory_info");
        assert_eq!(snake("pciBusId"), "pci_bus_id");
        assert_eq!(snake("GetUUID"), "get_uuid");
        assert_eq!(snake("GetMPSComputeRunningProcesses"), "get_mps_compute_running_processes");
        assert_eq!(snake("GetNvLinkRemotePciInfo_v2"), "get_nv_link_remote_pci_info_v2");
        assert_eq!(snake("GetHandleByUUIDV"), "get_handle_by_uuidv");
        assert_eq!(snake("GetPcieThroughput"), "get_pcie_throughput");
    }

    #[test]
    fn type_names() {
        assert_eq!(type_name("nvmlMemory_v2_t"), "MemoryV2");
        assert_eq!(type_name("nvmlPciInfo_t"), "PciInfo");
        assert_eq!(type_name("nvmlGpmMetric_t_metricInfo"), "GpmMetricMetricInfo");
        assert_eq!(type_name("nvmlValue_st"), "Value");
    }

    #[test]
    fn constants() {
        assert_eq!(constant_names(&["NVML_CLOCK_GRAPHICS", "NVML_CLOCK_SM"]), ["GRAPHICS", "SM"]);
        assert_eq!(
            constant_names(&["NVML_SPEED_2500MBPS", "NVML_SPEED_5000MBPS"]),
            ["SPEED_2500MBPS", "SPEED_5000MBPS"]
        );
        assert_eq!(constant_names(&["NVML_FEATURE_DISABLED"]), ["FEATURE_DISABLED"]);
        assert_eq!(screaming("XidCriticalError"), "XID_CRITICAL_ERROR");
        assert_eq!(prefixed_name("NVML_PCIE_LINK_MAX_SPEED_2500MBPS", "NVML_PCIE_LINK_MAX_SPEED_"), "SPEED_2500MBPS");
        assert_eq!(prefixed_name("NVML_PCIE_LINK_MAX_SPEED_INVALID", "NVML_PCIE_LINK_MAX_SPEED_"), "INVALID");
        assert_eq!(prefixed_name("nvmlEventTypeXidCriticalError", "nvmlEventType"), "XID_CRITICAL_ERROR");
        assert_eq!(prefixed_name("NVML_BUS_TYPE_", "NVML_BUS_TYPE_"), "TYPE_");
        assert_eq!(camel_from_screaming("GPU_IS_LOST"), "GpuIsLost");
    }
}
