//! The guard-page harness: every function of a header that the mock answers through a pointer
//! (a record out, in or in/out, an array of a count, a string buffer, a value), called from C
//! compiled against that very header, with each of the caller's buffers placed so that it ends
//! exactly where a PROT_NONE page begins, and again so that it starts right after one; the
//! bytes of the buffer's pages outside it hold a canary that must come back unchanged. Count
//! and array functions are called with a capacity of 0, 1 and the count the mock reports,
//! string buffers with 1 byte and their documented size, caller-sized arrays with 0, 1 and
//! their capacity, versioned records with each older layout the header declares too, and the
//! arrays a record points to (process detail lists, utilisation samples, CPER buffers) with 0,
//! 1 and the count the mock wrote back. Each function runs in a child process of its own, so a
//! fault names its function and ends only that one, and what a setter changes is gone for the
//! next. Functions are looked up with `dlsym`: one of an older header that the mock does not
//! export is listed in the report. Every function that takes a record through a pointer must
//! be called in every header (units aside: no profile has one).
//!
//! The C source is generated here, at run time, from the generator's model and plan of each
//! header (`target/tmp/guard-pages/<version>/harness.c`), compiled with `cc` and run against
//! the mock on the profiles `h100`, `a100`, `b200`, `t4` and `l40s-vgpu`. It prints a report
//! of the functions covered per header and of each function's headers. Without the corpus
//! only the vendored header is run; `NVML_CORPUS=1` runs every published header (pip fetches
//! the ones not in the cache), as CI does (`.ci/run`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use common::scratch;
use xtask::fetch::headers::{self, header_path};
use xtask::fetch::Pip;
use xtask::history::sizes;
use xtask::model::{Function, Model, Ty};
use xtask::pipeline::{self, Inputs, Planned};
use xtask::plan::{Call, Role};
use xtask::workspace::project_root;

/// A representative profile per architecture.
const PROFILES: &[&str] = &["h100", "a100", "b200", "t4", "l40s-vgpu"];

/// Handle types the harness obtains, with the C array and count its prelude fills.
const HANDLES: &[(&str, &str)] = &[
    ("nvmlDevice_t", "devs"),
    ("nvmlUnit_t", "units"),
    ("nvmlGpuInstance_t", "gis"),
    ("nvmlComputeInstance_t", "cis"),
    ("nvmlVgpuTypeId_t", "vtypes"),
    ("nvmlVgpuInstance_t", "vinsts"),
    ("nvmlEventSet_t", "event_sets"),
    ("nvmlGpmSample_t", "samples"),
];

/// Calls that start or end the library: never made. Every other call runs in a child process
/// of its own, so what one creates, destroys, frees or sets is gone for the next.
const NEVER: &[&str] = &["nvmlInit", "nvmlShutdown"];

const PRELUDE_HEAD: &str = r#"
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "nvml.h"
#include "guard.h"
"#;

const PRELUDE: &str = r#"

#define MAXH 64

static const char *current = "(prelude)";
static int current_variant = -1, current_place = -1;
static long failures = 0;

static void on_fault(int sig) {
    char line[512];
    int n = snprintf(line, sizeof line, "FAULT %s variant %d place %s (signal %d)\n", current, current_variant,
                     current_place == 0 ? "end" : "start", sig);
    if (n > 0) { ssize_t w = write(1, line, (size_t)n); (void)w; }
    _exit(139);
}

/* `size` bytes ending at a PROT_NONE page (place 0) or starting right after one (place 1),
 * zeroed; the rest of their pages holds the canary (tests/c/guard.h). */
static guarded_t gp(size_t size, int place) {
    guarded_t g = guarded_place(size, place == 0);
    if (!g.map) { printf("FAIL mmap\n"); exit(2); }
    memset(g.buf, 0, size);
    return g;
}

static void check(guarded_t *g, const char *param) {
    if (!guard_intact(g)) {
        printf("FAIL %s: %s variant %d place %s: a byte outside its %zu bytes changed\n", current, param,
               current_variant, current_place == 0 ? "end" : "start", g->size);
        failures++;
    }
    guard_free(g);
}

static nvmlDevice_t devs[MAXH]; static unsigned n_devs;
static nvmlUnit_t units[MAXH]; static unsigned n_units;
static nvmlGpuInstance_t gis[MAXH]; static unsigned n_gis;
static nvmlComputeInstance_t cis[MAXH]; static unsigned n_cis;
static nvmlVgpuTypeId_t vtypes[MAXH]; static unsigned n_vtypes;
static nvmlVgpuInstance_t vinsts[MAXH]; static unsigned n_vinsts;
static nvmlEventSet_t event_sets[1]; static unsigned n_event_sets;

