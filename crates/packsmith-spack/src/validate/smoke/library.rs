//! A library's smoke test: what an installed library offers a user is a
//! header to include and symbols to link, so the test compiles a tiny
//! program that includes one installed header and references one exported
//! symbol, links it against the library and runs it. The library (its
//! name closest to the package's), the header and the symbol are read
//! from the prefix; the program is probed once in the probe sandbox, and
//! only a check that passed there is written into the recipe (a header
//! that needs another package's headers, say, is left out with a note).
//! A header read as C that does not compile as C is tried as C++ (fmt's
//! `args.h`). A library that installs headers and no binary (header-only)
//! gets the same program without the link: include, compile, run.

use std::path::{Path, PathBuf};
use std::time::Duration;

use packsmith_exec::sandbox::Sandbox;
use packsmith_exec::CommandSpec;
use packsmith_spack_knowledge::edit::smoke::{
    include_source, link_sources, HeaderCheck, LinkCheck,
};
use packsmith_spack_knowledge::mapping::library_stem;

/// A compile, a link or the run of the program takes at most this.
const STEP_TIMEOUT: Duration = Duration::from_secs(60);

/// The standard a C++ header that fails with the compiler's default is
/// tried with.
const NEWER_CXX: &str = "c++20";

/// Library directories of a prefix, in the order they are tried.
const LIB_DIRS: [&str; 2] = ["lib", "lib64"];

/// Symbols every shared object defines, which say nothing of the library.
const GENERIC_SYMBOLS: [&str; 5] = ["_init", "_fini", "_edata", "_end", "__bss_start"];

/// `libfoo.so` / `libfoo.a` → `foo`: the names `-lfoo` links (a
/// versioned `libfoo.so.1` is no link name).
fn link_name(file: &str) -> Option<&str> {
    let linkable = file.starts_with("lib") && (file.ends_with(".so") || file.ends_with(".a"));
    linkable.then(|| library_stem(file)).flatten()
}

/// How well a name matches the package: 0 best.
fn rank(name: &str, package: &str) -> u8 {
    let norm = |s: &str| s.to_ascii_lowercase().replace(['-', '_'], "");
    let (n, p) = (norm(name), norm(package));
    if n == p {
        0
    } else if n.contains(&p) || p.contains(&n) {
        1
    } else {
        2
    }
}

/// The library to test: a `lib<name>.so` (else `.a`) of `lib/` or
/// `lib64/`, the name closest to the package's first. Returns its name,
/// directory and file.
pub fn library_of(prefix: &Path, package: &str) -> Option<(String, String, PathBuf)> {
    let mut found: Vec<(u8, bool, String, String, PathBuf)> = Vec::new();
    for dir in LIB_DIRS {
        let Ok(entries) = std::fs::read_dir(prefix.join(dir)) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = link_name(&file) else {
                continue;
            };
            let shared = file.ends_with(".so");
            found.push((
                rank(stem, package),
                !shared,
                stem.to_string(),
                dir.to_string(),
                entry.path(),
            ));
        }
    }
    found.sort();
    found
        .into_iter()
        .next()
        .map(|(_, _, stem, dir, path)| (stem, dir, path))
}

fn is_header(name: &str) -> Option<bool> {
    let ext = name.rsplit_once('.')?.1;
    match ext {
        "h" => Some(false),
        "hpp" | "hh" | "hxx" => Some(true),
        _ => None,
    }
}

/// The header to include, relative to `include/`, and whether it is C++:
/// one named after the library or the package first (`foo.h`,
/// `foo/foo.h`), else the first of `include/` and then of its
/// sub-directories, C headers before C++ ones.
pub fn header_of(prefix: &Path, package: &str, library: &str) -> Option<(String, bool)> {
    let include = prefix.join("include");
    let mut found: Vec<(u8, bool, usize, String)> = Vec::new();
    let mut visit = |rel: String, depth: usize| {
        let name = rel.rsplit('/').next().unwrap_or(&rel).to_string();
        if let Some(cxx) = is_header(&name) {
            let stem = name.rsplit_once('.').map_or(name.as_str(), |(s, _)| s);
            let r = rank(stem, library).min(rank(stem, package));
            found.push((r, cxx, depth, rel));
        }
    };
    let Ok(entries) = std::fs::read_dir(&include) else {
        return None;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            if let Ok(sub) = std::fs::read_dir(entry.path()) {
                for e in sub.flatten() {
                    visit(format!("{name}/{}", e.file_name().to_string_lossy()), 1);
                }
            }
        } else {
            visit(name, 0);
        }
    }
    found.sort();
    found.into_iter().next().map(|(_, cxx, _, rel)| (rel, cxx))
}

