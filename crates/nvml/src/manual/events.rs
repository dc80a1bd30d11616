//! Registering every event a device supports; and events as an enum whose variants carry their device, waited for one
//! at a time or as an iterator.

use std::borrow::Borrow;

use crate::{Device, Error, EventData, EventSet, EventTypes, Nvml};

/// Declares [`Event`] with a variant per event type that carries only its device, and the
/// methods that map those variants to and from their [`EventTypes`] bit.
macro_rules! events {
    ($($(#[$doc:meta])* $variant:ident = $bit:ident,)*) => {
        /// An event of an [`EventSet`] with the device it happened on: a variant per event type
        /// of nvml.h, and [`Event::Unknown`] for a type newer than the header.
        ///
        /// [`EventSet::next_event`] and [`EventSet::events`] return them; [`EventSet::event`]
        /// converts what [`EventSet::wait`] returns. Compare the device with another by
        /// equality (the same handle) or by [`Device::uuid`].
        #[non_exhaustive]
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub enum Event<'n> {
            $($(#[$doc])* $variant(
                /// The device the event happened on.
                Device<'n>,
            ),)*
            /// A critical XID error ([`EventTypes::XID_CRITICAL_ERROR`]).
            #[doc(alias = "CriticalXidError")]
            XidCriticalError {
                /// The device the error happened on.
                device: Device<'n>,
                /// The XID; the driver reports 999 for an XID it does not know.
                xid: u64,
                /// The GPU instance the error is attributable to, in MIG mode; `None` otherwise.
                gpu_instance_id: Option<u32>,
                /// The compute instance the error is attributable to, in MIG mode; `None` otherwise.
                compute_instance_id: Option<u32>,
            },
            /// An event whose type nvml.h names no variant for (a newer driver's bit, or
            /// several bits at once), kept as the library reported it.
            Unknown {
                /// The device the event happened on.
                device: Device<'n>,
                /// The event's type bits.
                event_type: EventTypes,
                /// The event's data.
                data: u64,
            },
        }

        impl<'n> Event<'n> {
            /// The event `data` describes, on `device`.
            fn new(device: Device<'n>, data: &EventData) -> Self {
                match data.event_type {
                    $(EventTypes::$bit => Event::$variant(device),)*
                    EventTypes::XID_CRITICAL_ERROR => Event::XidCriticalError {
                        device,
                        xid: data.event_data,
                        gpu_instance_id: data.gpu_instance_id,
                        compute_instance_id: data.compute_instance_id,
                    },
                    event_type => Event::Unknown { device, event_type, data: data.event_data },
                }
            }

            /// The device the event happened on.
            pub fn device(&self) -> &Device<'n> {
                match self {
                    $(Event::$variant(device))|* => device,
                    Event::XidCriticalError { device, .. } | Event::Unknown { device, .. } => device,
                }
            }

            /// The event's type, as the bits [`Device::register_events`] takes.
            pub fn event_type(&self) -> EventTypes {
                match self {
                    $(Event::$variant(_) => EventTypes::$bit,)*
                    Event::XidCriticalError { .. } => EventTypes::XID_CRITICAL_ERROR,
                    Event::Unknown { event_type, .. } => *event_type,
                }
            }
        }
    };
}

events! {
    /// A clock changed ([`EventTypes::CLOCK`]).
    ClockChange = CLOCK,
    /// The performance state changed ([`EventTypes::P_STATE`]).
    #[doc(alias = "PowerStateChange")]
    PStateChange = P_STATE,
    /// A single-bit ECC error ([`EventTypes::SINGLE_BIT_ECC_ERROR`]).
    SingleBitEccError = SINGLE_BIT_ECC_ERROR,
    /// A double-bit ECC error ([`EventTypes::DOUBLE_BIT_ECC_ERROR`]).
    DoubleBitEccError = DOUBLE_BIT_ECC_ERROR,
    /// The power source changed ([`EventTypes::POWER_SOURCE_CHANGE`]).
    PowerSourceChange = POWER_SOURCE_CHANGE,
    /// The MIG configuration changed ([`EventTypes::MIG_CONFIG_CHANGE`]).
    MigConfigChange = MIG_CONFIG_CHANGE,
    /// A storm of single-bit ECC errors ([`EventTypes::SINGLE_BIT_ECC_ERROR_STORM`]).
    SingleBitEccErrorStorm = SINGLE_BIT_ECC_ERROR_STORM,
    /// A DRAM retirement ([`EventTypes::DRAM_RETIREMENT_EVENT`]).
    DramRetirement = DRAM_RETIREMENT_EVENT,
    /// A DRAM retirement failed ([`EventTypes::DRAM_RETIREMENT_FAILURE`]).
    DramRetirementFailure = DRAM_RETIREMENT_FAILURE,
    /// A non-fatal poison error ([`EventTypes::NON_FATAL_POISON_ERROR`]).
    NonFatalPoisonError = NON_FATAL_POISON_ERROR,
    /// A fatal poison error ([`EventTypes::FATAL_POISON_ERROR`]).
    FatalPoisonError = FATAL_POISON_ERROR,
    /// The GPU is unavailable ([`EventTypes::GPU_UNAVAILABLE_ERROR`]).
    GpuUnavailableError = GPU_UNAVAILABLE_ERROR,
    /// A GPU recovery action ([`EventTypes::GPU_RECOVERY_ACTION`]).
    GpuRecoveryAction = GPU_RECOVERY_ACTION,
}

/// How long [`EventSet::events`] waits at a time, in milliseconds, before it waits again.
const EVENTS_WAIT_MS: u32 = 1000;

