//! VTK-style module systems (VTK, ParaView and projects built with
//! `vtk_module_scan`/`vtk_module_build`): `vtk_module_find_modules` globs
//! the `vtk.module` files below some directories, `vtk_module_scan` reads
//! the module files it is given, and `vtk_module_build` enters each
//! module's directory through `add_subdirectory` on a computed path, which
//! path following alone cannot see. The walker queues the module files
//! those calls name and reads their directories' `CMakeLists.txt` at the
//! build call (or at the end of the top-level file when no build call is
//! seen there), so every module's lookups are facts with their own lines.

use super::lexer::Command;
use super::state::Walker;
use super::vars::{resolve_path, ROOT_VAR};
use packsmith_core::{CmakeModuleDir, Evidence};

/// The file that marks a module directory.
const MODULE_FILE: &str = "vtk.module";
/// Most module directories entered in one repository.
const MAX_MODULE_DIRS: usize = 5000;

impl Walker<'_, '_> {
    /// The module system's calls, read where a configure run makes them
    /// (not inside definitions, not inside expanded calls).
    pub(super) fn module_system(&mut self, cmd: &Command, args: &[String]) {
        if self.in_def > 0 || self.call_site.is_some() {
            return;
        }
        match cmd.name.as_str() {
            "vtk_module_find_modules" => self.find_modules(cmd, args),
            "vtk_module_scan" => self.scan_modules(cmd, args),
            "vtk_module_build" => {
                let at = Evidence::new(&self.file, cmd.line);
                self.enter_modules(&at);
            }
            _ => {}
        }
    }

    /// `vtk_module_find_modules(<out> <dir>…)`: every `vtk.module` below
    /// the directories, set in `<out>` as CMake's GLOB_RECURSE would.
    fn find_modules(&mut self, cmd: &Command, args: &[String]) {
        let Some((out, dirs)) = args.split_first() else {
            return;
        };
        let mut files: Vec<String> = Vec::new();
        for dir in self.possible_values(dirs) {
            match resolve_path(self.source_dir(), &dir) {
                Ok(d) => files.extend(module_files_under(self.ctx.view, &d)),
                Err(_) => self.warn_unresolved(cmd.line, format!("vtk_module_find_modules({dir})")),
            }
        }
        let value: Vec<String> = files.iter().map(|f| format!("{ROOT_VAR}/{f}")).collect();
        self.vars.set(out, value.join(";"));
        self.queue_modules(files, cmd.line);
    }

    /// `vtk_module_scan(MODULE_FILES <file>… …)`: the module files it
    /// reads that the tree holds.
    fn scan_modules(&mut self, cmd: &Command, args: &[String]) {
        let listed: Vec<String> = args
            .iter()
            .skip_while(|a| *a != "MODULE_FILES")
            .skip(1)
            .take_while(|a| !is_keyword(a))
            .cloned()
            .collect();
        let files: Vec<String> = self
            .possible_values(&listed)
            .iter()
            .filter_map(|f| resolve_path(self.source_dir(), f).ok())
            .filter(|f| f.ends_with(".module") && self.ctx.view.exists(f))
            .collect();
        self.queue_modules(files, cmd.line);
    }

    fn queue_modules(&mut self, files: Vec<String>, line: u32) {
        for f in files {
            if self.modules.queued.insert(f.clone()) {
                self.modules.pending.push(f);
            }
        }
        if !self.modules.pending.is_empty() {
            self.modules.named_at = Some(Evidence::new(&self.file, line));
        }
    }

    /// Enters the directory of every pending module file at the call that
    /// builds the modules (`at`).
    fn enter_modules(&mut self, at: &Evidence) {
        for module_file in std::mem::take(&mut self.modules.pending) {
            let dir = module_file.rsplit_once('/').map_or("", |(d, _)| d);
            let list = if dir.is_empty() {
                "CMakeLists.txt".to_string()
            } else {
                format!("{dir}/CMakeLists.txt")
            };
            if self.was_read(&list) {
                continue; // the top, or a module its parent adds itself
            }
            if !self.ctx.view.exists(&list) {
                self.ctx.warn(
                    &module_file,
                    0,
                    format!("module directory {dir} has no CMakeLists.txt; not read"),
                );
                continue;
            }
            if self.modules.entered >= MAX_MODULE_DIRS {
                self.warn_module_limit(at);
                return;
            }
            self.modules.entered += 1;
            self.facts.module_dirs.push(CmakeModuleDir {
                dir: dir.to_string(),
                module_file: module_file.clone(),
                evidence: at.clone(),
            });
            self.walk_file(&list, Some(dir.to_string()), at.line);
        }
    }

    /// At the end of the top-level file: modules named but never built
    /// there (the build call sits in a function the walker does not
    /// expand) are entered all the same.
    pub(super) fn enter_unbuilt_modules(&mut self) {
        if let Some(at) = self.modules.named_at.clone() {
            self.enter_modules(&at);
        }
    }

    fn warn_module_limit(&mut self, at: &Evidence) {
        if !self.modules.limit_warned {
            self.modules.limit_warned = true;
            self.ctx.warn(
                &at.file,
                at.line,
                format!("more than {MAX_MODULE_DIRS} module directories; the rest not read"),
            );
        }
    }
}

/// The `vtk.module` files below `dir` (repository-relative), from the
/// walk's sorted index.
fn module_files_under(view: &crate::view::RepoView, dir: &str) -> Vec<String> {
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{dir}/")
    };
    let files = view.files();
    let start = files.partition_point(|f| f.rel.as_str() < prefix.as_str());
    files[start..]
        .iter()
        .take_while(|f| f.rel.starts_with(&prefix))
        .filter(|f| f.name() == MODULE_FILE)
        .take(MAX_MODULE_DIRS)
        .map(|f| f.rel.clone())
        .collect()
}

/// A keyword of `vtk_module_scan`, which ends the list before it.
fn is_keyword(arg: &str) -> bool {
    matches!(
        arg,
        "MODULE_FILES"
            | "KIT_FILES"
            | "REQUEST_MODULES"
            | "REJECT_MODULES"
            | "PROVIDES_MODULES"
            | "PROVIDES_KITS"
            | "REQUIRES_MODULES"
            | "UNRECOGNIZED_MODULES"
            | "WANT_BY_DEFAULT"
            | "HIDE_MODULES_FROM_CACHE"
            | "ENABLE_TESTS"
    )
}
