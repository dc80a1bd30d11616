//! `nvml-mock-lib --driver 525.147.05 --out DIR [--mock PATH]`: writes a `libnvidia-ml.so.1`
//! into DIR that emulates that driver (its functions alone, forwarded to a copy of the mock
//! beside it; see `nvml_mock::driver_lib`). The mock is `PATH`, by default the
//! `libnvml_mock.so` next to this program (where cargo builds both). `cargo xtask mock-lib`
//! builds both and runs this.

use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: nvml-mock-lib --driver VERSION --out DIR [--mock PATH/libnvml_mock.so]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<String, String> {
    let (mut driver, mut out, mut mock) = (None, None, None);
    let mut args = args.into_iter();
    while let Some(flag) = args.next() {
        let slot = match flag.as_str() {
            "--driver" => &mut driver,
            "--out" => &mut out,
            "--mock" => &mut mock,
            "-h" | "--help" => return Ok(USAGE.to_string()),
            other => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
        };
        *slot = Some(args.next().ok_or_else(|| format!("{flag} needs a value\n{USAGE}"))?);
    }
    let driver = driver.ok_or_else(|| format!("--driver is required\n{USAGE}"))?;
    let out = PathBuf::from(out.ok_or_else(|| format!("--out is required\n{USAGE}"))?);
    let mock = match mock {
        Some(m) => PathBuf::from(m),
        None => {
            let exe = std::env::current_exe().map_err(|e| format!("the path of this program: {e}"))?;
            exe.with_file_name(nvml_mock::driver_lib::MOCK_FILE)
        }
    };
    nvml_mock::driver_lib::write(&out, &driver, &mock)?;
    Ok(format!(
        "wrote {}: libnvidia-ml.so.1 emulates NVIDIA driver {driver} (use: LD_LIBRARY_PATH={} NVML_MOCK_PROFILE=<a profile of driver {driver}> <client>)",
        out.display(),
        out.display()
    ))
}
