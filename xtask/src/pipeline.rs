//! The pipeline, written once: `nvml.h` → [`clang`](crate::clang) → [`model`](crate::model) →
//! [`rules`](crate::rules) → [`plan`](crate::plan) → [`emit`](crate::emit).
//!
//! Every command that needs a stage's output calls the function here that ends at that stage;
//! each one runs the stages before it. A phase's diagnostics are printed together when it
//! ends, and an error among them stops the pipeline there.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::diag::{Diag, Diagnostics};
use crate::emit::{self, Output};
use crate::fetch::headers;
use crate::history;
use crate::model::Model;
use crate::plan::{self, Plan};
use crate::rules::mock::MockRules;
use crate::rules::{self, Bindings, Rules};
use crate::workspace::RULES_FILE;

/// What to generate from.
#[derive(Debug, Clone, Default)]
pub struct Inputs {
    /// A vendored version, a cached version or a header path; `None` for the newest vendored
    /// header.
    pub header: Option<String>,
    /// The rules file; `None` for `gen-config/nvml.yaml`.
    pub rules: Option<PathBuf>,
    /// Print notes too, not only warnings and errors.
    pub verbose: bool,
    /// The header of the release before this one (a spec like `header`) whose functions and
    /// constants the header lacks are kept (see [`crate::model::keep`]), and after it those of
    /// the rules' `released` headers older than it; `None`: those of the rules' `released`
    /// headers older than the header.
    pub keep_from: Option<String>,
}

/// A stage of the pipeline, as [`Observer`]s see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// clang → model.
    Parse,
    /// The rules applied to the model.
    Rules,
    /// The plan of every function.
    Plan,
    /// Emitting and formatting every file (the function history included).
    Emit,
}

/// Told how long each phase took (`cargo xtask bench`).
pub trait Observer {
    fn phase(&mut self, phase: Phase, took: Duration);
}

impl Observer for () {
    fn phase(&mut self, _: Phase, _: Duration) {}
}

fn timed<T>(obs: &mut dyn Observer, phase: Phase, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let start = Instant::now();
    let r = f();
    obs.phase(phase, start.elapsed());
    r
}

/// The rules and the plan of a header, as the emitters read them.
#[derive(Debug, Clone)]
pub struct Planned {
    pub bindings: Bindings,
    pub plan: Plan,
}

/// Parses the header `spec` (see [`headers::resolve`]; `None` for the default) into its model,
/// returning the parse diagnostics unprinted.
pub fn parse(root: &Path, spec: Option<&str>) -> Result<(Model, Diagnostics)> {
    let header = headers::resolve(root, spec)?;
    crate::clang::parse_header(&header.path, header.info)
}

/// The model of the header of `inputs` (its rules file says which releases' items it keeps).
pub fn header_model(root: &Path, inputs: &Inputs) -> Result<Model> {
    let (rules, _) = load_rules(root, inputs)?;
    header_model_observed(root, inputs, &rules.released, &mut ())
}

/// The model of the header of `inputs`, keeping what the rules' `released` headers declared.
fn header_model_observed(root: &Path, inputs: &Inputs, released: &[String], obs: &mut dyn Observer) -> Result<Model> {
    timed(obs, Phase::Parse, || {
        let (mut model, diags) = parse(root, inputs.header.as_deref())?;
        diags.finish(inputs.verbose)?;
        // The releases whose headers are kept from, newest first: `keep_from`, if any, then each
        // of the rules' `released` older than it (or than the header).
        let mut newer = model.header.version.clone();
        if let Some(spec) = &inputs.keep_from {
            newer = keep_released(root, &mut model, spec, &newer, inputs.verbose)?;
        }
        let key = crate::model::version_key;
        for spec in released.iter().rev() {
            if key(spec).is_some_and(|r| key(&newer).is_some_and(|n| r < n)) {
                newer = keep_released(root, &mut model, spec, &newer, inputs.verbose)?;
            }
        }
        Ok(model)
    })
}

