//! Differential test against NVIDIA's official Python binding (nvidia-ml-py, module `pynvml`).
//!
//! The safe methods, the mock and the other tests all come from one reading of `nvml.h` (the
//! generator's model): when the generator misreads a function, the mock agrees with it and the
//! tests pass. pynvml was written by NVIDIA independently of that model, so it is a second
//! reading of each function. This test calls every function both wrap through each of them,
//! against the same mock profile, for every built-in profile, and the answers must agree.
//!
//! How:
//! - `differential/pynvml_dump.py` makes the calls through pynvml and prints JSON: for each
//!   call, the C function, the object (`dev/3`, `dev/7/gi/1`, ...), the arguments and the
//!   result (the value, normalised to what the C function writes, or the error code). Its
//!   selector arguments are pynvml's own constants. Getters come first; then the setters and
//!   other calls that change state (MIG instances created and destroyed included), each
//!   followed by the getters that read back what it changed.
//! - `differential/calls.rs` is the table C function → safe method, written by hand (this is
//!   what keeps the check independent of the generator). A child process of this test (the
//!   mock's state is per process) replays pynvml's calls, in the same order, through the table
//!   and writes its answers. A legacy member of a versioned family (`nvmlDeviceGetMemoryInfo`
//!   beside `_v2`) is reached as nvmlkit reaches it on an older driver: the mock is made to
//!   answer FUNCTION_NOT_FOUND for the newer members (`NVML_MOCK_FAULTS`), in a child of its own.
//!   Where pynvml gets FUNCTION_NOT_FOUND for the newest member of a family (an older-driver
//!   profile), the method's answer belongs to an older member and is not compared there.
//! - Both answers are compared call by call: error codes must be equal; values must be equal,
//!   records field by field for every field pynvml returns (keys compared lowercase without
//!   underscores; fields only nvmlkit returns are not compared). Every mismatch is reported
//!   with profile, function, object, arguments and both answers.
//! - [`KNOWN_MISMATCHES`] lists the functions whose mismatches are understood (the reason says
//!   who is wrong: nvmlkit, the mock or pynvml); they do not fail the test, but an entry whose
//!   function no longer mismatches anywhere does, so the list cannot go stale. It was written
//!   against nvidia-ml-py 13.615.71, the version `.ci/run` installs.
//! - `every_header_function_is_compared_or_listed` reads the function list from the header's
//!   text (not the generator's model) and requires each function to be either in the table or
//!   in `differential/not_in_pynvml.md` (with how else it is checked), not both, except the
//!   `unreached` rows: functions of the table that no profile gives an object to call them on.
//!   `against_pynvml` checks those both ways: a table entry no profile reaches must be listed
//!   as unreached, and an unreached one that is compared must not be.
//!
//! Without pynvml the differential test is skipped with a notice, unless
//! `NVML_MOCK_REQUIRE_PYNVML` is set (CI sets it), which makes that a failure. The dumps and a
//! report (counts per profile, every mismatch) are written to `target/tmp/differential/`.
//!
//! The same two exercises check the mock's recordings: `capture_round_trip` captures the mock
//! loaded with each built-in profile (what `nvml-mock capture --keep-ids` runs) and requires
//! both to answer the capture exactly as they answer the profile.
//!
//! Against a real driver: `against_pynvml_on_real_driver` (ignored unless asked for, and then
//! only with `NVML_DIFF_REAL_LIBRARY`) makes the same comparison on the machine's own GPUs,
//! getters only, and reports instead of failing; `differential/real.rs` says how, and
//! `differential/real_driver.sh` runs it from a test binary built elsewhere.
//!
//! What it cannot compare: values the mock does not provide (a function that answers an error
//! on every profile, NOT_SUPPORTED or NO_PERMISSION, compares error codes only, which still
//! catches a method that fails before it calls, or fails differently, but not a misread value;
//! the report in `target/tmp/differential/` counts the calls with a value); objects no
//! profile has (units, GPM samples, MIG device handles); functions pynvml does not wrap; the
//! fields of a record that pynvml's structure lacks; and
//! anything the mock answers the same way whatever it is given (a setter's argument is only
//! checked where the mock implements the setter and a getter reads it back).

// The values are compared through the `serde` feature (the package's dev-dependency on itself
// turns it on in the workspace; a packaged copy without it builds this test as nothing).
#![cfg(feature = "serde")]
// Deprecated functions are compared too.
#![allow(deprecated)]

#[path = "differential/calls.rs"]
mod calls;
#[path = "differential/proofs.rs"]
mod proofs;
#[path = "differential/real.rs"]
mod real;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use nvml_mock::testing::{builtin_profile, in_child, mock_path, CHILD_ENV, CLEARED_ENV};
use serde_json::{json, Value as J};

/// The moment the mock's clock stands still at in both runs (µs since the epoch): samples,
/// timestamps and the energy counter then read the same in pynvml's process and nvmlkit's.
const FROZEN_CLOCK: &str = "1700000000000000";

