use serde_json::json;

use super::schema::{edit_schema, Menu};
use super::*;
use crate::recipe::parse_recipe;

const RECIPE: &str = r#"# Copyright Spack Project Developers.
#
# SPDX-License-Identifier: (Apache-2.0 OR MIT)

from spack.package import *


class Heatsim(CMakePackage):
    """A heat equation solver."""

    homepage = "https://example.org/heatsim"
    url = "https://example.org/heatsim-1.0.tar.gz"

    version("1.0", sha256="0" * 64)

    variant("mpi", default=True, description="Use MPI")
    variant(
        "precision",
        default="double",
        values=("single", "double"),
        description="Floating point precision",
    )

    depends_on("cmake@3.16:", type="build")
    depends_on("mpi", when="+mpi")
    depends_on("zlib-api")

    def cmake_args(self):
        args = [
            self.define_from_variant("HEATSIM_MPI", "mpi"),
            self.define("HEATSIM_TESTS", False),
        ]
        return args
"#;

fn apply(op: EditOp) -> String {
    let out = apply_edits(RECIPE, &[op]).expect("the edit applies");
    assert!(
        parse_recipe(&out, "package.py").syntax_errors.is_empty(),
        "the result parses:\n{out}"
    );
    out
}

fn changed_lines(after: &str) -> (Vec<String>, Vec<String>) {
    let before: Vec<&str> = RECIPE.lines().collect();
    let after_lines: Vec<&str> = after.lines().collect();
    let removed = before
        .iter()
        .filter(|l| !after_lines.contains(l))
        .map(|l| l.to_string())
        .collect();
    let added = after_lines
        .iter()
        .filter(|l| !before.contains(l))
        .map(|l| l.to_string())
        .collect();
    (removed, added)
}

#[test]
fn add_dependency_goes_after_the_last_one() {
    let out = apply(EditOp::AddDependency {
        spec: "hdf5@1.10:".into(),
        when: Some("+mpi".into()),
        types: vec!["build".into(), "link".into()],
    });
    assert!(out.contains(
        "    depends_on(\"zlib-api\")\n    depends_on(\"hdf5@1.10:\", type=(\"build\", \"link\"), when=\"+mpi\")\n"
    ));
}

#[test]
fn add_dependency_beside_a_line_in_a_with_block_is_indented_as_it_is() {
    let recipe = "from spack.package import *\n\n\nclass PyYarl(PythonPackage):\n    \
                  pypi = \"yarl/yarl-1.18.3.tar.gz\"\n\n    version(\"1.18.3\", sha256=\"ab\")\n\n    \
                  with default_args(type=(\"build\", \"run\")):\n        \
                  depends_on(\"py-propcache@0.2:\", when=\"@1.14:\")\n        \
                  depends_on(\"py-idna@2.0:\")\n";
    let out = apply_edits(
        recipe,
        &[EditOp::AddDependency {
            spec: "py-propcache@0.2.1:".into(),
            when: Some("@1.22.0:".into()),
            types: vec!["build".into(), "run".into()],
        }],
    )
    .expect("the edit applies");
    assert!(
        out.contains(
            "        depends_on(\"py-propcache@0.2:\", when=\"@1.14:\")\n        \
             depends_on(\"py-propcache@0.2.1:\", type=(\"build\", \"run\"), when=\"@1.22.0:\")\n        \
             depends_on(\"py-idna@2.0:\")\n"
        ),
        "{out}"
    );
}

#[test]
fn add_dependency_refuses_a_duplicate_and_a_bad_spec() {
    let dup = apply_edits(
        RECIPE,
        &[EditOp::AddDependency {
            spec: "zlib-api".into(),
            when: None,
            types: vec![],
        }],
    );
    assert!(dup.unwrap_err().message.contains("already there"));
    let bad = apply_edits(
        RECIPE,
        &[EditOp::AddDependency {
            spec: "hdf5@@".into(),
            when: None,
            types: vec![],
        }],
    );
    assert!(bad.unwrap_err().message.contains("not a valid spec"));
}

#[test]
fn remove_and_rename_dependency() {
    let out = apply(EditOp::RemoveDependency { name: "mpi".into() });
    assert_eq!(
        changed_lines(&out),
        (
            vec!["    depends_on(\"mpi\", when=\"+mpi\")".to_string()],
            vec![]
        )
    );
    let out = apply(EditOp::RenameDependency {
        from: "cmake".into(),
        to: "ninja".into(),
    });
    assert!(out.contains("depends_on(\"ninja@3.16:\", type=\"build\")"));
    let missing = apply_edits(
        RECIPE,
        &[EditOp::RemoveDependency {
            name: "boost".into(),
        }],
    );
    assert_eq!(missing.unwrap_err().index, 1);
}

#[test]
fn variants_are_added_and_their_defaults_set() {
    let out = apply(EditOp::AddVariant {
        name: "openmp".into(),
        default: json!(false),
        description: Some("Use OpenMP".into()),
        values: vec![],
        when: None,
    });
    assert!(out.contains(
        "        description=\"Floating point precision\",\n    )\n    variant(\"openmp\", default=False, description=\"Use OpenMP\")\n"
    ));
    let out = apply(EditOp::SetVariantDefault {
        name: "precision".into(),
        default: json!("single"),
    });
    assert!(out.contains("        default=\"single\",\n"));
    let empty = apply_edits(
        RECIPE,
        &[EditOp::SetVariantDefault {
            name: "precision".into(),
            default: json!(""),
        }],
    );
    assert!(empty.unwrap_err().message.contains("empty string"));
}

