//! `packsmith kb index|stats|show|search|similar` (`embed`: embed.rs; `pick`: pick.rs; what they share: output.rs).

mod embed;
mod output;
mod pick;

use crate::target_arg::spack_version;
use output::{emit, json, load_facts, open, render_matches};

use std::time::Instant;

use packsmith_spack_knowledge::kb::{index_repo, IndexOptions, TagList};
use packsmith_spack_knowledge::retrieve::{RetrieveOptions, Retriever, Strategy};

use crate::cli::{
    KbArgs, KbCommand, KbIndexArgs, KbSearchArgs, KbSelect, KbShowArgs, KbSimilarArgs,
};
use crate::env_vars::cache_dir;
use crate::exit::{CliError, Exit};

pub fn run(args: &KbArgs) -> Result<Exit, CliError> {
    match &args.command {
        KbCommand::Index(a) => index(a),
        KbCommand::Stats(a) => stats(a),
        KbCommand::Show(a) => show(a),
        KbCommand::Search(a) => search(a),
        KbCommand::Similar(a) => similar(a),
        KbCommand::Pick(a) => pick::pick(a),
        KbCommand::Embed(a) => embed::embed(a),
    }
}

fn index(a: &KbIndexArgs) -> Result<Exit, CliError> {
    let opts = IndexOptions {
        tag_list: a
            .tag_list
            .clone()
            .zip(a.tag.clone())
            .map(|(path, tag)| TagList { path, tag }),
        label: a.label.clone(),
        ..IndexOptions::default()
    };
    let report = index_repo(&a.repo, &cache_dir(), &opts)?;
    if a.json {
        json(&report)?;
    } else {
        let mut text = format!(
            "indexed {} packages from {} into {} ({} parsed, {} unchanged, {} removed) in {:.0} ms",
            report.packages,
            report.packages_dir.display(),
            report.db.display(),
            report.parsed,
            report.unchanged,
            report.removed,
            report.elapsed_ms
        );
        if let Some(tag) = &a.tag {
            text.push_str(&format!(
                "\ntagged {} packages `{tag}`; {} names of the list are not in this repository",
                report.tagged,
                report.tag_missing.len()
            ));
        }
        emit(&text);
    }
    Ok(Exit::Success)
}

