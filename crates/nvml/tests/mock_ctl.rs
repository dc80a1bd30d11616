//! The safe crate's event wait against a mock that `nvml-mock ctl` changes from another
//! process: the XID a device plugin's health check waits for, injected while it waits.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use nvml::*;
use nvml_mock::testing::{mock_path, CHILD_ENV};

const SESSION: &str = "nvmlkit-event-wait";

fn runtime_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ctl-sessions")
}

/// The parent starts itself as a child that waits for GPU 3's XID events, then injects XID 79
/// on GPU 3 through `ctl` (the code of `nvml-mock ctl`); the child asserts what it received.
#[test]
fn event_wait_receives_an_xid_injected_by_ctl() {
    if std::env::var_os(CHILD_ENV).is_some() {
        let nvml = Nvml::builder().library_path(mock_path()).init().expect("the mock initialises");
        let gpu = nvml.device_by_index(3).unwrap();
        let set = nvml.create_event_set().unwrap();
        gpu.register_events(EventTypes::XID_CRITICAL_ERROR | EventTypes::DOUBLE_BIT_ECC_ERROR, &set).unwrap();
        println!("waiting");
        let event = set.wait(60_000).expect("the injected event");
        assert_eq!((event.event_type, event.event_data), (EventTypes::XID_CRITICAL_ERROR, 79));
        assert_eq!(event.device.as_ptr(), gpu.as_raw(), "on GPU 3");
        // The health check's next look at the GPU: it has fallen off the bus.
        let event = set.wait(60_000).expect("the second event");
        assert_eq!(event.event_type, EventTypes::DOUBLE_BIT_ECC_ERROR);
        assert_eq!(gpu.name(), Err(Error::GpuIsLost));
        assert_eq!(nvml.device_by_index(3).err(), Some(Error::GpuIsLost));
        assert_eq!(nvml.device_by_index(2).and_then(|d| d.index()), Ok(2), "the other GPUs answer");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args(["event_wait_receives_an_xid_injected_by_ctl", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, "1")
        .env("NVML_MOCK_PROFILE", "h100")
        .env("NVML_MOCK_SESSION", SESSION)
        .env("NVML_MOCK_RUNTIME_DIR", runtime_dir())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok);
    assert!(lines.any(|l| l.ends_with("waiting")), "the child did not start waiting");
    std::env::set_var("NVML_MOCK_RUNTIME_DIR", runtime_dir());
    let ctl = |args: &[&str]| nvml_mock::testing::ctl(SESSION, args).unwrap_or_else(|e| panic!("ctl {args:?}: {e}"));
    ctl(&["event", "3", "xid", "79"]);
    ctl(&["lost", "3"]);
    ctl(&["event", "3", "ecc-dbe"]);
    let rest: Vec<String> = lines.collect();
    let status = child.wait().unwrap();
    assert!(status.success() && rest.iter().any(|l| l.contains("1 passed")), "the child failed:\n{}", rest.join("\n"));
}
