mod budget_cache;
mod config;
mod retry;
mod secrets;
mod server;
mod thirdparty;
mod wire;
