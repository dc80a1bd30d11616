//! Every generated method, called once against the mock library (the H100 profile).

use crate::generated::exercise::{call_all, Handles};
use crate::{Error, Nvml};

/// The mock, built next to this test binary (nvmlkit-mock is a dev-dependency).
fn mock() -> Nvml {
    std::env::set_var("NVML_MOCK_PROFILE", "h100");
    Nvml::builder().library_path(nvml_mock::testing::mock_path()).init().expect("the mock initialises")
}

#[test]
fn every_generated_method_runs_against_the_mock() {
    let nvml = mock();
    let device = nvml.device_by_index(0).expect("device 0");
    // Device 7 of the H100 profile is in MIG mode with two GPU instances.
    let mig = nvml.device_by_index(7).expect("device 7");
    let profile = mig.gpu_instance_profile_info(crate::GpuInstanceProfile::PROFILE_3_SLICE).expect("the 3g profile");
    let gpu_instance = mig.gpu_instances(profile.id).expect("GPU instances").into_iter().next();
    assert!(gpu_instance.is_some(), "the MIG device has GPU instances");
    let compute_instance = gpu_instance
        .as_ref()
        .and_then(|gi| (0..8).find_map(|p| gi.compute_instances(p).ok().and_then(|cis| cis.into_iter().next())));
    let mut handles = Handles {
        device: Some(device.clone()),
        event_set: Some(nvml.create_event_set().expect("an event set")),
        compute_instance,
        gpm_sample: nvml.gpm_sample_alloc().ok(),
        unit: nvml.unit_by_index(0).ok(),
        gpu_instance,
        vgpu_instance: Some(crate::VgpuInstance::from_id(&nvml, 1)),
        vgpu_type_id: Some(crate::VgpuTypeId::from_id(&nvml, 1)),
        ..Handles::default()
    };
    // Only methods needing a handle the mock does not provide are skipped: it has no units.
    let missing: Vec<&str> = [
        ("Unit", handles.unit.is_none()),
        ("ComputeInstance", handles.compute_instance.is_none()),
        ("GpmSample", handles.gpm_sample.is_none()),
    ]
    .into_iter()
    .filter_map(|(ty, none)| none.then_some(ty))
    .collect();
    // Calls that free or destroy take their handle out of `handles`.
    let results = call_all(&nvml, &mut handles);

    let mut ok = 0;
    let mut skipped = Vec::new();
    for (name, result) in &results {
        match result {
            None => skipped.push(*name),
            Some(Ok(())) => ok += 1,
            // Every symbol of the header is exported by the mock, so a method never lacks one.
            Some(Err(Error::FunctionNotFound(Some(symbol)))) => panic!("{name}: the mock does not export {symbol}"),
            Some(Err(_)) => {}
        }
    }
    let called = results.len() - skipped.len();
    eprintln!("{} generated methods: {called} called, {ok} succeeded, skipped (no handle): {skipped:?}", results.len());
    assert_eq!(missing, ["Unit"], "the mock gained a handle type: add it above");
    for name in &skipped {
        let needs = |ty: &str| name.starts_with(&format!("{ty}::")) || name.starts_with("Device::gpm_");
        assert!(missing.iter().any(|ty| needs(ty)), "{name} was not called");
    }
    // What the mock implements answers: a regression in a generated shape shows as an error.
    assert!(ok >= 86, "only {ok} of {called} calls succeeded");
}

// The hostile mode: every safe method against a library that lies (issue 11, check (c)).

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;

use crate::generated::handles::*;

/// This test's path, as the harness names it (for `in_child`).
const HOSTILE_TEST: &str = "tests::every_safe_method_survives_a_hostile_library";

/// Seeds of the hostile library, one child process each.
const HOSTILE_SEEDS: u64 = 16;

/// Rounds of every safe method per seed: 16 × 50 rounds of about 400 methods make more than
/// 3 × 10^5 calls.
const HOSTILE_ROUNDS: usize = 50;

/// What one child saw; the lines it writes to the file its parent reads.
#[derive(Debug, Default)]
struct Tally {
    calls: usize,
    ok: usize,
    /// Calls that returned an error, by `Error` variant.
    errors: BTreeMap<String, usize>,
    /// Each panic: the seed, the round, the message and the safe crate's frames.
    panics: Vec<String>,
}

