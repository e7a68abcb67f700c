//! The run's context (`results::Context`): every rank says what machine it
//! is on and where it may run, rank 0 puts it together with the MPI
//! library's build and settings and mpibench's own build. One gather at
//! start-up, outside every timed region.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::comm::{self, Comm};
use crate::results::{Build, Context, HostContext, RankBinding};
use crate::sys::machine;

/// What one rank tells rank 0.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct RankFacts {
    /// The machine (see `sys::machine::machine_key`): hosts on one kernel
    /// share processors whatever their names.
    machine: String,
    cpus: Vec<usize>,
    online: Option<Vec<usize>>,
    numa: Vec<(usize, Vec<usize>)>,
    cpu_model: Option<String>,
    governor: Option<String>,
    kernel: String,
    memory_bytes: u64,
}

impl RankFacts {
    fn here() -> RankFacts {
        let online = machine::online_cpus();
        let cpus = crate::sys::affinity()
            .filter(|c| !c.is_empty())
            .or_else(|| online.clone())
            .unwrap_or_else(|| {
                let n = std::thread::available_parallelism().map_or(1, |n| n.get());
                (0..n).collect()
            });
        let u = crate::sys::uname();
        RankFacts {
            machine: machine::machine_key(),
            governor: cpus.first().and_then(|&c| machine::governor(c)),
            cpus,
            online,
            numa: machine::numa_nodes(),
            cpu_model: machine::cpu_model(),
            kernel: format!("{} {} {}", u.sysname, u.release, u.machine),
            memory_bytes: crate::sys::physical_memory(),
        }
    }
}

/// Gathers the context of a run whose ranks are on `names` (their processor
/// names, by rank); collective. The context on rank 0, `None` elsewhere.
pub fn gather(world: &Comm, names: &[String], malloc: &str) -> Option<Context> {
    let mine = serde_json::to_vec(&RankFacts::here()).unwrap_or_default();
    let all = world.gather_bytes(&mine, 0);
    (world.rank == 0).then(|| {
        let facts: Vec<RankFacts> = all
            .iter()
            .map(|b| serde_json::from_slice(b).unwrap_or_default())
            .collect();
        let mut cx = assemble(names, &facts);
        cx.mpi_library = comm::library_version_lines();
        cx.mpi_library_file = comm::library_file();
        cx.mpi_env = mpi_env(std::env::vars());
        cx.malloc = malloc.to_string();
        cx.malloc_env = std::env::vars()
            .filter(|(k, _)| k.starts_with("MALLOC_") || k == "GLIBC_TUNABLES")
            .collect();
        cx.mpibench = build();
        cx
    })
}

/// Whether any machine of the context has more ranks than processors:
/// agreed on every rank (collective).
pub fn agree_oversubscribed(world: &Comm, cx: Option<&Context>) -> bool {
    let over = cx.is_some_and(|c| c.oversubscribed);
    world.allreduce_max(if over { 1.0 } else { 0.0 }) > 0.0
}

/// Hosts, bindings and oversubscription from each rank's facts.
fn assemble(names: &[String], facts: &[RankFacts]) -> Context {
    let mut hosts: Vec<HostContext> = Vec::new();
    let mut host_cpus: Vec<Vec<usize>> = Vec::new();
    let mut binding = Vec::with_capacity(facts.len());
    for (rank, f) in facts.iter().enumerate() {
        let name = names.get(rank).cloned().unwrap_or_default();
        let h = match hosts.iter().position(|h| h.host == name) {
            Some(h) => h,
            None => {
                hosts.push(HostContext {
                    host: name,
                    online: f.online.as_ref().map(Vec::len),
                    bound: true,
                    numa_nodes: f.numa.len(),
                    cpu_model: f.cpu_model.clone(),
                    governor: f.governor.clone(),
                    kernel: f.kernel.clone(),
                    memory_bytes: f.memory_bytes,
                    ..HostContext::default()
                });
                host_cpus.push(Vec::new());
                hosts.len() - 1
            }
        };
        hosts[h].ranks += 1;
        let narrower = f.online.as_ref().is_some_and(|on| f.cpus.len() < on.len());
        hosts[h].bound &= narrower;
        host_cpus[h].extend(&f.cpus);
        let numa: Vec<usize> = f
            .numa
            .iter()
            .filter(|(_, cpus)| cpus.iter().any(|c| f.cpus.contains(c)))
            .map(|(n, _)| *n)
            .collect();
        binding.push(RankBinding {
            host: h,
            cpus: machine::cpu_list(&f.cpus),
            numa: machine::cpu_list(&numa),
        });
    }
    for (h, cpus) in hosts.iter_mut().zip(&mut host_cpus) {
        cpus.sort_unstable();
        cpus.dedup();
        h.cores = cpus.len();
        h.cpus = machine::cpu_list(cpus);
    }
    Context {
        hosts,
        binding,
        oversubscribed: oversubscribed(facts),
        ..Context::default()
    }
}

