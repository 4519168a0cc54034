//! The sandbox's command lines, pinned: the mechanism must not change what
//! runs for a given policy.

use std::collections::BTreeMap;

use super::*;

fn policy() -> SandboxPolicy {
    SandboxPolicy {
        writable: vec!["/".into()],
        home: "/tmp/h".into(),
        tmp_size: Some(1024),
        max_processes: Some(10),
        max_file_size: Some(99),
        ..SandboxPolicy::default()
    }
}

fn bwrap_at_usr_bin(policy: SandboxPolicy) -> Sandbox {
    Sandbox::Bubblewrap {
        bwrap: "/usr/bin/bwrap".into(),
        prlimit: Some("/usr/bin/prlimit".into()),
        policy,
    }
}

#[test]
fn argv_has_the_isolation_flags_in_order() {
    let args = Sandbox::bwrap_args(&policy(), Some(Path::new("/")));
    let text: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let joined = text.join(" ");
    assert!(
        joined.starts_with("--unshare-user --unshare-pid"),
        "{joined}"
    );
    assert!(joined.contains("--unshare-net --ro-bind / /"), "{joined}");
    assert!(joined.contains("--size 1024 --tmpfs /tmp"), "{joined}");
    assert!(joined.contains("--bind / /"), "{joined}");
    assert!(joined.ends_with("--chdir / --"), "{joined}");
}

#[test]
fn wrapping_keeps_the_command_and_marks_the_child() {
    let spec = bwrap_at_usr_bin(policy()).wrap(CommandSpec::new("spack").args(["spec", "x"]));
    let shown = spec.display();
    assert!(shown.starts_with("/usr/bin/bwrap "), "{shown}");
    assert!(
        shown.ends_with("-- /usr/bin/prlimit --nproc=10 --fsize=99 -- spack spec x"),
        "{shown}"
    );
    assert_eq!(
        spec.env.get(&OsString::from("PACKSMITH_SANDBOX")),
        Some(&"1".into())
    );
    let direct = Sandbox::None.wrap(CommandSpec::new("spack"));
    assert_eq!(direct.display(), "spack");
}

#[test]
fn a_pids_cgroup_is_entered_by_a_launcher_before_bwrap() {
    let cg = PidsCgroup::at("/sys/fs/cgroup/packsmith-test".into());
    let spec = bwrap_at_usr_bin(policy()).wrap_with(CommandSpec::new("make"), Some(&cg));
    assert_eq!(
        spec.display(),
        "sh -c 'echo $$ > \"$0\" && exec \"$@\"' /sys/fs/cgroup/packsmith-test/cgroup.procs \
         /usr/bin/bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts \
         --die-with-parent --new-session --unshare-net --ro-bind / / --dev /dev --proc /proc \
         --size 1024 --tmpfs /tmp --tmpfs /dev/shm --bind / / -- \
         /usr/bin/prlimit --nproc=10 --fsize=99 -- make"
    );
}

/// A closure-only policy (Nix's runtime check): no host root, read-only
/// binds at other places, variables set inside, no limits so no prlimit.
#[test]
fn a_closure_policy_shows_only_its_paths() {
    let policy = SandboxPolicy {
        host_visible: false,
        read_only: vec!["/".into()],
        mounts: vec![Mount {
            source: "/usr/bin/env".into(),
            dest: "/bin/env".into(),
        }],
        env: BTreeMap::from([("PATH".into(), "/nix/store/x/bin".into())]),
        ..SandboxPolicy::default()
    };
    let spec = bwrap_at_usr_bin(policy).wrap(
        CommandSpec::new("/nix/store/x/bin/x")
            .arg("--version")
            .cwd("/tmp"),
    );
    assert_eq!(
        spec.display(),
        "/usr/bin/bwrap --unshare-user --unshare-pid --unshare-ipc --unshare-uts \
         --die-with-parent --new-session --unshare-net --dev /dev --proc /proc \
         --tmpfs /tmp --tmpfs /dev/shm --ro-bind / / --ro-bind /usr/bin/env /bin/env \
         --setenv PATH /nix/store/x/bin --chdir /tmp -- /nix/store/x/bin/x --version"
    );
    assert_eq!(
        spec.env.get(&OsString::from("HOME")),
        Some(&OsString::from("/tmp"))
    );
}

/// The probe that `packsmith doctor` and Spack's validation share: the
/// default policy starts where bubblewrap works, and a policy bwrap cannot
/// set up fails with the `--no-sandbox` hint instead of running unconfined.
#[test]
fn the_probe_runs_true_inside_or_says_why_not() {
    if on_path("bwrap").is_none() {
        eprintln!("SKIPPED: bwrap not installed");
        return;
    }
    let file = tempfile::NamedTempFile::new().unwrap();
    let broken = Sandbox::bubblewrap(SandboxPolicy {
        writable: vec![file.path().join("not-a-dir")],
        ..SandboxPolicy::default()
    })
    .unwrap();
    let err = broken.probe().unwrap_err().to_string();
    assert!(err.contains("--no-sandbox"), "{err}");
    assert!(err.contains("not-a-dir"), "{err}");
    match Sandbox::new(SandboxPolicy::default(), false) {
        Ok(sb) => assert!(sb.is_sandboxed()),
        Err(e) => eprintln!("SKIPPED: bubblewrap cannot start here: {e}"),
    }
}
