//! The MIG tree of a GPU as the driver keeps it: its mode (current and pending), its GPU
//! instances and their compute instances, and the operations that change it (create, destroy,
//! set the mode, reset the GPU), each checked as the driver checks it.
//!
//! A GPU's [`Table`] is what it can be carved into: its GPU and compute instance profiles,
//! each GPU instance profile's placements in memory slices, and its compute slices. Its [`Gpu`]
//! tree starts as its profile declares it (`mig.mode`, `mig.pending`, `mig.gpu_instances`)
//! and is state of the session from its first change (`crate::session::State::mig`), so every
//! process of the session sees it and it outlives the process that changed it; without a
//! session it is state of the process. Every instance has a serial number, never reused on its
//! GPU, by which the processes tell a new instance from a destroyed one that had the same id.

use nvml_sys::*;
use serde_yaml::{Mapping, Value};

use crate::answer::{Entry, Val};
use crate::profile::{const_value, Flat};

/// An NVML return code.
pub type Code = nvmlReturn_t;

fn u32_of(v: &Value, key: &str) -> u32 {
    v.get(key).and_then(const_value).and_then(|n| u32::try_from(n).ok()).unwrap_or(0)
}

/// A GPU instance profile: `mig.gpu_instance_profiles` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GiProfile {
    /// Its `NVML_GPU_INSTANCE_PROFILE_*` index.
    pub index: u32,
    /// Its unique id (`nvmlGpuInstanceProfileInfo_t::id`, 19 for `1g.10gb`).
    pub id: u32,
    /// `MIG 1g.10gb`.
    pub name: String,
    /// Compute slices.
    pub slices: u32,
    /// How many instances of it the GPU holds at most.
    pub instances: u32,
    pub memory_mb: u64,
    /// Its placements, `(start, size)` in memory slices.
    pub placements: Vec<(u32, u32)>,
}

/// A compute instance profile: a `mig.compute_instance_profiles` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CiProfile {
    pub index: u32,
    pub id: u32,
    pub slices: u32,
}

/// What a GPU can be carved into.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Table {
    pub gi: Vec<GiProfile>,
    pub ci: Vec<CiProfile>,
    /// The compute slices the GPU instances share: the largest profile's (7 on an H100).
    pub compute_slices: u32,
}

impl Table {
    /// The table of a GPU's profile. A placement's size comes from a capture's
    /// `nvmlDeviceGetGpuInstancePossiblePlacements_v2` where it records one, else from the
    /// profile entry's `memory_slices` (default its `slices`); the starts from its `placements`
    /// (default every multiple of the size within `mig.slices`, 8).
    pub fn of(spec: &Flat) -> Table {
        let total = spec.u32("mig.slices").unwrap_or(8);
        let recorded = spec.entry("", "nvmlDeviceGetGpuInstancePossiblePlacements_v2");
        let gi: Vec<GiProfile> = (spec.list("mig.gpu_instance_profiles").unwrap_or_default().iter())
            .map(|p| {
                let (id, slices) = (u32_of(p, "id"), u32_of(p, "slices"));
                let size = p.get("memory_slices").and_then(Value::as_u64).map_or(slices, |s| s as u32).max(1);
                let starts: Vec<u32> = match p.get("placements").and_then(Value::as_sequence) {
                    Some(s) => s.iter().filter_map(Value::as_u64).map(|s| s as u32).collect(),
                    None => (0..total).step_by(size as usize).filter(|s| s + size <= total).collect(),
                };
                let sized = |start: u32| {
                    let Some(Entry::Values(v)) = recorded.and_then(|e| e.select(&[id.into()])) else { return size };
                    let found =
                        v.first().into_iter().flat_map(Val::items).find(|p| p.field("start").uint() == start.into());
                    found.map_or(size, |p| p.field("size").uint() as u32)
                };
                GiProfile {
                    index: u32_of(p, "profile"),
                    id,
                    name: p.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                    slices,
                    instances: u32_of(p, "instances"),
                    memory_mb: p.get("memory_mb").and_then(Value::as_u64).unwrap_or(0),
                    placements: starts.into_iter().map(|s| (s, sized(s))).collect(),
                }
            })
            .collect();
        let ci = (spec.list("mig.compute_instance_profiles").unwrap_or_default().iter())
            .map(|p| CiProfile { index: u32_of(p, "profile"), id: u32_of(p, "id"), slices: u32_of(p, "slices") })
            .collect();
        let compute_slices = gi.iter().map(|p| p.slices).max().unwrap_or(0);
        Table { gi, ci, compute_slices }
    }

