//! mpibench: thin entry point. Exit codes: 0 ok, 1 validation errors,
//! 2 usage errors, 3 a benchmark or rank aborted (also a failed write),
//! 4 the launcher failed or started no rank, 5 MPI could not start,
//! 128 + N interrupted by signal N (141: stdout closed).

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
mod output;
mod plan;
mod progress;
mod report;
mod results;
mod signals;
mod slurm;
mod stats;
mod suite;
mod supervise;
mod watchdog;

fn main() {
    let code = match app::main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            app::EXIT_ABORTED
        }
    };
    // A self-launching parent learns how this rank ended (nothing otherwise).
    supervise::tell(&format!("end {} {code}", signals::rank()));
    std::process::exit(code);
}
