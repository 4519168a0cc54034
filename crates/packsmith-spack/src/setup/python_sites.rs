//! Debian's Python distributions as Spack externals that a Spack build can
//! import.
//!
//! Spack builds every Python package in a `python-venv` made `--without-pip`
//! and puts each dependency's `<prefix>/lib/pythonX.Y/site-packages` on
//! PYTHONPATH. Debian keeps its distributions in `/usr/lib/python3/dist-packages`,
//! so an external declared at `/usr` is invisible to the build (`No module
//! named pip`). Each distribution therefore gets a prefix of its own whose
//! site-packages links exactly that distribution's top-level entries (and
//! `bin/` its console scripts): a recipe sees the Python packages it declares
//! and no others, which keeps the hermeticity check meaningful.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::CommandSpec;
use serde::Deserialize;

/// One probe of all distributions never holds the set-up up longer.
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// Reads each named distribution's version, its directory and its top-level
/// entries: the RECORD's first path components where there is one, else
/// `top_level.txt`, else the entries named like the distribution; then the
/// same for the distributions it requires at run time, transitively, by its
/// metadata and by its Debian package's `Depends` (Debian trims some
/// metadata). Console scripts come from the entry points. Prints one JSON
/// object.
const PROBE: &str = r#"
import importlib.metadata as m, json, os, shutil, subprocess, sys, sysconfig
# The venv layout, and the default scheme's (Debian's venvs report
# local/lib/pythonX.Y/dist-packages as their purelib).
sites = ["lib/python%d.%d/site-packages" % sys.version_info[:2]]
p = "/SPACK-PREFIX"
rel = os.path.relpath(sysconfig.get_path("purelib", vars={"base": p, "platbase": p}), p)
if not rel.startswith("..") and rel not in sites:
    sites.append(rel)
out = {"sites": sites, "dists": {}}
def own_entries(d, name):
    base = str(d.locate_file(""))
    try:
        listing = os.listdir(base)
    except OSError:
        return base, set()
    meta = getattr(d, "_path", None)
    entries = set()
    if d.files:
        entries |= {f.parts[0] for f in d.files if f.parts and f.parts[0] not in ("..", "__pycache__")}
    tops = [t.strip() for t in (d.read_text("top_level.txt") or "").split() if t.strip()]
    if not tops and not d.files:
        tops = [name.replace("-", "_")]
    for top in tops:
        low = top.lower()
        entries |= {e for e in listing if e.lower() == low or e.lower().startswith(low + ".")}
    if meta is not None:
        entries.add(os.path.basename(str(meta)))
    return base, {e for e in entries if os.path.lexists(os.path.join(base, e))}

def required(d):
    # Run requirements without extras or markers: what importing it needs.
    names = []
    for req in d.requires or []:
        if ";" in req:
            continue
        head = req.split("[")[0].split("(")[0]
        for stop in "<>=!~ ":
            head = head.split(stop)[0]
        if head.strip():
            names.append(head.strip())
    return names

def debian_closure(base, entries):
    # Debian trims run-time requirements from some metadata (its requests
    # lists no urllib3); its own packages' Depends do not lie. Entries of the
    # python3-* packages the owning package needs, transitively.
    if not shutil.which("dpkg-query"):
        return set()
    run = lambda *a: subprocess.run(a, capture_output=True, text=True, timeout=30).stdout
    try:
        owner = run("dpkg", "-S", os.path.join(base, sorted(entries)[0])).split(":")[0].strip()
    except Exception:
        return set()
    found, seen, todo = set(), {owner}, [owner] if owner else []
    while todo:
        pkg = todo.pop()
        try:
            depends = run("dpkg-query", "-W", "-f=${Depends}", pkg)
        except Exception:
            continue
        for alt in depends.split(","):
            dep = alt.split("|")[0].strip().split(" ")[0].split(":")[0]
            if not dep.startswith("python3-") or dep in seen:
                continue
            seen.add(dep)
            todo.append(dep)
            try:
                files = run("dpkg", "-L", dep).splitlines()
            except Exception:
                continue
            for f in files:
                if f.startswith(base + "/"):
                    top = f[len(base) + 1:].split("/")[0]
                    if top and top != "__pycache__":
                        found.add(top)
    return found