/// Functions whose mismatches are understood, with who is wrong and why (the header's text
/// decides). A listed function that no longer mismatches in any profile fails the test. A
/// reason names its proof: a test of `differential/proofs.rs` that quotes the header, calls
/// pynvml to show what it passes and reports, and checks nvmlkit's answer.
const KNOWN_MISMATCHES: &[(&str, &str)] = &[
    (
        "nvmlDeviceGetVgpuTypeSupportedPlacements",
        "protocol, not a misreading, on the drivers that predate the function (a100-r525, t4): pynvml sizes the \
         list with nvmlVgpuTypeGetMaxInstances first (as the header advises) and reports that call's \
         NOT_SUPPORTED without calling this function; nvmlkit size-queries this function (the header's \
         INSUFFICIENT_SIZE protocol), which answers FUNCTION_NOT_FOUND there. Proof: \
         proofs::vgpu_placements_pynvml_reports_max_instances",
    ),
    ("nvmlDeviceGetVgpuTypeCreatablePlacements", "as nvmlDeviceGetVgpuTypeSupportedPlacements"),
    (
        "nvmlGpuInstanceGetVgpuTypeCreatablePlacements",
        "protocol, as nvmlDeviceGetVgpuTypeSupportedPlacements, on h100 (GPU 7's GPU instances): pynvml sizes \
         the list with nvmlVgpuTypeGetMaxInstancesPerGpuInstance first and reports that call's error, which \
         driver 580.159.04 answers INVALID_ARGUMENT for every type without a vGPU manager (recorded on an \
         H100, replayed by the profile); nvmlkit calls this function, which answers NOT_SUPPORTED there. \
         Proof: proofs::gpu_instance_vgpu_placements_pynvml_reports_max_instances",
    ),
    (
        "nvmlDeviceGetTopologyNearestGpus",
        "pynvml: after a size probe that finds nothing (SUCCESS, count 0) it calls again with a count of 0 \
         and a zero-length non-NULL array, which driver 580.159.04 refuses with INVALID_ARGUMENT (so does \
         the mock, emulating it); nvmlkit returns the probe's empty list, as the header's \"When zero, is \
         set to the number of matching GPUs\" allows. Proof: proofs::topology_pynvml_calls_again_with_a_zero_count",
    ),
    (
        "nvmlSystemGetTopologyGpuSet",
        "as nvmlDeviceGetTopologyNearestGpus, for a CPU no GPU is near (CPU 63 of the h200 recording, a \
         16-CPU machine). Proof: proofs::topology_pynvml_calls_again_with_a_zero_count",
    ),
];

/// The variable that points a child at the calls it replays.
const CALLS_ENV: &str = "NVML_DIFF_CALLS";
/// The variable that names the file a child writes its answers to.
const OUT_ENV: &str = "NVML_DIFF_OUT";
/// The variable that names the library a child replays the calls against (the mock, or the
/// driver's library in the real-driver mode).
const LIBRARY_ENV: &str = "NVML_DIFF_LIBRARY";
/// Set in a child that must refuse any call that changes state (the real-driver mode).
const GETTERS_ONLY_ENV: &str = "NVML_DIFF_GETTERS_ONLY";
/// For the test of the real-driver mode: a child aborts, as a crash would, at the call
/// `<C function> <object>` this names.
const ABORT_AT_ENV: &str = "NVML_DIFF_ABORT_AT";
/// Set in a child that captures the library of `NVML_DIFF_LIBRARY` into the profile
/// `NVML_DIFF_OUT` (the round trip).
const CAPTURE_ENV: &str = "NVML_DIFF_CAPTURE";
/// `NVML_ERROR_FUNCTION_NOT_FOUND`.
const FUNCTION_NOT_FOUND: u32 = 13;
/// `NVML_ERROR_ARGUMENT_VERSION_MISMATCH`.
const ARGUMENT_VERSION_MISMATCH: u32 = 25;

/// `pynvml_dump.py`, in the source tree.
fn dump_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/pynvml_dump.py")
}

fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("differential");
    std::fs::create_dir_all(&dir).expect("the test's scratch directory");
    dir
}

/// The mock's built-in profiles: the YAML files of its `profiles/` directory that it knows
/// by name (checked through `builtin_profile`, so a file the mock does not embed is caught).
fn builtin_profiles() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nvml-mock/profiles");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_suffix(".yaml").map(str::to_string))
        .collect();
    names.sort();
    for n in &names {
        assert!(builtin_profile(n).is_some(), "profiles/{n}.yaml is not a built-in profile of the mock");
    }
    assert!(!names.is_empty(), "no profiles in {}", dir.display());
    names
}

/// Whether pynvml can be imported; a failure when it cannot and `NVML_MOCK_REQUIRE_PYNVML` is
/// set.
fn have_pynvml() -> bool {
    let ok = Command::new("python3").args(["-c", "import pynvml"]).status().is_ok_and(|s| s.success());
    if !ok {
        assert!(
            std::env::var_os("NVML_MOCK_REQUIRE_PYNVML").is_none(),
            "pynvml is required here: pip install nvidia-ml-py"
        );
        eprintln!("skipped: NVIDIA's Python binding is not installed (pip install nvidia-ml-py)");
    }
    ok
}

/// One call: the C function, the object, the arguments, and pynvml's answer.
struct Call {
    c: String,
    obj: String,
    args: J,
    answer: J,
}

impl Call {
    fn from_json(v: &J) -> Call {
        let mut answer = v.clone();
        let m = answer.as_object_mut().expect("a call is an object");
        m.remove("seq");
        let c = m.remove("fn").and_then(|v| v.as_str().map(str::to_string)).expect("fn");
        let obj = m.remove("obj").and_then(|v| v.as_str().map(str::to_string)).expect("obj");
        let args = m.remove("args").expect("args");
        Call { c, obj, args, answer }
    }
}

