//! A hang in a reader would stall a run for ever (slowness is only seen
//! when the call returns): a watchdog thread saves the input that hangs,
//! names the target and aborts the process.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

#[derive(Default)]
struct State {
    /// The input under test: since when, how long it may take, its bytes.
    current: Option<(Instant, Duration, Vec<u8>)>,
    done: bool,
}

pub struct Watchdog {
    state: Arc<Mutex<State>>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    pub fn start(target: &'static str, crash_dir: Option<PathBuf>) -> Self {
        let state = Arc::new(Mutex::new(State::default()));
        let seen = Arc::clone(&state);
        let thread = std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            let Ok(s) = seen.lock() else { return };
            if s.done {
                return;
            }
            if let Some((since, grace, input)) = &s.current {
                if since.elapsed() > *grace {
                    let saved = crash_dir.as_deref().and_then(|d| {
                        let p =
                            d.join(format!("{target}-hang-{:016x}.bin", crate::rng::fnv(input)));
                        packsmith_exec::atomic_write(&p, input).ok().map(|_| p)
                    });
                    #[allow(clippy::print_stderr)]
                    {
                        eprintln!(
                            "packsmith-fuzz: {target} hangs: one input of {} bytes ran over {} s \
                             (saved as {saved:?}); aborting",
                            input.len(),
                            grace.as_secs()
                        );
                    }
                    std::process::abort();
                }
            }
        });
        Self {
            state,
            thread: Some(thread),
        }
    }

    /// Watches the input about to run, which may take `grace`.
    pub fn arm(&self, input: &[u8], grace: Duration) {
        if let Ok(mut s) = self.state.lock() {
            s.current = Some((Instant::now(), grace, input.to_vec()));
        }
    }

    pub fn disarm(&self) {
        if let Ok(mut s) = self.state.lock() {
            s.current = None;
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Ok(mut s) = self.state.lock() {
            s.done = true;
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
