//! Emit jobs: parts of a regen's output, each written and laid out on a thread of its own.
//!
//! A job's emitter builds token streams, which cannot leave the thread that made them, so a
//! job also lays out its own files ([`Output::format`]): what crosses threads is text. The
//! jobs start heaviest first, on a thread per core, and their files and diagnostics are put
//! together in the order the jobs were given, whatever order they finished in.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{GeneratedFile, Output};
use crate::diag::Diagnostics;

/// What a job runs: it writes into its own [`Output`] and [`Diagnostics`].
pub type Work<'a> = Box<dyn FnOnce(&mut Output, &mut Diagnostics) -> Result<()> + Send + 'a>;

/// One part of the output.
pub struct Job<'a> {
    /// What it writes, for the bench (`safe`, `mock`).
    pub name: &'static str,
    /// How heavy it is compared with the other jobs (the heaviest start first).
    pub weight: u32,
    pub work: Work<'a>,
}

impl<'a> Job<'a> {
    pub fn new(name: &'static str, weight: u32, work: Work<'a>) -> Job<'a> {
        Job { name, weight, work }
    }
}

/// How long a job took and on how many threads the jobs ran (`cargo xtask bench`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Timings {
    /// The threads the jobs ran on.
    pub threads: usize,
    /// Each job's time, emitting and laying out, in the order given.
    pub jobs: Vec<(&'static str, Duration)>,
}

/// What a job hands back across threads: its files laid out.
struct Done {
    dirs: Vec<PathBuf>,
    files: Vec<GeneratedFile>,
    diags: Diagnostics,
    took: Duration,
}

fn run_one(job: Job<'_>) -> Result<Done> {
    let start = Instant::now();
    let (mut out, mut diags) = (Output::default(), Diagnostics::new("emit"));
    (job.work)(&mut out, &mut diags)?;
    out.format()?;
    Ok(Done { dirs: out.dirs, files: out.files, diags, took: start.elapsed() })
}

/// Runs `jobs` on up to `threads` threads (at least one) and puts their output together in
/// the order of `jobs`; their diagnostics go to `d`, in that order too. The first job that
/// fails (in that order) is the error.
pub fn run(jobs: Vec<Job<'_>>, threads: usize, d: &mut Diagnostics) -> Result<Output> {
    let count = jobs.len();
    let names: Vec<&'static str> = jobs.iter().map(|j| j.name).collect();
    let mut queue: Vec<(usize, Job<'_>)> = jobs.into_iter().enumerate().collect();
    queue.sort_by_key(|(i, j)| (std::cmp::Reverse(j.weight), *i));
    let queue = Mutex::new(queue.into_iter().collect::<VecDeque<_>>());
    let threads = threads.clamp(1, count.max(1));
    let next = || queue.lock().unwrap_or_else(PoisonError::into_inner).pop_front();
    let worker = || {
        let mut done = Vec::new();
        while let Some((i, job)) = next() {
            done.push((i, run_one(job)));
        }
        done
    };
    let done = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads).map(|_| s.spawn(worker)).collect();
        // This thread is one of the workers.
        let mine = worker();
        let joined: Vec<_> = helpers.into_iter().map(|h| h.join()).collect();
        (mine, joined)
    });
    let (mut all, joined) = done;
    for j in joined {
        all.extend(j.map_err(|_| anyhow::anyhow!("an emit thread panicked"))?);
    }
    // Every job ran once: in the order given, each with its name.
    all.sort_by_key(|(i, _)| *i);
    let mut out = Output { timings: Timings { threads, jobs: Vec::new() }, ..Output::default() };
    for ((_, r), name) in all.into_iter().zip(names) {
        let done = r?;
        out.dirs.extend(done.dirs);
        out.files.extend(done.files);
        for item in done.diags.items() {
            d.push(item.level, item.place.clone(), item.message.clone());
        }
        out.timings.jobs.push((name, done.took));
    }
    Ok(out)
}
