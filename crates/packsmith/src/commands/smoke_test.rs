//! `packsmith smoke-test PREFIX`: the model's smoke-test job on a prefix
//! Spack installed, alone: one check asked for, proved on the prefix in a
//! sandbox (the program exits 0 at once; the module imports from the
//! prefix and not without it), and printed with what it cost.

use std::path::Path;

use packsmith_exec::sandbox::{Sandbox, SandboxPolicy};
use packsmith_spack::jobs::smoke_test::{self, CheckSite, SmokeAnswer, SmokeChoice, SmokeQuestion};
use packsmith_spack::validate::smoke::installed_spec;

use crate::cli::SmokeTestArgs;
use crate::commands::optional_model::load_optional_model;
use crate::exit::{CliError, Exit};
use crate::model_config::llm_error;
use crate::progress::{emit, json};

/// `<name>-<version>-<hash>`, Spack's default projection, as name and
/// version (the name is what precedes the last two dashes).
fn name_and_version(prefix: &Path) -> Option<(String, String)> {
    let base = prefix.file_name()?.to_str()?;
    let name = base.rsplitn(3, '-').nth(2)?;
    let spec = installed_spec(prefix, name)?;
    Some((name.to_string(), spec.version))
}

pub fn run(a: &SmokeTestArgs) -> Result<Exit, CliError> {
    let bad = |what: String| {
        CliError::new(Exit::BadInput, what)
            .hint("pass the prefix `spack location -i <spec>` prints")
    };
    if !a.prefix.join(".spack").is_dir() {
        return Err(bad(format!(
            "{} is no Spack install prefix (it has no .spack/)",
            a.prefix.display()
        )));
    }
    let Some((package, version)) = name_and_version(&a.prefix) else {
        return Err(bad(format!(
            "{} is not named <package>-<version>-<hash>",
            a.prefix.display()
        )));
    };
    let (model, configured) = load_optional_model(a.model.as_deref())?;
    if !configured {
        return Err(CliError::new(Exit::BadInput, "no model is configured")
            .hint("pass --model (e.g. local:qwen2.5-coder-1.5b) or set PACKSMITH_MODEL"));
    }
    let scratch = tempfile::tempdir().map_err(|e| {
        CliError::new(
            Exit::Environment,
            format!("cannot make a scratch directory: {e}"),
        )
    })?;
    // The host's home hidden (keys, tokens), the install tree (the
    // prefix and the prefixes it links, Spack's `opt/<arch>/<compiler>/`
    // projection) visible again.
    let tree = a.prefix.ancestors().nth(3).unwrap_or(&a.prefix);
    let policy = SandboxPolicy {
        hidden: std::env::var_os("HOME")
            .map(Into::into)
            .into_iter()
            .collect(),
        read_only: vec![tree.to_path_buf()],
        writable: vec![scratch.path().to_path_buf()],
        home: scratch.path().join("home"),
        network: false,
        max_processes: Some(256),
        max_file_size: Some(256 << 20),
        ..SandboxPolicy::default()
    };
    let sandbox = Sandbox::new(policy, a.no_sandbox).map_err(|e| {
        CliError::new(Exit::Environment, format!("no sandbox: {e}"))
            .hint("install bubblewrap, or pass --no-sandbox to run the check with your rights")
    })?;
    let python = smoke_test::python_for(&a.prefix);
    let readme = a.source.as_deref().and_then(smoke_test::readme);
    let question = SmokeQuestion {
        package: &package,
        version: &version,
        prefix: &a.prefix,
        tried: &[],
        readme: readme.as_deref(),
    };
    let site = CheckSite {
        python: &python,
        sandbox: &sandbox,
        scratch: scratch.path(),
    };
    let answer = smoke_test::write_smoke_test(model.as_ref(), &question, &site).map_err(|e| {
        llm_error(Exit::Environment, &e).hint("`packsmith doctor` shows which models are usable")
    })?;
    if a.json {
        json(&answer)?;
    } else {
        emit(&render(&package, &answer));
    }
    Ok(if answer.test.is_some() {
        Exit::Success
    } else {
        Exit::Failure
    })
}

fn render(package: &str, a: &SmokeAnswer) -> String {
    let mut t = format!(
        "{package}: the model answered {} ({} tokens in, {} out, {:.1} s)\n",
        a.answer, a.usage.prompt_tokens, a.usage.completion_tokens, a.seconds
    );
    for line in &a.checked {
        t.push_str(&format!("  {line}\n"));
    }
    match (&a.choice, &a.refused, &a.test) {
        (_, Some(why), _) => t.push_str(&format!("refused: {why}\n")),
        (Some(SmokeChoice::Run { program, arg }), _, Some(_)) => {
            t.push_str(&format!("smoke test: run bin/{program} {arg}\n"));
        }
        (Some(SmokeChoice::Import { module }), _, Some(_)) => {
            t.push_str(&format!("smoke test: import {module}\n"));
        }
        _ => t.push_str("no smoke test: the model answered none\n"),
    }
    t
}