for name in sys.argv[1:]:
    try:
        d = m.distribution(name)
    except Exception:
        continue
    base, entries = own_entries(d, name)
    if not entries:
        continue
    # An external has no dependencies in Spack: its site carries the
    # distributions it needs at run time too (setuptools-scm needs packaging).
    seen, todo = {name.lower()}, required(d)
    while todo:
        dep = todo.pop()
        if dep.lower() in seen:
            continue
        seen.add(dep.lower())
        try:
            dd = m.distribution(dep)
        except Exception:
            continue
        dep_base, dep_entries = own_entries(dd, dep)
        if dep_base == base:
            entries |= dep_entries
            todo.extend(required(dd))
    entries |= debian_closure(base, entries)
    scripts = sorted({e.name for e in d.entry_points if e.group == "console_scripts"})
    out["dists"][name] = {
        "version": d.version,
        "base": base,
        "entries": sorted(entries),
        "scripts": [s for s in scripts if os.path.exists(os.path.join("/usr/bin", s))],
    }
print(json.dumps(out))
"#;

#[derive(Debug, Deserialize)]
struct Probe {
    /// Where a venv of this python may keep packages, relative to its prefix.
    sites: Vec<String>,
    dists: BTreeMap<String, Distribution>,
}

/// One installed distribution, as the probe saw it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Distribution {
    pub version: String,
    /// The directory holding its entries (`/usr/lib/python3/dist-packages`).
    pub base: PathBuf,
    /// Top-level modules, packages and metadata directories: its own and
    /// those of what it requires at run time.
    pub entries: Vec<String>,
    /// Console scripts installed under `/usr/bin`.
    pub scripts: Vec<String>,
}

/// What the probe found: the relative site directories and, per distribution
/// name, what it installed. Empty when the system python is missing.
/// `search_first`: a directory of distributions that win over the system's
/// (the set-up's build backends from PyPI).
pub fn probe(
    dist_names: &[&str],
    search_first: Option<&Path>,
) -> (Vec<String>, BTreeMap<String, Distribution>) {
    let mut spec = CommandSpec::new("/usr/bin/python3")
        .arg("-c")
        .arg(PROBE)
        .args(dist_names.iter().copied())
        .timeout(PROBE_TIMEOUT);
    if let Some(dir) = search_first {
        spec = spec.env("PYTHONPATH", dir);
    }
    let parsed = packsmith_exec::run(&spec)
        .ok()
        .filter(|out| out.success())
        .and_then(|out| serde_json::from_str::<Probe>(out.stdout.trim()).ok());
    match parsed {
        Some(p) => (p.sites, p.dists),
        None => (Vec::new(), BTreeMap::new()),
    }
}

