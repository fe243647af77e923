//! The pages a person sees: the consent form and the error page. Plain HTML forms that work
//! without JavaScript; every value from a client or a provider is escaped.

/// The consent form: `client` (its registered name) asks to use `server` as `user`, and will
/// be sent back to `redirect_host`.
pub(super) struct Consent<'a> {
    pub server: &'a str,
    pub client: &'a str,
    pub redirect_host: &'a str,
    pub user: &'a str,
    pub page_id: &'a str,
    pub csrf: &'a str,
}

impl Consent<'_> {
    pub fn render(&self) -> String {
        let body = format!(
            "<h1>Allow access?</h1>\
             <p><strong>{client}</strong> asks to use <strong>{server}</strong> as <strong>{user}</strong>.</p>\
             <p>You will be sent back to <code>{host}</code>.</p>\
             <form method=\"post\" action=\"/oauth/consent\">\
             <input type=\"hidden\" name=\"page\" value=\"{page}\">\
             <input type=\"hidden\" name=\"csrf\" value=\"{csrf}\">\
             <button type=\"submit\" name=\"decision\" value=\"allow\" id=\"allow\">Allow</button> \
             <button type=\"submit\" name=\"decision\" value=\"deny\" id=\"deny\">Deny</button>\
             </form>",
            client = escape(self.client),
            server = escape(self.server),
            user = escape(self.user),
            host = escape(self.redirect_host),
            page = escape(self.page_id),
            csrf = escape(self.csrf),
        );
        document("Allow access?", &body)
    }
}

/// A page saying why the sign-in stopped (never a redirect: the redirect URI may not be trusted).
pub(super) fn error(message: &str) -> String {
    document("Sign-in failed", &format!("<h1>Sign-in failed</h1><p>{}</p>", escape(message)))
}

fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title>\
         <style>body{{font-family:sans-serif;max-width:32em;margin:4em auto;padding:0 1em}}\
         button{{font-size:1em;padding:.4em 1.2em}}</style></head><body>{body}</body></html>"
    )
}

/// Text safe in HTML content and in quoted attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn client_names_cannot_inject_markup() {
        let page = super::Consent {
            server: "s",
            client: "<script>alert(1)</script>\"",
            redirect_host: "h",
            user: "u",
            page_id: "p",
            csrf: "c",
        }
        .render();
        assert!(!page.contains("<script>"));
        assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;&quot;"));
    }
}
