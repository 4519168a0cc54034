mod common;
mod ecosystem;
mod edit_with_nix;
mod logs_fixtures;
mod real_nix;
mod rust_drafts;
mod templates;