/// Keeps in `model` what the header `spec` (a release before it) declares and it lacks (see
/// [`crate::model::keep`]); `removed_in` is the header after that release, which lacked it.
/// Returns the version of `spec`.
fn keep_released(root: &Path, model: &mut Model, spec: &str, removed_in: &str, verbose: bool) -> Result<String> {
    let (old, diags) = parse(root, Some(spec))?;
    diags.finish(verbose)?;
    if old.header.version == model.header.version {
        return Ok(old.header.version);
    }
    let kept = crate::model::keep::keep_removed(model, &old, removed_in);
    let mut d = Diagnostics::new("parse");
    for (f, why) in &kept.refused {
        d.warn(
            format!("nvml.h {}", old.header.version),
            format!("`{f}`, which nvml.h {removed_in} removed, cannot be kept: {why}"),
        );
    }
    d.finish(verbose)?;
    model.kept.extend(kept.functions.into_iter().chain(kept.constants).chain(kept.types));
    model.kept.sort();
    Ok(old.header.version)
}

/// The rules file of `inputs` with its path as diagnostics name it.
pub fn load_rules(root: &Path, inputs: &Inputs) -> Result<(Rules, String)> {
    let path = rules_path(root, inputs);
    let shown = path.strip_prefix(root).unwrap_or(&path).display().to_string();
    Ok((rules::load(&path)?, shown))
}

/// The mock's table (`mock.yaml` beside the rules file of `inputs`, see [`rules::mock`]) with
/// its path as diagnostics name it; no file is the empty table.
pub fn load_mock(root: &Path, inputs: &Inputs) -> Result<(MockRules, String)> {
    let path = rules::mock::path_for_rules(&rules_path(root, inputs));
    let shown = path.strip_prefix(root).unwrap_or(&path).display().to_string();
    Ok((rules::mock::load(&path)?, shown))
}

fn rules_path(root: &Path, inputs: &Inputs) -> PathBuf {
    inputs.rules.clone().unwrap_or_else(|| root.join(RULES_FILE))
}

/// The model with the rules applied.
pub fn bindings(root: &Path, inputs: &Inputs) -> Result<Bindings> {
    let (rules, shown) = load_rules(root, inputs)?;
    let model = header_model_observed(root, inputs, &rules.released, &mut ())?;
    let mock = load_mock(root, inputs)?;
    let (bindings, diags) = apply_rules(model, &rules, &shown, &mock);
    diags.finish(inputs.verbose)?;
    Ok(bindings)
}

/// The bindings and the plan of every function.
pub fn planned(root: &Path, inputs: &Inputs) -> Result<Planned> {
    Ok(stages(root, inputs, &mut (), Strict::Yes)?.0)
}

