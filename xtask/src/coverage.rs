//! `cargo xtask coverage`: how much of the header the safe crate wraps, from the same plan
//! the safe emitter follows.

use std::fmt::Write;

use serde::Serialize;

use crate::pipeline::Planned;
use crate::plan::Wrapping;

#[derive(Debug, Clone, Serialize)]
pub struct Coverage {
    pub header: String,
    /// Non-legacy functions of the header.
    pub total: usize,
    /// Those a generated or hand-written safe method calls.
    pub wrapped: usize,
    /// Generated methods.
    pub methods: usize,
    /// Of `wrapped`, those wrapped by hand-written code (`manual` rules).
    pub manual: usize,
    /// Every function without a safe method, with the reason.
    pub unwrapped: Vec<Missing>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Missing {
    pub function: String,
    pub wrapping: Wrapping,
}

pub fn coverage(p: &Planned) -> Coverage {
    let b = &p.bindings;
    let mut wrapped = 0;
    let mut manual = 0;
    let mut unwrapped = Vec::new();
    let current: Vec<_> = b.model.current_functions().collect();
    for f in &current {
        match p.plan.wrapping(f) {
            Wrapping::Automatic(_) => wrapped += 1,
            Wrapping::Manual(_) => {
                wrapped += 1;
                manual += 1;
            }
            w => unwrapped.push(Missing { function: f.name.clone(), wrapping: w }),
        }
    }
    Coverage {
        header: b.model.header.version.clone(),
        total: current.len(),
        wrapped,
        methods: p.plan.methods.len(),
        manual,
        unwrapped,
    }
}

impl Coverage {
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let pct = if self.total == 0 { 100.0 } else { 100.0 * self.wrapped as f64 / self.total as f64 };
        let _ = writeln!(
            s,
            "nvml.h {}: {}/{} functions have a safe method ({pct:.1}%): {} generated methods, {} functions wrapped by hand",
            self.header, self.wrapped, self.total, self.methods, self.manual
        );
        if !self.unwrapped.is_empty() {
            let _ = writeln!(s, "\nwithout a safe method ({}):", self.unwrapped.len());
            for m in &self.unwrapped {
                let why = match &m.wrapping {
                    Wrapping::Skipped(r) => format!("skipped: {r}"),
                    Wrapping::NeedsRule(r) => format!("needs a rule or hand code: {r}"),
                    Wrapping::Manual(f) | Wrapping::Automatic(f) => f.clone(),
                };
                let _ = writeln!(s, "  {:<52} {why}", m.function);
            }
        }
        s
    }
}
