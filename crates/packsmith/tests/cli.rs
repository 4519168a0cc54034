#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The `packsmith` binary as a user runs it.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn packsmith(args: &[&str], cache: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(args)
        .env("PACKSMITH_CACHE_DIR", cache)
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache).join("packsmith.toml"),
        )
        .output()
        .expect("run packsmith")
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/heatsim")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("bad JSON ({e}): {}", stdout(o)))
}

#[test]
fn analyze_bundled_example_summary_and_json() {
    let cache = tempfile::tempdir().unwrap();
    let ex = example();
    let out = packsmith(&["analyze", ex.to_str().unwrap()], cache.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("heatsim"), "{text}");
    assert!(text.contains("cmake (primary"), "{text}");
    assert!(
        text.lines().count() <= 50,
        "summary must fit one screen:\n{text}"
    );

    let out = packsmith(&["analyze", "--json", ex.to_str().unwrap()], cache.path());
    assert!(out.status.success());
    let facts = json(&out);
    assert_eq!(facts["schema_version"], 1);
    assert_eq!(facts["primary_build_system"], "cmake");
    assert_eq!(facts["license"]["spdx"], "BSD-3-Clause");
    assert!(facts["tree"].as_str().unwrap().contains("src/"));
}

#[test]
fn analyze_reads_a_path_without_writing_to_it() {
    let cache = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("CMakeLists.txt"), "project(x)\n").unwrap();
    let before: Vec<_> = std::fs::read_dir(repo.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let out = packsmith(&["analyze", repo.path().to_str().unwrap()], cache.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let after: Vec<_> = std::fs::read_dir(repo.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
}

/// `--name py-X` reads the Python project that declares X, wherever it
/// sits; without it the top-level one is read.
#[test]
fn analyze_with_a_name_reads_the_python_project_declaring_it() {
    let cache = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let project = |dir: &Path, name: &str| {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("pyproject.toml"),
            format!("[build-system]\nrequires = [\"hatchling\"]\nbuild-backend = \"hatchling.build\"\n\n[project]\nname = \"{name}\"\nversion = \"1.0\"\n"),
        )
        .unwrap();
    };
    project(repo.path(), "demo-top");
    project(&repo.path().join("bindings").join("py"), "demo-protocol");
    let dir = repo.path().to_str().unwrap();
    let facts = json(&packsmith(&["analyze", "--json", dir], cache.path()));
    assert_eq!(facts["python"]["name"], "demo-top");
    let args = ["analyze", "--json", "--name", "py-demo-protocol", dir];
    let facts = json(&packsmith(&args, cache.path()));
    assert_eq!(facts["python"]["name"], "demo-protocol");
    assert_eq!(facts["python"]["subdir"], "bindings/py");
}

#[test]
fn missing_path_is_a_clear_error() {
    let cache = tempfile::tempdir().unwrap();
    let out = packsmith(&["analyze", "/no/such/dir/anywhere"], cache.path());
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("error: /no/such/dir/anywhere does not exist"),
        "{err}"
    );
    assert!(err.contains("hint:"), "{err}");
}

