//! AWS Lambda (feature `lambda`): the HTTP endpoint answering Lambda's invocations through
//! `lambda_http`, which turns each event (a function URL's, API Gateway's, an ALB's) into an HTTP
//! request and the answer back into the event's response. Always without sessions: an
//! invocation may land on any instance, and an instance may be frozen between two of them.
//!
//! The answer is buffered whole (Lambda's default invoke mode): a request's SSE stream ends with
//! its response when there are no sessions, so the client reads the same events, only at once.

use super::http::{HttpConfig, McpHttpService};
use crate::error::{Error, ErrorKind, Result};
use std::future::Future;
use std::pin::Pin;

/// The configuration a Lambda function serves with: `config` without sessions.
pub(crate) fn config(config: HttpConfig) -> HttpConfig {
    config.stateless(true)
}

/// Answers Lambda's invocations with `service` until the runtime stops: boxed here, as
/// [`Serving`](super::Serving) says why, but not `Send` (lambda_http's loop is not).
#[inline(never)]
pub(crate) fn serve(service: McpHttpService) -> Pin<Box<dyn Future<Output = Result<()>>>> {
    Box::pin(async move {
        lambda_http::run(service)
            .await
            .map_err(|err| Error::new(ErrorKind::Io, format!("the Lambda runtime stopped: {err}")))
    })
}
