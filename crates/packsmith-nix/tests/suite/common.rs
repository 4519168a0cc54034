//! Helpers: is Nix here, and a sandboxed, offline Nix configuration.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;
use packsmith_nix::{NixConfig, NixParser};

/// True when `nix-instantiate` runs; otherwise prints a loud SKIPPED line.
#[allow(clippy::print_stderr)] // the SKIPPED line must be seen
pub fn nix_available(test: &str) -> bool {
    let ok = NixParser::default().available();
    if !ok {
        eprintln!("SKIPPED: nix-instantiate not found ({test})");
    }
    ok
}

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `/bin/sh` and the shared objects it loads, as `path=realpath` sandbox
/// entries: the builder of the test derivations is the host shell.
pub fn host_shell_paths() -> Vec<String> {
    let mut paths = vec![format!(
        "/bin/sh={}",
        std::fs::canonicalize("/bin/sh").unwrap().display()
    )];
    let out = packsmith_exec::run(&CommandSpec::new("ldd").arg("/bin/sh")).unwrap();
    for line in out.stdout.lines() {
        let p = match line.split_once("=>") {
            Some((_, rhs)) => rhs.split_whitespace().next(),
            None => line.split_whitespace().next(),
        };
        if let Some(p) = p.filter(|p| p.starts_with('/')) {
            let real = std::fs::canonicalize(p).unwrap();
            paths.push(format!("{p}={}", real.display()));
        }
    }
    paths
}

/// Sandboxed, offline (no binary caches), with the host shell and `extra`
/// directories visible in the sandbox.
pub fn sandbox_config(extra: &[&Path]) -> NixConfig {
    let mut paths = host_shell_paths();
    paths.extend(extra.iter().map(|p| p.display().to_string()));
    NixConfig {
        sandbox: true,
        extra_sandbox_paths: paths,
        offline: true,
        eval_timeout: Duration::from_secs(60),
        build_timeout: Duration::from_secs(60),
        ..NixConfig::default()
    }
}

/// Like [`host_shell_paths`] for any host programs: each program and the
/// shared objects it loads, as `path=realpath` entries (for Nix's
/// sandbox-paths and the runtime check's bubblewrap binds alike).
pub fn host_program_paths(programs: &[&str]) -> Vec<String> {
    let mut paths: Vec<String> = Vec::new();
    for program in programs {
        let mut add = |p: &str| {
            let real = std::fs::canonicalize(p).unwrap();
            let entry = format!("{p}={}", real.display());
            if !paths.contains(&entry) {
                paths.push(entry);
            }
        };
        add(program);
        let out = packsmith_exec::run(&CommandSpec::new("ldd").arg(program)).unwrap();
        for line in out.stdout.lines() {
            let p = match line.split_once("=>") {
                Some((_, rhs)) => rhs.split_whitespace().next(),
                None => line.split_whitespace().next(),
            };
            if let Some(p) = p.filter(|p| p.starts_with('/')) {
                add(p);
            }
        }
    }
    paths
}
