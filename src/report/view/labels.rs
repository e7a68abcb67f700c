//! Values as words: parameters, byte counts, sizes and numbers.

use std::collections::BTreeMap;

use serde_json::Value;

/// A parameter value as written by the user: numbers plainly, strings unquoted.
pub fn param_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".to_string(),
        other => other.to_string(),
    }
}

/// "key=value, ..." of parameters (give it the chosen ones), leaving out `skip`.
pub fn params_label(params: &BTreeMap<String, Value>, skip: &[&str]) -> String {
    params
        .iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .map(|(k, v)| format!("{k}={}", param_value(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Bytes with binary suffixes: 0, 512, 1 KiB, 4 MiB, 2 GiB (plain when not a round multiple).
pub fn bytes_label(b: f64) -> String {
    const UNITS: [(&str, f64); 4] = [
        ("TiB", 1099511627776.0),
        ("GiB", 1073741824.0),
        ("MiB", 1048576.0),
        ("KiB", 1024.0),
    ];
    for (u, f) in UNITS {
        if b >= f {
            let v = b / f;
            return if (v - v.round()).abs() < 1e-9 {
                format!("{} {u}", v.round())
            } else {
                let n = format!("{v:.3}");
                format!("{} {u}", n.trim_end_matches('0').trim_end_matches('.'))
            };
        }
    }
    if (b - b.round()).abs() < 1e-9 {
        format!("{}", b.round())
    } else {
        format!("{b:.2}")
    }
}

/// "512 B", "1 KiB": a message size with its unit.
pub fn size_label(bytes: usize) -> String {
    let l = bytes_label(bytes as f64);
    if l.ends_with('B') {
        l
    } else {
        format!("{l} B")
    }
}

/// A number with about four significant digits.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "–".to_string();
    }
    let a = v.abs();
    if a == 0.0 {
        "0".to_string()
    } else if a >= 1e6 {
        format!("{v:.3e}")
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 100.0 {
        format!("{v:.1}")
    } else if a >= 10.0 {
        format!("{v:.2}")
    } else if a >= 0.01 {
        format!("{v:.3}")
    } else {
        format!("{v:.2e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_numbers() {
        assert_eq!(bytes_label(0.0), "0");
        assert_eq!(bytes_label(1024.0), "1 KiB");
        assert_eq!(bytes_label(4194304.0), "4 MiB");
        assert_eq!(bytes_label(1536.0), "1.5 KiB");
        assert_eq!(num(0.3123), "0.312");
        assert_eq!(num(3193.54), "3194");
    }
}
