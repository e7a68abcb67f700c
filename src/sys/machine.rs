//! What the kernel says about the machine a rank runs on: the processor's
//! model, the frequency governor, the NUMA nodes and their processors. Each
//! reader returns `None` (or nothing) where the file is absent or does not
//! parse: a container, another kernel, a machine without cpufreq.

use std::path::Path;

/// The machine as a name no two kernels share: its boot time and machine
/// id. Hosts in containers or network namespaces on one kernel share it.
pub fn machine_key() -> String {
    let btime = std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("btime"))
                .map(str::to_string)
        })
        .unwrap_or_default();
    let id = std::fs::read_to_string("/etc/machine-id").unwrap_or_default();
    format!("{} {}", btime.trim(), id.trim())
}

/// The processor's model (`model name`, or `Processor`/`cpu model` on other
/// architectures) from `/proc/cpuinfo`.
pub fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpu_model_in(&text)
}

fn cpu_model_in(cpuinfo: &str) -> Option<String> {
    ["model name", "cpu model", "Processor", "cpu"]
        .iter()
        .find_map(|key| {
            cpuinfo.lines().find_map(|l| {
                let (k, v) = l.split_once(':')?;
                (k.trim() == *key && !v.trim().is_empty()).then(|| v.trim().to_string())
            })
        })
}

/// The cpufreq governor of processor `cpu` ("performance", "powersave",
/// ...); `None` where the kernel has no cpufreq for it (most VMs).
pub fn governor(cpu: usize) -> Option<String> {
    let p = format!("/sys/devices/system/cpu/cpu{cpu}/cpufreq/scaling_governor");
    let s = std::fs::read_to_string(p).ok()?;
    Some(s.trim().to_string()).filter(|s| !s.is_empty())
}

/// The NUMA nodes and the processors of each, from
/// `/sys/devices/system/node/node*/cpulist`, by node number.
pub fn numa_nodes() -> Vec<(usize, Vec<usize>)> {
    numa_nodes_in(Path::new("/sys/devices/system/node"))
}

fn numa_nodes_in(dir: &Path) -> Vec<(usize, Vec<usize>)> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut nodes: Vec<(usize, Vec<usize>)> = rd
        .filter_map(|e| {
            let e = e.ok()?;
            let name = e.file_name().into_string().ok()?;
            let n: usize = name.strip_prefix("node")?.parse().ok()?;
            let list = std::fs::read_to_string(e.path().join("cpulist")).ok()?;
            Some((n, parse_cpu_list(&list)))
        })
        .collect();
    nodes.sort();
    nodes
}

/// The processors of a kernel CPU list ("0-3,8,10-11"); what does not parse
/// is left out.
pub fn parse_cpu_list(s: &str) -> Vec<usize> {
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
            if b >= a && b - a < 1 << 20 {
                out.extend(a..=b);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Sorted processors as a kernel CPU list: [0, 1, 2, 5] gives "0-2,5".
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// The processors online on this machine (`/sys/devices/system/cpu/online`),
/// or `None`.
pub fn online_cpus() -> Option<Vec<usize>> {
    let s = std::fs::read_to_string("/sys/devices/system/cpu/online").ok()?;
    Some(parse_cpu_list(&s)).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(parse_cpu_list("0-3,8,10-11\n"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(cpu_list(&[11, 0, 1, 2, 3, 8, 10]), "0-3,8,10-11");
        assert_eq!(cpu_list(&[]), "");
        assert_eq!(parse_cpu_list("x,3-1,5"), vec![5]);
        assert_eq!(cpu_list(&parse_cpu_list("0,2,4-7")), "0,2,4-7");
    }

    #[test]
    fn the_model_is_read_on_x86_and_arm() {
        let x86 =
            "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6248\n";
        assert_eq!(
            cpu_model_in(x86).as_deref(),
            Some("Intel(R) Xeon(R) Gold 6248")
        );
        let ppc = "processor\t: 0\ncpu\t\t: POWER9 (raw), altivec supported\n";
        assert_eq!(
            cpu_model_in(ppc).as_deref(),
            Some("POWER9 (raw), altivec supported")
        );
        assert_eq!(cpu_model_in("processor : 0\n"), None);
    }

    #[test]
    fn numa_nodes_are_read_from_a_sysfs_tree() {
        let dir = std::env::temp_dir().join(format!("mpibench-numa-{}", std::process::id()));
        for (n, list) in [(1, "2-3\n"), (0, "0-1\n")] {
            let d = dir.join(format!("node{n}"));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("cpulist"), list).unwrap();
        }
        std::fs::create_dir_all(dir.join("power")).unwrap();
        let nodes = numa_nodes_in(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(nodes, vec![(0, vec![0, 1]), (1, vec![2, 3])]);
        assert!(numa_nodes_in(Path::new("/nonexistent/mpibench")).is_empty());
    }
}