static void prelude(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    signal(SIGSEGV, on_fault);
    signal(SIGBUS, on_fault);
    signal(SIGALRM, on_fault);
    if (nvmlInit_v2() != NVML_SUCCESS) { printf("FAIL nvmlInit_v2\n"); exit(2); }
    unsigned count = 0;
    nvmlDeviceGetCount_v2(&count);
    for (unsigned i = 0; i < count && n_devs < 16; i++)
        if (nvmlDeviceGetHandleByIndex_v2(i, &devs[n_devs]) == NVML_SUCCESS) n_devs++;
    unsigned physical = n_devs;
    for (unsigned i = 0; i < physical; i++) {
        unsigned max = 0;
        if (nvmlDeviceGetMaxMigDeviceCount(devs[i], &max) == NVML_SUCCESS)
            for (unsigned k = 0; k < max && n_devs < MAXH; k++)
                if (nvmlDeviceGetMigDeviceHandleByIndex(devs[i], k, &devs[n_devs]) == NVML_SUCCESS) n_devs++;
        for (unsigned id = 0; id < 16 && n_gis < MAXH; id++)
            if (nvmlDeviceGetGpuInstanceById(devs[i], id, &gis[n_gis]) == NVML_SUCCESS) n_gis++;
        unsigned c = MAXH - n_vtypes;
        if (nvmlDeviceGetSupportedVgpus(devs[i], &c, vtypes + n_vtypes) == NVML_SUCCESS) n_vtypes += c;
        c = MAXH - n_vinsts;
        if (nvmlDeviceGetActiveVgpus(devs[i], &c, vinsts + n_vinsts) == NVML_SUCCESS) n_vinsts += c;
    }
    for (unsigned g = 0; g < n_gis; g++)
        for (unsigned id = 0; id < 8 && n_cis < MAXH; id++)
            if (nvmlGpuInstanceGetComputeInstanceById(gis[g], id, &cis[n_cis]) == NVML_SUCCESS) n_cis++;
    if (nvmlUnitGetCount(&count) == NVML_SUCCESS)
        for (unsigned i = 0; i < count && n_units < MAXH; i++)
            if (nvmlUnitGetHandleByIndex(i, &units[n_units]) == NVML_SUCCESS) n_units++;
    if (nvmlEventSetCreate(&event_sets[0]) == NVML_SUCCESS) n_event_sets = 1;
    gpm_samples();
    printf("HANDLES devices %u units %u gpu_instances %u compute_instances %u vgpu_types %u vgpu_instances %u "
           "event_sets %u gpm_samples %u\n", n_devs, n_units, n_gis, n_cis, n_vtypes, n_vinsts, n_event_sets, n_samples);
}
"#;

/// How the lengths of one call vary.
#[derive(Debug, Clone, PartialEq)]
enum Lengths {
    /// No length: one call per place.
    None,
    /// An in/out count through a pointer: 0, 1, then the count the mock reported. Where the
    /// header says a non-NULL array "must be large enough" (the count is out only), a NULL
    /// array with the count 0 (the query), then the count reported.
    Count { query_only: bool },
    /// A length by value (elements or bytes): 0, 1 and a capacity.
    Sized { capacity: u64 },
    /// A string buffer: 1 byte and its documented size, or only its size where the call
    /// passes no length (the header fixes it).
    Str { size: u64, fixed: bool },
    /// An out-only count of arrays of a fixed capacity.
    Capped { capacity: u64 },
    /// Arrays a record points to, sized by its count field: 0, 1, then the count the mock
    /// wrote there.
    Inner,
    /// Arrays a record points to whose count is out only, which the header says to size by
    /// `nvmlVgpuTypeGetMaxInstances` of the call's device and vGPU type (the v1 placement
    /// lists): that many.
    MaxInstances,
}