/// Whether the C function `name` may change a GPU's or the system's state: its first verb (a
/// CamelCase word; "EventSet" and "GpuSet" are nouns) is not a reading one, or it writes. The
/// event-set and GPM-sample functions change only the calling process's state. The same rule
/// as `changes_state` in `pynvml_dump.py`, so that both sides refuse the same calls.
fn changes_state(name: &str) -> bool {
    const READ_VERBS: &[&str] = &["Get", "Query", "Is", "On", "Read", "Wait"];
    const STATE_VERBS: &[&str] = &[
        "Set", "Reset", "Clear", "Create", "Destroy", "Modify", "Freeze", "Validate", "Discover", "Force", "Unload",
        "Activate", "Update", "Write", "Remove", "Register", "Alloc", "Free",
    ];
    const PROCESS_LOCAL: &[&str] = &[
        "nvmlEventSetCreate",
        "nvmlEventSetFree",
        "nvmlDeviceRegisterEvents",
        "nvmlEventSetRegisterGpuOperationalEvents_v1",
        "nvmlSystemEventSetCreate",
        "nvmlSystemEventSetFree",
        "nvmlSystemRegisterEvents",
        "nvmlGpmSampleAlloc",
        "nvmlGpmSampleFree",
    ];
    if PROCESS_LOCAL.contains(&name) {
        return false;
    }
    let name = name.replace("EventSet", "").replace("GpuSet", "");
    // Words as `[A-Z][a-z0-9]*`.
    let mut words: Vec<&str> = Vec::new();
    let mut start = None;
    for (i, ch) in name.char_indices() {
        if ch.is_ascii_uppercase() || !(ch.is_ascii_lowercase() || ch.is_ascii_digit()) {
            if let Some(s) = start.take() {
                words.push(&name[s..i]);
            }
            start = ch.is_ascii_uppercase().then_some(i);
        }
    }
    words.extend(start.map(|s| &name[s..]));
    let verb = words.iter().find(|w| READ_VERBS.contains(w) || STATE_VERBS.contains(w));
    !verb.is_some_and(|v| READ_VERBS.contains(v)) || words.contains(&"Write")
}

/// The child: replays the calls of `NVML_DIFF_CALLS` through the table against the library of
/// `NVML_DIFF_LIBRARY`, and writes one JSON line per answer to `NVML_DIFF_OUT` as it goes (so
/// that the parent knows which call a crash or a hang stopped at), then `{"done": true}`. The
/// first line says whether the library initialised.
fn replay() {
    let path = std::env::var(CALLS_ENV).expect("the calls to replay");
    let calls: Vec<J> = serde_json::from_str(&std::fs::read_to_string(&path).expect("the calls file")).expect("JSON");
    let library = PathBuf::from(std::env::var_os(LIBRARY_ENV).expect("the library to replay against"));
    let getters_only = std::env::var_os(GETTERS_ONLY_ENV).is_some();
    let abort_at = std::env::var(ABORT_AT_ENV).ok();
    let mut out = std::fs::File::create(std::env::var(OUT_ENV).expect("the output file")).expect("the output file");
    let mut line = |v: J| writeln!(out, "{v}").expect("write an answer");
    let nvml = match nvml::Nvml::builder().library_path(&library).init() {
        Ok(n) => n,
        Err(e) => {
            line(json!({ "init": { "err": e.code(), "text": e.to_string() } }));
            panic!("{} does not initialise: {e}", library.display());
        }
    };
    line(json!({ "init": { "ok": library.display().to_string() } }));
    let ctx = calls::Ctx::new(nvml);
    for v in &calls {
        let call = Call::from_json(v);
        let entry = calls::TABLE.iter().find(|e| e.c == call.c).expect("the parent sends only functions of the table");
        let args = calls::Args(call.args.as_object().expect("args are an object"));
        if abort_at.as_deref() == Some(&format!("{} {}", call.c, call.obj)) {
            // The SIGABRT a log of `cargo test -p nvmlkit` shows at this call is this one.
            eprintln!("differential test: aborting at {} {} on purpose ({ABORT_AT_ENV}), to check that a crashed child is reported", call.c, call.obj);
            std::process::abort();
        }
        let answer = if getters_only && changes_state(&call.c) {
            json!({ "refused": "changes state" })
        } else {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (entry.call)(&ctx, &call.obj, &args))) {
                Ok(Ok(v)) => json!({ "ok": v }),
                Ok(Err(e)) => json!({ "err": e.code() }),
                Err(p) => {
                    json!({ "panic": p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())) })
                }
            }
        };
        line(json!({ "seq": v["seq"], "answer": answer }));
    }
    line(json!({ "done": true }));
}

/// What a child wrote: its answers by `seq`, how `nvmlInit` went (`None`: no line), and
/// whether it got to the end.
struct Replayed {
    answers: BTreeMap<u64, J>,
    init: Option<J>,
    done: bool,
}

fn read_replayed(path: &Path) -> Replayed {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let mut r = Replayed { answers: BTreeMap::new(), init: None, done: false };
    // A line cut short by a crash is not JSON: it and what follows are left out.
    for v in text.lines().map_while(|l| serde_json::from_str::<J>(l).ok()) {
        if let Some(i) = v.get("init") {
            r.init = Some(i.clone());
        } else if v.get("done").is_some() {
            r.done = true;
        } else if let Some(seq) = v["seq"].as_u64() {
            r.answers.insert(seq, v["answer"].clone());
        }
    }
    r
}

/// A key without case or underscores: `usedGpuMemory`, `used_gpu_memory` → `usedgpumemory`.
fn norm_key(k: &str) -> String {
    k.chars().filter(|c| *c != '_').flat_map(char::to_lowercase).collect()
}

fn short(v: &J) -> String {
    let s = v.to_string();
    if s.len() > 160 {
        format!("{}…", &s[..s.char_indices().nth(160).map_or(s.len(), |(i, _)| i)])
    } else {
        s
    }
}

/// One difference between two values: where (`.field[index]...`, empty for the whole value),
/// and both sides.
struct Diff {
    path: String,
    text: String,
}

/// Record fields nvml.h documents as "Reserved for future use" (`nvmlDynamicPstatesInfo_t.flags`,
/// `nvmlAccountingStats_t.reserved`) or "Reserved for internal use" (the vGPU metadata's
/// `reserved`), which nvmlkit's records leave out.
const RESERVED: &[&str] = &["flags", "reserved"];

/// Whether a value holds nothing: 0, or a list or record of nothing.
fn is_empty(v: &J) -> bool {
    match v {
        J::Object(m) => m.values().all(is_empty),
        J::String(s) => s.is_empty(),
        J::Bool(b) => !b,
        v => is_zero(v),
    }
}

/// Whether a value is 0, or a list of zeros.
fn is_zero(v: &J) -> bool {
    match v {
        J::Number(n) => n.as_f64() == Some(0.0),
        J::Array(a) => a.iter().all(is_zero),
        _ => false,
    }
}

