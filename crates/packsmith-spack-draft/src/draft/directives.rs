//! The class body up to the methods: docstring, metadata, versions,
//! variants and dependencies.

use super::names::{render_unknown, UnknownDependency};
use super::DraftOptions;
use crate::brief::{BriefDependency, BriefVariant, SpackBrief, VariantDefault};
use packsmith_spack_knowledge::pylayout::{call, LINE_WIDTH};
use packsmith_spack_knowledge::pystr::{
    comment_text, docstring_text, py_str, py_tuple, py_types, wrap,
};

/// Everything in the class before the first method.
pub fn render_body(
    b: &SpackBrief,
    options: &DraftOptions,
    unknown: &[UnknownDependency],
) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(docstring(b));
    out.push(String::new());
    out.extend(metadata(b));
    if !options.maintainers.is_empty() {
        out.push(String::new());
        out.extend(call("    ", "maintainers", &quoted(&options.maintainers)));
    }
    if let Some(license) = &b.license {
        out.push(String::new());
        out.push(format!("    license({})", py_str(license)));
    } else if let Some(file) = &b.unrecognised_license {
        out.push(String::new());
        out.push(format!(
            "    # FIXME: license not recognised in {}; add license(\"SPDX-ID\")",
            comment_text(file)
        ));
    }
    out.push(String::new());
    out.extend(versions(b));
    let variants: Vec<&BriefVariant> = b.variants.iter().filter(|v| !v.inherited).collect();
    if !variants.is_empty() || !b.fixmes.is_empty() {
        out.push(String::new());
        for v in variants {
            out.extend(variant(v));
        }
        out.extend(fixmes(&b.fixmes));
    }
    let mut deps = dependencies(b, options);
    let unknown = render_unknown(unknown, depends_on);
    if !unknown.is_empty() {
        if !deps.is_empty() {
            deps.push(String::new());
        }
        deps.extend(unknown);
    }
    if !deps.is_empty() {
        out.push(String::new());
        out.extend(deps);
    }
    if let Some(dir) = &b.root_cmakelists_dir {
        out.push(String::new());
        out.push(format!("    root_cmakelists_dir = {}", py_str(dir)));
    }
    if let Some(dir) = &b.configure_directory {
        out.push(String::new());
        out.push(format!("    configure_directory = {}", py_str(dir)));
    }
    if let Some(dir) = &b.build_directory {
        out.push(String::new());
        out.push(format!("    build_directory = {}", py_str(dir)));
    }
    // With MPI's wrappers the targets are a property (methods.rs).
    if !b.build_targets.is_empty() && b.mpi_wrappers.is_empty() {
        if b.build_directory.is_none() {
            out.push(String::new());
        }
        out.push(format!(
            "    build_targets = [{}]",
            quoted(&b.build_targets).join(", ")
        ));
    }
    // A section that opens with a blank line of its own after the separator
    // (only listed dependencies) would leave two: flake8's E303 in a class.
    out.dedup_by(|a, b| a.is_empty() && b.is_empty());
    out
}

pub(super) fn quoted(items: &[String]) -> Vec<String> {
    items.iter().map(|s| py_str(s)).collect()
}

fn docstring(b: &SpackBrief) -> Vec<String> {
    let text = b
        .description
        .as_deref()
        .map(docstring_text)
        .filter(|t| !t.is_empty());
    let Some(text) = text else {
        return vec![
            "    # FIXME: no description was found upstream; say what the package is.".into(),
            format!("    \"\"\"The {} package.\"\"\"", b.package),
        ];
    };
    let one = format!("    \"\"\"{text}\"\"\"");
    if one.chars().count() <= LINE_WIDTH {
        return vec![one];
    }
    // As in Spack's own recipes (and PEP 257): the text opens on the line
    // of the quotes and they close on its last line.
    wrap(&format!("\"\"\"{text}\"\"\""), LINE_WIDTH - 4)
        .into_iter()
        .map(|l| format!("    {l}"))
        .collect()
}

fn metadata(b: &SpackBrief) -> Vec<String> {
    let mut out = Vec::new();
    match &b.homepage {
        Some(h) => out.push(format!("    homepage = {}", py_str(h))),
        None => {
            out.push("    # FIXME: no homepage was found upstream; add homepage = \"...\"".into())
        }
    }
    let is_python = b.base_classes.iter().any(|c| c == "PythonPackage");
    match (&b.fetch.url, &b.fetch.git) {
        (Some(url), _) => match packsmith_spack_knowledge::pypi::path_of(url).filter(|_| is_python)
        {
            Some(path) => out.push(format!("    pypi = {}", py_str(&path))),
            None => out.push(format!("    url = {}", py_str(url))),
        },
        (None, None) => out.push(
            "    # FIXME: no release archive or git remote was found; add url = \"...\"".into(),
        ),
        (None, Some(_)) => {}
    }
    if let Some(git) = &b.fetch.git {
        out.push(format!("    git = {}", py_str(git)));
    }
    out
}

