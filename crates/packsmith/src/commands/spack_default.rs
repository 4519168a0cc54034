//! Which set-up of `packsmith setup spack` is the default Spack: the one the
//! user's `packsmith.toml` names under `[spack] env` (written by the last
//! set-up, so a `--prefix` outside the cache is found too), else the
//! cache's own `spack/env.sh`. `packsmith spack` (and so `bench`) and
//! `packsmith doctor` read it; `--spack` overrides it.

use std::path::{Path, PathBuf};

use packsmith_llm::config::{process_env, user_config_path};

use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};

const TABLE: &str = "spack";
const KEY: &str = "env";

/// The set-up's directory under the packsmith cache.
pub fn default_prefix() -> PathBuf {
    cache_dir().join("spack")
}

/// The user-level packsmith.toml (`$PACKSMITH_CONFIG` or the config dir).
pub fn user_config() -> Option<PathBuf> {
    user_config_path(&process_env)
}

/// The env file of the default set-up, if there is one. A recorded entry
/// whose file is gone is an error: falling back to another Spack would
/// validate with one the user did not choose.
pub fn default_env_file() -> Result<Option<PathBuf>, CliError> {
    if let Some(config) = user_config() {
        if let Some(env) = recorded_env(&config)? {
            if env.is_file() {
                return Ok(Some(env));
            }
            return Err(CliError::new(
                Exit::Environment,
                format!(
                    "{} names the Spack set-up {} ([{TABLE}] {KEY}), which does not exist",
                    config.display(),
                    env.display()
                ),
            )
            .hint(format!(
                "rerun `packsmith setup spack --from <checkout>`, pass --spack, or remove the \
                 [{TABLE}] table from {}",
                config.display()
            )));
        }
    }
    Ok(Some(default_prefix().join("env.sh")).filter(|p| p.is_file()))
}

/// `[spack] env` of `config`; a missing file or entry is None.
pub fn recorded_env(config: &Path) -> Result<Option<PathBuf>, CliError> {
    let Some(doc) = read_document(config)? else {
        return Ok(None);
    };
    let Some(item) = doc.get(TABLE).and_then(|t| t.get(KEY)) else {
        return Ok(None);
    };
    match item.as_str() {
        Some(path) if !path.is_empty() => Ok(Some(PathBuf::from(path))),
        _ => Err(CliError::new(
            Exit::BadInput,
            format!(
                "{}: [{TABLE}] {KEY} must be the path of an env.sh (a string)",
                config.display()
            ),
        )
        .hint("rerun `packsmith setup spack`, which writes it")),
    }
}

/// Records `env_file` as the default set-up in `config`, keeping every
/// other line (comments included); written to a temp file and renamed, with
/// the old file's permissions (it may hold API keys).
pub fn record_env(config: &Path, env_file: &Path) -> Result<(), CliError> {
    let cannot = |e: &dyn std::fmt::Display| {
        CliError::new(
            Exit::Environment,
            format!(
                "cannot record the set-up in {}: {e}",
                config.display()
            ),
        )
        .hint("pass --spack <env.sh> to `packsmith spack`, or set PACKSMITH_CONFIG to a writable file")
    };
    let value = env_file
        .to_str()
        .ok_or_else(|| cannot(&"the env file's path is not UTF-8"))?;
    let mut doc = read_document(config)?.unwrap_or_default();
    if !doc.contains_table(TABLE) {
        doc.insert(TABLE, toml_edit::Item::Table(toml_edit::Table::new()));
    }
    doc[TABLE][KEY] = toml_edit::value(value);
    let dir = config.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| cannot(&e))?;
    let tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| cannot(&e))?;
    std::fs::write(tmp.path(), doc.to_string()).map_err(|e| cannot(&e))?;
    if let Ok(meta) = std::fs::metadata(config) {
        std::fs::set_permissions(tmp.path(), meta.permissions()).map_err(|e| cannot(&e))?;
    }
    tmp.persist(config).map_err(|e| cannot(&e.error))?;
    Ok(())
}

fn read_document(config: &Path) -> Result<Option<toml_edit::DocumentMut>, CliError> {
    let text = match std::fs::read_to_string(config) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(CliError::new(
                Exit::BadInput,
                format!("cannot read {}: {e}", config.display()),
            ))
        }
    };
    text.parse::<toml_edit::DocumentMut>()
        .map(Some)
        .map_err(|e| {
            CliError::new(
                Exit::BadInput,
                format!("{} is not valid TOML: {e}", config.display()),
            )
            .hint("fix the file, or set PACKSMITH_CONFIG to another one")
        })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn recording_keeps_the_rest_of_the_file_and_replaces_an_old_entry() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("sub/packsmith.toml");
        assert_eq!(recorded_env(&config).unwrap(), None);
        record_env(&config, Path::new("/a/env.sh")).unwrap();
        assert_eq!(
            recorded_env(&config).unwrap(),
            Some(PathBuf::from("/a/env.sh"))
        );
        std::fs::write(
            &config,
            "# my settings\n[llm]\nmodel = \"openai:gpt\" # keep\n\n[spack]\nenv = \"/a/env.sh\"\n",
        )
        .unwrap();
        record_env(&config, Path::new("/b/env.sh")).unwrap();
        let text = std::fs::read_to_string(&config).unwrap();
        assert!(
            text.contains("# my settings") && text.contains("model = \"openai:gpt\" # keep"),
            "{text}"
        );
        assert!(
            text.contains("env = \"/b/env.sh\"") && !text.contains("/a/env.sh"),
            "{text}"
        );
        let left: Vec<_> = std::fs::read_dir(config.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 1, "no temp file is left: {left:?}");
    }

    #[test]
    fn a_bad_entry_or_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("packsmith.toml");
        std::fs::write(&config, "[spack]\nenv = 3\n").unwrap();
        let e = recorded_env(&config).unwrap_err();
        assert!(
            e.message.contains("packsmith.toml") && e.message.contains("env"),
            "{}",
            e.message
        );
        std::fs::write(&config, "[spack\n").unwrap();
        let e = record_env(&config, Path::new("/x/env.sh")).unwrap_err();
        assert!(e.message.contains("not valid TOML"), "{}", e.message);
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "[spack\n");
    }
}