impl Nvml {
    /// An event set with each of `devices` registered for every event type it supports (see
    /// [`Device::register_supported_events`]): the set [`EventSet::events`] reads, in one call.
    ///
    /// ```no_run
    /// # fn f(nvml: &nvml::Nvml) -> Result<(), nvml::Error> {
    /// let gpu = nvml.device_by_index(0)?;
    /// let set = nvml.event_set_for([&gpu])?;
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if a device is invalid
    /// - [`Error::NotSupported`] if the platform does not support events
    /// - [`Error::GpuIsLost`] if a GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlEventSetCreate`,
    ///   `nvmlDeviceGetSupportedEventTypes` or `nvmlDeviceRegisterEvents`
    #[doc(alias = "nvmlEventSetCreate")]
    #[doc(alias = "nvmlDeviceGetSupportedEventTypes")]
    #[doc(alias = "nvmlDeviceRegisterEvents")]
    #[doc(alias = "create_event_loop")]
    pub fn event_set_for<'d>(
        &self,
        devices: impl IntoIterator<Item = impl Borrow<Device<'d>>>,
    ) -> Result<EventSet<'_>, Error> {
        let set = self.create_event_set()?;
        for device in devices {
            device.borrow().register_supported_events(&set)?;
        }
        Ok(set)
    }
}

impl Device<'_> {
    /// Registers in `set` every event type the device supports, and returns them: the mask
    /// `nvmlDeviceGetSupportedEventTypes` reports, with the bits this crate does not name (a
    /// newer driver's) kept. This is "all events" on any driver, where
    /// [`EventTypes::ALL`] is the newest header's `nvmlEventTypeAll` (65439), whose bits an
    /// older driver does not know: its `nvmlEventTypeAll` was 415 up to R555 and 16287 on
    /// R560, and registering a bit a driver does not support fails. A device that supports
    /// none is left unregistered.
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::InvalidArgument`] if the device or `set` is invalid
    /// - [`Error::NotSupported`] if the platform does not support events
    /// - [`Error::GpuIsLost`] if the GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no
    ///   `nvmlDeviceGetSupportedEventTypes` or `nvmlDeviceRegisterEvents`
    #[doc(alias = "nvmlDeviceGetSupportedEventTypes")]
    #[doc(alias = "nvmlDeviceRegisterEvents")]
    pub fn register_supported_events(&self, set: &EventSet<'_>) -> Result<EventTypes, Error> {
        let supported = self.supported_event_types()?;
        if !supported.is_empty() {
            self.register_events(supported, set)?;
        }
        Ok(supported)
    }
}

impl<'n> EventSet<'n> {
    /// The device `event` (an answer of [`EventSet::wait`]) happened on, as a handle of the
    /// library this set belongs to.
    pub fn device_of(&self, event: &EventData) -> Device<'n> {
        Device::wrap(event.device.as_ptr(), self.nvml.clone())
    }

    /// The [`Event`] that `data` (an answer of [`EventSet::wait`]) describes, its device a
    /// handle of the library this set belongs to.
    pub fn event(&self, data: &EventData) -> Event<'n> {
        Event::new(self.device_of(data), data)
    }

    /// The next event, waiting up to `timeout_ms` milliseconds for one: `None` if none arrived
    /// (or the wait was interrupted).
    ///
    /// # Errors
    ///
    /// - [`Error::Uninitialized`] if the library has not been successfully initialized
    /// - [`Error::GpuIsLost`] if a GPU has fallen off the bus, or is otherwise inaccessible
    /// - [`Error::Unknown`] on any unexpected error
    /// - [`Error::FunctionNotFound`] if the loaded library has no `nvmlEventSetWait_v2` nor
    ///   `nvmlEventSetWait`
    #[doc(alias = "nvmlEventSetWait_v2")]
    #[doc(alias = "nvmlEventSetWait")]
    pub fn next_event(&self, timeout_ms: u32) -> Result<Option<Event<'n>>, Error> {
        match self.wait(timeout_ms) {
            Ok(data) => Ok(Some(self.event(&data))),
            Err(Error::Timeout) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The events as they arrive: an iterator that waits for each (as long as it takes) and
    /// yields it, or the error of the wait.
    ///
    /// ```no_run
    /// # fn f(nvml: &nvml::Nvml) -> Result<(), nvml::Error> {
    /// use nvml::Event;
    ///
    /// let set = nvml.event_set_for([&nvml.device_by_index(0)?])?;
    /// for event in set.events() {
    ///     match event? {
    ///         Event::XidCriticalError { device, xid, .. } => println!("XID {xid} on {}", device.uuid()?),
    ///         other => println!("{other:?}"),
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    ///
    /// # Errors
    ///
    /// Yields the errors of [`EventSet::next_event`]. After [`Error::Unknown`] it waits
    /// again; after any other error, which more waiting cannot cure, the iterator ends.
    #[doc(alias = "nvmlEventSetWait_v2")]
    #[doc(alias = "nvmlEventSetWait")]
    #[doc(alias = "run_forever")]
    pub fn events(&self) -> impl Iterator<Item = Result<Event<'n>, Error>> + '_ {
        let mut ended = false;
        std::iter::from_fn(move || {
            if ended {
                return None;
            }
            loop {
                match self.next_event(EVENTS_WAIT_MS) {
                    Ok(None) => continue,
                    Ok(Some(event)) => return Some(Ok(event)),
                    Err(e) => {
                        ended = !matches!(e, Error::Unknown(_));
                        return Some(Err(e));
                    }
                }
            }
        })
    }
}
