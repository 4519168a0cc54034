//! The CMake generator upstream configures with, read from its presets
//! (`CMakePresets.json`) and its CI scripts: a package built the way
//! upstream builds and tests it uses the same generator (nixpkgs' cmake
//! hook switches to Ninja when `ninja` is among the inputs).

use crate::context::Ctx;
use packsmith_core::{Evidence, Sourced};
use regex::Regex;
use std::sync::LazyLock;

/// CI configuration files, by exact path or by directory and extension.
const CI_FILES: &[&str] = &[
    ".gitlab-ci.yml",
    ".travis.yml",
    ".cirrus.yml",
    ".circleci/config.yml",
    "azure-pipelines.yml",
];
const CI_DIRS: &[&str] = &[".github/workflows/"];

/// The generator of the first preset or CI configure step that names one
/// of the Ninja generators; presets first, as they are upstream's stated
/// way to configure. Workflow files named for Windows or macOS, and presets
/// conditioned on those hosts, are skipped.
pub(super) fn upstream_generator(ctx: &mut Ctx<'_>, root: &str) -> Option<Sourced<String>> {
    let presets = if root.is_empty() {
        "CMakePresets.json".to_string()
    } else {
        format!("{root}/CMakePresets.json")
    };
    if ctx.view.exists(&presets) {
        if let Some(found) = ctx.read(&presets).and_then(|t| from_presets(&presets, &t)) {
            return Some(found);
        }
    }
    let ci: Vec<String> = ctx
        .view
        .files()
        .iter()
        .map(|f| f.rel.clone())
        .filter(|rel| is_ci_file(rel))
        .collect();
    for file in ci {
        if let Some(found) = ctx.read(&file).and_then(|t| from_ci_script(&file, &t)) {
            return Some(found);
        }
    }
    None
}

fn is_ci_file(rel: &str) -> bool {
    if CI_FILES.contains(&rel) {
        return true;
    }
    let lower = rel.to_ascii_lowercase();
    let yaml = lower.ends_with(".yml") || lower.ends_with(".yaml");
    let windows_or_mac = ["windows", "win32", "msvc", "macos", "darwin", "apple"]
        .iter()
        .any(|os| lower.rsplit('/').next().is_some_and(|n| n.contains(os)));
    yaml && !windows_or_mac && CI_DIRS.iter().any(|d| rel.starts_with(d))
}

fn is_ninja(generator: &str) -> bool {
    generator == "Ninja" || generator == "Ninja Multi-Config"
}

/// A configure preset whose generator is Ninja and whose condition, if
/// any, does not restrict it to another host system.
fn from_presets(file: &str, text: &str) -> Option<Sourced<String>> {
    let json: serde_json::Value = serde_json::from_str(text).ok()?;
    let presets = json.get("configurePresets")?.as_array()?;
    for preset in presets {
        let Some(generator) = preset.get("generator").and_then(|g| g.as_str()) else {
            continue;
        };
        let condition = preset
            .get("condition")
            .map(|c| c.to_string())
            .unwrap_or_default();
        let other_host = ["\"Windows\"", "\"Darwin\""]
            .iter()
            .any(|h| condition.contains(h))
            && !condition.contains("\"Linux\"");
        if is_ninja(generator) && !other_host {
            let line = text
                .lines()
                .position(|l| l.contains("\"generator\"") && l.contains(generator))
                .map_or(0, |i| i as u32 + 1);
            return Some(Sourced::new(
                generator.to_string(),
                Evidence::new(file, line),
            ));
        }
    }
    None
}

static GENERATOR_FLAG: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r#"(?:^|[\s"'])-G\s*["']?(Ninja(?: Multi-Config)?)\b|CMAKE_GENERATOR["']?\s*[:=]\s*["']?(Ninja(?: Multi-Config)?)\b"#,
    )
    .ok()
});

/// The first CI step that configures with a Ninja generator: `cmake … -G
/// Ninja` (continued lines joined) or `CMAKE_GENERATOR: Ninja` set for a job.
fn from_ci_script(file: &str, text: &str) -> Option<Sourced<String>> {
    let mut logical = String::new();
    let mut start = 0;
    for (idx, raw) in text.lines().enumerate() {
        if logical.is_empty() {
            start = idx;
        }
        let line = raw.trim_end();
        if let Some(head) = line.strip_suffix('\\').or_else(|| line.strip_suffix('`')) {
            logical.push_str(head);
            logical.push(' ');
            continue;
        }
        logical.push_str(line);
        let statement = std::mem::take(&mut logical);
        if statement.trim_start().starts_with('#') {
            continue;
        }
        let Some(caps) = GENERATOR_FLAG.as_ref().and_then(|r| r.captures(&statement)) else {
            continue;
        };
        let by_flag = caps.get(1).is_some();
        if by_flag && !statement.to_ascii_lowercase().contains("cmake") {
            continue;
        }
        let generator = caps.get(1).or_else(|| caps.get(2))?.as_str();
        return Some(Sourced::new(
            generator.to_string(),
            Evidence::new(file, start as u32 + 1),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ci_configure_step_with_ninja_names_the_generator() {
        let text = "jobs:\n  build:\n    steps:\n      - run: |\n          cmake -S . -B build \\\n            -GNinja -DX=ON\n";
        let found = from_ci_script(".github/workflows/build.yml", text).unwrap();
        assert_eq!(found.value, "Ninja");
        assert_eq!(found.evidence.line, 5);
        let quoted = "run: cmake $GITHUB_WORKSPACE -G\"Ninja Multi-Config\" -DA=1\n";
        assert_eq!(
            from_ci_script("ci.yml", quoted).unwrap().value,
            "Ninja Multi-Config"
        );
        let env = "env:\n  CMAKE_GENERATOR: Ninja\n";
        assert_eq!(from_ci_script("ci.yml", env).unwrap().evidence.line, 2);
    }

    #[test]
    fn other_generators_and_other_tools_name_none() {
        for text in [
            "run: cmake -S . -B build -G \"Unix Makefiles\"\n",
            "run: sudo apt-get install ninja-build\n",
            "run: meson setup build && ninja -C build\n",
            "# cmake -G Ninja\n",
            "run: gcc -G Ninja.c\n",
        ] {
            assert_eq!(from_ci_script("ci.yml", text), None, "{text}");
        }
    }

    #[test]
    fn presets_for_linux_or_any_host_count_and_windows_only_ones_do_not() {
        let any = r#"{"version": 3, "configurePresets": [
            {"name": "default",
             "generator": "Ninja", "binaryDir": "build"}]}"#;
        let found = from_presets("CMakePresets.json", any).unwrap();
        assert_eq!((found.value.as_str(), found.evidence.line), ("Ninja", 3));
        let windows = r#"{"version": 3, "configurePresets": [
            {"name": "msvc", "generator": "Ninja",
             "condition": {"type": "equals", "lhs": "${hostSystemName}", "rhs": "Windows"}},
            {"name": "make", "generator": "Unix Makefiles"}]}"#;
        assert_eq!(from_presets("CMakePresets.json", windows), None);
        assert_eq!(from_presets("CMakePresets.json", "not json"), None);
    }

    #[test]
    fn workflow_files_for_one_other_host_are_not_read() {
        assert!(is_ci_file(".github/workflows/build.yml"));
        assert!(is_ci_file(".gitlab-ci.yml"));
        assert!(!is_ci_file(".github/workflows/windows.yml"));
        assert!(!is_ci_file(".github/workflows/build-macos.yaml"));
        assert!(!is_ci_file(".github/workflows/notes.md"));
        assert!(!is_ci_file("ci/build.yml"));
    }
}
