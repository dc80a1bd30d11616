//! `cargo xtask`: the command line of the NVML binding generator (see the library docs).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};
use xtask::commands::{self, header_diff, update_header::Wanted};
use xtask::fetch::Pip;
use xtask::pipeline::Inputs;
use xtask::workspace::project_root;

/// The generator allocates and frees small strings and token lists by the million (about a
/// quarter of a regen's instructions were glibc's malloc and free): mimalloc serves them faster.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
        Inputs { header: self.header.clone(), rules: self.rules.clone(), verbose: self.verbose, keep_from: None }
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
    /// Prints the safe crate's public API as a listing (what `release` keeps of each release in
    /// crates/nvml/api/), or with `--since` what breaks that release's API.
    Api {
        /// The crate's sources to read.
        #[arg(long, value_name = "DIR", default_value = "crates/nvml/src")]
        src: PathBuf,
        /// A release whose listing crates/nvml/api/VERSION.txt holds: print its breaks, as
        /// changelog lines, and exit 1 when there are any.
        #[arg(long, value_name = "VERSION")]
        since: Option<String>,
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
    /// Writes a mock libnvidia-ml.so.1 that emulates one NVIDIA driver into DIR: it exports
    /// exactly that driver's functions (from the function history), each forwarded to a copy of
    /// the mock beside it, and nvmlInit fails when the profile runs another driver. Builds the
    /// mock first (release; --debug: the dev profile).
    MockLib {
        /// The driver version, e.g. 525.147.05, of a branch of the published headers (515 to 580).
        #[arg(long)]
        driver: String,
        /// The directory to write (created if need be).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Build the mock with the dev profile instead of release.
        #[arg(long)]
        debug: bool,
    },
    /// Writes the mock as a Python wheel (nvmlkit-mock: the mock, its nvml-mock program, the
    /// built-in profiles and a library of each of their drivers, the nvmlkit_mock package and
    /// its pytest plugin) into DIR; its platform tag is the newest glibc its files need.
    Wheel {
        /// The directory to write the wheel into (created if need be).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Writes the release archive nvmlkit-mock-<version>-<target>.tar.gz into DIR: the same
    /// files as the wheel, for Go, C and containers, with a README and a container recipe.
    Dist {
        /// The directory to write the archive into (created if need be).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Also write the wheel of the same build.
        #[arg(long)]
        wheel: bool,
    },
    /// Runs the fuzz targets of fuzz/ (cargo-fuzz on nightly), each on its checked-in corpus
    /// for SECONDS, and prints their executions; exit 1 on a finding (saved under
    /// fuzz/artifacts/TARGET/).
    Fuzz {
        /// Seconds per target.
        #[arg(long, default_value_t = 60)]
        time: u64,
        /// One target (default: every target, in turn).
        target: Option<String>,
        /// Rewrite the seed corpora under fuzz/corpus/ (TARGET's, or every one) from the
        /// workspace's real files instead (then minimize each with `cargo +nightly fuzz cmin
        /// TARGET`).
        #[arg(long, conflicts_with = "time")]
        seed: bool,
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
    /// Fetches cuda.h and cudaTypedefs.h of nvidia-cuda-runtime VERSION with pip and vendors
    /// them under cuda-headers/ (the mock's CUDA exports are generated from the newest; then
    /// `regen`).
    UpdateCudaHeader {
        /// A published version of nvidia-cuda-runtime, e.g. 13.5.37.
        version: String,
    },
    /// Makes a release of the newest header (or VERSION) in a staging copy: update-header,
    /// the header-diff against the last release's header, history and regen, each package's
    /// next version and changelog entry, the tests, cargo package and cargo publish --dry-run;
    /// writes the files it changed into the workspace only when every step passed. With
    /// --publish: publishes the release the workspace holds.
    Release {
        /// A published version, e.g. 13.5.37; default: the newest.
        #[arg(conflicts_with = "publish")]
        version: Option<String>,
        /// Write nothing into the workspace: show what the release would do (with --publish:
        /// cargo publish --dry-run).
        #[arg(long)]
        dry_run: bool,
        /// The test step, run by `sh -c` in the staging copy.
        #[arg(long, value_name = "CMD", default_value = commands::release::DEFAULT_TEST_CMD, conflicts_with = "publish")]
        test_cmd: String,
        /// Also write the release's texts into DIR: release.json, title.txt, body.md,
        /// header-diff.md, header-diff.json, release.patch.
        #[arg(long, value_name = "DIR", conflicts_with = "publish")]
        report_dir: Option<PathBuf>,
        /// Publish the three packages (cargo publish, in dependency order) from a clean work
        /// tree whose versions have their changelog entries; asks nothing.
        #[arg(long)]
        publish: bool,
        /// With --publish: the git tag being published, which must be v<nvmlkit's version>.
        #[arg(long, requires = "publish")]
        tag: Option<String>,
        /// With --publish: first write the mock's wheel and release archive (`cargo xtask dist
        /// --wheel`) of the version being published into DIR.
        #[arg(long, value_name = "DIR", requires = "publish")]
        dist: Option<PathBuf>,
        /// The workspace to release (default: this one); for tests.
        #[arg(long, value_name = "DIR", hide = true)]
        root: Option<PathBuf>,
        /// Make pip look only in DIR for wheels; for tests and offline mirrors.
        #[arg(long, value_name = "DIR", hide = true)]
        find_links: Option<PathBuf>,
        /// The staging copy and its builds (default: target/nvmlkit-release/); for tests.
        #[arg(long, value_name = "DIR", hide = true)]
        work_dir: Option<PathBuf>,
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
    let ok = match cli.command {
        Command::Regen { input, check, out_root } => {
            let target = out_root.unwrap_or_else(|| root.clone());
            commands::regen::run(&root, &input.inputs(), check, &target)?
        }
        Command::Bench { input, runs, bindgen } => {
            let on_path = || {
                std::env::var_os("PATH")
                    .and_then(|p| std::env::split_paths(&p).map(|d| d.join("bindgen")).find(|b| b.is_file()))
                    .map(|b| b.display().to_string())
            };
            let bindgen = bindgen.or_else(on_path);
            commands::bench::run(&root, &input.inputs(), runs, bindgen.as_deref())?;
            true
        }
        Command::Model { input, json } => {
            commands::model::run(&root, &input.inputs(), json)?;
            true
        }
        Command::Api { src, since } => commands::api::run(&root, &root.join(src), since.as_deref())?,
        Command::Coverage { input, json } => {
            commands::coverage::run(&root, &input.inputs(), json)?;
            true
        }
        Command::HeaderDiff { old, new, format, rules } => {
            let format = match format {
                DiffFormat::Md => header_diff::Format::Markdown,
                DiffFormat::Json => header_diff::Format::Json,
            };
            header_diff::run(&root, &old, &new, rules.as_deref(), format)?;
            true
        }
        Command::Wheel { out } => {
            let path = commands::wheel::run(&root, &out)?;
            println!("wrote {}", path.display());
            true
        }
        Command::Dist { out, wheel } => {
            for path in commands::dist::run(&root, &out, wheel)? {
                println!("wrote {}", path.display());
            }
            true
        }
        Command::MockLib { driver, out, debug } => {
            commands::mock_lib::run(&root, &driver, &out, debug)?;
            true
        }
        Command::Fuzz { time, target, seed } => {
            if seed {
                commands::fuzz::seed(&root, target.as_deref())?;
                true
            } else {
                commands::fuzz::run(&root, time, target.as_deref())?
            }
        }
        Command::History { check } => commands::history::run(&root, check, &Pip::default())?,
        Command::UpdateCudaHeader { version } => {
            let dir = xtask::fetch::cuda::vendor(&root, &version, &Pip::default())?;
            println!("vendored {}; now run `cargo xtask regen`", dir.display());
            true
        }
        Command::UpdateHeader { version, latest, root: dir, find_links } => {
            let wanted = match (version, latest) {
                (Some(v), false) => Wanted::Version(v),
                _ => Wanted::Latest,
            };
            let dir = dir.unwrap_or(root);
            print!("{}", commands::update_header::update_header(&dir, &wanted, &Pip { find_links })?.report(&dir));
            true
        }
        Command::Release {
            version,
            dry_run,
            test_cmd,
            report_dir,
            publish,
            tag,
            dist,
            root: dir,
            find_links,
            work_dir,
        } => {
            let dir = dir.unwrap_or(root);
            if publish {
                commands::release::publish(&dir, dry_run, tag.as_deref(), dist.as_deref())?;
            } else {
                let wanted = version.map_or(Wanted::Latest, Wanted::Version);
                let pip = Pip { find_links };
                let options = commands::release::Options { wanted, dry_run, test_cmd, report_dir, work_dir, pip };
                commands::release::run(&dir, &options)?;
            }
            true
        }
    };
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
