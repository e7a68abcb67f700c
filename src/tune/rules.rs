//! The library's own rules file: Open MPI's coll_tuned dynamic rules
//! (`coll_tuned_dynamic_rules_filename`, classic text format) and MPICH's
//! collective selection JSON (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`).
//!
//! Both say the same thing: for each tuned collective and process count,
//! the chosen algorithm from each measured size up to the next one (and at
//! the largest, that size alone); the library's own choice below the
//! smallest size, above the largest, at every process count not measured
//! and wherever the default was kept.

use super::library::{container_prefix, Algorithm, Coll};

/// An algorithm, or None: the library's own choice.
pub type Choice = Option<Algorithm>;

/// The rules of one collective: per process count (ascending), its
/// measured sizes (ascending) and their choices.
#[derive(Debug, Clone)]
pub struct CollRules {
    pub coll: &'static Coll,
    pub counts: Vec<(usize, Vec<(u64, Choice)>)>,
}

/// Open MPI's fan-in/out for the tree and chain algorithms, its own
/// default (`coll_tuned_<coll>_algorithm_{tree,chain}_fanout`); segments
/// are off (0), as when an algorithm is forced without a segment size.
const FANINOUT: u32 = 4;

/// The rules of one process count as ranges: (smallest size, choice),
/// from 0 up, neighbours with the same choice merged.
fn ranges(points: &[(u64, Choice)]) -> Vec<(u64, &Choice)> {
    const DEFAULT: &Choice = &None;
    let mut out: Vec<(u64, &Choice)> = Vec::new();
    if points.first().is_none_or(|(s, _)| *s > 0) {
        out.push((0, DEFAULT));
    }
    for (s, c) in points {
        out.push((*s, c));
    }
    if let Some((last, _)) = points.last() {
        out.push((last + 1, DEFAULT));
    }
    out.dedup_by(|b, a| a.1 == b.1);
    out
}

/// The name of a choice in the files' comments.
fn said(c: &Choice) -> &str {
    c.as_ref()
        .map_or("the library's default", |a| a.name.as_str())
}

/// Open MPI's classic rules file. `#` starts a comment to the end of the
/// line; algorithm 0 is the library's fixed decision. A process count's
/// rules hold up to the next count listed, so a count not measured gets
/// the default: a block for P + 1 follows each measured P.
pub fn open_mpi(rules: &[CollRules], header: &str) -> String {
    let mut t = String::new();
    for l in header.lines() {
        t += &format!("# {l}\n");
    }
    t += "# Open MPI coll_tuned dynamic rules (classic format); load with\n";
    t += "# OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename=FILE\n";
    t += &format!("{} # collectives\n", rules.len());
    for r in rules {
        let mut blocks: Vec<(usize, Vec<(u64, &Choice)>)> = Vec::new();
        for (i, (p, points)) in r.counts.iter().enumerate() {
            blocks.push((*p, ranges(points)));
            if r.counts.get(i + 1).is_none_or(|(next, _)| *next > p + 1) {
                blocks.push((p + 1, vec![(0, &None)]));
            }
        }
        t += &format!(
            "{} # {} (COLLTYPE {})\n",
            r.coll.ompi_id, r.coll.name, r.coll.ompi_id
        );
        t += &format!("{} # communicator sizes\n", blocks.len());
        for (p, ranges) in &blocks {
            t += &format!("{p} # from {p} processes\n");
            t += &format!("{} # message sizes\n", ranges.len());
            for (from, c) in ranges {
                let (alg, fan) = c.as_ref().map_or((0, 0), |a| (a.id, FANINOUT));
                t += &format!("{from} {alg} {fan} 0 # from {from} bytes: {}\n", said(c));
            }
        }
    }
    t
}

