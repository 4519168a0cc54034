//! Build-system methods: `cmake_args`, `configure_args`, `meson_args`,
//! `install_targets`, or an `install` stub (see [`super::install`] for
//! the `install()` of a build without install rules).

use crate::brief::{BriefVariant, SpackBrief, VariantDefault};
use packsmith_spack_knowledge::pylayout::{call, list_assignment};
use packsmith_spack_knowledge::pystr::py_str;

fn has_base(b: &SpackBrief, base: &str) -> bool {
    b.base_classes.iter().any(|c| c == base)
}

/// The methods after the directives (empty when the base class needs none).
pub fn render_methods(b: &SpackBrief) -> Vec<String> {
    let base = b.base_classes.first().map(String::as_str);
    let mut out = match &b.makefile_template {
        Some(template) if base == Some("MakefilePackage") => makefile_from_template(template),
        _ => Vec::new(),
    };
    if base == Some("MakefilePackage") && !b.mpi_wrappers.is_empty() {
        push_method(&mut out, make_with_mpi_wrappers(b));
    }
    if let (Some("MakefilePackage" | "Package"), Some(plan)) = (base, &b.install) {
        push_method(&mut out, super::install::render_install(plan));
        return out;
    }
    let methods = match base {
        Some("CMakePackage") => cmake_args(b),
        Some("AutotoolsPackage") => configure_args(b),
        Some("MesonPackage") => meson_args(b),
        Some("MakefilePackage") => {
            makefile(b.make_prefix_variable.as_deref(), b.make_prefix_is_bin)
        }
        Some("PythonPackage") => scm_version(&b.scm_version_env),
        Some("CargoPackage" | "GoPackage") => Vec::new(),
        _ => generic_install(),
    };
    push_method(&mut out, methods);
    // A hand-written configure: its Makefile takes the prefix at install.
    if let (Some("AutotoolsPackage"), Some(var)) = (base, &b.make_prefix_variable) {
        push_method(&mut out, makefile(Some(var), b.make_prefix_is_bin));
    }
    if let (Some("PythonPackage"), Some(dir)) = (base, &b.build_directory) {
        if !b.files_into_build_directory.is_empty() {
            push_method(
                &mut out,
                copy_into_build(dir, &b.files_into_build_directory),
            );
        }
    }
    if base == Some("CMakePackage") && !b.home_install_files.is_empty() {
        push_method(&mut out, home_install_patch(&b.home_install_files));
    }
    if let (Some("CMakePackage"), Some(plan)) = (base, &b.install) {
        push_method(&mut out, super::install::render_install(plan));
    }
    out
}

/// Appends `method` after the methods in `out`, a blank line between.
fn push_method(out: &mut Vec<String>, method: Vec<String>) {
    if !out.is_empty() && !method.is_empty() {
        out.push(String::new());
    }
    out.extend(method);
}

/// `patch()` pointing installs into `$ENV{HOME}` at the prefix.
fn home_install_patch(files: &[String]) -> Vec<String> {
    let lines = files.iter().map(|f| {
        format!(
            "filter_file(r\"\\$ENV\\{{HOME\\}}\", \"${{CMAKE_INSTALL_PREFIX}}\", {})",
            py_str(f)
        )
    });
    patch_method(
        "Upstream installs into $HOME; install into the prefix instead.",
        lines,
    )
}

/// `patch()` copying a Makefile shipped under another name to `Makefile`
/// beside it: make, and the Makefile's own rules, read that name.
fn makefile_from_template(template: &str) -> Vec<String> {
    let target = match template.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/Makefile"),
        None => "Makefile".to_string(),
    };
    patch_method(
        "The Makefile ships under another name; make reads `Makefile`.",
        std::iter::once(format!("copy({}, {})", py_str(template), py_str(&target))),
    )
}