#[test]
fn directory_without_a_project_is_a_clear_error() {
    let cache = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    std::fs::write(repo.path().join("notes.txt"), "hello").unwrap();
    let out = packsmith(&["analyze", repo.path().to_str().unwrap()], cache.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no recognisable project"),
        "{}",
        stderr(&out)
    );

    let file = repo.path().join("notes.txt");
    let out = packsmith(&["analyze", file.to_str().unwrap()], cache.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a directory"));
}

#[test]
fn git_url_is_cloned_into_the_cache_and_tags_give_versions() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let repo = work.path().join("demo");
    std::fs::create_dir(&repo).unwrap();
    std::fs::write(repo.join("CMakeLists.txt"), "project(demo VERSION 1.9.0)\n").unwrap();
    common::git(&repo, &["init", "-q"]);
    common::git(&repo, &["add", "-A"]);
    common::git(&repo, &["commit", "-qm", "one"]);
    for tag in [
        "v1.0.0",
        "v1.2.0",
        "release-1_9_0",
        "v1.10.0-rc1",
        "nightly",
    ] {
        common::git(&repo, &["tag", tag]);
    }
    let url = format!("file://{}", repo.display());
    let out = packsmith(&["analyze", "--json", &url], cache.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let facts = json(&out);
    assert_eq!(facts["source"]["kind"], "git");
    assert_eq!(facts["versions"]["latest_tag"]["tag"], "release-1_9_0");
    assert_eq!(facts["versions"]["latest_tag"]["version"], "1.9.0");
    assert_eq!(facts["versions"]["commit"].as_str().unwrap().len(), 40);
    let clones: Vec<_> = std::fs::read_dir(cache.path().join("repos"))
        .unwrap()
        .collect();
    assert_eq!(clones.len(), 1, "one clone in the cache");

    // A second run reuses the clone.
    let again = packsmith(&["analyze", "--json", &url], cache.path());
    assert!(again.status.success());
    assert_eq!(
        std::fs::read_dir(cache.path().join("repos"))
            .unwrap()
            .count(),
        1
    );
}

#[test]
fn unreachable_git_url_is_a_clear_error() {
    let cache = tempfile::tempdir().unwrap();
    let out = packsmith(&["analyze", "file:///no/such/repo.git"], cache.path());
    assert_eq!(out.status.code(), Some(3));
    let err = stderr(&out);
    assert!(
        err.contains("could not clone file:///no/such/repo.git"),
        "{err}"
    );
    assert!(err.contains("hint:"));
    // No half-made clone is left behind.
    let leftovers = std::fs::read_dir(cache.path().join("repos"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(leftovers, 0);
}

#[test]
fn bad_content_gives_partial_facts_and_warnings_not_a_crash() {
    let cache = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    // Binary junk named CMakeLists.txt in a subdirectory the build adds.
    std::fs::write(
        root.join("CMakeLists.txt"),
        "project(bad VERSION 0.1)\nadd_subdirectory(bin)\nfind_package(ZLIB REQUIRED\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("bin")).unwrap();
    std::fs::write(root.join("bin/CMakeLists.txt"), b"\x7fELF\x00\x00\x01\x02").unwrap();
    // A symlink loop and a dangling link.
    std::os::unix::fs::symlink(root, root.join("loop")).unwrap();
    std::os::unix::fs::symlink(root.join("nowhere"), root.join("dangling")).unwrap();
    // Non-UTF-8 text and a huge file.
    std::fs::write(
        root.join("README.md"),
        b"caf\xe9 is a cafe solver that does a lot.\n",
    )
    .unwrap();
    std::fs::write(root.join("big.cmake"), vec![b'#'; 5 * 1024 * 1024]).unwrap();

    let out = packsmith(&["analyze", "--json", root.to_str().unwrap()], cache.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let facts = json(&out);
    let warnings = facts["warnings"].as_array().unwrap();
    let mentions = |file: &str| warnings.iter().any(|w| w["file"] == file);
    assert!(
        mentions("bin/CMakeLists.txt"),
        "binary CMakeLists.txt: {warnings:?}"
    );
    assert!(mentions("README.md"), "non-UTF-8 README: {warnings:?}");
    assert_eq!(facts["cmake"]["project"]["name"], "bad");
}

#[test]
fn doctor_reports_every_check_with_hints_for_what_is_missing() {
    let cache = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .arg("doctor")
        .env("PACKSMITH_CACHE_DIR", cache.path())
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&cache.path()).join("packsmith.toml"),
        )
        .env("OPENAI_API_KEY", "sk-test-do-not-print")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for name in [
        "git",
        "spack",
        "nix",
        "sandbox",
        "local models",
        "openai",
        "anthropic",
    ] {
        assert!(
            text.lines().any(|l| l.contains(name)),
            "no `{name}` line:\n{text}"
        );
    }
    // The empty cache has no model: the line says so and tells what to do.
    assert!(text.contains("missing local models"), "{text}");
    assert!(text.contains("packsmith model pull"), "{text}");
    // A key is reported as present, never printed.
    assert!(text.contains("key set (OPENAI_API_KEY)"), "{text}");
    assert!(!text.contains("sk-test-do-not-print"), "{text}");
}

/// A set-up as `packsmith setup spack` leaves it, around a stand-in `spack`
/// in `checkout` that concretizes `hdf5` to a node it would build and
/// everything else to externals only.
fn stand_in_setup(prefix: &Path, checkout: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(checkout.join("bin")).unwrap();
    std::fs::create_dir_all(checkout.join("lib/spack/spack")).unwrap();
    std::fs::write(
        checkout.join("lib/spack/spack/__init__.py"),
        "spack_version = \"0.23.1\"\n",
    )
    .unwrap();
    // A stand-in that concretizes `hdf5` to a node it would build and
    // everything else to externals only.
    let spack = checkout.join("bin/spack");
    std::fs::write(
        &spack,
        "#!/bin/sh\nif [ \"$3\" = hdf5 ]; then printf 'Input spec\\n--------------------------------\\n -   hdf5\\n\\nConcretized\\n--------------------------------\\n -   hdf5@1.14.3%gcc@12.2.0\\n -       ^gcc-runtime@12.2.0\\n[e]      ^zlib@1.2.13%gcc@12.2.0\\n'; else printf 'Concretized\\n--------------------------------\\n[e]  %s@1.0%%gcc@12.2.0\\n' \"$3\"; fi\n",
    )
    .unwrap();
    std::fs::set_permissions(&spack, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(prefix.join("scope")).unwrap();
    std::fs::create_dir_all(prefix.join("mirror")).unwrap();
    std::fs::write(
        prefix.join("env.sh"),
        format!(
            "export SPACK_ROOT={}\nexport SPACK_USER_CONFIG_PATH={}/scope\n",
            checkout.display(),
            prefix.display()
        ),
    )
    .unwrap();
    std::fs::write(
        prefix.join("scope/compilers.yaml"),
        "compilers:\n- compiler:\n    spec: gcc@=12.2.0\n",
    )
    .unwrap();
    std::fs::write(
        prefix.join("scope/packages.yaml"),
        "packages:\n  all:\n    target: [x86_64]\n  zlib:\n    buildable: false\n  cmake:\n    buildable: false\n",
    )
    .unwrap();
}

/// A set-up made by `packsmith setup spack` (here written by hand around a
/// stand-in `spack`): doctor reports its Spack, compilers, externals and
/// the common libraries that are not external with the package to install;
/// `setup spack --check` says which common specs would be built.
#[test]
fn doctor_and_setup_check_report_the_spack_set_up_by_packsmith() {
    let cache = tempfile::tempdir().unwrap();
    // Without a set-up, --check says what to run first.
    let o = packsmith(&["setup", "spack", "--check"], cache.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("packsmith setup spack --from"),
        "{}",
        stderr(&o)
    );

    stand_in_setup(
        &cache.path().join("spack"),
        &cache.path().join("spack-checkout"),
    );

    let o = packsmith(&["doctor"], cache.path());
    let text = stdout(&o);
    assert!(text.contains("Spack 0.23.1 (0.x, builtin repo)"), "{text}");
    assert!(text.contains("gcc@12.2.0"), "{text}");
    assert!(text.contains("2 declared: zlib cmake"), "{text}");
    assert!(text.contains("not external (built from source"), "{text}");
    assert!(
        text.contains("libhdf5-dev") && text.contains("hdf5-devel"),
        "{text}"
    );

    let o = packsmith(&["setup", "spack", "--check"], cache.path());
    assert_eq!(o.status.code(), Some(1), "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("hdf5      would build from source (a download each): hdf5"),
        "{text}"
    );
    assert!(text.contains("zlib-api  ok: nothing to build"), "{text}");
}

/// The set-up that the user's packsmith.toml records (`[spack] env`, what
/// `setup spack` writes) is the default wherever its prefix lies; one whose
/// env file is gone is named with the fix, never silently replaced.
#[test]
fn the_recorded_setup_is_the_default_and_a_stale_record_is_named() {
    let cache = tempfile::tempdir().unwrap();
    let elsewhere = cache.path().join("scratch/spack-setup");
    // The test helper's PACKSMITH_CONFIG.
    std::fs::write(
        cache.path().join("packsmith.toml"),
        format!("[spack]\nenv = \"{}/env.sh\"\n", elsewhere.display()),
    )
    .unwrap();

    let o = packsmith(&["doctor"], cache.path());
    let text = stdout(&o);
    assert!(
        text.contains("which does not exist") && text.contains("scratch/spack-setup"),
        "{text}"
    );
    let out = cache.path().join("out");
    let o = packsmith(
        &[
            "spack",
            example().to_str().unwrap(),
            "--model",
            "none",
            "--out",
            out.to_str().unwrap(),
        ],
        cache.path(),
    );
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("packsmith.toml") && err.contains("which does not exist"),
        "{err}"
    );
    assert!(err.contains("packsmith setup spack"), "{err}");
    assert!(!out.join("package.py").exists());

    stand_in_setup(&elsewhere, &cache.path().join("spack-checkout"));
    let o = packsmith(&["doctor"], cache.path());
    let text = stdout(&o);
    assert!(text.contains("Spack 0.23.1 (0.x, builtin repo)"), "{text}");
    assert!(text.contains("scratch/spack-setup"), "{text}");
    let o = packsmith(&["setup", "spack", "--check"], cache.path());
    assert!(
        stdout(&o).contains("zlib-api  ok: nothing to build"),
        "{}",
        stdout(&o)
    );
}

/// A directory that looks like a Spack checkout of the given version.
fn fake_spack_checkout(dir: &Path, version: &str) {
    std::fs::create_dir_all(dir.join("bin")).unwrap();
    std::fs::create_dir_all(dir.join("lib/spack/spack")).unwrap();
    std::fs::write(dir.join("bin/spack"), "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::write(
        dir.join("lib/spack/spack/__init__.py"),
        format!("spack_version = \"{version}\"\n"),
    )
    .unwrap();
}

/// Nothing of a set-up is left where the failed run would have made it.
fn assert_nothing_written(prefix: &Path) {
    let left: Vec<_> = std::fs::read_dir(prefix)
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter().all(|n| n != "env.sh" && n != "scope"),
        "{left:?}"
    );
}

/// Bad input to `setup spack`: each error names the input, says what to
/// do, exits non-zero and leaves no env.sh or scope behind.
#[test]
fn setup_spack_refuses_bad_input_with_the_fix() {
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path().join("setup");
    let prefix_arg = prefix.to_str().unwrap();

    // Not a Spack checkout.
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let o = packsmith(
        &[
            "setup",
            "spack",
            "--from",
            plain.to_str().unwrap(),
            "--prefix",
            prefix_arg,
        ],
        tmp.path(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("is not a Spack checkout") && err.contains("plain"),
        "{err}"
    );
    assert!(err.contains("--from"), "{err}");
    assert_nothing_written(&prefix);

    // A Spack too old for packsmith.
    let old = tmp.path().join("old-spack");
    fake_spack_checkout(&old, "0.19.2");
    let o = packsmith(
        &[
            "setup",
            "spack",
            "--from",
            old.to_str().unwrap(),
            "--prefix",
            prefix_arg,
        ],
        tmp.path(),
    );
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("0.19.2") && err.contains("too old"), "{err}");
    assert_nothing_written(&prefix);

    // A prefix that cannot be made (its parent is a file).
    let recent = tmp.path().join("spack");
    fake_spack_checkout(&recent, "0.23.1");
    let file = tmp.path().join("a-file");
    std::fs::write(&file, "").unwrap();
    let o = packsmith(
        &[
            "setup",
            "spack",
            "--from",
            recent.to_str().unwrap(),
            "--prefix",
            file.join("setup").to_str().unwrap(),
        ],
        tmp.path(),
    );
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("cannot write the set-up") && err.contains("a-file"),
        "{err}"
    );
    assert!(err.contains("writable --prefix"), "{err}");
}

/// No network and no clingo wheel: the venv cannot get clingo, and the
/// error says how to install it by hand; no env.sh is written.
#[test]
fn setup_spack_without_clingo_or_network_says_how_to_get_it() {
    let have_venv = Command::new("/usr/bin/python3")
        .args(["-c", "import venv, ensurepip"])
        .output()
        .is_ok_and(|o| o.status.success());
    let system_clingo = Command::new("/usr/bin/python3")
        .args(["-c", "import clingo"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_venv || system_clingo {
        eprintln!("SKIPPED: setup_spack_without_clingo_or_network_says_how_to_get_it: needs python3-venv and no system clingo");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let checkout = tmp.path().join("spack");
    fake_spack_checkout(&checkout, "0.23.1");
    let prefix = tmp.path().join("setup");
    // pip's index on a closed loopback port: what an air-gapped site sees.
    let o = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["setup", "spack", "--from"])
        .arg(&checkout)
        .arg("--prefix")
        .arg(&prefix)
        .env("PACKSMITH_CACHE_DIR", tmp.path())
        .env(
            "PACKSMITH_CONFIG",
            std::path::Path::new(&tmp.path()).join("packsmith.toml"),
        )
        .env("PIP_INDEX_URL", "http://127.0.0.1:9/simple")
        .env("PIP_RETRIES", "0")
        .env("PIP_TIMEOUT", "2")
        .env("PIP_NO_CACHE_DIR", "1")
        .env("PIP_FIND_LINKS", "")
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_ne!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("could not get clingo"), "{err}");
    assert!(err.contains("install a clingo wheel with pip"), "{err}");
    assert!(err.contains("venv"), "{err}");
    assert_nothing_written(&prefix);
}

/// `--packages` names Spack 1.x's package repository: refused for a 0.x
/// checkout and for a directory that holds no spack-packages, with the fix.
#[test]
fn setup_spack_packages_is_checked_against_the_generation() {
    let tmp = tempfile::tempdir().unwrap();
    let prefix = tmp.path().join("setup");
    let empty = tmp.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for (version, wanted) in [
        ("0.23.1", "is for Spack 1.x"),
        ("1.0.2", "is not a spack-packages checkout"),
    ] {
        let checkout = tmp.path().join(format!("spack-{version}"));
        fake_spack_checkout(&checkout, version);
        let o = packsmith(
            &[
                "setup",
                "spack",
                "--from",
                checkout.to_str().unwrap(),
                "--prefix",
                prefix.to_str().unwrap(),
                "--packages",
                empty.to_str().unwrap(),
            ],
            tmp.path(),
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains(wanted) && err.contains("empty"), "{err}");
        assert_nothing_written(&prefix);
    }
}

/// The live processes whose command line holds `needle` (zombies are dead:
/// they only wait for their new parent to reap them).
fn live_processes_with(needle: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            let zombie = stat
                .rfind(')')
                .is_some_and(|i| stat[i + 1..].trim_start().starts_with('Z'));
            let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            !zombie && String::from_utf8_lossy(&cmdline).contains(needle)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// A clone from a remote that accepts and never answers (a loopback
/// stand-in for a dead server) says what it is doing within 2 s, and
/// Ctrl-C after 3 s stops it: exit 130, no git left, no partial clone.
#[test]
fn ctrl_c_during_a_stalled_clone_leaves_no_git_and_no_partial_clone() {
    use std::io::BufRead;
    use std::time::{Duration, Instant};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "git://127.0.0.1:{}/x.git",
        listener.local_addr().unwrap().port()
    );
    std::thread::spawn(move || {
        let held: Vec<_> = listener.incoming().collect();
        drop(held);
    });
    let cache = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["analyze", &url])
        .env("PACKSMITH_CACHE_DIR", cache.path())
        .env("PACKSMITH_CONFIG", cache.path().join("packsmith.toml"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run packsmith");
    let started = Instant::now();
    let (lines_tx, lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = lines_tx.send(line);
        }
    });
    let first = lines.recv_timeout(Duration::from_secs(2));
    let said_at = started.elapsed();
    std::thread::sleep(Duration::from_secs(3).saturating_sub(started.elapsed()));
    let git = live_processes_with(&url);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if started.elapsed() > Duration::from_secs(15) {
            let _ = child.kill();
            panic!("packsmith still running 12 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let rest: Vec<String> = lines.iter().collect();

    let first = first.unwrap_or_else(|_| panic!("nothing on stderr within 2 s: {rest:?}"));
    assert_eq!(
        first,
        format!("cloning {url} into the cache …"),
        "{said_at:?}"
    );
    assert!(!git.is_empty(), "git was not running when SIGINT came");
    assert_eq!(status.code(), Some(130), "{rest:?}");
    let text = rest.join("\n");
    assert!(
        text.contains(&format!("interrupted (Ctrl-C) while git fetched {url}")),
        "{text}"
    );
    assert!(text.contains("hint:"), "{text}");
    assert_eq!(
        live_processes_with(&url),
        Vec::<String>::new(),
        "git outlived packsmith"
    );
    let left: Vec<_> = std::fs::read_dir(cache.path().join("repos"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "left in the cache: {left:?}");
}

/// A Spack prefix written for the test: a DAG of the package alone, and a
/// build log whose configure probed zlib's header and whose compiler
/// command took Eigen's headers from the host.
fn leaky_prefix(root: &Path) -> PathBuf {
    let prefix = root.join("demo-1.0-hhhh");
    std::fs::create_dir_all(prefix.join(".spack")).unwrap();
    std::fs::write(
        prefix.join(".spack/spec.json"),
        r#"{"spec": {"nodes": [{"name": "demo", "hash": "hhhh"}]}}"#,
    )
    .unwrap();
    std::fs::write(
        prefix.join(".spack/spack-build-out.txt"),
        "checking for zlib.h... yes\ng++ -I/usr/include/eigen3 -o demo demo.cpp\n",
    )
    .unwrap();
    prefix
}

#[test]
fn hermeticity_names_what_an_installed_prefix_took_from_the_host() {
    let cache = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    let prefix = leaky_prefix(root.path());
    let out = packsmith(
        &["hermeticity", "--no-kb", "--json", prefix.to_str().unwrap()],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let reports = json(&out);
    let packages: Vec<&str> = reports[0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["package"].as_str().unwrap())
        .collect();
    assert_eq!(packages, ["zlib-api", "eigen"]);
    assert_eq!(
        reports[0]["findings"][0]["evidence"][0]["entry"],
        "checking for zlib.h... yes"
    );
}

#[test]
fn hermeticity_refuses_a_directory_that_is_no_prefix() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = packsmith(
        &["hermeticity", "--no-kb", dir.path().to_str().unwrap()],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("is no Spack install prefix"), "{err}");
    assert!(err.contains("hint:"), "{err}");
}

#[test]
fn smoke_test_refuses_a_directory_that_is_no_prefix_and_a_run_without_a_model() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = packsmith(
        &[
            "smoke-test",
            "--model",
            "none",
            dir.path().to_str().unwrap(),
        ],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("is no Spack install prefix"), "{err}");
    assert!(err.contains("hint:"), "{err}");
    let prefix = dir.path().join(format!("demo-1.0-{}", "b".repeat(32)));
    std::fs::create_dir_all(prefix.join(".spack")).unwrap();
    let out = packsmith(
        &["smoke-test", "--model", "none", prefix.to_str().unwrap()],
        cache.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("no model is configured"), "{err}");
    assert!(err.contains("--model"), "{err}");
}