/// Compares pynvml's value `p` with nvmlkit's `r`; pushes each difference (with its path).
fn compare(p: &J, r: &J, path: &str, diffs: &mut Vec<Diff>) {
    let mut push = |text: String| diffs.push(Diff { path: path.to_string(), text });
    match (p, r) {
        // A yes or no nvmlkit reads as a `bool` (a `booleans` rule): pynvml's integer, 0 or not.
        (J::Number(n), J::Bool(b)) if (n.as_f64() != Some(0.0)) == *b => {}
        (J::Object(pm), J::Object(rm)) => {
            let rk: BTreeMap<String, &J> = rm.iter().map(|(k, v)| (norm_key(k), v)).collect();
            // A list nvmlkit cuts to the count beside it ("numCliques: Number of valid entries
            // in cliques[]", the thermal sensors' `count`): pynvml's whole array is compared up
            // to that count, which one of the record's count fields must give.
            // (pynvml's dump may leave the count out: nvmlkit's record has it; pynvml's entries
            // past it must then be empty.)
            let counted = |k: &str, pa: &[J], ra: &[J]| -> Option<usize> {
                let n = ra.len();
                let is_count = |c: &String| {
                    let c = c.to_ascii_lowercase();
                    c != k.to_ascii_lowercase() && ["count", "num", "size", "entries"].iter().any(|w| c.contains(w))
                };
                let says = pm.iter().chain(rm.iter()).any(|(c, v)| is_count(c) && v.as_u64() == Some(n as u64));
                let rest_empty = pm.iter().any(|(c, v)| is_count(c) && v.as_u64() == Some(n as u64))
                    || pa[n.min(pa.len())..].iter().all(is_empty);
                (pa.len() > n && says && rest_empty).then_some(n)
            };
            // A record's `version` says which layout the binding passed (nvmlkit reads older
            // layouts into the newest), not what the GPU reported: it is not compared.
            for (k, pv) in pm.iter().filter(|(k, _)| k.as_str() != "version") {
                match rk.get(&norm_key(k)) {
                    Some(J::Array(ra)) if matches!(pv, J::Array(pa) if counted(k, pa, ra).is_some()) => {
                        let J::Array(pa) = pv else { unreachable!() };
                        let cut = J::Array(pa[..ra.len()].to_vec());
                        compare(&cut, &J::Array(ra.clone()), &format!("{path}.{k}"), diffs)
                    }
                    Some(rv) => compare(pv, rv, &format!("{path}.{k}"), diffs),
                    // A field nvml.h marks "Reserved for future use" or "for internal use"
                    // carries nothing, and nvmlkit leaves it out: pynvml must read zeros there.
                    None if RESERVED.contains(&k.as_str()) && is_zero(pv) => {}
                    None => diffs.push(Diff {
                        path: format!("{path}.{k}"),
                        text: format!("{path}.{k}: pynvml {} , nvmlkit has no such field", short(pv)),
                    }),
                }
            }
        }
        (J::Array(pa), J::Array(ra)) => {
            if pa.len() != ra.len() {
                push(format!(
                    "{path}: pynvml {} entries {} , nvmlkit {} entries {}",
                    pa.len(),
                    short(p),
                    ra.len(),
                    short(r)
                ));
                return;
            }
            for (i, (pv, rv)) in pa.iter().zip(ra).enumerate() {
                compare(pv, rv, &format!("{path}[{i}]"), diffs);
            }
        }
        (J::Number(a), J::Number(b)) => {
            let same = match (
                a.as_i64().map(i128::from).or(a.as_u64().map(i128::from)),
                b.as_i64().map(i128::from).or(b.as_u64().map(i128::from)),
            ) {
                (Some(x), Some(y)) => x == y,
                _ => a.as_f64() == b.as_f64(),
            };
            if !same {
                push(format!("{path}: pynvml {a} , nvmlkit {b}"));
            }
        }
        _ if p == r => {}
        _ => push(format!("{path}: pynvml {} , nvmlkit {}", short(p), short(r))),
    }
}

/// What one comparison found.
enum Verdict {
    SameValue,
    SameError,
    /// The differences; a difference of kind (a value against an error, two error codes, a
    /// panic) has the empty path.
    Differ(Vec<Diff>),
}

impl Verdict {
    fn text(diffs: &[Diff]) -> String {
        diffs.iter().map(|d| d.text.as_str()).collect::<Vec<_>>().join("; ")
    }
}

fn judge(py: &J, rs: &J) -> Verdict {
    let (p, r) = (py.as_object().expect("answer"), rs.as_object().expect("answer"));
    let whole = |text: String| Verdict::Differ(vec![Diff { path: String::new(), text }]);
    if let Some(e) = p.get("pyerr") {
        return whole(format!("pynvml raised {e}; nvmlkit {}", short(rs)));
    }
    if let Some(e) = r.get("panic") {
        return whole(format!("nvmlkit panicked: {e}"));
    }
    match (p.get("ok"), p.get("err"), r.get("ok"), r.get("err")) {
        (_, Some(a), _, Some(b)) if a == b => Verdict::SameError,
        (Some(a), _, Some(b), _) => {
            let mut diffs = Vec::new();
            compare(a, b, "", &mut diffs);
            if diffs.is_empty() {
                Verdict::SameValue
            } else {
                Verdict::Differ(diffs)
            }
        }
        _ => whole(format!("pynvml {} , nvmlkit {}", short(py), short(rs))),
    }
}

/// `pynvml_dump.py` against `library` loaded with `profile`, the clock frozen: its JSON, also
/// written to `out`.
fn pynvml_dump(library: &Path, profile: &str, out: &Path) -> J {
    let mut python = Command::new("python3");
    for var in CLEARED_ENV {
        python.env_remove(var);
    }
    let run = python
        .arg(dump_script())
        .arg(library)
        .env("NVML_MOCK_PROFILE", profile)
        .env("NVML_MOCK_CLOCK", FROZEN_CLOCK)
        .output()
        .expect("python3 runs");
    assert!(run.status.success(), "pynvml_dump.py failed on {profile}:\n{}", String::from_utf8_lossy(&run.stderr));
    std::fs::write(out, &run.stdout).expect("write");
    serde_json::from_slice(&run.stdout).expect("pynvml_dump.py prints JSON")
}

