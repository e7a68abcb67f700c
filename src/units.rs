//! Message sizes as users write them (`4K`, `1M`, `2^20`, lists): parsed
//! once, for the command line, the plan and the front ends alike.

/// Parses one size: a non-negative integer with an optional K, M or G suffix
/// (powers of 1024, optionally followed by "B" or "iB"), or "2^N".
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let bad = || format!("invalid message size '{s}' (expected e.g. 0, 64, 4K, 1M, 2G or 2^20)");
    if let Some(e) = t.strip_prefix("2^") {
        let e: u32 = e.parse().map_err(|_| bad())?;
        return 1usize.checked_shl(e).filter(|_| e < 63).ok_or_else(bad);
    }
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (num, mult) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 1usize << 10),
        Some('M') => (&body[..body.len() - 1], 1 << 20),
        Some('G') => (&body[..body.len() - 1], 1 << 30),
        _ => (body, 1),
    };
    if num.is_empty() || !num.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    num.parse::<usize>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(bad)
}

/// Parses a comma-separated size list; sorted, duplicates removed.
pub fn parse_sizes(list: &str) -> Result<Vec<usize>, String> {
    if list.trim().is_empty() {
        return Err("--sizes needs at least one message size".into());
    }
    let mut v = list
        .split(',')
        .map(parse_size)
        .collect::<Result<Vec<_>, _>>()?;
    v.sort_unstable();
    v.dedup();
    Ok(v)
}
