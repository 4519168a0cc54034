//! The run loop: adversarial inputs first, then mutated seeds until the
//! time is up. Each input is checked for a panic (caught), its time
//! (bounded by its size) and its memory (peak RSS growth, bounded by its
//! size); an input that changes what the reader reports joins the corpus.

use crate::mutate::{mutate, Grammar};
use crate::probe;
use crate::rng::{fnv, Rng};
use crate::watchdog::Watchdog;
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One reader (or a few that read the same input) under fuzz.
pub struct Target {
    pub name: &'static str,
    /// Which readers it drives, for reports.
    pub readers: &'static str,
    pub grammar: Grammar,
    /// The seed corpus, read from the repository's own test files.
    pub seeds: fn(&Path) -> Vec<Vec<u8>>,
    /// Feeds one input to the readers; returns a summary of what they
    /// reported (a hash), which guides the corpus.
    pub run: fn(&mut Scratch, &[u8]) -> u64,
}

/// A temporary directory a target may lay its input out in.
pub struct Scratch {
    pub dir: tempfile::TempDir,
}

/// How long and how hard to fuzz.
#[derive(Debug, Clone)]
pub struct Options {
    pub duration: Duration,
    pub seed: u64,
    /// Mutated inputs are cut to this many bytes.
    pub max_len: usize,
    /// The size of the long-line and deep-nesting inputs (10 MB in long runs).
    pub adversarial_len: usize,
    /// Allowed time per MiB of input (at least one MiB's worth per input).
    pub time_per_mib: Duration,
    /// Allowed peak-RSS growth: this much plus `mem_per_byte` × input size.
    pub mem_base_kib: u64,
    pub mem_per_byte: u64,
}

impl Options {
    pub fn short(duration: Duration) -> Self {
        Self {
            duration,
            seed: 16,
            max_len: 64 << 10,
            adversarial_len: 256 << 10,
            time_per_mib: Duration::from_secs(2),
            mem_base_kib: 256 << 10,
            mem_per_byte: 64,
        }
    }

    fn time_limit(&self, len: usize) -> Duration {
        let mib = len.div_ceil(1 << 20).max(1) as u32;
        self.time_per_mib * mib
    }

    fn mem_limit_kib(&self, len: usize) -> u64 {
        self.mem_base_kib + (len as u64 * self.mem_per_byte) / 1024
    }
}

/// What went wrong with one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Panic(String),
    Slow { ms: u128, limit_ms: u128 },
    Memory { kib: u64, limit_kib: u64 },
}

#[derive(Debug, Clone)]
pub struct Failure {
    pub problem: Problem,
    /// The smallest input found that still shows the problem.
    pub input: Vec<u8>,
    /// Where the input was saved, when a crash directory was given.
    pub saved: Option<PathBuf>,
}

/// A run's figures.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub target: &'static str,
    pub execs: u64,
    pub elapsed: Duration,
    pub seeds: usize,
    pub corpus: usize,
    /// The slowest input: milliseconds and its size.
    pub slowest_ms: u128,
    pub slowest_len: usize,
    /// The largest peak-RSS growth over one input, KiB.
    pub peak_growth_kib: u64,
    pub largest_input: usize,
    pub failures: Vec<Failure>,
}

impl Stats {
    pub fn summary(&self) -> String {
        format!(
            "{}: {} execs in {:.1} s ({:.0}/s), {} seeds, corpus {}, slowest {} ms on {} bytes, \
             largest input {} bytes, peak RSS growth {} MiB, {} failures",
            self.target,
            self.execs,
            self.elapsed.as_secs_f64(),
            self.execs as f64 / self.elapsed.as_secs_f64().max(1e-9),
            self.seeds,
            self.corpus,
            self.slowest_ms,
            self.slowest_len,
            self.largest_input,
            self.peak_growth_kib / 1024,
            self.failures.len()
        )
    }
}

/// The message of the last panic, recorded by our hook.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

/// Fuzzes `target` for `opts.duration`; `root` is the repository (for
/// seeds), `crash_dir` where failing inputs are saved.
pub fn fuzz(target: &Target, root: &Path, opts: &Options, crash_dir: Option<&Path>) -> Stats {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        let at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{msg} at {at}"));
        }
    }));
    let stats = run_loop(target, root, opts, crash_dir);
    std::panic::set_hook(previous);
    stats
}

