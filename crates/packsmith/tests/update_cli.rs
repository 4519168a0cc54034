#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]
//! `packsmith update` as a user runs it: refusals that name the input and
//! say what to do, an update written but not validated without Spack, the
//! old source taken from the new checkout's tag, and (where Spack is
//! installed) the new version of the two-version fixture installed.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packsmith-spack-draft/tests/fixtures/update/tally")
}

/// packsmith with its own cache and config, and without Spack on PATH
/// unless `--spack` is given.
fn packsmith(args: &[&str], home: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(args)
        .current_dir(home)
        .env("PACKSMITH_CACHE_DIR", home.join("cache"))
        .env("PACKSMITH_CONFIG", home.join("packsmith.toml"))
        .env("PATH", "/usr/bin:/bin")
        .env_remove("PACKSMITH_MODEL")
        .output()
        .expect("run packsmith")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The fixture laid out as a maintainer has it: each version's release
/// archive in `archives/`, the v1 recipe (its URL pointing there) in
/// `recipe/tally/package.py`, and the new version's tree in `2.0.0/`.
struct Layout {
    home: tempfile::TempDir,
}

impl Layout {
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let h = home.path();
        std::fs::create_dir_all(h.join("archives")).unwrap();
        for v in ["1.0.0", "2.0.0"] {
            copy_tree(&fixture().join(v), &h.join(format!("tally-{v}")));
            run(Command::new("tar")
                .current_dir(h)
                .args([
                    "--sort=name",
                    "--mtime=@0",
                    "--owner=0",
                    "--group=0",
                    "-czf",
                ])
                .arg(format!("archives/tally-{v}.tar.gz"))
                .arg(format!("tally-{v}")));
        }
        let recipe = std::fs::read_to_string(fixture().join("package.py"))
            .unwrap()
            .replace(
                "file:///nonexistent/archives",
                &format!("file://{}/archives", h.display()),
            );
        std::fs::create_dir_all(h.join("recipe/tally")).unwrap();
        std::fs::write(h.join("recipe/tally/package.py"), recipe).unwrap();
        Self { home }
    }

    fn path(&self, rel: &str) -> String {
        self.home.path().join(rel).display().to_string()
    }

    fn recipe(&self) -> String {
        std::fs::read_to_string(self.home.path().join("recipe/tally/package.py")).unwrap()
    }

    /// A git checkout of the project: v1 tagged `v1.0.0`, then v2.
    fn git_checkout(&self) -> String {
        let repo = self.home.path().join("repo");
        copy_tree(&fixture().join("1.0.0"), &repo);
        let git = |args: &[&str]| {
            run(Command::new("git")
                .current_dir(&repo)
                .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
                .args(args));
        };
        git(&["init", "-q"]);
        git(&["add", "-A"]);
        git(&["commit", "-qm", "v1"]);
        git(&["tag", "v1.0.0"]);
        for sub in ["src", "include", "CMakeLists.txt"] {
            let p = repo.join(sub);
            if p.is_dir() {
                std::fs::remove_dir_all(p).unwrap();
            } else {
                std::fs::remove_file(p).unwrap();
            }
        }
        copy_tree(&fixture().join("2.0.0"), &repo);
        git(&["add", "-A"]);
        git(&["commit", "-qm", "v2"]);
        repo.display().to_string()
    }
}

fn report(run: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(run.join("report.json")).unwrap()).unwrap()
}

fn sha256_of(path: &str) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(path).unwrap()))
}

#[test]
fn update_refuses_a_missing_recipe_a_bad_source_and_an_unknown_version() {
    let l = Layout::new();
    let h = l.home.path();

    let o = packsmith(
        &["update", "/nonexistent/package.py", &l.path("tally-2.0.0")],
        h,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/nonexistent/package.py"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("hint: pass the path of a package.py"),
        "{}",
        stderr(&o)
    );

    let recipe = l.path("recipe/tally/package.py");
    let o = packsmith(&["update", &recipe, "/nonexistent/tally-src"], h);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/nonexistent/tally-src does not exist"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("hint:"), "{}", stderr(&o));

    // A tree whose build files declare no version, with no git tag.
    let bare = h.join("bare");
    std::fs::create_dir_all(&bare).unwrap();
    std::fs::write(
        bare.join("CMakeLists.txt"),
        "cmake_minimum_required(VERSION 3.16)\nproject(tally C)\n",
    )
    .unwrap();
    let o = packsmith(&["update", &recipe, &bare.display().to_string()], h);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot tell the version of"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("hint: pass --version X.Y.Z"),
        "{}",
        stderr(&o)
    );

    // A version that is not newer than the recipe's.
    let o = packsmith(
        &[
            "update",
            &recipe,
            &l.path("tally-2.0.0"),
            "--version",
            "1.0.0",
        ],
        h,
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("1.0.0 is not newer than 1.0.0"),
        "{}",
        stderr(&o)
    );

    // A plain tree has no tag of the old version to compare with.
    let o = packsmith(&["update", &recipe, &l.path("tally-2.0.0")], h);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no source of 1.0.0"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("hint: pass --old-source DIR"),
        "{}",
        stderr(&o)
    );
    // Nothing was written, and the recipe is as it was.
    assert!(!h.join("packsmith-runs").exists());
}

