//! Where Spack is and how it is configured: taken from options, never
//! hard-coded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;
use serde::{Deserialize, Serialize};

use super::ValidateError;

/// The variables Spack reads that a setup may carry.
const SPACK_VARS: &[&str] = &[
    "SPACK_ROOT",
    "SPACK_USER_CONFIG_PATH",
    "SPACK_USER_CACHE_PATH",
    "SPACK_PYTHON",
    "SPACK_DISABLE_LOCAL_CONFIG",
];

/// A Spack installation and the scratch directory runs write into.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpackSetup {
    /// The `spack` executable.
    pub spack_bin: PathBuf,
    /// Variables set for every Spack command (`SPACK_ROOT`,
    /// `SPACK_USER_CONFIG_PATH`, `SPACK_PYTHON`, `PATH`, ...).
    pub env: BTreeMap<String, String>,
    /// Root for run directories (mirrors, overlay repos, scopes, logs).
    pub scratch: PathBuf,
}

/// Spack's own writable locations, as its configuration resolves them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpackPaths {
    pub install_root: PathBuf,
    pub build_stage: Vec<PathBuf>,
    pub test_stage: Option<PathBuf>,
    pub source_cache: Option<PathBuf>,
    pub misc_cache: Option<PathBuf>,
    pub user_cache: Option<PathBuf>,
}

impl SpackPaths {
    /// Every directory a Spack command may write into.
    pub fn writable(&self) -> Vec<PathBuf> {
        let mut all = vec![self.install_root.clone()];
        all.extend(self.build_stage.iter().cloned());
        all.extend(self.test_stage.iter().cloned());
        all.extend(self.source_cache.iter().cloned());
        all.extend(self.misc_cache.iter().cloned());
        all.extend(self.user_cache.iter().cloned());
        all.sort();
        all.dedup();
        all
    }
}

/// Expands `$VAR` and `${VAR}` from `vars`, then from our environment.
fn expand(value: &str, vars: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (name, tail) = if let Some(b) = after.strip_prefix('{') {
            match b.find('}') {
                Some(end) => (&b[..end], &b[end + 1..]),
                None => ("", after),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], &after[end..])
        };
        if name.is_empty() {
            out.push('$');
            rest = after;
            continue;
        }
        let v = vars
            .get(name)
            .cloned()
            .or_else(|| std::env::var(name).ok())
            .unwrap_or_default();
        out.push_str(&v);
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `spack python -c` compiles its argument as one interactive statement;
/// wrap a multi-line script in `exec("...")` (ASCII scripts only: Rust's
/// string escapes match Python's for them).
pub(crate) fn python_exec(script: &str) -> String {
    format!("exec({script:?})")
}

/// Reads `export K=V` lines (what an `env.sh` for Spack contains).
pub(crate) fn parse_env_script(text: &str) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        let Some(assign) = line.strip_prefix("export ") else {
            continue;
        };
        let Some((k, v)) = assign.split_once('=') else {
            continue;
        };
        let v = v.trim().trim_matches('"').trim_matches('\'');
        let value = expand(v, &vars);
        vars.insert(k.trim().to_string(), value);
    }
    vars
}

impl SpackSetup {
    /// From an environment script of `export` lines (`SPACK_ROOT=...`);
    /// the binary is `$SPACK_ROOT/bin/spack`.
    pub fn from_env_script(script: &Path, scratch: &Path) -> Result<Self, ValidateError> {
        let text =
            std::fs::read_to_string(script).map_err(|e| ValidateError::io("read", script, e))?;
        let env = parse_env_script(&text);
        let root = env
            .get("SPACK_ROOT")
            .ok_or_else(|| ValidateError::SpackNotFound {
                what: format!("{} sets no SPACK_ROOT", script.display()),
            })?;
        let spack_bin = Path::new(root).join("bin/spack");
        if !spack_bin.is_file() {
            return Err(ValidateError::SpackNotFound {
                what: format!("{} does not exist", spack_bin.display()),
            });
        }
        Ok(Self {
            spack_bin,
            env,
            scratch: scratch.to_path_buf(),
        })
    }

    /// `spack` from `PATH`, with the `SPACK_*` variables of our environment.
    pub fn from_path(scratch: &Path) -> Result<Self, ValidateError> {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let spack_bin = std::env::split_paths(&path)
            .map(|d| d.join("spack"))
            .find(|p| p.is_file())
            .ok_or_else(|| ValidateError::SpackNotFound {
                what: "no `spack` on PATH".into(),
            })?;
        let mut setup = Self::from_path_vars(scratch);
        setup.spack_bin = spack_bin;
        Ok(setup)
    }

    /// An explicit `spack` executable (e.g. `--spack ~/spack/bin/spack`),
    /// with the `SPACK_*` variables of our environment.
    pub fn from_binary(spack_bin: &Path, scratch: &Path) -> Result<Self, ValidateError> {
        if !spack_bin.is_file() {
            return Err(ValidateError::SpackNotFound {
                what: format!("{} is not a file", spack_bin.display()),
            });
        }
        let mut setup = Self::from_path_vars(scratch);
        setup.spack_bin = spack_bin.to_path_buf();
        Ok(setup)
    }

