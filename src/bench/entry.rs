//! What the registry lists and `mpibench run` runs: a benchmark or a tool.

use super::clock::Tool;
use super::{Benchmark, Info};

/// Something `mpibench run` can run: a communication pattern timed by the
/// engine, or a tool that measures the instruments (clocks) themselves.
#[derive(Clone, Copy)]
pub enum Entry {
    Bench(&'static dyn Benchmark),
    Tool(&'static dyn Tool),
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.qualified())
    }
}

impl Entry {
    pub fn info(&self) -> &'static Info {
        match self {
            Entry::Bench(b) => b.info(),
            Entry::Tool(t) => t.info(),
        }
    }

    /// `suite/name`.
    pub fn qualified(&self) -> String {
        let i = self.info();
        format!("{}/{}", i.suite, i.name)
    }
}