/// One parameter as the harness passes it.
#[derive(Debug, Clone)]
enum Arg {
    /// A handle of the prelude's lists: iterated (the first parameter) or the first one.
    Handle { list: &'static str, iterate: bool },
    /// A C expression passed by value.
    Value(String),
    /// One pointee in a guarded buffer; a versioned record gets its version word, and the
    /// arrays its pointer fields point to guarded buffers of the call's length.
    One { ty: String, record: Option<String>, inner: Vec<Inner> },
    /// The count through a pointer (in/out or out-only).
    CountPtr,
    /// An array of `ty` elements sized by the call's length (in bytes when `bytes`).
    Array { ty: String, bytes: bool },
    /// The length by value.
    Len,
}

/// An array a record points to, sized by a count field of the record.
#[derive(Debug, Clone)]
struct Inner {
    field: String,
    count: String,
    elem: String,
    bytes: bool,
    /// The count field's comment says the caller sets it (`IN`, `IN/OUT`).
    count_is_input: bool,
}

/// The arrays `record`'s pointer fields point to, each with the count field beside it: the one
/// before it named as a count (`numProcArrayEntries`, `vgpuCount`), else the one after it
/// named as a size or count (`bufferSize`). Strings and untyped data are left NULL.
fn inner_arrays(model: &Model, record: &xtask::model::Record) -> Vec<Inner> {
    let is_int = |t: &Ty| matches!(model.resolve_typedef(t), Ty::UInt | Ty::Int | Ty::ULongLong | Ty::ULong);
    let counting = |n: &str| {
        let l = n.to_ascii_lowercase();
        l.contains("count") || l.starts_with("num") || l.contains("entries")
    };
    let mut out = Vec::new();
    for (k, f) in record.fields.iter().enumerate() {
        let Some(p) = pointee(&f.ty) else { continue };
        let bytes = match model.resolve_typedef(p) {
            Ty::Char | Ty::Void | Ty::Pointer { .. } | Ty::FnPtr { .. } => continue,
            Ty::UChar => true,
            _ => false,
        };
        let before = k.checked_sub(1).and_then(|b| record.fields.get(b)).filter(|b| is_int(&b.ty) && counting(&b.name));
        let after = record
            .fields
            .get(k + 1)
            .filter(|a| is_int(&a.ty) && (counting(&a.name) || a.name.to_ascii_lowercase().contains("size")));
        if let Some(count) = before.or(after) {
            let count_is_input = count.doc.as_deref().is_some_and(|d| d.trim_start().starts_with("IN"));
            out.push(Inner {
                field: f.name.clone(),
                count: count.name.clone(),
                elem: c_type(model, p),
                bytes,
                count_is_input,
            });
        }
    }
    out
}

/// A function's call, ready to emit.
struct Plan {
    args: Vec<(String, Arg)>,
    lengths: Lengths,
    /// Older layouts of the versioned record of a `One` parameter: (C type, version constant).
    older: Vec<(usize, String, String)>,
    record: bool,
}

/// The C spelling of a type of `model` as a declaration names it.
fn c_type(model: &Model, ty: &Ty) -> String {
    match ty {
        Ty::Named(n) if !model.typedefs.contains_key(n) && !model.handles.contains_key(n) => {
            if model.records.get(n).is_some_and(|r| r.tag.as_deref() == Some(n.as_str())) {
                format!("struct {n}")
            } else if model.enums.get(n).is_some_and(|e| e.tag.as_deref() == Some(n.as_str())) {
                format!("enum {n}")
            } else {
                n.clone()
            }
        }
        other => other.c_spelling(),
    }
}

/// The record a type names (after typedefs), if any.
fn record_of<'a>(model: &'a Model, ty: &Ty) -> Option<&'a xtask::model::Record> {
    match model.resolve_typedef(ty) {
        Ty::Named(n) => model.records.get(n),
        _ => None,
    }
}

/// A typedef that names record `name`, or the record's own spelling.
fn record_c_name(model: &Model, name: &str) -> String {
    model
        .typedefs
        .values()
        .find(|t| t.ty == Ty::Named(name.to_string()))
        .map(|t| t.name.clone())
        .unwrap_or_else(|| c_type(model, &Ty::Named(name.to_string())))
}

/// The version constant a caller sets in record `name`, if it has a version word.
fn version_of(model: &Model, encoded: &BTreeMap<String, (String, i128)>, name: &str) -> Option<String> {
    let r = model.records.get(name)?;
    r.fields.first().filter(|f| f.name == "version" && f.offset == 0)?;
    encoded.get(name).map(|(c, _)| c.clone()).or_else(|| sizes::named_version(model, r).map(|(c, _)| c))
}

fn handle_list(ty: &Ty) -> Option<&'static str> {
    let Ty::Named(n) = ty else { return None };
    HANDLES.iter().find(|(h, _)| h == n).map(|(_, l)| *l)
}

/// A value for a by-value parameter.
fn value_of(model: &Model, ty: &Ty) -> Result<String, String> {
    match model.resolve_typedef(ty) {
        Ty::Pointer { .. } | Ty::FnPtr { .. } | Ty::Void | Ty::Array { .. } => {
            Err(format!("a parameter of type `{}`", ty.c_spelling()))
        }
        Ty::Named(n) if model.records.contains_key(n) => Ok(format!("({}){{0}}", c_type(model, ty))),
        Ty::Named(n) if model.handles.contains_key(n) => Err(format!("a `{n}` handle the harness has none of")),
        _ => Ok(format!("({})0", c_type(model, ty))),
    }
}

/// The pointee of a pointer type.
fn pointee(ty: &Ty) -> Option<&Ty> {
    match ty {
        Ty::Pointer { pointee, .. } => Some(pointee),
        _ => None,
    }
}

/// One pointee in a guarded buffer.
fn one(model: &Model, encoded: &BTreeMap<String, (String, i128)>, ty: &Ty) -> Result<Arg, String> {
    let p = pointee(ty).ok_or_else(|| format!("`{}` is not a pointer", ty.c_spelling()))?;
    match model.resolve_typedef(p) {
        Ty::Void | Ty::Pointer { .. } | Ty::FnPtr { .. } => {
            return Err(format!("a pointer to `{}`", p.c_spelling()));
        }
        Ty::Char if !matches!(ty, Ty::Pointer { is_const: true, .. }) => {
            return Err("a `char` buffer of no known size".into());
        }
        _ => {}
    }
    let record = record_of(model, p).and_then(|r| version_of(model, encoded, &r.name));
    let inner = record_of(model, p).map(|r| inner_arrays(model, r)).unwrap_or_default();
    Ok(Arg::One { ty: c_type(model, p), record, inner })
}