/// nvmlkit's answers to pynvml's calls `py` (those of the table), by the index of the call
/// (the same call can come twice, e.g. a getter before and after a setter): the calls are
/// grouped by the faults their entry needs, and each group replays in a child of test `test`
/// against `library` loaded with `profile`, the clock frozen. The files are `<prefix>.calls<n>.json`
/// and `<prefix>.nvmlkit<n>.json`.
fn replay_in_children(test: &str, profile: &str, library: &Path, py: &[Call], prefix: &Path) -> BTreeMap<u64, J> {
    let mut groups: BTreeMap<Vec<&str>, Vec<J>> = BTreeMap::new();
    for (seq, call) in py.iter().enumerate() {
        if let Some(e) = calls::TABLE.iter().find(|e| e.c == call.c) {
            groups
                .entry(e.faults.to_vec())
                .or_default()
                .push(json!({"fn": call.c, "obj": call.obj, "args": call.args, "seq": seq}));
        }
    }
    let mut rust: BTreeMap<u64, J> = BTreeMap::new();
    for (n, (faults, group)) in groups.iter().enumerate() {
        let calls_file = PathBuf::from(format!("{}.calls{n}.json", prefix.display()));
        let out_file = PathBuf::from(format!("{}.nvmlkit{n}.json", prefix.display()));
        std::fs::write(&calls_file, serde_json::to_string(group).expect("JSON")).expect("write");
        let fault_spec: Vec<String> = faults.iter().map(|f| format!("{f}=NVML_ERROR_FUNCTION_NOT_FOUND")).collect();
        let env = [
            ("NVML_MOCK_PROFILE", profile),
            ("NVML_MOCK_CLOCK", FROZEN_CLOCK),
            ("NVML_MOCK_FAULTS", &fault_spec.join(",")),
            (CALLS_ENV, calls_file.to_str().expect("UTF-8 path")),
            (OUT_ENV, out_file.to_str().expect("UTF-8 path")),
            (LIBRARY_ENV, library.to_str().expect("UTF-8 path")),
        ];
        assert!(!in_child(test, &env));
        let replayed = read_replayed(&out_file);
        assert!(replayed.done, "{profile}: the child did not answer every call ({})", out_file.display());
        rust.extend(replayed.answers);
    }
    rust
}

/// Per profile: comparisons run, values equal, error codes equal, mismatches.
#[derive(Default)]
struct Tally {
    /// Calls of a member the library lacks, where the method fell back to an older member.
    fallback: usize,
    calls: usize,
    same_value: usize,
    same_error: usize,
    known: usize,
    unknown: usize,
}

#[test]
fn against_pynvml() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return replay();
    }
    if !have_pynvml() {
        return;
    }
    let dir = work_dir();
    let mut report = String::new();
    let mut failures = Vec::new();
    let mut mismatched_fns: BTreeSet<String> = BTreeSet::new();
    let mut called: BTreeSet<String> = BTreeSet::new();
    let mut valued: BTreeSet<String> = BTreeSet::new();
    let mut pynvml_version = String::new();
    let mut tallies = Vec::new();

    for profile in builtin_profiles() {
        let dump = pynvml_dump(&mock_path(), &profile, &dir.join(format!("{profile}.pynvml.json")));
        pynvml_version = dump["pynvml"].as_str().unwrap_or("?").to_string();
        let py: Vec<Call> = dump["calls"].as_array().expect("calls").iter().map(Call::from_json).collect();

        for call in &py {
            called.insert(call.c.clone());
            if !calls::TABLE.iter().any(|e| e.c == call.c) {
                failures.push(format!("{profile}: pynvml_dump.py calls {} but calls.rs has no entry for it", call.c));
            }
        }
        let rust = replay_in_children("against_pynvml", &profile, &mock_path(), &py, &dir.join(&profile));

        let mut t = Tally::default();
        for (seq, call) in py.iter().enumerate() {
            let Some(rs) = rust.get(&(seq as u64)) else { continue };
            let newest = calls::TABLE.iter().any(|e| e.c == call.c && e.newest);
            if newest
                && call.answer.get("err") == Some(&json!(FUNCTION_NOT_FOUND))
                && rs.get("err") != Some(&json!(FUNCTION_NOT_FOUND))
            {
                // The library lacks this member; the method fell back to an older one, which is
                // compared under its own name.
                t.fallback += 1;
                continue;
            }
            if call.answer.get("err") == Some(&json!(ARGUMENT_VERSION_MISMATCH)) && rs.get("ok").is_some() {
                // pynvml passes the newest record layout, which the profile's driver predates;
                // the method retried with an older layout (readings.rs and
                // compat_record_versions.rs check those answers).
                t.fallback += 1;
                continue;
            }
            t.calls += 1;
            match judge(&call.answer, rs) {
                Verdict::SameValue => {
                    t.same_value += 1;
                    valued.insert(call.c.clone());
                }
                Verdict::SameError => t.same_error += 1,
                Verdict::Differ(diffs) => {
                    let why = Verdict::text(&diffs);
                    mismatched_fns.insert(call.c.clone());
                    let line = format!("{profile}: {} on {} {}: {why}", call.c, call.obj, call.args);
                    if KNOWN_MISMATCHES.iter().any(|(f, _)| *f == call.c) {
                        t.known += 1;
                        report.push_str(&format!("known    {line}\n"));
                    } else {
                        t.unknown += 1;
                        report.push_str(&format!("MISMATCH {line}\n"));
                        failures.push(line);
                    }
                }
            }
        }
        tallies.push((profile, t));
    }

    let unreached: BTreeSet<String> = not_in_pynvml().into_iter().filter(|l| l.unreached).map(|l| l.name).collect();
    for e in calls::TABLE {
        match (called.contains(e.c), unreached.contains(e.c)) {
            (false, false) => failures.push(format!(
                "calls.rs has an entry for {} but no profile reached it: list it as unreached in not_in_pynvml.md",
                e.c
            )),
            (true, true) => {
                failures.push(format!("{} is compared now: remove its `unreached` row from not_in_pynvml.md", e.c))
            }
            _ => {}
        }
    }
    // Agreeing on error codes alone proves little: each profile must also agree on values.
    for (p, t) in &tallies {
        if t.same_value == 0 {
            failures
                .push(format!("{p}: no call answered a value that both agree on (does the mock answer only errors?)"));
        }
    }
    for (f, why) in KNOWN_MISMATCHES {
        if !mismatched_fns.contains(*f) {
            failures.push(format!("KNOWN_MISMATCHES lists {f} ({why}) but it no longer mismatches: remove the entry"));
        }
    }

    let mut summary = format!(
        "pynvml {pynvml_version}: {} functions compared ({} with a value in some profile, the others by error code only)\n",
        called.len(),
        valued.len()
    );
    summary.push_str("profile     compared  same value  same error  known mismatch  unexplained  fell back\n");
    for (p, t) in &tallies {
        summary.push_str(&format!(
            "{p:<10} {:>9} {:>11} {:>11} {:>15} {:>12} {:>10}\n",
            t.calls, t.same_value, t.same_error, t.known, t.unknown, t.fallback
        ));
    }
    let error_only: Vec<&String> = called.difference(&valued).collect();
    summary.push_str(&format!("compared by error code only: {error_only:?}\n"));
    std::fs::write(dir.join("report.txt"), format!("{summary}\n{report}")).expect("write the report");
    eprintln!("{summary}(details: {})", dir.join("report.txt").display());
    assert!(failures.is_empty(), "{} differences between pynvml and nvmlkit:\n{}", failures.len(), failures.join("\n"));
}

