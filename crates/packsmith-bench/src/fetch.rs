//! `bench fetch TASKS --into DIR`: clone each task's source for users with
//! network, and write `DIR/sources.toml` for `bench run --sources`. A
//! failure (offline, a moved repository) is reported per task; the rest
//! still come.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_core::forge::ForgeRepo;
use packsmith_exec::CommandSpec;

use crate::error::{BenchError, Result};
use crate::task::Task;

/// Where a task's source can be cloned from, and which revision.
pub fn clone_url(task: &Task) -> Option<(String, Option<String>)> {
    match task {
        Task::Spack(t) => t.git.clone().map(|g| (g, None)),
        Task::Nix(t) => {
            let url = t.upstream_url_derived.clone()?;
            // A repository of the one forge table, over https.
            if !url.starts_with("https://") || ForgeRepo::parse_remote(&url).is_none() {
                return None;
            }
            let tag = t
                .fetcher_literal_args
                .get("tag")
                .or_else(|| t.fetcher_literal_args.get("rev"))
                .and_then(|v| v.as_str())
                .map(|s| {
                    s.replace("${finalAttrs.version}", &t.version)
                        .replace("${version}", &t.version)
                        .replace("<finalAttrs.version>", &t.version)
                        .replace("<inherit version>", &t.version)
                });
            Some((url, tag))
        }
        Task::Repair(_) => None,
    }
}

#[derive(Debug, Clone, Default)]
pub struct FetchSummary {
    pub fetched: Vec<String>,
    pub already_there: Vec<String>,
    /// Task id and why.
    pub failed: Vec<(String, String)>,
    pub sources_toml: PathBuf,
}

fn git(args: &[&str], cwd: &Path) -> std::result::Result<(), String> {
    let spec = CommandSpec::new("git")
        .args(args)
        .cwd(cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .timeout(Duration::from_secs(900));
    let o = packsmith_exec::run(&spec).map_err(|e| e.to_string())?;
    if o.success() {
        Ok(())
    } else if o.timed_out {
        Err("git timed out after 15 minutes".into())
    } else {
        let last = o.stderr.trim().lines().last().unwrap_or("").to_string();
        Err(format!(
            "git {} failed: {last}",
            args.first().unwrap_or(&"")
        ))
    }
}

/// A Spack task's release archive, when it names no git repository.
fn archive_url(task: &Task) -> Option<String> {
    let Task::Spack(t) = task else { return None };
    let url = t.url.as_ref()?;
    let archive = [".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar"]
        .iter()
        .any(|ext| url.ends_with(ext));
    let remote = url.starts_with("https://") || url.starts_with("http://");
    let local = url.len() > "file:///".len() && url.starts_with("file:///");
    (remote || local)
        .then_some(())
        .filter(|()| archive)
        .map(|()| url.clone())
}

/// Written into an unpacked archive, so a rerun knows it is complete.
const ARCHIVE_MARK: &str = ".packsmith-fetched";

fn download_archive(url: &str, dest: &Path) -> std::result::Result<(), String> {
    std::fs::create_dir_all(dest).map_err(|e| e.to_string())?;
    let file = dest.join(".archive");
    let file_s = file.display().to_string();
    let curl = CommandSpec::new("curl")
        .args(["-fsSL", "--retry", "2", "-o", file_s.as_str(), url])
        .timeout(Duration::from_secs(900));
    let o = packsmith_exec::run(&curl).map_err(|e| e.to_string())?;
    if !o.success() {
        let last = o.stderr.trim().lines().last().unwrap_or("").to_string();
        return Err(format!("download failed: {last}"));
    }
    let tar = CommandSpec::new("tar")
        .args(["-xf", file_s.as_str(), "--strip-components=1", "-C"])
        .arg(dest)
        .timeout(Duration::from_secs(900));
    let o = packsmith_exec::run(&tar).map_err(|e| e.to_string())?;
    if !o.success() {
        return Err(format!("could not unpack: {}", o.stderr.trim()));
    }
    let _ = std::fs::remove_file(&file);
    std::fs::write(dest.join(ARCHIVE_MARK), url).map_err(|e| e.to_string())
}

pub fn fetch(tasks: &[Task], into: &Path) -> Result<FetchSummary> {
    std::fs::create_dir_all(into).map_err(|e| BenchError::io("create", into, e))?;
    let into = std::fs::canonicalize(into).map_err(|e| BenchError::io("resolve", into, e))?;
    let mut s = FetchSummary::default();
    let mut map = BTreeMap::new();
    for task in tasks {
        let id = task.id().to_string();
        if let Task::Repair(_) = task {
            // Its broken recipe comes with the task file: nothing to fetch.
            s.already_there.push(id);
            continue;
        }
        let dest = into.join(&id);
        if dest.join(".git").exists() || dest.join(ARCHIVE_MARK).exists() {
            map.insert(id.clone(), dest);
            s.already_there.push(id);
            continue;
        }
        let Some((url, rev)) = clone_url(task) else {
            match archive_url(task) {
                Some(url) => match download_archive(&url, &dest) {
                    Ok(()) => {
                        map.insert(id.clone(), dest);
                        s.fetched.push(id);
                    }
                    Err(e) => {
                        let _ = std::fs::remove_dir_all(&dest);
                        s.failed.push((id, format!("{url}: {e}")));
                    }
                },
                None => s
                    .failed
                    .push((id, "the task names no git repository or archive URL".into())),
            }
            continue;
        };
        let dest_s = dest.display().to_string();
        let mut args = vec!["clone", "--quiet"];
        if let Some(r) = &rev {
            args.extend(["--depth", "1", "--branch", r.as_str()]);
        }
        args.extend(["--", url.as_str(), dest_s.as_str()]);
        match git(&args, &into) {
            Ok(()) => {
                map.insert(id.clone(), dest);
                s.fetched.push(id);
            }
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dest);
                s.failed.push((id, format!("{url}: {e}")));
            }
        }
    }
    let mut toml =
        String::from("# Written by `packsmith bench fetch`: task → local source.\n[sources]\n");
    for (id, dir) in &map {
        toml.push_str(&format!(
            "{} = {}\n",
            toml_key(id),
            toml_str(&dir.display().to_string())
        ));
    }
    s.sources_toml = into.join("sources.toml");
    packsmith_exec::atomic_write(&s.sources_toml, toml.as_bytes())
        .map_err(|e| BenchError::environment(e.to_string()))?;
    Ok(s)
}