/// The call of `f`: from its reading where the plan has one, else from its C types alone.
fn plan_call(planned: &Planned, f: &Function) -> Result<Plan, String> {
    let model = &planned.bindings.model;
    let encoded = sizes::encoded_versions(model);
    if NEVER.iter().any(|w| f.name.starts_with(w)) {
        return Err("never called (it starts or ends the library)".into());
    }
    // A reading with doubts is no basis for sizes: the C types alone are.
    let call: Option<&Call> =
        planned.plan.functions.get(&f.name).and_then(|c| c.as_ref().ok()).filter(|c| c.doubts.is_empty());
    let mut args = Vec::new();
    let mut lengths = Lengths::None;
    let set = |l: Lengths, lengths: &mut Lengths| -> Result<(), String> {
        if *lengths != Lengths::None && *lengths != l {
            return Err("two kinds of length".to_string());
        }
        *lengths = l;
        Ok(())
    };
    for (i, p) in f.params.iter().enumerate() {
        let role = call.and_then(|c| c.params.get(i)).map(|pp| &pp.role);
        let arg = match (handle_list(&p.ty), role) {
            (Some(list), _) => Arg::Handle { list, iterate: i == 0 },
            (None, Some(Role::SelfConsumed)) => return Err("consumes its handle".into()),
            // Without a reading: a buffer (`char`, or a record with a tail) whose size in bytes
            // an `unsigned int *` after it gives and takes (`nvmlDeviceGetPgpuMetadataString`,
            // `nvmlVgpuInstanceGetMetadata`'s `bufferSize`).
            (None, None) if is_sized_buffer(model, f, i) => {
                set(Lengths::Count { query_only: false }, &mut lengths)?;
                Arg::Array { ty: elem(model, &p.ty)?, bytes: true }
            }
            (None, None) if i > 0 && is_sized_buffer(model, f, i - 1) => Arg::CountPtr,
            (None, Some(Role::SelfHandle)) => {
                return Err(format!("a `{}` handle the harness has none of", p.ty.c_spelling()))
            }
            (None, Some(Role::InStr)) => Arg::Value("\"\"".into()),
            (None, Some(Role::StrBuf { size })) => {
                let fixed = !call.is_some_and(|c| c.params.iter().any(|q| matches!(q.role, Role::StrLen { .. })));
                set(Lengths::Str { size: *size, fixed }, &mut lengths)?;
                Arg::Array { ty: "char".into(), bytes: true }
            }
            (None, Some(Role::StrLen { by_ptr })) => {
                if *by_ptr {
                    Arg::CountPtr
                } else {
                    Arg::Len
                }
            }
            (None, Some(Role::Count { .. })) => {
                let query_only = f.docs.params.values().any(|d| d.text.contains("must be large enough"));
                set(Lengths::Count { query_only }, &mut lengths)?;
                Arg::CountPtr
            }
            (None, Some(Role::Array { .. })) => Arg::Array { ty: elem(model, &p.ty)?, bytes: false },
            (None, Some(Role::CappedCount)) => Arg::CountPtr,
            (None, Some(Role::Capped { capacity, .. })) => {
                set(Lengths::Capped { capacity: *capacity }, &mut lengths)?;
                Arg::Array { ty: elem(model, &p.ty)?, bytes: false }
            }
            (None, Some(Role::SizedLen { bytes, capacity })) => {
                set(Lengths::Sized { capacity: capacity.unwrap_or(if *bytes { 64 } else { 4 }) }, &mut lengths)?;
                Arg::Len
            }
            (None, Some(Role::SizedArray { .. })) => {
                let bytes =
                    call.is_some_and(|c| c.params.iter().any(|q| matches!(q.role, Role::SizedLen { bytes: true, .. })));
                Arg::Array { ty: elem(model, &p.ty)?, bytes }
            }
            (None, Some(Role::In(_))) | (None, None) if pointee(&p.ty).is_none() => Arg::Value(value_of(model, &p.ty)?),
            (None, None) if matches!(&p.ty, Ty::Pointer { pointee, is_const: true } if **pointee == Ty::Char) => {
                Arg::Value("\"\"".into())
            }
            (None, _) => one(model, &encoded, &p.ty)?,
        };
        args.push((p.name.clone(), arg));
    }
    if args.iter().any(|(_, a)| matches!(a, Arg::Array { .. })) && lengths == Lengths::None {
        return Err("an array without a length the harness knows".into());
    }
    if args.iter().any(|(_, a)| matches!(a, Arg::Len | Arg::CountPtr)) && lengths == Lengths::None {
        return Err("a length without an array".into());
    }
    if !args.iter().any(|(_, a)| matches!(a, Arg::One { .. } | Arg::Array { .. } | Arg::CountPtr)) {
        return Err("writes through no pointer".into());
    }
    // The arrays inside a record vary in length where nothing else does.
    let has_inner = args.iter().any(|(_, a)| matches!(a, Arg::One { inner, .. } if !inner.is_empty()));
    let by_max =
        f.doc.as_deref().is_some_and(|d| {
            d.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains("allocated based on maximum instances of a vGPU type")
        }) && args.iter().any(|(_, a)| matches!(a, Arg::One { inner, .. } if inner.iter().any(|i| !i.count_is_input)))
            && args.iter().any(|(_, a)| matches!(a, Arg::Handle { list: "vtypes", .. }));
    if has_inner && lengths == Lengths::None {
        lengths = if by_max { Lengths::MaxInstances } else { Lengths::Inner };
    } else {
        for (_, a) in &mut args {
            if let Arg::One { inner, .. } = a {
                inner.clear();
            }
        }
    }
    // Each older layout of a versioned record the function takes alone.
    let mut older = Vec::new();
    for (i, (_, a)) in args.iter().enumerate() {
        let Arg::One { record: Some(_), .. } = a else { continue };
        let Some(r) = pointee(&f.params[i].ty).and_then(|p| record_of(model, p)) else { continue };
        for o in planned.plan.older_layouts.get(&r.name).into_iter().flatten() {
            if let Some(v) = version_of(model, &encoded, o) {
                older.push((i, record_c_name(model, o), v));
            }
        }
    }
    let record = f.params.iter().any(|p| pointee(&p.ty).and_then(|t| record_of(model, t)).is_some());
    Ok(Plan { args, lengths, older, record })
}

