//! What the real-Spack loop tests share: the test Spack, a sandbox that
//! can write the run directory, and a `SpackEcosystem` for a project
//! written into `<run>/src` and packed as its own mirror.
#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::path::{Path, PathBuf};

use packsmith_spack::ecosystem::{PromptSettings, SpackEcosystem, Validation};
use packsmith_spack::validate::{
    pack_local_source, Sandbox, SandboxPolicy, SpackSandboxPolicy, SpackSetup, StageOptions,
};
use packsmith_spack_draft::brief::build_brief;
use packsmith_spack_knowledge::mapping::NoKnowledge;
use packsmith_spack_knowledge::target::TargetSpack;

/// The stages after install a test turns on.
#[derive(Debug, Clone, Copy, Default)]
pub struct AfterInstall {
    pub hermeticity: bool,
    pub smoke: bool,
}

/// The test Spack's set-up in `run`, or None after a loud SKIPPED line
/// naming `test` (no PACKSMITH_TEST_SPACK).
pub fn spack_setup(run: &Path, test: &str) -> Option<SpackSetup> {
    let setup = crate::spack_real::test_spack_env()
        .and_then(|env| SpackSetup::from_env_script(&env, run).map_err(|e| e.to_string()));
    match setup {
        Ok(s) => Some(s),
        Err(e) => {
            eprintln!(
                "SKIPPED: {test}: no Spack ({e}); set PACKSMITH_TEST_SPACK=/path/to/spack-checkout"
            );
            None
        }
    }
}

/// The facts of the tree at `root`, analysed as a local path.
pub fn facts(root: &Path) -> packsmith_core::RepoFacts {
    packsmith_analyze::analyze_dir(
        root,
        packsmith_core::SourceInfo {
            kind: "path".into(),
            given: root.display().to_string(),
            release_tag: None,
        },
    )
    .unwrap()
}

/// A project under test, ready for the loop.
pub struct LoopEnv {
    pub eco: SpackEcosystem,
    /// `<run>/src`, where `write` put the project.
    pub src: PathBuf,
    /// The sha256 of the packed source the recipe must name.
    pub sha256: String,
}

/// The ecosystem for `name@version`, whose project `write` puts in
/// `<run>/src`; the deterministic draft is off, so the scripted model's
/// answer is the recipe. None (SKIPPED) without Spack.
pub fn ecosystem(
    run: &Path,
    test: &str,
    (name, version): (&str, &str),
    write: impl FnOnce(&Path),
    after: AfterInstall,
) -> Option<LoopEnv> {
    let setup = spack_setup(run, test)?;
    let src = run.join("src");
    write(&src);
    let paths = setup.probe_paths().unwrap();
    let mut writable = paths.writable();
    writable.push(run.to_path_buf());
    let sandbox = Sandbox::new(
        SandboxPolicy::for_spack(writable, setup.read_only_roots(), run.join("home")),
        false,
    )
    .unwrap();
    let mut brief = build_brief(&facts(&src), TargetSpack::V0_23, &NoKnowledge);
    brief.fetch.version = Some(version.into());
    let packed = pack_local_source(&src, name, version, &run.join("mirror")).unwrap();
    brief.fetch.url = Some(packed.url.clone());
    brief.fetch.sha256 = Some(packed.sha256.clone());
    let validation = Validation {
        setup,
        sandbox,
        mirror: Some(packed.mirror.clone()),
        options: StageOptions::default(),
        audit: false,
        install: true,
        hermeticity: after.hermeticity,
        smoke: after.smoke,
    };
    let eco = SpackEcosystem::new(brief, PromptSettings::default(), validation).with_draft(None);
    Some(LoopEnv {
        eco,
        src,
        sha256: packed.sha256,
    })
}
