mod fake;
mod kill;
mod loop_control;
mod progress;
mod project;
mod run_dir;
mod tool_calls;
mod tools;