#[test]
fn when_is_set_changed_and_removed() {
    let out = apply(EditOp::SetWhen {
        line: 26,
        when: Some("+mpi".into()),
    });
    assert!(out.contains("    depends_on(\"zlib-api\", when=\"+mpi\")\n"));
    let out = apply(EditOp::SetWhen {
        line: 25,
        when: None,
    });
    assert!(out.contains("    depends_on(\"mpi\")\n"));
    let out = apply(EditOp::SetWhen {
        line: 25,
        when: Some("+mpi platform=linux".into()),
    });
    assert!(out.contains("depends_on(\"mpi\", when=\"+mpi platform=linux\")"));
    let none = apply_edits(
        RECIPE,
        &[EditOp::SetWhen {
            line: 3,
            when: None,
        }],
    );
    assert!(none
        .unwrap_err()
        .message
        .contains("no directive starts on line 3"));
}

#[test]
fn cmake_defines_are_added_to_the_returned_list_and_removed() {
    let out = apply(EditOp::AddCmakeDefine {
        name: "HEATSIM_DOWNLOAD".into(),
        value: json!("OFF"),
    });
    assert!(out.contains(
        "        args.append(self.define(\"HEATSIM_DOWNLOAD\", False))\n        return args\n"
    ));
    let out = apply(EditOp::AddCmakeDefine {
        name: "BUILD_TESTING".into(),
        value: json!("self.run_tests"),
    });
    assert!(out.contains("self.define(\"BUILD_TESTING\", self.run_tests)"));
    let out = apply(EditOp::RemoveCmakeDefine {
        name: "HEATSIM_TESTS".into(),
    });
    assert_eq!(
        changed_lines(&out),
        (
            vec!["            self.define(\"HEATSIM_TESTS\", False),".to_string()],
            vec![]
        )
    );
    // A define the method sets already takes the new value, once.
    let changed = apply(EditOp::AddCmakeDefine {
        name: "HEATSIM_TESTS".into(),
        value: json!(true),
    });
    assert_eq!(changed.matches("\"HEATSIM_TESTS\"").count(), 1, "{changed}");
    assert!(
        changed.contains("self.define(\"HEATSIM_TESTS\", True)"),
        "{changed}"
    );
    let same = apply_edits(
        RECIPE,
        &[EditOp::AddCmakeDefine {
            name: "HEATSIM_TESTS".into(),
            value: json!(false),
        }],
    );
    assert!(same.unwrap_err().message.contains("changes nothing"));
}

#[test]
fn a_missing_method_is_added() {
    let out = apply(EditOp::AddConfigureArg {
        arg: "--without-x".into(),
    });
    assert!(out.ends_with("    def configure_args(self):\n        return [\"--without-x\"]\n"));
    // A Meson package's `-Dx=y` goes to meson_args.
    let meson = RECIPE.replace("(CMakePackage)", "(MesonPackage)");
    let out = apply_edits(
        &meson,
        &[EditOp::AddConfigureArg {
            arg: "-Dtests=false".into(),
        }],
    )
    .unwrap();
    assert!(out.ends_with("    def meson_args(self):\n        return [\"-Dtests=false\"]\n"));
    let out = apply(EditOp::AddCompilerFlag {
        flag: "-fallow-argument-mismatch".into(),
        flags: "fflags".into(),
        when: "%gcc@10:".into(),
    });
    assert!(out.contains(
        "    def flag_handler(self, name, flags):\n        if name == \"fflags\" and self.spec.satisfies(\"%gcc@10:\"):\n            flags.append(\"-fallow-argument-mismatch\")\n        return (flags, None, None)\n"
    ));
}

#[test]
fn compiler_flags_gather_in_one_flag_handler() {
    // A macro for every compiler (no `when`), then another: the second goes
    // into the handler the first made, before its return.
    let define = |recipe: &str, flag: &str| {
        apply_edits(
            recipe,
            &[EditOp::AddCompilerFlag {
                flag: flag.into(),
                flags: "fflags".into(),
                when: String::new(),
            }],
        )
    };
    let one = define(RECIPE, "-DEOS_17T").unwrap();
    let two = define(&one, "-DEOS_SIG2").unwrap();
    assert!(two.ends_with(
        "    def flag_handler(self, name, flags):\n        if name == \"fflags\":\n            flags.append(\"-DEOS_17T\")\n        if name == \"fflags\":\n            flags.append(\"-DEOS_SIG2\")\n        return (flags, None, None)\n"
    ));
    // A handler of another shape is not edited blindly.
    let own = format!("{RECIPE}\n    def flag_handler(self, name, flags):\n        return self.inject_flags(name, flags)\n");
    let err = define(&own, "-DX").unwrap_err().to_string();
    assert!(
        err.contains("does not end with `return (flags, …)`"),
        "{err}"
    );
}

#[test]
fn header_edits() {
    let without = RECIPE.replace("from spack.package import *\n", "");
    let out = apply_edits(&without, &[EditOp::AddSpackImport {}]).unwrap();
    assert!(out.contains(
        "# SPDX-License-Identifier: (Apache-2.0 OR MIT)\n\nfrom spack.package import *\n\n"
    ));
    let broken_base = RECIPE.replace("(CMakePackage)", "(CmakePackage)");
    let out = apply_edits(
        &broken_base,
        &[EditOp::ChangeBaseClass {
            from: "CmakePackage".into(),
            to: "CMakePackage".into(),
        }],
    )
    .unwrap();
    assert_eq!(out, RECIPE);
    let out = apply(EditOp::ReplaceLine {
        line: 26,
        end_line: None,
        text: "depends_on(\"zlib\")".into(),
    });
    assert!(out.contains("\n    depends_on(\"zlib\")\n"));
}

