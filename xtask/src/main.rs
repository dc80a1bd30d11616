//! `cargo xtask`: the command line of the NVML binding generator (see the library docs).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use xtask::update::{update_header, Pip, Wanted};
use xtask::{generate, model, project_root, regen, Inputs};

#[derive(Parser)]
#[command(name = "cargo xtask", about = "The NVML binding generator", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct InputArgs {
    /// A vendored header version (e.g. 13.5.37) or a path to an nvml.h; default: the newest
    /// vendored header.
    #[arg(long)]
    header: Option<String>,
    /// The rules file; default: gen-config/nvml.yaml.
    #[arg(long)]
    rules: Option<PathBuf>,
    /// Also print notes (e.g. #defines that are not constants).
    #[arg(short, long)]
    verbose: bool,
}

impl InputArgs {
    fn inputs(&self) -> Inputs {
        Inputs { header: self.header.clone(), rules: self.rules.clone(), verbose: self.verbose }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Regenerates every file under crates/*/src/generated/ from the header and the rules.
    Regen {
        #[command(flatten)]
        input: InputArgs,
        /// Write nothing; exit 1 and name each stale, missing or extra file if any.
        #[arg(long)]
        check: bool,
        /// Write under this directory instead of the workspace (it gets the same layout).
        #[arg(long, value_name = "DIR")]
        out_root: Option<PathBuf>,
    },
    /// Times a full regen phase by phase (and bindgen on the same header, if available).
    Bench {
        #[command(flatten)]
        input: InputArgs,
        #[arg(long, default_value_t = 10)]
        runs: usize,
        /// The bindgen CLI to compare with; default: `bindgen` if it is on PATH.
        #[arg(long)]
        bindgen: Option<String>,
    },
    /// Prints a summary of a header's model, or the whole model as JSON.
    Model {
        #[command(flatten)]
        input: InputArgs,
        #[arg(long)]
        json: bool,
    },
    /// Prints how many functions of the header have a safe method, and why the others do not.
    Coverage {
        #[command(flatten)]
        input: InputArgs,
        #[arg(long)]
        json: bool,
    },
    /// Compares the API of two headers (vendored versions, cached or fetchable versions, or
    /// paths): functions, versioned defines, records, enums, constants, types, deprecations,
    /// and how the current rules wrap the new functions.
    HeaderDiff {
        /// The old header.
        old: String,
        /// The new header.
        new: String,
        #[arg(long, value_enum, default_value = "md")]
        format: DiffFormat,
        /// The rules applied to the new header; default: gen-config/nvml.yaml.
        #[arg(long)]
        rules: Option<PathBuf>,
    },
    /// Writes gen-config/function-history.yaml: the first header of nvml-headers/corpus.txt
    /// that declares each function of the default header (pip fetches headers not cached).
    History {
        /// Write nothing; exit 1 if the file is stale.
        #[arg(long)]
        check: bool,
    },
    /// Fetches nvml.h VERSION (or the newest) with pip, vendors it under nvml-headers/ as the
    /// new default, and prints the header-diff against the previous default.
    UpdateHeader {
        /// A published version, e.g. 13.5.37.
        #[arg(required_unless_present = "latest", conflicts_with = "latest")]
        version: Option<String>,
        /// The newest version of nvidia-nvml-dev.
        #[arg(long)]
        latest: bool,
        /// The workspace to update (default: this one); for tests.
        #[arg(long, value_name = "DIR", hide = true)]
        root: Option<PathBuf>,
        /// Make pip look only in DIR for wheels (--no-index --find-links DIR); for tests and
        /// offline mirrors.
        #[arg(long, value_name = "DIR", hide = true)]
        find_links: Option<PathBuf>,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum DiffFormat {
    /// Markdown, for a pull-request description.
    Md,
    /// JSON, for tools.
    Json,
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let root = project_root();
    match cli.command {
        Command::Regen { input, check, out_root } => {
            let out = generate(&root, &input.inputs())?;
            let target = out_root.unwrap_or_else(|| root.clone());
            if check {
                let problems = regen::check(&target, &out)?;
                if problems.is_empty() {
                    println!("generated files are up to date ({} files)", out.files.len());
                    return Ok(ExitCode::SUCCESS);
                }
                for p in &problems {
                    eprintln!("{p}");
                }
                eprintln!("error: {} generated file(s) out of date; run `cargo xtask regen`", problems.len());
                return Ok(ExitCode::FAILURE);
            }
            let changed = regen::write(&target, &out)?;
            println!("wrote {} files under {} ({} changed)", out.files.len(), target.display(), changed.len());
            for c in changed {
                println!("  {}", c.display());
            }
        }
        Command::Bench { input, runs, bindgen } => {
            let on_path = || {
                std::env::var_os("PATH")
                    .and_then(|p| std::env::split_paths(&p).map(|d| d.join("bindgen")).find(|b| b.is_file()))
                    .map(|b| b.display().to_string())
            };
            let bindgen = bindgen.or_else(on_path);
            xtask::bench::run(&root, &input.inputs(), runs, bindgen.as_deref())?;
        }
        Command::Model { input, json } => {
            let b = xtask::bindings(&root, &input.inputs())?;
            let m = &b.model;
            if json {
                println!("{}", serde_json::to_string_pretty(m)?);
                return Ok(ExitCode::SUCCESS);
            }
            let top = |kind| m.records.values().filter(|r| r.kind == kind && r.parent.is_none()).count();
            let nested = m.records.values().filter(|r| r.parent.is_some()).count();
            let legacy = m.functions.values().filter(|f| f.legacy).count();
            println!("header {} (sha256 {})", m.header.version, m.header.sha256);
            println!("functions: {} ({legacy} only in the legacy block)", m.functions.len());
            println!(
                "records:   {} structs, {} unions (+{nested} nested anonymous)",
                top(model::RecordKind::Struct),
                top(model::RecordKind::Union)
            );
            println!("enums:     {}", m.enums.len());
            println!("handles:   {}", m.handles.len());
            println!("typedefs:  {}", m.typedefs.len());
            println!("constants: {}", m.constants.len());
            println!("aliases:   {} (#define nvmlX nvmlY)", m.aliases.len());
            println!("families:  {} versioned", b.families.len());
            println!("shapes:    {} string buffers, {} count+array", b.strings.len(), b.arrays.len());
        }
        Command::Coverage { input, json } => {
            let report = xtask::coverage::coverage(&xtask::bindings(&root, &input.inputs())?);
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print!("{}", report.to_text());
            }
        }
        Command::HeaderDiff { old, new, format, rules } => {
            let diff = xtask::diff::between(&root, &old, &new, rules.as_deref(), &Pip::default())?;
            match format {
                DiffFormat::Md => print!("{}", diff.to_markdown()),
                DiffFormat::Json => println!("{}", serde_json::to_string_pretty(&diff)?),
            }
        }
        Command::History { check } => {
            if !xtask::history::run(&root, check, &Pip::default())? {
                return Ok(ExitCode::FAILURE);
            }
        }
        Command::UpdateHeader { version, latest, root: dir, find_links } => {
            let wanted = match (version, latest) {
                (Some(v), false) => Wanted::Version(v),
                _ => Wanted::Latest,
            };
            let dir = dir.unwrap_or(root);
            print!("{}", update_header(&dir, &wanted, &Pip { find_links })?.report(&dir));
        }
    }
    Ok(ExitCode::SUCCESS)
}
