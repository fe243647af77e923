//! The build measurements (issue 37): for each server crate, with its 103 tools and with four,
//! how long a rebuild after editing one tool takes, how long a cold build takes (every
//! dependency included, in an empty target directory), and the size of the binary, stripped and
//! not.
//!
//! Release builds are not incremental, so an edit anywhere in the crate rebuilds it whole:
//! "editing one tool" bumps the crate's `src/main.rs` (where `echo` is) and rebuilds it.

use crate::Result;
use crate::report::Samples;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A server crate's two sizes.
#[derive(Clone, Copy)]
pub enum Size {
    /// The crate as the other measurements run it: `echo`, `add`, `big` and 100 generated tools.
    All,
    /// `echo`, `add`, `big` and one generated tool (its feature `four-tools`).
    Four,
}

pub const SIZES: [Size; 2] = [Size::All, Size::Four];

impl Size {
    fn features(self) -> &'static [&'static str] {
        match self {
            Size::All => &[],
            Size::Four => &["--features", "four-tools"],
        }
    }

    /// Where its warm builds go: the 103-tool crates in `bench/target` (`./bench/run.sh` built
    /// them), the four-tool ones beside, so neither build replaces the other's binary.
    fn target_dir(self, bench_dir: &Path) -> PathBuf {
        match self {
            Size::All => bench_dir.join("target"),
            Size::Four => bench_dir.join("target/four-tools"),
        }
    }

    /// The key of `metric` (one of `BUILD_METRICS`'s for the 103-tool crate) for this size.
    fn key(self, metric: &'static str) -> &'static str {
        match (self, metric) {
            (Size::All, metric) => metric,
            (Size::Four, "compile_s") => "four_compile_s",
            (Size::Four, "cold_s") => "four_cold_s",
            (Size::Four, "binary_kb") => "four_binary_kb",
            (Size::Four, "stripped_kb") => "four_stripped_kb",
            (Size::Four, other) => unreachable!("no four-tool key for {other}"),
        }
    }
}

/// One crate to build: its folder under `bench/` and its binary (= package) name.
#[derive(Clone, Copy)]
pub struct Crate {
    pub dir: &'static str,
    pub bin: &'static str,
}

/// Builds each size once, untimed, so the timed rebuilds start from a warm target directory.
pub fn warm_up(bench_dir: &Path, crates: &[Crate]) -> Result<()> {
    for size in SIZES {
        for krate in crates {
            cargo_build(bench_dir, krate.bin, size, &size.target_dir(bench_dir))?;
        }
    }
    Ok(())
}

/// A rebuild of each crate after editing one tool, each size.
pub fn rebuild_round(bench_dir: &Path, krate: Crate, samples: &mut Samples) -> Result<()> {
    for size in SIZES {
        let main = bench_dir.join(krate.dir).join("src/main.rs");
        // Bump the mtime: cargo rebuilds just this crate (its build script and deps are fresh).
        let file = std::fs::OpenOptions::new().append(true).open(&main)?;
        file.set_modified(std::time::SystemTime::now())?;
        drop(file);
        let seconds = cargo_build(bench_dir, krate.bin, size, &size.target_dir(bench_dir))?;
        eprintln!("  rebuild after an edit, {}: {seconds:.2} s", label(size));
        samples.entry(size.key("compile_s")).or_default().push(seconds);
    }
    Ok(())
}

/// A cold build of each size: an empty target directory, every dependency compiled.
pub fn cold_round(bench_dir: &Path, krate: Crate, samples: &mut Samples) -> Result<()> {
    for size in SIZES {
        let target = bench_dir.join("target/cold");
        remove(&target)?;
        let seconds = cargo_build(bench_dir, krate.bin, size, &target);
        remove(&target)?;
        let seconds = seconds?;
        eprintln!("  cold build, {}: {seconds:.2} s", label(size));
        samples.entry(size.key("cold_s")).or_default().push(seconds);
    }
    Ok(())
}

/// The binary's size as built (symbols kept, no debug info) and stripped (`strip`), each size.
pub fn sizes(bench_dir: &Path, krate: Crate, samples: &mut Samples) -> Result<()> {
    for size in SIZES {
        let binary = size.target_dir(bench_dir).join("release").join(krate.bin);
        let kib = |path: &Path| -> Result<f64> { Ok(std::fs::metadata(path)?.len() as f64 / 1024.0) };
        samples.entry(size.key("binary_kb")).or_default().push(kib(&binary)?);
        let stripped = std::env::temp_dir().join(format!("bench-stripped-{}-{}", krate.bin, std::process::id()));
        let status = std::process::Command::new("strip").arg("-o").arg(&stripped).arg(&binary).status()?;
        if !status.success() {
            return Err(format!("strip {} failed", binary.display()).into());
        }
        let result = kib(&stripped);
        std::fs::remove_file(&stripped)?;
        samples.entry(size.key("stripped_kb")).or_default().push(result?);
    }
    Ok(())
}

fn label(size: Size) -> &'static str {
    match size {
        Size::All => "103 tools",
        Size::Four => "4 tools",
    }
}

/// `cargo build --release -p <bin>` of `size` into `target`, timed.
fn cargo_build(bench_dir: &Path, bin: &str, size: Size, target: &Path) -> Result<f64> {
    let start = Instant::now();
    let status = std::process::Command::new("cargo")
        .args(["build", "--release", "--quiet", "-p", bin])
        .args(size.features())
        .arg("--target-dir")
        .arg(std::path::absolute(target)?)
        .current_dir(bench_dir)
        .status()?;
    let took = start.elapsed().as_secs_f64();
    if !status.success() {
        return Err(format!("cargo build -p {bin} ({}) failed", label(size)).into());
    }
    Ok(took)
}

fn remove(dir: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.into()),
        _ => Ok(()),
    }
}