#[test]
fn a_line_written_over_a_blank_line_takes_the_indentation_of_the_code() {
    // Line 13 is the blank line after `url = …`, inside the class.
    let out = apply(EditOp::ReplaceLine {
        line: 13,
        end_line: None,
        text: "depends_on('cmake@3.8:', type='build')".into(),
    });
    assert!(
        out.contains("    url = \"https://example.org/heatsim-1.0.tar.gz\"\n    depends_on('cmake@3.8:', type='build')\n    version("),
        "{out}"
    );
}

#[test]
fn a_whole_statement_replaces_the_call_its_first_line_opens() {
    // Line 17 opens the six-line `variant(`; a balanced replacement
    // means the whole call, not its first line.
    let out = apply(EditOp::ReplaceLine {
        line: 17,
        end_line: None,
        text: "variant(\"precision\", default=\"single\", values=(\"single\", \"double\"), description=\"FP\")".into(),
    });
    assert!(out.contains(
        "    variant(\"precision\", default=\"single\", values=(\"single\", \"double\"), description=\"FP\")\n\n    depends_on(\"cmake"
    ));
    assert!(!out.contains("Floating point precision"));
    // An unbalanced replacement stays on its line.
    let out = apply_edits(
        RECIPE,
        &[EditOp::ReplaceLine {
            line: 17,
            end_line: None,
            text: "variant(  # renamed".into(),
        }],
    )
    .unwrap();
    assert!(out.contains("    variant(  # renamed\n        \"precision\",\n"));
    // An explicit range, and one outside the recipe.
    let out = apply(EditOp::ReplaceLine {
        line: 24,
        end_line: Some(26),
        text: "depends_on(\"zlib-api\")".into(),
    });
    assert!(!out.contains("cmake@3.16") && !out.contains("depends_on(\"mpi\""));
    let err = apply_edits(
        RECIPE,
        &[EditOp::ReplaceLine {
            line: 25,
            end_line: Some(24),
            text: String::new(),
        }],
    )
    .unwrap_err();
    assert!(err.message.contains("end_line 24"), "{err}");
}

#[test]
fn copy_file_makes_a_build_file_from_a_template_in_the_edit_phase() {
    let make = RECIPE.replace("(CMakePackage)", "(MakefilePackage)");
    let copy = |from: &str, to: &str| EditOp::CopyFile {
        from: from.into(),
        to: to.into(),
    };
    let out = apply_edits(&make, &[copy("config.mk.template", "config.mk")]).unwrap();
    assert!(
        out.ends_with(
            "    def edit(self, spec, prefix):\n        copy(\"config.mk.template\", \"config.mk\")\n"
        ),
        "{out}"
    );
    // Beside a filter_file, in the same phase; any other package in patch().
    let both = apply_edits(
        &out,
        &[EditOp::FilterFile {
            file: "config.mk".into(),
            regex: "FC = ifort".into(),
            repl: "FC = {spack_fc}".into(),
            literal: true,
        }],
    )
    .unwrap();
    assert_eq!(both.matches("def edit(").count(), 1, "{both}");
    let other = apply_edits(RECIPE, &[copy("config/gnu_one", "config/_")]).unwrap();
    assert!(
        other.ends_with("    def patch(self):\n        copy(\"config/gnu_one\", \"config/_\")\n"),
        "{other}"
    );
    for (from, to, why) in [
        ("../secrets", "config.mk", "not a path inside the source"),
        (
            "config.mk.template",
            "/etc/profile",
            "not a path inside the source",
        ),
        ("config.mk", "config.mk", "onto itself"),
    ] {
        let err = apply_edits(&make, &[copy(from, to)]).unwrap_err();
        assert!(err.message.contains(why), "{from} {to}: {err}");
    }
    let list = parse_edit_list(
        r#"{"edits": [{"op": "copy_file", "from": "make.inc.example", "to": "make.inc"}]}"#,
    )
    .unwrap();
    assert_eq!(list.edits, vec![copy("make.inc.example", "make.inc")]);
}