/// Whether parameter `i` of `f` is a `char *` or record buffer followed by an
/// `unsigned int *` named as its size or length.
fn is_sized_buffer(model: &Model, f: &Function, i: usize) -> bool {
    let (Some(p), Some(next)) = (f.params.get(i), f.params.get(i + 1)) else { return false };
    let char_buf = matches!(&p.ty, Ty::Pointer { pointee, is_const: false }
        if **pointee == Ty::Char || record_of(model, pointee).is_some());
    let size =
        matches!(&next.ty, Ty::Pointer { pointee, is_const: false } if *model.resolve_typedef(pointee) == Ty::UInt);
    let named = next.name.to_ascii_lowercase();
    char_buf && size && (named.contains("size") || named.contains("length") || named.contains("len"))
}

/// The C element type of an array parameter.
fn elem(model: &Model, ty: &Ty) -> Result<String, String> {
    let p = pointee(ty).ok_or_else(|| format!("array `{}` is not a pointer", ty.c_spelling()))?;
    if matches!(model.resolve_typedef(p), Ty::Void | Ty::FnPtr { .. }) {
        return Err(format!("an array of `{}`", p.c_spelling()));
    }
    Ok(c_type(model, p))
}

/// The C function that makes every call of `plan` to `f`.
fn emit(f: &Function, plan: &Plan) -> String {
    let mut c = String::new();
    let sym = &f.name;
    // Looked up, not linked: a symbol the mock lacks is reported, and the rest still run.
    let _ = writeln!(
        c,
        "static void call_{sym}(void) {{\n    current = \"{sym}\";\n    \
         __typeof__(&{sym}) fn = (__typeof__(&{sym}))dlsym(RTLD_DEFAULT, \"{sym}\");\n    \
         if (!fn) {{ printf(\"MISSING {sym}\\n\"); return; }}\n    \
         unsigned reported[MAXH] = {{0}};\n    (void)reported;\n    long made = 0;"
    );
    // Variants: the lengths, then each older layout with the first length.
    let lens: Vec<String> = match &plan.lengths {
        Lengths::None => vec!["0".into()],
        Lengths::Count { query_only: false } => vec!["0".into(), "1".into(), "reported[h]".into()],
        Lengths::Count { query_only: true } => vec!["0".into(), "reported[h]".into()],
        Lengths::Sized { capacity } => vec!["0".into(), "1".into(), capacity.to_string()],
        Lengths::Str { size, fixed: false } => vec!["1".into(), size.to_string()],
        Lengths::Str { size, fixed: true } => vec![size.to_string()],
        Lengths::Capped { capacity } => vec![capacity.to_string()],
        Lengths::Inner => vec!["0".into(), "1".into(), "reported[h]".into()],
        Lengths::MaxInstances => vec!["max".into()],
    };
    let mut variants: Vec<(String, Option<usize>)> = lens.iter().map(|l| (l.clone(), None)).collect();
    for k in 0..plan.older.len() {
        variants.push((lens[0].clone(), Some(k)));
    }
    let iterate = plan.args.iter().find_map(|(_, a)| match a {
        Arg::Handle { list, iterate: true } => Some(*list),
        _ => None,
    });
    for (v, (len, layout)) in variants.iter().enumerate() {
        let _ = writeln!(c, "    current_variant = {v};");
        match iterate {
            Some(list) => {
                let _ = writeln!(c, "    for (unsigned h = 0; h < n_{list} && h < 8; h++) {{");
            }
            None => {
                let _ = writeln!(c, "    for (unsigned h = 0; h < 1; h++) {{");
            }
        }
        if len == "max" {
            let _ = writeln!(
                c,
                "    if (n_vtypes == 0) continue;\n    unsigned len = 0;\n    \
                 if (nvmlVgpuTypeGetMaxInstances(devs[h], vtypes[0], &len) != NVML_SUCCESS || len > 4096) continue;"
            );
        } else {
            let _ = writeln!(c, "    unsigned len = {len};");
        }
        if len == "reported[h]" {
            let _ = writeln!(c, "    if (len <= 1 || len > 4096) continue;");
        }
        let _ = writeln!(c, "    for (int place = 0; place < 2; place++) {{\n    current_place = place;");
        let mut call_args = Vec::new();
        let mut guards: Vec<(String, String)> = Vec::new();
        let mut reported_from: Option<String> = None;
        for (i, (name, a)) in plan.args.iter().enumerate() {
            match a {
                Arg::Handle { list, iterate } => {
                    if *iterate {
                        call_args.push(format!("{list}[h]"));
                    } else {
                        let _ = writeln!(c, "    if (n_{list} == 0) continue;");
                        call_args.push(format!("{list}[0]"));
                    }
                }
                Arg::Value(v) => call_args.push(v.clone()),
                Arg::Len => call_args.push("len".into()),
                Arg::CountPtr => {
                    let _ = writeln!(
                        c,
                        "    guarded_t g{i} = gp(sizeof(unsigned int), place);\n    *(unsigned int *)g{i}.buf = len;"
                    );
                    call_args.push(format!("(unsigned int *)g{i}.buf"));
                    guards.push((i.to_string(), name.clone()));
                }
                Arg::Array { ty, bytes } => {
                    let size = if *bytes { "(size_t)len".to_string() } else { format!("(size_t)len * sizeof({ty})") };
                    let _ = writeln!(c, "    guarded_t g{i} = gp({size}, place);");
                    if plan.lengths == (Lengths::Count { query_only: true }) && v == 0 {
                        call_args.push("NULL".into());
                    } else {
                        call_args.push(format!("({ty} *)g{i}.buf"));
                    }
                    guards.push((i.to_string(), name.clone()));
                }
                Arg::One { ty, record, inner } => {
                    let older = layout.and_then(|k| plan.older.get(k)).filter(|(p, _, _)| *p == i);
                    match (older, record) {
                        (Some((_, oty, oversion)), _) => {
                            let _ = writeln!(c, "    guarded_t g{i} = gp(sizeof({oty}), place);\n    (({oty} *)g{i}.buf)->version = {oversion};");
                        }
                        (None, Some(version)) => {
                            let _ = writeln!(c, "    guarded_t g{i} = gp(sizeof({ty}), place);\n    (({ty} *)g{i}.buf)->version = {version};");
                        }
                        (None, None) => {
                            let _ = writeln!(c, "    guarded_t g{i} = gp(sizeof({ty}), place);");
                        }
                    }
                    call_args.push(format!("({ty} *)g{i}.buf"));
                    guards.push((i.to_string(), name.clone()));
                    if older.is_none() {
                        for (k, a) in inner.iter().enumerate() {
                            let (field, count, elem) = (&a.field, &a.count, &a.elem);
                            let size = if a.bytes {
                                "(size_t)len".to_string()
                            } else {
                                format!("(size_t)len * sizeof({elem})")
                            };
                            let _ = writeln!(
                                c,
                                "    guarded_t g{i}_{k} = gp({size}, place);\n    \
                                 (({ty} *)g{i}.buf)->{field} = (void *)g{i}_{k}.buf;\n    \
                                 (({ty} *)g{i}.buf)->{count} = len;"
                            );
                            guards.push((format!("{i}_{k}"), format!("{name}.{field}")));
                            if k == 0 {
                                reported_from = Some(format!("(({ty} *)g{i}.buf)->{count}"));
                            }
                        }
                    }
                }
            }
        }
        let _ = writeln!(c, "    nvmlReturn_t r = fn({});\n    (void)r;\n    made++;", call_args.join(", "));
        if let (Lengths::Inner, Some(from), 0) = (&plan.lengths, &reported_from, v) {
            let _ = writeln!(c, "    if (place == 0) reported[h] = (unsigned)({from});");
        }
        if matches!(plan.lengths, Lengths::Count { .. }) && v == 0 {
            if let Some((i, _)) = plan.args.iter().enumerate().find(|(_, (_, a))| matches!(a, Arg::CountPtr)) {
                let _ = writeln!(c, "    if (place == 0) reported[h] = *(unsigned int *)g{i}.buf;");
            }
        }
        for (i, name) in guards.iter().rev() {
            let _ = writeln!(c, "    check(&g{i}, \"{name}\");");
        }
        let _ = writeln!(c, "    }}\n    }}");
    }
    let _ = writeln!(
        c,
        "    if (made > 0) printf(\"COVER {sym} {} %ld\\n\", made);\n}}\n",
        if plan.record { "record" } else { "value" }
    );
    c
}

