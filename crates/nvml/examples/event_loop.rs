//! A port of nvml-wrapper 0.13's `event_loop` example: registers the first GPU for every
//! event it supports and prints each event as it arrives, naming the GPU by UUID. It stops on
//! an error that more waiting cannot cure; the optional argument is how many events to handle
//! before it exits (by default it runs until stopped). The side-by-side comparison is in the
//! crate's `PORTING.md`.
//!
//! ```sh
//! cargo run -p nvmlkit --example event_loop
//! ```

use nvml::{Error, EventTypes, Nvml};

fn main() -> Result<(), Error> {
    let limit: Option<usize> = match std::env::args().nth(1) {
        Some(n) => Some(n.parse().map_err(|_| Error::InvalidArgument)?),
        None => None,
    };

    let nvml = Nvml::init()?;
    let device = nvml.device_by_index(0)?;

    // An event set with the device registered for every event type it supports.
    let events = nvml.event_set_create()?;
    device.register_supported_events(&events)?;

    let mut handled = 0;
    while limit.map_or(true, |limit| handled < limit) {
        match events.wait(1000) {
            Ok(event) => {
                handled += 1;
                let uuid = events.device_of(&event).uuid();
                match (event.event_type, uuid) {
                    (EventTypes::CLOCK, Ok(uuid)) => println!("ClockChange      event for device with UUID {uuid:?}"),
                    (EventTypes::P_STATE, Ok(uuid)) => println!("PowerStateChange event for device with UUID {uuid:?}"),
                    // Your error handling here, for a UUID that cannot be read.
                    (EventTypes::CLOCK | EventTypes::P_STATE, Err(_)) => {}
                    _ => println!("A different event occurred: {event:?}"),
                }
            }
            // No event within the timeout: wait again.
            Err(Error::Timeout) => {}
            // Unknown: keep looping and hope for the best.
            Err(Error::Unknown(_)) => {}
            // Anything else (the GPU is lost, the library uninitialised) will not get better.
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
