//! The smoke test, a validation stage after the install: does what was
//! installed run at all? A recipe can install cleanly and still ship a
//! program that cannot find its libraries or a Python module that cannot
//! import its run-time dependencies.
//!
//! The test is derived from the installed prefix (`derive.rs`): an
//! executable of `bin/` (the package's own name first) with the first of
//! `--version` and `--help` it answers with exit 0 in a few seconds,
//! probed once in a stricter sandbox (`probe.rs`); a tiny program that
//! includes an installed header and links an installed library, probed
//! the same way (`library.rs`); the top-level modules of a Python
//! package's `site-packages`. The knowledge crate writes it into
//! the recipe as Spack's stand-alone tests (`edit::smoke`); `stage.rs`
//! runs `spack test run /<hash>` in the stages' sandbox and writes
//! `<attempt>/logs/smoke.log`.

mod derive;
mod library;
mod probe;
mod stage;

pub use derive::{
    bin_executables, executable_candidates, installed_anything, installed_spec, python_modules,
    site_packages, InstalledSpec,
};

/// The smoke log's line for an install that put no file into its prefix
/// (the diagnosis reads it back).
pub const INSTALLED_NOTHING: &str = "packsmith: the install put no file into its prefix";
pub use library::{derive_link_check, exported_symbol, header_of, library_of, probe_link};
pub use probe::{probe_executable, probe_sandbox, probe_with, Probe, PROBE_ARGS, PROBE_TIMEOUT};
pub use stage::{derive_smoke_test, run_smoke_test, smoke_without_spack, SmokeDerivation};

/// Writes an executable file for a test, by a shell of its own: a file
/// this process held open for writing could still be open in a child
/// another test forks at that moment (until it execs), and running it
/// would then fail with "Text file busy".
#[cfg(test)]
pub(crate) fn write_executable(path: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut writer = std::process::Command::new("sh")
        .args(["-c", "cat > \"$0\" && chmod 755 \"$0\""])
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = writer.stdin.take().unwrap();
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    assert!(writer.wait().unwrap().success());
}