/// The child of [`capture_round_trip`] that captures: `nvml_mock::capture` (what `nvml-mock
/// capture --keep-ids --library LIBRARY` runs, its probes in this process) of the library of
/// `NVML_DIFF_LIBRARY`, written to `NVML_DIFF_OUT`, and its report beside it (`.txt`).
fn capture_child() {
    let library = PathBuf::from(std::env::var_os(LIBRARY_ENV).expect("the library to capture"));
    let out = PathBuf::from(std::env::var_os(OUT_ENV).expect("the profile to write"));
    let opts = nvml_mock::capture::Options {
        library: Some(library),
        mock: Some(mock_path()),
        name: "captured".to_string(),
        keep_ids: true,
        ..Default::default()
    };
    let captured = nvml_mock::capture::capture(&opts).unwrap_or_else(|e| panic!("capture: {e}"));
    std::fs::write(&out, &captured.yaml).expect("write the capture");
    std::fs::write(out.with_extension("txt"), captured.report.join("\n")).expect("write the report");
}

/// `nvml-mock capture` and replay lose nothing: for every built-in profile P, a capture (the
/// code of `nvml-mock capture --keep-ids`, in a child with the clock frozen) of the mock loaded
/// with P, through the library `nvml-mock lib --profile P` writes (as a machine's
/// `libnvidia-ml.so.1`), is a profile P′ with which the mock, through the library of P′ (which
/// must export the same functions), answers exactly as with P:
/// - NVIDIA's Python binding's dump (`pynvml_dump.py`, getters, setters and the getters that
///   read back what they set): the same JSON, call by call, codes and values;
/// - nvmlkit's replay of those calls (the safe crate's exercise of `against_pynvml`, through
///   `calls.rs`): the same answers, call by call.
///
/// The program itself (its options, its probes in child processes) is checked to write the
/// same profile by the mock's `tests/capture.rs`.
#[test]
fn capture_round_trip() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return if std::env::var_os(CAPTURE_ENV).is_some() { capture_child() } else { replay() };
    }
    if !have_pynvml() {
        return;
    }
    let dir = work_dir().join("round-trip");
    std::fs::create_dir_all(&dir).expect("the test's scratch directory");
    let mock = mock_path();
    let mut failures = Vec::new();
    let mut summary = String::new();
    for profile in builtin_profiles() {
        let captured = dir.join(format!("{profile}.captured.yaml"));
        // Each profile's libraries replace the last one's (each holds a copy of the mock).
        let (lib_p, lib_q) = (dir.join("lib"), dir.join("captured-lib"));
        let lib = |profile: &str, out: &Path| {
            nvml_mock::driver_lib::write_for_profile(out, profile, &mock).unwrap_or_else(|e| panic!("{profile}: {e}"));
            out.join("libnvidia-ml.so.1")
        };
        let library_p = lib(&profile, &lib_p);
        let env = [
            ("NVML_MOCK_PROFILE", profile.as_str()),
            ("NVML_MOCK_CLOCK", FROZEN_CLOCK),
            (CAPTURE_ENV, "1"),
            (LIBRARY_ENV, library_p.to_str().expect("UTF-8 path")),
            (OUT_ENV, captured.to_str().expect("UTF-8 path")),
        ];
        assert!(!in_child("capture_round_trip", &env));
        let captured = captured.to_str().expect("UTF-8 path");
        let library_q = lib(captured, &lib_q);
        let forwarder = |d: &Path| std::fs::read_to_string(d.join("forwarder.c")).expect("the library's source");
        if forwarder(&lib_p) != forwarder(&lib_q) {
            failures.push(format!(
                "{profile}: `nvml-mock lib --profile` exports other functions for the capture than for the profile"
            ));
        }

        // NVIDIA's Python binding.
        let dump_p = pynvml_dump(&library_p, &profile, &dir.join(format!("{profile}.pynvml.json")));
        let dump_q = pynvml_dump(&library_q, captured, &dir.join(format!("{profile}.captured.pynvml.json")));
        let (calls_p, calls_q) =
            (dump_p["calls"].as_array().expect("calls"), dump_q["calls"].as_array().expect("calls"));
        if calls_p.len() != calls_q.len() {
            failures.push(format!(
                "{profile}: pynvml made {} calls with P, {} with the capture",
                calls_p.len(),
                calls_q.len()
            ));
        }
        let differ: Vec<String> = calls_p
            .iter()
            .zip(calls_q)
            .filter(|(p, q)| p != q)
            .map(|(p, q)| format!("{profile}: pynvml: {} , with the capture {}", short(p), short(q)))
            .collect();
        failures.extend(differ.iter().take(20).cloned());
        let valued = calls_p.iter().filter(|c| c.get("ok").is_some()).count();

        // nvmlkit, replaying pynvml's calls.
        let py: Vec<Call> = calls_p.iter().map(Call::from_json).collect();
        let tag = |t: &str| dir.join(format!("{profile}.{t}"));
        let rust_p = replay_in_children("capture_round_trip", &profile, &library_p, &py, &tag("p"));
        let rust_q = replay_in_children("capture_round_trip", captured, &library_q, &py, &tag("captured"));
        let rust_differ: Vec<String> = rust_p
            .iter()
            .filter(|(seq, a)| rust_q.get(seq) != Some(a))
            .map(|(seq, a)| {
                let c = &py[*seq as usize];
                let q = rust_q.get(seq).map_or("no answer".to_string(), short);
                format!("{profile}: nvmlkit: {} on {} {}: {} , with the capture {q}", c.c, c.obj, c.args, short(a))
            })
            .collect();
        failures.extend(rust_differ.iter().take(20).cloned());
        let rust_valued = rust_p.values().filter(|a| a.get("ok").is_some()).count();
        if valued == 0 || rust_valued == 0 {
            failures.push(format!("{profile}: no call answered a value (pynvml {valued}, nvmlkit {rust_valued})"));
        }
        summary.push_str(&format!(
            "{profile:<12} pynvml {:>6} calls ({valued:>5} values) {:>4} differ; nvmlkit {:>6} calls ({rust_valued:>5} values) {:>4} differ\n",
            calls_p.len(),
            differ.len(),
            rust_p.len(),
            rust_differ.len()
        ));
    }
    std::fs::write(dir.join("report.txt"), &summary).expect("write the report");
    eprintln!("{summary}(details: {})", dir.display());
    assert!(failures.is_empty(), "the mock answers its capture differently:\n{}", failures.join("\n"));
}

