//! The call log (`NVML_MOCK_LOG`): every call the mock receives of a function that answers a
//! return code (all but `nvmlErrorString`), the slot of an internal call (`nvidia-smi`'s export
//! table) with its arguments, and the code answered, one line each, to
//! standard error (`NVML_MOCK_LOG=stderr` or `1`) or appended to a file (any other value).
//! Off by default: the check is one load of a value set once.
//!
//! `NVML_MOCK_SLOT_WRITE=SLOT:ARG:VALUE[,...]` also writes the 32-bit `VALUE` through argument
//! `ARG` (0-based) of each call of internal slot `SLOT`: a way to find out what a slot of
//! another `nvidia-smi` expects.

use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::{Mutex, OnceLock};

use nvml_sys::nvmlReturn_t;

enum Sink {
    Stderr,
    File(Mutex<std::fs::File>),
}

fn sink() -> Option<&'static Sink> {
    static SINK: OnceLock<Option<Sink>> = OnceLock::new();
    SINK.get_or_init(|| {
        let v = std::env::var("NVML_MOCK_LOG").ok().filter(|v| !v.is_empty() && v != "0")?;
        if v == "stderr" || v == "1" {
            return Some(Sink::Stderr);
        }
        match std::fs::OpenOptions::new().create(true).append(true).open(&v) {
            Ok(f) => Some(Sink::File(Mutex::new(f))),
            Err(e) => {
                eprintln!("nvml-mock: NVML_MOCK_LOG: cannot open {v}: {e}; logging to standard error");
                Some(Sink::Stderr)
            }
        }
    })
    .as_ref()
}

/// Whether calls are logged.
pub fn on() -> bool {
    sink().is_some()
}

fn write(line: &str) {
    match sink() {
        Some(Sink::Stderr) => eprintln!("{line}"),
        Some(Sink::File(f)) => {
            if let Ok(mut f) = f.lock() {
                let _ = writeln!(f, "{line}");
            }
        }
        None => {}
    }
}

/// The name of a return code.
fn code_name(code: nvmlReturn_t) -> String {
    crate::generated::names::CONSTANTS
        .iter()
        .find(|(n, v)| *v == i128::from(code) && (*n == "NVML_SUCCESS" || n.starts_with("NVML_ERROR_")))
        .map(|(n, _)| (*n).to_string())
        .unwrap_or_else(|| code.to_string())
}

/// Logs a call of `function`.
pub fn call(function: &str, slot: Option<usize>, code: nvmlReturn_t) {
    if !on() {
        return;
    }
    let slot = slot.map(|s| format!(" slot {s}")).unwrap_or_default();
    write(&format!("nvml-mock[{}]: {function}{slot} -> {}", std::process::id(), code_name(code)));
}

/// Logs a call of an internal slot: its arguments, and the bytes of those that point into the
/// caller's stack (the device handles among them named).
pub fn slot(slot: usize, args: &[usize; 6], code: nvmlReturn_t) {
    if !on() {
        return;
    }
    let here = 0u8;
    let near = &here as *const u8 as usize;
    let handles: Vec<usize> = super::engine()
        .system()
        .map(|s| (0..s.devices.len()).map(|i| s.handle(i) as usize).collect())
        .unwrap_or_default();
    let mut line = format!("nvml-mock[{}]: internal slot {slot}(", std::process::id());
    for (i, a) in args.iter().enumerate() {
        let _ = write!(line, "{}{a:#x}", if i > 0 { ", " } else { "" });
        if let Some(d) = handles.iter().position(|h| h == a) {
            let _ = write!(line, "=gpu{d}");
        }
        if let Some(bytes) = crate::ffi::stack_bytes(*a, near) {
            line.push_str(" [");
            for (j, w) in bytes.chunks(8).enumerate() {
                let word = u64::from_ne_bytes(w.try_into().unwrap_or([0; 8]));
                let _ = write!(line, "{}{word:#x}", if j > 0 { " " } else { "" });
                if let Some(d) = handles.iter().position(|h| *h as u64 == word) {
                    let _ = write!(line, "=gpu{d}");
                }
            }
            line.push(']');
        }
    }
    let _ = write!(line, ") -> {}", code_name(code));
    write(&line);
}

/// `NVML_MOCK_SLOT_WRITE`: `(slot, argument, value)`.
pub fn slot_writes() -> &'static [(usize, usize, u32)] {
    static WRITES: OnceLock<Vec<(usize, usize, u32)>> = OnceLock::new();
    WRITES.get_or_init(|| {
        let spec = std::env::var("NVML_MOCK_SLOT_WRITE").unwrap_or_default();
        spec.split(',')
            .filter_map(|w| {
                let mut it = w.trim().split(':').map(|n| n.trim().parse::<u64>().ok());
                let (s, a, v) = (it.next()??, it.next()??, it.next()??);
                Some((s as usize, a as usize, v as u32))
            })
            .collect()
    })
}
