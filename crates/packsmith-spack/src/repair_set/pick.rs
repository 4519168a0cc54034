//! Which recipes of a builtin repository can become repair tasks: a
//! package directory holding `package.py` alone (patches and other files
//! would have to travel with it), no import of another package's recipe,
//! and few dependencies, so the original concretizes against a site's
//! externals in seconds.

use std::path::Path;

use packsmith_spack_knowledge::kb::layout::package_name_from_dir;

/// Most `depends_on` lines of a usable recipe.
pub const MAX_DEPENDENCIES: usize = 8;

/// A usable recipe.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub name: String,
    pub text: String,
}

/// Usable recipes of `packages/`, by name.
pub fn candidate_packages(packages: &Path) -> Vec<Candidate> {
    let Ok(entries) = std::fs::read_dir(packages) else {
        return Vec::new();
    };
    let mut out: Vec<Candidate> = entries
        .flatten()
        .filter_map(|e| usable(&e.path()))
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

fn usable(dir: &Path) -> Option<Candidate> {
    let name = package_name_from_dir(dir.file_name()?.to_str()?);
    let files: Vec<_> = std::fs::read_dir(dir).ok()?.flatten().collect();
    if files.len() != 1 || files[0].file_name() != "package.py" {
        return None;
    }
    let text = std::fs::read_to_string(dir.join("package.py")).ok()?;
    let borrows =
        text.contains("spack.pkg.") || text.contains("from ..") || text.contains("import_module");
    let deps = text.matches("depends_on(").count();
    (text.len() < 64 * 1024 && !borrows && deps <= MAX_DEPENDENCIES)
        .then_some(Candidate { name, text })
}