#[test]
#[ignore = "runs against the machine's driver: set NVML_DIFF_REAL_LIBRARY (see differential/real_driver.sh)"]
fn against_pynvml_on_real_driver() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return replay();
    }
    if let Some(setup) = real::Setup::from_env("against_pynvml_on_real_driver") {
        real::run(&setup);
    }
}

/// The real-driver mode, with the mock's `h100` profile standing in for the driver (its clock
/// running, as a driver's does): it runs, changes nothing, reaches every getter but the legacy
/// members, and explains every difference.
#[test]
fn real_driver_mode_against_the_mock() {
    if std::env::var_os(CHILD_ENV).is_some() {
        return replay();
    }
    if !have_pynvml() {
        return;
    }
    let setup = real::Setup {
        library: mock_path(),
        report_dir: work_dir().join("real-on-mock"),
        script: dump_script(),
        python: "python3".into(),
        timeout: std::time::Duration::from_secs(300),
        child_test: "real_driver_mode_against_the_mock",
        // One child crashes: the report names the call, and a new child goes on after it.
        env: vec![
            ("NVML_MOCK_PROFILE".into(), "h100".into()),
            (ABORT_AT_ENV.into(), "nvmlDeviceGetBrand dev/3".into()),
        ],
    };
    let c = real::run(&setup);
    let report = std::fs::read_to_string(setup.report_dir.join("report.txt")).expect("report.txt");
    assert_eq!((c.mismatch, c.crashed, c.refused, c.not_in_table), (0, 1, 0, 0), "{c:?}\n{report}");
    assert!(report.contains("CRASH    nvmlkit \"died (signal: 6 (SIGABRT)"), "{report}");
    assert!(report.contains("\"nvmlDeviceGetBrand\" \"dev/3\""), "{report}");
    assert!(c.same_value > 1000 && c.same_error > 1000, "{c:?}");
    // The legacy members (nvmlDeviceGetMemoryInfo, ..._v2 of the process lists, ...) are not
    // replayed; the rest are.
    assert!(c.legacy > 0 && c.replayed + c.legacy == c.calls, "{c:?}");
    let json: J =
        serde_json::from_str(&std::fs::read_to_string(setup.report_dir.join("report.json")).expect("report.json"))
            .expect("JSON");
    assert_eq!(json["counts"]["same_value"], json!(c.same_value));
    assert!(
        json["legacy_not_replayed"]["nvmlDeviceGetMemoryInfo"].as_u64().is_some_and(|n| n > 0),
        "{}",
        json["legacy_not_replayed"]
    );
    for f in ["pynvml.1.json", "pynvml.2.json", "calls.json", "nvmlkit.0.jsonl", "nvmlkit.1.jsonl", "summary.txt"] {
        assert!(setup.report_dir.join(f).is_file(), "{f} is missing");
    }
}