    fn from_path_vars(scratch: &Path) -> Self {
        let mut env = BTreeMap::new();
        for var in SPACK_VARS {
            if let Ok(v) = std::env::var(var) {
                env.insert((*var).to_string(), v);
            }
        }
        Self {
            spack_bin: PathBuf::from("spack"),
            env,
            scratch: scratch.to_path_buf(),
        }
    }

    /// The first line of `spack --version` (`0.23.1`, `1.0.2 (abc…)`).
    pub fn version(&self) -> Result<String, ValidateError> {
        let spec = self
            .command(["--version"])
            .timeout(Duration::from_secs(120));
        let out = packsmith_exec::run(&spec).map_err(|e| ValidateError::SpackNotFound {
            what: e.to_string(),
        })?;
        out.stdout
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .filter(|_| out.success())
            .map(str::to_string)
            .ok_or_else(|| ValidateError::Command {
                command: spec.display(),
                detail: format!("exit {:?}: {}", out.code, out.stderr.trim()),
                hint: "run the command yourself to see why Spack does not start".into(),
            })
    }

    /// The directory of package `name` in this Spack's repositories
    /// (`spack location --package-dir`), when Spack knows the package.
    pub fn package_dir(&self, name: &str) -> Result<PathBuf, ValidateError> {
        let spec = self
            .command(["location", "--package-dir", name])
            .timeout(Duration::from_secs(120));
        let out = packsmith_exec::run(&spec).map_err(|e| ValidateError::SpackNotFound {
            what: e.to_string(),
        })?;
        let dir = out.stdout.lines().map(str::trim).find(|l| !l.is_empty());
        match dir {
            Some(d) if out.success() && Path::new(d).join("package.py").is_file() => Ok(d.into()),
            _ => Err(ValidateError::Command {
                command: spec.display(),
                detail: format!("no package.py of {name} in this Spack's repositories"),
                hint: format!("check the name: `spack list {name}`"),
            }),
        }
    }

    /// A command `spack <args>` with this setup's environment.
    pub fn command<I, S>(&self, args: I) -> CommandSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<std::ffi::OsString>,
    {
        let mut spec = CommandSpec::new(&self.spack_bin).args(args);
        for (k, v) in &self.env {
            spec = spec.env(k, v);
        }
        spec
    }

    /// Directories the sandbox must leave readable although they may live
    /// under a hidden home: Spack itself, its Python, its configuration.
    pub fn read_only_roots(&self) -> Vec<PathBuf> {
        let mut roots = Vec::new();
        if let Some(root) = self.spack_bin.parent().and_then(Path::parent) {
            roots.push(root.to_path_buf());
        }
        for var in ["SPACK_ROOT", "SPACK_USER_CONFIG_PATH"] {
            if let Some(v) = self.env.get(var) {
                roots.push(PathBuf::from(v));
            }
        }
        // Externals may live under the home too (`packsmith setup spack`
        // gives each Debian Python distribution a prefix of its own there).
        if let Some(scope) = self.env.get("SPACK_USER_CONFIG_PATH") {
            let yaml = std::fs::read_to_string(Path::new(scope).join("packages.yaml"));
            let prefixes = external_prefixes(&yaml.unwrap_or_default());
            roots.extend(prefixes.iter().flat_map(|p| link_target_dirs(p)));
            roots.extend(prefixes);
        }
        if let Some(py) = self.env.get("SPACK_PYTHON") {
            // `<venv>/bin/python` → the venv.
            if let Some(venv) = Path::new(py).parent().and_then(Path::parent) {
                roots.push(venv.to_path_buf());
            }
            // A venv's python is a link to the real installation, which may
            // live under the (hidden) home directory, e.g. pyenv's.
            if let Some(prefix) = std::fs::canonicalize(py)
                .ok()
                .as_deref()
                .and_then(Path::parent)
                .and_then(Path::parent)
            {
                roots.push(prefix.to_path_buf());
            }
        }
        roots.sort();
        roots.dedup();
        roots
    }

