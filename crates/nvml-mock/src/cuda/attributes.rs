//! `cuDeviceGetAttribute`: every `CUdevice_attribute` of `cuda.h` for a device, from what NVML
//! answers of it (compute capability, multiprocessors, clocks, memory bus, PCI ids, ECC,
//! compute mode, board) and, for what NVML does not tell, from the architecture and the GPU.
//!
//! Sources of the values NVML does not answer: NVIDIA's CUDA C++ Programming Guide, "Compute
//! Capabilities" (Table "Technical Specifications per Compute Capability": threads, blocks,
//! registers, shared memory per multiprocessor and block, grid and texture limits), and the
//! architecture whitepapers and datasheets of each GPU (T4, A100, L40S, H100/H200, B200/GB200)
//! for the L2 cache and the FP32 : FP64 ratio. The CUDA cores per multiprocessor (64 for
//! compute capability 7.5 and 8.0, 128 for 8.9, 9.0 and 10.0, from the same guide) turn
//! NVML's core count into multiprocessors. An attribute none of these give answers 0 (a
//! feature the mock does not model, such as a Windows interop handle type); the README lists
//! them.

use super::nvml::NvmlDevice;
use crate::generated::cuda::names::DEVICE_ATTRIBUTES;
use crate::generated::cuda::types::CUDA_ERROR_INVALID_VALUE;

/// The architecture's figures the CUDA programming guide gives per compute capability.
#[derive(Debug, Clone, Copy)]
struct Arch {
    cores_per_sm: u32,
    threads_per_sm: i32,
    blocks_per_sm: i32,
    /// Shared memory per multiprocessor, and the most a block may opt in to, bytes.
    shared_per_sm: i32,
    shared_optin: i32,
    /// Shared memory the system reserves per block, bytes.
    reserved_shared: i32,
}

fn arch(cc: (i32, i32)) -> Arch {
    let a = |cores_per_sm, threads_per_sm, blocks_per_sm, shared_per_sm, shared_optin, reserved_shared| Arch {
        cores_per_sm,
        threads_per_sm,
        blocks_per_sm,
        shared_per_sm,
        shared_optin,
        reserved_shared,
    };
    match cc {
        (7, 5) => a(64, 1024, 16, 65536, 65536, 0),
        (8, 0) => a(64, 2048, 32, 167_936, 166_912, 1024),
        (8, 6) | (8, 7) => a(128, 1536, 16, 102_400, 101_376, 1024),
        (8, 9) => a(128, 1536, 24, 102_400, 101_376, 1024),
        (9, _) | (10, _) | (12, _) => a(128, 2048, 32, 233_472, 232_448, 1024),
        (m, _) if m < 7 => a(64, 2048, 32, 98_304, 49_152, 0),
        _ => a(128, 2048, 32, 233_472, 232_448, 1024),
    }
}

/// The L2 cache (bytes) and the FP32 : FP64 throughput ratio of a GPU, by its name, from its
/// datasheet or whitepaper; by architecture for another GPU.
fn product(name: &str, cc: (i32, i32)) -> (i32, i32) {
    const MIB: i32 = 1 << 20;
    let n = name.to_ascii_uppercase();
    match () {
        _ if n.contains("T4") => (4 * MIB, 32),
        _ if n.contains("A100") => (40 * MIB, 2),
        _ if n.contains("L40") => (96 * MIB, 64),
        _ if n.contains("H100") || n.contains("H200") || n.contains("GH200") => (50 * MIB, 2),
        _ if n.contains("B200") || n.contains("GB200") => (126 * MIB, 2),
        _ => match cc {
            (7, 5) => (4 * MIB, 32),
            (8, 0) => (40 * MIB, 2),
            (8, _) => (96 * MIB, 64),
            (9, _) => (50 * MIB, 2),
            _ => (126 * MIB, 2),
        },
    }
}

/// The multiprocessors of a device: its MIG compute instance's, else NVML's cores over the
/// architecture's cores per multiprocessor.
pub fn multiprocessors(d: &NvmlDevice) -> u32 {
    let cc = d.compute_capability.unwrap_or((9, 0));
    d.multiprocessors.unwrap_or_else(|| d.cores.map(|c| c / arch(cc).cores_per_sm.max(1)).unwrap_or(0))
}

