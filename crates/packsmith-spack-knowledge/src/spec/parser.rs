//! Hand-written recursive-descent parser for spec strings. Token shapes
//! follow Spack's lexer (identifier, version list and value character
//! classes); the tree shape follows its parser: `^` starts a node that runs
//! until the next `^`, `%` takes a name and versions only.

use super::ast::{
    is_bare_value_char, Arch, Dependency, FlagSetting, Span, Spec, VariantSetting, VariantValue,
    FLAG_NAMES,
};
use super::error::SpecError;
use super::version::{Version, VersionConstraint, VersionItem, VersionRange};

/// Parses one spec string (named or anonymous).
pub fn parse(input: &str) -> Result<Spec, SpecError> {
    let mut p = Parser { input, pos: 0 };
    let root = p.node(true)?;
    p.skip_ws();
    match p.peek() {
        None => Ok(root),
        Some(_) => Err(p.unexpected()),
    }
}

struct Parser<'a> {
    input: &'a str,
    pos: usize,
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<char> {
        self.input[self.pos..].chars().next()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.input[self.pos..].chars().nth(ahead)
    }

    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn skip_ws(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.pos += self.peek().map_or(1, char::len_utf8);
        }
    }

    fn err(&self, offset: usize, len: usize, message: impl Into<String>) -> SpecError {
        SpecError::new(self.input, offset, len, message)
    }

    fn unexpected(&self) -> SpecError {
        match self.peek() {
            None => self.err(self.pos, 1, "unexpected end of spec"),
            Some(c @ ('"' | '\'')) => self.err(
                self.pos,
                1,
                format!("unexpected quote {c}; quotes only go around values"),
            ),
            Some(c) => self.err(
                self.pos,
                c.len_utf8(),
                format!("unexpected character '{c}'"),
            ),
        }
    }

    /// Consumes `[A-Za-z0-9_][A-Za-z0-9_.-]*`.
    fn name_token(&mut self) -> Option<(String, Span)> {
        if !self.peek().is_some_and(is_name_start) {
            return None;
        }
        let start = self.pos;
        let len = self
            .rest()
            .find(|c| !is_name_char(c))
            .unwrap_or(self.rest().len());
        self.pos += len;
        Some((
            self.input[start..self.pos].to_string(),
            Span { offset: start, len },
        ))
    }

    fn package_name(&mut self) -> Result<(String, Span), SpecError> {
        let (name, span) = self
            .name_token()
            .ok_or_else(|| self.err(self.pos, 1, "expected a package name"))?;
        // Uppercase is legal: Spack's lexer accepts it and gcc provides the `D` virtual.
        if name.starts_with('.') || name.ends_with('.') || name.contains("..") {
            return Err(self.err(
                span.offset,
                span.len,
                format!("malformed namespaced name '{name}'"),
            ));
        }
        Ok((name, span))
    }

    /// One node. The root accepts `^` edges; a `^` node stops before the
    /// next `^`, leaving it to the root.
    fn node(&mut self, root: bool) -> Result<Spec, SpecError> {
        self.skip_ws();
        let start = self.pos;
        let mut spec = Spec::default();
        if self.starts_package_name() {
            spec.name = Some(self.package_name()?.0);
        }
        loop {
            self.skip_ws();
            let Some(c) = self.peek() else { break };
            match c {
                '@' => {
                    let at = self.pos;
                    if spec.versions.is_some() {
                        return Err(self.err(at, 1, "a spec can have only one version constraint"));
                    }
                    spec.versions = Some(self.versions()?);
                }
                '+' | '~' | '-' => spec.variants.push(self.bool_variant()?),
                '%' => spec.compilers.push(self.edge(true)?),
                '^' if root => spec.dependencies.push(self.edge(false)?),
                '^' => break,
                '/' => spec.hash = Some(self.hash()?),
                c if is_name_start(c) => {
                    let at = self.pos;
                    let (key, key_span) = self.name_token().unwrap_or_default();
                    if !self.rest().starts_with('=') {
                        let what = if spec.name.is_some() || self.pos > start {
                            "after spec attributes"
                        } else {
                            "here"
                        };
                        return Err(self.err(at, key_span.len, format!("unexpected name '{key}' {what}; write one package per spec or use '^' for a dependency")));
                    }
                    self.key_value(&mut spec, key, key_span)?;
                }
                _ => return Err(self.unexpected()),
            }
        }
        spec.span = Span {
            offset: start,
            len: self.input[start..self.pos].trim_end().len(),
        };
        Ok(spec)
    }

    /// A name that is not the key of a `key=value` pair.
    fn starts_package_name(&self) -> bool {
        if !self.peek().is_some_and(is_name_start) {
            return false;
        }
        let len = self
            .rest()
            .find(|c| !is_name_char(c))
            .unwrap_or(self.rest().len());
        !self.rest()[len..].starts_with('=')
    }

    fn bool_variant(&mut self) -> Result<VariantSetting, SpecError> {
        let start = self.pos;
        let sigil = self.peek().unwrap_or('+');
        let propagate = self.peek_at(1) == Some(sigil);
        self.pos += if propagate { 2 } else { 1 };
        self.skip_ws();
        let (name, _) = self.name_token().ok_or_else(|| {
            self.err(
                start,
                self.pos - start,
                format!(
                    "expected a variant name after '{}'",
                    &self.input[start..self.pos].trim_end()
                ),
            )
        })?;
        Ok(VariantSetting {
            name,
            value: VariantValue::Bool(sigil == '+'),
            propagate,
            span: Span {
                offset: start,
                len: self.pos - start,
            },
        })
    }

    fn key_value(&mut self, spec: &mut Spec, key: String, key_span: Span) -> Result<(), SpecError> {
        let propagate = self.rest().starts_with("==");
        self.pos += if propagate { 2 } else { 1 };
        let value = self.value(key_span.offset)?;
        let span = Span {
            offset: key_span.offset,
            len: self.pos - key_span.offset,
        };
        if key == "arch" {
            // `arch=platform-os-target`; missing parts stay unset.
            let mut parts = value.splitn(3, '-').map(str::to_string);
            spec.arch.platform = parts.next().filter(|s| !s.is_empty() && s != "None");
            spec.arch.os = parts.next().filter(|s| !s.is_empty() && s != "None");
            spec.arch.target = parts.next().filter(|s| !s.is_empty() && s != "None");
        } else if let Some(slot) = arch_slot(&mut spec.arch, &key) {
            *slot = Some(value);
        } else if FLAG_NAMES.contains(&key.as_str()) {
            spec.flags.push(FlagSetting {
                name: key,
                value,
                propagate,
                span,
            });
        } else {
            let values = value.split(',').map(str::to_string).collect();
            spec.variants.push(VariantSetting {
                name: key,
                value: VariantValue::Values(values),
                propagate,
                span,
            });
        }
        Ok(())
    }

    /// A bare value or a quoted string (backslash escapes the quote).
    fn value(&mut self, key_offset: usize) -> Result<String, SpecError> {
        match self.peek() {
            Some(q @ ('"' | '\'')) => {
                let open = self.pos;
                self.pos += 1;
                let mut out = String::new();
                let mut chars = self.rest().char_indices();
                while let Some((i, c)) = chars.next() {
                    match c {
                        '\\' if self.rest()[i + 1..].starts_with(q) => {
                            out.push(q);
                            chars.next();
                        }
                        c if c == q => {
                            self.pos += i + 1;
                            return Ok(out);
                        }
                        c => out.push(c),
                    }
                }
                Err(self.err(open, self.input.len() - open, "unterminated quoted value"))
            }
            Some(c) if is_bare_value_char(c) => {
                let len = self
                    .rest()
                    .find(|c| !is_bare_value_char(c))
                    .unwrap_or(self.rest().len());
                let value = self.rest()[..len].to_string();
                self.pos += len;
                Ok(value)
            }
            _ => Err(self.err(
                key_offset,
                self.pos - key_offset,
                "expected a value after '='",
            )),
        }
    }

    fn hash(&mut self) -> Result<String, SpecError> {
        let at = self.pos;
        self.pos += 1;
        let len = self
            .rest()
            .find(|c| !is_word_char(c))
            .unwrap_or(self.rest().len());
        if len == 0 {
            return Err(self.err(at, 1, "expected a hash after '/'"));
        }
        let hash = self.rest()[..len].to_string();
        self.pos += len;
        Ok(hash)
    }

    /// `^`/`%`, optional `[key=value ...]`, optional `a,b=` virtual
    /// shorthand, then a node (`^`) or a name with versions (`%`).
    fn edge(&mut self, direct: bool) -> Result<Dependency, SpecError> {
        let start = self.pos;
        let sigil = if direct { '%' } else { '^' };
        self.pos += 1;
        if direct && self.peek() == Some('%') {
            self.pos += 1; // `%%`: propagated compiler in Spack 1.x.
        }
        let mut edge = Dependency {
            direct,
            virtuals: Vec::new(),
            deptypes: Vec::new(),
            properties: Vec::new(),
            spec: Spec::default(),
            span: Span::default(),
        };
        if self.peek() == Some('[') {
            self.edge_properties(&mut edge)?;
        }
        self.skip_ws();
        if !self.peek().is_some_and(is_name_start) {
            let message = format!("expected a package name after '{sigil}'");
            return Err(match self.peek() {
                None => self.err(start, 1, message),
                Some(c) => self.err(self.pos, c.len_utf8(), message),
            });
        }
        self.virtual_shorthand(&mut edge);
        edge.spec = if direct {
            self.compiler_node()?
        } else {
            self.node(false)?
        };
        if edge.spec.name.is_none() {
            return Err(self.err(
                edge.spec.span.offset,
                edge.spec.span.len,
                format!("expected a package name after '{sigil}'"),
            ));
        }
        edge.span = Span {
            offset: start,
            len: edge.spec.span.offset + edge.spec.span.len - start,
        };
        Ok(edge)
    }

    /// `c,cxx=gcc`: the names before `=` are the virtuals the node provides.
    fn virtual_shorthand(&mut self, edge: &mut Dependency) {
        let rest = self.rest();
        let head = rest
            .find(|c: char| !(is_name_char(c) || c == ','))
            .unwrap_or(rest.len());
        if rest[head..].starts_with('=') && !rest[head..].starts_with("==") && head > 0 {
            let after = &rest[head + 1..];
            if after.chars().next().is_some_and(is_name_start) {
                edge.virtuals = rest[..head]
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                self.pos += head + 1;
            }
        }
    }

    fn edge_properties(&mut self, edge: &mut Dependency) -> Result<(), SpecError> {
        let open = self.pos;
        self.pos += 1;
        loop {
            self.skip_ws();
            match self.peek() {
                Some(']') => {
                    self.pos += 1;
                    return Ok(());
                }
                None => return Err(self.err(open, 1, "unterminated '[' edge properties")),
                Some(c) if is_name_start(c) => {
                    let (key, span) = self.name_token().unwrap_or_default();
                    if self.peek() != Some('=') {
                        return Err(self.err(
                            span.offset,
                            span.len,
                            format!("expected '=' after edge property '{key}'"),
                        ));
                    }
                    self.pos += 1;
                    let value = match self.peek() {
                        Some('"' | '\'') => self.value(span.offset)?,
                        _ => {
                            // `]` ends the value: it is not a value character here.
                            let len = self
                                .rest()
                                .find(|c: char| c.is_whitespace() || c == ']')
                                .unwrap_or(self.rest().len());
                            if len == 0 {
                                return Err(self.err(
                                    span.offset,
                                    self.pos - span.offset,
                                    "expected a value after '='",
                                ));
                            }
                            let v = self.rest()[..len].to_string();
                            self.pos += len;
                            v
                        }
                    };
                    let list = || {
                        value
                            .split(',')
                            .filter(|s| !s.is_empty())
                            .map(str::to_string)
                    };
                    match key.as_str() {
                        "virtuals" => edge.virtuals.extend(list()),
                        "deptypes" => edge.deptypes.extend(list()),
                        _ => edge.properties.push((key, value)),
                    }
                }
                Some(_) => return Err(self.unexpected()),
            }
        }
    }

    fn compiler_node(&mut self) -> Result<Spec, SpecError> {
        let start = self.pos;
        let (name, _) = self.package_name()?;
        let mut spec = Spec {
            name: Some(name),
            ..Spec::default()
        };
        // Spack allows blanks between the compiler name and its `@`.
        let save = self.pos;
        self.skip_ws();
        if self.peek() == Some('@') {
            spec.versions = Some(self.versions()?);
        } else {
            self.pos = save;
        }
        spec.span = Span {
            offset: start,
            len: self.pos - start,
        };
        Ok(spec)
    }

    /// `@` then a git version or a comma-separated list of versions/ranges.
    fn versions(&mut self) -> Result<VersionConstraint, SpecError> {
        let at = self.pos;
        self.pos += 1;
        self.skip_ws();
        if let Some(git) = self.git_version()? {
            return Ok(VersionConstraint { items: vec![git] });
        }
        let mut items = Vec::new();
        let mut comma: Option<usize> = None;
        loop {
            let item_start = self.pos;
            let item = self
                .version_item()?
                .ok_or_else(|| match (self.peek(), comma) {
                    (Some(c), _) if !c.is_whitespace() => self.err(
                        self.pos,
                        c.len_utf8(),
                        format!("expected a version, found '{c}'"),
                    ),
                    (_, Some(at_comma)) => self.err(at_comma, 1, "expected a version after ','"),
                    (_, None) => self.err(
                        at,
                        self.pos.max(at + 1) - at,
                        "expected a version after '@'",
                    ),
                })?;
            if let VersionItem::Range {
                range:
                    VersionRange {
                        lo: Some(lo),
                        hi: Some(hi),
                    },
            } = &item
            {
                if lo > hi && !hi.has_prefix(lo) && !lo.has_prefix(hi) {
                    return Err(self.err(
                        item_start,
                        self.pos - item_start,
                        format!("empty version range: {lo} is after {hi}"),
                    ));
                }
            }
            items.push(item);
            let save = self.pos;
            self.skip_ws();
            if self.peek() == Some(',') {
                comma = Some(self.pos);
                self.pos += 1;
                self.skip_ws();
                continue;
            }
            self.pos = save;
            break;
        }
        if let Some(c @ (':' | '@' | '=' | ',')) = self.peek() {
            return Err(self.err(
                self.pos,
                1,
                format!("unexpected '{c}' in version constraint"),
            ));
        }
        Ok(VersionConstraint { items })
    }

    /// Spack's VERSION token: a word start, then word chars, `.` and `-`,
    /// ending on a word character.
    fn version_text(&mut self) -> Option<Version> {
        if !self.peek().is_some_and(is_word_char) {
            return None;
        }
        let rest = self.rest();
        let mut len = rest
            .find(|c: char| !(is_word_char(c) || c == '.' || c == '-'))
            .unwrap_or(rest.len());
        while rest[..len].ends_with(['.', '-']) {
            len -= 1;
        }
        let v = Version::parse(&rest[..len])?;
        self.pos += len;
        Some(v)
    }

    fn version_item(&mut self) -> Result<Option<VersionItem>, SpecError> {
        let start = self.pos;
        let exact = self.peek() == Some('=');
        if exact {
            self.pos += 1;
        }
        let lo = self.version_text();
        if self.peek() != Some(':') {
            return Ok(match (lo, exact) {
                (Some(version), true) => Some(VersionItem::Exact { version }),
                (Some(version), false) => Some(VersionItem::Prefix { version }),
                (None, true) => return Err(self.err(start, 1, "expected a version after '@='")),
                (None, false) => None,
            });
        }
        if exact {
            return Err(self.err(start, 1, "'=' pins one version and cannot start a range"));
        }
        self.pos += 1;
        // Like Spack, do not take `foo` in `@1:foo=bar` as the upper bound.
        let save = self.pos;
        let mut hi = self.version_text();
        if hi.is_some() && self.rest().trim_start().starts_with('=') {
            self.pos = save;
            hi = None;
        }
        Ok(Some(VersionItem::Range {
            range: VersionRange { lo, hi },
        }))
    }

    /// `git.<ref>[=<version>]` or a 40-hex commit `[=<version>]`.
    fn git_version(&mut self) -> Result<Option<VersionItem>, SpecError> {
        let rest = self.rest();
        let is_ref_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-');
        let reference_len = if let Some(r) = rest.strip_prefix("git.") {
            let len = r.find(|c| !is_ref_char(c)).unwrap_or(r.len());
            if len == 0 {
                return Err(self.err(self.pos, 4, "expected a git ref after 'git.'"));
            }
            4 + len
        } else {
            let hex = rest
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(rest.len());
            let word_end = rest.find(|c: char| !is_word_char(c)).unwrap_or(rest.len());
            if hex == 40 && word_end == 40 {
                40
            } else {
                return Ok(None);
            }
        };
        let reference = rest[..reference_len].to_string();
        self.pos += reference_len;
        let mut version = None;
        if self.peek() == Some('=') {
            self.pos += 1;
            let at = self.pos;
            version =
                Some(self.version_text().ok_or_else(|| {
                    self.err(at, 1, "expected a version after the git ref's '='")
                })?);
        }
        Ok(Some(VersionItem::Git { reference, version }))
    }
}

fn arch_slot<'s>(arch: &'s mut Arch, key: &str) -> Option<&'s mut Option<String>> {
    match key {
        "platform" => Some(&mut arch.platform),
        "os" => Some(&mut arch.os),
        "target" => Some(&mut arch.target),
        _ => None,
    }
}
