//! Every generated method, called once against the mock library (the H100 profile).

use crate::generated::exercise::{call_all, Handles};
use crate::{Error, Nvml};

/// The mock, built next to this test binary (nvmlkit-mock is a dev-dependency).
fn mock() -> Nvml {
    std::env::set_var("NVML_MOCK_PROFILE", "h100");
    Nvml::builder().library_path(nvml_mock::testing::mock_path()).init().expect("the mock initialises")
}

#[test]
fn every_generated_method_runs_against_the_mock() {
    let nvml = mock();
    let device = nvml.device_by_index(0).expect("device 0");
    // Device 7 of the H100 profile is in MIG mode with two GPU instances.
    let mig = nvml.device_by_index(7).expect("device 7");
    let profile = mig.gpu_instance_profile_info(crate::sys::NVML_GPU_INSTANCE_PROFILE_3_SLICE as u32).expect("the 3g profile");
    let gpu_instance = mig.gpu_instances(profile.id).expect("GPU instances").into_iter().next();
    assert!(gpu_instance.is_some(), "the MIG device has GPU instances");
    let compute_instance = gpu_instance.as_ref().and_then(|gi| {
        (0..8).find_map(|p| gi.compute_instances(p).ok().and_then(|cis| cis.into_iter().next()))
    });
    let handles = Handles {
        device: Some(device.clone()),
        event_set: Some(nvml.event_set_create().expect("an event set")),
        compute_instance,
        gpm_sample: nvml.gpm_sample_alloc().ok(),
        unit: nvml.unit_by_index(0).ok(),
        gpu_instance,
        vgpu_instance: Some(crate::VgpuInstance::from_id(&nvml, 1)),
        vgpu_type_id: Some(crate::VgpuTypeId::from_id(&nvml, 1)),
        ..Handles::default()
    };
    let results = call_all(&nvml, &handles);

    let mut ok = 0;
    let mut skipped = Vec::new();
    for (name, result) in &results {
        match result {
            None => skipped.push(*name),
            Some(Ok(())) => ok += 1,
            // Every symbol of the header is exported by the mock, so a method never lacks one.
            Some(Err(Error::FunctionNotFound(Some(symbol)))) => panic!("{name}: the mock does not export {symbol}"),
            Some(Err(_)) => {}
        }
    }
    let called = results.len() - skipped.len();
    eprintln!("{} generated methods: {called} called, {ok} succeeded, skipped (no handle): {skipped:?}", results.len());
    // Only methods needing a handle the mock does not provide are skipped: it has no units.
    let missing: Vec<&str> = [
        ("Unit", handles.unit.is_none()),
        ("ComputeInstance", handles.compute_instance.is_none()),
        ("GpmSample", handles.gpm_sample.is_none()),
    ]
    .into_iter()
    .filter_map(|(ty, none)| none.then_some(ty))
    .collect();
    assert_eq!(missing, ["Unit"], "the mock gained a handle type: add it above");
    for name in &skipped {
        let needs = |ty: &str| name.starts_with(&format!("{ty}::")) || name.starts_with("Device::gpm_");
        assert!(missing.iter().any(|ty| needs(ty)), "{name} was not called");
    }
    // What the mock implements answers: a regression in a generated shape shows as an error.
    assert!(ok >= 86, "only {ok} of {called} calls succeeded");
}
