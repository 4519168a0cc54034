//! The local executor: a pool of worker threads, each running one pair at
//! a time; the calling thread appends each result to the journal as it
//! arrives and draws the progress bar.

use std::collections::VecDeque;
use std::io::Write;
use std::path::Path;
use std::sync::{mpsc, Arc, Mutex};

use indicatif::{ProgressBar, ProgressStyle};

use crate::error::Result;
use crate::journal::{self, Outcome, PairResult};
use crate::pair::run_pair;
use crate::plan::{Pair, Plan};

/// Counts of what this invocation ran.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ran {
    pub ran: usize,
    pub succeeded: usize,
}

pub fn run_local(
    plan: &Plan,
    out: &Path,
    pending: Vec<Pair>,
    jobs: usize,
    done_before: usize,
) -> Result<Ran> {
    let total = plan.pairs.len() as u64;
    let bar = ProgressBar::new(total);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] {pos}/{len} pairs, ETA {eta} {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_position(done_before as u64);
    // ETA from this invocation's pace, not from pairs finished earlier.
    bar.reset_eta();
    let queue = Arc::new(Mutex::new(VecDeque::from(pending)));
    let (tx, rx) = mpsc::channel::<Result<PairResult>>();
    let workers: Vec<_> = (0..jobs.max(1))
        .map(|_| {
            let queue = Arc::clone(&queue);
            let tx = tx.clone();
            let plan = plan.clone();
            let out = out.to_path_buf();
            std::thread::spawn(move || loop {
                let next = queue.lock().map(|mut q| q.pop_front()).unwrap_or(None);
                let Some(pair) = next else { break };
                if tx.send(run_pair(&plan, &out, &pair)).is_err() {
                    break;
                }
            })
        })
        .collect();
    drop(tx);
    let path = journal::journal_path(out);
    let mut ran = Ran::default();
    let mut first_error = None;
    for result in rx {
        match result {
            Ok(r) => {
                journal::append(&path, &r)?;
                ran.ran += 1;
                if r.outcome == Outcome::Succeeded {
                    ran.succeeded += 1;
                }
                let line = format!(
                    "{} × {}: {}{}",
                    r.task,
                    r.config,
                    r.outcome.as_str(),
                    r.failure_class
                        .as_ref()
                        .filter(|c| c.as_str() != r.outcome.as_str())
                        .map(|c| format!(" ({c})"))
                        .unwrap_or_default()
                );
                if bar.is_hidden() {
                    let _ = writeln!(
                        std::io::stderr().lock(),
                        "[{}/{}] {line}",
                        done_before + ran.ran,
                        total
                    );
                } else {
                    bar.set_message(line);
                }
                bar.inc(1);
            }
            Err(e) => {
                // Stop handing out work; finished pairs are journaled.
                if let Ok(mut q) = queue.lock() {
                    q.clear();
                }
                first_error.get_or_insert(e);
            }
        }
    }
    for w in workers {
        let _ = w.join();
    }
    bar.finish_and_clear();
    match first_error {
        Some(e) => Err(e),
        None => Ok(ran),
    }
}