#[test]
fn filter_file_goes_into_patch_with_spacks_values() {
    let out = apply(EditOp::FilterFile {
        file: "Makefile".into(),
        regex: "CC = gcc".into(),
        repl: "CC = {spack_cc}".into(),
        literal: true,
    });
    assert!(
        out.ends_with(
            "        return args\n\n    def patch(self):\n        filter_file(\"CC = gcc\", f\"CC = {spack_cc}\", \"Makefile\", string=True)\n"
        ),
        "{out}"
    );
    // A second one joins the same patch(); braces that name nothing stay
    // literal, and a regex is checked.
    let twice = apply_edits(
        &out,
        &[EditOp::FilterFile {
            file: "src/Makefile".into(),
            regex: r"^PREFIX\s*=.*".into(),
            repl: "PREFIX = {prefix} ${HOME}".into(),
            literal: false,
        }],
    )
    .unwrap();
    assert!(
        twice.ends_with(
            "string=True)\n        filter_file(r\"^PREFIX\\s*=.*\", f\"PREFIX = {self.prefix} ${{HOME}}\", \"src/Makefile\")\n"
        ),
        "{twice}"
    );
    assert_eq!(twice.matches("def patch(self)").count(), 1);
    // The same rewrite again is refused: it changes nothing.
    let again = apply_edits(
        &out,
        &[EditOp::FilterFile {
            file: "Makefile".into(),
            regex: "CC = gcc".into(),
            repl: "CC = {spack_cc}".into(),
            literal: true,
        }],
    );
    assert!(again
        .unwrap_err()
        .to_string()
        .contains("already has filter_file"));
    // Spack's value is named in braces; the bare word is refused.
    let bare = apply_edits(
        &out,
        &[EditOp::FilterFile {
            file: "Makefile.in".into(),
            regex: "python $< $@".into(),
            repl: "spack_cc $< $@".into(),
            literal: true,
        }],
    );
    assert!(bare
        .unwrap_err()
        .to_string()
        .contains("`spack_cc` without braces"));
    // A Makefile package filters in its `edit` phase.
    let make = RECIPE.replace("(CMakePackage)", "(MakefilePackage)");
    let out = apply_edits(
        &make,
        &[EditOp::FilterFile {
            file: "Makefile".into(),
            regex: "gcc".into(),
            repl: "{spack_cc}".into(),
            literal: true,
        }],
    )
    .unwrap();
    assert!(
        out.ends_with("    def edit(self, spec, prefix):\n        filter_file(\"gcc\", f\"{spack_cc}\", \"Makefile\", string=True)\n"),
        "{out}"
    );
    for (file, regex, literal, why) in [
        ("/etc/passwd", "x", true, "not a path inside the source"),
        ("../Makefile", "x", true, "not a path inside the source"),
        ("Makefile", "(", false, "not a valid regex"),
        ("Makefile", "", true, "empty"),
    ] {
        let err = apply_edits(
            RECIPE,
            &[EditOp::FilterFile {
                file: file.into(),
                regex: regex.into(),
                repl: "y".into(),
                literal,
            }],
        )
        .unwrap_err();
        assert!(err.message.contains(why), "{file} {regex}: {err}");
    }
    // The JSON form: `literal` is true unless said otherwise.
    let list = parse_edit_list(
        r#"{"edits": [{"op": "filter_file", "file": "Makefile", "regex": "gcc", "repl": "{spack_cc}"}]}"#,
    )
    .unwrap();
    assert!(matches!(
        &list.edits[0],
        EditOp::FilterFile { literal: true, .. }
    ));
}

#[test]
fn edits_apply_in_order_and_errors_name_the_edit() {
    let out = apply_edits(
        RECIPE,
        &[
            EditOp::RemoveDependency { name: "mpi".into() },
            EditOp::SetVariantDefault {
                name: "mpi".into(),
                default: json!(false),
            },
        ],
    )
    .unwrap();
    assert!(out.contains("variant(\"mpi\", default=False"));
    let err = apply_edits(
        RECIPE,
        &[
            EditOp::RemoveDependency { name: "mpi".into() },
            EditOp::RemoveDependency { name: "mpi".into() },
        ],
    )
    .unwrap_err();
    assert_eq!((err.index, err.op), (2, "remove_dependency"));
}

#[test]
fn answers_are_read_from_json_with_prose_around_it() {
    let list = parse_edit_list(
        "Here you go:\n```json\n{\"edits\": [{\"op\": \"rename_dependency\", \"from\": \"libz\", \"to\": \"zlib-api\"}]}\n```",
    )
    .unwrap();
    assert_eq!(
        list.edits,
        vec![EditOp::RenameDependency {
            from: "libz".into(),
            to: "zlib-api".into()
        }]
    );
    assert!(parse_edit_list("{\"edits\": [{\"op\": \"rewrite_everything\"}]}").is_err());
    assert!(parse_edit_list("no json").is_err());
}

#[test]
fn the_schema_offers_only_the_menu_with_its_candidates() {
    let menu = Menu {
        ops: vec![OpKind::RenameDependency, OpKind::RemoveDependency],
        packages: vec!["zlib-api".into(), "zlib-ng".into()],
        dependencies: vec!["libz".into()],
        max_edits: 2,
        ..Menu::default()
    };
    let schema = edit_schema(&menu);
    let items = &schema["properties"]["edits"]["items"]["oneOf"];
    assert_eq!(items.as_array().unwrap().len(), 2);
    assert_eq!(items[0]["properties"]["op"]["const"], "rename_dependency");
    assert_eq!(
        items[0]["properties"]["to"]["enum"],
        json!(["zlib-api", "zlib-ng"])
    );
    assert_eq!(schema["properties"]["edits"]["maxItems"], 2);
    // Every operation's schema accepts its own JSON form.
    let op = EditOp::RenameDependency {
        from: "libz".into(),
        to: "zlib-api".into(),
    };
    let value = serde_json::to_value(&op).unwrap();
    assert_eq!(value["op"], "rename_dependency");
}

#[test]
fn a_filter_file_may_only_name_the_files_the_failure_names_when_there_are_some() {
    let filter = |menu: &Menu| {
        edit_schema(menu)["properties"]["edits"]["items"]["oneOf"][0]["properties"]["file"].clone()
    };
    let mut menu = Menu {
        ops: vec![OpKind::FilterFile],
        max_edits: 1,
        ..Menu::default()
    };
    assert_eq!(filter(&menu), json!({"type": "string"}));
    menu.files = vec!["blitz/generate/Makefile.in".into()];
    assert_eq!(filter(&menu)["enum"], json!(["blitz/generate/Makefile.in"]));
}