fn versions(b: &SpackBrief) -> Vec<String> {
    let f = &b.fetch;
    let Some(version) = &f.version else {
        return vec![
            "    # FIXME: no version was found upstream (no tag, no declared version);".into(),
            "    # add version(\"x.y.z\", sha256=\"...\") for a release archive.".into(),
        ];
    };
    let v = py_str(version);
    let submodules = f.submodules.then(|| "submodules=True".to_string());
    if let (Some(_), Some(sha)) = (&f.url, &f.sha256) {
        let mut out = call("    ", "version", &[v, format!("sha256={}", py_str(sha))]);
        for older in &f.older {
            out.extend(call(
                "    ",
                "version",
                &[
                    py_str(&older.version),
                    format!("sha256={}", py_str(&older.sha256)),
                ],
            ));
        }
        return out;
    }
    if f.git.is_some() && (f.tag.is_some() || f.commit.is_some()) {
        let mut args = vec![v];
        if let Some(tag) = &f.tag {
            args.push(format!("tag={}", py_str(tag)));
        }
        if let Some(commit) = &f.commit {
            args.push(format!("commit={}", py_str(commit)));
        }
        args.extend(submodules);
        return call("    ", "version", &args);
    }
    if f.url.is_some() {
        let mut out = vec![
            "    # FIXME: the sha256 of the release archive is not known yet; add".into(),
            "    # sha256=\"...\" (Spack refuses to install an unchecksummed archive).".into(),
        ];
        out.extend(call("    ", "version", &[v]));
        return out;
    }
    let mut out = comment(&format!(
        "FIXME: version {version} has no archive checksum, tag or commit; add one"
    ));
    out.extend(comment(&format!(
        "version({v}, sha256=\"...\") or version({v}, tag=\"...\")"
    )));
    out
}

/// A class-level comment wrapped at the line width.
fn comment(text: &str) -> Vec<String> {
    wrap(text, LINE_WIDTH - 6)
        .into_iter()
        .map(|l| format!("    # {l}"))
        .collect()
}

/// The brief's FIXMEs as comments wrapped at the line width.
fn fixmes(items: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for item in items {
        out.extend(comment(&format!("FIXME: {}", comment_text(item))));
    }
    out
}

fn variant(v: &BriefVariant) -> Vec<String> {
    let mut out = Vec::new();
    let mut args = vec![py_str(&v.name)];
    match &v.default {
        VariantDefault::Bool(d) => {
            args.push(format!("default={}", if *d { "True" } else { "False" }));
        }
        VariantDefault::Str(d) => {
            args.push(format!("default={}", py_str(d)));
            let mut values = v.values.clone();
            if !values.contains(d) {
                out.push(format!(
                    "    # FIXME: upstream default {d:?} of {} is not among its listed choices",
                    v.option
                ));
                values.insert(0, d.clone());
            }
            args.push(format!("values={}", py_tuple(&values)));
            args.push("multi=False".into());
        }
    }
    let description = comment_text(&v.description);
    let description = if description.is_empty() {
        format!("Set the upstream option {}", v.option)
    } else {
        description
    };
    args.push(format!("description={}", py_str(&description)));
    if let Some(when) = &v.when {
        args.push(format!("when={}", py_str(when)));
    }
    out.extend(call("    ", "variant", &args));
    out
}

fn depends_on(d: &BriefDependency) -> Vec<String> {
    let mut args = vec![py_str(&d.spec)];
    if let Some(when) = &d.when {
        args.push(format!("when={}", py_str(when)));
    }
    if !d.types.is_empty() {
        args.push(format!("type={}", py_types(&d.types)));
    }
    call("    ", "depends_on", &args)
}

fn dep_name(spec: &str) -> &str {
    spec.split(['@', '+', '~', ' ', '%', '^'])
        .next()
        .unwrap_or(spec)
}

fn dependencies(b: &SpackBrief, options: &DraftOptions) -> Vec<String> {
    let mut out = Vec::new();
    if b.target.has_language_virtuals() {
        for lang in &b.language_virtuals {
            out.push(format!("    depends_on({}, type=\"build\")", py_str(lang)));
        }
    }
    if let Some(cmake) = &b.cmake_constraint {
        out.push(format!("    depends_on({}, type=\"build\")", py_str(cmake)));
    }
    let declared_cmake = b.cmake_constraint.is_some();
    for d in &b.dependencies {
        if declared_cmake && dep_name(&d.spec) == "cmake" && d.when.is_none() {
            continue;
        }
        out.extend(depends_on(d));
    }
    if options.comment_optional_dependencies && !b.optional_dependencies.is_empty() {
        out.push(String::new());
        let switched_off = b
            .defines
            .iter()
            .any(|d| d.key.starts_with("CMAKE_DISABLE_FIND_PACKAGE_"));
        let headers_only = b.install.as_ref().is_some_and(|p| p.headers_only);
        out.push(if headers_only {
            "    # Looked up by the build, which makes only tests; declare what the headers need:"
                .into()
        } else if switched_off {
            "    # Optional upstream, behind no option; the lookups CMake may skip are switched off\n    # in cmake_args (CMAKE_DISABLE_FIND_PACKAGE_*) so the host cannot fill them in; add a\n    # variant if needed:".into()
        } else {
            "    # Optional upstream, behind no option; add a variant if needed:".into()
        });
        for d in &b.optional_dependencies {
            for line in depends_on(d) {
                out.push(format!("    # {}", line.trim_start()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_calls_break_one_argument_per_line() {
        let args = vec![py_str(&"x".repeat(120))];
        let lines = call("    ", "variant", &args);
        assert_eq!(lines.len(), 3);
        assert!(lines[1].ends_with(','));
    }
}
