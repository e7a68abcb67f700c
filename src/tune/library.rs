//! Which MPI library this binary is linked against, and what it offers:
//! the algorithms of each collective, asked of the library itself through
//! its control variables (MPI_T), and, for MPICH, its built-in selection
//! tree (the JSON its tuning file replaces).

use crate::comm::mpit::ControlVar;

/// A collective `tune` can tune: its IMB benchmark, Open MPI's COLLTYPE
/// (`ompi/mca/coll/base/coll_base_functions.h`) and the lower-case name
/// both libraries use in their variables and files. Each one's message
/// size is IMB's bytes in both libraries' rules (count × type size).
#[derive(Debug, PartialEq, Eq)]
pub struct Coll {
    pub name: &'static str,
    pub ompi_id: u32,
    pub lower: &'static str,
}

pub const COLLS: &[Coll] = &[
    Coll {
        name: "Allreduce",
        ompi_id: 2,
        lower: "allreduce",
    },
    Coll {
        name: "Bcast",
        ompi_id: 7,
        lower: "bcast",
    },
    Coll {
        name: "Reduce",
        ompi_id: 11,
        lower: "reduce",
    },
];

/// A collective by name, case-insensitive.
pub fn coll(name: &str) -> Option<&'static Coll> {
    COLLS.iter().find(|c| c.name.eq_ignore_ascii_case(name))
}

/// One algorithm of a collective: Open MPI's number, or (MPICH) its
/// position in the library's list; its name as the library spells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Algorithm {
    pub id: i64,
    pub name: String,
}

#[derive(Debug)]
pub enum Kind {
    /// Open MPI's coll_tuned, rules in its classic text format.
    OpenMpi,
    /// MPICH's collective selection: the library's own JSON tree and the
    /// algorithm containers its JSON reader accepts (`algorithm=MPIR_...`).
    Mpich {
        defaults: String,
        containers: Vec<String>,
    },
}

#[derive(Debug)]
pub struct Library {
    /// `MPI_Get_library_version`, on one line.
    pub version: String,
    pub kind: Kind,
}

impl Library {
    /// The library in a few words: Open MPI's version (before its package),
    /// MPICH's version and device.
    pub fn name(&self) -> String {
        match self.kind {
            Kind::OpenMpi => self.version.split(',').next().unwrap_or("").to_string(),
            Kind::Mpich { .. } => {
                let field = |k: &str| {
                    self.version
                        .split(k)
                        .nth(1)
                        .and_then(|r| r.split_whitespace().next())
                        .unwrap_or("?")
                        .to_string()
                };
                format!(
                    "MPICH {} ({})",
                    field("MPICH Version:"),
                    field("MPICH Device:")
                )
            }
        }
    }
}

/// What `tune` supports, for the one line it says to any other library.
pub const SUPPORTED: &str =
    "Open MPI 4.x/5.x (coll_tuned) and MPICH 4.x (its CVARs and JSON tuning file)";

/// The major version after `prefix` in `version` ("Open MPI v4.1.4" → 4).
fn major(version: &str, prefix: &str) -> Option<u32> {
    let rest = version.strip_prefix(prefix)?.trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    digits.parse().ok()
}

/// The library, from its version string; `maps` finds MPICH's shared
/// object (the process's memory map) to read its built-in tree from.
pub fn detect(
    version: &str,
    maps: impl FnOnce() -> Result<String, String>,
) -> Result<Library, String> {
    let unsupported = || {
        let first = version.split(" MPICH Release").next().unwrap_or(version);
        format!("mpibench tune supports {SUPPORTED}; this binary is linked against {first}")
    };
    let kind = if let Some(m) = major(version, "Open MPI v") {
        if !(4..=5).contains(&m) {
            return Err(unsupported());
        }
        Kind::OpenMpi
    } else if let Some(m) = major(version, "MPICH Version:") {
        if m != 4 {
            return Err(unsupported());
        }
        let bytes = std::fs::read(mpich_object(&maps()?)?)
            .map_err(|e| format!("cannot read MPICH's shared object: {e}"))?;
        let defaults = mpich_defaults(&bytes).ok_or_else(|| {
            format!("{}: MPICH's built-in selection tree was not found in its shared object, so a tuning file could not keep its defaults", unsupported())
        })?;
        Kind::Mpich {
            defaults,
            containers: mpich_containers(&bytes),
        }
    } else {
        return Err(unsupported());
    };
    Ok(Library {
        version: version.to_string(),
        kind,
    })
}

/// The MPICH shared object this process has mapped (`/proc/self/maps`).
fn mpich_object(maps: &str) -> Result<String, String> {
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| {
            let base = p.rsplit('/').next().unwrap_or(p);
            base.starts_with("libmpich.so") || base.starts_with("libmpi.so")
        })
        .map(str::to_string)
        .ok_or_else(|| "cannot find MPICH's shared object in /proc/self/maps".to_string())
}

