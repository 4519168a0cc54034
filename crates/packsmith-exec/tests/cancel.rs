//! The process-wide cancel flag kills running commands. Its own test
//! binary: the flag is global, and once set it stays set.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use packsmith_exec::{cancel_all, run, CommandSpec};

#[test]
fn cancelling_kills_the_running_command_and_the_next() {
    let spec = CommandSpec::new("sh")
        .args(["-c", "sleep 30 & sleep 30"])
        .timeout(Duration::from_secs(60));
    let canceller = std::thread::spawn(|| {
        std::thread::sleep(Duration::from_millis(300));
        cancel_all();
    });
    let t = Instant::now();
    let out = run(&spec).unwrap();
    canceller.join().unwrap();
    assert!(out.cancelled, "{out:?}");
    assert!(!out.success());
    assert!(!out.timed_out);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());

    let t = Instant::now();
    let again = run(&CommandSpec::new("sleep").arg("30")).unwrap();
    assert!(again.cancelled);
    assert!(t.elapsed() < Duration::from_secs(5));
}
