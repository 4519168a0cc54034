//! Valid and invalid spec forms, one case per line where possible.

use super::*;

fn ok(s: &str) -> Spec {
    parse(s).unwrap_or_else(|e| panic!("{s:?} should parse:\n{e}"))
}

fn err(s: &str) -> SpecError {
    match parse(s) {
        Ok(spec) => panic!("{s:?} should fail, got {spec:?}"),
        Err(e) => e,
    }
}

fn v(s: &str) -> Version {
    Version::parse(s).unwrap_or_else(|| panic!("bad version {s}"))
}

fn versions(s: &str) -> VersionConstraint {
    ok(s)
        .versions
        .unwrap_or_else(|| panic!("{s} has no versions"))
}

/// Valid specs and their canonical rendering.
#[test]
fn canonical_forms() {
    let cases = [
        ("hdf5", "hdf5"),
        ("py-numpy", "py-numpy"),
        ("r-data_table", "r-data_table"),
        ("builtin.hdf5", "builtin.hdf5"),
        ("hdf5@1.2.3", "hdf5@1.2.3"),
        ("hdf5@1.2:1.4", "hdf5@1.2:1.4"),
        ("hdf5@:1.4", "hdf5@:1.4"),
        ("hdf5@1.2:", "hdf5@1.2:"),
        ("hdf5@1.2,1.4:1.6", "hdf5@1.2,1.4:1.6"),
        ("hdf5@1.2 , 1.4", "hdf5@1.2,1.4"),
        ("hdf5@=1.2", "hdf5@=1.2"),
        ("hdf5@ 1.2", "hdf5@1.2"),
        ("foo@git.v1.2=1.2", "foo@git.v1.2=1.2"),
        ("foo@git.feature/x", "foo@git.feature/x"),
        (
            "foo@0123456789abcdef0123456789abcdef01234567",
            "foo@0123456789abcdef0123456789abcdef01234567",
        ),
        ("foo@develop", "foo@develop"),
        ("foo@main", "foo@main"),
        ("foo@1.2-rc1", "foo@1.2-rc1"),
        ("hdf5+mpi~fortran", "hdf5~fortran+mpi"),
        ("hdf5 -fortran", "hdf5~fortran"),
        ("hdf5 api=v18", "hdf5 api=v18"),
        ("hdf5 foo=a,b", "hdf5 foo=a,b"),
        ("hdf5 foo==bar", "hdf5 foo==bar"),
        ("hdf5++foo~~bar", "hdf5~~bar++foo"),
        ("hdf5 %gcc@12:", "hdf5 %gcc@12:"),
        ("hdf5%gcc", "hdf5 %gcc"),
        ("hdf5 % gcc @10", "hdf5 %gcc@10"),
        ("hdf5 %c,cxx=gcc", "hdf5 %[virtuals=c,cxx] gcc"),
        ("hdf5 %[virtuals=c] gcc@12", "hdf5 %[virtuals=c] gcc@12"),
        ("hdf5 ^mpich@3:", "hdf5 ^mpich@3:"),
        (
            "hdf5 ^[virtuals=mpi] openmpi",
            "hdf5 ^[virtuals=mpi] openmpi",
        ),
        (
            "hdf5 ^[deptypes=build] cmake",
            "hdf5 ^[deptypes=build] cmake",
        ),
        ("hdf5 ^zlib ^cmake", "hdf5 ^cmake ^zlib"),
        (
            "foo target=x86_64 os=ubuntu22.04 platform=linux",
            "foo platform=linux os=ubuntu22.04 target=x86_64",
        ),
        (
            "foo arch=linux-rhel8-zen3",
            "foo platform=linux os=rhel8 target=zen3",
        ),
        ("foo target=aarch64:", "foo target=aarch64:"),
        ("foo cflags=\"-O3 -g\"", "foo cflags='-O3 -g'"),
        ("foo cxxflags='-O2'", "foo cxxflags=-O2"),
        ("foo /abc123", "foo /abc123"),
        ("+mpi", "+mpi"),
        ("@2:", "@2:"),
        ("~shared", "~shared"),
        ("", ""),
        ("   ", ""),
        ("languages=c,c++", "languages=c,c++"),
        ("^cuda@11: +cuda", "^cuda@11:+cuda"),
    ];
    for (input, expected) in cases {
        assert_eq!(ok(input).to_string(), expected, "input {input:?}");
    }
}

