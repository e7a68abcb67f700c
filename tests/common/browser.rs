//! A real browser for the HTML pages: headless Chromium, its DOM and a
//! screenshot's ink.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Chromium, or a loud failure: the report must be checked in a real browser.
pub fn chromium() -> String {
    let candidates = [
        std::env::var("CHROMIUM").unwrap_or_default(),
        "chromium".into(),
        "chromium-browser".into(),
    ];
    for c in candidates.iter().filter(|c| !c.is_empty()) {
        if Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
        {
            return c.clone();
        }
    }
    panic!(
        "\n\n*** Chromium is not installed: the HTML report cannot be tested in a real browser. ***\n\
         *** Install it with `scripts/install-deps.sh --browser` (Debian: apt-get install chromium). ***\n\n"
    );
}

pub fn headless(extra: &[&str], url: &str) -> std::process::Output {
    let profile = tempfile::tempdir().unwrap();
    let mut c = assert_cmd::Command::new(chromium());
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.path().display()))
    .args(extra)
    .arg(url)
    .timeout(std::time::Duration::from_secs(180));
    let out = c.output().expect("chromium runs");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Share of pixels that differ from the page background, and distinct colours.
pub fn ink(png_path: &Path) -> (f64, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(png_path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let bytes = &buf[..info.buffer_size()];
    let channels = info.color_type.samples();
    assert!(
        channels >= 3,
        "unexpected PNG colour type {:?}",
        info.color_type
    );
    let px: Vec<&[u8]> = bytes.chunks_exact(channels).collect();
    let bg = px[0];
    let mut colours = std::collections::BTreeSet::new();
    let mut differ = 0usize;
    for p in &px {
        if p[..3] != bg[..3] {
            differ += 1;
        }
        if colours.len() < 1000 {
            colours.insert((p[0], p[1], p[2]));
        }
    }
    (differ as f64 / px.len() as f64, colours.len())
}