/// A defined, global function symbol `nm` lists for `file` (a name with
/// the library's name in it first).
pub fn exported_symbol(file: &Path, library: &str) -> Option<String> {
    let shared = file.to_string_lossy().ends_with(".so");
    let mut args = vec!["--defined-only", "--format=posix"];
    if shared {
        args.push("-D");
    }
    let spec = CommandSpec::new("nm")
        .args(args)
        .arg(file.as_os_str())
        .timeout(STEP_TIMEOUT);
    let out = packsmith_exec::run(&spec).ok().filter(|o| o.success())?;
    let mut symbols: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| {
            let mut parts = l.split_whitespace();
            let (name, kind) = (parts.next()?, parts.next()?);
            (kind == "T").then_some(name)
        })
        .filter(|n| !GENERIC_SYMBOLS.contains(n))
        .filter(|n| !n.starts_with('_') || n.starts_with("_Z"))
        .filter(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .collect();
    let lib = library.to_ascii_lowercase();
    symbols.sort_by_key(|n| (!n.to_ascii_lowercase().contains(&lib), n.len()));
    symbols.first().map(|s| s.to_string())
}

/// Runs one step of the probe; `Err` says which and why.
fn step(sandbox: &Sandbox, program: &str, args: &[String], dir: &Path) -> Result<(), String> {
    let spec = CommandSpec::new(program)
        .args(args)
        .cwd(dir)
        .timeout(STEP_TIMEOUT);
    let out = packsmith_exec::run(&sandbox.wrap(spec))
        .map_err(|e| format!("{program}: could not run: {e}"))?;
    if out.success() {
        return Ok(());
    }
    let first = out
        .stderr
        .lines()
        .chain(out.stdout.lines())
        .find(|l| (l.contains("error") || l.contains("undefined")) && !l.starts_with("collect2"))
        .or_else(|| out.stderr.lines().next())
        .unwrap_or("")
        .trim()
        .to_string();
    Err(format!(
        "{program} {}: {} {first}",
        args.join(" "),
        out.code
            .map_or("a signal".to_string(), |c| format!("exit {c}"))
    ))
}

/// Compiles, links and runs `check` against `prefix` in `sandbox`, in
/// `scratch` (which must exist), as the recipe's test will.
pub fn probe_link(
    sandbox: &Sandbox,
    check: &LinkCheck,
    prefix: &Path,
    scratch: &Path,
) -> Result<(), String> {
    let (reference, main) = link_sources(check);
    let main_file = if check.cxx {
        "smoke_main.cpp"
    } else {
        "smoke_main.c"
    };
    for (file, text) in [("smoke_ref.c", reference), (main_file, main)] {
        std::fs::write(scratch.join(file), text)
            .map_err(|e| format!("cannot write {}: {e}", scratch.join(file).display()))?;
    }
    if let Sandbox::Bubblewrap { policy, .. } = sandbox {
        std::fs::create_dir_all(&policy.home)
            .map_err(|e| format!("cannot create {}: {e}", policy.home.display()))?;
    }
    let s = |x: &str| x.to_string();
    step(
        sandbox,
        "cc",
        &[s("-c"), s("smoke_ref.c"), s("-o"), s("smoke_ref.o")],
        scratch,
    )?;
    let lib = prefix.join(&check.lib_dir).display().to_string();
    let compiler = match (check.mpi, check.cxx) {
        (true, true) => "mpicxx",
        (true, false) => "mpicc",
        (false, true) => "c++",
        (false, false) => "cc",
    };
    step(
        sandbox,
        compiler,
        &[
            format!("-I{}", prefix.join("include").display()),
            s(main_file),
            s("smoke_ref.o"),
            s("-o"),
            s("smoke"),
            format!("-L{lib}"),
            format!("-l{}", check.library),
            format!("-Wl,-rpath,{lib}"),
        ],
        scratch,
    )?;
    step(
        sandbox,
        &scratch.join("smoke").display().to_string(),
        &[],
        scratch,
    )
}

