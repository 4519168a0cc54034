//! The templates a build file a makefile includes may be made from, when
//! the source lacks it (`missing_build_config`): files beside it named
//! after it (`config.mk.template`, `make.inc.example`), and, for an include
//! named by make variables (`config/$(ARCH)_$(TYPE)`), the files that
//! pattern names (`config/xc40-gnu-relo_one`). Each with its compiler line,
//! so a model picks the one for this compiler. A template whose compiler
//! this machine does not have (`mpiifort`, Cray's `ftn`), or that is an MPI
//! wrapper when the recipe does not depend on MPI, is left out: its build
//! cannot run here. One template left is the rule's to copy; several are the
//! model's to choose from.

use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use packsmith_spack_knowledge::edit::{apply_edits, EditOp};

/// Most templates offered.
const MAX: usize = 30;

/// How deep makefiles are looked for below the source root.
const MAKEFILE_DEPTH: usize = 3;

/// Names of a makefile.
const MAKEFILES: [&str; 3] = ["Makefile", "makefile", "GNUmakefile"];

/// Suffixes of files that are inputs to a generator, not templates to copy
/// (`config.mk.in` holds `@VAR@`s that configure fills in).
const NOT_TEMPLATES: [&str; 3] = [".in", ".am", ".cmake"];

/// A file the missing one may be made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// Relative to the source root, as `copy` in `edit()` takes it.
    pub path: String,
    /// Its first compiler setting (`FC = gfortran`), when it has one.
    pub compiler: Option<String>,
}

impl std::fmt::Display for Template {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.compiler {
            Some(c) => write!(f, "{} (`{c}`)", self.path),
            None => write!(f, "{}", self.path),
        }
    }
}

/// The file to make, relative to the source root, and the templates for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Templates {
    pub target: String,
    pub templates: Vec<Template>,
}

/// The templates for `target` (a path as make named it) in `root` that
/// can build here; `mpi`: the recipe depends on MPI.
pub fn templates(root: &Path, target: &str, mpi: bool) -> Templates {
    let (dir, pattern) = including_makefile(root, target).unwrap_or_default();
    let target_path = normalize(&dir.join(target));
    let mut found: Vec<PathBuf> = Vec::new();
    if let Some(target_path) = &target_path {
        found.extend(named_after(root, target_path));
    }
    if let Some(pattern) = pattern {
        found.extend(matching(root, &dir, &pattern));
    }
    found.sort();
    found.dedup();
    found.retain(|p| Some(p) != target_path.as_ref());
    found.truncate(MAX);
    Templates {
        target: target_path
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|| target.to_string()),
        templates: found
            .into_iter()
            .map(|p| Template {
                compiler: compiler_line(&root.join(&p)),
                path: p.to_string_lossy().into_owned(),
            })
            .filter(|t| t.compiler.as_deref().is_none_or(|c| usable(c, mpi)))
            .collect(),
    }
}

/// Whether a template's compiler setting (`FC = gfortran -O2`) names a
/// program on this machine's `PATH`, and no MPI wrapper unless the recipe
/// depends on MPI. A value made of make variables cannot be judged: kept.
fn usable(setting: &str, mpi: bool) -> bool {
    let value = setting.split_once('=').map_or(setting, |(_, v)| v).trim();
    let Some(program) = value.split_whitespace().next() else {
        return true;
    };
    if program.contains('$') {
        return true;
    }
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    if !mpi && (name.starts_with("mpi") || name == "ftn") {
        return false;
    }
    on_path(program)
}

/// `program` is an executable file: by its path, or in a `PATH` directory.
fn on_path(program: &str) -> bool {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program));
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| executable(&d.join(program))))
}

/// The rule: the one template the project ships for the file, copied in
/// the recipe's edit phase. Several are the model's to choose from.
pub fn copy_only_template(text: &str, found: &Templates) -> Option<(String, String)> {
    let [only] = found.templates.as_slice() else {
        return None;
    };
    let edit = EditOp::CopyFile {
        from: only.path.clone(),
        to: found.target.clone(),
    };
    // Copied already and still missing: the copy is not what make reads.
    if text.contains(&format!("copy({:?}, {:?})", only.path, found.target)) {
        return None;
    }
    let fixed = apply_edits(text, &[edit]).ok()?;
    Some((
        fixed,
        format!(
            "make includes `{}`, which the source lacks: copied the one template it ships, `{}`",
            found.target, only.path
        ),
    ))
}

