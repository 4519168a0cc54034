//! The embedded provider's side of `benches/llm_local_vs_llamacpp_python.py`
//! (which runs this and llama-cpp-python in one run and writes the table).
//! Prints one JSON object on stdout.
//!
//!   cargo build --release -p packsmith-llm --features local --bench llm_local_vs_llamacpp_python
//!   target/release/deps/llm_local_vs_llamacpp_python-* speed MODEL.gguf --threads 2 \
//!       --max-tokens 64 --reps 3 --prompt-out /tmp/prompt.txt
//!   target/release/deps/llm_local_vs_llamacpp_python-* repair MODEL.gguf --threads 2 --attempts 5
//!   target/release/deps/llm_local_vs_llamacpp_python-* batch MODEL.gguf --threads 2 --batches 512,128
//!
//! (`--profile dev` instead of `--release` builds against the llama.cpp that
//! the tests use, at opt-level 3, without a second llama.cpp build.)
//!
//! (`cargo bench` works too, but its profile may rebuild llama.cpp.)
//!
//! `speed`: prompt processing and generation tokens/s on a ~500-token
//! packaging prompt, greedy, the KV cache cleared before each repetition;
//! writes the exact templated prompt to `--prompt-out` so the other side
//! evaluates the same tokens. `repair`: a 5-attempt repair conversation
//! (each attempt appends a failure excerpt and the model's answer), timed
//! with prefix reuse and with the cache cleared before every call. `batch`:
//! for each prompt batch size in `--batches`, in alternating rounds, the
//! prompt speed and how long a call takes to stop once it is cancelled
//! during prompt evaluation (the flag is checked between batches, so the
//! batch size bounds how long Ctrl-C waits).
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use packsmith_exec::CancelToken;

use packsmith_llm::local::{LocalModel, LocalOptions, LocalStats};
use packsmith_llm::{ChatMessage, ChatRequest, LlmError};
use serde_json::{json, Value};

const SYSTEM: &str = "You are an expert Spack packager. You write package.py recipes for Spack \
from the build files of a source repository. Use the CMakePackage base class for CMake \
projects, declare every variant that maps to a CMake option, declare dependencies with the \
right types, and keep the recipe minimal and correct.";

const CMAKE: &str = r#"cmake_minimum_required(VERSION 3.16)
project(libfoo VERSION 2.4.1 LANGUAGES C CXX)

option(FOO_ENABLE_MPI "Build with MPI support" OFF)
option(FOO_ENABLE_OPENMP "Build with OpenMP threading" ON)
option(FOO_ENABLE_HDF5 "Write output files with HDF5" OFF)
option(FOO_BUILD_TESTS "Build the unit tests" OFF)
option(BUILD_SHARED_LIBS "Build shared libraries" ON)

find_package(ZLIB REQUIRED)
find_package(BLAS REQUIRED)
find_package(LAPACK REQUIRED)
if(FOO_ENABLE_MPI)
  find_package(MPI REQUIRED COMPONENTS C CXX)
endif()
if(FOO_ENABLE_OPENMP)
  find_package(OpenMP REQUIRED)
endif()
if(FOO_ENABLE_HDF5)
  find_package(HDF5 REQUIRED COMPONENTS C HL)
endif()

add_library(foo src/solver.cpp src/io.cpp src/grid.cpp src/util.c)
target_include_directories(foo PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                      $<INSTALL_INTERFACE:include>)
target_link_libraries(foo PUBLIC ZLIB::ZLIB BLAS::BLAS LAPACK::LAPACK)
if(FOO_ENABLE_MPI)
  target_link_libraries(foo PUBLIC MPI::MPI_CXX)
  target_compile_definitions(foo PUBLIC FOO_HAVE_MPI)
endif()
if(FOO_ENABLE_OPENMP)
  target_link_libraries(foo PUBLIC OpenMP::OpenMP_CXX)
endif()
if(FOO_ENABLE_HDF5)
  target_link_libraries(foo PRIVATE hdf5::hdf5 hdf5::hdf5_hl)
endif()

add_executable(foo-run apps/run.cpp)
target_link_libraries(foo-run PRIVATE foo)

install(TARGETS foo foo-run EXPORT fooTargets)
install(DIRECTORY include/ DESTINATION include)
if(FOO_BUILD_TESTS)
  enable_testing()
  add_subdirectory(tests)
endif()"#;

const FAILURES: [&str; 5] = [
    "==> Error: ProcessError: Command exited with status 1:\n'cmake' '-DFOO_ENABLE_MPI=ON' ...\nCMake Error at CMakeLists.txt:15 (find_package):\n  Could NOT find MPI (missing: MPI_C_FOUND MPI_CXX_FOUND)",
    "==> Error: concretization failed: variant 'hdf5' of package 'libfoo' has no default value\n  in package.py line 21: variant('hdf5')",
    "src/io.cpp:12:10: fatal error: hdf5_hl.h: No such file or directory\n   12 | #include <hdf5_hl.h>\ncompilation terminated.\nmake[2]: *** [CMakeFiles/foo.dir/build.make:90: CMakeFiles/foo.dir/src/io.cpp.o] Error 1",
    "/usr/bin/ld: CMakeFiles/foo.dir/src/solver.cpp.o: undefined reference to symbol 'dgemm_'\n/usr/bin/ld: libopenblas.so.0: error adding symbols: DSO missing from command line\ncollect2: error: ld returned 1 exit status",
    "==> Error: package.py:30: depends_on('mpi', when='+mpi') is declared twice with different types\nhint: merge the two directives",
];

