//! What changed between two versions' inputs, in nixpkgs attributes: the
//! draft's own reading of each version's facts (the same template inputs
//! `packsmith nix` writes), compared list by list, each change with the
//! build-file line that asks for it.

use packsmith_core::{Evidence, RepoFacts};
use serde::{Deserialize, Serialize};

use crate::fetch::{FetcherCall, FetcherFn};
use crate::templates::TemplateInput;

/// The role an input plays, and so the list it belongs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Build tools: `nativeBuildInputs`.
    Native,
    /// Linked libraries: `buildInputs`.
    Build,
    /// A Python package's build backend: `build-system`.
    PythonBuild,
    /// A Python package's runtime requirements: `dependencies`.
    PythonRuntime,
}

impl Role {
    /// The lists this role may live in, preferred first.
    pub fn lists(self) -> &'static [&'static str] {
        match self {
            Self::Native => &["nativeBuildInputs"],
            Self::Build => &["buildInputs", "propagatedBuildInputs"],
            Self::PythonBuild => &["build-system", "nativeBuildInputs"],
            Self::PythonRuntime => &["dependencies", "propagatedBuildInputs"],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputChangeKind {
    Added,
    Dropped,
}

/// One input the new version gained or lost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputChange {
    pub role: Role,
    pub change: InputChangeKind,
    /// The nixpkgs attribute (`zlib`, `python3Packages.numpy`, `numpy`).
    pub attr: String,
    /// The build-file line of the side that has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// The inputs each role asks for, as the draft reads `facts`.
fn inputs_by_role(facts: &RepoFacts) -> Vec<(Role, Vec<String>)> {
    let placeholder = FetcherCall {
        function: FetcherFn::FetchUrl,
        args: Vec::new(),
    };
    let t = TemplateInput::from_facts(facts, "x", "0", placeholder);
    vec![
        (Role::Native, t.derived.native),
        (Role::Build, t.derived.build),
        (Role::PythonBuild, t.python_build_requires),
        (Role::PythonRuntime, t.python_dependencies),
    ]
}

/// The changes from `old` to `new`, role by role, in the new facts' order.
pub fn diff_inputs(old: &RepoFacts, new: &RepoFacts) -> Vec<InputChange> {
    let before = inputs_by_role(old);
    let after = inputs_by_role(new);
    let mut changes = Vec::new();
    for ((role, was), (_, now)) in before.iter().zip(&after) {
        for attr in now.iter().filter(|a| !was.contains(a)) {
            changes.push(InputChange {
                role: *role,
                change: InputChangeKind::Added,
                attr: attr.clone(),
                evidence: evidence_for(new, attr),
            });
        }
        for attr in was.iter().filter(|a| !now.contains(a)) {
            changes.push(InputChange {
                role: *role,
                change: InputChangeKind::Dropped,
                attr: attr.clone(),
                evidence: evidence_for(old, attr),
            });
        }
    }
    changes
}

/// Lower-case letters and digits only: `ZLIB`, `zlib`, `py-zlib` meet.
fn squash(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .flat_map(char::to_lowercase)
        .collect()
}

/// The build-file line asking for `attr`: a `find_package`, a pkg-config
/// module, a Meson `dependency()` or a Python requirement whose name is the
/// attribute's last segment, letters and digits compared.
fn evidence_for(facts: &RepoFacts, attr: &str) -> Option<Evidence> {
    let want = squash(attr.rsplit('.').next().unwrap_or(attr));
    let mut named: Vec<(&str, &Evidence)> = Vec::new();
    if let Some(c) = &facts.cmake {
        named.extend(
            c.find_packages
                .iter()
                .map(|p| (p.name.as_str(), &p.evidence)),
        );
        named.extend(
            c.pkg_config
                .iter()
                .flat_map(|p| p.modules.iter().map(move |m| (m.as_str(), &p.evidence))),
        );
    }
    if let Some(m) = &facts.meson {
        named.extend(
            m.dependencies
                .iter()
                .map(|d| (d.name.as_str(), &d.evidence)),
        );
    }
    if let Some(p) = &facts.python {
        named.extend(
            p.dependencies
                .iter()
                .chain(&p.build_requires)
                .map(|r| (r.name.as_str(), &r.evidence)),
        );
    }
    named
        .iter()
        .find(|(n, _)| squash(n) == want)
        .or_else(|| {
            named
                .iter()
                .find(|(n, _)| want.len() >= 3 && squash(n).contains(&want))
        })
        .map(|(_, e)| (*e).clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use packsmith_core::SourceInfo;

    /// The facts of a CMake project whose CMakeLists.txt is `body`.
    fn cmake_facts(body: &str) -> RepoFacts {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("CMakeLists.txt"), body).unwrap();
        std::fs::write(dir.path().join("main.c"), "int main(void){return 0;}\n").unwrap();
        let info = SourceInfo {
            kind: "path".into(),
            given: dir.path().display().to_string(),
            release_tag: None,
        };
        packsmith_analyze::analyze_dir(dir.path(), info).unwrap()
    }

    #[test]
    fn a_new_find_package_is_an_added_build_input_with_its_line() {
        let head = "cmake_minimum_required(VERSION 3.10)\nproject(demo C)\n";
        let old = cmake_facts(&format!("{head}add_executable(demo main.c)\n"));
        let new = cmake_facts(&format!(
            "{head}find_package(ZLIB REQUIRED)\nadd_executable(demo main.c)\n"
        ));
        let changes = diff_inputs(&old, &new);
        let zlib = changes
            .iter()
            .find(|c| c.attr == "zlib")
            .expect("zlib added");
        assert_eq!(zlib.change, InputChangeKind::Added);
        assert_eq!(zlib.role, Role::Build);
        assert_eq!(
            zlib.evidence,
            Some(Evidence::new("CMakeLists.txt", 3)),
            "{changes:?}"
        );
        // And back: the same input dropped, cited from the old side.
        let back = diff_inputs(&new, &old);
        assert!(back
            .iter()
            .any(|c| c.attr == "zlib" && c.change == InputChangeKind::Dropped));
        assert!(diff_inputs(&new, &new).is_empty());
    }
}