/// `path` without `.` and `..` parts; `None` when it leaves the root.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// Files beside `target` named after it: `config.mk.template` for
/// `config.mk`.
fn named_after(root: &Path, target: &Path) -> Vec<PathBuf> {
    let Some(name) = target.file_name().and_then(|n| n.to_str()) else {
        return Vec::new();
    };
    let dir = target.parent().unwrap_or(Path::new(""));
    files_in(&root.join(dir))
        .into_iter()
        .filter(|f| {
            f.strip_prefix(name)
                .is_some_and(|rest| rest.starts_with(['.', '-', '_']) && rest.len() > 1)
        })
        .filter(|f| !NOT_TEMPLATES.iter().any(|s| f.ends_with(s)))
        .map(|f| dir.join(f))
        .collect()
}

/// Files under `dir` (relative to `root`) that an include pattern with
/// its variables set names.
fn matching(root: &Path, dir: &Path, pattern: &str) -> Vec<PathBuf> {
    let Some(regex) = pattern_regex(pattern, "[^/]+") else {
        return Vec::new();
    };
    let sub = Path::new(pattern).parent().unwrap_or(Path::new(""));
    // The pattern's directory holds no variable: list that one directory.
    if sub.to_string_lossy().contains('$') {
        return Vec::new();
    }
    files_in(&root.join(dir).join(sub))
        .into_iter()
        .filter(|f| !f.to_ascii_lowercase().starts_with("readme"))
        .map(|f| sub.join(f))
        .filter(|p| regex.is_match(&p.to_string_lossy()))
        .filter_map(|p| normalize(&dir.join(p)))
        .collect()
}

/// An include pattern as a regex, each `$(VAR)` or `${VAR}` standing for
/// `value` (`.*` to match what make read with them empty).
fn pattern_regex(pattern: &str, value: &str) -> Option<Regex> {
    static VARIABLE: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"\$\([^)]*\)|\$\{[^}]*\}").ok());
    let variable = VARIABLE.as_ref()?;
    let mut out = String::from("^");
    let mut last = 0;
    for m in variable.find_iter(pattern) {
        out.push_str(&regex::escape(&pattern[last..m.start()]));
        out.push_str(value);
        last = m.end();
    }
    out.push_str(&regex::escape(&pattern[last..]));
    out.push('$');
    Regex::new(&out).ok()
}

/// The directory of the makefile that includes `target`, and its include
/// pattern when that names the file with variables.
fn including_makefile(root: &Path, target: &str) -> Option<(PathBuf, Option<String>)> {
    static INCLUDE: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^\s*-?s?include\s+(.+?)\s*$").ok());
    let include = INCLUDE.as_ref()?;
    for makefile in makefiles(root, Path::new(""), MAKEFILE_DEPTH) {
        let Ok(text) = std::fs::read_to_string(root.join(&makefile)) else {
            continue;
        };
        let dir = makefile.parent().unwrap_or(Path::new("")).to_path_buf();
        for line in text.lines() {
            let Some(c) = include.captures(line) else {
                continue;
            };
            for pattern in c[1].split_whitespace() {
                if pattern == target {
                    return Some((dir, None));
                }
                let variable = pattern.contains("$(") || pattern.contains("${");
                if variable && pattern_regex(pattern, ".*").is_some_and(|r| r.is_match(target)) {
                    return Some((dir, Some(pattern.to_string())));
                }
            }
        }
    }
    None
}

/// The makefiles at most `depth` directories below `dir`, shallowest first.
fn makefiles(root: &Path, dir: &Path, depth: usize) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = files_in(&root.join(dir))
        .into_iter()
        .filter(|f| MAKEFILES.contains(&f.as_str()))
        .map(|f| dir.join(f))
        .collect();
    if depth == 0 {
        return out;
    }
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return out;
    };
    let mut subdirs: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| dir.join(e.file_name()))
        .filter(|d| !d.to_string_lossy().split('/').any(|p| p.starts_with('.')))
        .collect();
    subdirs.sort();
    for sub in subdirs {
        out.extend(makefiles(root, &sub, depth - 1));
    }
    out
}

