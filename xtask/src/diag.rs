//! Diagnostics collected per phase and reported together, so one run shows every problem.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Note,
    Warning,
    Error,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Diag {
    pub level: Level,
    /// `file:line` or `file: rule` where known.
    pub place: String,
    pub message: String,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.level {
            Level::Note => "note",
            Level::Warning => "warning",
            Level::Error => "error",
        };
        if self.place.is_empty() {
            write!(f, "{level}: {}", self.message)
        } else {
            write!(f, "{level}: {}: {}", self.place, self.message)
        }
    }
}

/// The diagnostics of one phase (`parse`, `rules`, `emit`).
#[derive(Debug, Default)]
pub struct Diagnostics {
    phase: &'static str,
    items: Vec<Diag>,
}

impl Diagnostics {
    pub fn new(phase: &'static str) -> Diagnostics {
        Diagnostics { phase, items: Vec::new() }
    }

    pub fn push(&mut self, level: Level, place: impl Into<String>, message: impl Into<String>) {
        self.items.push(Diag { level, place: place.into(), message: message.into() });
    }

    pub fn error(&mut self, place: impl Into<String>, message: impl Into<String>) {
        self.push(Level::Error, place, message);
    }

    pub fn warn(&mut self, place: impl Into<String>, message: impl Into<String>) {
        self.push(Level::Warning, place, message);
    }

    pub fn note(&mut self, place: impl Into<String>, message: impl Into<String>) {
        self.push(Level::Note, place, message);
    }

    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|d| d.level == Level::Error)
    }

    pub fn items(&self) -> &[Diag] {
        &self.items
    }

    pub fn count(&self, level: Level) -> usize {
        self.items.iter().filter(|d| d.level == level).count()
    }

    /// Prints warnings and errors (and notes when `verbose`) to stderr, then fails the phase
    /// if there was any error.
    pub fn finish(self, verbose: bool) -> anyhow::Result<Vec<Diag>> {
        for d in &self.items {
            if verbose || d.level != Level::Note {
                eprintln!("{d}");
            }
        }
        let errors = self.count(Level::Error);
        if errors > 0 {
            anyhow::bail!("{} phase failed with {errors} error(s); nothing was written", self.phase);
        }
        Ok(self.items)
    }
}