#[test]
fn without_spack_the_update_is_written_but_not_validated() {
    let l = Layout::new();
    let h = l.home.path();
    let before = l.recipe();
    let recipe = l.path("recipe/tally/package.py");
    let args = [
        "update",
        &recipe,
        &l.path("tally-2.0.0"),
        "--old-source",
        &l.path("tally-1.0.0"),
        "--out",
        "runs",
    ];
    let o = packsmith(&args, h);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains("was updated but not validated"), "{err}");
    assert!(err.contains("--allow-unvalidated"), "{err}");
    let run = h.join("runs/tally");
    let updated = std::fs::read_to_string(run.join("package.py")).unwrap();
    // The checksum is the archive's the recipe's URL names for 2.0.0.
    let sum = sha256_of(&l.path("archives/tally-2.0.0.tar.gz"));
    assert!(
        updated.contains(&format!("    version(\"2.0.0\", sha256=\"{sum}\")\n")),
        "{updated}"
    );
    assert!(updated.contains("    depends_on(\"bzip2\", when=\"@2.0.0:\")\n"));
    // The user's recipe is untouched without --in-place.
    assert_eq!(l.recipe(), before);
    let r = report(&run);
    assert_eq!(r["validation"], "not_validated");
    assert_eq!(r["checksum"]["source"], "recipe_url");
    assert_eq!(r["facts_diff"]["changes"].as_array().unwrap().len(), 4);
    assert!(r["recipe_diff"]
        .as_str()
        .unwrap()
        .contains("+    depends_on(\"zlib-api\", when=\"@2.0.0: +zlib\")"));
    let md = std::fs::read_to_string(run.join("report.md")).unwrap();
    assert!(md.contains("Validation: **not validated**"), "{md}");
    assert!(
        md.contains("| dependency | bzip2 | added | — | `bzip2` (CMakeLists.txt:6) |"),
        "{md}"
    );

    // Accepted with --allow-unvalidated, and written over the input with
    // --in-place.
    let mut again = args.to_vec();
    again.extend(["--replace", "--allow-unvalidated", "--in-place"]);
    let o = packsmith(&again, h);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(l.recipe(), updated);
}

#[test]
fn the_old_source_is_the_checkouts_tag_of_the_recipes_newest_version() {
    let l = Layout::new();
    let h = l.home.path();
    let repo = l.git_checkout();
    let recipe = l.path("recipe/tally/package.py");
    let o = packsmith(
        &[
            "update",
            &recipe,
            &repo,
            "--out",
            "runs",
            "--allow-unvalidated",
        ],
        h,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("tally: 1.0.0 (tag v1.0.0 of"), "{err}");
    let r = report(&h.join("runs/tally"));
    assert_eq!(r["new_version"], "2.0.0");
    assert!(r["old_source"]
        .as_str()
        .unwrap()
        .starts_with("tag v1.0.0 of "));
    // v1's facts came from the tag: the CMake minimum was 3.10 there.
    let cmake = r["facts_diff"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["topic"] == "cmake_minimum")
        .unwrap()
        .clone();
    assert_eq!(cmake["old"]["value"], "3.10");
    assert_eq!(cmake["new"]["value"], "3.16");
    // The checkout itself was not touched.
    let status = Command::new("git")
        .current_dir(&repo)
        .args(["status", "--porcelain"])
        .output()
        .unwrap();
    assert!(
        status.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&status.stdout)
    );
}

