//! The Markdown report: one table per question.

use std::collections::BTreeSet;

use packsmith_nix::fidelity::SetScore;

use super::{Mean, Report};

fn pct(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn opt(x: Option<f64>, digits: usize) -> String {
    x.map_or("–".into(), |v| format!("{v:.digits$}"))
}

fn tokens(n: u64) -> String {
    if n >= 1_000_000 {
        format!("{:.2}M", n as f64 / 1e6)
    } else if n >= 10_000 {
        format!("{:.1}k", n as f64 / 1e3)
    } else {
        n.to_string()
    }
}

fn row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

/// A table's header and the separator line under it.
fn head_row(cells: &[String]) -> String {
    format!(
        "{}{}",
        row(cells),
        row(&vec!["---".to_string(); cells.len()])
    )
}

fn names(list: &[String]) -> String {
    if list.is_empty() {
        "–".into()
    } else {
        list.join(", ")
    }
}

/// Hermeticity and fidelity to the human recipes; empty when no pair was
/// checked or scored (Nix runs, runs without ground truth).
fn fidelity_section(r: &Report) -> String {
    let relevant = r.fidelity.iter().any(|c| {
        c.hermeticity_checked > 0 || c.dep_recall_n + c.dep_precision_n + c.variant_recall_n > 0
    });
    if !relevant {
        return String::new();
    }
    let mut s = String::from("\n## Fidelity to the human recipes (Spack)\n\n");
    let head = [
        "configuration",
        "n",
        "hermetic installs",
        "installed, not hermetic",
        "dependency recall",
        "dependency precision",
        "default configuration: dep. recall / precision",
        "variant recall",
        "test-only deps (human / generated / both)",
    ]
    .map(String::from);
    s.push_str(&head_row(&head));
    for c in &r.fidelity {
        let figure = |x: Option<f64>, n: usize| format!("{} (n={n})", opt(x, 3));
        s.push_str(&row(&[
            format!("`{}`", c.name),
            c.n.to_string(),
            format!(
                "{} of {} checked ({})",
                c.hermetic_installs,
                c.hermeticity_checked,
                pct(c.hermetic_installs as f64 / c.n.max(1) as f64)
            ),
            names(&c.installed_not_hermetic),
            figure(c.dep_recall, c.dep_recall_n),
            figure(c.dep_precision, c.dep_precision_n),
            format!(
                "{} / {}",
                figure(c.default_dep_recall, c.default_dep_recall_n),
                figure(c.default_dep_precision, c.default_dep_precision_n)
            ),
            figure(c.variant_recall, c.variant_recall_n),
            format!(
                "{} / {} / {}",
                c.test_deps_reference, c.test_deps_generated, c.test_deps_shared
            ),
        ]));
    }
    s.push_str(
        "\nHermetic installs: pairs that installed and whose install took nothing from outside \
         the concretized DAG (share of n). Dependency recall and precision count packages the \
         recipe links against or runs with (build-only and test-only ones apart; a provider \
         counts for its virtual; one package's version ranges must overlap), means over the \
         pairs where the human or the generated recipe, respectively, has any. Default \
         configuration: the same over the dependencies each recipe has with its own variant \
         defaults on Linux (what a plain `spack install` pulls in), opt-in features aside. \
         Variant recall: the human recipe's variants the generated recipe declares.\n\n",
    );
    let head = [
        "task",
        "configuration",
        "outcome",
        "hermeticity",
        "dep. recall",
        "dep. precision",
        "variant recall",
        "missing",
        "extra",
    ]
    .map(String::from);
    s.push_str(&head_row(&head));
    for t in &r.fidelity_tasks {
        s.push_str(&row(&[
            t.task.clone(),
            format!("`{}`", t.config),
            t.outcome.clone(),
            t.hermetic.as_str().to_string(),
            opt(t.dep_recall, 2),
            opt(t.dep_precision, 2),
            opt(t.variant_recall, 2),
            names(&t.deps_missing),
            names(&t.deps_extra),
        ]));
    }
    s
}

/// A mean with the number of pairs it is over.
fn mean_cell(m: &Mean, digits: usize) -> String {
    format!("{} (n={})", opt(m.value, digits), m.n)
}

fn scored_set(s: &SetScore) -> String {
    format!("{} / {}", opt(s.recall, 2), opt(s.precision, 2))
}

/// Closeness to nixpkgs' own expressions; empty when nothing was scored.
fn nix_fidelity_section(r: &Report) -> String {
    if r.nix_fidelity.iter().all(|c| c.scored == 0) {
        return String::new();
    }
    let mut s = String::from("\n## Fidelity to nixpkgs' expressions (Nix)\n\n");
    let head = [
        "configuration",
        "scored",
        "builder match",
        "fetcher match",
        "native inputs recall",
        "native inputs precision",
        "build inputs recall",
        "build inputs precision",
        "check inputs recall",
        "check inputs precision",
        "flags recall",
        "meta recall",
        "license match",
    ]
    .map(String::from);
    s.push_str(&head_row(&head));
    for c in r.nix_fidelity.iter().filter(|c| c.scored > 0) {
        s.push_str(&row(&[
            format!("`{}`", c.name),
            c.scored.to_string(),
            mean_cell(&c.builder_match, 3),
            mean_cell(&c.fetcher_match, 3),
            mean_cell(&c.native_recall, 3),
            mean_cell(&c.native_precision, 3),
            mean_cell(&c.build_recall, 3),
            mean_cell(&c.build_precision, 3),
            mean_cell(&c.check_recall, 3),
            mean_cell(&c.check_precision, 3),
            mean_cell(&c.flags_recall, 3),
            mean_cell(&c.meta_recall, 3),
            mean_cell(&c.license_match, 3),
        ]));
    }
    s.push_str(
        "\nEach figure is a mean over the pairs that have it (n): a recall needs the reference \
         to have the item kind, a precision needs the generated expression to have it. Builder: \
         the same builder family and, for `mkDerivation`, the same build system. Inputs compare \
         by their last attribute name. Native: `nativeBuildInputs` and `build-system`; build: \
         `buildInputs`, `propagatedBuildInputs` and `dependencies`; check: \
         `nativeCheckInputs` and `checkInputs`. Flags: the option names \
         `cmakeFlags`, `mesonFlags` and `configureFlags` set. Meta: description, homepage, \
         license, mainProgram, platforms and changelog.\n\n",
    );
    let head = [
        "task",
        "configuration",
        "builder (nixpkgs → generated)",
        "native R / P",
        "build R / P",
        "missing build inputs",
        "extra build inputs",
        "flags R",
        "meta R",
    ]
    .map(String::from);
    s.push_str(&head_row(&head));
    for t in &r.nix_fidelity_tasks {
        let f = &t.fidelity;
        s.push_str(&row(&[
            t.task.clone(),
            format!("`{}`", t.config),
            format!(
                "{} → {}{}",
                f.builder_reference.as_deref().unwrap_or("?"),
                f.builder_generated.as_deref().unwrap_or("?"),
                if f.builder_match { "" } else { " ✗" }
            ),
            scored_set(&f.native),
            scored_set(&f.build),
            names(&f.build.missing),
            names(&f.build.extra),
            opt(f.flags.recall, 2),
            opt(f.meta.recall, 2),
        ]));
    }
    s
}

/// Repair tasks by mutation class; empty when the run had none.
fn repair_section(r: &Report) -> String {
    let classes: BTreeSet<&String> = r
        .configurations
        .iter()
        .flat_map(|c| c.repair_classes.keys())
        .collect();
    if classes.is_empty() {
        return String::new();
    }
    let mut s = String::from("\n## Repairs by mutation class\n\n");
    s.push_str(
        "Repair tasks only: broken recipes the command made pass every stage it was asked for, \
         of those run (repaired@k for the whole set is the cumulative success above).\n\n",
    );
    let mut head = vec!["class".to_string()];
    head.extend(r.configurations.iter().map(|c| format!("`{}`", c.name)));
    s.push_str(&head_row(&head));
    for class in classes {
        let mut cells = vec![class.clone()];
        cells.extend(
            r.configurations
                .iter()
                .map(|c| match c.repair_classes.get(class) {
                    Some(x) => format!(
                        "{}/{} ({})",
                        x.repaired,
                        x.total,
                        pct(x.repaired as f64 / x.total.max(1) as f64)
                    ),
                    None => "–".into(),
                }),
        );
        s.push_str(&row(&cells));
    }
    s
}

/// Who made the passing recipes, per configuration: the draft, the rules,
/// or a model call on the way (the pairs the model turned into a success,
/// with what it spent on them). Empty when nothing succeeded.
fn who_made_it(r: &Report) -> String {
    if r.configurations.iter().all(|c| c.succeeded == 0) {
        return String::new();
    }
    let mut s = String::from("\n## Who made the passing recipe\n\n");
    s.push_str(&head_row(
        &[
            "configuration",
            "succeeded",
            "the draft",
            "rule repairs",
            "a model call on the way",
            "model calls / tokens / seconds on those",
        ]
        .map(String::from),
    ));
    for c in &r.configurations {
        let n = |k: &str| c.installed_by.get(k).copied().unwrap_or(0);
        let mut model = n("model").to_string();
        if !c.model_jobs.is_empty() {
            let jobs: Vec<String> = c
                .model_jobs
                .iter()
                .map(|(j, k)| format!("{j} {k}"))
                .collect();
            model.push_str(&format!(" (by job: {})", jobs.join(", ")));
        }
        if n("unknown") > 0 {
            model.push_str(&format!(" ({} not recorded)", n("unknown")));
        }
        s.push_str(&row(&[
            format!("`{}`", c.name),
            c.succeeded.to_string(),
            n("draft").to_string(),
            n("rules").to_string(),
            model,
            format!(
                "{} / {} / {:.0} s",
                c.model_path.model_calls,
                tokens(c.model_path.tokens),
                c.model_path.seconds
            ),
        ]));
    }
    s.push_str(
        "\nA model call on the way: some attempt the passing recipe descends from was made by \
         the model; without a model the run stops at the first failure the rules cannot repair, \
         so these are the pairs the model turned into a success.\n",
    );
    for c in r.configurations.iter().filter(|c| c.smoke_jobs.0 > 0) {
        s.push_str(&format!(
            "\n`{}`: on {} installs where nothing derived could be tested, the model was asked \
             for a smoke test; {} passed under `spack test run` and were written.\n",
            c.name, c.smoke_jobs.0, c.smoke_jobs.1
        ));
    }
    s
}

pub fn render(r: &Report, plot_png: &str) -> String {
    let mut s = String::from("# packsmith bench report\n\n");
    for run in &r.runs {
        s.push_str(&format!(
            "- `{}`: {} of {} pairs finished (configuration fingerprint `{}`)\n",
            run.dir.display(),
            run.pairs_done,
            run.pairs_planned,
            run.fingerprint
        ));
    }
    s.push_str("\n## Configurations\n\n");
    s.push_str("Knobs not listed keep the command's default.\n\n");
    for run in &r.runs {
        for c in &run.configurations {
            let knobs = serde_json::to_value(&c.knobs)
                .ok()
                .and_then(|v| v.as_object().cloned())
                .unwrap_or_default()
                .iter()
                .map(|(k, v)| format!("{k}={}", v.as_str().map_or(v.to_string(), str::to_string)))
                .collect::<Vec<_>>()
                .join(", ");
            s.push_str(&format!(
                "- `{}`{}: {}{}\n",
                c.name,
                c.baseline
                    .as_ref()
                    .map(|b| format!(" (baseline `{b}`)"))
                    .unwrap_or_default(),
                if knobs.is_empty() {
                    "defaults".into()
                } else {
                    knobs
                },
                run.timeout_secs
                    .map(|t| format!("; limit {t} s per task"))
                    .unwrap_or_default()
            ));
        }
    }
    // Stage columns: every stage name, in pipeline order (configurations
    // with the most stages first, so an optional stage keeps its place).
    let mut by_length: Vec<_> = r.configurations.iter().collect();
    by_length.sort_by_key(|c| std::cmp::Reverse(c.stage_rates.len()));
    let mut stages: Vec<String> = Vec::new();
    for c in by_length {
        for st in &c.stage_rates {
            if !stages.contains(&st.stage) {
                stages.push(st.stage.clone());
            }
        }
    }
    s.push_str("\n## Results per configuration\n\n");
    let mut head = vec!["configuration".to_string(), "n".into(), "success".into()];
    head.extend(stages.iter().map(|st| format!("{st} ✓")));
    head.extend(
        [
            "S_d",
            "S_v",
            "attempts to success",
            "tokens (prompt + completion)",
            "tokens / task",
            "cost $",
            "wall time / task",
            "timeouts",
            "crashed",
        ]
        .map(String::from),
    );
    s.push_str(&head_row(&head));
    for c in &r.configurations {
        let mut cells = vec![
            format!("`{}`", c.name),
            c.n.to_string(),
            format!("{} ({})", c.succeeded, pct(c.success_rate)),
        ];
        for st in &stages {
            cells.push(
                c.stage_rates
                    .iter()
                    .find(|x| &x.stage == st)
                    .map_or("–".into(), |x| pct(x.rate)),
            );
        }
        cells.push(opt(c.mean_s_d, 3));
        cells.push(opt(c.mean_s_v, 3));
        cells.push(opt(c.mean_attempts_to_success, 2));
        cells.push(format!(
            "{} + {}",
            tokens(c.prompt_tokens),
            tokens(c.completion_tokens)
        ));
        cells.push(tokens(c.mean_tokens.round() as u64));
        cells.push(format!("{:.4}", c.cost_usd));
        cells.push(format!("{:.1} s", c.mean_wall_s));
        cells.push(c.timeouts.to_string());
        cells.push(c.crashed.to_string());
        s.push_str(&row(&cells));
    }
    s.push_str(
        "\nStage columns: share of the tasks of the stage's ecosystem where some attempt passed \
         it. S_d and S_v (Spack): \
         means over the recipes that could be scored (the passing recipe, else the best \
         attempt). Tokens count every model call.\n",
    );

    s.push_str(&who_made_it(r));

    s.push_str("\n## Cumulative success by attempt\n\n");
    s.push_str(&format!("![cumulative success by attempt]({plot_png})\n\n"));
    let k = r
        .configurations
        .iter()
        .map(|c| c.cumulative_success.len())
        .max()
        .unwrap_or(0);
    let mut head = vec!["configuration".to_string()];
    head.extend((1..=k).map(|i| format!("≤{i}")));
    s.push_str(&head_row(&head));
    for c in &r.configurations {
        let mut cells = vec![format!("`{}`", c.name)];
        cells.extend((0..k).map(|i| c.cumulative_success.get(i).map_or("–".into(), |&x| pct(x))));
        s.push_str(&row(&cells));
    }

    s.push_str("\n## Failure classes\n\n");
    let classes: BTreeSet<&String> = r
        .configurations
        .iter()
        .flat_map(|c| c.failure_classes.keys())
        .collect();
    if classes.is_empty() {
        s.push_str("No failures.\n");
    } else {
        let mut head = vec!["class".to_string()];
        head.extend(r.configurations.iter().map(|c| format!("`{}`", c.name)));
        s.push_str(&head_row(&head));
        for class in classes {
            let mut cells = vec![class.clone()];
            cells.extend(r.configurations.iter().map(|c| {
                c.failure_classes
                    .get(class)
                    .copied()
                    .unwrap_or(0)
                    .to_string()
            }));
            s.push_str(&row(&cells));
        }
    }

    s.push_str(&repair_section(r));
    s.push_str(&fidelity_section(r));
    s.push_str(&nix_fidelity_section(r));

    s.push_str("\n## Paired comparisons\n\n");
    if r.paired.is_empty() {
        s.push_str("Fewer than two configurations share a task.\n");
    } else {
        s.push_str(
            "On the tasks both configurations ran. A wins: A succeeded and B did not. \
             p: McNemar's exact two-sided test on the discordant tasks.\n\n",
        );
        s.push_str(&head_row(
            &[
                "A", "B", "tasks", "both", "A wins", "B wins", "neither", "p",
            ]
            .map(String::from),
        ));
        for p in &r.paired {
            s.push_str(&row(&[
                format!("`{}`", p.a),
                format!("`{}`", p.b),
                p.tasks.to_string(),
                p.both.to_string(),
                p.a_wins.to_string(),
                p.b_wins.to_string(),
                p.neither.to_string(),
                format!("{:.4}", p.p_value),
            ]));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{ModelPath, Outcome};
    use crate::report::testing::pair;
    use crate::report::{config_stats, Report};

    #[test]
    fn the_passing_recipes_are_credited_per_configuration() {
        let mut by_draft = pair("a", Outcome::Succeeded, Some(1));
        by_draft.installed_by = Some("draft".into());
        let mut by_model = pair("b", Outcome::Succeeded, Some(3));
        by_model.installed_by = Some("model".into());
        by_model.model_path = Some(ModelPath {
            model_calls: 2,
            tokens: 1500,
            seconds: 42.0,
            jobs: vec!["pick_package".into()],
        });
        let mut old = pair("c", Outcome::Succeeded, Some(2));
        old.smoke_job = Some(serde_json::json!({"written": true}));
        let mut failed = pair("d", Outcome::Failed, None);
        failed.smoke_job = Some(serde_json::json!({"written": false}));
        by_draft.smoke_job = Some(serde_json::json!({"written": false}));
        let stats = config_stats("c", &[&by_draft, &by_model, &old, &failed], 3);
        assert_eq!(stats.smoke_jobs, (2, 1));
        assert_eq!(stats.installed_by.get("model"), Some(&1));
        assert_eq!(stats.installed_by.get("unknown"), Some(&1));
        let report = Report {
            runs: Vec::new(),
            configurations: vec![stats],
            paired: Vec::new(),
            fidelity: Vec::new(),
            fidelity_tasks: Vec::new(),
            nix_fidelity: Vec::new(),
            nix_fidelity_tasks: Vec::new(),
        };
        let table = who_made_it(&report);
        assert!(table.contains("## Who made the passing recipe"), "{table}");
        assert!(
            table
                .contains("| `c` | 3 | 1 | 0 | 1 (by job: pick_package 1) (1 not recorded) | 2 / "),
            "{table}"
        );
        assert!(table.contains(" / 42 s |"), "{table}");
        assert!(
            table.contains("`c`: on 2 installs where nothing derived could be tested, the model was asked for a smoke test; 1 passed"),
            "{table}"
        );
    }
}
