//! mpibench: thin entry point. Exit codes: 0 ok, 1 validation errors,
//! 2 usage errors, 3 a benchmark aborted.

mod app;
mod bench;
mod check;
mod cli;
mod clock;
mod comm;
mod engine;
mod frontend;
mod launch;
mod method;
mod plan;
mod report;
mod results;
mod slurm;
mod stats;
mod suite;
mod watchdog;

fn main() {
    let code = match app::main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            app::EXIT_ABORTED
        }
    };
    std::process::exit(code);
}