impl Tally {
    fn add(&mut self, result: &Result<(), (String, String)>) {
        self.calls += 1;
        match result {
            Ok(()) => self.ok += 1,
            Err((variant, _)) => *self.errors.entry(variant.clone()).or_default() += 1,
        }
    }

    fn to_text(&self) -> String {
        let mut out = format!("calls {}\nok {}\n", self.calls, self.ok);
        for (variant, n) in &self.errors {
            out += &format!("error {variant} {n}\n");
        }
        for p in &self.panics {
            out += &format!("panic {}\n", p.replace('\n', " | "));
        }
        out
    }

    fn merge_text(&mut self, text: &str) {
        for line in text.lines() {
            let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
            match key {
                "calls" => self.calls += rest.parse::<usize>().unwrap_or(0),
                "ok" => self.ok += rest.parse::<usize>().unwrap_or(0),
                "error" => {
                    let (variant, n) = rest.rsplit_once(' ').unwrap_or((rest, "0"));
                    *self.errors.entry(variant.to_string()).or_default() += n.parse::<usize>().unwrap_or(0);
                }
                "panic" => self.panics.push(rest.to_string()),
                _ => panic!("unexpected line in a child's report: {line}"),
            }
        }
    }
}

/// An error as the tally keeps it: its variant's name, and its `Display` text (which asks the
/// hostile library's `nvmlErrorString`).
fn described(e: Error) -> (String, String) {
    let debug = format!("{e:?}");
    let variant = debug.split('(').next().unwrap_or(&debug).to_string();
    (variant, e.to_string())
}

/// One handle of each type whose raw value is garbage (the hostile library never looks at it).
fn garbage_handles<'n>(nvml: &'n Nvml, round: usize) -> Handles<'n> {
    let raw = |k: usize| 0x5EED_0000 + 0x100 * k + round;
    Handles {
        compute_instance: Some(ComputeInstance::wrap(raw(1) as _, nvml.nref())),
        device: Some(Device::wrap(raw(2) as _, nvml.nref())),
        event_set: Some(EventSet::wrap(raw(3) as _, nvml.nref())),
        gpm_sample: Some(GpmSample::wrap(raw(4) as _, nvml.nref())),
        gpu_instance: Some(GpuInstance::wrap(raw(5) as _, nvml.nref())),
        system_event_set: Some(SystemEventSet::wrap(raw(6) as _, nvml.nref())),
        unit: Some(Unit::wrap(raw(7) as _, nvml.nref())),
        vgpu_instance: Some(VgpuInstance::wrap(raw(8) as _, nvml.nref())),
        vgpu_type_id: Some(VgpuTypeId::wrap(raw(9) as _, nvml.nref())),
    }
}

