//! Fidelity to the human recipe as a maintainer reads it (issue 13 item 5):
//! does the generated recipe depend on the packages the human one links
//! against or runs with, does it add ones the human one does not, and does
//! it expose the human recipe's variants.
//!
//! Unlike S_d, which weighs each directive, this counts packages: several
//! `depends_on("x", when=…)` are one dependency on x. Two names are the same
//! dependency when they are equal, or when one is a provider of the other's
//! virtual (`zlib` and `zlib-api`, `openblas` and `lapack`); a same-name pair
//! must also have version ranges that overlap. A reference dependency whose
//! `when=` names versions that exclude every release the generated recipe
//! declares belongs to another release and is left out. Build-only dependencies (the
//! build tool, the compiler's language virtuals) are left out; test-only ones
//! are counted apart, since a recipe may rightly leave tests to the build.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::mapping::{virtuals_for, NoKnowledge};
use crate::spec::{VariantValue, Version};

use super::deps::{split_inherited, Dep};
use super::inherited::SpackRelease;
use super::ScoreRecipe;

/// The fidelity figures of one generated recipe against its reference.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Fidelity {
    /// Reference link/run dependencies the generated recipe has; None when
    /// the reference has none.
    pub dep_recall: Option<f64>,
    /// Generated link/run dependencies the reference has; None when the
    /// generated recipe has none.
    pub dep_precision: Option<f64>,
    /// Reference link/run dependencies, by package name, sorted.
    pub deps_found: Vec<String>,
    pub deps_missing: Vec<String>,
    /// Generated link/run dependencies the reference lacks.
    pub deps_extra: Vec<String>,
    /// Test-only dependencies of each side, by package name.
    pub test_deps_reference: Vec<String>,
    pub test_deps_generated: Vec<String>,
    /// Reference variants the generated recipe declares too; None when the
    /// reference declares none.
    pub variant_recall: Option<f64>,
    pub variants_missing: Vec<String>,
    /// Generated variants the reference lacks.
    pub variants_extra: Vec<String>,
    /// The same recall and precision over the dependencies each recipe has
    /// in its default configuration (`when=` conditions decided by the
    /// recipe's own variant defaults, on Linux): what a plain `spack
    /// install` of either pulls in, apart from what its opt-in features
    /// would add.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_dep_recall: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_dep_precision: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_deps_missing: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_deps_extra: Vec<String>,
}

/// What a dependency is for, as far as this score cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    LinkOrRun,
    TestOnly,
    BuildOnly,
}

fn role(d: &Dep) -> Role {
    let has = |t: &str| d.types.iter().any(|x| x == t);
    if has("link") || has("run") {
        Role::LinkOrRun
    } else if has("test") && !has("build") {
        Role::TestOnly
    } else {
        Role::BuildOnly
    }
}

/// The virtuals a name stands for: itself, plus those it provides.
fn aliases(name: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::from([name.to_string()]);
    if let Some((virtuals, _)) = virtuals_for(name, &NoKnowledge) {
        out.extend(virtuals);
    }
    out
}

/// One package on one side: its name and every directive's spec.
struct Package<'a> {
    name: &'a str,
    aliases: BTreeSet<String>,
    directives: Vec<&'a Dep>,
}

/// Whether a dependency can hold for any of `versions`: a human recipe
/// keeps the dependencies of old releases under `when="@:1.2"`, which say
/// nothing about the release packaged now. Without versions, or with a
/// condition on no version, it can.
fn applies(d: &Dep, versions: &[Version]) -> bool {
    let Some(range) = d.when_ast.as_ref().and_then(|w| w.versions.as_ref()) else {
        return true;
    };
    versions.is_empty() || versions.iter().any(|v| range.contains(v))
}

/// Platforms and processors a default configuration on Linux x86-64
/// never is.
const OTHER_PLATFORMS: &[&str] = &["darwin", "windows", "freebsd", "cray"];
const OTHER_TARGETS: &[&str] = &[
    "aarch64", "arm", "ppc", "power", "riscv", "s390", "neoverse", "a64fx", "m1", "m2",
];

/// Whether a dependency's `when=` holds in the recipe's default
/// configuration: every variant it names at the recipe's default, Linux
/// x86-64. A variant the recipe does not declare is one of a base class's
/// opt-in features (`+cuda`, `+rocm`): off. An unparsed condition holds.
fn holds_by_default(d: &Dep, defaults: &BTreeMap<String, String>) -> bool {
    let Some(when) = d.when_ast.as_ref() else {
        return true;
    };
    let platform_ok = when
        .arch
        .platform
        .as_deref()
        .is_none_or(|p| !OTHER_PLATFORMS.contains(&p));
    let target_ok = when.arch.target.as_deref().is_none_or(|t| {
        !OTHER_TARGETS
            .iter()
            .any(|o| t.trim_start_matches(':').starts_with(o))
    });
    platform_ok
        && target_ok
        && when
            .variants
            .iter()
            .all(|v| match (&v.value, defaults.get(&v.name)) {
                (VariantValue::Bool(on), Some(default)) => match default.as_str() {
                    "True" => *on,
                    "False" => !*on,
                    _ => true,
                },
                (VariantValue::Bool(on), None) => !*on,
                (VariantValue::Values(wanted), Some(default)) => default
                    .split(',')
                    .any(|x| wanted.iter().any(|w| w == x.trim())),
                (VariantValue::Values(_), None) => true,
            })
}