/// The functions a harness does not call: why, and whether each takes a record through a
/// pointer.
type Left = BTreeMap<String, (String, bool)>;

/// The harness of one header: its C source, the functions it calls (with whether each takes
/// a record), and the functions it leaves out with why.
fn harness(planned: &Planned) -> (String, BTreeMap<String, bool>, Left) {
    let model = &planned.bindings.model;
    // GPM came with 11.8: a header without it gets no samples.
    let mut c = String::from(if model.functions.contains_key("nvmlGpmSampleAlloc") {
        "static unsigned n_samples;\nstatic nvmlGpmSample_t samples[2];\nstatic void gpm_samples(void) {\n    \
         for (unsigned i = 0; i < 2; i++)\n        \
         if (nvmlGpmSampleAlloc(&samples[n_samples]) == NVML_SUCCESS) n_samples++;\n}\n"
    } else {
        "static unsigned n_samples;\nstatic void *samples[2];\nstatic void gpm_samples(void) {}\n"
    });
    c.insert_str(0, PRELUDE_HEAD);
    c.push_str(PRELUDE);
    let (mut called, mut left) = (BTreeMap::new(), BTreeMap::new());
    let mut order = Vec::new();
    for f in model.functions.values() {
        // Legacy prototypes are hidden unless NVML_NO_UNVERSIONED_FUNC_DEFS; the current
        // symbols are what a client of the header calls.
        if f.legacy {
            continue;
        }
        match plan_call(planned, f) {
            Ok(plan) => {
                c.push_str(&emit(f, &plan));
                called.insert(f.name.clone(), plan.record);
                order.push(f.name.clone());
            }
            Err(why) => {
                let record = f.params.iter().any(|p| pointee(&p.ty).and_then(|t| record_of(model, t)).is_some());
                left.insert(f.name.clone(), (why, record));
            }
        }
    }
    // Each function in a child of its own: a fault ends that one only, and what a setter
    // changes stays in its child.
    c.push_str(
        "static int failed = 0;\n\
         static void isolated(void (*call)(void)) {\n    \
         fflush(stdout);\n    \
         pid_t pid = fork();\n    \
         if (pid == 0) { alarm(20); call(); fflush(stdout); _exit(failures != 0); }\n    \
         int status = 0;\n    \
         if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) failed = 1;\n\
         }\n\
         int main(void) {\n    prelude();\n",
    );
    for name in &order {
        let _ = writeln!(c, "    isolated(call_{name});");
    }
    c.push_str("    printf(\"DONE\\n\");\n    return failed;\n}\n");
    (c, called, left)
}