/// `patch()` copying files the metadata in `dir` names from the top.
fn copy_into_build(dir: &str, files: &[String]) -> Vec<String> {
    let lines = files.iter().map(|f| {
        format!(
            "copy({}, join_path({}, {}))",
            py_str(f),
            py_str(dir),
            py_str(f)
        )
    });
    patch_method(
        "The metadata names files only the top of the source has.",
        lines,
    )
}

/// `def patch(self):`, a comment saying why, then `lines`.
fn patch_method(why: &str, lines: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = vec![
        "    def patch(self):".to_string(),
        format!("        # {why}"),
    ];
    out.extend(lines.map(|l| format!("        {l}")));
    out
}

/// `setup_build_environment` giving a git-versioned build its version.
fn scm_version(vars: &[String]) -> Vec<String> {
    if vars.is_empty() {
        return Vec::new();
    }
    let mut out = vec![
        "    def setup_build_environment(self, env):".to_string(),
        "        # The build reads its version from git metadata, which the archive lacks.".into(),
    ];
    out.extend(
        vars.iter()
            .map(|v| format!("        env.set({}, str(self.spec.version))", py_str(v))),
    );
    out
}

/// `def name(self): args = [...]; <tail>; return args`, or nothing when
/// there is nothing to pass: a reviewer asks for an empty method to go, and
/// a repair that needs one adds it.
fn list_method(name: &str, items: Vec<String>, tail: Vec<String>) -> Vec<String> {
    if items.is_empty() && tail.is_empty() {
        return Vec::new();
    }
    let mut out = vec![format!("    def {name}(self):")];
    out.extend(list_assignment("        ", "args", &items));
    out.extend(tail);
    out.push("        return args".into());
    out
}

fn cmake_args(b: &SpackBrief) -> Vec<String> {
    let mut items = Vec::new();
    for d in &b.defines {
        match (&d.variant, &d.value) {
            (Some(v), _) => items.push(format!(
                "self.define_from_variant({}, {})",
                py_str(&d.key),
                py_str(v)
            )),
            (None, Some(value)) => items.push(format!("self.define({}, {value})", py_str(&d.key))),
            (None, None) => {}
        }
    }
    let mut tail = Vec::new();
    if has_base(b, "CudaPackage") {
        tail.push("        if self.spec.satisfies(\"+cuda\"):".into());
        tail.extend(call(
            "            ",
            "args.append",
            &["self.define(\"CMAKE_CUDA_ARCHITECTURES\", self.spec.variants[\"cuda_arch\"].value)"
                .into()],
        ));
    }
    if has_base(b, "ROCmPackage") {
        tail.push("        if self.spec.satisfies(\"+rocm\"):".into());
        tail.extend(call(
            "            ",
            "args.append",
            &["self.define(\"CMAKE_HIP_ARCHITECTURES\", self.spec.variants[\"amdgpu_target\"].value)"
                .into()],
        ));
    }
    list_method("cmake_args", items, tail)
}

/// `--enable-foo` / `--with-foo` → (`with`?, `foo`).
fn autotools_feature(v: &BriefVariant) -> (bool, String) {
    let o = v.option.trim();
    for (prefix, with) in [
        ("--enable-", false),
        ("--disable-", false),
        ("--with-", true),
        ("--without-", true),
        ("enable-", false),
        ("with-", true),
    ] {
        if let Some(rest) = o.strip_prefix(prefix) {
            let name = rest.split('=').next().unwrap_or(rest);
            return (with, name.to_string());
        }
    }
    (false, o.to_string())
}

