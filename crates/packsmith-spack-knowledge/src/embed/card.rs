//! The feature card: one short text per package that says what it is
//! (name, description, build systems, variants, dependencies, CMake keys),
//! written the same way for an indexed recipe and for a target that has no
//! recipe yet, so that their vectors are comparable.

use serde::{Deserialize, Serialize};

/// Longest description kept (characters); the rest says little that the
/// first sentences do not, and the embedding window is short.
const MAX_DESCRIPTION: usize = 400;
/// Most items listed per field, for the same reason.
const MAX_ITEMS: usize = 40;

/// What a package is, as sets and a description.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeatureCard {
    pub name: String,
    pub description: Option<String>,
    /// Spack `build_system` values (`cmake`).
    pub build_systems: Vec<String>,
    pub variants: Vec<String>,
    /// Dependency package names (no versions or conditions).
    pub dependencies: Vec<String>,
    /// CMake cache keys the recipe sets.
    pub defines: Vec<String>,
}

impl FeatureCard {
    /// Sorted, de-duplicated, capped lists; a whitespace-normalised,
    /// capped description. Two cards with the same facts render the same.
    pub fn normalized(mut self) -> Self {
        for list in [
            &mut self.build_systems,
            &mut self.variants,
            &mut self.dependencies,
            &mut self.defines,
        ] {
            list.retain(|s| !s.trim().is_empty());
            list.sort();
            list.dedup();
            list.truncate(MAX_ITEMS);
        }
        self.description = self
            .description
            .take()
            .map(|d| squash(&d, MAX_DESCRIPTION))
            .filter(|d| !d.is_empty());
        self
    }

    /// The text that is embedded. Empty fields are left out rather than
    /// written as "none", which would make sparse cards look alike.
    pub fn render(&self) -> String {
        let mut out = format!("package {}", self.name);
        if let Some(d) = &self.description {
            out.push_str(&format!("\ndescription: {d}"));
        }
        for (label, items) in [
            ("build systems", &self.build_systems),
            ("variants", &self.variants),
            ("dependencies", &self.dependencies),
            ("cmake defines", &self.defines),
        ] {
            if !items.is_empty() {
                out.push_str(&format!("\n{label}: {}", items.join(", ")));
            }
        }
        out
    }
}

/// Collapses whitespace and cuts at `max` characters, at a word boundary
/// when there is one.
pub(crate) fn squash(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_render_sorted_fields_and_skip_empty_ones() {
        let card = FeatureCard {
            name: "demo".into(),
            description: Some("  A   demo\nlibrary. ".into()),
            build_systems: vec!["cmake".into()],
            variants: vec!["shared".into(), "mpi".into(), "mpi".into()],
            dependencies: vec![],
            defines: vec!["DEMO_MPI".into()],
        }
        .normalized();
        assert_eq!(
            card.render(),
            "package demo\ndescription: A demo library.\nbuild systems: cmake\nvariants: mpi, shared\ncmake defines: DEMO_MPI"
        );
    }

    #[test]
    fn long_descriptions_are_cut_at_a_word() {
        let long = "word ".repeat(200);
        let s = squash(&long, 30);
        assert!(s.len() <= 30 && s.ends_with("word"), "{s}");
    }
}