/// [`planned`] without stopping at errors of the rules or plan phases: their diagnostics are
/// returned instead of printed (`header-diff` reports them against a new header). A header
/// that does not parse is still an error.
pub fn planned_lenient(root: &Path, inputs: &Inputs) -> Result<(Planned, Vec<Diag>)> {
    stages(root, inputs, &mut (), Strict::No)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Strict {
    /// Print each phase's diagnostics and stop at its errors.
    Yes,
    /// Collect the diagnostics of the rules and plan phases.
    No,
}

/// Parse, rules and plan, in that order.
fn stages(root: &Path, inputs: &Inputs, obs: &mut dyn Observer, strict: Strict) -> Result<(Planned, Vec<Diag>)> {
    let (rules, shown) = load_rules(root, inputs)?;
    let model = header_model_observed(root, inputs, &rules.released, obs)?;
    let mock = load_mock(root, inputs)?;
    rules_and_plan(model, &rules, &shown, &mock, obs, strict, inputs.verbose)
}

/// The rules and the mock's table (read from the files shown) applied to a model.
fn apply_rules(model: Model, rules: &Rules, shown: &str, mock: &(MockRules, String)) -> (Bindings, Diagnostics) {
    let (mut bindings, mut diags) = rules::apply(model, rules, shown);
    bindings.hand_written = rules::mock::apply(&bindings.model, &mock.0, &mock.1, &mut diags);
    (bindings, diags)
}

/// The rules (read from `shown`) and the plan applied to a model, collecting their
/// diagnostics: for rules adapted in memory (the corpus test adapts them to older headers).
/// No function is hand-written in the mock (no mock table is read).
pub fn plan_model(model: Model, rules: &Rules, shown: &str) -> Result<(Planned, Vec<Diag>)> {
    let mock = (MockRules::default(), String::new());
    rules_and_plan(model, rules, shown, &mock, &mut (), Strict::No, false)
}

/// The rules adapted to the header of `inputs` (see [`rules::adapt`]) and the plan, without
/// stopping at errors: for a header other than the default one (header-diff, the corpus).
/// Besides dropping the rules whose subject the header lacks, the rules that the header's own
/// text makes redundant go (`directions` it documents, `absent_fields` no conversion of its
/// uses), and parameters whose direction it leaves undocumented are read as `default` (the
/// default header's plan under the same rules) documents them.
pub fn adapted(
    root: &Path,
    inputs: &Inputs,
    default: Option<&Planned>,
) -> Result<(Planned, Vec<Diag>, rules::adapt::Adapted)> {
    let (mut rules, shown) = load_rules(root, inputs)?;
    let mut model = header_model_observed(root, inputs, &rules.released, &mut ())?;
    let mut adapted = rules::adapt::to_header(&mut rules, &model);
    // A header older than the default one takes the `older_headers` rules.
    let older = match (crate::model::version_key(&model.header.version), headers::default_version(root)) {
        (Some(v), Ok(d)) => crate::model::version_key(&d).is_some_and(|d| v < d),
        _ => false,
    };
    if older {
        rules::adapt::older(&mut rules, &mut model, &mut adapted);
    }
    rules.older_headers = Default::default();
    // Planned once to adapt the rest.
    let (probe, _) = plan_model(model.clone(), &rules, &shown)?;
    for key in probe.plan.unused_absent_fields(&probe.bindings) {
        rules.absent_fields.remove(&key);
    }
    for (key, _) in plan::redundant_directions(&probe.bindings, &rules) {
        rules.directions.remove(&key);
        adapted.older_applied.retain(|k| *k != format!("directions.{key}"));
    }
    // An `older_headers` input list the header's own comments give.
    let cued: Vec<String> = adapted
        .older_applied
        .iter()
        .filter_map(|k| k.strip_prefix("inputs."))
        .filter(|r| {
            let cued = probe.bindings.model.records.get(*r).and_then(plan::inout::cued_io);
            cued.is_some_and(|io| Some(&io.inputs) == rules.inputs.get(*r))
        })
        .map(String::from)
        .collect();
    for r in cued {
        rules.inputs.remove(&r);
        adapted.older_applied.retain(|k| *k != format!("inputs.{r}"));
    }
    if let Some(default) = default {
        for call in probe.plan.functions.values().filter_map(|c| c.as_ref().ok()) {
            for key in call.undocumented_directions() {
                let param = key.split_once('.').map_or("", |(_, p)| p);
                let documented = default.plan.functions.get(&call.symbol).and_then(|c| c.as_ref().ok());
                let direction = documented
                    .and_then(|c| c.params.iter().find(|p| p.name == param))
                    .filter(|p| !matches!(&p.basis, plan::Basis::Doc(cue) if cue.is_empty()));
                if let Some(dir) = direction.and_then(|p| p.role.direction()) {
                    rules.directions.insert(key, dir);
                }
            }
        }
    }
    let (planned, diags) = plan_model(model, &rules, &shown)?;
    Ok((planned, diags, adapted))
}

fn rules_and_plan(
    model: Model,
    rules: &Rules,
    shown: &str,
    mock: &(MockRules, String),
    obs: &mut dyn Observer,
    strict: Strict,
    verbose: bool,
) -> Result<(Planned, Vec<Diag>)> {
    let mut collected = Vec::new();
    let mut end = |d: Diagnostics| -> Result<()> {
        match strict {
            Strict::Yes => drop(d.finish(verbose)?),
            Strict::No => collected.extend(d.items().iter().cloned()),
        }
        Ok(())
    };
    let bindings = timed(obs, Phase::Rules, || {
        let (bindings, diags) = apply_rules(model, rules, shown, mock);
        end(diags)?;
        Ok(bindings)
    })?;
    let plan = timed(obs, Phase::Plan, || {
        let mut d = Diagnostics::new("plan");
        let plan = plan::plan(&bindings, &mut d);
        plan::check_rules(&bindings, &plan, rules, shown, &mut d);
        end(d)?;
        Ok(plan)
    })?;
    Ok((Planned { bindings, plan }, collected))
}

/// The whole pipeline, up to the formatted files.
pub fn generate(root: &Path, inputs: &Inputs) -> Result<Output> {
    generate_observed(root, inputs, &mut ())
}

/// [`generate`], telling `obs` how long each phase took. The mock's CUDA side (see
/// [`generate_cuda`]) is made on a thread of its own from the start, beside the stages of
/// `nvml.h`; its diagnostics are printed where the emit phase prints its own.
pub fn generate_observed(root: &Path, inputs: &Inputs, obs: &mut dyn Observer) -> Result<Output> {
    // The mock's CUDA side comes from the vendored cuda.h, whatever nvml.h was asked for;
    // other rules than the workspace's (a test's fixtures), or a workspace without
    // `cuda-headers/` (a test's scratch workspace), have none.
    let vendored = crate::fetch::cuda::dir(root).is_dir();
    let with_cuda = inputs.rules.is_none() && vendored;
    std::thread::scope(|s| {
        let cuda = with_cuda.then(|| {
            s.spawn(|| {
                let start = Instant::now();
                // Laid out already: text, which can cross threads.
                let (made, phases) = cuda_unprinted(root);
                ((made.map(|o| (o.dirs, o.files)), phases), start.elapsed())
            })
        });
        let (p, _) = stages(root, inputs, obs, Strict::Yes)?;
        timed(obs, Phase::Emit, || {
            check_manual(root, &p.bindings).finish(inputs.verbose)?;
            let table = driver_table(root, inputs, &p.bindings.model)?;
            let mut d = Diagnostics::new("emit");
            let mut out = emit::emit_all(&p.bindings, &p.plan, &table, &mut d)?;
            d.finish(inputs.verbose)?;
            if let Some(cuda) = cuda {
                let ((made, phases), took) = cuda.join().map_err(|_| anyhow::anyhow!("the cuda.h thread panicked"))?;
                for d in phases {
                    d.finish(inputs.verbose)?;
                }
                let (dirs, files) = made?;
                out.dirs.extend(dirs);
                out.files.extend(files);
                out.timings.jobs.push(("cuda.h (parse and emit, beside the rest)", took));
                out.timings.threads += 1;
            } else if inputs.rules.is_none() {
                let mut d = Diagnostics::new("emit");
                d.note(root.display().to_string(), "no cuda-headers/: the mock's CUDA side is not generated");
                d.finish(inputs.verbose)?;
            }
            Ok(out)
        })
    })
}

/// Each `manual` rule should name a file under `root` that mentions its function: a warning
/// otherwise, so that a hand-written wrapper that went away is noticed.
fn check_manual(root: &Path, b: &Bindings) -> Diagnostics {
    let mut d = Diagnostics::new("emit");
    for (func, file) in &b.manual {
        let text = std::fs::read_to_string(root.join(file)).unwrap_or_default();
        if !text.contains(func.as_str()) {
            d.warn(
                format!("{RULES_FILE}: manual.{func}"),
                format!("`{file}` does not exist or never mentions `{func}`"),
            );
        }
    }
    d
}

/// The function history beside the rules file of `inputs` for the functions of `model`; its
/// warnings are printed, and a file that does not parse fails.
fn driver_table(root: &Path, inputs: &Inputs, model: &Model) -> Result<history::DriverTable> {
    let file = history::path_for_rules(&rules_path(root, inputs));
    let shown = file.strip_prefix(root).unwrap_or(&file).display().to_string();
    let (table, diags) = history::for_regen(&file, &shown, model);
    diags.finish(inputs.verbose)?;
    Ok(table)
}

/// The CUDA rules file: the functions the mock's CUDA engine implements by hand, by module of
/// `crates/nvml-mock/src/cuda/` (the format of `gen-config/mock.yaml`, see [`rules::mock`]).
pub const CUDA_RULES_FILE: &str = "gen-config/cuda.yaml";

/// The newest vendored `cuda.h` (see [`crate::fetch::cuda`]) through the same stages as
/// `nvml.h`: fetched with provenance, parsed by libclang into a [`Model`], the rules of
/// [`CUDA_RULES_FILE`] checked against it, and the mock's CUDA exports emitted
/// (`crates/nvml-mock/src/generated/cuda/`, see [`emit::cuda`]), with the ABI versions of
/// `cudaTypedefs.h` beside it.
pub fn generate_cuda(root: &Path, verbose: bool) -> Result<Output> {
    let (made, phases) = cuda_unprinted(root);
    for d in phases {
        d.finish(verbose)?;
    }
    made
}

/// [`generate_cuda`] with each phase's diagnostics returned, unprinted, in order: the phase
/// with an error is the last, and the result is then an error too.
fn cuda_unprinted(root: &Path) -> (Result<Output>, Vec<Diagnostics>) {
    let mut phases = Vec::new();
    let made = (|| {
        let header = crate::fetch::cuda::resolve(root)?;
        let typedefs = crate::fetch::cuda::typedefs(&header)?;
        let typedefs_path = header.path.with_file_name(crate::fetch::cuda::TYPEDEFS);
        let (model, d) = cuda_model_unprinted(root, header)?;
        if stop_at(d, &mut phases) {
            anyhow::bail!("cuda.h: the parse phase failed");
        }
        let mut d = Diagnostics::new("parse");
        let pfns = crate::clang::pfn::read(&typedefs, &typedefs_path.display().to_string(), &mut d);
        if stop_at(d, &mut phases) {
            anyhow::bail!("cudaTypedefs.h: the parse phase failed");
        }
        let rules = rules::mock::load(&root.join(CUDA_RULES_FILE))?;
        let mut d = Diagnostics::new("rules");
        let hand_written = rules::mock::apply(&model, &rules, CUDA_RULES_FILE, &mut d);
        if stop_at(d, &mut phases) {
            anyhow::bail!("cuda.h: the rules phase failed");
        }
        let mut d = Diagnostics::new("emit");
        let out = emit::cuda::emit(&model, &hand_written, &pfns, &mut d);
        phases.push(d);
        out
    })();
    (made, phases)
}

/// Keeps `d` in `phases`; whether it has an error.
fn stop_at(d: Diagnostics, phases: &mut Vec<Diagnostics>) -> bool {
    let errors = d.has_errors();
    phases.push(d);
    errors
}

/// The model of the newest vendored `cuda.h`.
pub fn cuda_model(root: &Path, verbose: bool) -> Result<Model> {
    let (model, diags) = cuda_model_unprinted(root, crate::fetch::cuda::resolve(root)?)?;
    diags.finish(verbose)?;
    Ok(model)
}

/// The model of `header`, a `cuda.h` vendored in the workspace at `root`, with its parse
/// diagnostics, unprinted.
fn cuda_model_unprinted(root: &Path, header: headers::Header) -> Result<(Model, Diagnostics)> {
    let args = crate::fetch::cuda::clang_args(root);
    let (mut model, diags) = crate::clang::parse_header_with(&header.path, header.info, &args)?;
    // The generated files' banners name the header.
    model.header.version = format!("cuda.h {}", model.header.version);
    Ok((model, diags))
}
