//! The connection cap the process's file-descriptor limit allows: every open connection is a
//! descriptor, and a cap above `RLIMIT_NOFILE` made `accept` fail (`EMFILE`) before the cap
//! was ever met, with stalled clients holding every descriptor.

/// `configured`, lowered to what the soft `RLIMIT_NOFILE` (read now) leaves once a reserve is
/// set aside for everything else the process opens; the log says so when it lowers it.
pub(super) fn connection_cap(configured: usize) -> usize {
    let Some(limit) = soft_limit() else { return configured };
    let allowed = allowed_by(limit);
    if allowed >= configured {
        return configured;
    }
    tracing::info!(
        "serving at most {allowed} connections, not {configured} (HttpConfig::max_connections): the \
         file-descriptor limit is {limit} (`ulimit -n`), {} of them kept for files, the listener and \
         other clients",
        reserve(limit)
    );
    allowed
}

/// The connections `limit` descriptors allow: at least one.
fn allowed_by(limit: u64) -> usize {
    usize::try_from(limit.saturating_sub(reserve(limit))).unwrap_or(usize::MAX).max(1)
}

/// The descriptors kept for the rest of the process (the listener, the runtime's, standard
/// streams, files a tool opens, a Redis store's connections, a connection waiting for its
/// place): an eighth of the limit, within 16 and 1024.
fn reserve(limit: u64) -> u64 {
    (limit / 8).clamp(16, 1024)
}

#[cfg(unix)]
fn soft_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

#[cfg(not(unix))]
fn soft_limit() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cap_leaves_a_reserve_below_the_limit() {
        assert_eq!(allowed_by(256), 224);
        assert_eq!(allowed_by(1024), 896);
        assert_eq!(allowed_by(32), 16);
        assert_eq!(allowed_by(8), 1, "never zero");
        assert_eq!(allowed_by(1 << 20), (1 << 20) - 1024);
    }
}