/// The hand-written methods (`manual/`), which `call_all` does not reach, each called once.
fn call_manual(nvml: &Nvml, h: &mut Handles<'_>) -> Vec<(&'static str, Result<(), Error>)> {
    use crate::*;
    let (Some(device), Some(gi), Some(event_set), Some(sample), Some(vgpu), Some(vgpu_type)) =
        (&h.device, &h.gpu_instance, &h.event_set, &h.gpm_sample, &h.vgpu_instance, &h.vgpu_type_id)
    else {
        return Vec::new();
    };
    fn ok<T>(r: Result<T, Error>) -> Result<(), Error> {
        r.map(|_| ())
    }
    let mut out = vec![
        ("Device::sram_unique_uncorrected_ecc_error_counts", ok(device.sram_unique_uncorrected_ecc_error_counts())),
        ("Device::read_prm_counters", ok(device.read_prm_counters(&[PRMCounter::default(), PRMCounter::default()]))),
        ("Device::memory_limits", ok(device.memory_limits("/hostile"))),
        ("Device::set_memory_limits", ok(device.set_memory_limits("/hostile", &MemoryLimits::default()))),
        (
            "Device::nvlink_telemetry_samples",
            ok(device.nvlink_telemetry_samples(&[NvlinkTelemetryRequest {
                link_id: 0,
                sample_type: NvlinkTelemetrySampleType::THROUGHPUT_RAW_TX,
            }])),
        ),
        ("EventSet::context_data", ok(event_set.context_data(0))),
        // Debug of the event reads its device's UUID.
        ("EventSet::next_event", ok(event_set.next_event(0).map(|e| format!("{e:?}")))),
        ("EventSet::events", ok(event_set.events().next().unwrap_or(Err(Error::Timeout)))),
        ("Nvml::event_set_for", ok(nvml.event_set_for([device]))),
        ("Nvml::gpm_metrics_get", ok(nvml.gpm_metrics_get(sample, sample, &[GpmMetricId::default()]))),
        ("Device::running_process_detail_list", ok(device.running_process_detail_list(ProcessMode::default()))),
        ("Device::processes_utilization_info", ok(device.processes_utilization_info(0))),
        ("Nvml::driver_branch", ok(nvml.driver_branch())),
        ("Nvml::cper_next", ok(nvml.cper_next(&mut CperCursor::new(0, None)))),
        ("Device::vgpu_type_supported_placements", ok(device.vgpu_type_supported_placements(vgpu_type, 0))),
        ("Device::vgpu_type_creatable_placements", ok(device.vgpu_type_creatable_placements(vgpu_type, 0))),
        ("Device::vgpu_instances_utilization_info", ok(device.vgpu_instances_utilization_info(0))),
        ("Device::vgpu_processes_utilization_info", ok(device.vgpu_processes_utilization_info(0))),
        ("Device::pgpu_metadata_string", ok(device.pgpu_metadata_string())),
        ("GpuInstance::active_vgpus", ok(gi.active_vgpus())),
        ("GpuInstance::creatable_vgpus", ok(gi.creatable_vgpus())),
        ("GpuInstance::vgpu_type_creatable_placements", ok(gi.vgpu_type_creatable_placements(vgpu_type))),
    ];
    let pgpu = device.vgpu_metadata();
    let vgpu_metadata = vgpu.metadata();
    out.push(("Device::vgpu_metadata", ok(pgpu.as_ref().map_err(Clone::clone))));
    out.push(("VgpuInstance::metadata", ok(vgpu_metadata.as_ref().map_err(Clone::clone))));
    if let (Ok(v), Ok(p)) = (&vgpu_metadata, &pgpu) {
        out.push(("Nvml::vgpu_compatibility", ok(nvml.vgpu_compatibility(v, p))));
    }
    if let Some(set) = &h.system_event_set {
        out.push(("SystemEventSet::register", ok(set.register(SystemEventTypes::empty()))));
        out.push(("SystemEventSet::wait", ok(set.wait(0, 4))));
    }
    if let Some(set) = h.system_event_set.take() {
        out.push(("SystemEventSet::free", set.free()));
    }
    out.push(("Nvml::system_event_set_create", ok(nvml.system_event_set_create())));
    out
}

/// The last panic's message and the safe crate's frames of its backtrace, from the hook.
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

/// Runs every safe method `rounds` times against the hostile library of this process.
fn hostile_rounds(seed: &str, rounds: usize) -> Tally {
    std::panic::set_hook(Box::new(|info| {
        let trace = std::backtrace::Backtrace::force_capture().to_string();
        let frames: Vec<&str> = trace
            .lines()
            .map(str::trim)
            .filter(|l| l.contains("nvml::") && !l.contains("nvml::tests::"))
            .take(6)
            .collect();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = format!("{info} in {}", frames.join(" < "));
        }
    }));
    let mut tally = Tally::default();
    let path = nvml_mock::testing::mock_path();
    // Holds the library loaded, so that its state (the random sequence) lives as long as the
    // process: unloaded between two `Nvml`s, it would start its sequence again.
    let _loaded = crate::sys::NvmlLib::open_path(&path).expect("the mock loads");
    // `nvmlInit` succeeds about half of the time.
    let init = |tally: &mut Tally| {
        for _ in 0..1000 {
            let result = Nvml::builder().library_path(&path).init();
            tally.add(&result.as_ref().map(|_| ()).map_err(|e| described(e.clone())));
            if let Ok(nvml) = result {
                return nvml;
            }
        }
        panic!("the hostile nvmlInit failed 1000 times in a row (seed {seed})")
    };
    for round in 0..rounds {
        let nvml = init(&mut tally);
        let mut handles = garbage_handles(&nvml, round);
        let run = catch_unwind(AssertUnwindSafe(|| {
            let generated = call_all(&nvml, &mut handles).into_iter().filter_map(|(name, r)| Some((name, r?)));
            // Fresh handles: `call_all` freed and destroyed some of its own.
            let manual = call_manual(&nvml, &mut garbage_handles(&nvml, round));
            generated.chain(manual).map(|(name, r)| (name, r.map_err(described))).collect::<Vec<_>>()
        }));
        match run {
            Ok(results) => results.iter().for_each(|(_, r)| tally.add(r)),
            Err(_) => {
                let message = LAST_PANIC.lock().map(|m| m.clone()).unwrap_or_default();
                tally.panics.push(format!("seed {seed}, round {round}: {message}"));
            }
        }
        drop(handles);
        tally.add(&nvml.shutdown().map_err(described));
    }
    let _ = std::panic::take_hook();
    tally
}