/// Makes `<root>/<package>/<site>/<entry>` (for each of `sites`) and `<root>/<package>/bin/<script>`
/// links to the distribution's own files and returns the prefix. The prefix
/// is rebuilt beside and renamed over the old one, so a rerun never leaves a
/// half-made site behind.
pub fn make_site(
    root: &Path,
    package: &str,
    sites: &[String],
    dist: &Distribution,
) -> std::io::Result<PathBuf> {
    let prefix = root.join(package);
    let tmp = root.join(format!(".{package}.tmp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    for site in sites {
        let site_dir = tmp.join(site);
        std::fs::create_dir_all(&site_dir)?;
        for entry in &dist.entries {
            std::os::unix::fs::symlink(dist.base.join(entry), site_dir.join(entry))?;
        }
    }
    if !dist.scripts.is_empty() {
        std::fs::create_dir_all(tmp.join("bin"))?;
        for script in &dist.scripts {
            std::os::unix::fs::symlink(
                Path::new("/usr/bin").join(script),
                tmp.join("bin").join(script),
            )?;
        }
    }
    let old = root.join(format!(".{package}.old-{}", std::process::id()));
    if prefix.exists() {
        std::fs::rename(&prefix, &old)?;
    }
    std::fs::rename(&tmp, &prefix)?;
    let _ = std::fs::remove_dir_all(&old);
    Ok(prefix)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_links_only_its_own_distribution() {
        let host = tempfile::tempdir().unwrap();
        let base = host.path().join("dist-packages");
        for e in ["pip", "pip-23.0.1.dist-info", "numpy"] {
            std::fs::create_dir_all(base.join(e)).unwrap();
        }
        let root = host.path().join("sites");
        std::fs::create_dir_all(&root).unwrap();
        let dist = Distribution {
            version: "23.0.1".into(),
            base: base.clone(),
            entries: vec!["pip".into(), "pip-23.0.1.dist-info".into()],
            scripts: vec![],
        };
        let sites = [
            "lib/python3.11/site-packages".to_string(),
            "local/lib/python3.11/dist-packages".to_string(),
        ];
        let prefix = make_site(&root, "py-pip", &sites, &dist).unwrap();
        assert_eq!(prefix, root.join("py-pip"));
        assert!(prefix.join(&sites[1]).join("pip").is_dir());
        let linked = prefix.join(&sites[0]);
        assert_eq!(
            std::fs::read_link(linked.join("pip")).unwrap(),
            base.join("pip")
        );
        assert!(linked.join("pip-23.0.1.dist-info").is_dir());
        // Another distribution's module stays out of this prefix.
        assert!(!linked.join("numpy").exists());
        // A rerun replaces the prefix and leaves nothing beside it.
        make_site(&root, "py-pip", &sites, &dist).unwrap();
        let names: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("py-pip")]);
    }

    /// A directory searched first shadows the system's distribution of
    /// the same name (the set-up's backends from PyPI over Debian's).
    #[test]
    fn a_distribution_in_the_directory_searched_first_wins() {
        if !Path::new("/usr/bin/python3").exists() {
            eprintln!("SKIPPED: no /usr/bin/python3 here");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let info = dir.path().join("pip-99.0.dist-info");
        std::fs::create_dir_all(&info).unwrap();
        std::fs::create_dir_all(dir.path().join("pip")).unwrap();
        std::fs::write(dir.path().join("pip/__init__.py"), "").unwrap();
        std::fs::write(
            info.join("METADATA"),
            "Metadata-Version: 2.1\nName: pip\nVersion: 99.0\n",
        )
        .unwrap();
        std::fs::write(
            info.join("RECORD"),
            "pip/__init__.py,,\npip-99.0.dist-info/METADATA,,\n",
        )
        .unwrap();
        let (_, dists) = probe(&["pip"], Some(dir.path()));
        let pip = &dists["pip"];
        assert_eq!(pip.version, "99.0");
        assert_eq!(pip.base, dir.path());
        assert!(
            pip.entries.iter().any(|e| e == "pip-99.0.dist-info"),
            "{pip:?}"
        );
        // Without it, whatever the system has (not the shadow).
        let (_, system) = probe(&["pip"], None);
        assert!(system.get("pip").is_none_or(|d| d.version != "99.0"));
    }

    /// The probe itself, against this machine's python3 where there is one.
    #[test]
    fn the_probe_finds_pip_where_the_system_python_has_it() {
        let (sites, dists) = probe(&["pip", "setuptools-scm", "no-such-distribution-xyz"], None);
        if sites.is_empty() {
            eprintln!("SKIPPED: no /usr/bin/python3 here");
            return;
        }
        assert!(sites[0].starts_with("lib/python3."), "{sites:?}");
        assert!(!dists.contains_key("no-such-distribution-xyz"));
        if let Some(pip) = dists.get("pip") {
            assert!(pip.entries.iter().any(|e| e == "pip"), "{pip:?}");
            assert!(pip.base.join("pip").exists());
        }
        // What a distribution imports at run time comes with it.
        if let Some(scm) = dists.get("setuptools-scm") {
            assert!(scm.entries.iter().any(|e| e == "setuptools_scm"), "{scm:?}");
            assert!(scm.entries.iter().any(|e| e == "packaging"), "{scm:?}");
        }
        // Debian's requests lists no urllib3 in its metadata; its package does.
        let (_, dists) = probe(&["requests"], None);
        if let Some(requests) = dists.get("requests") {
            if std::path::Path::new("/usr/bin/dpkg-query").exists() {
                assert!(
                    requests.entries.iter().any(|e| e == "urllib3"),
                    "{requests:?}"
                );
            }
        }
    }
}