/// What the harness of one header found on each profile.
struct Outcome {
    version: String,
    /// Each function called → whether it takes a record through a pointer.
    called: BTreeMap<String, bool>,
    /// Each function not called → why, and whether it takes a record through a pointer.
    left: Left,
    /// Profile → the functions that made a call there.
    covered: BTreeMap<String, BTreeSet<String>>,
    calls: u64,
    failures: Vec<String>,
    /// Functions of the header the mock does not export.
    missing: BTreeSet<String>,
}

fn run_header(planned: &Planned, version: &str, header: &Path, lib: &Path, dir: &Path) -> Outcome {
    let (source, called, left) = harness(planned);
    std::fs::create_dir_all(dir).unwrap();
    let c = dir.join("harness.c");
    std::fs::write(&c, source).unwrap();
    let exe = dir.join("harness");
    let out = Command::new(std::env::var_os("CC").unwrap_or_else(|| "cc".into()))
        .arg(&c)
        .arg(format!("-I{}", header.parent().unwrap().display()))
        .arg(format!("-I{}", project_root().join("crates/nvml-mock/tests/c").display()))
        .args(["-O0", "-w", "-o"])
        .arg(&exe)
        .arg(format!("-L{}", lib.display()))
        .args(["-lnvidia-ml", "-ldl", "-Wl,-z,now"])
        .output()
        .expect("needs a C compiler (`cc`)");
    let mut o = Outcome {
        version: version.into(),
        called,
        left,
        covered: BTreeMap::new(),
        calls: 0,
        failures: Vec::new(),
        missing: BTreeSet::new(),
    };
    if !out.status.success() {
        o.failures.push(format!("{version}: the harness does not compile:\n{}", String::from_utf8_lossy(&out.stderr)));
        return o;
    }
    for profile in PROFILES {
        let mut cmd = Command::new(&exe);
        for var in nvml_mock::testing::CLEARED_ENV {
            cmd.env_remove(var);
        }
        let run = cmd.env("LD_LIBRARY_PATH", lib).env("NVML_MOCK_PROFILE", profile).output().unwrap();
        let text = String::from_utf8_lossy(&run.stdout).into_owned();
        let mut covered = BTreeSet::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("COVER ") {
                let mut words = rest.split(' ');
                covered.insert(words.next().unwrap_or("").to_string());
                o.calls += words.nth(1).and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
            } else if let Some(rest) = line.strip_prefix("MISSING ") {
                o.missing.insert(rest.to_string());
            } else if line.starts_with("FAIL") || line.starts_with("FAULT") {
                o.failures.push(format!("{version} on {profile}: {line}"));
            }
        }
        let reported = text.lines().any(|l| l.starts_with("FAIL") || l.starts_with("FAULT"));
        if (run.status.code() != Some(0) && !reported) || !text.lines().any(|l| l == "DONE") {
            o.failures.push(format!(
                "{version} on {profile}: exit {:?}\n{}{}",
                run.status.code(),
                text.lines().rev().take(5).collect::<Vec<_>>().join("\n"),
                String::from_utf8_lossy(&run.stderr)
            ));
        }
        o.covered.insert(profile.to_string(), covered);
    }
    o
}