fn stats(a: &KbSelect) -> Result<Exit, CliError> {
    let kb = open(a)?;
    let s = kb.stats()?;
    if a.json {
        json(&s)?;
        return Ok(Exit::Success);
    }
    let list = |items: &[(String, i64)]| {
        items
            .iter()
            .map(|(k, n)| format!("{k} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    emit(&format!(
        "knowledge base {} ({})\nrepository     {}\npackages       {} ({} with syntax errors)\nversions       {}\nvariants       {}\ndependencies   {}\nconflicts      {}\nprovides       {}\ndefine keys    {}\ngenerations    {}\nbuild systems  {}\ntop virtuals   {}\ntags           {}",
        s.label,
        kb.path.display(),
        s.repo_path,
        s.packages,
        s.with_syntax_errors,
        s.versions,
        s.variants,
        s.dependencies,
        s.conflicts,
        s.provides,
        s.define_keys,
        list(&s.generations),
        list(&s.build_systems),
        list(&s.top_virtuals),
        list(&s.tags),
    ));
    let embedded = packsmith_spack_knowledge::embed::embedded_models(&kb)?;
    if !embedded.is_empty() {
        let models: Vec<String> = embedded
            .iter()
            .map(|(m, n)| format!("{m} ({n} cards)"))
            .collect();
        emit(&format!("embeddings     {}", models.join(", ")));
    }
    Ok(Exit::Success)
}

fn show(a: &KbShowArgs) -> Result<Exit, CliError> {
    let kb = open(&a.select)?;
    let Some(p) = kb.show(&a.name)? else {
        let providers = kb.providers(&a.name)?;
        if !providers.is_empty() {
            if a.select.json {
                json(&serde_json::json!({"virtual": a.name, "providers": providers}))?;
            } else {
                emit(&format!(
                    "{} is a virtual package, provided by: {}",
                    a.name,
                    providers.join(", ")
                ));
            }
            return Ok(Exit::Success);
        }
        let suggestion = kb
            .names()?
            .did_you_mean(&a.name)
            .map(|s| format!("did you mean `{s}`? "))
            .unwrap_or_default();
        return Err(CliError::new(
            Exit::BadInput,
            format!("no package `{}` in {}", a.name, kb.path.display()),
        )
        .hint(format!("{suggestion}try `packsmith kb search {}`", a.name)));
    };
    if a.select.json {
        json(&p)?;
        return Ok(Exit::Success);
    }
    let mut t = format!("{} ({})\n", p.name, p.class.as_deref().unwrap_or("?"));
    if let Some(doc) = &p.docstring {
        t.push_str(&format!(
            "  {}\n",
            doc.split_whitespace().collect::<Vec<_>>().join(" ")
        ));
    }
    let field = |t: &mut String, k: &str, v: &str| {
        if !v.is_empty() {
            t.push_str(&format!("{k:<14}{v}\n"));
        }
    };
    field(&mut t, "bases", &p.bases);
    field(&mut t, "build systems", &p.build_systems);
    field(&mut t, "generation", &p.generation);
    field(&mut t, "homepage", p.homepage.as_deref().unwrap_or(""));
    field(&mut t, "url", p.url.as_deref().unwrap_or(""));
    field(&mut t, "git", p.git.as_deref().unwrap_or(""));
    field(&mut t, "recipe", &p.path);
    field(&mut t, "tags", &p.tags.join(", "));
    let versions: Vec<String> = p
        .versions
        .iter()
        .map(|v| {
            let mut s = v.version.clone();
            if v.preferred {
                s.push_str(" (preferred)");
            }
            if v.deprecated {
                s.push_str(" (deprecated)");
            }
            s
        })
        .collect();
    field(&mut t, "versions", &versions.join(", "));
    let when = |w: &Option<String>| w.as_ref().map(|w| format!(" when {w}")).unwrap_or_default();
    if !p.variants.is_empty() {
        t.push_str("variants\n");
        for v in &p.variants {
            t.push_str(&format!(
                "  {} = {}{}{}\n",
                v.name,
                v.default.as_deref().unwrap_or("?"),
                v.values
                    .as_ref()
                    .map(|x| format!(" [{x}]"))
                    .unwrap_or_default(),
                when(&v.when)
            ));
        }
    }
    if !p.dependencies.is_empty() {
        t.push_str("dependencies\n");
        for d in &p.dependencies {
            let types = if d.types.is_empty() {
                "build,link"
            } else {
                &d.types
            };
            t.push_str(&format!("  {} ({types}){}\n", d.spec, when(&d.when)));
        }
    }
    for (title, items) in [("conflicts", &p.conflicts), ("provides", &p.provides)] {
        if !items.is_empty() {
            t.push_str(&format!("{title}\n"));
            for c in items {
                t.push_str(&format!("  {}{}\n", c.spec, when(&c.when)));
            }
        }
    }
    field(&mut t, "define keys", &p.define_keys.join(", "));
    emit(&t);
    Ok(Exit::Success)
}

fn search(a: &KbSearchArgs) -> Result<Exit, CliError> {
    let kb = open(&a.select)?;
    let hits = kb.search(&a.text, a.limit)?;
    if a.select.json {
        json(&hits)?;
    } else if hits.is_empty() {
        emit(&format!("no package matches `{}`", a.text));
    } else {
        let lines: Vec<String> = hits
            .iter()
            .map(|h| {
                format!(
                    "{:<28} {:>4}  {}  [{}]",
                    h.name,
                    h.score,
                    h.description.as_deref().unwrap_or(""),
                    h.why.join("; ")
                )
            })
            .collect();
        emit(&lines.join("\n"));
    }
    Ok(Exit::Success)
}

fn similar(a: &KbSimilarArgs) -> Result<Exit, CliError> {
    let strategy = Strategy::parse(&a.strategy).ok_or_else(|| {
        CliError::new(Exit::BadInput, format!("unknown strategy `{}`", a.strategy)).hint(
            "use none, random, random-same-build-system, similar, similar-normalized or embedding",
        )
    })?;
    if strategy == Strategy::Embedding {
        return embed::similar_by_embedding(a);
    }
    let spack = spack_version(&a.spack_version)?;
    let facts = load_facts(&a.target)?;
    let kb = open(&a.select)?;
    let load = Instant::now();
    let names = kb.names()?;
    let retriever = Retriever::load(&kb)?;
    let load_ms = load.elapsed().as_secs_f64() * 1e3;
    let target = packsmith_spack_draft::query::retrieval_target_of_facts(&facts, &names, spack);
    let opts = RetrieveOptions {
        strategy,
        n: a.n,
        seed: a.seed,
        exclude: a.exclude.clone(),
    };
    let result = retriever.retrieve(&target, &opts)?;
    if a.select.json {
        json(&result)?;
        return Ok(Exit::Success);
    }
    let mut t = format!(
        "strategy {} for `{}` (build system {}; {} dependencies, {} options) over {}\n",
        strategy.as_str(),
        target.name,
        target.build_system.as_deref().unwrap_or("any"),
        target.deps.len(),
        target.opts.len(),
        kb.path.display()
    );
    t.push_str(&render_matches(&result.matches));
    if result.matches.is_empty() && strategy != Strategy::None {
        t.push_str("no reference: nothing shared with any candidate of the same build system\n");
    }
    t.push_str(&format!(
        "{} candidates; query {:.2} ms (knowledge base loaded in {load_ms:.1} ms)",
        result.candidates,
        result.elapsed_us as f64 / 1e3
    ));
    emit(&t);
    Ok(Exit::Success)
}
