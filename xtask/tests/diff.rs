//! `cargo xtask header-diff` on fixture header pairs: `tests/fixtures/diff-<case>/` holds
//! `old.h`, `new.h`, the rules applied to the new side (`rules.yaml`), and the exact expected
//! reports `expected.md` and `expected.json`.
//!
//! Set `UPDATE_GOLDEN=1` to rewrite the expected files, then review the diff.

mod common;

use common::{check_golden, fixture, xtask};
use xtask::diff::{between, HeaderDiff};
use xtask::fetch::Pip;
use xtask::workspace::project_root;

fn diff_case(case: &str) -> HeaderDiff {
    let dir = fixture(case);
    let spec = |f: &str| dir.join(f).display().to_string();
    between(&project_root(), &spec("old.h"), &spec("new.h"), Some(&dir.join("rules.yaml")), &Pip::default()).unwrap()
}

/// Checks both reports of `case` against its goldens.
fn golden(case: &str) -> HeaderDiff {
    let diff = diff_case(case);
    let dir = fixture(case);
    let json = serde_json::to_string_pretty(&diff).unwrap() + "\n";
    let mismatched: Vec<String> = [("expected.md", diff.to_markdown()), ("expected.json", json)]
        .iter()
        .filter_map(|(name, text)| check_golden(&dir.join(name), text))
        .collect();
    assert!(mismatched.is_empty(), "reports differ (rerun with UPDATE_GOLDEN=1 and review): {mismatched:?}");
    diff
}

#[test]
fn every_kind_of_change_is_reported() {
    let d = golden("diff-api");
    let names = |items: &[xtask::diff::Item]| items.iter().map(|i| i.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&d.functions.removed), ["nvmlDeviceGetGone", "nvmlDeviceGetGone_v2"]);
    let changed: Vec<&str> = d.functions.changed.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(changed, ["nvmlDeviceGetFlags", "nvmlDeviceGetStats", "nvmlDeviceGetTemp", "nvmlDeviceSetMode"]);
    let versions: Vec<(&str, &str)> = d.new_versions.iter().map(|v| (v.name.as_str(), v.previous.as_str())).collect();
    assert_eq!(
        versions,
        [("nvmlDeviceGetClock_v2", "nvmlDeviceGetClock"), ("nvmlDeviceGetInfo_v3", "nvmlDeviceGetInfo_v2")]
    );
    let renumbered = d.constants.changed.iter().find(|c| c.name == "NVML_FI_DEV_POWER").unwrap();
    assert_eq!((renumbered.old.as_str(), renumbered.new.as_str()), ("10", "20"));
    assert_eq!(d.deprecations.len(), 3);
    // Records and enums are named as signatures name them, the `_t` typedef with the tag in
    // parentheses; a union whose tag is dropped is the same union, changed.
    let records: Vec<&str> = d.records.changed.iter().map(|c| c.name.as_str()).collect();
    assert!(records.contains(&"nvmlStats_t (nvmlStats_st)"), "{records:?}");
    let value = d.records.changed.iter().find(|c| c.name == "nvmlValue_t").expect("nvmlValue_t changed");
    assert_eq!(value.members[0], xtask::diff::MemberChange::Tag { old: Some("nvmlValue_st".into()), new: None });
    assert!(
        matches!(&value.members[1..], [xtask::diff::MemberChange::Added { name, .. }] if name == "ull"),
        "{value:?}"
    );
    let ret = d.enums.changed.iter().find(|c| c.name == "nvmlReturn_t").expect("nvmlReturn_t changed");
    assert_eq!(ret.members, [xtask::diff::MemberChange::Tag { old: Some("nvmlReturn_enum".into()), new: None }]);
    assert!(d.types.added.iter().chain(&d.types.removed).all(|t| !t.name.starts_with("nvmlValue")), "{:?}", d.types);
    // The new handle has no rule, and the plan cannot confirm how to read five functions
    // whose parameters the headers leave undocumented (one the new header lacks, kept).
    assert!(d.rules[0].contains("opaque handle `nvmlGpuInstance_t` has no rule"), "{:?}", d.rules);
    let unread: Vec<&str> = d.rules[1..].iter().filter_map(|r| r.split(": ").nth(2)).collect();
    assert_eq!(
        unread,
        ["nvmlDeviceGetFan", "nvmlDeviceGetGone_v2", "nvmlDeviceGetPower", "nvmlDeviceGetStats", "nvmlDeviceGetTemp"],
        "{:?}",
        d.rules
    );
    // What NVIDIA removed is kept for the release after the old header (the function, the
    // record it returns, the constants): its method stays; the enum no kept function names
    // stays too. What changed in place is a major change, for the reason the header gives.
    assert_eq!(d.safe.kept, ["NVML_FI_DEV_GONE", "NVML_MODE_OLD", "nvmlDeviceGetGone_v2", "nvmlGone_enum"]);
    let breaking: Vec<(&str, xtask::diff::Cause)> =
        d.safe.breaking.iter().map(|b| (b.item.as_str(), b.cause)).collect();
    use xtask::diff::Cause::*;
    assert_eq!(
        breaking,
        [
            ("Device::clock", NvidiaChanged),
            ("Device::set_mode", NvidiaChanged),
            ("Device::temp", NvidiaChanged),
            ("Stats", NvidiaRemoved)
        ]
    );
    assert_eq!(d.safe.semver, "major");
    assert!(!d.identical);
}

#[test]
fn identical_headers_say_so() {
    let d = golden("diff-identical");
    assert!(d.identical);
    assert_eq!(d.api_changes, 0);
    assert!(d.to_markdown().contains("No API changes: the headers are identical."));
}

#[test]
fn comment_only_changes_are_no_api_changes() {
    let d = golden("diff-comments");
    assert!(!d.identical);
    assert_eq!(d.api_changes, 0);
    assert!(d.to_markdown().contains("No API changes: the headers differ only in comments"));
}

#[test]
fn cli_prints_the_same_reports() {
    let dir = fixture("diff-api");
    for (format, golden) in [("md", "expected.md"), ("json", "expected.json")] {
        let out = xtask([
            "header-diff".as_ref(),
            dir.join("old.h").as_os_str(),
            dir.join("new.h").as_os_str(),
            "--rules".as_ref(),
            dir.join("rules.yaml").as_os_str(),
            "--format".as_ref(),
            format.as_ref(),
        ]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let expected = std::fs::read_to_string(dir.join(golden)).unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.trim_end(), expected.trim_end(), "--format {format}");
    }
}

#[test]
fn a_version_that_is_nowhere_is_a_clear_error() {
    // `latest` is neither a version nor a file: nothing is fetched.
    let out = xtask(["header-diff", "latest", "13.5.37"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("error: no header at latest"), "{stderr}");
}
