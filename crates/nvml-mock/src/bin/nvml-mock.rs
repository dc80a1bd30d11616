//! `nvml-mock`, the mock's program:
//!
//! - `nvml-mock capture [--out FILE] [--name NAME] [--library PATH] [--cuda-library PATH] [--mock PATH] [--keep-ids]
//!   [--no-verify]` records the GPUs of this machine into a profile (`nvml_mock::capture`);
//! - `nvml-mock ctl [--session NAME] COMMAND` changes a running mock that other processes use
//!   (`nvml_mock::session`);
//! - `nvml-mock lib --driver VERSION --out DIR [--mock PATH]` (or `--profile PROFILE` for the
//!   driver and symbols a profile records, `--plain` for every function and no driver) writes a `libnvidia-ml.so.1` into DIR that emulates
//!   that driver: its functions alone, forwarded to a copy of the mock beside it
//!   (`nvml_mock::driver_lib`; `--mock-at REL`: the mock already at REL, relative to DIR,
//!   shared by the libraries of a tree). `cargo xtask mock-lib` builds the mock and runs this;
//! - `nvml-mock profiles [PROFILE...]` lists the built-in profiles (or those given) with the
//!   driver each runs and its number of GPUs.
//!
//! The mock is `PATH`, by default the `libnvml_mock.so` next to this program (where cargo
//! builds both), or in the `lib/` beside its `bin/` (where the wheel and the release archive
//! install both).

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE_FORMAT: &str = "usage:
  nvml-mock capture [--out FILE] [--name NAME] [--library PATH] [--cuda-library PATH] [--mock PATH] [--keep-ids] [--no-verify] [--no-probes]
      Records the GPUs of this machine, through its NVML library (or PATH), into a profile the
      mock answers as the machine did (FILE, or standard output). It only reads: it calls getters,
      never a function that changes a GPU's state (no setter, reset, MIG or clock change), plus an
      event set of its own that it frees. Serial numbers, UUIDs and the hostname are replaced by
      synthetic ones unless --keep-ids. The profile is checked against the mock (libnvml_mock.so
      next to this program, or --mock PATH): whatever the mock would derive otherwise is recorded
      by name; --no-verify skips that. --no-probes skips the calls with a NULL record or a wrong
      version that record the order of the library's argument checks. Where libcuda.so.1 (or
      --cuda-library PATH) loads, the CUDA view is recorded too: cuDriverGetVersion, and each
      GPU's name, total memory and every attribute.
  {ctl}
  nvml-mock lib (--driver VERSION | --profile PROFILE | --plain) --out DIR [--mock PATH | --mock-at REL]
      Writes DIR/libnvidia-ml.so.1, which exports exactly the functions of that driver (of the
      profile's driver, less what the profile says its library lacks; --plain: every function,
      no driver) and forwards them to a copy of the mock in DIR (--mock-at: to the mock at REL,
      relative to DIR, which is not copied).
  nvml-mock profiles [PROFILE...]
      Lists the built-in profiles (or the profiles given, names or files), one a line: the name,
      the driver it runs (- for none) and its number of GPUs, separated by tabs.";

