//! The registry: suite name → benchmarks and methodology defaults.

use crate::bench::clock::{self, Tool};
use crate::bench::{imb, Benchmark, Info};

/// A suite and what it runs by default.
pub struct Suite {
    pub name: &'static str,
    pub title: &'static str,
    pub entries: fn() -> Vec<Entry>,
}

/// Something `mpibench run` can run: a communication pattern timed by the
/// engine, or a tool that measures the instruments (clocks) themselves.
#[derive(Clone, Copy)]
pub enum Entry {
    Bench(&'static dyn Benchmark),
    Tool(&'static dyn Tool),
}

impl Entry {
    pub fn info(&self) -> &'static Info {
        match self {
            Entry::Bench(b) => b.info(),
            Entry::Tool(t) => t.info(),
        }
    }
}

fn imb_entries() -> Vec<Entry> {
    imb::benchmarks().into_iter().map(Entry::Bench).collect()
}

fn clock_entries() -> Vec<Entry> {
    clock::tools().into_iter().map(Entry::Tool).collect()
}

pub static SUITES: &[Suite] = &[
    Suite {
        name: imb::SUITE,
        title: "PMB-MPI1 / IMB-MPI1 (Pallas MPI Benchmarks v2.2)",
        entries: imb_entries,
    },
    Suite {
        name: clock::SUITE,
        title: "the instruments: timer resolution and overhead, clock synchronisation",
        entries: clock_entries,
    },
];

/// Everything of every suite.
pub fn all() -> Vec<Entry> {
    SUITES.iter().flat_map(|s| (s.entries)()).collect()
}

pub fn suite(name: &str) -> Option<&'static Suite> {
    SUITES.iter().find(|s| s.name.eq_ignore_ascii_case(name))
}

/// Looks a benchmark up by name, case-insensitively (an optional "Multi-" prefix is accepted).
pub fn find(name: &str) -> Option<Entry> {
    let n = strip_multi(name);
    all()
        .into_iter()
        .find(|b| b.info().name.eq_ignore_ascii_case(n))
}

/// "Multi-PingPong" → "PingPong". (`get` rather than slicing: a name with a
/// multibyte character across byte 6, such as "PingPöng", is no prefix.)
pub fn strip_multi(name: &str) -> &str {
    match (name.get(..6), name.get(6..)) {
        (Some(p), Some(rest)) if !rest.is_empty() && p.eq_ignore_ascii_case("multi-") => rest,
        _ => name,
    }
}

/// True for a "Multi-" name, which selects multi mode as in PMB.
pub fn has_multi_prefix(name: &str) -> bool {
    strip_multi(name).len() != name.len()
}

/// The closest known benchmark name, for "did you mean" hints.
pub fn suggest(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    all()
        .into_iter()
        .map(|b| b.info().name)
        .map(|n| (levenshtein(&lower, &n.to_ascii_lowercase()), n))
        .filter(|(d, n)| *d <= 3.max(n.len() / 3))
        .min_by_key(|(d, _)| *d)
        .map(|(_, n)| n)
}

/// Edit distance between two strings.
pub fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_is_case_insensitive_and_accepts_multi() {
        assert_eq!(find("pingpong").unwrap().info().name, "PingPong");
        assert_eq!(
            find("REDUCE_SCATTER").unwrap().info().name,
            "Reduce_scatter"
        );
        assert_eq!(find("Multi-Exchange").unwrap().info().name, "Exchange");
        assert!(find("PingPang").is_none());
        assert_eq!(find("ClockSync").unwrap().info().suite, "clock");
    }

    #[test]
    fn multibyte_names_are_unknown_not_a_panic() {
        for n in [
            "PingPöng",
            "Alltoäll",
            "Barrièr",
            "Multiö",
            "ö",
            "Multi-",
            "Multi-ö",
        ] {
            assert!(find(n).is_none(), "{n}");
            let _ = suggest(strip_multi(n));
        }
        assert!(has_multi_prefix("multi-allreduce"));
        assert!(!has_multi_prefix("Allreduce"));
        assert!(!has_multi_prefix("Multi-"));
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest("PingPang"), Some("PingPong"));
        assert_eq!(suggest("allreduse"), Some("Allreduce"));
        assert_eq!(suggest("zzzzzzzzzzzzzzzzzz"), None);
        assert_eq!(levenshtein("kitten", "sitting"), 3);
    }

    #[test]
    fn pmb_mpi1_has_its_twelve_benchmarks() {
        let names: Vec<_> = (suite("imb").unwrap().entries)()
            .iter()
            .map(|b| b.info().name)
            .collect();
        assert_eq!(names.len(), 12);
        for n in [
            "PingPong",
            "PingPing",
            "Sendrecv",
            "Exchange",
            "Bcast",
            "Allgather",
            "Allgatherv",
            "Alltoall",
            "Reduce",
            "Reduce_scatter",
            "Allreduce",
            "Barrier",
        ] {
            assert!(names.contains(&n), "{n}");
        }
    }
}