/// The NUL-terminated printable strings of a binary, as `strings` finds them.
fn strings(bytes: &[u8]) -> impl Iterator<Item = &str> {
    bytes
        .split(|&b| b == 0)
        .filter_map(|s| {
            let start = s
                .iter()
                .rposition(|b| !(0x20..0x7f).contains(b))
                .map_or(0, |i| i + 1);
            std::str::from_utf8(&s[start..]).ok()
        })
        .filter(|s| s.len() >= 8)
}

/// MPICH's built-in MPIR selection tree (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`
/// replaces it): the JSON string in the library that selects `MPIR_` algorithms.
pub fn mpich_defaults(bytes: &[u8]) -> Option<String> {
    strings(bytes)
        .filter(|s| s.starts_with("{\"collective=") && s.contains("\"algorithm=MPIR_"))
        .max_by_key(|s| s.len())
        .map(str::to_string)
}

/// The algorithm containers MPICH's JSON reader accepts
/// (`algorithm=MPIR_Allreduce_intra_...`), found in its shared object.
pub fn mpich_containers(bytes: &[u8]) -> Vec<String> {
    let mut v: Vec<String> = strings(bytes)
        .filter(|s| {
            s.strip_prefix("algorithm=MPIR_")
                .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        })
        .map(str::to_string)
        .collect();
    v.sort();
    v.dedup();
    v
}

/// The algorithms of `coll` among MPICH's containers (their last part).
fn containers_of<'a>(containers: &'a [String], coll: &Coll) -> impl Iterator<Item = &'a str> {
    let prefix = format!("algorithm={}", container_prefix(coll));
    containers.iter().filter_map(move |c| {
        c.strip_prefix(&prefix).filter(|rest| {
            !rest.is_empty() && rest.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        })
    })
}

/// `MPIR_Allreduce_intra_`: what MPICH's container names start with.
pub fn container_prefix(coll: &Coll) -> String {
    let mut name = coll.lower.to_string();
    name[..1].make_ascii_uppercase();
    format!("MPIR_{name}_intra_")
}

/// The algorithms of `coll`, asked of the library: Open MPI's enumeration of
/// `coll_tuned_<coll>_algorithm` (without 0, "ignore"); MPICH's values of
/// `MPIR_CVAR_<COLL>_INTRA_ALGORITHM` that its JSON reader also accepts
/// (`containers`), in the order of the variable's description.
pub fn algorithms(kind: &Kind, vars: &[ControlVar], coll: &Coll) -> Result<Vec<Algorithm>, String> {
    match kind {
        Kind::OpenMpi => {
            let name = format!("coll_tuned_{}_algorithm", coll.lower);
            let var = vars.iter().find(|v| v.name == name).ok_or_else(|| {
                format!("Open MPI offers no control variable {name} (is its coll tuned component installed?)")
            })?;
            Ok(var
                .items
                .iter()
                .filter(|(v, _)| *v != 0)
                .map(|(v, n)| Algorithm {
                    id: *v as i64,
                    name: n.clone(),
                })
                .collect())
        }
        Kind::Mpich { containers, .. } => {
            let name = format!("MPIR_CVAR_{}_INTRA_ALGORITHM", coll.lower.to_uppercase());
            let var = vars
                .iter()
                .find(|v| v.name == name)
                .ok_or_else(|| format!("MPICH offers no control variable {name}"))?;
            let mut found: Vec<(usize, &str)> = containers_of(containers, coll)
                .filter_map(|c| word_at(&var.description, c).map(|at| (at, c)))
                .collect();
            found.sort();
            Ok(found
                .into_iter()
                .enumerate()
                .map(|(i, (_, n))| Algorithm {
                    id: i as i64 + 1,
                    name: n.to_string(),
                })
                .collect())
        }
    }
}

