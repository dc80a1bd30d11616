//! A port of nvml-wrapper 0.13's `event_loop` example: registers the first GPU for every
//! event it supports and prints each event as it arrives, naming the GPU by UUID. It stops on
//! an error that more waiting cannot cure; the optional argument is how many events (or
//! errors) to handle before it exits (by default it runs until stopped). The side-by-side
//! comparison is in the crate's `PORTING.md`.
//!
//! ```sh
//! cargo run -p nvmlkit --example event_loop
//! ```

use nvml::Event::{ClockChange, PStateChange};
use nvml::{Error, Nvml};

fn main() -> Result<(), Error> {
    let limit = match std::env::args().nth(1) {
        Some(n) => n.parse().map_err(|_| Error::InvalidArgument)?,
        None => usize::MAX,
    };

    let nvml = Nvml::init()?;
    let device = nvml.device_by_index(0)?;

    // An event set with the device registered for every event type it supports.
    let set = nvml.event_set_for([&device])?;

    // Each event as it arrives (waits that time out are waited again).
    for event in set.events().take(limit) {
        match event {
            Ok(ClockChange(device)) => {
                if let Ok(uuid) = device.uuid() {
                    println!("ClockChange      event for device with UUID {uuid:?}");
                } // else: your error handling here
            }
            Ok(PStateChange(device)) => {
                if let Ok(uuid) = device.uuid() {
                    println!("PowerStateChange event for device with UUID {uuid:?}");
                } // else: your error handling here
            }
            Ok(event) => println!("A different event occurred: {event:?}"),
            // Unknown: keep looping and hope for the best.
            Err(Error::Unknown(_)) => {}
            // Anything else (the GPU is lost, the library uninitialised) ends the events.
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