/// Every safe method (the generated ones through `call_all`, the hand-written ones, init and
/// shutdown) against the mock's hostile mode, `HOSTILE_SEEDS` seeds in child processes (so an
/// abort or a crash fails the test) and `HOSTILE_ROUNDS` rounds each: random return codes,
/// counts that grow, shrink or are huge, strings without a NUL or not UTF-8, unknown enum
/// values and garbage handles. Every call must return (`Ok` or an `Err`), never panic.
/// `NVMLKIT_HOSTILE_SEEDS` and `NVMLKIT_HOSTILE_ROUNDS` change the run (CI's valgrind step
/// shortens it);
/// the 10^5 calls are required only of the full run.
#[test]
fn every_safe_method_survives_a_hostile_library() {
    let setting = |var: &str, default: usize| std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let (seeds, rounds) = (
        setting("NVMLKIT_HOSTILE_SEEDS", HOSTILE_SEEDS as usize) as u64,
        setting("NVMLKIT_HOSTILE_ROUNDS", HOSTILE_ROUNDS),
    );
    let report_var = "NVMLKIT_HOSTILE_REPORT";
    if std::env::var_os(nvml_mock::testing::CHILD_ENV).is_some() {
        let seed = std::env::var(nvml_mock::testing::HOSTILE_ENV).expect("the parent sets the seed");
        let tally = hostile_rounds(&seed, rounds);
        let report = std::env::var(report_var).expect("the parent names the report");
        std::fs::write(&report, tally.to_text()).expect("the report is written");
        return;
    }
    let dir = std::env::temp_dir().join(format!("nvmlkit-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory for the reports");
    let start = std::time::Instant::now();
    // Two children at a time.
    let all: Vec<u64> = (1..=seeds).collect();
    std::thread::scope(|s| {
        for half in all.chunks(all.len().div_ceil(2).max(1)) {
            let dir = &dir;
            s.spawn(move || {
                for seed in half {
                    let (seed, report) = (seed.to_string(), dir.join(format!("{seed}.txt")));
                    let report = report.to_str().expect("a UTF-8 temporary path").to_string();
                    nvml_mock::testing::in_child(
                        HOSTILE_TEST,
                        &[(nvml_mock::testing::HOSTILE_ENV, &seed), (report_var, &report)],
                    );
                }
            });
        }
    });
    let mut tally = Tally::default();
    for seed in 1..=seeds {
        let text = std::fs::read_to_string(dir.join(format!("{seed}.txt"))).expect("each child wrote its report");
        tally.merge_text(&text);
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "hostile library, {seeds} seeds × {rounds} rounds in {:.1?}: {} calls, {} Ok, errors {:?}",
        start.elapsed(),
        tally.calls,
        tally.ok,
        tally.errors
    );
    assert!(tally.panics.is_empty(), "{} panics:\n{}", tally.panics.len(), tally.panics.join("\n"));
    if (seeds, rounds) == (HOSTILE_SEEDS, HOSTILE_ROUNDS) {
        assert!(tally.calls >= 100_000, "only {} calls", tally.calls);
    }
    // The library was hostile: outputs were read, huge counts refused, unknown codes kept.
    assert!(tally.ok > tally.calls / 10, "only {} of {} calls succeeded", tally.ok, tally.calls);
    for variant in ["Implausible", "InsufficientSize", "Unknown", "GpuIsLost"] {
        assert!(tally.errors.contains_key(variant), "no call answered {variant}: {:?}", tally.errors);
    }
}
