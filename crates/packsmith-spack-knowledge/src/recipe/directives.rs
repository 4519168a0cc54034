//! Class-level directive calls → model items.

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::context::{Ctx, Reader};
use super::pyval::{split_spec_head, Src, Value};
use super::{
    BuildSystem, Conflict, Dependency, Extends, License, OtherDirective, Patch, Provides,
    Requirement, Resource, Variant, VariantValues, VersionDirective,
};
use crate::pywalk::pos;

/// The arguments of one call, with `default_args` from the context merged in.
pub struct Args<'t> {
    pub positional: Vec<Node<'t>>,
    pub keywords: Vec<(String, Node<'t>)>,
}

impl<'t> Args<'t> {
    pub fn new(src: Src, call: Node<'t>, ctx: &Ctx<'t>) -> Self {
        let mut positional = Vec::new();
        let mut keywords = Vec::new();
        if let Some(list) = call.child_by_field_name("arguments") {
            let mut cur = list.walk();
            for arg in list.named_children(&mut cur) {
                match arg.kind() {
                    "keyword_argument" => {
                        if let (Some(n), Some(v)) = (
                            arg.child_by_field_name("name"),
                            arg.child_by_field_name("value"),
                        ) {
                            keywords.push((src.text(n).to_string(), v));
                        }
                    }
                    "comment" | "list_splat" | "dictionary_splat" => {}
                    _ => positional.push(arg),
                }
            }
        }
        // Innermost `default_args` wins; the call's own keywords win over all.
        for (k, v) in ctx.defaults.iter().rev() {
            if !keywords.iter().any(|(n, _)| n == k) {
                keywords.push((k.clone(), *v));
            }
        }
        Self {
            positional,
            keywords,
        }
    }

    /// A parameter by keyword, else by its position in the signature.
    pub fn get(&self, name: &str, index: Option<usize>) -> Option<Node<'t>> {
        self.keywords
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .or_else(|| index.and_then(|i| self.positional.get(i).copied()))
    }
}

impl<'t> Reader<'_, 't, '_> {
    fn text_arg(
        &self,
        args: &Args<'t>,
        name: &str,
        idx: Option<usize>,
        ctx: &Ctx<'t>,
    ) -> Option<String> {
        // `when=None` (often from a loop row) means "not given".
        match args.get(name, idx).map(|n| self.eval(n, ctx)) {
            None | Some(Value::None) => None,
            Some(v) => Some(v.to_text()),
        }
    }

    fn value_arg(
        &self,
        args: &Args<'t>,
        name: &str,
        idx: Option<usize>,
        ctx: &Ctx<'t>,
    ) -> Option<Value> {
        args.get(name, idx).map(|n| self.eval(n, ctx))
    }

    fn bool_arg(&self, args: &Args<'t>, name: &str, ctx: &Ctx<'t>) -> bool {
        self.value_arg(args, name, None, ctx)
            .is_some_and(|v| v.is_truthy_literal())
    }

    /// The directive's own `when=` combined with the enclosing `with when(...)`
    /// conditions, outermost first, joined by a space as Spack does.
    fn when(&self, args: &Args<'t>, idx: Option<usize>, ctx: &Ctx<'t>) -> Option<String> {
        let own = self.text_arg(args, "when", idx, ctx);
        let mut parts: Vec<String> = ctx.whens.clone();
        parts.extend(own);
        let parts: Vec<String> = parts.into_iter().filter(|p| !p.trim().is_empty()).collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    }

    fn extra(&self, args: &Args<'t>, known: &[&str], ctx: &Ctx<'t>) -> BTreeMap<String, Value> {
        args.keywords
            .iter()
            .filter(|(n, _)| !known.contains(&n.as_str()))
            .map(|(n, v)| (n.clone(), self.eval(*v, ctx)))
            .collect()
    }

    fn positional_texts(&self, args: &Args<'t>, ctx: &Ctx<'t>) -> Vec<String> {
        args.positional
            .iter()
            .map(|n| self.eval_text(*n, ctx))
            .collect()
    }