/// The answer of every attribute, indexed by its `CUdevice_attribute` number
/// (`CUDA_ERROR_INVALID_VALUE`: not an attribute, such as `CU_DEVICE_ATTRIBUTE_MAX`).
pub fn table(d: &NvmlDevice, host_numa: i32) -> Vec<Result<i32, u32>> {
    let max = DEVICE_ATTRIBUTES.iter().map(|(v, _)| *v).max().unwrap_or(0).max(0) as usize;
    let mut out = vec![Err(CUDA_ERROR_INVALID_VALUE); max + 1];
    for (v, name) in DEVICE_ATTRIBUTES {
        let Some(short) = name.strip_prefix("CU_DEVICE_ATTRIBUTE_") else { continue };
        let Ok(i) = usize::try_from(*v) else { continue };
        out[i] = match value(short, d, host_numa) {
            Lookup::Value(v) => Ok(v),
            Lookup::Unmodelled => Ok(0),
            Lookup::NotAttribute => Err(CUDA_ERROR_INVALID_VALUE),
        };
    }
    out
}

/// What [`value`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lookup {
    Value(i32),
    /// An attribute the mock does not model: it answers 0.
    Unmodelled,
    /// `CU_DEVICE_ATTRIBUTE_MAX`, which only bounds the enum.
    NotAttribute,
}