#[test]
fn the_mock_touches_nothing_outside_the_callers_buffers_for_any_header() {
    let root = project_root();
    let corpus = std::env::var_os("NVML_CORPUS").is_some_and(|v| !v.is_empty() && v != "0");
    let default_version = headers::default_version(&root).unwrap();
    let versions: Vec<String> = if corpus {
        headers::corpus(&root).unwrap().into_iter().map(|e| e.version).collect()
    } else {
        eprintln!("guard pages: the vendored header only; NVML_CORPUS=1 runs every published header");
        vec![default_version.clone()]
    };
    let paths: Vec<PathBuf> = versions.iter().map(|v| header_path(&root, v, &Pip::default()).unwrap()).collect();
    let base = scratch("guard-pages");
    let lib = nvml_mock::testing::mock_lib_dir(&base);
    let default = pipeline::planned(&root, &Inputs::default()).unwrap();
    let next = AtomicUsize::new(0);
    let outcomes = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get()).min(versions.len());
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(version) = versions.get(i) else { break };
                let inputs = Inputs { header: Some(version.clone()), ..Inputs::default() };
                let planned = if *version == default_version {
                    default.clone()
                } else {
                    pipeline::adapted(&root, &inputs, Some(&default)).unwrap().0
                };
                let o = run_header(&planned, version, &paths[i], &lib, &base.join(version));
                outcomes.lock().unwrap().push(o);
            });
        }
    });
    let mut outcomes = outcomes.into_inner().unwrap();
    outcomes.sort_by_key(|o| xtask::model::version_key(&o.version));

    // The report: per header, then each function's headers.
    let mut report =
        String::from("guard pages: functions called with guarded buffers, per header (on any of the profiles)\n");
    let _ = writeln!(report, "profiles: {}", PROFILES.join(", "));
    let _ = writeln!(
        report,
        "{:<10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}",
        "header", "record", "value", "left", "missing", "calls", "failures"
    );
    let mut missing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut by_function: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut failures = Vec::new();
    for o in &outcomes {
        let covered: BTreeSet<&String> = o.covered.values().flatten().collect();
        let record = covered.iter().filter(|f| o.called.get(f.as_str()) == Some(&true)).count();
        let failed = o.failures.len();
        let _ = writeln!(
            report,
            "{:<10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>10}",
            o.version,
            record,
            covered.len() - record,
            o.left.len() + (o.called.len() - covered.len() - o.missing.len()),
            o.missing.len(),
            o.calls,
            failed
        );
        for f in &o.missing {
            missing.entry(f.as_str()).or_default().push(o.version.as_str());
        }
        for f in &covered {
            by_function.entry(f.as_str()).or_default().push(o.version.as_str());
        }
        failures.extend(o.failures.iter().cloned());
    }
    let _ = writeln!(report, "\nfunctions × headers ({} functions):", by_function.len());
    for (f, hs) in &by_function {
        let span = if hs.len() == 1 { hs[0].to_string() } else { format!("{} .. {}", hs[0], hs[hs.len() - 1]) };
        let _ = writeln!(report, "  {f}: {} header(s), {span}", hs.len());
    }
    let _ = writeln!(report, "\nfunctions of a header the mock does not export ({}):", missing.len());
    for (f, hs) in &missing {
        let _ = writeln!(report, "  {f}: {}", hs.join(", "));
    }
    if let Some(o) = outcomes.last() {
        let never: Vec<String> = o
            .called
            .keys()
            .filter(|f| !o.covered.values().any(|c| c.contains(*f)) && !o.missing.contains(*f))
            .map(|f| format!("  {f}: no call made (no handle of its kind on these profiles)"))
            .collect();
        let _ = writeln!(report, "\nleft out of nvml.h {} ({} functions):", o.version, o.left.len() + never.len());
        for (f, (why, _)) in &o.left {
            let _ = writeln!(report, "  {f}: {why}");
        }
        for line in never {
            let _ = writeln!(report, "{line}");
        }
    }
    std::fs::write(base.join("report.txt"), &report).unwrap();
    println!("{report}");
    eprintln!("guard pages: report in {}", base.join("report.txt").display());
    assert!(failures.is_empty(), "the mock touched memory outside a caller's buffer:\n{}", failures.join("\n"));
    let newest = outcomes.iter().find(|o| o.version == default_version).unwrap();
    let covered: BTreeSet<&String> = newest.covered.values().flatten().collect();
    // Every function that takes a record through a pointer is called, in every header, but
    // those of a handle no profile has (units: S-class systems only).
    let mut uncovered = Vec::new();
    for o in &outcomes {
        for (f, (why, record)) in &o.left {
            if *record {
                uncovered.push(format!("{}: {f}: {why}", o.version));
            }
        }
        for (f, record) in &o.called {
            let made = o.covered.values().any(|c| c.contains(f));
            if *record && !made && !f.starts_with("nvmlUnit") {
                uncovered.push(format!("{}: {f}: no call made", o.version));
            }
        }
    }
    assert!(uncovered.is_empty(), "functions that take a record are not covered:\n{}", uncovered.join("\n"));
    // Real coverage, not an empty run: the device getters with records are called.
    for f in [
        "nvmlDeviceGetMemoryInfo_v2",
        "nvmlDeviceGetPciInfo_v3",
        "nvmlGpmMetricsGet",
        "nvmlDeviceGetComputeRunningProcesses_v3",
    ] {
        assert!(covered.contains(&f.to_string()), "{f} was not called:\n{report}");
    }
}
