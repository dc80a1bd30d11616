//! The generator's YAML files (`gen-config/nvml.yaml`, `mock.yaml`, `function-history.yaml`):
//! each input is read by all three parsers, and what parses is applied as regen applies it:
//! the rules and the plan, the mock's table, the function history. Against the `basic`
//! fixture's header, and for one input in 32 against the default header (much slower). An
//! input is a file's text, or, after a first byte 0xFF, a file built from the header's names
//! and the rules' keys. A file that does not parse is an error naming the file; every
//! diagnostic names its place.

#![no_main]

use std::sync::OnceLock;

use arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use nvmlkit_fuzz::{model, to_text, Yaml};
use serde_yaml::{Mapping, Value};
use xtask::diag::Diagnostics;
use xtask::model::Model;
use xtask::{history, pipeline, rules};

const ORIGIN: &str = "fuzz.yaml";

struct Header {
    model: Model,
    words: Vec<String>,
}

fn headers() -> &'static [Header; 2] {
    static HEADERS: OnceLock<[Header; 2]> = OnceLock::new();
    HEADERS.get_or_init(|| {
        let root = xtask::workspace::project_root();
        let default = format!("nvml-headers/{}/nvml.h", xtask::fetch::headers::default_version(&root).unwrap());
        ["tests/fixtures/basic/input.h", default.as_str()].map(|path| {
            let model = model::parse(&root, path);
            let words = model::words(&model);
            Header { model, words }
        })
    })
}

/// A rules file: some of its tables, each a mapping of names to values.
fn structured(u: &mut Unstructured, words: &[String]) -> Result<String> {
    let y = Yaml { words, depth: 3 };
    let mut top = Mapping::new();
    for _ in 0..u.int_in_range(1..=4)? {
        let table = y.word(u)?;
        let value = match u.int_in_range(0..=3)? {
            0 => y.value(u, 3)?,
            _ => Value::Mapping(y.mapping(u, 2)?),
        };
        top.insert(table.into(), value);
    }
    Ok(to_text(&Value::Mapping(top)))
}

fn named(d: &Diagnostics) {
    for item in d.items() {
        assert!(!item.place.is_empty(), "a diagnostic without a place: {}", item.message);
    }
}

fn parse_error(e: anyhow::Error) {
    let e = format!("{e:#}");
    assert!(e.starts_with(ORIGIN), "a parse error that does not name the file: {e}");
}

fuzz_target!(|data: &[u8]| {
    let header = &headers()[usize::from(data.last().is_some_and(|b| b % 32 == 0))];
    let text = match data.strip_prefix(&[0xFF]) {
        Some(rest) => match structured(&mut Unstructured::new(rest), &header.words) {
            Ok(t) => t,
            Err(_) => return,
        },
        None => match std::str::from_utf8(data) {
            Ok(t) => t.to_string(),
            Err(_) => return,
        },
    };
    match rules::parse(&text, ORIGIN) {
        Ok(r) => match pipeline::plan_model(header.model.clone(), &r, ORIGIN) {
            Ok((_, diags)) => assert!(diags.iter().all(|d| !d.place.is_empty()), "a diagnostic without a place"),
            Err(e) => panic!("plan_model collects its diagnostics, yet failed: {e:#}"),
        },
        Err(e) => parse_error(e),
    }
    match rules::mock::parse(&text, ORIGIN) {
        Ok(m) => {
            let mut d = Diagnostics::new("rules");
            rules::mock::apply(&header.model, &m, ORIGIN, &mut d);
            named(&d);
        }
        Err(e) => parse_error(e),
    }
    match history::parse(&text, ORIGIN) {
        Ok(h) => {
            let mut d = Diagnostics::new("emit");
            history::table(&h, ORIGIN, &header.model, &mut d);
            named(&d);
        }
        Err(e) => parse_error(e),
    }
});
