//! Progress of a run: one line per benchmark and process count from rank 0,
//! or, when a self-launching parent owns a terminal, a progress bar drawn
//! by that parent (indicatif) from the same events.
//!
//! Rank 0 never touches the terminal itself under a bar: its stderr goes
//! through mpiexec, which is no terminal for it. The parent sets
//! [`ENV`] when its own stderr is a terminal; rank 0 then sends each event
//! over the parent link (`link::tell`) instead of printing its line.
//! Under a launcher (`mpirun mpibench ...`, `srun`), in a pipe, or when
//! rank 0 has no link (another host), the plain lines stay.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Set by the self-launching parent when it draws a bar.
pub const ENV: &str = "MPIBENCH_PROGRESS";

/// One step of a run, as rank 0 sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// 0-based index of the benchmark run (over repeats).
    pub step: usize,
    pub total: usize,
    /// Processes of the group being measured.
    pub procs: usize,
    pub name: String,
}

impl Event {
    /// The plain line printed when there is no bar.
    pub fn line(&self, elapsed: Duration) -> String {
        format!(
            "mpibench: [{}/{}] {} on {} processes ({:.1} s)",
            self.step + 1,
            self.total,
            self.name,
            self.procs,
            elapsed.as_secs_f64()
        )
    }

    /// The message on the parent link.
    fn message(&self) -> String {
        format!(
            "progress 0 {} {} {} {}",
            self.step, self.total, self.procs, self.name
        )
    }

    /// Parses [`Event::message`]; `None` for any other line.
    pub fn parse(line: &str) -> Option<Event> {
        let rest = line.strip_prefix("progress 0 ")?;
        let mut f = rest.splitn(4, ' ');
        let step = f.next()?.parse().ok()?;
        let total = f.next()?.parse().ok()?;
        let procs = f.next()?.parse().ok()?;
        let name = f.next()?.to_string();
        Some(Event {
            step,
            total,
            procs,
            name,
        })
    }
}

/// Rank 0: reports one step, to the parent's bar or as a line on stderr.
pub fn report(e: &Event, elapsed: Duration) {
    if std::env::var_os(ENV).is_some() && crate::link::parent_speaks() {
        crate::link::tell(&e.message());
    } else {
        eprintln!("{}", e.line(elapsed));
    }
}

/// The parent's bar: created on the first event, cleared at the end.
#[derive(Default)]
pub struct Bar {
    bar: Mutex<Option<ProgressBar>>,
}

impl Bar {
    /// Whether a parent with this stderr should draw a bar.
    pub fn wanted() -> bool {
        std::io::stderr().is_terminal() && std::env::var_os("TERM").is_some_and(|t| t != "dumb")
    }

    fn with<R>(&self, f: impl FnOnce(&mut Option<ProgressBar>) -> R) -> R {
        f(&mut self.bar.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Moves the bar to `e`.
    pub fn update(&self, e: &Event) {
        self.with(|b| {
            let bar = b.get_or_insert_with(|| {
                let bar = ProgressBar::with_draw_target(
                    Some(e.total as u64),
                    ProgressDrawTarget::stderr(),
                );
                bar.set_style(
                    ProgressStyle::with_template(
                        "{elapsed_precise} [{bar:30}] {pos}/{len} {msg} (eta {eta})",
                    )
                    .expect("a valid template")
                    .progress_chars("=> "),
                );
                bar.enable_steady_tick(Duration::from_millis(200));
                bar
            });
            bar.set_length(e.total as u64);
            bar.set_position(e.step as u64);
            bar.set_message(format!("{} on {} processes", e.name, e.procs));
        });
    }

    /// Runs `f` (a write to the terminal) with the bar hidden.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.with(|b| match b {
            Some(bar) => bar.suspend(f),
            None => f(),
        })
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.with(|b| {
            if let Some(bar) = b.take() {
                bar.finish_and_clear();
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_cross_the_link_intact() {
        let e = Event {
            step: 3,
            total: 12,
            procs: 4,
            name: "imb/Reduce_scatter x".into(),
        };
        assert_eq!(Event::parse(&e.message()), Some(e.clone()));
        assert_eq!(Event::parse("said 0 3"), None);
        assert_eq!(Event::parse("progress 0 x 1 2 a"), None);
        assert_eq!(
            e.line(Duration::from_millis(1500)),
            "mpibench: [4/12] imb/Reduce_scatter x on 4 processes (1.5 s)"
        );
    }

    #[test]
    fn a_bar_without_events_draws_nothing_and_suspends_transparently() {
        let b = Bar::default();
        assert_eq!(b.suspend(|| 7), 7);
        b.finish();
        b.update(&Event {
            step: 0,
            total: 2,
            procs: 2,
            name: "PingPong".into(),
        });
        assert_eq!(b.suspend(|| 8), 8);
        b.finish();
        assert!(b.bar.lock().unwrap().is_none());
    }
}