    /// One call statement in the class body.
    pub fn call(&mut self, call: Node<'t>, ctx: &Ctx<'t>) {
        let Some(func) = call.child_by_field_name("function") else {
            return;
        };
        if func.kind() != "identifier" {
            return;
        }
        let name = self.src.text(func);
        let args = Args::new(self.src, call, ctx);
        let (line, col) = pos(call);
        let note = ctx.note.clone();
        match name {
            "version" => {
                let v = self.version(&args, ctx, line, col);
                self.recipe.versions.push(v);
            }
            "variant" => {
                let v = self.variant(&args, ctx, line, col);
                self.recipe.variants.push(v);
            }
            "depends_on" => {
                let spec = self
                    .text_arg(&args, "spec", Some(0), ctx)
                    .unwrap_or_default();
                let literal = args
                    .get("spec", Some(0))
                    .is_some_and(|n| matches!(self.eval(n, ctx), Value::Str(_)));
                let (name, versions) = if literal {
                    split_spec_head(&spec)
                } else {
                    (String::new(), None)
                };
                let types = self
                    .value_arg(&args, "type", Some(2), ctx)
                    .map(|v| v.flatten_strings())
                    .unwrap_or_default();
                let dep = Dependency {
                    name,
                    versions,
                    when: self.when(&args, Some(1), ctx),
                    types,
                    patches: args.get("patches", Some(3)).is_some(),
                    extra: self.extra(&args, &["spec", "when", "type", "patches"], ctx),
                    spec,
                    note,
                    line,
                    col,
                };
                self.recipe.dependencies.push(dep);
            }
            "conflicts" => {
                let c = Conflict {
                    spec: self
                        .text_arg(&args, "conflict_spec", Some(0), ctx)
                        .unwrap_or_default(),
                    when: self.when(&args, Some(1), ctx),
                    msg: self.text_arg(&args, "msg", Some(2), ctx),
                    note,
                    line,
                    col,
                };
                self.recipe.conflicts.push(c);
            }
            "requires" => {
                let r = Requirement {
                    specs: self.positional_texts(&args, ctx),
                    when: self.when(&args, None, ctx),
                    policy: self.text_arg(&args, "policy", None, ctx),
                    msg: self.text_arg(&args, "msg", None, ctx),
                    note,
                    line,
                    col,
                };
                self.recipe.requires.push(r);
            }
            "provides" => {
                let p = Provides {
                    specs: self.positional_texts(&args, ctx),
                    when: self.when(&args, None, ctx),
                    note,
                    line,
                    col,
                };
                self.recipe.provides.push(p);
            }
            "patch" => {
                let p = Patch {
                    source: self
                        .text_arg(&args, "url_or_filename", Some(0), ctx)
                        .unwrap_or_default(),
                    sha256: self.text_arg(&args, "sha256", None, ctx),
                    when: self.when(&args, Some(2), ctx),
                    level: self.value_arg(&args, "level", Some(1), ctx),
                    extra: self.extra(&args, &["url_or_filename", "sha256", "when", "level"], ctx),
                    note,
                    line,
                    col,
                };
                self.recipe.patches.push(p);
            }
            "resource" => {
                let known = [
                    "name",
                    "url",
                    "git",
                    "sha256",
                    "destination",
                    "placement",
                    "when",
                ];
                let r = Resource {
                    name: self.text_arg(&args, "name", None, ctx),
                    url: self.text_arg(&args, "url", None, ctx),
                    git: self.text_arg(&args, "git", None, ctx),
                    sha256: self.text_arg(&args, "sha256", None, ctx),
                    destination: self.text_arg(&args, "destination", None, ctx),
                    placement: self.value_arg(&args, "placement", None, ctx),
                    when: self.when(&args, None, ctx),
                    extra: self.extra(&args, &known, ctx),
                    note,
                    line,
                    col,
                };
                self.recipe.resources.push(r);
            }
            "extends" => {
                let e = Extends {
                    spec: self
                        .text_arg(&args, "spec", Some(0), ctx)
                        .unwrap_or_default(),
                    when: self.when(&args, Some(1), ctx),
                    extra: self.extra(&args, &["spec", "when"], ctx),
                    line,
                    col,
                };
                self.recipe.extends.push(e);
            }
            "build_system" => {
                self.recipe.build_system = Some(BuildSystem {
                    values: self.positional_texts(&args, ctx),
                    default: self.text_arg(&args, "default", None, ctx),
                    line,
                    col,
                });
            }
            "license" => {
                let l = License {
                    license: self
                        .text_arg(&args, "license_identifier", Some(0), ctx)
                        .unwrap_or_default(),
                    checked_by: self
                        .value_arg(&args, "checked_by", Some(1), ctx)
                        .map(|v| v.flatten_strings())
                        .unwrap_or_default(),
                    when: self.when(&args, Some(2), ctx),
                    line,
                    col,
                };
                self.recipe.licenses.push(l);
            }
            "maintainers" => {
                let names = self.positional_texts(&args, ctx);
                self.recipe.maintainers.extend(names);
            }
            _ => {
                let when = self.when(&args, None, ctx);
                self.recipe.other_directives.push(OtherDirective {
                    name: name.to_string(),
                    when,
                    line,
                    col,
                });
            }
        }
    }