/// The link check of `prefix`, probed: `Ok(None)` when it has no library
/// or no header to test; `Err` says why the probe failed (then nothing is
/// written). A mangled symbol makes the program C++; a C program that does
/// not compile is tried once more as C++.
pub fn derive_link_check(
    sandbox: &Sandbox,
    prefix: &Path,
    package: &str,
    scratch: &Path,
) -> Result<Option<LinkCheck>, String> {
    let Some((library, lib_dir, file)) = library_of(prefix, package) else {
        return Ok(None);
    };
    let Some((header, cxx)) = header_of(prefix, package, &library) else {
        return Ok(None);
    };
    let symbol = exported_symbol(&file, &library)
        .ok_or_else(|| format!("{}: no exported function symbol", file.display()))?;
    let mut check = LinkCheck {
        cxx: cxx || symbol.starts_with("_Z"),
        mpi: false,
        library,
        lib_dir,
        header,
        symbol,
    };
    // As read; as C++; then, when the header wants MPI's types, the same
    // with <mpi.h> first and the MPI wrapper.
    let mut ways = vec![(check.cxx, false)];
    if !check.cxx {
        ways.push((true, false));
    }
    let mut failures: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&(cxx, mpi)) = ways.get(i) {
        i += 1;
        check.cxx = cxx;
        check.mpi = mpi;
        match probe_link(sandbox, &check, prefix, scratch) {
            Ok(()) => return Ok(Some(check)),
            Err(why) => {
                let wants_mpi = why.contains("MPI_") || why.contains("mpi.h");
                if wants_mpi && !ways.iter().any(|w| w.1) {
                    ways.extend(ways.clone().into_iter().map(|(c, _)| (c, true)));
                }
                let what = match (cxx, mpi) {
                    (false, false) => "as C",
                    (true, false) => "as C++",
                    (false, true) => "as C with MPI",
                    (true, true) => "as C++ with MPI",
                };
                failures.push(format!("{what}: {why}"));
            }
        }
    }
    Err(failures.join("; "))
}

/// Compiles and runs the header check against `prefix` in `sandbox`.
fn probe_header(
    sandbox: &Sandbox,
    check: &HeaderCheck,
    prefix: &Path,
    scratch: &Path,
) -> Result<(), String> {
    let (main_file, compiler) = if check.cxx {
        ("smoke_main.cpp", "c++")
    } else {
        ("smoke_main.c", "cc")
    };
    std::fs::write(scratch.join(main_file), include_source(check))
        .map_err(|e| format!("cannot write {}: {e}", scratch.join(main_file).display()))?;
    let mut args: Vec<String> = check.std.iter().map(|s| format!("-std={s}")).collect();
    args.extend([
        format!("-I{}", prefix.join("include").display()),
        main_file.to_string(),
        "-o".to_string(),
        "smoke".to_string(),
    ]);
    step(sandbox, compiler, &args, scratch)?;
    step(
        sandbox,
        &scratch.join("smoke").display().to_string(),
        &[],
        scratch,
    )
}

