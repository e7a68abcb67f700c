//! Repetition policies, one file each: how many repetitions a point plans,
//! how many warm it up, how long its timed part should take, and how its
//! timed batches are driven (a fixed count, IMB's caps, a precision target,
//! cafbench's target time). The engine asks them; the timed loop itself is
//! the kernel's (`Kernel::measure`), untouched by any policy.

mod fixed;
mod multiple_np;
mod pmb_budget;
mod precision;
mod split;
mod target_time;

use super::Combo;
use crate::contract::Split;
use crate::method::Samples;

/// How many repetitions one point runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Reps {
    /// Exactly n.
    Fixed(usize),
    /// IMB: at most `max` repetitions and `max_volume` bytes, within the time limit.
    Imb { max: usize, min: usize },
    /// Doubling batches until the median's CI is within ±target, bounded.
    Precision { target: f64, min: usize, max: usize },
    /// The coarray suite's rule: double while a run takes under 2/3 of
    /// `target` seconds, accept otherwise (above 4/3 the next point starts at half).
    TargetTime { target: f64 },
    /// IMB's multiple_np policy: `msgs` scaled down with the size relative
    /// to the `largest`, a multiple of the process count (see [`multiple_np`]).
    MultipleNp { msgs: usize, largest: usize },
    /// OSU: `small` repetitions and `warm_small` warm-up up to `limit`
    /// bytes, `large` and `warm_large` above it.
    Split(Split),
}

/// IMB -iter_policy multiple_np: round(msgs · L / (Q · max(X, 4) + L)),
/// made a multiple of Q and at least Q, where L is the largest message size.
pub fn multiple_np(msgs: usize, largest: usize, q: usize, x: usize) -> usize {
    let q = q.max(1);
    let big = largest.max(1) as f64;
    let n = (msgs as f64 * big / ((q * x.max(4)) as f64 + big) + 0.5) as usize;
    (n - n % q).max(q)
}

/// What a policy knows of a point before its warm-up.
#[derive(Debug, Clone, Copy)]
pub struct Before {
    /// The message size in bytes.
    pub bytes: usize,
    /// Processes of the group.
    pub q: usize,
    /// IMB's most bytes per message length (`--volume`).
    pub max_volume: usize,
    /// Where the previous point of this benchmark ended (cafbench's
    /// doubling starts there).
    pub hint: usize,
    /// The kernel's most repetitions ([`crate::bench::Kernel::most_reps`]):
    /// IMB's policy takes it in place of its own most (IMB's x_sample).
    pub most: Option<usize>,
}

/// What the warm-up told about a point.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Seconds per repetition, the maximum over the group.
    pub per_call: f64,
    /// The least time a repetition takes under the synchronisation (the
    /// window of window synchronisation; 0 otherwise).
    pub floor: f64,
    /// Inner repetitions per repetition (delay subtraction; 1 otherwise).
    pub inner: usize,
    /// `--time`: seconds per point.
    pub time_limit_s: f64,
}

impl Pace {
    /// Seconds a repetition takes, at least the synchronisation's floor.
    pub fn each(&self) -> f64 {
        self.per_call.max(self.floor)
    }
}

/// The timed batches of a point, run by the engine.
pub trait Batches {
    /// Runs `n` repetitions from the `first`, in chunks (so that a long
    /// loop shows progress to the stall limit), into `s` and `c`.
    fn run(&mut self, first: usize, n: usize, s: &mut Samples, c: &mut Combo);
    /// Runs `n` repetitions from 0 in one batch into `s` and `c`; returns
    /// its wall time, the maximum over the group.
    fn run_walled(&mut self, n: usize, s: &mut Samples, c: &mut Combo) -> f64;
}

/// What driving a point gave.
#[derive(Debug, Default)]
pub struct Driven {
    pub s: Samples,
    pub c: Combo,
    /// Whether the repetitions stopped on a bound (true) or on their target
    /// (false); None for a fixed count.
    pub stopped: Option<bool>,
    /// Where the next point should start (cafbench's doubling).
    pub hint: Option<usize>,
}

/// A repetition policy.
pub trait Policy {
    /// Repetitions the point plans before anything runs.
    fn planned(&self, b: &Before) -> usize;
    /// Warm-up repetitions when `--warmup` does not say.
    fn warmup(&self, planned: usize, _bytes: usize) -> usize {
        (planned / 10).clamp(2, 100)
    }
    /// Seconds the timed part should take (the ranks outside the group wait
    /// that long without suspecting a stall).
    fn expected(&self, planned: usize, pace: &Pace) -> f64 {
        planned as f64 * (pace.each() + 1e-5) * pace.inner as f64
    }
    /// Runs the timed batches.
    fn drive(&self, planned: usize, pace: &Pace, batches: &mut dyn Batches) -> Driven {
        let _ = pace;
        let mut d = Driven::default();
        batches.run(0, planned, &mut d.s, &mut d.c);
        d
    }
}

/// The policy of the plan's repetitions.
pub fn policy(reps: Reps) -> Box<dyn Policy> {
    match reps {
        Reps::Fixed(n) => Box::new(fixed::Fixed(n)),
        Reps::Imb { max, min } => Box::new(pmb_budget::Imb { max, min }),
        Reps::Precision { target, min, max } => Box::new(precision::Precision { target, min, max }),
        Reps::TargetTime { target } => Box::new(target_time::TargetTime { target }),
        Reps::MultipleNp { msgs, largest } => Box::new(multiple_np::MultipleNp { msgs, largest }),
        Reps::Split(s) => Box::new(split::SplitReps(s)),
    }
}

#[cfg(test)]
pub(super) mod fake {
    //! Batches without MPI: every repetition takes `each` seconds, or what
    //! `time` says of the repetitions run so far.
    use super::*;

    pub struct Fake {
        pub time: Box<dyn FnMut(usize) -> f64>,
        /// (first, n, walled) of every call.
        pub calls: Vec<(usize, usize, bool)>,
    }

    impl Fake {
        pub fn each(each: f64) -> Fake {
            Fake {
                time: Box::new(move |_| each),
                calls: Vec::new(),
            }
        }

        fn fill(&mut self, first: usize, n: usize, s: &mut Samples, c: &mut Combo) -> f64 {
            let mut total = 0.0;
            for i in first..first + n {
                let t = (self.time)(i);
                total += t;
                s.dur.push(t);
                s.start.push(0.0);
                s.end.push(t);
                s.late.push(false);
                s.reps_per_sample = 1;
                c.values.push(t);
                c.late.push(false);
            }
            total
        }
    }

    impl Batches for Fake {
        fn run(&mut self, first: usize, n: usize, s: &mut Samples, c: &mut Combo) {
            self.calls.push((first, n, false));
            self.fill(first, n, s, c);
        }

        fn run_walled(&mut self, n: usize, s: &mut Samples, c: &mut Combo) -> f64 {
            self.calls.push((0, n, true));
            self.fill(0, n, s, c)
        }
    }

    pub fn pace(per_call: f64) -> Pace {
        Pace {
            per_call,
            floor: 0.0,
            inner: 1,
            time_limit_s: 10.0,
        }
    }

    pub fn before(bytes: usize) -> Before {
        Before {
            bytes,
            q: 2,
            max_volume: 40 << 20,
            hint: 1,
            most: None,
        }
    }
}
