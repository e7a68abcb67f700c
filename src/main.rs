//! mpibench: thin entry point. Exit codes: 0 ok, 1 validation errors,
//! 2 usage errors, 3 a benchmark aborted.

mod app;
mod bench;
mod check;
mod cli;
#[allow(dead_code)] // wired into the engine by the methodology work (issue 3)
mod clock;
#[allow(dead_code)] // parts are wired in by the methodology work (issue 3)
mod comm;
mod engine;
mod launch;
mod plan;
mod report;
mod results;
#[allow(dead_code)]
mod stats;
mod suite;

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