fn first_request() -> ChatRequest {
    ChatRequest::new(
        Some(SYSTEM.into()),
        vec![ChatMessage::user(format!(
            "Write the Spack package.py for libfoo 2.4.1 (https://example.org/libfoo-2.4.1.tar.gz, \
             sha256 0f3c6b2f5a7d9e1b4c8a2f6e0d3b7a9c1e5f8d2b4a6c0e9f7d1b3a5c8e2f4d6b). \
             It is a CMake project; here is its CMakeLists.txt:\n\n```cmake\n{CMAKE}\n```\n\n\
             Map every option() to a variant with the same default, add depends_on for zlib, blas, \
             lapack, mpi (when +mpi) and hdf5+hl (when +hdf5), and pass the variants to CMake in \
             cmake_args with self.define_from_variant. Answer with the complete package.py only."
        ))],
    )
}

fn vm_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

fn stats_json(s: &LocalStats) -> Value {
    json!({
        "prompt_tokens": s.prompt_tokens,
        "cached_tokens": s.cached_tokens,
        "evaluated_prompt_tokens": s.evaluated_prompt_tokens,
        "prompt_ms": s.prompt_ms,
        "completion_tokens": s.completion_tokens,
        "generation_ms": s.generation_ms,
        "prompt_tps_wall": s.prompt_tokens_per_s(),
        "gen_tps_wall": s.generation_tokens_per_s(),
        "llama_prompt_ms": s.llama_prompt_ms,
        "llama_prompt_tokens": s.llama_prompt_tokens,
        "llama_eval_ms": s.llama_eval_ms,
        "llama_eval_tokens": s.llama_eval_tokens,
    })
}

struct Args {
    mode: String,
    model: PathBuf,
    threads: usize,
    max_tokens: u32,
    reps: usize,
    attempts: usize,
    prompt_out: Option<PathBuf>,
    batches: Vec<u32>,
}

fn parse_args() -> Args {
    // `cargo bench` adds `--bench`; ignore flags this program does not know.
    let raw: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut positional = Vec::new();
    let mut args = Args {
        mode: String::new(),
        model: PathBuf::new(),
        threads: 2,
        max_tokens: 64,
        reps: 3,
        attempts: 5,
        prompt_out: None,
        batches: vec![512, 128],
    };
    let mut it = raw.into_iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().expect("flag needs a value");
        match a.as_str() {
            "--threads" => args.threads = value().parse().expect("--threads N"),
            "--max-tokens" => args.max_tokens = value().parse().expect("--max-tokens N"),
            "--reps" => args.reps = value().parse().expect("--reps N"),
            "--attempts" => args.attempts = value().parse().expect("--attempts N"),
            "--prompt-out" => args.prompt_out = Some(value().into()),
            "--batches" => {
                args.batches = value()
                    .split(',')
                    .map(|b| b.trim().parse().expect("--batches N,M"))
                    .collect()
            }
            _ => positional.push(a),
        }
    }
    if positional.len() != 2 {
        eprintln!("usage: llm_local_vs_llamacpp_python (speed|repair|batch) MODEL.gguf [--threads N] [--max-tokens N] [--reps N] [--attempts N] [--prompt-out FILE] [--batches N,M]");
        std::process::exit(2);
    }
    args.mode = positional[0].clone();
    args.model = positional[1].clone().into();
    args
}

fn main() {
    let args = parse_args();
    if args.mode == "batch" {
        println!("{}", batch(&args));
        return;
    }
    let load_started = Instant::now();
    let model = load(
        &args.model,
        args.threads,
        LocalOptions::default().batch_size,
    );
    let load_ms = load_started.elapsed().as_secs_f64() * 1000.0;
    let out = match args.mode.as_str() {
        "speed" => speed(&model, &args),
        "repair" => repair(&model, &args),
        other => {
            eprintln!("unknown mode {other}");
            std::process::exit(2)
        }
    };
    let mut out = out;
    out["engine"] = json!("packsmith (llama-cpp-2 0.1.160)");
    out["threads"] = json!(model.threads());
    out["load_ms"] = json!(load_ms);
    out["vm_hwm_kib"] = json!(vm_kib("VmHWM:"));
    out["vm_rss_kib"] = json!(vm_kib("VmRSS:"));
    println!("{out}");
}

