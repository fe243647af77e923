//! The flow's clock: seconds since the Unix epoch (token expiry, JWT `iat` and `exp`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs()
}
