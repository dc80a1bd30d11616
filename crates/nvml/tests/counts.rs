//! Every count method against the list it counts, on the same answers of one C library built
//! here against nvml.h: the size query (NULL arrays, a count of 0) answers what a scenario
//! says, and a fill with enough room answers as many entries as that query said. One answer
//! gives one reading: the count is the list's length, or both are the same error.

mod common;

use common::stub_with_header;
use nvml::sys;
use nvml::*;

/// Every count + array function of the 19 count methods (and the retired pages' v2, which the
/// list reads), answering from one script (after the common prelude: init, device 0 and its
/// GPU instance).
const LISTS: &str = r#"
/* The size query's answer, and whether it writes the count. */
static nvmlReturn_t probe_code;
static unsigned int probe_count, probe_writes;
void stub_script(unsigned int code, unsigned int count, unsigned int writes) {
    probe_code = (nvmlReturn_t)code; probe_count = count; probe_writes = writes;
}
/* The count + array protocol: the size query answers the script; a fill with room for the
   entries it announced writes them (zeros; handles are the device's). */
static nvmlReturn_t answer(unsigned int *count, void *array, size_t size, int handles) {
    unsigned int capacity = *count, i;
    if (!array || capacity == 0) {
        if (probe_writes) *count = probe_count;
        return probe_code;
    }
    *count = probe_count;
    if (capacity < probe_count) return NVML_ERROR_INSUFFICIENT_SIZE;
    memset(array, 0, size * probe_count);
    for (i = 0; handles && i < probe_count; i++) ((nvmlDevice_t *)array)[i] = (nvmlDevice_t)&device;
    return NVML_SUCCESS;
}
#define LIST(name, params, count, array) \
    nvmlReturn_t name params { return answer(count, array, sizeof *(array), 0); }
LIST(nvmlDeviceGetSupportedMemoryClocks, (nvmlDevice_t d, unsigned int *n, unsigned int *a), n, a)
LIST(nvmlDeviceGetSupportedGraphicsClocks, (nvmlDevice_t d, unsigned int m, unsigned int *n, unsigned int *a), n, a)
LIST(nvmlDeviceGetRetiredPages, (nvmlDevice_t d, nvmlPageRetirementCause_t c, unsigned int *n, unsigned long long *a), n, a)
nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t d, nvmlPageRetirementCause_t c, unsigned int *n,
                                          unsigned long long *a, unsigned long long *t) {
    nvmlReturn_t r = answer(n, a, sizeof *a, 0);
    if (r == NVML_SUCCESS && t) memset(t, 0, sizeof *t * *n);
    return r;
}
LIST(nvmlDeviceGetEncoderSessions, (nvmlDevice_t d, unsigned int *n, nvmlEncoderSessionInfo_t *a), n, a)
LIST(nvmlDeviceGetFBCSessions, (nvmlDevice_t d, unsigned int *n, nvmlFBCSessionInfo_t *a), n, a)
LIST(nvmlDeviceGetComputeRunningProcesses_v3, (nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *a), n, a)
LIST(nvmlDeviceGetGraphicsRunningProcesses_v3, (nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *a), n, a)
LIST(nvmlDeviceGetMPSComputeRunningProcesses_v3, (nvmlDevice_t d, unsigned int *n, nvmlProcessInfo_t *a), n, a)
LIST(nvmlDeviceGetAccountingPids, (nvmlDevice_t d, unsigned int *n, unsigned int *a), n, a)
LIST(nvmlDeviceGetGpuInstancePossiblePlacements_v2, (nvmlDevice_t d, unsigned int p, nvmlGpuInstancePlacement_t *a, unsigned int *n), n, a)
LIST(nvmlGpuInstanceGetComputeInstancePossiblePlacements, (nvmlGpuInstance_t g, unsigned int p, nvmlComputeInstancePlacement_t *a, unsigned int *n), n, a)
LIST(nvmlDeviceGetActiveVgpus, (nvmlDevice_t d, unsigned int *n, nvmlVgpuInstance_t *a), n, a)
LIST(nvmlDeviceGetCreatableVgpus, (nvmlDevice_t d, unsigned int *n, nvmlVgpuTypeId_t *a), n, a)
LIST(nvmlDeviceGetSupportedVgpus, (nvmlDevice_t d, unsigned int *n, nvmlVgpuTypeId_t *a), n, a)
LIST(nvmlVgpuInstanceGetAccountingPids, (nvmlVgpuInstance_t v, unsigned int *n, unsigned int *a), n, a)
LIST(nvmlVgpuInstanceGetEncoderSessions, (nvmlVgpuInstance_t v, unsigned int *n, nvmlEncoderSessionInfo_t *a), n, a)
LIST(nvmlVgpuInstanceGetFBCSessions, (nvmlVgpuInstance_t v, unsigned int *n, nvmlFBCSessionInfo_t *a), n, a)
nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t d, nvmlGpuTopologyLevel_t l, unsigned int *n, nvmlDevice_t *a) {
    return answer(n, a, sizeof *a, 1);
}
nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpu, unsigned int *n, nvmlDevice_t *a) {
    return answer(n, a, sizeof *a, 1);
}
"#;

