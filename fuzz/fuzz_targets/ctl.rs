//! `nvml-mock ctl` commands (`reset-gpu` among them): each line of an input is the arguments of one
//! `ctl` (split at spaces, or at tabs where the line has one, so that a YAML value can hold
//! spaces), run in order on a session held in memory (`nvml_mock::fuzzing::Ctl`); a first line
//! `profile NAME` names the session's built-in profile, else it runs [`SMALL`] (each command loads
//! the profile: a built-in one, with its bases, costs tens of milliseconds, and a captured one
//! hundreds). After a first byte 0xFF, the commands are built from `ctl`'s own vocabulary and the
//! profile's (keys, functions, error codes, values), on [`SMALL`].
//!
//! What must hold: a command that fails is an error that names its place (its command word,
//! an argument of it, or its GPU) and leaves the state as it was; one that succeeds leaves a
//! state that reads back from its file as it was written; and the state an input leaves, for
//! one input in 16 (the mock's tables cost milliseconds), the mock takes: the profile with
//! the changes loads, and a running process and a joining one make their systems of it.

#![no_main]

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use nvml_mock::fuzzing::{self, Ctl};
use nvmlkit_fuzz::{scratch, to_text, Yaml};

/// The commands of one input at most.
const COMMANDS: usize = 8;
/// The session's profile when the input names none: four GPUs of a driver that numbers the
/// fields, the last one MIG-capable with MIG pending (so that `reset-gpu 3` changes its MIG
/// tree) (as a file: `NVML_MOCK_PROFILE=PATH`).
const SMALL: &str =
    "name: small\nsystem: {driver_version: 580.82.07}\ndevices: [{}, {}, {}, {mig: {mode: false, pending: true}}]\n";

/// The path of [`SMALL`].
fn small() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let path = scratch("ctl").join("small.yaml");
        std::fs::write(&path, SMALL).expect("the small profile");
        path.to_string_lossy().into_owned()
    })
}

fn profiles() -> &'static [&'static str] {
    static PROFILES: OnceLock<Vec<&'static str>> = OnceLock::new();
    PROFILES.get_or_init(fuzzing::builtin_profiles)
}

fn words() -> &'static [String] {
    static WORDS: OnceLock<Vec<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let mut w = fuzzing::profile_words();
        w.extend(fuzzing::ctl_words());
        w.sort();
        w.dedup();
        w
    })
}

/// A GPU argument: mostly one of the profile's, now and then past them or not a number.
fn gpu(u: &mut Unstructured, y: &Yaml) -> Result<String> {
    Ok(match u.int_in_range(0..=9)? {
        0..=5 => u.int_in_range(0..=3u8)?.to_string(),
        6 => u.arbitrary::<u64>()?.to_string(),
        7 => u.arbitrary::<i64>()?.to_string(),
        8 => y.word(u)?,
        _ => u.arbitrary()?,
    })
}

/// The commands of a structured input: the profile, then up to [`COMMANDS`] argument lists.
fn structured(u: &mut Unstructured) -> Result<(String, Vec<Vec<String>>)> {
    let y = Yaml { words: words(), depth: 3 };
    let profile = small().to_string();
    let mut commands = Vec::new();
    for _ in 0..u.int_in_range(1..=COMMANDS)? {
        let mut args = vec!["--session".to_string(), "fuzz".to_string()];
        match u.int_in_range(0..=9)? {
            0..=3 => {
                args.extend(["set".to_string(), gpu(u, &y)?, y.word(u)?]);
                let value = y.value(u, 3)?;
                args.push(to_text(&value).trim_end().to_string());
            }
            4 | 5 => {
                args.extend(["error".to_string(), gpu(u, &y)?, y.word(u)?, y.word(u)?]);
                if u.arbitrary()? {
                    args.extend(["--times".to_string(), u.int_in_range(0..=3u64)?.to_string()]);
                }
            }
            6 => {
                args.extend(["event".to_string(), gpu(u, &y)?, y.word(u)?]);
                if u.arbitrary()? {
                    args.push(u.arbitrary::<u64>()?.to_string());
                }
            }
            7 => args.extend(["lost".to_string(), gpu(u, &y)?]),
            8 => {
                args.push("reset".to_string());
                if u.arbitrary()? {
                    args.push(gpu(u, &y)?);
                }
            }
            9 if u.arbitrary()? => args.extend(["reset-gpu".to_string(), gpu(u, &y)?]),
            _ => {
                for _ in 0..u.int_in_range(0..=5)? {
                    args.push(y.word(u)?);
                }
            }
        }
        commands.push(args);
    }
    Ok((profile, commands))
}

