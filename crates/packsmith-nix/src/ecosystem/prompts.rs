//! The Nix backend's prompts: minijinja templates in `prompts/`, rendered
//! with plain serde values. A template error is our bug; it is shown in
//! the prompt text rather than crashing the run (and a test renders every
//! template).

use minijinja::Environment;
use serde::Serialize;

const TEMPLATES: &[(&str, &str)] = &[
    ("system", include_str!("prompts/system.j2")),
    ("draft", include_str!("prompts/draft.j2")),
    ("repair", include_str!("prompts/repair.j2")),
    ("progress", include_str!("prompts/progress.j2")),
    ("evaluate", include_str!("prompts/evaluate.j2")),
    ("optimize", include_str!("prompts/optimize.j2")),
    ("analysis", include_str!("prompts/analysis.j2")),
    ("project", include_str!("prompts/project.j2")),
];

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_keep_trailing_newline(true);
    packsmith_agent::untrusted::register(&mut env);
    for (name, text) in TEMPLATES {
        // A template that does not compile is reported when rendered.
        let _ = env.add_template(name, text);
    }
    env
}

/// Renders the template `name` with `ctx`.
pub fn render(name: &str, ctx: impl Serialize) -> String {
    let env = environment();
    let result = env
        .get_template(name)
        .and_then(|t| t.render(minijinja::Value::from_serialize(&ctx)));
    match result {
        Ok(text) => text.trim().to_string() + "\n",
        Err(e) => format!("(internal error: the prompt template `{name}` failed: {e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_template_renders_without_errors() {
        let ctx = json!({
            "tools": true, "name": "demo", "version": "1.0", "pin": "a local nixpkgs",
            "facts": "cmake project", "builder": "cmake", "draft": "{ }: { }",
            "failure": {"stage": "build", "class": "build_failure", "excerpt": "error: boom"},
            "attempt": 2, "recipe": "{ }: { }", "broken_log": true, "history": "#1 ...",
            "accepted": 1, "candidate": 2, "previous_at": 3, "new_at": 4, "truncated": true,
            "previous": "a", "new": "b",
            "runtime": {"note": "ran", "output": "demo 1.0"}, "feedback": "add meta",
            "failures": "#1 build", "guess": "other", "guess_reason": "nothing",
            "categories": [{"name": "other", "describe": "another reason"}],
            "readme": "# demo", "tree": "src/  CMakeLists.txt",
            "builders": [{"key": "cmake", "describe": "CMake"}],
        });
        for (name, _) in TEMPLATES {
            let text = render(name, &ctx);
            assert!(!text.contains("internal error"), "{name}: {text}");
            assert!(text.len() > 40, "{name}: {text}");
        }
        assert!(render("repair", &ctx).contains("error: boom"));
        assert!(render("system", &ctx).contains("search_nixpkgs"));
        assert!(!render("system", json!({"tools": false})).contains("search_nixpkgs"));
    }
}
