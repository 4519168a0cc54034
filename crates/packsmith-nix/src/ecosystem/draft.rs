//! The deterministic first draft: source → fetcher call → template, with
//! the source hash prefetched where Nix can compute it before any build.
//! Where it cannot (no network, fetchgit), the hash stays `lib.fakeHash`
//! and the loop's trust-on-first-use fix fills it in from the first build.

use packsmith_core::RepoFacts;
use serde::{Deserialize, Serialize};

use crate::fetch::{fetcher_for, FetchError, FetcherFn, Revision, SourceSpec, VersionRef};
use crate::prefetch::{plan, prefetch};
use crate::runner::NixConfig;
use crate::templates::{choose_builder, render, Builder, CallScope, TemplateInput};

/// What the draft is made from.
#[derive(Debug, Clone)]
pub struct DraftInput<'a> {
    pub pname: &'a str,
    pub version: &'a str,
    pub source: &'a SourceSpec,
    pub rev: Option<&'a Revision>,
    /// None when the source could not be analysed (a tarball URL, PyPI).
    pub facts: Option<&'a RepoFacts>,
    /// Prefetch the source hash (needs the network for remote sources).
    pub prefetch: bool,
    /// The nixpkgs attribute the package will have (`python3Packages.foo`).
    pub attr_path: Option<&'a str>,
    /// The packaged project's directory in the source, when not its top.
    pub source_root: Option<&'a str>,
    /// nixpkgs maintainer handles for `meta.maintainers`.
    pub maintainers: &'a [String],
}

/// How the source hash of the draft was obtained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum HashStatus {
    /// A local path: nothing to hash.
    NotNeeded,
    /// Computed by `nix-prefetch-url` before any build.
    Prefetched { sri: String, url: String },
    /// `lib.fakeHash`: the first build's mismatch message fills it in.
    Placeholder { reason: String },
}

/// The rendered draft and how it came about.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PreparedDraft {
    pub builder: Builder,
    /// `facts` when the repository left no doubt, `fallback` otherwise.
    pub chosen_by: String,
    pub text: String,
    pub hash: HashStatus,
    /// What the text was rendered from, to render it again with another
    /// builder.
    #[serde(skip)]
    pub input: Option<TemplateInput>,
}

impl PreparedDraft {
    /// The same draft rendered with `builder`.
    pub fn with_builder(&self, builder: Builder, chosen_by: &str) -> Option<PreparedDraft> {
        Some(self.rendered(builder, chosen_by, self.input.clone()?))
    }

    /// The same draft with `description` as its `meta.description` (the
    /// template cleans it as it cleans one read from the project).
    pub fn with_description(&self, description: &str) -> Option<PreparedDraft> {
        let mut input = self.input.clone()?;
        input.description = Some(description.to_string());
        Some(self.rendered(self.builder, &self.chosen_by, input))
    }

    /// `input` rendered with `builder`, this draft's hash kept.
    fn rendered(&self, builder: Builder, chosen_by: &str, input: TemplateInput) -> PreparedDraft {
        PreparedDraft {
            builder,
            chosen_by: chosen_by.into(),
            text: render(builder, &input),
            hash: self.hash.clone(),
            input: Some(input),
        }
    }

    /// Whether the draft's `meta.description` is a FIXME (the facts had
    /// none), so the model may write it.
    pub fn description_left_open(&self) -> bool {
        self.input.as_ref().is_some_and(|i| i.description.is_none())
    }

    /// Whether the facts left the builder open (the generic fallback), so
    /// the model may pick one.
    pub fn builder_left_open(&self) -> bool {
        self.chosen_by == "fallback"
    }

    /// Which `callPackage` the draft is written for.
    pub fn call_scope(&self) -> CallScope {
        self.builder.call_scope()
    }
}