fn usage() -> String {
    USAGE_FORMAT.replace("{ctl}", nvml_mock::session::USAGE)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.split_first() {
        // `nvml-mock capture --help`: the usage on standard output, and success.
        Some((cmd, rest)) if (cmd == "capture" || cmd == "lib") && rest.iter().any(|a| a == "-h" || a == "--help") => {
            Ok(usage())
        }
        Some((cmd, rest)) if cmd == "capture" => capture(rest),
        Some((cmd, rest)) if cmd == "ctl" => nvml_mock::session::ctl(rest),
        Some((cmd, rest)) if cmd == "lib" => lib(rest),
        Some((cmd, rest)) if cmd == "profiles" => profiles(rest),
        // A probe of `capture`, in a process of its own (see `nvml_mock::capture::probe_child`).
        Some((cmd, rest)) if cmd == "__probe" => match rest {
            [library, object, start] => start
                .parse()
                .map_err(|_| format!("`{start}`: not a number"))
                .and_then(|s| nvml_mock::capture::probe_child(std::path::Path::new(library), object, s))
                .map(|()| String::new()),
            _ => Err("usage: nvml-mock __probe LIBRARY OBJECT START".to_string()),
        },
        Some((cmd, _)) if cmd == "-h" || cmd == "--help" || cmd == "help" => Ok(usage()),
        Some((cmd, _)) => Err(format!("unknown command `{cmd}`\n{}", usage())),
        None => Err(usage()),
    };
    match result {
        Ok(text) => {
            // A reader that stops early (`| grep -q`, `| head`) closes the pipe: not an error.
            if !text.is_empty() {
                use std::io::Write;
                let _ = writeln!(std::io::stdout(), "{text}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The options of a command: `--flag VALUE` for the names in `valued`, `--flag` for `bare`.
struct Flags {
    values: Vec<(String, String)>,
    set: Vec<String>,
}

impl Flags {
    fn parse(args: &[String], valued: &[&str], bare: &[&str]) -> Result<Flags, String> {
        let mut f = Flags { values: Vec::new(), set: Vec::new() };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            if valued.contains(&a.as_str()) {
                let v = it.next().ok_or_else(|| format!("{a} needs a value\n{}", usage()))?;
                f.values.push((a.clone(), v.clone()));
            } else if bare.contains(&a.as_str()) {
                f.set.push(a.clone());
            } else {
                return Err(format!("unexpected argument `{a}`\n{}", usage()));
            }
        }
        Ok(f)
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.values.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    fn has(&self, name: &str) -> bool {
        self.set.iter().any(|s| s == name)
    }
}

fn capture(args: &[String]) -> Result<String, String> {
    let f = Flags::parse(
        args,
        &["--out", "--name", "--library", "--cuda-library", "--mock"],
        &["--keep-ids", "--no-verify", "--no-probes"],
    )?;
    let opts = nvml_mock::capture::Options {
        library: f.get("--library").map(PathBuf::from),
        cuda_library: f.get("--cuda-library").map(PathBuf::from),
        mock: f.get("--mock").map(PathBuf::from),
        name: f.get("--name").unwrap_or("captured").to_string(),
        keep_ids: f.has("--keep-ids"),
        no_verify: f.has("--no-verify"),
        no_probes: f.has("--no-probes"),
        probe_program: std::env::current_exe().ok(),
    };
    let captured = nvml_mock::capture::capture(&opts)?;
    for line in &captured.report {
        eprintln!("{line}");
    }
    match f.get("--out") {
        Some(path) => {
            // Renamed into place: a link planted at the path is replaced, not written through.
            nvml_mock::private::replace(std::path::Path::new(path), captured.yaml.as_bytes(), 0o644)?;
            Ok(format!("wrote {path} (use: NVML_MOCK_PROFILE={path})"))
        }
        None => {
            print!("{}", captured.yaml);
            Ok(String::new())
        }
    }
}

fn lib(args: &[String]) -> Result<String, String> {
    use nvml_mock::driver_lib::{self, Mock};
    let f = Flags::parse(args, &["--driver", "--profile", "--out", "--mock", "--mock-at"], &["--plain"])?;
    let out = PathBuf::from(f.get("--out").ok_or_else(|| format!("--out is required\n{}", usage()))?);
    let copied = match (f.get("--mock"), f.get("--mock-at")) {
        (Some(m), _) => PathBuf::from(m),
        (None, Some(_)) => PathBuf::new(),
        (None, None) => driver_lib::default_mock().map_err(|e| e.replace("to check the profile with", "to copy"))?,
    };
    let mock = match (f.get("--mock"), f.get("--mock-at")) {
        (Some(_), Some(_)) => return Err(format!("give --mock or --mock-at, not both\n{}", usage())),
        (_, Some(rel)) => Mock::At(rel),
        (_, None) => Mock::Copy(&copied),
    };
    let driver = match (f.get("--driver"), f.get("--profile"), f.has("--plain")) {
        (Some(driver), None, false) => {
            driver_lib::write_to(&out, driver, mock)?;
            driver.to_string()
        }
        (None, Some(profile), false) => driver_lib::write_for_profile_to(&out, profile, mock)?,
        (None, None, true) => {
            driver_lib::write_plain_to(&out, mock)?;
            return Ok(format!("wrote {}: libnvidia-ml.so.1 exports every function (the plain mock)", out.display()));
        }
        _ => return Err(format!("give one of --driver, --profile and --plain\n{}", usage())),
    };
    Ok(format!(
        "wrote {}: libnvidia-ml.so.1 emulates NVIDIA driver {driver} (use: LD_LIBRARY_PATH={} NVML_MOCK_PROFILE=<a profile of driver {driver}> <client>)",
        out.display(),
        out.display()
    ))
}

/// `nvml-mock profiles [PROFILE...]`: each profile's name, driver and number of GPUs.
fn profiles(args: &[String]) -> Result<String, String> {
    if let Some(flag) = args.iter().find(|a| a.starts_with('-')) {
        return Err(format!("unexpected argument `{flag}`\n{}", usage()));
    }
    let names: Vec<String> = if args.is_empty() {
        nvml_mock::driver_lib::builtin_profiles().map(str::to_string).collect()
    } else {
        args.to_vec()
    };
    let mut lines = Vec::new();
    for name in &names {
        let (driver, gpus) = nvml_mock::driver_lib::profile_summary(name)?;
        lines.push(format!("{name}\t{}\t{gpus}", driver.as_deref().unwrap_or("-")));
    }
    Ok(lines.join("\n"))
}