#[test]
fn update_installs_the_new_version_with_real_spack() {
    let Some(env) = common::test_spack_env("update_installs_the_new_version_with_real_spack")
    else {
        return;
    };
    let l = Layout::new();
    let h = l.home.path();
    let recipe = l.path("recipe/tally/package.py");
    // A patch beside the recipe (for an old release) must travel with it,
    // or Spack refuses to load the package at all.
    std::fs::write(
        h.join("recipe/tally/old-fix.patch"),
        "--- a/CMakeLists.txt\n+++ b/CMakeLists.txt\n@@ -1 +1 @@\n-x\n+y\n",
    )
    .unwrap();
    let with_patch = l.recipe().replace(
        "    version(\"1.0.0\"",
        "    patch(\"old-fix.patch\", when=\"@:0.9.0\")\n\n    version(\"1.0.0\"",
    );
    std::fs::write(h.join("recipe/tally/package.py"), with_patch).unwrap();
    let env = env.display().to_string();
    let o = packsmith(
        &[
            "update",
            &recipe,
            &l.path("tally-2.0.0"),
            "--old-source",
            &l.path("tally-1.0.0"),
            "--spack",
            &env,
            "--out",
            "runs",
        ],
        h,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for line in [
        "new tally@=2.0.0: load ok, audit ok, concretize ok, install ok",
        "old tally@=1.0.0: concretize ok",
        "variant tally+zlib@=2.0.0: concretize ok",
        "tally: 1.0.0 → 2.0.0: validated",
    ] {
        assert!(err.contains(line), "missing `{line}` in:\n{err}");
    }
    let run = h.join("runs/tally");
    let r = report(&run);
    assert_eq!(r["validation"], "validated");
    // Installed with the new dependency in its DAG.
    let concretized =
        std::fs::read_to_string(run.join("validate/new/logs/concretize.log")).unwrap();
    assert!(concretized.contains("^bzip2@"), "{concretized}");
    // With the new variant on, its dependency comes in too.
    let with_zlib =
        std::fs::read_to_string(run.join("validate/variant-zlib/logs/concretize.log")).unwrap();
    assert!(with_zlib.contains("+zlib"), "{with_zlib}");
    assert!(with_zlib.contains("^zlib"), "{with_zlib}");
    let updated = std::fs::read_to_string(run.join("package.py")).unwrap();
    assert!(updated.contains("when=\"@2.0.0:\",\n    )\n"), "{updated}");
}

#[test]
fn release_archives_as_sources_give_the_checksum_of_the_one_the_url_names() {
    let l = Layout::new();
    let h = l.home.path();
    // The recipe fetches from a forge, and its url names an old release,
    // as most recipes' do: the archives downloaded by hand are the sources.
    let recipe_path = h.join("recipe/tally/package.py");
    let text = l.recipe();
    let url_line = text
        .lines()
        .find(|l| l.trim_start().starts_with("url ="))
        .unwrap();
    std::fs::write(
        &recipe_path,
        text.replace(
            url_line,
            "    url = \"https://example.org/releases/tally-0.9.0.tar.gz\"",
        ),
    )
    .unwrap();
    let recipe = recipe_path.display().to_string();
    let new_archive = l.path("archives/tally-2.0.0.tar.gz");
    let o = packsmith(
        &[
            "update",
            &recipe,
            &new_archive,
            "--old-source",
            &l.path("archives/tally-1.0.0.tar.gz"),
            "--version",
            "2.0.0",
            "--no-validate",
            "--out",
            "runs",
        ],
        h,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let run = h.join("runs/tally");
    let updated = std::fs::read_to_string(run.join("package.py")).unwrap();
    let sum = sha256_of(&new_archive);
    assert!(
        updated.contains(&format!("    version(\"2.0.0\", sha256=\"{sum}\")\n")),
        "{updated}"
    );
    // The facts still come from the unpacked trees.
    assert!(
        updated.contains("    depends_on(\"bzip2\", when=\"@2.0.0:\")\n"),
        "{updated}"
    );
    let r = report(&run);
    assert_eq!(r["checksum"]["source"], "given_archive");
    assert_eq!(
        r["checksum"]["url"],
        "https://example.org/releases/tally-2.0.0.tar.gz"
    );
    assert_eq!(r["validation"], "not_validated");

    // An archive of another name is not what the URL fetches: no checksum.
    let renamed = h.join("archives/tally-src-2.0.0.tar.gz");
    std::fs::copy(&new_archive, &renamed).unwrap();
    let o = packsmith(
        &[
            "update",
            &recipe,
            &renamed.display().to_string(),
            "--old-source",
            &l.path("tally-1.0.0"),
            "--version",
            "2.0.0",
            "--no-validate",
            "--out",
            "runs",
            "--replace",
        ],
        h,
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = report(&run);
    assert_eq!(r["checksum"]["source"], "unknown");
    assert!(std::fs::read_to_string(run.join("package.py"))
        .unwrap()
        .contains("# FIXME: checksum"));
}

#[test]
fn a_package_name_is_looked_up_in_the_spacks_repositories() {
    let l = Layout::new();
    let h = l.home.path();
    // No Spack: a name cannot be looked up, and the error says what to pass.
    let o = packsmith(
        &["update", "tally", &l.path("tally-2.0.0"), "--no-validate"],
        h,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no file tally, and no Spack to find a package of that name"),
        "{err}"
    );
    assert!(err.contains("pass the path of the package.py"), "{err}");

    let Some(env) =
        common::test_spack_env("a_package_name_is_looked_up_in_the_spacks_repositories")
    else {
        return;
    };
    let env = env.display().to_string();
    // Spack's own zlib recipe, found by name and left untouched.
    let o = packsmith(
        &[
            "update",
            "zlib",
            &l.path("tally-2.0.0"),
            "--old-source",
            &l.path("tally-1.0.0"),
            "--version",
            "99.0",
            "--spack",
            &env,
            "--no-validate",
            "--out",
            "runs",
        ],
        h,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("zlib/package.py"), "{err}");
    let updated = std::fs::read_to_string(h.join("runs/zlib/package.py")).unwrap();
    assert!(updated.contains("version(\"99.0\""), "{updated}");
    let o = packsmith(
        &[
            "update",
            "no-such-package-xyz",
            &l.path("tally-2.0.0"),
            "--spack",
            &env,
        ],
        h,
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("no package.py of no-such-package-xyz"),
        "{err}"
    );
}

/// The test nixpkgs, whose builders are the host's shell.
fn fake_nixpkgs() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../packsmith-nix/tests/fake-nixpkgs")
        .display()
        .to_string()
}

/// A package.nix of tally 1.0.0 in the test nixpkgs' idiom, fetching the
/// release archive by its file:// URL with the archive's real hash.
fn package_nix(l: &Layout) -> PathBuf {
    let h = l.home.path();
    let sri = sri_of(&l.path("archives/tally-1.0.0.tar.gz"));
    let text = format!(
        r#"{{
  shDerivation,
  fetchurl,
}}:

let
  version = "1.0.0";
in
shDerivation {{
  name = "tally-${{version}}";
  src = fetchurl {{
    url = "file://{}/archives/tally-${{version}}.tar.gz";
    hash = "{sri}";
  }};
  script = ''
    echo "$src" > $out
  '';
}}
"#,
        h.display()
    );
    let dir = h.join("nix/tally");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("package.nix"), text).unwrap();
    dir.join("package.nix")
}