fn run_loop(target: &Target, root: &Path, opts: &Options, crash_dir: Option<&Path>) -> Stats {
    let start = Instant::now();
    let mut stats = Stats {
        target: target.name,
        ..Stats::default()
    };
    let Ok(dir) = tempfile::tempdir() else {
        stats.failures.push(Failure {
            problem: Problem::Panic("could not create a scratch directory".into()),
            input: Vec::new(),
            saved: None,
        });
        return stats;
    };
    let mut scratch = Scratch { dir };
    let watchdog = Watchdog::start(target.name, crash_dir.map(Path::to_path_buf));
    let mut corpus = (target.seeds)(root);
    stats.seeds = corpus.len();
    if corpus.is_empty() {
        corpus.push(Vec::new());
    }
    let mut seen: HashSet<u64> = HashSet::new();
    let mut problems: HashSet<String> = HashSet::new();
    let mut exec = |input: &[u8], stats: &mut Stats, scratch: &mut Scratch| -> Option<u64> {
        // Ten times the time limit, and half a minute for a loaded machine.
        watchdog.arm(
            input,
            opts.time_limit(input.len()) * 10 + Duration::from_secs(30),
        );
        let outcome = check_one(target, scratch, input, opts);
        watchdog.disarm();
        stats.execs += 1;
        stats.largest_input = stats.largest_input.max(input.len());
        if outcome.ms >= stats.slowest_ms {
            stats.slowest_ms = outcome.ms;
            stats.slowest_len = input.len();
        }
        stats.peak_growth_kib = stats.peak_growth_kib.max(outcome.growth_kib);
        match outcome.problem {
            None => outcome.signature,
            Some(problem) => {
                let key = problem_key(&problem);
                if problems.insert(key) && stats.failures.len() < 20 {
                    // Shrinking reruns the input hundreds of times: worth it
                    // for a panic, not for an input that is slow already.
                    let input = match problem {
                        Problem::Panic(_) => minimize(target, scratch, input, &problem, opts),
                        _ => input.to_vec(),
                    };
                    let saved = crash_dir.and_then(|d| save(d, target.name, &input));
                    stats.failures.push(Failure {
                        problem,
                        input,
                        saved,
                    });
                }
                None
            }
        }
    };
    for input in corpus.clone() {
        if let Some(sig) = exec(&input, &mut stats, &mut scratch) {
            seen.insert(sig);
        }
    }
    let trace = std::env::var_os("PACKSMITH_FUZZ_TRACE").is_some();
    for (i, input) in adversarial(&corpus, &target.grammar, opts.adversarial_len)
        .iter()
        .enumerate()
    {
        if trace {
            // A stack overflow aborts the process: name the input first.
            #[allow(clippy::print_stderr)]
            {
                eprintln!("{}: hostile input {i} ({} bytes)", target.name, input.len());
            }
        }
        exec(input, &mut stats, &mut scratch);
    }
    let seeds = corpus.clone();
    let mut rng = Rng::new(opts.seed ^ fnv(target.name.as_bytes()));
    while start.elapsed() < opts.duration {
        let Some(parent) = rng.pick(&corpus) else {
            break;
        };
        let mut input = parent.clone();
        mutate(&mut rng, &mut input, &seeds, &target.grammar, opts.max_len);
        if let Some(sig) = exec(&input, &mut stats, &mut scratch) {
            // A new kind of result: keep the input to mutate further.
            if seen.insert(sig) && corpus.len() < 2048 {
                corpus.push(input);
            }
        }
    }
    stats.corpus = corpus.len();
    stats.elapsed = start.elapsed();
    stats
}

struct Outcome {
    problem: Option<Problem>,
    signature: Option<u64>,
    ms: u128,
    growth_kib: u64,
}