#[test]
fn directive_example_has_every_part() {
    let s = ok("hdf5@1.10:1.12+mpi~fortran api=v18 ^mpich");
    assert_eq!(s.name.as_deref(), Some("hdf5"));
    assert_eq!(
        s.versions.as_ref().map(ToString::to_string).as_deref(),
        Some("1.10:1.12")
    );
    assert_eq!(
        s.variant("mpi").map(|v| &v.value),
        Some(&VariantValue::Bool(true))
    );
    assert_eq!(
        s.variant("fortran").map(|v| &v.value),
        Some(&VariantValue::Bool(false))
    );
    assert_eq!(
        s.variant("api").map(|v| &v.value),
        Some(&VariantValue::Values(vec!["v18".into()]))
    );
    assert_eq!(s.dependencies.len(), 1);
    assert_eq!(s.dependencies[0].spec.name.as_deref(), Some("mpich"));
    assert_eq!(s.span, Span { offset: 0, len: 41 });
    assert_eq!(s.dependencies[0].span, Span { offset: 35, len: 6 });
}

#[test]
fn when_example_is_anonymous() {
    let s = ok("@2.0: +parallel %gcc@10: target=x86_64 os=ubuntu22.04 platform=linux");
    assert_eq!(s.name, None);
    assert_eq!(s.compilers[0].spec.name.as_deref(), Some("gcc"));
    assert!(s.compilers[0].direct);
    assert_eq!(s.arch.os.as_deref(), Some("ubuntu22.04"));
    // In Spack 0.x `%` takes only a name and versions; the variant after it
    // still belongs to the root.
    let s = ok("%gcc +mpi");
    assert!(s.variant("mpi").is_some());
}

#[test]
fn variant_spans_and_propagation() {
    let s = ok("foo ++bar baz==x,y");
    assert_eq!(s.variants[0].span, Span { offset: 4, len: 5 });
    assert!(s.variants.iter().all(|v| v.propagate));
    assert_eq!(
        s.variants[1].value,
        VariantValue::Values(vec!["x".into(), "y".into()])
    );
}

#[test]
fn flags_are_not_variants() {
    let s = ok("foo cflags=\"-O3 -fPIC\" ldflags==-lm");
    assert!(s.variants.is_empty());
    assert_eq!(s.flags[0].value, "-O3 -fPIC");
    assert!(s.flags[1].propagate);
}

