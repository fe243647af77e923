//! What the runtime logs (its `tracing` events) during part of a test, captured in memory.

use std::sync::{Arc, Mutex};

/// The log written on this thread while [`CapturedLog::start`]'s guard lives (a
/// `#[tokio::test]` runtime runs the server's tasks on the test's thread).
#[derive(Clone, Default)]
pub struct CapturedLog(Arc<Mutex<Vec<u8>>>);

impl CapturedLog {
    /// Captures from now until the guard is dropped: warnings and worse, without colours.
    pub fn start() -> (Self, tracing::subscriber::DefaultGuard) {
        let log = Self::default();
        let writer = log.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_ansi(false)
            .with_max_level(tracing::Level::WARN)
            .with_writer(move || writer.clone())
            .finish();
        (log, tracing::subscriber::set_default(subscriber))
    }

    /// The lines logged so far that contain `needle`.
    pub fn lines_with(&self, needle: &str) -> Vec<String> {
        let log = self.0.lock().unwrap();
        String::from_utf8_lossy(&log).lines().filter(|line| line.contains(needle)).map(str::to_owned).collect()
    }
}

impl std::io::Write for CapturedLog {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