/// One attribute (its name without `CU_DEVICE_ATTRIBUTE_`).
fn value(name: &str, d: &NvmlDevice, host_numa: i32) -> Lookup {
    let cc = d.compute_capability.unwrap_or((0, 0));
    let a = arch(cc);
    let (l2, fp64_ratio) = product(&d.name, cc);
    let hopper = cc.0 >= 9;
    let ampere = cc.0 >= 8;
    let yes = |b: bool| i32::from(b);
    let khz = |mhz: Result<u32, _>| mhz.map(|m| (m as i32).saturating_mul(1000)).unwrap_or(0);
    Lookup::Value(match name {
        "MAX" => return Lookup::NotAttribute,
        "MAX_THREADS_PER_BLOCK" => 1024,
        "MAX_BLOCK_DIM_X" | "MAX_BLOCK_DIM_Y" => 1024,
        "MAX_BLOCK_DIM_Z" => 64,
        "MAX_GRID_DIM_X" => i32::MAX,
        "MAX_GRID_DIM_Y" | "MAX_GRID_DIM_Z" => 65535,
        "MAX_SHARED_MEMORY_PER_BLOCK" | "SHARED_MEMORY_PER_BLOCK" => 49152,
        "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN" => a.shared_optin,
        "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR" => a.shared_per_sm,
        "RESERVED_SHARED_MEMORY_PER_BLOCK" => a.reserved_shared,
        "MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK" => 0,
        "TOTAL_CONSTANT_MEMORY" => 65536,
        "WARP_SIZE" => 32,
        "MAX_PITCH" => i32::MAX,
        "MAX_REGISTERS_PER_BLOCK" | "REGISTERS_PER_BLOCK" | "MAX_REGISTERS_PER_MULTIPROCESSOR" => 65536,
        "CLOCK_RATE" => khz(d.sm_clock),
        "MEMORY_CLOCK_RATE" => khz(d.mem_clock),
        "GLOBAL_MEMORY_BUS_WIDTH" => d.bus_width.map(|w| w as i32).unwrap_or(0),
        "L2_CACHE_SIZE" => l2,
        "MAX_PERSISTING_L2_CACHE_SIZE" if ampere => l2 / 4 * 3,
        "MAX_ACCESS_POLICY_WINDOW_SIZE" if ampere => 134_213_632,
        "MAX_PERSISTING_L2_CACHE_SIZE" | "MAX_ACCESS_POLICY_WINDOW_SIZE" => 0,
        "TEXTURE_ALIGNMENT" => 512,
        "TEXTURE_PITCH_ALIGNMENT" => 32,
        "SURFACE_ALIGNMENT" => 512,
        "GPU_OVERLAP" | "CONCURRENT_KERNELS" | "CAN_MAP_HOST_MEMORY" | "UNIFIED_ADDRESSING" | "MANAGED_MEMORY" => 1,
        "MULTIPROCESSOR_COUNT" => multiprocessors(d) as i32,
        "MAX_THREADS_PER_MULTIPROCESSOR" => a.threads_per_sm,
        "MAX_BLOCKS_PER_MULTIPROCESSOR" => a.blocks_per_sm,
        "KERNEL_EXEC_TIMEOUT" | "INTEGRATED" | "TCC_DRIVER" => 0,
        "COMPUTE_MODE" => d.compute_mode.map(|m| m as i32).unwrap_or(0),
        "ECC_ENABLED" => yes(d.ecc.unwrap_or(false)),
        "PCI_BUS_ID" => d.pci.bus as i32,
        "PCI_DEVICE_ID" => d.pci.device as i32,
        "PCI_DOMAIN_ID" => d.pci.domain as i32,
        "GPU_PCI_DEVICE_ID" => d.pci.pciDeviceId as i32,
        "GPU_PCI_SUBSYSTEM_ID" => d.pci.pciSubSystemId as i32,
        "ASYNC_ENGINE_COUNT" => match cc {
            (8, 9) => 2,
            _ => 3,
        },
        "COMPUTE_CAPABILITY_MAJOR" => cc.0,
        "COMPUTE_CAPABILITY_MINOR" => cc.1,
        "STREAM_PRIORITIES_SUPPORTED" | "GLOBAL_L1_CACHE_SUPPORTED" | "LOCAL_L1_CACHE_SUPPORTED" => 1,
        "MULTI_GPU_BOARD" => yes(d.multi_gpu_board.unwrap_or(false)),
        "MULTI_GPU_BOARD_GROUP_ID" => d.board_id.map(|b| b as i32).unwrap_or(0),
        "SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO" => fp64_ratio,
        "HOST_NATIVE_ATOMIC_SUPPORTED" | "PAGEABLE_MEMORY_ACCESS" | "PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES" => {
            yes(d.name.contains("GH200") || d.name.contains("GB200"))
        }
        "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST" => yes(d.name.contains("GH200") || d.name.contains("GB200")),
        "CONCURRENT_MANAGED_ACCESS" | "COMPUTE_PREEMPTION_SUPPORTED" | "COOPERATIVE_LAUNCH" => 1,
        "COOPERATIVE_MULTI_DEVICE_LAUNCH" => 0,
        "CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM" | "HOST_REGISTER_SUPPORTED" | "READ_ONLY_HOST_REGISTER_SUPPORTED" => {
            1
        }
        "CAN_USE_STREAM_MEM_OPS_V1" | "CAN_USE_64_BIT_STREAM_MEM_OPS_V1" | "CAN_USE_STREAM_WAIT_VALUE_NOR_V1" => 0,
        "CAN_USE_64_BIT_STREAM_MEM_OPS" | "CAN_USE_STREAM_WAIT_VALUE_NOR" => 1,
        "CAN_FLUSH_REMOTE_WRITES" => 0,
        "VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED" | "VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED" => 1,
        "HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED" => 1,
        "HANDLE_TYPE_WIN32_HANDLE_SUPPORTED" | "HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED" => 0,
        "HANDLE_TYPE_FABRIC_SUPPORTED" => yes(hopper),
        "GENERIC_COMPRESSION_SUPPORTED" => yes(ampere),
        "GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED" | "GPU_DIRECT_RDMA_SUPPORTED" => 1,
        // CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST | _MEMOPS, and ordering to the owner.
        "GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS" => 3,
        "GPU_DIRECT_RDMA_WRITES_ORDERING" => 100,
        "SPARSE_CUDA_ARRAY_SUPPORTED" | "TIMELINE_SEMAPHORE_INTEROP_SUPPORTED" | "MEMORY_POOLS_SUPPORTED" => 1,
        // CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR.
        "MEMPOOL_SUPPORTED_HANDLE_TYPES" => 1,
        "CLUSTER_LAUNCH" | "TENSOR_MAP_ACCESS_SUPPORTED" => yes(hopper),
        "DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED" | "IPC_EVENT_SUPPORTED" => 1,
        "DMA_BUF_SUPPORTED" => 1,
        "MEM_SYNC_DOMAIN_COUNT" => {
            if hopper {
                4
            } else {
                1
            }
        }
        "UNIFIED_FUNCTION_POINTERS" => 1,
        "NUMA_CONFIG" => 0,
        "NUMA_ID" => -1,
        "MULTICAST_SUPPORTED" => yes(hopper),
        "MPS_ENABLED" => 0,
        "HOST_NUMA_ID" => host_numa,
        "MAXIMUM_TEXTURE1D_WIDTH" => 131_072,
        "MAXIMUM_TEXTURE2D_WIDTH" => 131_072,
        "MAXIMUM_TEXTURE2D_HEIGHT" => 65536,
        "MAXIMUM_TEXTURE3D_WIDTH" | "MAXIMUM_TEXTURE3D_HEIGHT" | "MAXIMUM_TEXTURE3D_DEPTH" => 16384,
        "MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE" | "MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE" => 8192,
        "MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE" => 32768,
        "MAXIMUM_TEXTURE2D_LAYERED_WIDTH" | "MAXIMUM_TEXTURE2D_ARRAY_WIDTH" => 32768,
        "MAXIMUM_TEXTURE2D_LAYERED_HEIGHT" | "MAXIMUM_TEXTURE2D_ARRAY_HEIGHT" => 32768,
        "MAXIMUM_TEXTURE2D_LAYERED_LAYERS" | "MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES" => 2048,
        "MAXIMUM_TEXTURE1D_LAYERED_WIDTH" => 32768,
        "MAXIMUM_TEXTURE1D_LAYERED_LAYERS" => 2048,
        "CAN_TEX2D_GATHER" => 1,
        "MAXIMUM_TEXTURE2D_GATHER_WIDTH" | "MAXIMUM_TEXTURE2D_GATHER_HEIGHT" => 32768,
        "MAXIMUM_TEXTURECUBEMAP_WIDTH" | "MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH" => 32768,
        "MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS" => 2046,
        "MAXIMUM_SURFACE1D_WIDTH" | "MAXIMUM_SURFACE2D_WIDTH" => 32768,
        "MAXIMUM_SURFACE2D_HEIGHT" => 65536,
        "MAXIMUM_SURFACE3D_WIDTH" | "MAXIMUM_SURFACE3D_HEIGHT" | "MAXIMUM_SURFACE3D_DEPTH" => 16384,
        "MAXIMUM_SURFACE1D_LAYERED_WIDTH" => 32768,
        "MAXIMUM_SURFACE1D_LAYERED_LAYERS" => 2048,
        "MAXIMUM_SURFACE2D_LAYERED_WIDTH" | "MAXIMUM_SURFACE2D_LAYERED_HEIGHT" => 32768,
        "MAXIMUM_SURFACE2D_LAYERED_LAYERS" => 2048,
        "MAXIMUM_SURFACECUBEMAP_WIDTH" | "MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH" => 32768,
        "MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS" => 2046,
        "MAXIMUM_TEXTURE1D_LINEAR_WIDTH" => 268_435_456,
        "MAXIMUM_TEXTURE2D_LINEAR_WIDTH" | "MAXIMUM_TEXTURE2D_LINEAR_HEIGHT" => 131_072,
        "MAXIMUM_TEXTURE2D_LINEAR_PITCH" => 2_097_120,
        "MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH" => 32768,
        "MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT" => 32768,
        "MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH" => 32768,
        _ => return Lookup::Unmodelled,
    })
}

