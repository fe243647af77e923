// The user of the OAuth end-to-end tests: opens an authorization URL in headless Chromium, signs
// in on the development login page of tests/oidc/provider.mjs, accepts the consent page, and lets
// the browser follow the redirect to the client's loopback callback. Any client's flow calls it
// with the URL it would open in a browser (tests/src/oidc.rs wraps it as one program).
//
//   node tests/oidc/sign-in.mjs <authorization-url>
//
// Environment: CHROMIUM (the browser; default `chromium` on PATH), SIGN_IN_LOGIN (the login
// typed, which the provider makes the subject; default `alice`).
//
// Exits 0 once the browser has loaded the `redirect_uri` of the URL (the client's listener
// answered); 1, saying what the page showed, on anything else. Only the provider's and the
// redirect URI's origins are reached: the pages' other requests (web fonts) are dropped.
import puppeteer from 'puppeteer-core';

/** How long the whole sign-in may take. */
const TIMEOUT_MS = 60_000;
/** Pages to go through before giving up: login, consent, a façade's consent, and a spare. */
const MAX_PAGES = 5;

const fail = (message) => {
  console.error(`sign-in.mjs: ${message}`);
  process.exit(1);
};

const [authorizationUrl] = process.argv.slice(2);
if (!authorizationUrl) fail('usage: sign-in.mjs <authorization-url>');
const authorization = new URL(authorizationUrl);
const redirectUri = authorization.searchParams.get('redirect_uri');
if (!redirectUri) fail(`the authorization URL has no redirect_uri: ${authorizationUrl}`);
const allowedOrigins = new Set([authorization.origin, new URL(redirectUri).origin]);
// Every loopback origin too: an authorization server that is a façade sends the browser on to
// its upstream provider, another local port.
const local = (url) => ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
const login = process.env.SIGN_IN_LOGIN || 'alice';

const timer = setTimeout(() => fail(`not redirected to ${redirectUri} within ${TIMEOUT_MS} ms`), TIMEOUT_MS);

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || 'chromium',
  headless: true,
  // --no-sandbox: the tests run as root too.
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking'],
});
try {
  const page = await browser.newPage();
  await page.setRequestInterception(true);
  page.on('request', (request) => {
    const url = new URL(request.url());
    const allowed = allowedOrigins.has(url.origin) || local(url);
    (allowed ? request.continue() : request.abort()).catch(() => {});
  });
  // The client's callback: its answer is what this script waits for.
  const callback = page.waitForResponse((response) => response.url().startsWith(redirectUri), { timeout: TIMEOUT_MS });

  await page.goto(authorizationUrl, { waitUntil: 'load' });
  for (let pages = 0; !page.url().startsWith(redirectUri); pages++) {
    if (pages === MAX_PAGES) fail(`still not redirected after ${MAX_PAGES} pages; at ${page.url()}:\n${await pageText(page)}`);
    const prompt = await page.$eval('form input[name=prompt]', (input) => input.value).catch(() => null);
    if (prompt === 'login') {
      await page.type('input[name=login]', login);
      await page.type('input[name=password]', 'any password: the development pages accept it');
    } else if (prompt !== 'consent' && !(await page.$('form[action="/oauth/consent"]'))) {
      // Neither the provider's pages nor the consent page of mcp_runtime's façade (whose first
      // button is Allow).
      fail(`at ${page.url()}, neither a login nor a consent page:\n${await pageText(page)}`);
    }
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('form [type=submit]')]);
  }
  const response = await callback;
  console.error(`sign-in.mjs: signed in as ${login}; the client's callback answered ${response.status()}`);
} finally {
  clearTimeout(timer);
  await browser.close();
}

/** What a page says, for an error message. */
async function pageText(page) {
  return page.evaluate(() => document.body?.innerText ?? '').catch((e) => `<unreadable: ${e}>`);
}
