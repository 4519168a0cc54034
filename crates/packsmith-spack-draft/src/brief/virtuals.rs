//! Virtuals over providers in the brief: every dependency on a package
//! that provides a Spack virtual (`libelf`, `openblas`, `openmpi`) becomes
//! a dependency on the virtual(s), with the same `when=` and types, so the
//! recipe concretizes against whichever provider a site has.

use super::{push_dep, BriefDependency, SpackBrief};
use packsmith_spack_knowledge::mapping::{virtuals_for, SpackNames};

pub(super) fn apply(kb: &dyn SpackNames, brief: &mut SpackBrief) {
    brief.dependencies = swap(&brief.dependencies, kb);
    brief.optional_dependencies = swap(&brief.optional_dependencies, kb);
}

fn swap(deps: &[BriefDependency], kb: &dyn SpackNames) -> Vec<BriefDependency> {
    let mut out = Vec::new();
    for d in deps {
        let name = d
            .spec
            .split(['@', '+', '~', ' ', '%', '^'])
            .next()
            .unwrap_or(&d.spec);
        match virtuals_for(name, kb) {
            // A virtual takes no version or variants of its provider.
            Some((virtuals, why)) => {
                for v in virtuals {
                    push_dep(
                        &mut out,
                        BriefDependency {
                            spec: v,
                            why: format!("{}; {why}", d.why),
                            ..d.clone()
                        },
                    );
                }
            }
            None => push_dep(&mut out, d.clone()),
        }
    }
    out
}