/// What the size query answers in one scenario.
#[derive(Debug, Clone, Copy)]
struct Probe {
    code: sys::nvmlReturn_t,
    /// The count it writes, or `None` when it writes none.
    count: Option<u32>,
}

/// A count method and the length of its list, each as one closure.
type Pair<'a> = (&'static str, Box<dyn Fn() -> Result<u32, Error> + 'a>, Box<dyn Fn() -> Result<u32, Error> + 'a>);

fn len<T>(r: Result<Vec<T>, Error>) -> Result<u32, Error> {
    r.map(|v| v.len() as u32)
}

#[test]
fn every_count_method_agrees_with_its_list() {
    let path = stub_with_header("counted-lists", LISTS);
    let nvml = Nvml::builder().library_path(&path).init().expect("the stub initialises");
    let script = {
        // SAFETY: the stub defines `void stub_script(unsigned int, unsigned int, unsigned int)`.
        let f = unsafe { nvml.lib().library().get::<unsafe extern "C" fn(u32, u32, u32)>(b"stub_script") }
            .expect("the stub exports stub_script");
        move |p: Probe| {
            // SAFETY: as above; the function only stores its arguments.
            unsafe { f(p.code, p.count.unwrap_or(0), p.count.is_some() as u32) }
        }
    };
    let d = nvml.device_by_index(0).expect("device 0");
    let gi = d.gpu_instance_by_id(1).expect("a GPU instance");
    let vgpu = VgpuInstance::from_id(&nvml, 7);
    let retired = PageRetirementCause::MULTIPLE_SINGLE_BIT_ECC_ERRORS;
    let pairs: Vec<Pair<'_>> = vec![
        (
            "Device::supported_memory_clock_count",
            Box::new(|| d.supported_memory_clock_count()),
            Box::new(|| len(d.supported_memory_clocks())),
        ),
        (
            "Device::supported_graphics_clock_count",
            Box::new(|| d.supported_graphics_clock_count(1593)),
            Box::new(|| len(d.supported_graphics_clocks(1593))),
        ),
        (
            "Device::retired_page_count",
            Box::new(|| d.retired_page_count(retired)),
            Box::new(|| len(d.retired_pages(retired))),
        ),
        (
            "Device::topology_nearest_gpu_count",
            Box::new(|| d.topology_nearest_gpu_count(GpuTopologyLevel::SINGLE)),
            Box::new(|| len(d.topology_nearest_gpus(GpuTopologyLevel::SINGLE))),
        ),
        (
            "Device::encoder_session_count",
            Box::new(|| d.encoder_session_count()),
            Box::new(|| len(d.encoder_sessions())),
        ),
        ("Device::fbc_session_count", Box::new(|| d.fbc_session_count()), Box::new(|| len(d.fbc_sessions()))),
        (
            "Device::running_compute_process_count",
            Box::new(|| d.running_compute_process_count()),
            Box::new(|| len(d.running_compute_processes())),
        ),
        (
            "Device::running_graphics_process_count",
            Box::new(|| d.running_graphics_process_count()),
            Box::new(|| len(d.running_graphics_processes())),
        ),
        (
            "Device::running_mps_compute_process_count",
            Box::new(|| d.running_mps_compute_process_count()),
            Box::new(|| len(d.running_mps_compute_processes())),
        ),
        ("Device::accounting_pid_count", Box::new(|| d.accounting_pid_count()), Box::new(|| len(d.accounting_pids()))),
        (
            "Device::gpu_instance_possible_placement_count",
            Box::new(|| d.gpu_instance_possible_placement_count(1)),
            Box::new(|| len(d.gpu_instance_possible_placements(1))),
        ),
        ("Device::active_vgpu_count", Box::new(|| d.active_vgpu_count()), Box::new(|| len(d.active_vgpus()))),
        ("Device::creatable_vgpu_count", Box::new(|| d.creatable_vgpu_count()), Box::new(|| len(d.creatable_vgpus()))),
        ("Device::supported_vgpu_count", Box::new(|| d.supported_vgpu_count()), Box::new(|| len(d.supported_vgpus()))),
        (
            "GpuInstance::compute_instance_possible_placement_count",
            Box::new(|| gi.compute_instance_possible_placement_count(0)),
            Box::new(|| len(gi.compute_instance_possible_placements(0))),
        ),
        (
            "VgpuInstance::accounting_pid_count",
            Box::new(|| vgpu.accounting_pid_count()),
            Box::new(|| len(vgpu.accounting_pids())),
        ),
        (
            "VgpuInstance::encoder_session_count",
            Box::new(|| vgpu.encoder_session_count()),
            Box::new(|| len(vgpu.encoder_sessions())),
        ),
        (
            "VgpuInstance::fbc_session_count",
            Box::new(|| vgpu.fbc_session_count()),
            Box::new(|| len(vgpu.fbc_sessions())),
        ),
        (
            "Nvml::topology_gpu_set_count",
            Box::new(|| nvml.topology_gpu_set_count(0)),
            Box::new(|| len(nvml.topology_gpu_set(0))),
        ),
    ];
    let probe = |code, count| Probe { code, count };
    let size = sys::NVML_ERROR_INSUFFICIENT_SIZE;
    // Each scenario, and what every count method reads from it (`None`: as `Device::
    // accounting_pid_count` and the others differ by the header's protocol, checked below).
    let scenarios = [
        (probe(sys::NVML_SUCCESS, Some(0)), Some(Ok(0))),
        (probe(sys::NVML_SUCCESS, Some(3)), Some(Ok(3))),
        (probe(size, Some(3)), Some(Ok(3))),
        (probe(size, Some(0)), None),
        (probe(size, None), None),
        (probe(sys::NVML_ERROR_NOT_SUPPORTED, Some(0)), Some(Err(Error::NotSupported))),
        (probe(sys::NVML_SUCCESS, Some(u32::MAX)), Some(Err(Error::Implausible("")))),
        (probe(size, Some(u32::MAX)), Some(Err(Error::Implausible("")))),
    ];
    let same = |a: &Result<u32, Error>, b: &Result<u32, Error>| match (a, b) {
        (Err(Error::Implausible(_)), Err(Error::Implausible(_))) => true,
        _ => a == b,
    };
    let mut checked = 0;
    for (p, expected) in scenarios {
        script(p);
        for (name, count, list) in &pairs {
            let (count, list) = (count(), list());
            assert!(same(&count, &list), "{name} on {p:?}: the count says {count:?}, the list {list:?}");
            // The header says that nvmlDeviceGetAccountingPids answers its size query with
            // NVML_ERROR_INSUFFICIENT_SIZE and the count, 0 included; the others answer an
            // empty list with NVML_SUCCESS, and that code with no count is no size.
            let expected = expected.clone().unwrap_or(if *name == "Device::accounting_pid_count" {
                Ok(0)
            } else {
                Err(Error::InsufficientSize)
            });
            assert!(same(&count, &expected), "{name} on {p:?}: {count:?}, not {expected:?}");
            checked += 1;
        }
    }
    assert_eq!(checked, 19 * 8);
}
