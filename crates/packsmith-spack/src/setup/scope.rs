//! The text of the set-up's config scope and of its `env.sh`.

use std::path::Path;

use super::OwnExternal;

/// The static files of the scope: (file name, YAML text). `mirrors::`
/// (two colons) replaces the public mirrors with the local one.
pub fn scope_files(prefix: &Path, jobs: usize, no_bootstrap: bool) -> Vec<(&'static str, String)> {
    let p = prefix.display();
    let mut files = vec![
        (
            "config.yaml",
            format!(
                "config:\n  install_tree:\n    root: {p}/opt\n  build_stage:\n  - {p}/stage\n  \
                 source_cache: {p}/source-cache\n  misc_cache: {p}/misc-cache\n  build_jobs: {jobs}\n"
            ),
        ),
        (
            "mirrors.yaml",
            format!("mirrors::\n  packsmith-local:\n    url: file://{p}/mirror\n"),
        ),
        (
            "packages.yaml",
            // Provider preferences for the virtuals host libraries give;
            // without zlib-api's, Spack picks zlib-ng and must download it.
            "packages:\n  all:\n    target: [x86_64]\n    providers:\n      zlib-api: [zlib]\n      \
             blas: [openblas]\n      lapack: [openblas]\n      mpi: [openmpi, mpich]\n  \
             zlib-ng:\n    buildable: false\n"
                .to_string(),
        ),
    ];
    if no_bootstrap {
        // clingo comes from the venv; bootstrapping would try the network.
        files.push(("bootstrap.yaml", "bootstrap:\n  enable: false\n".into()));
    }
    files
}

/// The names directly under `packages:` in a packages.yaml.
pub fn top_level_packages(yaml: &str) -> Vec<String> {
    yaml.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.trim_end().ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':').to_string())
        .filter(|n| n != "all")
        .collect()
}

/// Adds packsmith's own detections that Spack did not find itself, not
/// buildable so Spack never tries to download them.
pub fn append_own_externals(
    scope: &Path,
    own: &[OwnExternal],
    spack_found: &[String],
) -> std::io::Result<()> {
    let path = scope.join("packages.yaml");
    let mut text = std::fs::read_to_string(&path).unwrap_or_else(|_| "packages:\n".into());
    if !text.ends_with('\n') {
        text.push('\n');
    }
    for ext in own.iter().filter(|e| !spack_found.contains(&e.package)) {
        text.push_str(&external_entry(ext));
    }
    std::fs::write(path, text)
}

fn external_entry(ext: &OwnExternal) -> String {
    format!(
        "  {}:\n    buildable: false\n    externals:\n    - spec: {}\n      prefix: {}\n",
        ext.package,
        ext.spec(),
        ext.prefix
    )
}

/// `env.sh`: the `export` lines `packsmith spack --spack` and a shell read.
/// The env.sh variable naming the directory of Spack's style tools.
pub const STYLE_BIN_VAR: &str = "PACKSMITH_STYLE_BIN";

pub fn env_script(
    root: &Path,
    prefix: &Path,
    spack_python: Option<&Path>,
    style_bin: Option<&Path>,
) -> String {
    let mut s = format!(
        "# Written by `packsmith setup spack`; rerun it to refresh.\n\
         export SPACK_ROOT={}\n\
         export SPACK_USER_CONFIG_PATH={}/scope\n\
         export SPACK_USER_CACHE_PATH={}/cache\n",
        root.display(),
        prefix.display(),
        prefix.display()
    );
    if let Some(py) = spack_python {
        s.push_str(&format!("export SPACK_PYTHON={}\n", py.display()));
    }
    if let Some(bin) = style_bin {
        s.push_str(&format!("export {STYLE_BIN_VAR}={}\n", bin.display()));
    }
    s.push_str("export PATH=\"$SPACK_ROOT/bin:$PATH\"\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_externals_are_added_only_where_spack_found_none() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("packages.yaml"),
            "packages:\n  all:\n    target: [x86_64]\n  cmake:\n    externals:\n    - spec: cmake@3.25.1\n      prefix: /usr\n    buildable: false\n",
        )
        .unwrap();
        let text = std::fs::read_to_string(dir.path().join("packages.yaml")).unwrap();
        let found = top_level_packages(&text);
        assert_eq!(found, vec!["cmake".to_string()]);
        let own = |p: &str| OwnExternal {
            package: p.into(),
            version: "1.0".into(),
            variants: String::new(),
            prefix: "/usr".into(),
        };
        append_own_externals(dir.path(), &[own("cmake"), own("zlib")], &found).unwrap();
        let text = std::fs::read_to_string(dir.path().join("packages.yaml")).unwrap();
        assert_eq!(top_level_packages(&text), vec!["cmake", "zlib"]);
        assert!(
            text.contains("  zlib:\n    buildable: false\n    externals:\n    - spec: zlib@1.0\n")
        );
    }

    #[test]
    fn the_mirror_replaces_public_ones_and_env_names_the_scope() {
        let files = scope_files(Path::new("/p"), 4, true);
        let mirrors = &files.iter().find(|(n, _)| *n == "mirrors.yaml").unwrap().1;
        assert!(mirrors.starts_with("mirrors::\n"), "{mirrors}");
        assert!(files.iter().any(|(n, _)| *n == "bootstrap.yaml"));
        let env = env_script(
            Path::new("/s"),
            Path::new("/p"),
            Some(Path::new("/p/venv/bin/python3")),
            Some(Path::new("/p/style/bin")),
        );
        assert!(env.contains("export SPACK_USER_CONFIG_PATH=/p/scope\n"));
        assert!(env.contains("export SPACK_PYTHON=/p/venv/bin/python3\n"));
        assert!(env.contains("export PACKSMITH_STYLE_BIN=/p/style/bin\n"));
        let without = env_script(Path::new("/s"), Path::new("/p"), None, None);
        assert!(!without.contains("PACKSMITH_STYLE_BIN"), "{without}");
    }
}
