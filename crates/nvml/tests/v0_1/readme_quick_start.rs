use nvml::Nvml;

fn main() -> Result<(), nvml::Error> {
    let nvml = Nvml::init()?;
    println!("driver {}", nvml.driver_version()?);
    for i in 0..nvml.device_count()? {
        let gpu = nvml.device_by_index(i)?;
        let mem = gpu.memory_info()?;
        println!("GPU {i}: {} ({}), {} MiB used of {}", gpu.name()?, gpu.uuid()?, mem.used >> 20, mem.total >> 20);
    }
    Ok(())
}
