#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]
//! The Slurm executor against a real single-node Slurm cluster that this
//! test starts on loopback (munged, slurmctld, slurmd from Debian's
//! packages, its own slurm.conf and ports in a temp dir) and stops. It
//! prints a loud SKIPPED line when it cannot: not root, or the binaries
//! are missing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn skip(why: &str) {
    eprintln!("\n*** SKIPPED bench_slurm: {why} ***\n");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Stops what it started, by the pid files, even when the test fails.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for pid_file in ["slurmd.pid", "slurmctld.pid", "munge/munged.pid"] {
            if let Ok(pid) = std::fs::read_to_string(self.dir.join(pid_file)) {
                let _ = Command::new("kill").arg(pid.trim()).status();
            }
        }
        let _ = &self.conf;
    }
}

fn run(cmd: &mut Command) -> Output {
    cmd.output().unwrap()
}

fn start_cluster(dir: &Path) -> Result<Cluster, String> {
    let munge = dir.join("munge");
    std::fs::create_dir_all(&munge).unwrap();
    std::fs::create_dir_all(dir.join("state")).unwrap();
    std::fs::create_dir_all(dir.join("spool")).unwrap();
    let _ = run(Command::new("chmod").args(["711", munge.to_str().unwrap()]));
    let key = munge.join("munge.key");
    std::fs::write(
        &key,
        (0..1024)
            .map(|i| (i * 7919 % 251) as u8)
            .collect::<Vec<u8>>(),
    )
    .unwrap();
    let _ = run(Command::new("chmod").args(["400", key.to_str().unwrap()]));
    let sock = munge.join("munge.sock");
    let o = run(Command::new(which("munged").unwrap()).args([
        "--force",
        &format!("--key-file={}", key.display()),
        &format!("--socket={}", sock.display()),
        &format!("--pid-file={}", munge.join("munged.pid").display()),
        &format!("--log-file={}", munge.join("munged.log").display()),
        &format!("--seed-file={}", munge.join("seed").display()),
    ]));
    if !o.status.success() {
        return Err(format!("munged: {}", String::from_utf8_lossy(&o.stderr)));
    }
    let host = String::from_utf8(run(Command::new("hostname").arg("-s")).stdout)
        .unwrap()
        .trim()
        .to_string();
    let d = dir.display();
    let conf = dir.join("slurm.conf");
    std::fs::write(
        &conf,
        format!(
            "ClusterName=psbench\n\
             SlurmctldHost={host}(127.0.0.1)\n\
             SlurmctldPort={}\n\
             SlurmdPort={}\n\
             AuthType=auth/munge\n\
             AuthInfo=socket={}\n\
             CredType=cred/munge\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             StateSaveLocation={d}/state\n\
             SlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\n\
             SlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/slurmctld.log\n\
             SlurmdLogFile={d}/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             SchedulerType=sched/builtin\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU\n\
             ReturnToService=2\n\
             MpiDefault=none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             NodeName=psnode NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 State=UNKNOWN\n\
             PartitionName=debug Nodes=psnode Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port(),
            sock.display()
        ),
    )
    .unwrap();
    let cluster = Cluster {
        dir: dir.to_path_buf(),
        conf: conf.clone(),
    };
    for (bin, args) in [("slurmctld", vec!["-i"]), ("slurmd", vec!["-N", "psnode"])] {
        let o = run(Command::new(which(bin).unwrap())
            .args(&args)
            .env("SLURM_CONF", &conf));
        if !o.status.success() {
            return Err(format!("{bin}: {}", String::from_utf8_lossy(&o.stderr)));
        }
    }
    // Wait for the node to be idle.
    let start = Instant::now();
    loop {
        let o = run(Command::new("sinfo")
            .args(["-h", "-o", "%t"])
            .env("SLURM_CONF", &conf));
        if String::from_utf8_lossy(&o.stdout).trim() == "idle" {
            return Ok(cluster);
        }
        if start.elapsed() > Duration::from_secs(30) {
            let log = std::fs::read_to_string(dir.join("slurmctld.log")).unwrap_or_default();
            return Err(format!("the node never became idle; slurmctld.log:\n{log}"));
        }
        std::thread::sleep(Duration::from_millis(300));
    }
}

fn pairs(out: &Path) -> usize {
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"record\":\"pair\""))
        .count()
}