/// The names of the plain files in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .filter_map(|e| e.file_name().to_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// A template's first compiler setting: `FC = gfortran`.
fn compiler_line(path: &Path) -> Option<String> {
    static SETTING: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"^\s*(FC|F90|F77|MPIFC|MPIF90|CC|CXX|MPICC)\s*[:?]?=\s*(\S.*?)\s*$").ok()
    });
    let setting = SETTING.as_ref()?;
    let text = std::fs::read_to_string(path).ok()?;
    text.lines()
        .filter_map(|l| setting.captures(l))
        .map(|c| format!("{} = {}", &c[1], &c[2]))
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        dir
    }

    const MAKEFILE_RECIPE: &str = "from spack.package import *\n\n\nclass Dineof(MakefilePackage):\n    \"\"\"DINEOF.\"\"\"\n\n    version(\"2.0.0\", sha256=\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\")\n";

    #[test]
    fn the_one_template_named_after_the_file_is_copied_by_the_rule() {
        let src = tree(&[
            ("Makefile", "include config.mk\nall:\n\t$(FC) -o x x.F90\n"),
            ("config.mk.template", "FORT ?= gfortran\nFC = $(FORT)\n"),
            ("config.mk.in", "FC = @FC@\n"),
            ("config.h", ""),
        ]);
        let found = templates(src.path(), "config.mk", false);
        assert_eq!(found.target, "config.mk");
        assert_eq!(
            found.templates,
            [Template {
                path: "config.mk.template".into(),
                compiler: Some("FC = $(FORT)".into()),
            }]
        );
        let (fixed, why) = copy_only_template(MAKEFILE_RECIPE, &found).expect("the rule");
        assert!(
            fixed.contains("    def edit(self, spec, prefix):\n        copy(\"config.mk.template\", \"config.mk\")\n"),
            "{fixed}"
        );
        assert!(why.contains("config.mk.template"), "{why}");
        // Copied already and still missing: not again.
        assert!(copy_only_template(&fixed, &found).is_none());
    }

    #[test]
    fn an_include_named_by_variables_offers_the_files_it_names() {
        let src = tree(&[
            (
                "Makefile",
                "# comment\ninclude config/$(ARCH)_$(TYPE)\nhycom: x.o\n",
            ),
            ("config/xc40-gnu-relo_one", "FC            = sh\nCC = gcc\n"),
            ("config/xc40-gnu-relo_omp", "FC = $(F90) -fopenmp\n"),
            ("config/xc40-intel-relo_mpi", "FC = ftn\n"),
            ("config/intel-relo_one", "FC = no-such-compiler-here\n"),
            ("config/README.src.config_x", "notes\n"),
            ("config/notes", "no underscore\n"),
        ]);
        // `sh` stands for a compiler this machine has; a compiler it lacks
        // and an MPI wrapper (the recipe has no MPI) are left out.
        let found = templates(src.path(), "config/_", false);
        assert_eq!(found.target, "config/_");
        let shown: Vec<String> = found.templates.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            [
                "config/xc40-gnu-relo_omp (`FC = $(F90) -fopenmp`)",
                "config/xc40-gnu-relo_one (`FC = sh`)"
            ]
        );
        assert!(usable("FC = mpif90", true) == on_path("mpif90"));
        assert!(!usable("FC = mpif90", false));
        // Several: the model chooses, not the rule.
        assert!(copy_only_template(MAKEFILE_RECIPE, &found).is_none());
    }

    #[test]
    fn a_makefile_below_the_root_resolves_the_path_and_nothing_leaves_the_root() {
        let src = tree(&[
            ("src/Makefile", "include ../make.inc\n"),
            ("make.inc.example", "CC = $(CC)\n"),
        ]);
        let found = templates(src.path(), "../make.inc", false);
        assert_eq!(found.target, "make.inc");
        assert_eq!(found.templates[0].path, "make.inc.example");
        // A path above the root names no template.
        assert!(templates(src.path(), "../../etc/passwd", false)
            .templates
            .is_empty());
    }
}