#[test]
fn a_compiler_flag_may_only_be_a_listed_macro_for_every_compiler_when_there_are_some() {
    let flag = |menu: &Menu| {
        edit_schema(menu)["properties"]["edits"]["items"]["oneOf"][0]["properties"].clone()
    };
    let mut menu = Menu {
        ops: vec![OpKind::AddCompilerFlag],
        max_edits: 1,
        ..Menu::default()
    };
    assert_eq!(flag(&menu)["flag"], json!({"type": "string"}));
    assert_eq!(flag(&menu)["when"], json!({"type": "string"}));
    menu.flag_values = vec!["-DEOS_7T".into(), "-DEOS_17T".into()];
    menu.flag_kinds = vec!["fflags".into()];
    let props = flag(&menu);
    assert_eq!(props["flag"]["enum"], json!(["-DEOS_7T", "-DEOS_17T"]));
    assert_eq!(props["flags"]["enum"], json!(["fflags"]));
    assert_eq!(props["when"]["enum"], json!([""]));
}

#[test]
fn add_method_appends_at_the_end_of_the_class_once() {
    let method = "    def install(self, spec, prefix):\n        make(\"install\")\n";
    let out = apply(EditOp::AddMethod {
        text: method.into(),
    });
    assert!(
        out.ends_with("        return args\n\n    def install(self, spec, prefix):\n        make(\"install\")\n"),
        "{out}"
    );
    // Written without indentation or final newline: indented for the class.
    let out2 = apply(EditOp::AddMethod {
        text: "def install(self, spec, prefix):\n    make(\"install\")".into(),
    });
    assert_eq!(out, out2);
    // At the end of the class, not of the file.
    let with_tail = format!("{RECIPE}\n\ndef helper():\n    return 1\n");
    let out = apply_edits(
        &with_tail,
        &[EditOp::AddMethod {
            text: method.into(),
        }],
    )
    .unwrap();
    assert!(
        out.contains("        return args\n\n    def install(self, spec, prefix):\n        make(\"install\")\n\n\ndef helper():"),
        "{out}"
    );
    // A second method of that name, or a text that is no method: refused.
    let err = apply_edits(
        RECIPE,
        &[EditOp::AddMethod {
            text: "    def cmake_args(self):\n        return []\n".into(),
        }],
    )
    .unwrap_err();
    assert!(err.message.contains("cmake_args already"), "{err}");
    assert_eq!(err.op, "add_method");
    for bad in [
        "    x = 1\n",
        "    def install(self:\n        pass\n",
        "    def f(self):\n  pass\n",
    ] {
        assert!(
            apply_edits(RECIPE, &[EditOp::AddMethod { text: bad.into() }]).is_err(),
            "{bad}"
        );
    }
    // Decorators come with the method.
    let out = apply(EditOp::AddMethod {
        text: "    @run_after(\"install\")\n    def check_it(self):\n        pass\n".into(),
    });
    assert!(
        out.ends_with("\n\n    @run_after(\"install\")\n    def check_it(self):\n        pass\n")
    );
}

#[test]
fn set_attribute_goes_before_the_versions_once() {
    let out = apply(EditOp::SetAttribute {
        name: "parallel".into(),
        value: json!(false),
    });
    assert!(
        out.contains("    url = \"https://example.org/heatsim-1.0.tar.gz\"\n\n    parallel = False\n\n    version(\"1.0\""),
        "{out}"
    );
    let err = apply_edits(
        &out,
        &[EditOp::SetAttribute {
            name: "parallel".into(),
            value: json!(true),
        }],
    )
    .unwrap_err();
    assert!(err.message.contains("sets parallel already"), "{err}");
    // Without versions: after the docstring; without one, first.
    let bare = "class Demo(Package):\n    \"\"\"Demo.\"\"\"\n\n    homepage = \"x\"\n";
    let out = apply_edits(
        bare,
        &[EditOp::SetAttribute {
            name: "parallel".into(),
            value: json!(false),
        }],
    )
    .unwrap();
    assert_eq!(
        out,
        "class Demo(Package):\n    \"\"\"Demo.\"\"\"\n\n    parallel = False\n\n    homepage = \"x\"\n"
    );
    let out = apply_edits(
        "class Demo(Package):\n    homepage = \"x\"\n",
        &[EditOp::SetAttribute {
            name: "maintainers".into(),
            value: json!("someone"),
        }],
    )
    .unwrap();
    assert_eq!(
        out,
        "class Demo(Package):\n    maintainers = \"someone\"\n\n    homepage = \"x\"\n"
    );
    // An attribute set inside a `with` block counts; a bad name is refused.
    let in_with = "class Demo(Package):\n    with when(\"+x\"):\n        parallel = False\n";
    for (text, name) in [(in_with, "parallel"), (RECIPE, "not a name")] {
        assert!(apply_edits(
            text,
            &[EditOp::SetAttribute {
                name: name.into(),
                value: json!(false),
            }]
        )
        .is_err());
    }
}