/// Renders the first draft. Fails only when the source cannot be turned
/// into a fetcher call (e.g. a forge URL without a revision).
pub fn prepare_draft(
    input: &DraftInput<'_>,
    config: &NixConfig,
) -> Result<PreparedDraft, FetchError> {
    let mut src = fetcher_for(
        input.source,
        input.rev,
        Some(input.version),
        VersionRef::FinalAttrs,
    )?;
    let hash = if src.function == FetcherFn::Path {
        HashStatus::NotNeeded
    } else if !input.prefetch {
        HashStatus::Placeholder {
            reason: "prefetching was switched off".into(),
        }
    } else {
        match plan(input.source, input.rev, Some(input.version)) {
            None => HashStatus::Placeholder {
                reason: format!(
                    "{} cannot be prefetched; the first build reports the hash",
                    src.function.name()
                ),
            },
            Some(p) => match prefetch(&p, config) {
                Ok(sri) => {
                    src.set_hash(&sri);
                    HashStatus::Prefetched { sri, url: p.url }
                }
                Err(e) => HashStatus::Placeholder {
                    reason: format!(
                        "prefetching {} failed: {}",
                        p.url,
                        first_line(&e.to_string())
                    ),
                },
            },
        }
    };
    let (builder, chosen_by) = match input.facts.and_then(|f| choose_builder(f, input.attr_path)) {
        Some(b) => (b, "facts"),
        None => (Builder::Generic, "fallback"),
    };
    let mut template_input = match input.facts {
        Some(f) => TemplateInput::from_facts(f, input.pname, input.version, src),
        None => TemplateInput {
            pname: input.pname.to_string(),
            version: input.version.to_string(),
            src,
            description: None,
            homepage: None,
            license: None,
            main_program: None,
            version_check: false,
            python_build_backend: None,
            go_vendored: false,
            go_binaries: Vec::new(),
            python_final_attrs: false,
            derived: Default::default(),
            python_dependencies: Vec::new(),
            python_darwin_dependencies: Vec::new(),
            python_build_requires: Vec::new(),
            python_check_inputs: Vec::new(),
            source_root: None,
            js_lock: Default::default(),
            tauri: None,
            lazarus: None,
            maintainers: Vec::new(),
            make_install: None,
            makefile: None,
        },
    };
    template_input.maintainers = input.maintainers.to_vec();
    // A Python project found below the top (`python/` of a monorepo) is
    // built from there.
    let python_subdir = input
        .facts
        .and_then(|f| f.python.as_ref())
        .and_then(|p| p.subdir.clone())
        .filter(|_| matches!(builder, Builder::PythonPackage | Builder::PythonApplication));
    template_input.source_root = input
        .source_root
        .map(str::to_string)
        .or(python_subdir)
        .or(template_input.source_root.take());
    Ok(PreparedDraft {
        builder,
        chosen_by: chosen_by.into(),
        text: render(builder, &template_input),
        hash,
        input: Some(template_input),
    })
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::parse_source;

    #[test]
    fn a_path_needs_no_hash_and_an_unanalysed_source_gets_the_generic_builder() {
        let source = parse_source("/src/demo").unwrap();
        let d = prepare_draft(
            &DraftInput {
                pname: "demo",
                version: "1.0",
                source: &source,
                rev: None,
                facts: None,
                prefetch: true,
                attr_path: None,
                source_root: None,
                maintainers: &["octocat".to_string()],
            },
            &NixConfig::default(),
        )
        .unwrap();
        assert_eq!(d.hash, HashStatus::NotNeeded);
        assert_eq!(d.builder, Builder::Generic);
        assert!(d.text.contains("src = /src/demo;"), "{}", d.text);
        assert!(
            d.text
                .contains("maintainers = with lib.maintainers; [ octocat ];"),
            "{}",
            d.text
        );
        assert!(d.text.contains("  strictDeps = true;\n"), "{}", d.text);
    }

    #[test]
    fn without_prefetch_the_hash_is_a_placeholder() {
        let source = parse_source("https://github.com/o/demo").unwrap();
        let rev = Revision::guess("v1.0");
        let d = prepare_draft(
            &DraftInput {
                pname: "demo",
                version: "1.0",
                source: &source,
                rev: Some(&rev),
                facts: None,
                prefetch: false,
                attr_path: None,
                source_root: None,
                maintainers: &["octocat".to_string()],
            },
            &NixConfig::default(),
        )
        .unwrap();
        assert!(matches!(d.hash, HashStatus::Placeholder { .. }));
        assert!(d.text.contains("hash = lib.fakeHash;"), "{}", d.text);
    }
}
