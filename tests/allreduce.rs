//! ALLREDUCE: every point-to-point algorithm against MPI_Allreduce, bit for
//! bit on small integers held in doubles (`--check` compares each result
//! with MPI_Allreduce's on the same data and with the exact sum), on 1 to 5
//! processes, short and long vectors and lengths that do not divide by P.

mod common;
use common::*;

const ALGORITHMS: [&str; 5] = [
    "mpi",
    "recursive_doubling",
    "ring",
    "rabenseifner",
    "binomial",
];

fn checked(n: usize) {
    let v = run_json(
        n,
        &[
            "--suite",
            "allreduce",
            "--sizes",
            "8,24,8K,80K",
            "--iter",
            "2",
            "--warmup",
            "1",
            "--check",
        ],
    );
    let r = &v["results"][0];
    assert_eq!(r["benchmark"], "ALLREDUCE");
    assert_eq!(r["processes"], n as u64);
    assert_eq!(r["datatype"], "MPI_DOUBLE");
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4 * 5);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["errors"], 0, "P = {n}: {row}");
        assert_eq!(row["params"]["algorithm"], ALGORITHMS[i % 5], "{row}");
        assert_eq!(
            row["params"]["n"].as_u64().unwrap() * 8,
            row["bytes"].as_u64().unwrap()
        );
    }
    // Per length, the fastest and MPI_Allreduce against it.
    let best = r["best"].as_array().unwrap();
    assert_eq!(best.len(), 4);
    for b in best {
        assert!(ALGORITHMS.contains(&b["winner"].as_str().unwrap()), "{b}");
        assert_eq!(b["reference"], "mpi");
        assert!(b["ratio"].as_f64().unwrap() >= 1.0, "{b}");
    }
}

#[test]
fn algorithms_match_mpi_allreduce_on_1_to_5_ranks() {
    for n in 1..=5 {
        checked(n);
    }
}

#[test]
fn the_table_names_the_fastest() {
    let out = mpirun(
        3,
        &[
            "run",
            "--suite",
            "allreduce",
            "--sizes",
            "8,1K",
            "--algorithms",
            "mpi,ring",
            "--iter",
            "2",
        ],
    )
    .assert()
    .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("# ALLREDUCE (ORNL)"), "{text}");
    assert!(text.contains("MPI_Allreduce"), "{text}");
    assert!(text.contains("MPI/best"), "{text}");
    assert!(!text.contains("Rabenseifner  "), "{text}");
    assert!(text.contains("MPI_Allreduce is the fastest at"), "{text}");
}
