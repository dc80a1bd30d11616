//! The README lists what each built-in profile answers instead of a value, generated from the
//! profiles: this test fails when the list is stale, and `NVML_MOCK_BLESS=1` rewrites it.

const BEGIN: &str =
    "<!-- answers: generated from the profiles by `NVML_MOCK_BLESS=1 cargo test -p nvmlkit-mock --test readme` -->";
const END: &str = "<!-- end of answers -->";

#[test]
fn readme_lists_what_each_profile_answers() {
    let table = nvml_mock::testing::answers_markdown().unwrap_or_else(|e| panic!("{e}"));
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let (start, end) = match (readme.find(BEGIN), readme.find(END)) {
        (Some(s), Some(e)) if s < e => (s + BEGIN.len(), e),
        _ => panic!("README.md lacks the markers `{BEGIN}` and `{END}`"),
    };
    let fresh = format!("{}\n\n{table}{}", &readme[..start], &readme[end..]);
    if std::env::var_os("NVML_MOCK_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    assert!(fresh == readme, "crates/nvml-mock/README.md's answers are stale: run `NVML_MOCK_BLESS=1 cargo test -p nvmlkit-mock --test readme`");
}