#[test]
fn slurm_job_array_runs_every_pair() {
    if !is_root() {
        return skip("needs root to start munged, slurmctld and slurmd");
    }
    for bin in ["munged", "slurmctld", "slurmd", "sbatch", "sinfo"] {
        if which(bin).is_none() {
            return skip(&format!(
                "`{bin}` not found (apt-get install slurmctld slurmd munge)"
            ));
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    let cluster = match start_cluster(&tmp.path().join("cluster")) {
        Ok(c) => c,
        Err(e) => return skip(&format!("the test cluster did not start: {e}")),
    };

    let d = tmp.path();
    let mut tasks = String::new();
    let mut map = String::from("[sources]\n");
    for n in ["ok-1", "ok-2", "bad"] {
        tasks.push_str(&format!(
            "{{\"name\": \"{n}\", \"spack_dir\": \"{n}\", \"version\": \"1.0\"}}\n"
        ));
        std::fs::create_dir_all(d.join("src").join(n)).unwrap();
        map.push_str(&format!("\"{n}\" = \"src/{n}\"\n"));
    }
    std::fs::write(d.join("tasks.jsonl"), tasks).unwrap();
    std::fs::write(d.join("sources.toml"), map).unwrap();
    std::fs::write(
        d.join("bench.toml"),
        "timeout_secs = 120\n[slurm]\ncpus_per_task = 1\nmem = \"100M\"\n\
         [[configuration]]\nname = \"zero-shot\"\nbaseline = \"zero-shot\"\n\
         [[configuration]]\nname = \"k3\"\nbaseline = \"packsmith\"\nmax_attempts = 3\n",
    )
    .unwrap();
    let out = d.join("out");
    let fake = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bench/fake-packsmith.py");
    let o = run(Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["bench", "run"])
        .arg(d.join("tasks.jsonl"))
        .arg("--sources")
        .arg(d.join("sources.toml"))
        .arg("--config")
        .arg(d.join("bench.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--executor", "slurm", "--jobs", "2"])
        .env("PACKSMITH_BENCH_BIN", &fake)
        .env("SLURM_CONF", &cluster.conf));
    let said = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        said.contains("6 pairs: 0 already in the journal, 6 submitted as Slurm job(s)"),
        "{said}"
    );
    let script = std::fs::read_to_string(out.join("slurm/array-0.sbatch")).unwrap();
    assert!(script.contains("#SBATCH --array=0-5%2"), "{script}");
    assert!(script.contains("#SBATCH --mem=100M"), "{script}");

    let start = Instant::now();
    while pairs(&out) < 6 {
        if start.elapsed() > Duration::from_secs(120) {
            let logs: String = std::fs::read_dir(out.join("slurm"))
                .unwrap()
                .filter_map(|e| std::fs::read_to_string(e.unwrap().path()).ok())
                .collect();
            panic!(
                "the array did not finish: {} of 6 pairs\n{logs}",
                pairs(&out)
            );
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let o = run(Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["bench", "status"])
        .arg(&out));
    let status = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(status.contains("6 of 6 pairs finished"), "{status}");
    assert!(
        status.contains("k3: 3/3 done — 2 succeeded, 1 failed"),
        "{status}"
    );
    assert!(
        status.contains("zero-shot: 3/3 done — 1 succeeded, 2 failed"),
        "{status}"
    );
    assert!(status.contains("Slurm jobs:"), "{status}");
    // A second submission finds nothing left to do.
    let o = run(Command::new(env!("CARGO_BIN_EXE_packsmith"))
        .args(["bench", "run"])
        .arg(d.join("tasks.jsonl"))
        .arg("--sources")
        .arg(d.join("sources.toml"))
        .arg("--config")
        .arg(d.join("bench.toml"))
        .arg("--out")
        .arg(&out)
        .args(["--executor", "slurm"])
        .env("PACKSMITH_BENCH_BIN", &fake)
        .env("SLURM_CONF", &cluster.conf));
    let said = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        said.contains("6 already in the journal, 0 submitted"),
        "{said}"
    );
    drop(cluster);
}

fn is_root() -> bool {
    String::from_utf8(run(Command::new("id").arg("-u")).stdout)
        .map(|s| s.trim() == "0")
        .unwrap_or(false)
}