fn toml_str(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn toml_key(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        s.to_string()
    } else {
        toml_str(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::parse_tasks;

    #[test]
    fn unpacks_an_archive_when_there_is_no_git() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("pkg-1.0");
        std::fs::create_dir(&top).unwrap();
        std::fs::write(top.join("CMakeLists.txt"), "project(p)\n").unwrap();
        let ok = std::process::Command::new("tar")
            .args(["-czf", "pkg-1.0.tar.gz", "pkg-1.0"])
            .current_dir(dir.path())
            .status()
            .unwrap()
            .success();
        assert!(ok);
        let line = format!(
            "{{\"name\": \"p\", \"spack_dir\": \"p\", \"version\": \"1.0\", \"url\": \"file://{}/pkg-1.0.tar.gz\"}}",
            dir.path().display()
        );
        let tasks = parse_tasks(&line, "t").unwrap();
        let s = fetch(&tasks, &dir.path().join("src")).unwrap();
        assert_eq!(s.fetched, ["p"], "{:?}", s.failed);
        assert!(dir.path().join("src/p/CMakeLists.txt").is_file());
        // A second fetch keeps it.
        let s = fetch(&tasks, &dir.path().join("src")).unwrap();
        assert_eq!(s.already_there, ["p"]);
    }

    #[test]
    fn nix_tags_get_the_version() {
        let t = parse_tasks(
            r#"{"attr_path": "p", "package_name": "p", "pname": "p", "version": "1.5", "nixpkgs_base_commit": "c", "upstream_url_derived": "https://github.com/o/p", "fetcher_literal_args": {"tag": "v${finalAttrs.version}"}}"#,
            "t",
        )
        .unwrap();
        assert_eq!(
            clone_url(&t[0]),
            Some(("https://github.com/o/p".into(), Some("v1.5".into())))
        );
    }

    #[test]
    fn clones_a_local_repository_and_writes_the_map() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("upstream");
        std::fs::create_dir(&repo).unwrap();
        let sh = |c: &str| {
            let ok = std::process::Command::new("sh")
                .args(["-c", c])
                .current_dir(&repo)
                .status()
                .unwrap()
                .success();
            assert!(ok, "{c}");
        };
        sh("git init -q && echo x > f && git add f && git -c user.email=a@b -c user.name=a commit -qm i");
        let line = format!(
            "{{\"name\": \"a\", \"spack_dir\": \"a\", \"version\": \"1\", \"git\": \"{}\"}}\n{{\"name\": \"b\", \"spack_dir\": \"b\", \"version\": \"1\", \"git\": \"{}\"}}",
            repo.display(),
            dir.path().join("missing").display()
        );
        let tasks = parse_tasks(&line, "t").unwrap();
        let s = fetch(&tasks, &dir.path().join("src")).unwrap();
        assert_eq!(s.fetched, ["a"]);
        assert_eq!(s.failed.len(), 1);
        assert_eq!(s.failed[0].0, "b");
        let map = crate::sources::SourceMap::read(&s.sources_toml).unwrap();
        assert!(map.0["a"].join("f").is_file());
        assert!(!map.0.contains_key("b"));
    }
}
