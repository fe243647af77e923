//! What a plain `cargo test` leaves out: the tests that start real services (redis-server,
//! nginx, headless Chromium, an OpenID provider), behind this crate's feature `services`, which the test command
//! (`scripts/test.sh`) turns on after `scripts/services.sh` installed them. Shown as ignored,
//! with the reason, so a run without them says what it skipped.
#![cfg(not(feature = "services"))]

#[test]
#[ignore = "needs redis-server and nginx (scripts/services.sh installs them): run with `--features services`"]
fn replicas_on_redis_behind_nginx_replicas_bounds_and_cluster_rig() {}

#[test]
#[ignore = "needs Debian's chromium (scripts/services.sh installs it): run with `--features services`"]
fn browsers_in_headless_chromium() {}

#[test]
#[ignore = "needs Debian's chromium (scripts/services.sh), oidc-provider and puppeteer-core (scripts/oidc.sh) and the Python SDK (scripts/python-env.sh): run with `--features services`"]
fn oauth_end_to_end_with_oidc_provider() {}

#[test]
#[ignore = "needs Debian's chromium (scripts/services.sh), oidc-provider and puppeteer-core (scripts/oidc.sh) and the Python SDK (scripts/python-env.sh): run with `--features services`"]
fn oauth_facade_end_to_end_with_oidc_provider() {}

#[test]
#[ignore = "needs redis-server (scripts/services.sh installs it): run with `--features services`"]
fn oauth_facade_replicas_sharing_redis() {}