#[test]
fn escaped_quote_in_value() {
    let s = ok(r#"foo cflags="-DX=\"y\"""#);
    assert_eq!(s.flags[0].value, "-DX=\"y\"");
}

#[test]
fn git_version_items() {
    match &versions("foo@git.v2.0=2.0").items[..] {
        [VersionItem::Git {
            reference,
            version: Some(ver),
        }] => {
            assert_eq!(reference, "git.v2.0");
            assert_eq!(ver, &v("2.0"));
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn dependency_keeps_its_own_attributes() {
    let s = ok("foo ^bar@2+x %gcc ^baz~y");
    let bar = &s.dependencies[0].spec;
    assert_eq!(
        bar.versions.as_ref().map(ToString::to_string).as_deref(),
        Some("2")
    );
    assert!(bar.variant("x").is_some());
    assert_eq!(bar.compilers.len(), 1);
    assert!(s.dependencies[1].spec.variant("y").is_some());
}

#[test]
fn edge_properties_keep_unknown_keys() {
    let s = ok("foo ^[virtuals=mpi deptypes=build,link when='+mpi'] openmpi");
    let d = &s.dependencies[0];
    assert_eq!(d.virtuals, ["mpi"]);
    assert_eq!(d.deptypes, ["build", "link"]);
    assert_eq!(d.properties, [("when".to_string(), "+mpi".to_string())]);
}

/// Invalid specs: `(input, offset, message fragment)`.
#[test]
fn errors_point_at_the_problem() {
    let cases = [
        ("@1.2::3", 5, "unexpected ':'"),
        ("+", 0, "variant name"),
        ("~", 0, "variant name"),
        ("foo ++", 4, "variant name"),
        ("foo cflags=\"-O3", 11, "unterminated"),
        ("foo ^", 4, "package name after '^'"),
        ("foo ^ +mpi", 6, "package name after '^'"),
        ("foo %", 4, "package name after '%'"),
        ("foo @", 4, "version"),
        ("foo@1.2@1.3", 7, "unexpected '@'"),
        ("foo@1.2 @1.3", 8, "only one version"),
        ("foo bar", 4, "unexpected name 'bar'"),
        ("+mpi hdf5", 5, "unexpected name 'hdf5'"),
        ("foo api=", 4, "value"),
        ("foo ^[virtuals=mpi", 5, "unterminated '['"),
        ("foo ^[virtuals=mpi openmpi", 19, "expected '='"),
        ("foo ^[virtuals] x", 6, "expected '='"),
        ("foo@=1.2:", 4, "cannot start a range"),
        ("foo@2.0:1.0", 4, "empty version range"),
        ("foo@git.", 4, "git ref"),
        ("foo $", 4, "unexpected character '$'"),
        ("foo 'x'", 4, "unexpected quote"),
        ("foo /", 4, "hash"),
        ("foo@1.2,", 7, "after ','"),
        ("builtin..foo", 0, "malformed"),
        ("foo ^bar ^", 9, "package name after '^'"),
    ];
    for (input, offset, fragment) in cases {
        let e = err(input);
        assert_eq!(e.offset, offset, "{input:?}: {e}");
        assert!(e.message.contains(fragment), "{input:?}: {e}");
    }
}

#[test]
fn error_display_has_a_caret() {
    let e = err("@1.2::3");
    assert_eq!(
        e.to_string(),
        "invalid spec: unexpected ':' in version constraint (at byte 5)\n  @1.2::3\n       ^"
    );
}

#[test]
fn version_order_follows_spack() {
    let ordered = [
        "1.2rc1",
        "1.2",
        "1.2.0",
        "1.2.1",
        "1.10",
        "2.0",
        "2.0a",
        "2020-04-17",
        "stable",
        "master",
        "main",
        "develop",
    ];
    for pair in ordered.windows(2) {
        assert!(v(pair[0]) < v(pair[1]), "{} < {}", pair[0], pair[1]);
    }
    assert_eq!(v("1.02"), v("1.2"));
    assert_eq!(v("1-2_3"), v("1.2.3"));
    assert!(v("develop").is_infinity());
}

#[test]
fn ranges_are_prefix_closed() {
    let r = VersionRange {
        lo: Some(v("1.2")),
        hi: Some(v("1.4")),
    };
    assert!(r.contains(&v("1.4.9")));
    assert!(r.contains(&v("1.2")));
    assert!(!r.contains(&v("1.5")));
    assert!(!r.contains(&v("1.1.9")));
    let open = VersionRange {
        lo: Some(v("1.2")),
        hi: None,
    };
    assert!(open.contains(&v("develop")));
    assert!(r.intersects(&VersionRange {
        lo: Some(v("1.4.2")),
        hi: None
    }));
    assert!(!r.intersects(&VersionRange {
        lo: Some(v("1.5")),
        hi: None
    }));
}

#[test]
fn constraint_relations() {
    assert!(versions("cmake@3.10:").satisfies(&versions("cmake@3.5:")));
    assert!(!versions("cmake@3.5:").satisfies(&versions("cmake@3.10:")));
    assert!(versions("cmake@3.5:").intersects(&versions("cmake@3.10:")));
    assert!(versions("x@1.4.2").satisfies(&versions("x@1.2:1.4")));
    assert!(versions("x@=1.4").satisfies(&versions("x@1.4")));
    assert!(!versions("x@1.4").satisfies(&versions("x@=1.4")));
    assert!(versions("x@1.4").intersects(&versions("x@=1.4")));
    assert!(!versions("x@:1.4").intersects(&versions("x@2:")));
    assert!(versions("x@1.2,2.0").satisfies(&versions("x@1:2")));
    assert!(versions("x@git.v1=1.2").satisfies(&versions("x@1.2:")));
    assert!(versions("x@1:2").contains(&v("2.7")));
}

#[test]
fn spec_relations() {
    let s = |t: &str| ok(t);
    assert!(s("hdf5@1.10:+mpi").equivalent(&s("hdf5+mpi@1.10:")));
    assert!(s("hdf5@1.12+mpi api=v18").satisfies(&s("hdf5+mpi")));
    assert!(!s("hdf5+mpi").satisfies(&s("hdf5~mpi")));
    assert!(!s("hdf5+mpi").intersects(&s("hdf5~mpi")));
    assert!(s("+mpi").intersects(&s("@2:")));
    assert!(s("@2: +mpi").satisfies(&s("")));
    assert!(!s("").satisfies(&s("+mpi")));
    assert!(s("foo ^mpich@3.4").satisfies(&s("^mpich@3:")));
    assert!(!s("api=v18").intersects(&s("api=v110")));
    assert!(s("%gcc@12").satisfies(&s("%gcc@10:")));
}