/// More ranks on one machine than processors in the union of their masks.
fn oversubscribed(facts: &[RankFacts]) -> bool {
    let mut machines: BTreeMap<&str, (usize, Vec<usize>)> = BTreeMap::new();
    for f in facts {
        let m = machines.entry(f.machine.as_str()).or_default();
        m.0 += 1;
        m.1.extend(&f.cpus);
    }
    machines.values_mut().any(|(ranks, cpus)| {
        cpus.sort_unstable();
        cpus.dedup();
        *ranks > cpus.len()
    })
}

/// The variables that set an MPI library's, UCX's or libfabric's behaviour.
const MPI_PREFIXES: &[&str] = &[
    "OMPI_MCA_",
    "PMIX_MCA_",
    "PRTE_MCA_",
    "MPIR_CVAR_",
    "MPICH_",
    "I_MPI_",
    "MV2_",
    "UCX_",
    "FI_",
    "PSM2_",
    "PSM3_",
    "HCOLL_",
];

/// What a launcher writes into each process's environment to run the job
/// (its URIs, ids, paths and counts): the same settings give other values
/// in every job, so they are not the run's settings.
const LAUNCHER_OWN: &[&str] = &[
    "OMPI_MCA_orte_",
    "OMPI_MCA_ess",
    "OMPI_MCA_pmix",
    "OMPI_MCA_initial_wdir",
    "OMPI_MCA_shmem_RUNTIME_QUERY_hint",
    "OMPI_MCA_mpi_oversubscribe",
    "OMPI_MCA_rmaps_ppr_n_pernode",
    "OMPI_MCA_ras_",
    "MPIR_CVAR_CH3_INTERFACE_HOSTNAME",
    "PMIX_MCA_mca_base_component_show_load_errors",
    "PMIX_MCA_pcompress_base_silence_warning",
];

/// The MPI settings among `vars`, sorted by name.
fn mpi_env(vars: impl Iterator<Item = (String, String)>) -> BTreeMap<String, String> {
    vars.filter(|(k, _)| {
        MPI_PREFIXES.iter().any(|p| k.starts_with(p))
            && !LAUNCHER_OWN.iter().any(|p| k.starts_with(p))
    })
    .collect()
}