/// `changes_state` and `pynvml_dump.py`'s rule of the same name agree on every function of the
/// table, and sort the ones that matter right.
#[test]
fn changes_state_agrees_with_pynvml_dump() {
    for (f, changes) in [
        ("nvmlDeviceSetPersistenceMode", true),
        ("nvmlDeviceReadWritePRM_v1", true),
        ("nvmlDeviceVgpuForceGspUnload", true),
        ("nvmlDeviceWorkloadPowerProfileClearRequestedProfiles", true),
        ("nvmlGpuInstanceCreateComputeInstanceWithPlacement", true),
        ("nvmlDeviceModifyDrainState", true),
        ("nvmlSystemGetTopologyGpuSet", false),
        ("nvmlDeviceGetVgpuTypeCreatablePlacements", false),
        ("nvmlEventSetGetContextCount_v1", false),
        ("nvmlSystemEventSetWait", false),
        ("nvmlEventSetCreate", false),
        ("nvmlDeviceOnSameBoard", false),
        ("nvmlDeviceReadPRMCounters_v1", false),
    ] {
        assert_eq!(changes_state(f), changes, "{f}");
    }
    if !have_pynvml() {
        return;
    }
    let names: Vec<&str> = calls::TABLE.iter().map(|e| e.c).collect();
    let script = dump_script();
    let code = "import importlib.util, json, sys\n\
                spec = importlib.util.spec_from_file_location('dump', sys.argv[1])\n\
                m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n\
                print(json.dumps({f: m.changes_state(f) for f in json.loads(sys.argv[2])}))";
    let out = Command::new("python3")
        .args(["-c", code])
        .arg(&script)
        .arg(serde_json::to_string(&names).expect("JSON"))
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let py: BTreeMap<String, bool> = serde_json::from_slice(&out.stdout).expect("JSON");
    let differ: Vec<&&str> = names.iter().filter(|f| py.get(**f) != Some(&changes_state(f))).collect();
    assert!(differ.is_empty(), "the two rules disagree on {differ:?}");
}

/// The newest vendored header (the generator's default).
fn default_header() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../nvml-headers");
    let version = |s: &str| s.split('.').map(|p| p.parse::<u32>().unwrap_or(0)).collect::<Vec<_>>();
    let newest = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("nvml.h").is_file())
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .max_by_key(|v| version(v))
        .expect("a vendored header");
    root.join(newest).join("nvml.h")
}

/// The functions the header declares, from its text: `nvmlReturn_t DECLDIR nvmlX(`, possibly
/// after a `DEPRECATED(...)` marker, outside comments.
fn header_functions(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let line = line.trim_start();
        if line.starts_with('*') || line.starts_with("//") || line.starts_with("/*") {
            continue;
        }
        let Some((_, rest)) = line.split_once("nvmlReturn_t") else { continue };
        let Some(rest) = rest.trim_start().strip_prefix("DECLDIR") else { continue };
        let name: String = rest.trim_start().chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        if name.starts_with("nvml") && rest.contains('(') {
            out.insert(name);
        }
    }
    out
}

/// A row of `not_in_pynvml.md`: the function (the row's first back-quoted name) and whether
/// it is `unreached` (in the table, but no profile has the object to call it on).
struct Listed {
    name: String,
    unreached: bool,
}

fn listed_functions(text: &str) -> Vec<Listed> {
    text.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|l| {
            let (name, rest) = l.split_once('`')?;
            let why = rest.trim_start_matches([' ', '|']);
            Some(Listed { name: name.to_string(), unreached: why.starts_with("unreached") })
        })
        .collect()
}

fn not_in_pynvml() -> Vec<Listed> {
    let list = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential/not_in_pynvml.md");
    listed_functions(&std::fs::read_to_string(&list).expect("not_in_pynvml.md"))
}

#[test]
fn every_header_function_is_compared_or_listed() {
    let header = std::fs::read_to_string(default_header()).expect("the vendored header");
    let declared = header_functions(&header);
    assert!(declared.len() > 400, "the scan found only {} functions", declared.len());
    let listed = not_in_pynvml();
    let compared: BTreeSet<&str> = calls::TABLE.iter().map(|e| e.c).collect();
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for Listed { name: f, unreached } in &listed {
        if !seen.insert(f.as_str()) {
            problems.push(format!("{f} is listed twice in not_in_pynvml.md"));
        }
        match (compared.contains(f.as_str()), unreached) {
            (true, false) => problems.push(format!("{f} is listed in not_in_pynvml.md but also compared (calls.rs)")),
            (false, true) => problems
                .push(format!("{f} is listed as unreached in not_in_pynvml.md but calls.rs has no entry for it")),
            _ => {}
        }
        if !declared.contains(f) {
            problems.push(format!("{f} is listed in not_in_pynvml.md but the header does not declare it"));
        }
    }
    for f in &compared {
        if !declared.contains(*f) {
            problems.push(format!("calls.rs compares {f}, which the header does not declare"));
        }
    }
    if calls::TABLE.len() != compared.len() {
        problems.push("calls.rs has a function twice".to_string());
    }
    for f in &declared {
        if !compared.contains(f.as_str()) && !seen.contains(f.as_str()) {
            problems.push(format!("{f} is neither compared (calls.rs) nor listed in not_in_pynvml.md"));
        }
    }
    let unreached = listed.iter().filter(|l| l.unreached).count();
    eprintln!(
        "{} functions in the header: {} in calls.rs ({unreached} of them unreached), {} listed as not compared",
        declared.len(),
        compared.len(),
        seen.len() - unreached
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn header_scan_reads_prototypes() {
    let text = "nvmlReturn_t DECLDIR nvmlInit_v2(void);\nnvmlReturn_t  DECLDIR nvmlA(nvmlDevice_t d,\n  unsigned int x);\n\
                DEPRECATED(13.0) nvmlReturn_t DECLDIR nvmlOld (nvmlDevice_t d);\n\
                const DECLDIR char* nvmlErrorString(nvmlReturn_t result);\n * nvmlReturn_t DECLDIR nvmlInComment(void)\n\
                // nvmlReturn_t DECLDIR nvmlInLineComment(void)\n#define nvmlB nvmlB_v2\n";
    let got: Vec<String> = header_functions(text).into_iter().collect();
    assert_eq!(got, ["nvmlA", "nvmlInit_v2", "nvmlOld"]);
}
