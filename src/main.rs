//! mpibench: thin entry point. Exit codes: 0 ok, 1 validation errors,
//! 2 usage errors, 3 a benchmark or rank aborted (also a failed write),
//! 4 the launcher failed or started no rank, 5 MPI could not start,
//! 6 `--fail-on-outlier` and the mpiGraph matrix named outliers,
//! 7 a gate judged nothing (`compare --fail-if-slower`, `history check`),
//! 8 `history check` found a regression,
//! 128 + N interrupted by signal N (141: stdout closed).

mod app;
mod bench;
mod check;
mod cli;
mod clock;
mod comm;
mod context;
mod contract;
mod engine;
mod environ;
mod files;
mod frontend;
mod help;
mod history;
mod input;
mod launch;
mod launches;
#[cfg(test)]
mod layers;
mod link;
mod method;
mod mpi_words;
mod outcome;
mod output;
mod phases;
mod plan;
mod plugin;
mod progress;
mod readers;
mod report;
mod results;
mod signals;
mod slurm;
mod stats;
mod stats_test;
mod suite;
mod supervise;
mod sys;
mod tune;
mod units;
mod watchdog;

/// One line and exit code 5 when the address space runs out (see `sys::alloc`).
#[global_allocator]
static ALLOCATOR: sys::alloc::ExitWhenExhausted = sys::alloc::ExitWhenExhausted;

/// The stack of the thread that runs mpibench, whatever `ulimit -s` says
/// (argument parsing alone needs more than a 64 KiB main-thread stack).
const MAIN_STACK: usize = 16 << 20;

fn main() {
    // Everything runs on a thread with an explicit stack; if that thread
    // cannot start, on the main thread as before.
    match std::thread::Builder::new()
        .name("mpibench".into())
        .stack_size(MAIN_STACK)
        .spawn(run)
    {
        // `run` ends the process itself; a panic has its own hook.
        Ok(t) => {
            let _ = t.join();
            std::process::exit(app::EXIT_ABORTED)
        }
        Err(_) => run(),
    }
}

fn run() {
    phases::begin();
    // One line for any panic, whatever the subcommand (ranks install their own).
    signals::install_process_panic_hook();
    signals::default_sigpipe();
    signals::ignore_sigxfsz();
    // A closed stdout (`>&-`) must fail the writes, not lose them.
    files::guard_closed_stdout();
    // Test hook (robustness tests): a panic outside any rank.
    if std::env::var_os("MPIBENCH_TEST_PANIC_MAIN").is_some() {
        panic!("test panic requested by MPIBENCH_TEST_PANIC_MAIN");
    }
    let code = match app::main() {
        Ok(code) => code,
        // A closed stdout pipe ends quietly, as Unix tools do.
        Err(e) if e.is::<files::StdoutClosed>() => outcome::exit_code(libc::SIGPIPE),
        Err(e) => outcome::Outcome::Error.say(&format!("{e:#}")),
    };
    // A self-launching parent learns how this rank ended (nothing otherwise).
    link::tell(&format!("end {} {code}", signals::rank()));
    std::process::exit(code);
}