fn check_one(target: &Target, scratch: &mut Scratch, input: &[u8], opts: &Options) -> Outcome {
    probe::reset_peak();
    let (before, _) = probe::rss_kib();
    let t = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| (target.run)(scratch, input)));
    let elapsed = t.elapsed();
    let (_, peak) = probe::rss_kib();
    let growth_kib = peak.saturating_sub(before);
    let ms = elapsed.as_millis();
    let limit = opts.time_limit(input.len());
    let mem_limit = opts.mem_limit_kib(input.len());
    let (problem, signature) = match result {
        Err(_) => {
            let msg = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut l| l.take())
                .unwrap_or_else(|| "panic".into());
            (Some(Problem::Panic(msg)), None)
        }
        Ok(_) if elapsed > limit => (
            Some(Problem::Slow {
                ms,
                limit_ms: limit.as_millis(),
            }),
            None,
        ),
        Ok(_) if growth_kib > mem_limit => (
            Some(Problem::Memory {
                kib: growth_kib,
                limit_kib: mem_limit,
            }),
            None,
        ),
        Ok(sig) => (None, Some(sig)),
    };
    Outcome {
        problem,
        signature,
        ms,
        growth_kib,
    }
}

/// Panics are told apart by where they happen; slowness and memory by kind.
fn problem_key(p: &Problem) -> String {
    match p {
        Problem::Panic(m) => m.rsplit(" at ").next().unwrap_or(m).to_string(),
        Problem::Slow { .. } => "slow".into(),
        Problem::Memory { .. } => "memory".into(),
    }
}

/// Cuts chunks out of a failing input while it still fails the same way.
fn minimize(
    target: &Target,
    scratch: &mut Scratch,
    input: &[u8],
    problem: &Problem,
    opts: &Options,
) -> Vec<u8> {
    let key = problem_key(problem);
    let mut best = input.to_vec();
    let mut chunk = best.len() / 2;
    let mut tries = 0;
    while chunk > 0 && tries < 400 {
        let mut at = 0;
        while at < best.len() && tries < 400 {
            tries += 1;
            let mut cand = best.clone();
            cand.drain(at..(at + chunk).min(cand.len()));
            let same = check_one(target, scratch, &cand, opts)
                .problem
                .is_some_and(|p| problem_key(&p) == key);
            if same {
                best = cand;
            } else {
                at += chunk;
            }
        }
        chunk /= 2;
    }
    best
}

fn save(dir: &Path, target: &str, input: &[u8]) -> Option<PathBuf> {
    let path = dir.join(format!("{target}-{:016x}.bin", fnv(input)));
    packsmith_exec::atomic_write(&path, input).ok()?;
    Some(path)
}

/// The hostile inputs every run starts with: deep nesting, one huge line,
/// NUL bytes, invalid UTF-8, a seed repeated many times, nothing at all.
pub fn adversarial(seeds: &[Vec<u8>], g: &Grammar, len: usize) -> Vec<Vec<u8>> {
    let seed = seeds
        .iter()
        .max_by_key(|s| s.len())
        .cloned()
        .unwrap_or_default();
    let depth = len / (g.open.len() + g.close.len()).max(1);
    let mut out = vec![
        Vec::new(),
        g.open.repeat(depth).into_bytes(),
        format!("{}{}", g.open.repeat(depth / 2), g.close.repeat(depth / 2)).into_bytes(),
        vec![b'a'; len],
        vec![0u8; len.min(1 << 20)],
    ];
    if let Some(tok) = g.dict.first() {
        out.push(tok.repeat(len / tok.len().max(1)).into_bytes());
        // One token, then a 10 MB argument on the same line.
        let mut line = tok.as_bytes().to_vec();
        line.extend(std::iter::repeat_n(b'x', len));
        out.push(line);
    }
    out.push(
        seed.iter()
            .enumerate()
            .map(|(i, b)| if i % 7 == 3 { 0 } else { *b })
            .collect(),
    );
    let mut bad = Vec::with_capacity(seed.len() * 2);
    for line in seed.split(|b| *b == b'\n') {
        bad.extend_from_slice(b"\xff\xfe\xc0");
        bad.extend_from_slice(line);
        bad.extend_from_slice(b"\xe2\x82\n");
    }
    out.push(bad);
    if !seed.is_empty() {
        let times = (len / 8 / seed.len()).max(2);
        out.push(seed.repeat(times));
    }
    // Every line of the seed without its newline: one long line of code.
    out.push(
        seed.iter()
            .map(|b| if *b == b'\n' { b' ' } else { *b })
            .collect(),
    );
    out
}
