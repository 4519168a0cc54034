//! `packsmith serve --model local:… [--port 8080] [--host 127.0.0.1]`: one
//! loaded model behind an OpenAI-compatible endpoint, so parallel workers
//! (benchmarks, several packsmith runs) share it. Loopback by default; a
//! non-loopback `--host` is honoured with a warning.

use std::io::Write;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;

use packsmith_llm::serve::Server;
use packsmith_llm::{build_provider, redact, ChatModel, Metered, ModelSpec};

use crate::cli::ServeArgs;
use crate::exit::{CliError, Exit};
use crate::model_config::{llm_error, load_config};

pub fn run(args: &ServeArgs) -> Result<Exit, CliError> {
    let ip = bind_ip(args.host.as_deref())?;
    let mut stderr = std::io::stderr().lock();
    if !ip.is_loopback() {
        let _ = writeln!(
            stderr,
            "warning: listening on {ip}: anyone who can reach this machine can use the model \
             (there is no authentication)"
        );
    }
    let config = load_config()?;
    let text = args.model.clone().or_else(|| config.model.clone()).ok_or_else(|| {
        CliError::new(Exit::BadInput, "no model to serve")
            .hint("pass --model local:qwen2.5-coder-1.5b (or any provider:name), or set PACKSMITH_MODEL")
    })?;
    let spec: ModelSpec = text.parse().map_err(|e| llm_error(Exit::BadInput, &e))?;
    let _ = writeln!(stderr, "loading {spec} …");
    drop(stderr);
    // No budget or replay cache here: the clients keep their own accounts.
    let provider = build_provider(&spec, &config).map_err(|e| llm_error(Exit::Environment, &e))?;
    let model: Arc<dyn ChatModel> = Arc::new(Metered::new(provider, config.prices.clone()));
    let server = Server::bind(
        SocketAddr::new(ip, args.port),
        model,
        usize::from(args.parallel),
    )
    .map_err(|e| {
        CliError::new(Exit::Environment, redact(&e.to_string()))
            .hint("pick another --port, or stop what is listening there")
    })?;
    let url = format!("http://{}/v1", server.local_addr());
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "serving {} at {url}", server.service().model_name());
    let _ = writeln!(
        out,
        "use it with --model openai-compat:{}@{url}; stop with Ctrl-C",
        server.service().model_name().trim_start_matches("local:")
    );
    let _ = out.flush();
    drop(out);
    server.run(&|line| {
        let _ = writeln!(std::io::stderr().lock(), "{line}");
    });
    Ok(Exit::Success)
}

/// `--host` as an address: loopback when absent; `localhost` is loopback.
fn bind_ip(host: Option<&str>) -> Result<IpAddr, CliError> {
    match host {
        None => Ok(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        Some("localhost") => Ok(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        Some(h) => h.trim_matches(['[', ']']).parse().map_err(|_| {
            CliError::new(Exit::BadInput, format!("--host `{h}` is not an IP address"))
                .hint("use 127.0.0.1 (the default), ::1, or the address of one interface")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        assert!(bind_ip(None).unwrap().is_loopback());
        assert!(bind_ip(Some("localhost")).unwrap().is_loopback());
        assert!(bind_ip(Some("[::1]")).unwrap().is_loopback());
        assert!(!bind_ip(Some("0.0.0.0")).unwrap().is_loopback());
        assert!(bind_ip(Some("example.org")).is_err());
    }

    #[test]
    fn the_hint_comes_from_the_error() {
        let e = llm_error(
            Exit::BadInput,
            &packsmith_llm::LlmError::Config("bad\nhint: fix it".into()),
        );
        assert_eq!(e.message, "bad");
        assert_eq!(e.hint.as_deref(), Some("fix it"));
    }
}