/// The commands of a text input: its profile, and each line's arguments (with this session).
fn text(input: &str) -> (String, Vec<Vec<String>>) {
    let mut lines = input.lines().peekable();
    let named = lines.peek().and_then(|l| l.strip_prefix("profile ")).filter(|p| profiles().contains(p));
    let profile = named.unwrap_or(small()).to_string();
    if named.is_some() {
        lines.next();
    }
    let commands = lines
        .take(COMMANDS)
        .map(|line| {
            let sep = if line.contains('\t') { '\t' } else { ' ' };
            let args = line.split(sep).map(String::from);
            if line.starts_with("--session") {
                args.collect()
            } else {
                ["--session", "fuzz"].map(String::from).into_iter().chain(args).collect()
            }
        })
        .collect();
    (profile, commands)
}

/// Whether error `e` of `ctl ARGS` names its place: its first line starts with the command
/// word (or says there is none, or no session) or the GPU, or it quotes an argument (which
/// may hold a line break).
fn names_its_place(e: &str, args: &[String]) -> bool {
    let line = e.lines().next().unwrap_or_default();
    let rest = match args {
        [flag, _, rest @ ..] if flag == "--session" => rest,
        _ => args,
    };
    let word = rest.first().map(String::as_str).unwrap_or_default();
    line.starts_with("no command")
        || line.starts_with("no session")
        || (!word.is_empty() && (line.starts_with(&format!("{word} ")) || line.starts_with(&format!("{word}:"))))
        || args.iter().any(|a| e.contains(&format!("`{a}`")))
        || gpu_named(line).is_some_and(|g| rest.get(1).and_then(|a| a.parse::<usize>().ok()) == Some(g))
}

/// The GPU a line starts with (`GPU 3 does not exist`).
fn gpu_named(line: &str) -> Option<usize> {
    line.strip_prefix("GPU ")?.split(' ').next()?.parse().ok()
}

fuzz_target!(|data: &[u8]| {
    let (profile, commands) = match data.strip_prefix(&[0xFF]) {
        Some(rest) => match structured(&mut Unstructured::new(rest)) {
            Ok(c) => c,
            Err(_) => return,
        },
        None => match std::str::from_utf8(data) {
            Ok(t) => text(t),
            Err(_) => return,
        },
    };
    let (check_mock, mut changed) = (data.len() % 16 == 0, false);
    let mut session = Ctl::new(&profile, &scratch("ctl")).expect("the session's words");
    for args in &commands {
        let before = session.state().clone();
        match session.run(args) {
            Err(e) => {
                assert!(names_its_place(&e, args), "ctl {args:?}: an error that names no place: {e}");
                assert!(session.state() == &before, "ctl {args:?} failed ({e}) but changed the state");
            }
            Ok(_) if session.state() == &before => {}
            Ok(_) => {
                let read = session.read_back();
                assert!(read.as_ref() == Ok(session.state()), "ctl {args:?}: the state reads back as {read:?}");
                changed = true;
            }
        }
    }
    if let Some(Err(e)) = (check_mock && changed).then(|| session.mock()) {
        panic!("ctl {commands:?} left a state that the mock refuses: {e}");
    }
});