/// mpibench's version and build (from build.rs).
pub fn build() -> Build {
    Build {
        version: env!("CARGO_PKG_VERSION").to_string(),
        commit: option_env!("MPIBENCH_COMMIT")
            .filter(|c| !c.is_empty())
            .map(str::to_string),
        profile: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
        .to_string(),
        target: env!("MPIBENCH_TARGET").to_string(),
        rustc: env!("MPIBENCH_RUSTC").to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(machine: &str, cpus: &[usize], online: usize) -> RankFacts {
        RankFacts {
            machine: machine.into(),
            cpus: cpus.to_vec(),
            online: Some((0..online).collect()),
            numa: vec![
                (0, (0..online / 2).collect()),
                (1, (online / 2..online).collect()),
            ],
            kernel: "Linux 6.1 x86_64".into(),
            ..RankFacts::default()
        }
    }

    #[test]
    fn four_unbound_ranks_on_two_cores_share_them() {
        let names = vec!["vm".to_string(); 4];
        let f: Vec<RankFacts> = (0..4).map(|_| facts("m", &[0, 1], 2)).collect();
        let cx = assemble(&names, &f);
        assert!(cx.oversubscribed);
        assert_eq!(cx.hosts.len(), 1);
        let h = &cx.hosts[0];
        assert_eq!((h.cores, h.ranks, h.bound, h.numa_nodes), (2, 4, false, 2));
        assert_eq!(h.cpus, "0-1");
        assert_eq!(cx.binding[3].numa, "0-1");
    }

    #[test]
    fn two_bound_ranks_on_two_cores_do_not() {
        let names = vec!["vm".to_string(); 2];
        let f = vec![facts("m", &[0], 2), facts("m", &[1], 2)];
        let cx = assemble(&names, &f);
        assert!(!cx.oversubscribed);
        assert!(cx.hosts[0].bound);
        assert_eq!(cx.binding[1].cpus, "1");
        assert_eq!(cx.binding[1].numa, "1");
    }

    #[test]
    fn hosts_on_one_kernel_share_its_cores() {
        // Two namespace "hosts" on one 2-core machine, two ranks each.
        let names: Vec<String> = ["h1", "h1", "h2", "h2"].map(String::from).to_vec();
        let f: Vec<RankFacts> = (0..4).map(|_| facts("m", &[0, 1], 2)).collect();
        let cx = assemble(&names, &f);
        assert_eq!(cx.hosts.len(), 2);
        assert!(cx.oversubscribed, "4 ranks on one machine's 2 cores");
        // The same placement on two machines is not.
        let f: Vec<RankFacts> = (0..4)
            .map(|r| facts(if r < 2 { "a" } else { "b" }, &[r % 2], 2))
            .collect();
        assert!(!assemble(&names, &f).oversubscribed);
    }

    #[test]
    fn ranks_share_a_core_only_beyond_the_union_of_their_masks() {
        let over = |ranks: &[(&str, &str)]| {
            let f: Vec<RankFacts> = ranks
                .iter()
                .map(|(m, c)| RankFacts {
                    machine: m.to_string(),
                    cpus: machine::parse_cpu_list(c),
                    ..RankFacts::default()
                })
                .collect();
            oversubscribed(&f)
        };
        // Two ranks bound to the two cores of one machine, or free on both.
        assert!(!over(&[("a", "0"), ("a", "1")]));
        assert!(!over(&[("a", "0,1"), ("a", "0,1")]));
        // Four ranks on two cores, bound or not; three free on two.
        assert!(over(&[("a", "0"), ("a", "1"), ("a", "0"), ("a", "1")]));
        assert!(over(&[("a", "0-1"); 3]));
        // Two ranks bound to the same core.
        assert!(over(&[("a", "0"), ("a", "0")]));
        // Machines count apart.
        assert!(!over(&[("a", "0"), ("b", "0")]));
        assert!(over(&[("a", "0"), ("b", "0"), ("b", "0")]));
        // No processor list: a rank counts against nothing.
        assert!(over(&[("a", "")]));
        // Ranges: 4 ranks free on 0-3 do not share; on 0-1,3 they do.
        assert!(!over(&[("a", "0-3"); 4]));
        assert!(over(&[("a", "0-1,3"); 4]));
        assert!(!over(&[
            ("a", "0-1"),
            ("a", "2-3"),
            ("a", "1-2"),
            ("a", "3")
        ]));
    }

    #[test]
    fn mpi_settings_are_kept_and_the_launchers_bookkeeping_is_not() {
        let vars = [
            ("OMPI_MCA_btl", "self,vader"),
            ("OMPI_MCA_orte_hnp_uri", "123@tcp://x"),
            ("OMPI_MCA_ess_base_jobid", "7"),
            ("OMPI_MCA_ess", "^singleton"),
            ("MPIR_CVAR_CH3_INTERFACE_HOSTNAME", "vm"),
            ("UCX_TLS", "rc,sm"),
            ("FI_PROVIDER", "tcp"),
            ("MPIR_CVAR_CH4_NETMOD", "ofi"),
            ("PMI_RANK", "0"),
            ("PATH", "/usr/bin"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let env = mpi_env(vars.into_iter());
        let keys: Vec<&str> = env.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "FI_PROVIDER",
                "MPIR_CVAR_CH4_NETMOD",
                "OMPI_MCA_btl",
                "UCX_TLS"
            ]
        );
    }

    #[test]
    fn differences_name_the_fields() {
        let names = vec!["vm".to_string(); 2];
        let a = assemble(&names, &[facts("m", &[0], 2), facts("m", &[1], 2)]);
        let mut b = a.clone();
        assert!(a.differences(&b).is_empty());
        b.hosts[0].cpu_model = Some("Other CPU".into());
        b.mpi_env.insert("OMPI_MCA_btl".into(), "tcp,self".into());
        let d = a.differences(&b);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].starts_with("cpu_model: unknown vs Other CPU"), "{d:?}");
        assert!(
            d[1].starts_with("mpi_env: none vs OMPI_MCA_btl=tcp,self"),
            "{d:?}"
        );
    }

    #[test]
    fn the_build_is_named() {
        let b = build();
        assert!(!b.version.is_empty() && !b.target.is_empty() && b.rustc.starts_with("rustc"));
    }
}