fn speed(model: &LocalModel, args: &Args) -> Value {
    let mut request = first_request();
    request.max_tokens = Some(args.max_tokens);
    request.temperature = Some(0.0);
    let (prompt, n_tokens) = model.render_prompt(&request).unwrap();
    if let Some(path) = &args.prompt_out {
        std::fs::write(path, &prompt).unwrap();
    }
    let mut runs = Vec::new();
    let mut text = String::new();
    for _ in 0..args.reps {
        model.clear_cache().unwrap();
        let (response, stats) = model.complete_with_stats(&request).unwrap();
        text = response.content;
        runs.push(stats_json(&stats));
    }
    json!({"mode": "speed", "prompt_tokens": n_tokens, "runs": runs, "text": text})
}

fn repair(model: &LocalModel, args: &Args) -> Value {
    let mut modes = serde_json::Map::new();
    for reuse in [true, false] {
        let mut request = first_request();
        request.max_tokens = Some(args.max_tokens);
        request.temperature = Some(0.0);
        model.clear_cache().unwrap();
        let started = Instant::now();
        let mut calls = Vec::new();
        for attempt in 0..args.attempts {
            if !reuse {
                model.clear_cache().unwrap();
            }
            let (response, stats) = model.complete_with_stats(&request).unwrap();
            calls.push(stats_json(&stats));
            request
                .messages
                .push(ChatMessage::assistant(response.content));
            let failure = FAILURES[attempt % FAILURES.len()];
            request.messages.push(ChatMessage::user(format!(
                "Attempt {} failed. Excerpt of the log:\n```\n{failure}\n```\nFix the recipe and answer with the complete package.py.",
                attempt + 1
            )));
        }
        let total_ms = started.elapsed().as_secs_f64() * 1000.0;
        modes.insert(
            if reuse { "reuse" } else { "no_reuse" }.to_string(),
            json!({"total_ms": total_ms, "calls": calls}),
        );
    }
    json!({"mode": "repair", "attempts": args.attempts, "results": modes})
}

/// Loads the model for one conversation of 4,096 tokens, with prompt
/// batches of `batch_size` tokens; exits when it cannot.
fn load(path: &Path, threads: usize, batch_size: u32) -> LocalModel {
    LocalModel::load(
        path,
        LocalOptions {
            threads: Some(threads),
            context_size: Some(4096),
            max_conversations: 1,
            batch_size,
            ..LocalOptions::default()
        },
    )
    .unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    })
}

/// Moments into a call's prompt evaluation at which the flag is set: spread
/// over the first seconds, where a ~650-token prompt is still being read.
const CANCEL_DELAYS_MS: [u64; 5] = [250, 900, 1700, 2600, 3600];

/// Prompt speed and cancel latency per batch size, alternating rounds.
fn batch(args: &Args) -> Value {
    let flag = Arc::new(AtomicBool::new(false));
    let mut request = first_request();
    request.max_tokens = Some(args.max_tokens);
    request.temperature = Some(0.0);
    let mut per_batch: Vec<(u32, Vec<f64>, Vec<f64>)> = args
        .batches
        .iter()
        .map(|&b| (b, Vec::new(), Vec::new()))
        .collect();
    let mut prompt_tokens = 0;
    for _round in 0..args.reps {
        for (batch_size, speeds, latencies) in &mut per_batch {
            let model = load(&args.model, args.threads, *batch_size)
                .cancelled_by(CancelToken::from_flag(flag.clone()));
            flag.store(false, Ordering::SeqCst);
            model.clear_cache().unwrap();
            let (_, stats) = model.complete_with_stats(&request).unwrap();
            prompt_tokens = stats.evaluated_prompt_tokens;
            speeds.push(stats.prompt_tokens_per_s());
            for delay in CANCEL_DELAYS_MS {
                model.clear_cache().unwrap();
                flag.store(false, Ordering::SeqCst);
                let setter = {
                    let flag = flag.clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(delay));
                        flag.store(true, Ordering::SeqCst);
                        Instant::now()
                    })
                };
                let result = model.complete_with_stats(&request);
                let returned = Instant::now();
                let set_at = setter.join().unwrap();
                match result {
                    Err(LlmError::Cancelled) => {
                        latencies.push(returned.saturating_duration_since(set_at).as_secs_f64())
                    }
                    other => eprintln!(
                        "batch {batch_size}: the call set to stop after {delay} ms was not cancelled: {:?}",
                        other.map(|(_, s)| s.prompt_ms)
                    ),
                }
            }
        }
    }
    let rows: Vec<Value> = per_batch
        .iter()
        .map(|(b, speeds, latencies)| {
            json!({
                "batch_size": b,
                "prompt_tps": speeds,
                "prompt_tps_median": median(speeds),
                "cancel_latency_s": latencies,
                "cancel_latency_median_s": median(latencies),
                "cancel_latency_max_s": latencies.iter().cloned().fold(0.0, f64::max),
            })
        })
        .collect();
    json!({"mode": "batch", "threads": args.threads, "prompt_tokens": prompt_tokens,
           "rounds": args.reps, "cancel_delays_ms": CANCEL_DELAYS_MS, "batches": rows})
}

fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}