    fn version(&self, args: &Args<'t>, ctx: &Ctx<'t>, line: u32, col: u32) -> VersionDirective {
        const SIMPLE: &[&str] = &["version", "sha256", "tag", "commit", "branch", "url", "git"];
        const FLAGS: &[&str] = &["preferred", "deprecated"];
        const ALGOS: &[&str] = &["md5", "sha1", "sha224", "sha384", "sha512", "checksum"];
        let mut v = VersionDirective {
            version: self
                .text_arg(args, "version", Some(0), ctx)
                .unwrap_or_default(),
            sha256: self.text_arg(args, "sha256", None, ctx),
            tag: self.text_arg(args, "tag", None, ctx),
            commit: self.text_arg(args, "commit", None, ctx),
            branch: self.text_arg(args, "branch", None, ctx),
            url: self.text_arg(args, "url", None, ctx),
            git: self.text_arg(args, "git", None, ctx),
            preferred: self.bool_arg(args, "preferred", ctx),
            deprecated: self.bool_arg(args, "deprecated", ctx),
            submodules: self.value_arg(args, "submodules", None, ctx),
            get_full_repo: self.value_arg(args, "get_full_repo", None, ctx),
            note: ctx.note.clone(),
            line,
            col,
            ..VersionDirective::default()
        };
        // Old style: the checksum as second positional argument.
        if let Some(c) = args.positional.get(1) {
            let hash = self.eval_text(*c, ctx);
            if v.sha256.is_none() && hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit())
            {
                v.sha256 = Some(hash);
            } else {
                v.checksum = Some(hash);
            }
        }
        for algo in ALGOS {
            if let Some(h) = self.text_arg(args, algo, None, ctx) {
                v.checksum = Some(format!("{algo}:{h}"));
            }
        }
        let mut known: Vec<&str> = SIMPLE.to_vec();
        known.extend_from_slice(ALGOS);
        known.extend_from_slice(&["submodules", "get_full_repo"]);
        // Flags that are not plain booleans keep their source in `extra`.
        for flag in FLAGS {
            if matches!(self.value_arg(args, flag, None, ctx), Some(Value::Bool(_))) {
                known.push(flag);
            }
        }
        v.extra = self.extra(args, &known, ctx);
        v
    }

    fn variant(&self, args: &Args<'t>, ctx: &Ctx<'t>, line: u32, col: u32) -> Variant {
        let default_node = args.get("default", Some(1));
        let default = default_node.map(|n| self.eval(n, ctx));
        let values = args
            .get("values", Some(3))
            .map(|n| match self.eval(n, ctx) {
                Value::List(items) | Value::Tuple(items) => VariantValues::Items(items),
                Value::Str(s) => VariantValues::Items(vec![Value::Str(s)]),
                _ => VariantValues::Expr(self.src.compact(n)),
            });
        Variant {
            name: self
                .text_arg(args, "name", Some(0), ctx)
                .unwrap_or_default(),
            default_source: default_node.map(|n| self.src.compact(n)),
            default: default.filter(|d| !matches!(d, Value::Expr(_))),
            values,
            multi: self.value_arg(args, "multi", Some(4), ctx),
            description: self.text_arg(args, "description", Some(2), ctx),
            when: self.when(args, Some(6), ctx),
            sticky: self.bool_arg(args, "sticky", ctx),
            extra: self.extra(
                args,
                &[
                    "name",
                    "default",
                    "values",
                    "multi",
                    "description",
                    "when",
                    "sticky",
                ],
                ctx,
            ),
            note: ctx.note.clone(),
            line,
            col,
        }
    }
}