    pub fn gi_by_id(&self, id: u32) -> Option<&GiProfile> {
        self.gi.iter().find(|p| p.id == id)
    }

    pub fn gi_by_index(&self, index: u32) -> Option<&GiProfile> {
        self.gi.iter().find(|p| p.index == index)
    }

    pub fn ci_by_id(&self, id: u32) -> Option<&CiProfile> {
        self.ci.iter().find(|p| p.id == id)
    }

    pub fn ci_by_index(&self, index: u32) -> Option<&CiProfile> {
        self.ci.iter().find(|p| p.index == index)
    }

    /// The compute slices of a GPU instance of profile `index`.
    pub fn gi_slices(&self, index: u32) -> u32 {
        self.gi_by_index(index).map_or(1, |p| p.slices)
    }
}

/// A compute instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ci {
    pub serial: u64,
    pub id: u32,
    /// Its `NVML_COMPUTE_INSTANCE_PROFILE_*` index.
    pub profile: u32,
    /// `(start, size)` in its GPU instance's compute slices.
    pub placement: (u32, u32),
    /// Its MIG device's UUID: given to each created one, or a capture's; else derived from its
    /// GPU's.
    pub uuid: Option<String>,
}

/// A GPU instance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gi {
    pub serial: u64,
    pub id: u32,
    /// Its `NVML_GPU_INSTANCE_PROFILE_*` index.
    pub profile: u32,
    /// `(start, size)` in the GPU's memory slices.
    pub placement: (u32, u32),
    pub cis: Vec<Ci>,
}

/// A MIG-capable GPU's tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gpu {
    /// The current MIG mode.
    pub mode: bool,
    /// The mode the GPU takes at its next reset.
    pub pending: bool,
    /// Its GPU instances, by id.
    pub gis: Vec<Gi>,
    /// The serial the next instance gets.
    pub next_serial: u64,
}

