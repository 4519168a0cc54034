//! Property-style check: specs assembled from random pieces survive
//! parse → display → parse with the same meaning and the same rendering.

use packsmith_spack_knowledge::spec::parse;

const NAMES: &[&str] = &["", "hdf5", "py-numpy", "builtin.zlib-ng", "r-data_table"];
const VERSIONS: &[&str] = &[
    "",
    "@1.2.3",
    "@1.2:1.4",
    "@:1.4",
    "@1.2:",
    "@1.2,1.4:1.6",
    "@=1.2",
    "@git.v1.2=1.2",
    "@develop",
    "@2020-04-17",
];
const ATTRS: &[&str] = &[
    "+mpi",
    "~fortran",
    "-shared",
    "api=v18",
    "foo=a,b",
    "foo==bar",
    "++openmp",
    "~~debug",
    "%gcc@12:",
    "%c,cxx=gcc",
    "%[virtuals=fortran] gfortran",
    "target=x86_64:",
    "os=ubuntu22.04",
    "platform=linux",
    "cflags=\"-O3 -g\"",
    "build_system=cmake",
    "/abc123",
];
const DEPS: &[&str] = &[
    "",
    "^mpich@3:+fortran",
    "^[virtuals=mpi] openmpi",
    "^[deptypes=build] cmake@3.5:",
    "^cuda@11: +cuda",
];

/// Small deterministic generator so failures reproduce.
struct Lcg(u64);

impl Lcg {
    fn pick<'a>(&mut self, from: &[&'a str]) -> &'a str {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        from[(self.0 >> 33) as usize % from.len()]
    }
}

#[test]
fn parse_display_parse_round_trips() {
    let mut rng = Lcg(42);
    for _ in 0..2000 {
        let mut text = format!("{}{}", rng.pick(NAMES), rng.pick(VERSIONS));
        let mut seen = Vec::new();
        for _ in 0..3 {
            let attr = rng.pick(ATTRS);
            // A repeated variant or arch key is a different test.
            let key = attr
                .trim_start_matches(['+', '~', '-', '%'])
                .split(['=', '@'])
                .next()
                .unwrap_or(attr);
            if !seen.contains(&key) {
                seen.push(key);
                text.push(' ');
                text.push_str(attr);
            }
        }
        text.push(' ');
        text.push_str(rng.pick(DEPS));
        let first = parse(&text).unwrap_or_else(|e| panic!("{text:?}:\n{e}"));
        let shown = first.to_string();
        let second =
            parse(&shown).unwrap_or_else(|e| panic!("{text:?} rendered as {shown:?}:\n{e}"));
        assert_eq!(second.to_string(), shown, "from {text:?}");
        assert_eq!(first.name, second.name, "{text:?}");
        assert_eq!(first.versions, second.versions, "{text:?}");
        assert_eq!(first.variants.len(), second.variants.len(), "{text:?}");
        assert_eq!(first.arch, second.arch, "{text:?}");
        assert_eq!(
            first.dependencies.len(),
            second.dependencies.len(),
            "{text:?}"
        );
        assert!(first.equivalent(&second), "{text:?} vs {shown:?}");
    }
}
