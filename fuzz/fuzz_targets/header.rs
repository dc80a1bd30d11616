//! The header's text through the whole generator, as `regen --header PATH` and `header-diff OLD
//! PATH` take any file: clang (the libclang regen uses) → model → rules → plan → emit, written
//! under a scratch root; or, for an input of odd length, header-diff against the `basic`
//! fixture's header (`diff::between` with that side read once), in Markdown and JSON. Both with the `basic` fixture's rules (and its mock
//! table and function history). A failed regen leaves the files it would write untouched.
//! Inputs go through libclang twice each: keep them small (`cargo xtask fuzz` caps them).

#![no_main]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use xtask::commands::regen;
use xtask::diff::SafeApi;
use xtask::model::Model;
use xtask::pipeline::{self, Inputs};

/// The `basic` fixture's model and the safe crate its rules give it: header-diff's old side.
fn old() -> &'static (Model, Option<SafeApi>) {
    static OLD: OnceLock<(Model, Option<SafeApi>)> = OnceLock::new();
    OLD.get_or_init(|| {
        let root = xtask::workspace::project_root();
        let inputs = Inputs {
            header: Some(root.join("tests/fixtures/basic/input.h").to_string_lossy().into_owned()),
            rules: Some(root.join("tests/fixtures/basic/rules.yaml")),
            verbose: false,
            keep_from: None,
        };
        let model = pipeline::header_model(&root, &inputs).expect("the basic fixture parses");
        let api = pipeline::planned_lenient(&root, &inputs).ok().and_then(|(p, _)| SafeApi::of(&p).ok());
        (model, api)
    })
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    xtask::commands::fuzz::files_under(dir).into_iter().map(|p| (p.clone(), std::fs::read(p).ok())).collect()
}

fuzz_target!(|data: &[u8]| {
    let root = xtask::workspace::project_root();
    let scratch = nvmlkit_fuzz::scratch("header");
    let header = scratch.join("nvml.h");
    if std::fs::write(&header, data).is_err() {
        return;
    }
    let rules = root.join("tests/fixtures/basic/rules.yaml");
    let spec = header.to_string_lossy().into_owned();
    let inputs = Inputs { header: Some(spec), rules: Some(rules), verbose: false, keep_from: None };
    if data.len() % 2 == 1 {
        // `diff::between` with the old side read once: the fixture's model and safe crate.
        let (old_model, old_api) = old();
        match pipeline::planned_lenient(&root, &inputs) {
            Ok((new, diags)) => {
                let diff = xtask::diff::compare_with_api(old_model, old_api.as_ref(), &new, &diags);
                std::hint::black_box((diff.to_markdown(), serde_json::to_string(&diff).ok()));
            }
            Err(e) => assert!(!format!("{e:#}").is_empty()),
        }
        return;
    }
    let out_root = scratch.join("out");
    let before = snapshot(&out_root);
    if let Err(e) = regen::run(&root, &inputs, false, &out_root) {
        assert!(!format!("{e:#}").is_empty());
        assert!(before == snapshot(&out_root), "a failed regen changed the files: {e:#}");
    }
});