fn overlaps(a: (u32, u32), b: (u32, u32)) -> bool {
    a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

/// The id the mock gives a GPU instance placed at `placement`: the node of its memory slices in
/// the binary tree of the GPU's 8 (the whole GPU 0, halves 1-2, quarters 3-6, eighths 7-14), so
/// distinct placements that do not overlap have distinct ids; a placement that is no node
/// takes the lowest id above 14 that is free.
fn gi_id(placement: (u32, u32), taken: &[u32]) -> u32 {
    let (start, size) = placement;
    let node = match size {
        8 if start == 0 => Some(0),
        4 if start % 4 == 0 && start < 8 => Some(1 + start / 4),
        2 if start % 2 == 0 && start < 8 => Some(3 + start / 2),
        1 if start < 8 => Some(7 + start),
        _ => None,
    };
    match node {
        Some(id) if !taken.contains(&id) => id,
        _ => (15..).find(|i| !taken.contains(i)).unwrap_or(u32::MAX),
    }
}

impl Gpu {
    /// The tree a GPU's profile declares; `None` for a GPU without MIG (no `mig.mode`).
    pub fn declared(spec: &Flat, table: &Table) -> Option<Gpu> {
        let mode = spec.bool("mig.mode")?;
        let mut gpu = Gpu { mode, pending: spec.bool("mig.pending").unwrap_or(mode), gis: Vec::new(), next_serial: 1 };
        if !mode {
            return Some(gpu);
        }
        for gi in spec.list("mig.gpu_instances").unwrap_or_default() {
            let profile = u32_of(gi, "profile");
            let info = table.gi_by_index(profile);
            let start = u32_of(gi, "start");
            let size = info.and_then(|p| p.placements.iter().find(|(s, _)| *s == start)).map_or_else(
                || info.map_or(1, |p| p.placements.first().map_or(p.slices, |(_, size)| *size)),
                |(_, size)| *size,
            );
            let slices = table.gi_slices(profile);
            let mut g =
                Gi { serial: gpu.serial(), id: u32_of(gi, "id"), profile, placement: (start, size), cis: Vec::new() };
            for ci in gi.get("compute_instances").and_then(Value::as_sequence).into_iter().flatten() {
                let size = ci.get("size").and_then(Value::as_u64).map_or(slices, |s| s as u32);
                g.cis.push(Ci {
                    serial: gpu.serial(),
                    id: u32_of(ci, "id"),
                    profile: u32_of(ci, "profile"),
                    placement: (u32_of(ci, "start"), size),
                    uuid: ci.get("uuid").and_then(Value::as_str).map(str::to_string),
                });
            }
            gpu.gis.push(g);
        }
        Some(gpu)
    }

    fn serial(&mut self) -> u64 {
        self.next_serial += 1;
        self.next_serial - 1
    }

    pub fn gi(&self, serial: u64) -> Option<&Gi> {
        self.gis.iter().find(|g| g.serial == serial)
    }

    /// Every placement of profile `id` and whether it is free: it overlaps no GPU instance,
    /// and the compute slices left hold the profile.
    fn gi_free(&self, table: &Table, p: &GiProfile) -> Vec<(u32, u32)> {
        let used: u32 = self.gis.iter().map(|g| table.gi_slices(g.profile)).sum();
        if used + p.slices > table.compute_slices {
            return Vec::new();
        }
        let placed: Vec<(u32, u32)> = self.gis.iter().map(|g| g.placement).collect();
        p.placements.iter().copied().filter(|pl| !placed.iter().any(|u| overlaps(*pl, *u))).collect()
    }

    /// How many more GPU instances of profile `id` fit now: its free placements, at most its
    /// `instances` less those that exist, and none past the compute slices left.
    pub fn gi_capacity(&self, table: &Table, id: u32) -> Result<u32, Code> {
        let p = table.gi_by_id(id).ok_or(NVML_ERROR_NOT_SUPPORTED)?;
        if !self.mode {
            // With MIG off every placement is free (driver 580.159.04 answers each profile's
            // instance count on an H200 with MIG off).
            return Ok(p.instances);
        }
        let mut free = self.gi_free(table, p);
        let existing = self.gis.iter().filter(|g| g.profile == p.index).count() as u32;
        let room = p.instances.saturating_sub(existing);
        // Placements that overlap one another count once each greedily, as each taken one
        // takes the others it overlaps.
        let mut n = 0;
        let mut slices_left = table.compute_slices - self.gis.iter().map(|g| table.gi_slices(g.profile)).sum::<u32>();
        while let Some(first) = free.first().copied() {
            if n == room || slices_left < p.slices {
                break;
            }
            n += 1;
            slices_left -= p.slices;
            free.retain(|pl| !overlaps(*pl, first));
        }
        Ok(n)
    }

    /// Creates a GPU instance of profile `id` (at `placement`, else at its first free one), as
    /// `nvmlDeviceCreateGpuInstance(WithPlacement)` does: `NOT_SUPPORTED` with MIG off,
    /// `INVALID_ARGUMENT` for a profile the GPU lacks or a placement that is not one of the
    /// profile's (misaligned, or of another size), `INSUFFICIENT_RESOURCES` when it does not
    /// fit (its `instances` reached, its placement taken, or no compute slices left). The
    /// new instance's serial.
    pub fn create_gi(&mut self, table: &Table, id: u32, placement: Option<(u32, u32)>) -> Result<u64, Code> {
        if !self.mode {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        let p = table.gi_by_id(id).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        if let Some(pl) = placement {
            if !p.placements.contains(&pl) {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
        }
        if self.gis.iter().filter(|g| g.profile == p.index).count() as u32 >= p.instances {
            return Err(NVML_ERROR_INSUFFICIENT_RESOURCES);
        }
        let free = self.gi_free(table, p);
        let at = match placement {
            Some(pl) => free.into_iter().find(|f| *f == pl),
            None => free.into_iter().next(),
        };
        let at = at.ok_or(NVML_ERROR_INSUFFICIENT_RESOURCES)?;
        let taken: Vec<u32> = self.gis.iter().map(|g| g.id).collect();
        let serial = self.serial();
        self.gis.push(Gi { serial, id: gi_id(at, &taken), profile: p.index, placement: at, cis: Vec::new() });
        self.gis.sort_by_key(|g| g.id);
        Ok(serial)
    }

    /// Destroys a GPU instance: `IN_USE` while it has compute instances or `busy` (processes
    /// run in it); `INVALID_ARGUMENT` when it is gone already.
    pub fn destroy_gi(&mut self, serial: u64, busy: impl Fn(u32) -> bool) -> Result<(), Code> {
        let g = self.gi(serial).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        if !g.cis.is_empty() || busy(g.id) {
            return Err(NVML_ERROR_IN_USE);
        }
        self.gis.retain(|g| g.serial != serial);
        Ok(())
    }

    /// The placements of compute instance profile `id` in GPU instance `gi`: every multiple
    /// of its size within the instance's compute slices; `NOT_SUPPORTED` for a profile the GPU
    /// lacks or larger than the instance.
    pub fn ci_placements(table: &Table, gi: &Gi, id: u32) -> Result<Vec<(u32, u32)>, Code> {
        let p = table.ci_by_id(id).ok_or(NVML_ERROR_NOT_SUPPORTED)?;
        let (size, slices) = (p.slices.max(1), table.gi_slices(gi.profile));
        if size > slices {
            return Err(NVML_ERROR_NOT_SUPPORTED);
        }
        Ok((0..slices).step_by(size as usize).filter(|s| s + size <= slices).map(|s| (s, size)).collect())
    }

    /// The free placements of compute instance profile `id` in `gi`.
    pub fn ci_free(table: &Table, gi: &Gi, id: u32) -> Result<Vec<(u32, u32)>, Code> {
        let all = Gpu::ci_placements(table, gi, id)?;
        Ok(all.into_iter().filter(|pl| !gi.cis.iter().any(|c| overlaps(*pl, c.placement))).collect())
    }

    /// Creates a compute instance of profile `id` in GPU instance `gi` (at `placement`, else at
    /// its first free one), as `nvmlGpuInstanceCreateComputeInstance(WithPlacement)` does:
    /// `NOT_SUPPORTED` for a profile the instance cannot hold, `INVALID_ARGUMENT` for a
    /// placement that is not one of the profile's, `INSUFFICIENT_RESOURCES` when its slices are
    /// taken. Its MIG device gets a UUID of its own (`uuid`, from the GPU's UUID and the
    /// serials). The new instance's serial.
    pub fn create_ci(
        &mut self,
        table: &Table,
        gi: u64,
        id: u32,
        placement: Option<(u32, u32)>,
        uuid: impl Fn(u64, u64) -> String,
    ) -> Result<u64, Code> {
        let serial = self.next_serial;
        let g = self.gis.iter_mut().find(|g| g.serial == gi).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        let all = Gpu::ci_placements(table, g, id)?;
        if let Some(pl) = placement {
            if !all.contains(&pl) {
                return Err(NVML_ERROR_INVALID_ARGUMENT);
            }
        }
        let free = Gpu::ci_free(table, g, id)?;
        let at = match placement {
            Some(pl) => free.into_iter().find(|f| *f == pl),
            None => free.into_iter().next(),
        };
        let at = at.ok_or(NVML_ERROR_INSUFFICIENT_RESOURCES)?;
        let index = table.ci_by_id(id).map_or(0, |p| p.index);
        let ci_id = (0..).find(|i| !g.cis.iter().any(|c| c.id == *i)).unwrap_or(0);
        g.cis.push(Ci { serial, id: ci_id, profile: index, placement: at, uuid: Some(uuid(g.serial, serial)) });
        g.cis.sort_by_key(|c| c.id);
        self.next_serial += 1;
        Ok(serial)
    }

    /// Destroys a compute instance: `IN_USE` while processes run in it (`busy` of its GPU
    /// and compute instance ids); `INVALID_ARGUMENT` when it is gone already.
    pub fn destroy_ci(&mut self, gi: u64, ci: u64, busy: impl Fn(u32, u32) -> bool) -> Result<(), Code> {
        let g = self.gis.iter_mut().find(|g| g.serial == gi).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        let c = g.cis.iter().find(|c| c.serial == ci).ok_or(NVML_ERROR_INVALID_ARGUMENT)?;
        if busy(g.id, c.id) {
            return Err(NVML_ERROR_IN_USE);
        }
        g.cis.retain(|c| c.serial != ci);
        Ok(())
    }

    /// `nvmlDeviceSetMigMode`: the pending mode, which the GPU takes at its next reset (the
    /// mock never resets a GPU by itself: `nvml-mock ctl reset-gpu` does). Disabling MIG while
    /// GPU instances exist is refused with `IN_USE`, as the driver refuses it. The activation
    /// status: `SUCCESS` when the mode is current already, else `RESET_REQUIRED`.
    pub fn set_mode(&mut self, enable: bool) -> Result<Code, Code> {
        if !enable && !self.gis.is_empty() {
            return Err(NVML_ERROR_IN_USE);
        }
        self.pending = enable;
        Ok(if enable == self.mode { NVML_SUCCESS } else { NVML_ERROR_RESET_REQUIRED })
    }

    /// A GPU reset: the pending mode becomes current, and the instances are gone (a MIG
    /// partition does not survive a reset).
    pub fn reset(&mut self) {
        self.mode = self.pending;
        self.gis.clear();
    }

    /// The tree as the session's state holds it.
    pub fn to_value(&self) -> Value {
        let map = |pairs: Vec<(&str, Value)>| {
            Value::Mapping(pairs.into_iter().map(|(k, v)| (Value::from(k), v)).collect::<Mapping>())
        };
        let place = |(s, n): (u32, u32)| Value::Sequence(vec![Value::from(s), Value::from(n)]);
        let gis = (self.gis.iter())
            .map(|g| {
                let cis = (g.cis.iter())
                    .map(|c| {
                        let mut pairs = vec![
                            ("serial", Value::from(c.serial)),
                            ("id", Value::from(c.id)),
                            ("profile", Value::from(c.profile)),
                            ("placement", place(c.placement)),
                        ];
                        if let Some(u) = &c.uuid {
                            pairs.push(("uuid", Value::from(u.as_str())));
                        }
                        map(pairs)
                    })
                    .collect();
                map(vec![
                    ("serial", Value::from(g.serial)),
                    ("id", Value::from(g.id)),
                    ("profile", Value::from(g.profile)),
                    ("placement", place(g.placement)),
                    ("compute_instances", Value::Sequence(cis)),
                ])
            })
            .collect();
        map(vec![
            ("mode", Value::from(self.mode)),
            ("pending", Value::from(self.pending)),
            ("next_serial", Value::from(self.next_serial)),
            ("gpu_instances", Value::Sequence(gis)),
        ])
    }

    /// The tree in the session's state; `path` names it in errors.
    pub fn from_value(v: &Value, path: &str) -> Result<Gpu, String> {
        let num = |v: &Value, key: &str, at: &str| -> Result<u64, String> {
            v.get(key).and_then(Value::as_u64).ok_or_else(|| format!("{at}.{key}: expected a number"))
        };
        let small = |v: &Value, key: &str, at: &str| -> Result<u32, String> {
            u32::try_from(num(v, key, at)?).map_err(|_| format!("{at}.{key}: too large"))
        };
        let flag = |key: &str| {
            v.get(key).and_then(Value::as_bool).ok_or_else(|| format!("{path}.{key}: expected true or false"))
        };
        let place = |v: &Value, at: &str| -> Result<(u32, u32), String> {
            let bad = || format!("{at}.placement: expected [start, size]");
            let s = v.get("placement").and_then(Value::as_sequence).ok_or_else(bad)?;
            match s.as_slice() {
                [a, b] => {
                    let n = |x: &Value| x.as_u64().and_then(|x| u32::try_from(x).ok()).ok_or_else(bad);
                    Ok((n(a)?, n(b)?))
                }
                _ => Err(bad()),
            }
        };
        let seq = |v: &Value, key: &str| v.get(key).and_then(Value::as_sequence).cloned().unwrap_or_default();
        let mut gis = Vec::new();
        for (i, g) in seq(v, "gpu_instances").iter().enumerate() {
            let at = format!("{path}.gpu_instances[{i}]");
            let mut cis = Vec::new();
            for (j, c) in seq(g, "compute_instances").iter().enumerate() {
                let at = format!("{at}.compute_instances[{j}]");
                cis.push(Ci {
                    serial: num(c, "serial", &at)?,
                    id: small(c, "id", &at)?,
                    profile: small(c, "profile", &at)?,
                    placement: place(c, &at)?,
                    uuid: c.get("uuid").and_then(Value::as_str).map(str::to_string),
                });
            }
            gis.push(Gi {
                serial: num(g, "serial", &at)?,
                id: small(g, "id", &at)?,
                profile: small(g, "profile", &at)?,
                placement: place(g, &at)?,
                cis,
            });
        }
        Ok(Gpu { mode: flag("mode")?, pending: flag("pending")?, gis, next_serial: num(v, "next_serial", path)? })
    }

    /// The tree in lines, for `ctl show`: each GPU instance (id, profile, placement) with its
    /// compute instances.
    pub fn show(&self, gpu: usize, table: &Table) -> Vec<String> {
        let on = |b: bool| if b { "on" } else { "off" };
        let mut out = vec![format!("GPU {gpu}: MIG {} (pending {})", on(self.mode), on(self.pending))];
        for g in &self.gis {
            let name = table.gi_by_index(g.profile).map_or("?", |p| p.name.as_str());
            out.push(format!(
                "GPU {gpu}: GPU instance {} {name} (profile {}) at {}:{}",
                g.id,
                table.gi_by_index(g.profile).map_or(0, |p| p.id),
                g.placement.0,
                g.placement.1
            ));
            for c in &g.cis {
                let id = table.ci_by_index(c.profile).map_or(0, |p| p.id);
                let uuid = c.uuid.as_deref().map(|u| format!(" {u}")).unwrap_or_default();
                out.push(format!(
                    "GPU {gpu}:   compute instance {} (profile {id}) at {}:{}{uuid}",
                    c.id, c.placement.0, c.placement.1
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> Table {
        let p = |index, id, slices, instances, placements: &[u32], size| GiProfile {
            index,
            id,
            name: String::new(),
            slices,
            instances,
            memory_mb: 0,
            placements: placements.iter().map(|s| (*s, size)).collect(),
        };
        Table {
            gi: vec![
                p(0, 19, 1, 7, &[0, 1, 2, 3, 4, 5, 6], 1),
                p(7, 20, 1, 1, &[0, 1, 2, 3, 4, 5, 6], 1),
                p(9, 15, 1, 4, &[0, 2, 4, 6], 2),
                p(1, 14, 2, 3, &[0, 2, 4], 2),
                p(2, 9, 3, 2, &[0, 4], 4),
                p(3, 5, 4, 1, &[0], 4),
                p(4, 0, 7, 1, &[0], 8),
            ],
            ci: vec![CiProfile { index: 0, id: 0, slices: 1 }, CiProfile { index: 2, id: 2, slices: 3 }],
            compute_slices: 7,
        }
    }

    fn empty() -> Gpu {
        Gpu { mode: true, pending: true, gis: Vec::new(), next_serial: 1 }
    }

    #[test]
    fn seven_1g_fill_the_gpu_and_ids_follow_the_placements() {
        let (t, mut g) = (h100(), empty());
        for left in (1..=7).rev() {
            assert_eq!(g.gi_capacity(&t, 19), Ok(left));
            g.create_gi(&t, 19, None).unwrap();
        }
        assert_eq!(g.gi_capacity(&t, 19), Ok(0));
        assert_eq!(g.create_gi(&t, 19, None), Err(NVML_ERROR_INSUFFICIENT_RESOURCES));
        assert_eq!(
            g.gis.iter().map(|g| (g.id, g.placement)).collect::<Vec<_>>(),
            (0..7).map(|s| (7 + s, (s, 1))).collect::<Vec<_>>()
        );
        // Nothing else fits either (all compute slices are taken).
        assert_eq!(g.gi_capacity(&t, 15), Ok(0));
    }

    #[test]
    fn placements_overlap_misalign_and_capacity() {
        let (t, mut g) = (h100(), empty());
        assert_eq!(g.create_gi(&t, 9, Some((1, 4))), Err(NVML_ERROR_INVALID_ARGUMENT));
        assert_eq!(g.create_gi(&t, 9, Some((0, 3))), Err(NVML_ERROR_INVALID_ARGUMENT));
        assert_eq!(g.create_gi(&t, 99, None), Err(NVML_ERROR_INVALID_ARGUMENT));
        let three = g.create_gi(&t, 9, Some((4, 4))).unwrap();
        assert_eq!(g.gi(three).map(|g| g.id), Some(2));
        assert_eq!(g.create_gi(&t, 19, Some((5, 1))), Err(NVML_ERROR_INSUFFICIENT_RESOURCES));
        assert_eq!(g.gi_capacity(&t, 5), Ok(1));
        assert_eq!(g.gi_capacity(&t, 0), Ok(0));
        g.create_gi(&t, 5, None).unwrap();
        assert_eq!(g.gi_capacity(&t, 19), Ok(0));
        // The 1g.20gb profile: 4 instances at most, 2 memory slices each.
        let mut h = empty();
        for _ in 0..4 {
            h.create_gi(&t, 15, None).unwrap();
        }
        assert_eq!(h.create_gi(&t, 15, None), Err(NVML_ERROR_INSUFFICIENT_RESOURCES));
        assert_eq!(h.gi_capacity(&t, 19), Ok(0));
        // MIG off: nothing is created.
        let mut off = Gpu { mode: false, ..empty() };
        assert_eq!(off.create_gi(&t, 19, None), Err(NVML_ERROR_NOT_SUPPORTED));
    }

    #[test]
    fn compute_instances_and_destroy_order() {
        let (t, mut g) = (h100(), empty());
        let gi = g.create_gi(&t, 9, None).unwrap();
        let uuid = |a: u64, b: u64| format!("MIG-{a}-{b}");
        let a = g.create_ci(&t, gi, 0, None, uuid).unwrap();
        let b = g.create_ci(&t, gi, 0, Some((2, 1)), uuid).unwrap();
        assert_eq!(g.create_ci(&t, gi, 2, None, uuid), Err(NVML_ERROR_INSUFFICIENT_RESOURCES));
        assert_eq!(g.create_ci(&t, gi, 0, Some((3, 1)), uuid), Err(NVML_ERROR_INVALID_ARGUMENT));
        assert_eq!(g.create_ci(&t, gi, 0, Some((2, 1)), uuid), Err(NVML_ERROR_INSUFFICIENT_RESOURCES));
        assert_eq!(g.destroy_gi(gi, |_| false), Err(NVML_ERROR_IN_USE));
        assert_eq!(g.destroy_ci(gi, a, |_, ci| ci == 0), Err(NVML_ERROR_IN_USE));
        g.destroy_ci(gi, a, |_, _| false).unwrap();
        g.destroy_ci(gi, b, |_, _| false).unwrap();
        assert_eq!(g.destroy_ci(gi, b, |_, _| false), Err(NVML_ERROR_INVALID_ARGUMENT));
        g.destroy_gi(gi, |_| false).unwrap();
        assert_eq!(g.destroy_gi(gi, |_| false), Err(NVML_ERROR_INVALID_ARGUMENT));
        // Serials are never reused.
        let again = g.create_gi(&t, 9, None).unwrap();
        assert!(again > b, "{again} after {b}");
    }

    #[test]
    fn the_mode_changes_at_a_reset_and_round_trips() {
        let (t, mut g) = (h100(), Gpu { mode: false, pending: false, gis: Vec::new(), next_serial: 1 });
        assert_eq!(g.set_mode(true), Ok(NVML_ERROR_RESET_REQUIRED));
        assert!(!g.mode && g.pending);
        g.reset();
        assert!(g.mode);
        let gi = g.create_gi(&t, 0, None).unwrap();
        g.create_ci(&t, gi, 2, None, |a, b| format!("MIG-{a}-{b}")).unwrap();
        assert_eq!(g.set_mode(false), Err(NVML_ERROR_IN_USE));
        assert_eq!(Gpu::from_value(&g.to_value(), "mig.0"), Ok(g.clone()));
        g.reset();
        assert!(g.gis.is_empty() && g.mode);
        assert!(Gpu::from_value(&Value::from(3), "mig.0").unwrap_err().contains("mig.0.mode"));
    }
}
