mod budget_cache;
mod config;
mod retry;
mod secrets;
mod serve;
mod server;
mod thirdparty;
mod wire;