#[test]
fn disable_dependency_comments_out_every_line_of_each_call() {
    let recipe = RECIPE.replace(
        "    depends_on(\"zlib-api\")\n",
        "    depends_on(\"zlib-api\")  # why not\n    depends_on(\n        \"zlib-api@1.2:\",\n        when=\"@2:\",\n    )\n",
    );
    let note = "Spack has no package `zlib-api`";
    let out = apply_edits(
        &recipe,
        &[EditOp::DisableDependency {
            name: "zlib-api".into(),
            note: note.into(),
        }],
    )
    .unwrap();
    assert!(
        out.contains(
            "    depends_on(\"mpi\", when=\"+mpi\")\n    \
             # FIXME: Spack has no package `zlib-api`: depends_on(\"zlib-api\")  # why not\n    \
             # FIXME: Spack has no package `zlib-api`: depends_on(\n        \
             # \"zlib-api@1.2:\",\n        # when=\"@2:\",\n    # )\n\n    def cmake_args"
        ),
        "{out}"
    );
    let parsed = parse_recipe(&out, "package.py");
    assert!(parsed.syntax_errors.is_empty(), "{out}");
    assert!(!parsed.dependencies.iter().any(|d| d.name == "zlib-api"));
    // Nothing left to comment out; a block it would empty: refused.
    assert!(apply_edits(
        &out,
        &[EditOp::DisableDependency {
            name: "zlib-api".into(),
            note: note.into(),
        }]
    )
    .is_err());
    let with = "class Demo(Package):\n    with when(\"+x\"):\n        depends_on(\"zlib-api\")\n";
    let err = apply_edits(
        with,
        &[EditOp::DisableDependency {
            name: "zlib-api".into(),
            note: note.into(),
        }],
    )
    .unwrap_err();
    assert!(
        err.message.contains("leave a block with no statement"),
        "{err}"
    );
    // A block that keeps a statement is fine.
    let kept = with.replace(
        "        depends_on(\"zlib-api\")\n",
        "        depends_on(\"zlib-api\")\n        depends_on(\"bzip2\")\n",
    );
    let out = apply_edits(
        &kept,
        &[EditOp::DisableDependency {
            name: "zlib-api".into(),
            note: note.into(),
        }],
    )
    .unwrap();
    assert!(out.contains("        # FIXME: Spack has no package `zlib-api`: depends_on(\"zlib-api\")\n        depends_on(\"bzip2\")\n"), "{out}");
}

#[test]
fn the_rule_only_operations_are_never_offered_to_a_model() {
    let rule_only = [
        OpKind::AddMethod,
        OpKind::SetAttribute,
        OpKind::DisableDependency,
        OpKind::SetAttributeValue,
        OpKind::SetChecksum,
        OpKind::AddClassLines,
        OpKind::ReplaceStarImport,
    ];
    let menu = Menu {
        ops: [&[OpKind::ReplaceLine][..], &rule_only[..]].concat(),
        max_edits: 2,
        ..Menu::default()
    };
    let schema = edit_schema(&menu);
    let items = schema["properties"]["edits"]["items"]["oneOf"]
        .as_array()
        .unwrap();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["properties"]["op"]["const"], "replace_line");
    for kind in rule_only {
        assert!(kind.rule_only());
        let answer = format!("{{\"edits\": [{{\"op\": \"{}\"}}]}}", kind.as_str());
        assert!(parse_edit_list(&answer).is_err(), "{answer}");
    }
    let answer = r#"{"edits": [{"op": "set_attribute", "name": "parallel", "value": false}]}"#;
    let err = parse_edit_list(answer).unwrap_err();
    assert!(
        err.contains("set_attribute is not an operation on offer"),
        "{err}"
    );
    assert!(!OpKind::ReplaceLine.rule_only());
    // A candidate that carries one does not put it on the menu.
    let candidate = super::candidates::Candidate {
        edits: vec![EditOp::SetAttribute {
            name: "parallel".into(),
            value: json!(false),
        }],
        why: "t".into(),
    };
    let ops = super::candidates::menu_ops(&[candidate], "compilation");
    assert!(!ops.iter().any(|k| k.rule_only()), "{ops:?}");
}

#[test]
fn set_attribute_value_replaces_the_class_level_value_only() {
    let out = apply(EditOp::SetAttributeValue {
        name: "url".into(),
        value: json!("file:///mirror/heatsim-1.0.tar.gz"),
    });
    let (removed, added) = changed_lines(&out);
    assert_eq!(
        removed,
        vec!["    url = \"https://example.org/heatsim-1.0.tar.gz\"".to_string()]
    );
    assert_eq!(
        added,
        vec!["    url = \"file:///mirror/heatsim-1.0.tar.gz\"".to_string()]
    );
    // A `url` in the docstring, a comment or a method is not the class's.
    let recipe = "class Demo(Package):\n    \"\"\"Demo.\n\n    url = 'https://old'\n    \"\"\"\n\n    # url = \"https://comment\"\n    url = 'https://a' + 'b'\n\n    def url_for_version(self, version):\n        url = \"https://method/{0}\"\n        return url.format(version)\n";
    let out = apply_edits(
        recipe,
        &[EditOp::SetAttributeValue {
            name: "url".into(),
            value: json!("https://new"),
        }],
    )
    .unwrap();
    assert_eq!(
        out,
        recipe.replace("url = 'https://a' + 'b'", "url = \"https://new\"")
    );
    // Every class-level assignment (in a `with` block too); not a branch's.
    let twice = "class Demo(Package):\n    url = \"a\"\n    with default_args(type=\"build\"):\n        url = b = \"c\"\n    if True:\n        url = \"d\"\n";
    let out = apply_edits(
        twice,
        &[EditOp::SetAttributeValue {
            name: "url".into(),
            value: json!("x"),
        }],
    )
    .unwrap();
    assert_eq!(
        out,
        "class Demo(Package):\n    url = \"x\"\n    with default_args(type=\"build\"):\n        url = b = \"x\"\n    if True:\n        url = \"d\"\n"
    );
    // None to replace, or one without a value: refused.
    let err = apply_edits(
        "class Demo(Package):\n    git = \"https://g\"\n    def f(self):\n        url = 1\n",
        &[EditOp::SetAttributeValue {
            name: "url".into(),
            value: json!("x"),
        }],
    )
    .unwrap_err();
    assert_eq!(err.op, "set_attribute_value");
    assert!(
        err.message.contains("Demo sets no url at class level"),
        "{err}"
    );
    let err = apply_edits(
        "class Demo(Package):\n    url: str\n",
        &[EditOp::SetAttributeValue {
            name: "url".into(),
            value: json!("x"),
        }],
    )
    .unwrap_err();
    assert!(err.message.contains("without a value"), "{err}");
}