fn packages<'a>(deps: &'a [Dep], wanted: Role, versions: &[Version]) -> Vec<Package<'a>> {
    packages_where(deps, wanted, |d| applies(d, versions))
}

fn packages_where<'a>(
    deps: &'a [Dep],
    wanted: Role,
    keep: impl Fn(&Dep) -> bool,
) -> Vec<Package<'a>> {
    let mut out: Vec<Package<'a>> = Vec::new();
    for d in deps.iter().filter(|d| role(d) == wanted && keep(d)) {
        match out.iter_mut().find(|p| p.name == d.name) {
            Some(p) => p.directives.push(d),
            None => out.push(Package {
                name: &d.name,
                aliases: aliases(&d.name),
                directives: vec![d],
            }),
        }
    }
    out.sort_by(|a, b| a.name.cmp(b.name));
    out
}

/// Same package (or provider and virtual) with overlapping version ranges
/// in some pair of directives; an unparsed spec does not veto.
fn same_dependency(a: &Package, b: &Package) -> bool {
    if a.name != b.name {
        return !a.aliases.is_disjoint(&b.aliases);
    }
    a.directives.iter().any(|x| {
        b.directives
            .iter()
            .any(|y| match (&x.spec_ast, &y.spec_ast) {
                (Some(x), Some(y)) => x.intersects(y),
                _ => true,
            })
    })
}

fn names(packages: &[Package]) -> Vec<String> {
    packages.iter().map(|p| p.name.to_string()).collect()
}

/// Variant names compare as Spack users type them: case and `-`/`_` aside.
fn variant_key(name: &str) -> String {
    name.trim().to_ascii_lowercase().replace('-', "_")
}

pub(super) fn fidelity(
    reference: &ScoreRecipe,
    generated: &ScoreRecipe,
    release: SpackRelease,
) -> Fidelity {
    let (orig, _) = split_inherited(reference, release);
    let (new, _) = split_inherited(generated, release);
    // The releases the generated recipe packages decide which of the
    // reference's version-conditioned dependencies count.
    let versions: Vec<Version> = generated
        .versions
        .iter()
        .filter_map(|v| Version::parse(v))
        .collect();
    let ref_deps = packages(&orig, Role::LinkOrRun, &versions);
    let gen_deps = packages(&new, Role::LinkOrRun, &[]);
    let (found, missing): (Vec<&Package>, Vec<&Package>) = ref_deps
        .iter()
        .partition(|r| gen_deps.iter().any(|g| same_dependency(r, g)));
    let (kept, extra): (Vec<&Package>, Vec<&Package>) = gen_deps
        .iter()
        .partition(|g| ref_deps.iter().any(|r| same_dependency(r, g)));
    let ratio = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
    let ref_default = packages_where(&orig, Role::LinkOrRun, |d| {
        applies(d, &versions) && holds_by_default(d, &reference.variant_defaults)
    });
    let gen_default = packages_where(&new, Role::LinkOrRun, |d| {
        holds_by_default(d, &generated.variant_defaults)
    });
    let default_missing: Vec<String> = ref_default
        .iter()
        .filter(|r| !gen_default.iter().any(|g| same_dependency(r, g)))
        .map(|p| p.name.to_string())
        .collect();
    let default_extra: Vec<String> = gen_default
        .iter()
        .filter(|g| !ref_default.iter().any(|r| same_dependency(r, g)))
        .map(|p| p.name.to_string())
        .collect();

    let ref_variants: BTreeSet<String> =
        reference.variants.iter().map(|v| variant_key(v)).collect();
    let gen_variants: BTreeSet<String> =
        generated.variants.iter().map(|v| variant_key(v)).collect();
    let shared_variants = ref_variants.intersection(&gen_variants).count();
    let name_of = |p: &&Package| p.name.to_string();
    Fidelity {
        dep_recall: ratio(found.len(), ref_deps.len()),
        dep_precision: ratio(kept.len(), gen_deps.len()),
        deps_found: found.iter().map(name_of).collect(),
        deps_missing: missing.iter().map(name_of).collect(),
        deps_extra: extra.iter().map(name_of).collect(),
        test_deps_reference: names(&packages(&orig, Role::TestOnly, &versions)),
        test_deps_generated: names(&packages(&new, Role::TestOnly, &[])),
        variant_recall: ratio(shared_variants, ref_variants.len()),
        variants_missing: ref_variants.difference(&gen_variants).cloned().collect(),
        variants_extra: gen_variants.difference(&ref_variants).cloned().collect(),
        default_dep_recall: ratio(ref_default.len() - default_missing.len(), ref_default.len()),
        default_dep_precision: ratio(gen_default.len() - default_extra.len(), gen_default.len()),
        default_deps_missing: default_missing,
        default_deps_extra: default_extra,
    }
}