/// The top-level members of a JSON object, in order: (key, raw value).
fn members(json: &str) -> Result<Vec<(String, &str)>, String> {
    let bad =
        |what: &str| format!("MPICH's built-in selection tree is not the JSON expected: {what}");
    let b = json.trim().as_bytes();
    let body = json.trim();
    if b.first() != Some(&b'{') || b.last() != Some(&b'}') {
        return Err(bad("not an object"));
    }
    let mut out = Vec::new();
    let mut i = 1;
    let skip_ws = |i: &mut usize| {
        while *i < b.len() && b[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    // The end of the string that starts at `i` (its closing quote).
    let string_end = |mut i: usize| -> Option<usize> {
        i += 1;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 2,
                b'"' => return Some(i),
                _ => i += 1,
            }
        }
        None
    };
    loop {
        skip_ws(&mut i);
        match b.get(i) {
            Some(b'}') => break,
            Some(b'"') => {}
            _ => return Err(bad("a member without a key")),
        }
        let kend = string_end(i).ok_or_else(|| bad("an unterminated key"))?;
        let key = body[i + 1..kend].to_string();
        i = kend + 1;
        skip_ws(&mut i);
        if b.get(i) != Some(&b':') {
            return Err(bad("a key without a value"));
        }
        i += 1;
        skip_ws(&mut i);
        let start = i;
        let mut depth = 0usize;
        loop {
            match *b.get(i).ok_or_else(|| bad("an unterminated value"))? {
                b'"' => i = string_end(i).ok_or_else(|| bad("an unterminated string"))?,
                b'{' | b'[' => depth += 1,
                b'}' | b']' if depth == 0 => break,
                b'}' | b']' => depth -= 1,
                b',' if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        out.push((key, body[start..i].trim()));
        skip_ws(&mut i);
        if b.get(i) == Some(&b',') {
            i += 1;
        }
    }
    Ok(out)
}

/// An MPICH algorithm where the library's own tree could choose it, and
/// the library's branch (`raw`) elsewhere: for Allreduce and Reduce a
/// built-in commutative operation and a count of at least the power of two
/// below the process count (`count<pow2`: reduce_scatter_allgather fails
/// below it), for `smp` a communicator across nodes (`comm_hierarchy`).
fn guarded(coll: &Coll, a: &Algorithm, raw: &str) -> String {
    let mut t = format!(
        "{{\"algorithm={}{}\": {{}}}}",
        container_prefix(coll),
        a.name
    );
    if matches!(coll.lower, "allreduce" | "reduce") {
        t = format!(
            "{{\"is_commutative=yes\": {{\"is_op_built_in=yes\": {{\"count<pow2\": {raw}, \"count=any\": {t}}}, \"is_op_built_in=no\": {raw}}}, \"is_commutative=no\": {raw}}}"
        );
    }
    if a.name == "smp" {
        t = format!("{{\"comm_hierarchy=parent\": {t}, \"comm_hierarchy=any\": {raw}}}");
    }
    t
}

/// MPICH's JSON tuning file: the library's own tree (`defaults`, its
/// built-in JSON) with each tuned collective's branch replaced by one that
/// chooses per process count and size, and the library's own branch of that
/// collective wherever the default is kept.
pub fn mpich(rules: &[CollRules], defaults: &str) -> Result<String, String> {
    let all = members(defaults)?;
    for r in rules {
        let key = format!("collective={}", r.coll.lower);
        if !all.iter().any(|(k, _)| *k == key) {
            return Err(format!(
                "MPICH's built-in selection tree has no \"{key}\": its tuning file cannot keep the defaults"
            ));
        }
    }
    let mut t = String::from("{\n");
    for (n, (key, raw)) in all.iter().enumerate() {
        let comma = if n + 1 < all.len() { "," } else { "" };
        match rules
            .iter()
            .find(|r| format!("collective={}", r.coll.lower) == *key)
        {
            None => t += &format!("  \"{key}\": {raw}{comma}\n"),
            Some(r) => {
                t += &format!("  \"{key}\": {{\n    \"comm_type=intra\": {{\n");
                let alg = |c: &Choice| match c {
                    None => raw.to_string(),
                    Some(a) => guarded(r.coll, a, raw),
                };
                let mut below = 0;
                for (p, points) in &r.counts {
                    if *p > below + 1 {
                        t += &format!("      \"comm_size<={}\": {raw},\n", p - 1);
                    }
                    below = *p;
                    t += &format!("      \"comm_size<={p}\": {{\n");
                    let rs = ranges(points);
                    for (i, (_, c)) in rs.iter().enumerate() {
                        let cond = match rs.get(i + 1) {
                            Some((next, _)) => format!("avg_msg_size<{next}"),
                            None => "avg_msg_size=any".to_string(),
                        };
                        let comma = if i + 1 < rs.len() { "," } else { "" };
                        t += &format!("        \"{cond}\": {}{comma}\n", alg(c));
                    }
                    t += "      },\n";
                }
                t += &format!("      \"comm_size=any\": {raw}\n    }},\n");
                t += &format!("    \"comm_type=inter\": {raw}\n  }}{comma}\n");
            }
        }
    }
    t += "}\n";
    serde_json::from_str::<serde_json::Value>(&t)
        .map_err(|e| format!("internal error: the MPICH tuning file is not JSON: {e}"))?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::super::library::coll;
    use super::*;

    fn alg(id: i64, name: &str) -> Choice {
        Some(Algorithm {
            id,
            name: name.into(),
        })
    }

    fn sample() -> Vec<CollRules> {
        vec![
            CollRules {
                coll: coll("allreduce").unwrap(),
                counts: vec![(
                    2,
                    vec![
                        (8, alg(3, "recursive_doubling")),
                        (1024, alg(3, "recursive_doubling")),
                        (65536, None),
                    ],
                )],
            },
            CollRules {
                coll: coll("bcast").unwrap(),
                counts: vec![
                    (2, vec![(0, None), (1024, alg(6, "binomial"))]),
                    (3, vec![(0, None)]),
                ],
            },
        ]
    }

    #[test]
    fn mpich_algorithms_keep_the_librarys_guards() {
        let smp = Algorithm {
            id: 2,
            name: "smp".into(),
        };
        assert_eq!(
            guarded(coll("bcast").unwrap(), &smp, "D"),
            r#"{"comm_hierarchy=parent": {"algorithm=MPIR_Bcast_intra_smp": {}}, "comm_hierarchy=any": D}"#
        );
        let g = guarded(coll("reduce").unwrap(), &smp, "D");
        assert!(g.starts_with(r#"{"comm_hierarchy=parent": {"is_commutative=yes": {"is_op_built_in=yes": {"count<pow2": D, "count=any": {"algorithm=MPIR_Reduce_intra_smp": {}}}"#), "{g}");
    }

    #[test]
    fn ranges_start_at_zero_and_end_with_the_default() {
        let a = alg(1, "a");
        let points = [(8, a.clone()), (64, a.clone()), (512, None)];
        assert_eq!(ranges(&points), [(0, &None), (8, &a), (512, &None)]);
        let points = [(0, a.clone())];
        assert_eq!(ranges(&points), [(0, &a), (1, &None)]);
    }

    #[test]
    fn open_mpi_classic_text() {
        let t = open_mpi(&sample(), "mpibench tune");
        assert_eq!(
            t,
            "# mpibench tune
# Open MPI coll_tuned dynamic rules (classic format); load with
# OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_dynamic_rules_filename=FILE
2 # collectives
2 # Allreduce (COLLTYPE 2)
2 # communicator sizes
2 # from 2 processes
3 # message sizes
0 0 0 0 # from 0 bytes: the library's default
8 3 4 0 # from 8 bytes: recursive_doubling
65536 0 0 0 # from 65536 bytes: the library's default
3 # from 3 processes
1 # message sizes
0 0 0 0 # from 0 bytes: the library's default
7 # Bcast (COLLTYPE 7)
3 # communicator sizes
2 # from 2 processes
3 # message sizes
0 0 0 0 # from 0 bytes: the library's default
1024 6 4 0 # from 1024 bytes: binomial
1025 0 0 0 # from 1025 bytes: the library's default
3 # from 3 processes
1 # message sizes
0 0 0 0 # from 0 bytes: the library's default
4 # from 4 processes
1 # message sizes
0 0 0 0 # from 0 bytes: the library's default
"
        );
    }

    const DEFAULTS: &str = r#"{"collective=bcast":{"comm_type=intra":{"algorithm=MPIR_Bcast_intra_binomial":{}}},"collective=allreduce":{"comm_type=intra":{"avg_msg_size<=8":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},"avg_msg_size=any":{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather":{}}}},"collective=barrier":{"algorithm=MPIR_Barrier_intra_dissemination":{}}}"#;

    #[test]
    fn members_keep_order_and_raw_values() {
        let m = members(DEFAULTS).unwrap();
        let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            [
                "collective=bcast",
                "collective=allreduce",
                "collective=barrier"
            ]
        );
        assert_eq!(
            m[2].1,
            r#"{"algorithm=MPIR_Barrier_intra_dissemination":{}}"#
        );
        assert!(members("[1]").is_err());
        assert!(members(r#"{"a":{"b":"#).is_err());
        assert!(members(r#"{"a":{"b":1}"#).is_err());
    }

    #[test]
    fn mpich_json_text() {
        let t = mpich(&sample(), DEFAULTS).unwrap();
        let bcast = r#"{"comm_type=intra":{"algorithm=MPIR_Bcast_intra_binomial":{}}}"#;
        let allreduce = r#"{"comm_type=intra":{"avg_msg_size<=8":{"algorithm=MPIR_Allreduce_intra_recursive_doubling":{}},"avg_msg_size=any":{"algorithm=MPIR_Allreduce_intra_reduce_scatter_allgather":{}}}}"#;
        let want = format!(
            r#"{{
  "collective=bcast": {{
    "comm_type=intra": {{
      "comm_size<=1": {bcast},
      "comm_size<=2": {{
        "avg_msg_size<1024": {bcast},
        "avg_msg_size<1025": {{"algorithm=MPIR_Bcast_intra_binomial": {{}}}},
        "avg_msg_size=any": {bcast}
      }},
      "comm_size<=3": {{
        "avg_msg_size=any": {bcast}
      }},
      "comm_size=any": {bcast}
    }},
    "comm_type=inter": {bcast}
  }},
  "collective=allreduce": {{
    "comm_type=intra": {{
      "comm_size<=1": {allreduce},
      "comm_size<=2": {{
        "avg_msg_size<8": {allreduce},
        "avg_msg_size<65536": {{"is_commutative=yes": {{"is_op_built_in=yes": {{"count<pow2": {allreduce}, "count=any": {{"algorithm=MPIR_Allreduce_intra_recursive_doubling": {{}}}}}}, "is_op_built_in=no": {allreduce}}}, "is_commutative=no": {allreduce}}},
        "avg_msg_size=any": {allreduce}
      }},
      "comm_size=any": {allreduce}
    }},
    "comm_type=inter": {allreduce}
  }},
  "collective=barrier": {{"algorithm=MPIR_Barrier_intra_dissemination":{{}}}}
}}
"#
        );
        assert_eq!(t, want);
        let e = mpich(&sample(), r#"{"collective=bcast":{}}"#).unwrap_err();
        assert!(e.contains("no \"collective=allreduce\""), "{e}");
    }
}