/// The attributes the mock does not model (each answers 0), by name without
/// `CU_DEVICE_ATTRIBUTE_`: for the README, which lists them.
#[cfg(test)]
pub fn unmodelled(d: &NvmlDevice) -> Vec<&'static str> {
    DEVICE_ATTRIBUTES
        .iter()
        .filter_map(|(_, n)| n.strip_prefix("CU_DEVICE_ATTRIBUTE_"))
        .filter(|n| value(n, d, 0) == Lookup::Unmodelled)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device as NVML answers it for an H100, for the tables' tests.
    fn h100() -> NvmlDevice {
        // SAFETY: `nvmlPciInfo_t` is plain C data, valid all zero.
        let mut pci: nvml_sys::nvmlPciInfo_t = unsafe { std::mem::zeroed() };
        (pci.domain, pci.bus, pci.device, pci.pciDeviceId) = (0, 0x18, 0, 0x2330_10de);
        NvmlDevice {
            index: 0,
            mig: None,
            handle: 0,
            name: "NVIDIA H100 80GB HBM3".into(),
            uuid: "GPU-74106407-f32f-0663-90a7-a1acf7eb04ae".into(),
            pci,
            memory: Ok((85_520_809_984, 0)),
            compute_capability: Ok((9, 0)),
            cores: Ok(16896),
            sm_clock: Ok(1980),
            mem_clock: Ok(2619),
            bus_width: Ok(5120),
            ecc: Ok(true),
            compute_mode: Ok(0),
            multi_gpu_board: Ok(false),
            board_id: Ok(6400),
            multiprocessors: None,
        }
    }

    #[test]
    fn an_h100_has_the_figures_of_its_datasheet() {
        let t = table(&h100(), 0);
        let a = |name: &str| {
            let (v, _) = DEVICE_ATTRIBUTES.iter().find(|(_, n)| *n == name).unwrap();
            t[*v as usize]
        };
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT"), Ok(132));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_CLOCK_RATE"), Ok(1_980_000));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH"), Ok(5120));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE"), Ok(50 << 20));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"), Ok(9));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_PCI_BUS_ID"), Ok(0x18));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN"), Ok(232_448));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH"), Ok(1));
        assert_eq!(a("CU_DEVICE_ATTRIBUTE_MAX"), Err(CUDA_ERROR_INVALID_VALUE));
    }

    #[test]
    fn the_readme_lists_the_attributes_the_mock_does_not_model() {
        let readme = include_str!("../../README.md");
        let listed: Vec<String> = unmodelled(&h100()).iter().map(|n| format!("`{n}`")).collect();
        let line = format!("Attributes the mock does not model (each answers 0): {}.", listed.join(", "));
        assert!(readme.replace('\n', " ").contains(&line), "the README should say:\n{line}");
    }
}