/// Where `name - ` (a value and its dash) stands in an MPICH description,
/// whose lines the library joins without a separator.
fn word_at(desc: &str, name: &str) -> Option<usize> {
    desc.match_indices(name).find_map(|(at, _)| {
        let rest = desc[at + name.len()..].trim_start();
        rest.starts_with("- ").then_some(at)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_decide_the_library() {
        let none = || Err("no maps".to_string());
        let lib = detect("Open MPI v4.1.4, package: Debian OpenMPI", none).unwrap();
        assert!(matches!(lib.kind, Kind::OpenMpi));
        let e = detect("Open MPI v3.1.6, package", none).unwrap_err();
        assert!(e.starts_with("mpibench tune supports Open MPI 4.x"), "{e}");
        assert!(
            e.ends_with("linked against Open MPI v3.1.6, package"),
            "{e}"
        );
        let e = detect("Intel(R) MPI Library 2021.10", none).unwrap_err();
        assert!(e.contains("Intel(R) MPI Library 2021.10"), "{e}");
        let e = detect("MPICH Version: 3.4.3 MPICH Release date: x", none).unwrap_err();
        assert!(e.ends_with("linked against MPICH Version: 3.4.3"), "{e}");
        assert_eq!(
            detect("MPICH Version: 4.0.2 MPICH Release date: x", none).unwrap_err(),
            "no maps"
        );
        assert_eq!(lib.name(), "Open MPI v4.1.4");
        let mpich = Library {
            version: "MPICH Version:\t4.0.2 MPICH Release date:\tThu MPICH Device:\tch4:ucx MPICH CC: gcc".into(),
            kind: Kind::Mpich {
                defaults: String::new(),
                containers: Vec::new(),
            },
        };
        assert_eq!(mpich.name(), "MPICH 4.0.2 (ch4:ucx)");
    }

    #[test]
    fn mpich_object_is_found_in_the_map() {
        let maps = "7f00-7f01 r-xp 00000000 08:01 1 /usr/lib/libc.so.6\n\
                    7f02-7f03 r-xp 00000000 08:01 2 /usr/lib/x86_64-linux-gnu/libmpich.so.12.2.2\n";
        assert_eq!(
            mpich_object(maps).unwrap(),
            "/usr/lib/x86_64-linux-gnu/libmpich.so.12.2.2"
        );
        assert!(mpich_object("7f00-7f01 r-xp 0 0 1 /usr/lib/libc.so.6\n").is_err());
    }

    const BINARY: &[u8] = b"\x01\x02algorithm=MPIR_Allreduce_intra_smp\0\
        algorithm=MPIR_Allreduce_intra_recursive_doubling\0MPIR_Allreduce_intra_nb\0\
        \x7f{\"collective=bcast\":{\"composition=MPIDI_Bcast_intra_composition_alpha\":{}}}\0\
        {\"collective=allreduce\":{\"algorithm=MPIR_Allreduce_intra_smp\":{}}}\0";

    #[test]
    fn mpich_defaults_and_containers_come_from_the_binary() {
        assert_eq!(
            mpich_defaults(BINARY).unwrap(),
            "{\"collective=allreduce\":{\"algorithm=MPIR_Allreduce_intra_smp\":{}}}"
        );
        let all = mpich_containers(BINARY);
        assert_eq!(
            all,
            [
                "algorithm=MPIR_Allreduce_intra_recursive_doubling",
                "algorithm=MPIR_Allreduce_intra_smp"
            ]
        );
        let of = |c: &str| containers_of(&all, coll(c).unwrap()).collect::<Vec<_>>();
        assert_eq!(of("ALLREDUCE"), ["recursive_doubling", "smp"]);
        assert!(of("bcast").is_empty());
    }

    #[test]
    fn algorithms_are_the_libraries_own() {
        let vars = vec![
            ControlVar {
                name: "coll_tuned_allreduce_algorithm".into(),
                description: String::new(),
                items: vec![(0, "ignore".into()), (1, "basic_linear".into()), (3, "recursive_doubling".into())],
            },
            ControlVar {
                name: "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM".into(),
                description: "Variable to select allreduce algorithmauto - Internal algorithm selection \
                    (can be overridden with MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE)nb - Force \
                    nonblocking algorithmsmp                      - Force smp algorithmrecursive_doubling - \
                    Force recursive doubling algorithm"
                    .into(),
                items: vec![],
            },
        ];
        let allreduce = coll("allreduce").unwrap();
        let names = |v: Vec<Algorithm>| v.into_iter().map(|a| (a.id, a.name)).collect::<Vec<_>>();
        assert_eq!(
            names(algorithms(&Kind::OpenMpi, &vars, allreduce).unwrap()),
            [
                (1, "basic_linear".to_string()),
                (3, "recursive_doubling".to_string())
            ]
        );
        let mpich = Kind::Mpich {
            defaults: String::new(),
            containers: ["recursive_doubling", "reduce_scatter_allgather", "smp"]
                .iter()
                .map(|n| format!("algorithm=MPIR_Allreduce_intra_{n}"))
                .collect(),
        };
        assert_eq!(
            names(algorithms(&mpich, &vars, allreduce).unwrap()),
            [
                (1, "smp".to_string()),
                (2, "recursive_doubling".to_string())
            ]
        );
        let e = algorithms(&Kind::OpenMpi, &vars, coll("bcast").unwrap()).unwrap_err();
        assert!(e.contains("coll_tuned_bcast_algorithm"), "{e}");
    }
}