#[test]
fn attributes_carry_their_value_span_and_literal() {
    let tree = RecipeTree::parse(
        "class Demo(Package):\n    url = \"https://a\"\n    parallel = False\n    x: int\n    y = f\"{x}\"\n",
        "package.py",
    );
    let class = tree.package_class().unwrap();
    let src = tree.source();
    let found: Vec<(&str, &str, Option<&str>)> = class
        .attributes
        .iter()
        .map(|a| (a.name.as_str(), &src[a.value.clone()], a.literal.as_deref()))
        .collect();
    assert_eq!(
        found,
        vec![
            ("url", "\"https://a\"", Some("https://a")),
            ("parallel", "False", None),
            ("x", "", None),
            ("y", "f\"{x}\"", None),
        ]
    );
    assert_eq!(
        &src[class.attributes[1].lines.clone()],
        "    parallel = False\n"
    );
}

#[test]
fn set_checksum_replaces_the_sha256_of_the_version() {
    let sum = "a".repeat(64);
    let out = apply(EditOp::SetChecksum {
        version: "1.0".into(),
        sha256: sum.clone(),
    });
    let (removed, added) = changed_lines(&out);
    assert_eq!(
        removed,
        vec!["    version(\"1.0\", sha256=\"0\" * 64)".to_string()]
    );
    assert_eq!(
        added,
        vec![format!("    version(\"1.0\", sha256=\"{sum}\")")]
    );
    // Only the top-level call of that version; other arguments stay.
    let recipe = format!(
        "class Demo(Package):\n    version(\"2.0\", sha256='{old}', preferred=True)\n    version(\"1.0\", sha256=\"{old}\")\n    with when(\"+x\"):\n        version(\"2.0\", sha256=\"{old}\")\n",
        old = "0".repeat(64)
    );
    let out = apply_edits(
        &recipe,
        &[EditOp::SetChecksum {
            version: "2.0".into(),
            sha256: sum.clone(),
        }],
    )
    .unwrap();
    assert_eq!(
        out,
        recipe.replacen(
            &format!("sha256='{}'", "0".repeat(64)),
            &format!("sha256=\"{sum}\""),
            1
        )
    );
    // No such version, no sha256= to set, or no checksum: refused.
    for (text, version, sha256, message) in [
        (RECIPE, "2.0", sum.as_str(), "no version(\"2.0\")"),
        (
            "class Demo(Package):\n    version(\"1.0\", tag=\"v1.0\")\n",
            "1.0",
            sum.as_str(),
            "has no sha256=",
        ),
        (RECIPE, "1.0", "abc", "is not a sha256"),
    ] {
        let err = apply_edits(
            text,
            &[EditOp::SetChecksum {
                version: version.into(),
                sha256: sha256.into(),
            }],
        )
        .unwrap_err();
        assert_eq!(err.op, "set_checksum");
        assert!(err.message.contains(message), "{err}");
    }
}

#[test]
fn add_version_goes_newest_first_and_a_first_one_before_the_directives() {
    let sum = "b".repeat(64);
    let add = |text: &str, version: &str| {
        apply_edits(
            text,
            &[EditOp::AddVersion {
                version: version.into(),
                sha256: Some(sum.clone()),
            }],
        )
        .unwrap()
    };
    // Among the versions, newest first.
    let out = add(RECIPE, "2.0");
    assert!(
        out.contains(&format!(
            "    version(\"2.0\", sha256=\"{sum}\")\n    version(\"1.0\""
        )),
        "{out}"
    );
    let out = add(RECIPE, "0.9");
    assert!(
        out.contains(&format!(
            "    version(\"1.0\", sha256=\"0\" * 64)\n    version(\"0.9\", sha256=\"{sum}\")\n"
        )),
        "{out}"
    );
    // The first version: before the first directive after the header, …
    let no_versions = RECIPE.replace("    version(\"1.0\", sha256=\"0\" * 64)\n\n", "");
    let out = add(&no_versions, "1.0");
    assert!(
        out.contains(&format!(
            "heatsim-1.0.tar.gz\"\n\n    version(\"1.0\", sha256=\"{sum}\")\n\n    variant(\"mpi\""
        )),
        "{out}"
    );
    // … else after the header (attributes, maintainers, license), …
    let header_only = "class Demo(Package):\n    \"\"\"Demo.\"\"\"\n\n    url = \"https://x\"\n    license(\"MIT\")\n    def install(self, spec, prefix):\n        pass\n";
    assert_eq!(
        add(header_only, "1.0"),
        format!("class Demo(Package):\n    \"\"\"Demo.\"\"\"\n\n    url = \"https://x\"\n    license(\"MIT\")\n\n    version(\"1.0\", sha256=\"{sum}\")\n\n    def install(self, spec, prefix):\n        pass\n")
    );
    // … else after the docstring, else first in the body.
    let doc_only = "class Demo(Package):\n    \"\"\"Demo.\"\"\"\n\n    def install(self, spec, prefix):\n        pass\n";
    assert_eq!(
        add(doc_only, "1.0"),
        format!("class Demo(Package):\n    \"\"\"Demo.\"\"\"\n\n    version(\"1.0\", sha256=\"{sum}\")\n\n    def install(self, spec, prefix):\n        pass\n")
    );
    let bare = "class Demo(Package):\n    def install(self, spec, prefix):\n        pass\n";
    assert_eq!(
        add(bare, "1.0"),
        format!("class Demo(Package):\n    version(\"1.0\", sha256=\"{sum}\")\n\n    def install(self, spec, prefix):\n        pass\n")
    );
}

