//! A richer MCP server: structured output, errors the model can read, progress, logging,
//! an image, and requests to the client (sampling, elicitation, roots).
//! Run it with `cargo run -p showcase`.

use mcp_runtime::prelude::*;
use mcp_runtime::{ClientError, Elicitation, Image, Sampling};
use std::time::Duration;

/// A made-up weather forecast: what `forecast` returns as structured content.
#[derive(Serialize, JsonSchema)]
struct Forecast {
    /// The city the forecast is for.
    city: String,
    /// One entry per day, starting tomorrow.
    days: Vec<Day>,
}

/// One day of a forecast.
#[derive(Serialize, JsonSchema)]
struct Day {
    /// 1 for tomorrow, 2 for the day after...
    day: u32,
    /// The high, in degrees Celsius.
    high_c: f64,
    /// The low, in degrees Celsius.
    low_c: f64,
    /// A word or two about the sky.
    summary: String,
}

/// A forecast for a city (made up, but stable for a given city).
#[mcp_tool(read_only, open_world = false)]
fn forecast(
    /// The city, e.g. "Lisbon"
    city: String,
    /// How many days to forecast (1 to 14)
    #[mcp(default = 3u32)]
    days: u32,
) -> Result<Json<Forecast>, String> {
    if city.trim().is_empty() {
        return Err("city must not be empty".into());
    }
    if !(1..=14).contains(&days) {
        return Err(format!("days must be between 1 and 14, not {days}"));
    }
    let seed = city.bytes().fold(7u32, |acc, b| acc.wrapping_mul(31).wrapping_add(u32::from(b)));
    let skies = ["sunny", "cloudy", "light rain", "windy", "clear"];
    let days = (1..=days)
        .map(|day| {
            let wobble = f64::from((seed.wrapping_add(day * 13)) % 9);
            Day {
                day,
                high_c: 16.0 + wobble,
                low_c: 8.0 + wobble / 2.0,
                summary: skies[((seed + day) % 5) as usize].into(),
            }
        })
        .collect();
    Ok(Json(Forecast { city, days }))
}

/// Count to a number slowly, reporting progress and logging each step.
#[mcp_tool(read_only)]
async fn count_slowly(
    /// Where to stop (at most 100)
    to: u32,
    ctx: Context,
) -> Result<String, String> {
    if to > 100 {
        return Err(format!("{to} is too far: count to 100 at most"));
    }
    for i in 1..=to {
        tokio::time::sleep(Duration::from_millis(20)).await;
        ctx.progress_with_message(f64::from(i), f64::from(to), format!("step {i} of {to}")).await;
        ctx.info(format!("counted {i}")).await;
        tracing::debug!(step = i, "counting"); // reaches the client at level debug too
    }
    Ok(format!("counted to {to}"))
}

/// A one-pixel PNG image.
#[mcp_tool(read_only, idempotent, open_world = false)]
fn pixel() -> Image {
    const PNG: &str =
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
    Image::from_base64(PNG, "image/png")
}

/// Summarize a text in one sentence, with the client's model (sampling).
#[mcp_tool(read_only)]
async fn summarize(
    /// The text to summarize
    text: String,
    ctx: Context,
) -> Result<String, ClientError> {
    let request = Sampling::new(format!("Summarize this in one sentence:\n\n{text}"))
        .system_prompt("You write short, plain summaries.")
        .max_tokens(200);
    let reply = ctx.sample(request).await?;
    Ok(reply.text().unwrap_or("(the model answered without text)").to_owned())
}

/// What `plan_trip` asks the user: a form the client shows.
#[derive(Deserialize, JsonSchema)]
struct Trip {
    /// Where to go
    destination: String,
    /// How many nights to stay
    nights: u32,
    /// How to get there
    travel: Travel,
}

/// A way to travel.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Travel {
    /// By train
    Train,
    /// By plane
    Plane,
    /// By car
    Car,
}

/// Plan a trip, asking the user where, how long and how (elicitation).
#[mcp_tool(read_only)]
async fn plan_trip(ctx: Context) -> Result<String, ClientError> {
    Ok(match ctx.elicit::<Trip>("Where would you like to go?").await? {
        Elicitation::Accept(trip) => {
            let travel = match trip.travel {
                Travel::Train => "by train",
                Travel::Plane => "by plane",
                Travel::Car => "by car",
            };
            format!("{} nights in {}, {travel}", trip.nights, trip.destination)
        }
        Elicitation::Decline => "no trip: the user declined".into(),
        Elicitation::Cancel => "no trip: the user cancelled".into(),
    })
}

/// The folders the client shared with this server (its roots), one URI per line.
#[mcp_tool(read_only)]
async fn list_roots(ctx: Context) -> Result<String, ClientError> {
    let roots = ctx.roots().await?;
    Ok(roots.iter().map(|root| root.uri.as_str()).collect::<Vec<_>>().join("\n"))
}

fn server() -> Server {
    let server = server!()
        .title("MCP showcase")
        .instructions(
            "Try `forecast` for structured output, `count_slowly` for progress and logs, `pixel` for an image, \
             `summarize`, `plan_trip` and `list_roots` for requests to the client.",
        )
        .tools(tools![forecast, count_slowly, pixel, summarize, plan_trip, list_roots]);
    // How long to wait for the client to answer (default 5 minutes), e.g. for tests.
    match std::env::var("MCP_CLIENT_TIMEOUT_MS").ok().and_then(|ms| ms.parse().ok()) {
        Some(ms) => server.client_request_timeout(Duration::from_millis(ms)),
        None => server,
    }
}

// Served over stdio only: the connection has a thread of its own, so the handlers that wait
// (sampling, elicitation, a slow count) can share the main thread, and the server starts sooner.
#[mcp_runtime::main(flavor = "current_thread")]
async fn main() -> mcp_runtime::Result<()> {
    mcp_runtime::logging::init();
    server().serve_stdio().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_runtime::testing::TestClient;
    use serde_json::json;

    #[mcp_runtime::main]
    #[test]
    async fn forecast_is_structured_and_mirrored_as_text() {
        let client = TestClient::connect(server()).await;
        let result = client.call_tool("forecast", json!({"city": "Lisbon", "days": 2})).await.unwrap();
        let structured = result.structured_content.clone().unwrap();
        assert_eq!(structured["city"], "Lisbon");
        assert_eq!(structured["days"].as_array().unwrap().len(), 2);
        let mirrored: serde_json::Value = serde_json::from_str(result.text().unwrap()).unwrap();
        assert_eq!(mirrored, structured);
    }
}