/// The header check of a prefix, probed: for a prefix with headers and no
/// library, or (`despite_library`) one whose library the link check could
/// not test (glm's `libglm.so` exports no function). `Ok(None)` when there
/// is a library and not `despite_library`, or no header; `Err` says why
/// the probe failed.
pub fn derive_header_check(
    sandbox: &Sandbox,
    prefix: &Path,
    package: &str,
    scratch: &Path,
    despite_library: bool,
) -> Result<Option<HeaderCheck>, String> {
    if !despite_library && library_of(prefix, package).is_some() {
        return Ok(None);
    }
    let Some((header, cxx)) = header_of(prefix, package, package) else {
        return Ok(None);
    };
    let mut check = HeaderCheck {
        header,
        cxx,
        std: None,
    };
    let Err(first) = probe_header(sandbox, &check, prefix, scratch) else {
        return Ok(Some(check));
    };
    let mut tried = Vec::new();
    if !check.cxx {
        tried.push(format!("as C: {first}"));
        check.cxx = true;
        match probe_header(sandbox, &check, prefix, scratch) {
            Ok(()) => return Ok(Some(check)),
            Err(e) => tried.push(format!("as C++: {e}")),
        }
    } else {
        tried.push(first);
    }
    // Headers written for a newer standard than the compiler's default
    // (C++20 concepts and `requires`) compile when asked for it.
    check.std = Some(NEWER_CXX.to_string());
    match probe_header(sandbox, &check, prefix, scratch) {
        Ok(()) => Ok(Some(check)),
        Err(e) => {
            tried.push(format!("as {NEWER_CXX}: {e}"));
            Err(tried.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A prefix with a real shared library built for the test: `lib/libdemo.so`
    /// exporting `demo_answer`, and `include/demo.h`. `None` without `cc`.
    fn demo_prefix(root: &Path) -> Option<PathBuf> {
        let prefix = root.join("demo-1.0-hhhh");
        std::fs::create_dir_all(prefix.join("lib")).unwrap();
        std::fs::create_dir_all(prefix.join("include")).unwrap();
        std::fs::write(
            prefix.join("include/demo.h"),
            "#ifndef DEMO_H\n#define DEMO_H\nint demo_answer(void);\n#endif\n",
        )
        .unwrap();
        std::fs::write(
            root.join("demo.c"),
            "int demo_answer(void) { return 42; }\n",
        )
        .unwrap();
        let lib = prefix.join("lib/libdemo.so").display().to_string();
        let spec = CommandSpec::new("cc")
            .args(["-shared", "-fPIC", "-o", &lib, "demo.c"])
            .cwd(root);
        let out = packsmith_exec::run(&spec).ok()?;
        out.success().then_some(prefix)
    }

    #[test]
    fn a_library_with_a_header_gets_a_probed_link_check() {
        let root = tempfile::tempdir().unwrap();
        let Some(prefix) = demo_prefix(root.path()) else {
            eprintln!("SKIPPED: no `cc` to build the test's library");
            return;
        };
        assert_eq!(
            library_of(&prefix, "demo").map(|(l, d, _)| (l, d)),
            Some(("demo".to_string(), "lib".to_string()))
        );
        assert_eq!(
            header_of(&prefix, "demo", "demo"),
            Some(("demo.h".to_string(), false))
        );
        let scratch = root.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        let check = derive_link_check(&Sandbox::None, &prefix, "demo", &scratch)
            .unwrap()
            .unwrap();
        assert_eq!(check.symbol, "demo_answer");
        assert!(scratch.join("smoke").is_file());
    }

    #[test]
    fn a_header_that_does_not_compile_fails_the_probe_with_the_reason() {
        let root = tempfile::tempdir().unwrap();
        let Some(prefix) = demo_prefix(root.path()) else {
            eprintln!("SKIPPED: no `cc` to build the test's library");
            return;
        };
        // The header needs another package's header, which is not there.
        std::fs::write(
            prefix.join("include/demo.h"),
            "#include <no_such_dependency.h>\nint demo_answer(void);\n",
        )
        .unwrap();
        let scratch = root.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        let err = derive_link_check(&Sandbox::None, &prefix, "demo", &scratch).unwrap_err();
        assert!(err.contains("no_such_dependency.h"), "{err}");
    }

    #[test]
    fn a_header_written_for_cxx20_is_checked_with_that_standard() {
        let root = tempfile::tempdir().unwrap();
        let prefix = root.path().join("algebra-1.0-hhhh");
        std::fs::create_dir_all(prefix.join("include/algebra")).unwrap();
        // A constraint gcc 12's default (C++17) does not parse.
        std::fs::write(
            prefix.join("include/algebra/algebra.hpp"),
            "#include <type_traits>\ntemplate <class M> struct value {};\n\
             template <typename T>\n    requires(std::is_arithmetic_v<T>)\n\
             struct value<T> { using type = T; };\n",
        )
        .unwrap();
        let scratch = root.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        let check = match derive_header_check(&Sandbox::None, &prefix, "algebra", &scratch, false) {
            Ok(c) => c.unwrap(),
            Err(e) if e.contains("could not run") => {
                eprintln!("SKIPPED: no compiler here ({e})");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(check.std.as_deref(), Some("c++20"), "{check:?}");
        assert!(check.cxx);
        // A header no standard fixes says what each try gave.
        std::fs::write(
            prefix.join("include/algebra/algebra.hpp"),
            "#include <no_such_dependency.hpp>\n",
        )
        .unwrap();
        let err =
            derive_header_check(&Sandbox::None, &prefix, "algebra", &scratch, false).unwrap_err();
        assert!(err.contains("as c++20:"), "{err}");
    }

    #[test]
    fn a_header_only_library_gets_an_include_check_tried_as_cxx() {
        let root = tempfile::tempdir().unwrap();
        let prefix = root.path().join("tiny-1.0-hhhh");
        std::fs::create_dir_all(prefix.join("include/tiny")).unwrap();
        // A `.h` that only C++ compiles.
        std::fs::write(
            prefix.join("include/tiny/tiny.h"),
            "#include <string>\ninline std::string tiny() { return \"t\"; }\n",
        )
        .unwrap();
        let scratch = root.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        let check = match derive_header_check(&Sandbox::None, &prefix, "tiny", &scratch, false) {
            Ok(c) => c.unwrap(),
            Err(e) if e.contains("could not run") => {
                eprintln!("SKIPPED: no compiler here ({e})");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            check,
            HeaderCheck {
                header: "tiny/tiny.h".into(),
                cxx: true,
                std: None,
            }
        );
        assert!(scratch.join("smoke").is_file());
        // With a library beside it, the link check is the one to make.
        std::fs::create_dir_all(prefix.join("lib")).unwrap();
        std::fs::write(prefix.join("lib/libtiny.so"), "").unwrap();
        assert_eq!(
            derive_header_check(&Sandbox::None, &prefix, "tiny", &scratch, false).unwrap(),
            None
        );
        // A library with no function to link (glm's): the link check says
        // so, and the headers are tested despite it.
        let err = derive_link_check(&Sandbox::None, &prefix, "tiny", &scratch).unwrap_err();
        assert!(err.contains("no exported function symbol"), "{err}");
        assert!(
            derive_header_check(&Sandbox::None, &prefix, "tiny", &scratch, true)
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn a_header_that_wants_mpi_types_is_built_with_the_mpi_wrapper() {
        let root = tempfile::tempdir().unwrap();
        let Some(prefix) = demo_prefix(root.path()) else {
            eprintln!("SKIPPED: no `cc` to build the test's library");
            return;
        };
        if packsmith_exec::run(&CommandSpec::new("mpicc").arg("--version")).is_err() {
            eprintln!("SKIPPED: no `mpicc` here");
            return;
        }
        // rankstr's shape: MPI_Comm used, <mpi.h> left to the includer.
        std::fs::write(
            prefix.join("include/demo.h"),
            "int demo_answer(void);\nint demo_split(MPI_Comm comm);\n",
        )
        .unwrap();
        let scratch = root.path().join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        let check = derive_link_check(&Sandbox::None, &prefix, "demo", &scratch)
            .unwrap()
            .unwrap();
        assert!(check.mpi, "{check:?}");
        assert!(!check.cxx, "{check:?}");
    }

    #[test]
    fn nothing_to_link_is_no_check() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("bin")).unwrap();
        assert_eq!(
            derive_link_check(&Sandbox::None, root.path(), "demo", root.path()).unwrap(),
            None
        );
    }

    #[test]
    fn names_close_to_the_package_come_first() {
        let root = tempfile::tempdir().unwrap();
        let p = root.path();
        std::fs::create_dir_all(p.join("lib64")).unwrap();
        std::fs::create_dir_all(p.join("include/my_lib")).unwrap();
        for f in ["libhelper.so", "libmy-lib.a", "libmy-lib.so", "README"] {
            std::fs::write(p.join("lib64").join(f), "").unwrap();
        }
        for f in ["config.h", "my_lib/my_lib.hpp", "my_lib/detail.h"] {
            std::fs::write(p.join("include").join(f), "").unwrap();
        }
        let (lib, dir, file) = library_of(p, "my-lib").unwrap();
        assert_eq!((lib.as_str(), dir.as_str()), ("my-lib", "lib64"));
        assert!(file.ends_with("libmy-lib.so"));
        assert_eq!(
            header_of(p, "my-lib", "my-lib"),
            Some(("my_lib/my_lib.hpp".to_string(), true))
        );
    }
}