#[test]
fn add_class_lines_goes_before_the_first_directive_named() {
    let lines = vec![
        "depends_on(\"c\", type=\"build\")".to_string(),
        "depends_on(\"cxx\", type=\"build\")".to_string(),
    ];
    let add = |text: &str, before: &[&str]| {
        apply_edits(
            text,
            &[EditOp::AddClassLines {
                lines: lines.clone(),
                before: before.iter().map(|b| b.to_string()).collect(),
            }],
        )
        .unwrap()
    };
    // Before the first `depends_on` of the class body (not the one under
    // `with when`), with a blank line after the group.
    let out = add(RECIPE, &["depends_on"]);
    assert_eq!(
        out,
        RECIPE.replace(
            "    depends_on(\"cmake@3.16:\"",
            "    depends_on(\"c\", type=\"build\")\n    depends_on(\"cxx\", type=\"build\")\n\n    depends_on(\"cmake@3.16:\""
        )
    );
    assert!(parse_recipe(&out, "package.py").syntax_errors.is_empty());
    // The first of `before` the class calls: no `provides`, so `version`.
    let out = add(RECIPE, &["provides", "version"]);
    assert!(
        out.contains("    depends_on(\"cxx\", type=\"build\")\n\n    version(\"1.0\""),
        "{out}"
    );
    // Calls under `with` or in a branch are not anchors: the first method is.
    let nested = "class Demo(Package):\n    \"\"\"Demo.\n\n    depends_on(\"doc\")\n    \"\"\"\n\n    with when(\"+x\"):\n        depends_on(\"x\")\n    if True:\n        depends_on(\"y\")\n\n    @property\n    def libs(self):\n        return []\n";
    assert_eq!(
        add(nested, &["depends_on"]),
        nested.replace(
            "    @property",
            "    depends_on(\"c\", type=\"build\")\n    depends_on(\"cxx\", type=\"build\")\n\n    @property"
        )
    );
    // Neither: at the class's end after a blank line, not in the builder
    // class after it.
    let bare = "class Demo(Package):\n    version(\"1.0\")\n\n\nclass GenericBuilder(generic.GenericBuilder):\n    def install(self, pkg, spec, prefix):\n        pass\n";
    assert_eq!(
        add(bare, &["depends_on"]),
        "class Demo(Package):\n    version(\"1.0\")\n\n    depends_on(\"c\", type=\"build\")\n    depends_on(\"cxx\", type=\"build\")\n\n\nclass GenericBuilder(generic.GenericBuilder):\n    def install(self, pkg, spec, prefix):\n        pass\n"
    );
    // The class body's own indentation; a file without a final newline.
    let tabs = "class Demo(Package):\n\tversion(\"1.0\")";
    assert_eq!(
        add(tabs, &["depends_on"]),
        "class Demo(Package):\n\tversion(\"1.0\")\n\n\tdepends_on(\"c\", type=\"build\")\n\tdepends_on(\"cxx\", type=\"build\")\n"
    );
    // No lines, or a line that is two: refused.
    for bad in [vec![], vec!["a()\nb()".to_string()]] {
        let err = apply_edits(
            RECIPE,
            &[EditOp::AddClassLines {
                lines: bad,
                before: vec![],
            }],
        )
        .unwrap_err();
        assert_eq!(err.op, "add_class_lines");
    }
}

#[test]
fn replace_star_import_swaps_the_import_statement() {
    let block = vec![
        "from spack_repo.builtin.build_systems.cmake import CMakePackage".to_string(),
        String::new(),
        "from spack.package import *".to_string(),
    ];
    let replace = |text: &str| {
        apply_edits(
            text,
            &[EditOp::ReplaceStarImport {
                lines: block.clone(),
            }],
        )
        .unwrap()
    };
    let out = replace(RECIPE);
    assert_eq!(
        out,
        RECIPE.replace(
            "from spack.package import *\n",
            "from spack_repo.builtin.build_systems.cmake import CMakePackage\n\nfrom spack.package import *\n"
        )
    );
    assert!(parse_recipe(&out, "package.py").syntax_errors.is_empty());
    // The older `from spack import *`; not a mention in the docstring.
    let old = "\"\"\"Mentions\nfrom spack import *\n\"\"\"\nimport os\nfrom spack import *\n\n\nclass Demo(CMakePackage):\n    pass\n";
    assert_eq!(
        replace(old),
        old.replacen(
            "import os\nfrom spack import *\n",
            "import os\nfrom spack_repo.builtin.build_systems.cmake import CMakePackage\n\nfrom spack.package import *\n",
            1
        )
    );
    // Without one: before the first import, else at the top.
    let no_star = "# Licence.\n\nimport os\n\n\nclass Demo(CMakePackage):\n    pass\n";
    assert_eq!(
        replace(no_star),
        no_star.replace(
            "import os\n",
            "from spack_repo.builtin.build_systems.cmake import CMakePackage\n\nfrom spack.package import *\n\nimport os\n"
        )
    );
    let none = "class Demo(CMakePackage):\n    pass\n";
    assert_eq!(replace(none), format!("{}\n\n{none}", block.join("\n")));
    let err = apply_edits(RECIPE, &[EditOp::ReplaceStarImport { lines: vec![] }]).unwrap_err();
    assert_eq!(err.op, "replace_star_import");
}