fn configure_args(b: &SpackBrief) -> Vec<String> {
    let mut tail = Vec::new();
    for v in &b.variants {
        let (with, feature) = autotools_feature(v);
        let helper = if with {
            "with_or_without"
        } else {
            "enable_or_disable"
        };
        let mut args = vec![py_str(&feature)];
        if feature != v.name {
            args.push(format!("variant={}", py_str(&v.name)));
        }
        tail.extend(call(
            "        ",
            "args.extend",
            &[format!("self.{helper}({})", args.join(", "))],
        ));
    }
    let mut items = mpi_wrapper_items(b);
    for dir in &b.prefix_dirs {
        // configure.ac points these at the system unless given.
        let under = match dir.as_str() {
            "sysconfdir" => "etc",
            "runstatedir" => "var.run",
            _ => "var",
        };
        items.push(format!("f\"--{dir}={{self.prefix.{under}}}\""));
    }
    let mut out = Vec::new();
    if b.configure_made_executable {
        out.extend([
            "    @run_before(\"configure\")".to_string(),
            "    def make_configure_executable(self):".to_string(),
            "        # configure ships without its executable bit".to_string(),
            "        set_executable(self.configure_abs_path)".to_string(),
            String::new(),
        ]);
    }
    if let Some(template) = &b.configure_template {
        out.extend([
            "    def autoreconf(self, spec, prefix):".to_string(),
            format!("        # configure.ac ships as the template {template}"),
            format!("        copy({}, \"configure.ac\")", py_str(template)),
            "        autoreconf(\"--install\", \"--verbose\", \"--force\")".to_string(),
            String::new(),
        ]);
    }
    out.extend(list_method("configure_args", items, tail));
    if out.last().is_some_and(String::is_empty) {
        out.pop();
    }
    out
}

fn meson_args(b: &SpackBrief) -> Vec<String> {
    let mut items = Vec::new();
    for v in &b.variants {
        let key = v.option.trim_start_matches("-D");
        let item = match v.default {
            VariantDefault::Bool(_) => format!(
                "\"-D{key}=\" + (\"true\" if self.spec.satisfies({}) else \"false\")",
                py_str(&format!("+{}", v.name))
            ),
            VariantDefault::Str(_) => format!(
                "\"-D{key}=\" + str(self.spec.variants[{}].value)",
                py_str(&v.name)
            ),
        };
        items.push(item);
    }
    list_method("meson_args", items, Vec::new())
}

/// `VAR=<MPI wrapper>` for each compiler variable in `b.mpi_wrappers`, as
/// Python f-strings.
fn mpi_wrapper_items(b: &SpackBrief) -> Vec<String> {
    b.mpi_wrappers
        .iter()
        .map(|var| {
            let attr = match var.as_str() {
                "CC" => "mpicc",
                "CXX" => "mpicxx",
                "F77" => "mpif77",
                _ => "mpifc",
            };
            format!("f\"{var}={{self.spec['mpi'].{attr}}}\"")
        })
        .collect()
}

/// `build_targets` of a Makefile that compiles MPI code with the plain
/// compiler: the targets, then MPI's wrapper for each compiler variable.
fn make_with_mpi_wrappers(b: &SpackBrief) -> Vec<String> {
    let mut items = super::directives::quoted(&b.build_targets);
    items.extend(mpi_wrapper_items(b));
    let mut out = vec!["    @property".to_string()];
    out.extend(list_method("build_targets", items, Vec::new()));
    out
}

/// `make install` with the Makefile's own prefix variable, when the
/// analysis found it (a wrong name installs into `/usr/local`).
fn makefile(prefix_variable: Option<&str>, is_bin: bool) -> Vec<String> {
    let mut out = vec![
        "    @property".into(),
        "    def install_targets(self):".into(),
    ];
    if prefix_variable.is_none() {
        out.push("        # FIXME: check how the Makefile takes the installation prefix.".into());
    }
    let var = prefix_variable.unwrap_or("PREFIX");
    let dir = if is_bin {
        "self.prefix.bin"
    } else {
        "self.prefix"
    };
    out.push(format!(
        "        return [f\"{var}={{{dir}}}\", \"install\"]"
    ));
    out
}

fn generic_install() -> Vec<String> {
    vec![
        "    def install(self, spec, prefix):".into(),
        "        # FIXME: no build system Spack supports was recognised; write the build".into(),
        "        # and install steps here.".into(),
        "        raise InstallError(\"FIXME: the install steps are not written yet\")".into(),
    ]
}