    /// Asks Spack where it writes (install tree, stages, caches) and creates
    /// those directories, so a sandbox can bind them. Runs unsandboxed: it
    /// loads no recipe.
    pub fn probe_paths(&self) -> Result<SpackPaths, ValidateError> {
        const SCRIPT: &str = "import json, spack.config as c\n\
from spack.util.path import canonicalize_path as p\n\
g = lambda k: c.get('config:' + k)\n\
st = g('build_stage') or []\n\
st = [st] if isinstance(st, str) else st\n\
o = lambda v: p(v) if v else None\n\
print('PACKSMITH-PATHS ' + json.dumps({'install_root': p(g('install_tree:root') or '$spack/opt/spack'), \
'build_stage': [p(s) for s in st], 'test_stage': o(g('test_stage')), \
'source_cache': o(g('source_cache')), 'misc_cache': o(g('misc_cache'))}))\n";
        let spec = self
            .command(["python".to_string(), "-c".into(), python_exec(SCRIPT)])
            .timeout(Duration::from_secs(120));
        let out = packsmith_exec::run(&spec).map_err(|e| ValidateError::SpackNotFound {
            what: e.to_string(),
        })?;
        let line = out
            .stdout
            .lines()
            .find_map(|l| l.strip_prefix("PACKSMITH-PATHS "))
            .ok_or_else(|| ValidateError::Command {
                command: spec.display(),
                detail: format!(
                    "exit {:?}: {}",
                    out.code,
                    out.stderr.lines().last().unwrap_or_default()
                ),
                hint: "check that `spack python` works with this setup".into(),
            })?;
        let mut paths: SpackPaths =
            serde_json::from_str(line).map_err(|e| ValidateError::Command {
                command: spec.display(),
                detail: e.to_string(),
                hint: "unexpected output from spack python".into(),
            })?;
        paths.user_cache = self.env.get("SPACK_USER_CACHE_PATH").map(PathBuf::from);
        for dir in paths.writable() {
            std::fs::create_dir_all(&dir).map_err(|e| ValidateError::io("create", &dir, e))?;
        }
        Ok(paths)
    }
}

/// The `prefix:` of every external in a packages.yaml, other than `/usr`
/// and the like (already readable): a line scan, as setup writes them.
fn external_prefixes(yaml: &str) -> Vec<PathBuf> {
    yaml.lines()
        .filter_map(|line| line.trim().strip_prefix("prefix:"))
        .map(|p| PathBuf::from(p.trim().trim_matches(|c| c == '"' || c == '\'')))
        .filter(|p| p.is_absolute() && !p.starts_with("/usr") && p.components().count() > 2)
        .collect()
}

/// How deep below an external's prefix its links are looked for
/// (`lib/python3.11/site-packages/<entry>` is four).
const LINK_DEPTH: usize = 4;

/// The directories an external's links lead to, outside the prefix and
/// `/usr`: a Python site the set-up made links its distribution's files,
/// which may live elsewhere under the hidden home (the build backends from
/// PyPI), and a link into a directory the sandbox hides is a missing module.
fn link_target_dirs(prefix: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, prefix: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_symlink() {
                let target = std::fs::canonicalize(entry.path()).ok();
                if let Some(parent) = target.as_deref().and_then(Path::parent) {
                    if !parent.starts_with(prefix) && !parent.starts_with("/usr") {
                        out.push(parent.to_path_buf());
                    }
                }
            } else if kind.is_dir() && depth > 1 {
                walk(&entry.path(), depth - 1, prefix, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(prefix, LINK_DEPTH, prefix, &mut out);
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_scripts_expand_earlier_and_outer_variables() {
        std::env::set_var("PACKSMITH_TEST_OUTER", "/usr/bin");
        let vars = parse_env_script(
            "# comment\nexport SPACK_ROOT=/opt/spack\nexport PATH=$SPACK_ROOT/bin:${PACKSMITH_TEST_OUTER}\nexport Q=\"/x y\"\n",
        );
        assert_eq!(vars["SPACK_ROOT"], "/opt/spack");
        assert_eq!(vars["PATH"], "/opt/spack/bin:/usr/bin");
        assert_eq!(vars["Q"], "/x y");
    }

    #[test]
    fn a_site_linking_files_elsewhere_makes_their_directory_readable() {
        let home = tempfile::tempdir().unwrap();
        let backends = home.path().join("build-backends");
        std::fs::create_dir_all(backends.join("hatchling")).unwrap();
        let site = home
            .path()
            .join("py-hatchling/lib/python3.11/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        std::os::unix::fs::symlink(backends.join("hatchling"), site.join("hatchling")).unwrap();
        // A link into /usr (Debian's dist-packages) is readable already.
        std::os::unix::fs::symlink("/usr/bin", site.join("usr-bin")).unwrap();
        let prefix = home.path().join("py-hatchling");
        assert_eq!(
            link_target_dirs(&prefix),
            [backends.canonicalize().unwrap()]
        );
        // Deeper than a site's entries: not looked for.
        let deep = site.join("a/b");
        std::fs::create_dir_all(&deep).unwrap();
        std::os::unix::fs::symlink(home.path(), deep.join("x")).unwrap();
        assert_eq!(link_target_dirs(&prefix).len(), 1);
    }

    #[test]
    fn external_prefixes_under_a_home_become_readable_roots() {
        let yaml = "packages:\n  py-pip:\n    externals:\n    - spec: py-pip@23.0.1\n      \
                    prefix: /home/u/.cache/packsmith/spack/python-sites/py-pip\n  zlib:\n    \
                    externals:\n    - spec: zlib@1.2.13\n      prefix: /usr\n  x:\n    \
                    externals:\n    - spec: x@1\n      prefix: '/opt/x'\n";
        assert_eq!(
            external_prefixes(yaml),
            [
                PathBuf::from("/home/u/.cache/packsmith/spack/python-sites/py-pip"),
                PathBuf::from("/opt/x"),
            ]
        );
    }
}
