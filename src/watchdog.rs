//! `--timeout`: a thread that aborts the whole job through `MPI_Abort` when
//! one benchmark runs past its limit, naming what was running.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Default)]
struct State {
    deadline: Option<Instant>,
    what: String,
}

/// Disabled when constructed without a limit.
pub struct Watchdog {
    limit: Option<Duration>,
    state: Arc<Mutex<State>>,
}

/// Exit code of an aborted run.
pub const EXIT_ABORTED: i32 = 3;

impl Watchdog {
    /// Starts the watchdog thread when `limit_s` is set. Rank 0 reports
    /// first; other ranks wait one more second so that the message comes
    /// from rank 0 when it can.
    pub fn start(limit_s: Option<f64>, rank: usize) -> Watchdog {
        let limit = limit_s.map(Duration::from_secs_f64);
        let state = Arc::new(Mutex::new(State::default()));
        if let Some(limit) = limit {
            let st = Arc::clone(&state);
            let grace = if rank == 0 {
                Duration::ZERO
            } else {
                Duration::from_secs(1)
            };
            std::thread::spawn(move || loop {
                std::thread::sleep(Duration::from_millis(20));
                let (due, what) = {
                    let s = st.lock().unwrap_or_else(|e| e.into_inner());
                    (
                        s.deadline.is_some_and(|d| Instant::now() > d + grace),
                        s.what.clone(),
                    )
                };
                if due {
                    eprintln!(
                        "error: timeout: {what} ran longer than --timeout {} s (rank {rank}); aborting the job",
                        limit.as_secs_f64()
                    );
                    // One line said: end the job without the library's
                    // abort banner, and let a self-launching parent know.
                    crate::signals::said_and_end(EXIT_ABORTED);
                }
            });
        }
        Watchdog { limit, state }
    }

    /// Starts the clock for one benchmark.
    pub fn arm(&self, what: String) {
        if let Some(limit) = self.limit {
            let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
            s.deadline = Some(Instant::now() + limit);
            s.what = what;
        }
    }

    /// Names the message length now running (the deadline stays).
    pub fn at(&self, what: String) {
        if self.limit.is_some() {
            self.state.lock().unwrap_or_else(|e| e.into_inner()).what = what;
        }
    }

    pub fn disarm(&self) {
        if self.limit.is_some() {
            self.state
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .deadline = None;
        }
    }
}
