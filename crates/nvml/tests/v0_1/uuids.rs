//! Every GPU's index, name and UUID.
//!
//! ```sh
//! cargo run -p nvmlkit --example uuids
//! # without a GPU, against the mock:
//! cargo build -p nvmlkit --examples
//! NVML_LIBRARY_PATH=target/debug/deps/libnvml_mock.so target/debug/examples/uuids
//! ```

use nvml::Nvml;

fn main() -> Result<(), nvml::Error> {
    let nvml = Nvml::init()?;
    for i in 0..nvml.device_count()? {
        let gpu = nvml.device_by_index(i)?;
        println!("GPU {i}: {} (UUID: {})", gpu.name()?, gpu.uuid()?);
    }
    Ok(())
}