/// The SRI form of a file's sha256 (Nix's own conversion; the build's
/// fixed-output check is what proves it right).
fn sri_of(path: &str) -> String {
    packsmith_nix::hash::NixHash {
        algo: packsmith_nix::hash::HashAlgo::Sha256,
        bytes: hex::decode(sha256_of(path)).unwrap(),
    }
    .to_sri()
}

fn nix_update(l: &Layout, recipe: &Path, new: &str, old: &str, extra: &[&str]) -> Output {
    let mut args: Vec<String> = vec![
        "update".into(),
        recipe.display().to_string(),
        l.path(new),
        "--old-source".into(),
        l.path(old),
        "--nixpkgs".into(),
        fake_nixpkgs(),
        "--offline".into(),
        "--out".into(),
        l.path("runs"),
    ];
    // The file:// fetch reads the archives inside Nix's sandbox.
    for p in common::nix_host_paths()
        .into_iter()
        .chain([l.path("archives")])
    {
        args.push("--sandbox-path".into());
        args.push(p);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    packsmith(&args, l.home.path())
}

#[test]
fn a_package_nix_gets_the_new_version_hash_and_input_and_builds_with_real_nix() {
    if !common::nix_here() {
        return;
    }
    let l = Layout::new();
    let recipe = package_nix(&l);
    let before = std::fs::read_to_string(&recipe).unwrap();
    let o = nix_update(
        &l,
        &recipe,
        "archives/tally-2.0.0.tar.gz",
        "archives/tally-1.0.0.tar.gz",
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let run_dir = l.home.path().join("runs/tally");
    let text = std::fs::read_to_string(run_dir.join("package.nix")).unwrap();
    assert!(text.contains("version = \"2.0.0\";"), "{text}");
    // The given archive is the file the URL names: its hash, flat.
    let sri = sri_of(&l.path("archives/tally-2.0.0.tar.gz"));
    assert!(text.contains(&format!("hash = \"{sri}\";")), "{text}");
    // find_package(BZip2 REQUIRED) is new in 2.0.0: an input and a formal.
    assert!(text.contains("  buildInputs = [ bzip2 ];\n"), "{text}");
    assert!(
        text.starts_with("{\n  shDerivation,\n  fetchurl,\n  bzip2,\n}:"),
        "{text}"
    );
    let r = report(&run_dir);
    assert_eq!(r["validation"], "built", "{r}");
    assert_eq!(r["hash"]["from"], "given_archive", "{r}");
    let bz = r["input_changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["attr"] == "bzip2")
        .unwrap_or_else(|| panic!("{r}"));
    assert_eq!(bz["change"], "added");
    assert_eq!(bz["evidence"]["file"], "CMakeLists.txt");
    assert_eq!(bz["evidence"]["line"], 6);
    assert!(r["recipe_diff"]
        .as_str()
        .unwrap()
        .contains("+  version = \"2.0.0\";"));
    // The maintainer's file is untouched without --in-place.
    assert_eq!(std::fs::read_to_string(&recipe).unwrap(), before);
    let md = std::fs::read_to_string(run_dir.join("report.md")).unwrap();
    assert!(
        md.contains("| `bzip2` | added | buildInputs | CMakeLists.txt:6 |"),
        "{md}"
    );
}

#[test]
fn a_package_nix_without_the_archive_gets_its_hash_from_the_build() {
    if !common::nix_here() {
        return;
    }
    let l = Layout::new();
    let recipe = package_nix(&l);
    // The unpacked tree: no file to hash, so lib.fakeHash, and the build's
    // mismatch gives the real one, which the next build accepts.
    let o = nix_update(&l, &recipe, "tally-2.0.0", "tally-1.0.0", &["--in-place"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r = report(&l.home.path().join("runs/tally"));
    assert_eq!(r["validation"], "built", "{r}");
    assert_eq!(r["hash"]["from"], "placeholder", "{r}");
    let sri = sri_of(&l.path("archives/tally-2.0.0.tar.gz"));
    let text = std::fs::read_to_string(&recipe).unwrap();
    assert!(text.contains(&format!("hash = \"{sri}\";")), "{text}");
    // `lib` was bound for lib.fakeHash only: gone with it.
    assert!(
        text.starts_with("{\n  shDerivation,\n  fetchurl,\n  bzip2,\n}:"),
        "{text}"
    );
    let steps: Vec<&str> = r["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"].as_str().unwrap())
        .collect();
    assert_eq!(
        steps,
        ["parse", "evaluate", "build", "evaluate", "build"],
        "{r}"
    );
}

#[test]
fn a_package_nix_without_nixpkgs_is_parsed_not_built_and_says_so() {
    if !common::nix_here() {
        return;
    }
    let l = Layout::new();
    let recipe = package_nix(&l);
    let o = packsmith(
        &[
            "update",
            &recipe.display().to_string(),
            &l.path("archives/tally-2.0.0.tar.gz"),
            "--old-source",
            &l.path("archives/tally-1.0.0.tar.gz"),
            "--offline",
            "--out",
            &l.path("runs"),
        ],
        l.home.path(),
    );
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("was not built"), "{err}");
    assert!(err.contains("--nixpkgs"), "{err}");
    let r = report(&l.home.path().join("runs/tally"));
    assert_eq!(r["validation"], "not_built", "{r}");
    // A recipe without a literal version is refused, naming the file.
    std::fs::write(&recipe, "{ }: { }\n").unwrap();
    let o = packsmith(
        &[
            "update",
            &recipe.display().to_string(),
            &l.path("archives/tally-2.0.0.tar.gz"),
        ],
        l.home.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("package.nix declares no literal"),
        "{}",
        stderr(&o)
    );
}
