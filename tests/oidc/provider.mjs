// A real OpenID provider for the OAuth end-to-end tests: panva's `oidc-provider` (certified),
// configured as an MCP client meets one in the wild. Started by tests/src/oidc.rs with Node 22
// (`scripts/oidc.sh` installs the package into tests/oidc/node_modules/).
//
//   node tests/oidc/provider.mjs
//
// Environment:
//   OIDC_RESOURCES         the MCP servers' URLs (space-separated) it issues access tokens for:
//                          the RFC 8707 `resource` a client asks for, and the tokens' `aud`
//   OIDC_ACCESS_TOKEN_TTL  seconds an access token lives (default 3600): short, a test sees a refresh
//   OIDC_SCOPES            the resources' scopes (default "notes:read notes:write")
//
// It listens on a free port of 127.0.0.1, its issuer `http://127.0.0.1:<port>`, and writes one
// JSON object a line on stdout: first `{"event":"ready","issuer":...}`, then what it does
// (registrations, authorizations, token grants and their errors, revocations), for the test to
// assert on. oidc-provider's own notices go to stdout too, as plain text: readers skip lines that
// are not JSON. Tokens never appear in these lines, only their `jti`.
//
// What it offers: Dynamic Client Registration (open, public clients with
// `token_endpoint_auth_method: none`; a native client's loopback redirect URI matches on any
// port, RFC 8252 §7.3), PKCE required, JWT access tokens (ES256, keys at /jwks) for the
// resources above, refresh tokens for every client allowed the grant (with `offline_access` or
// not), token revocation, and the development login and consent pages (any login and password:
// the login becomes the subject).
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { errors } from 'oidc-provider';

const resources = new Set((process.env.OIDC_RESOURCES ?? '').split(' ').filter(Boolean));
const accessTokenTTL = Number(process.env.OIDC_ACCESS_TOKEN_TTL ?? 3600);
const resourceScopes = process.env.OIDC_SCOPES ?? 'notes:read notes:write';
if (resources.size === 0 || !(accessTokenTTL > 0)) {
  console.error('provider.mjs: set OIDC_RESOURCES (the MCP servers\' URLs) and a positive OIDC_ACCESS_TOKEN_TTL');
  process.exit(2);
}

/** One line of the event log, on stdout. */
const emit = (event, fields = {}) => process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);

/** A fresh signing key as a private JWK: RS256 for ID tokens, ES256 for access tokens. */
const signingKey = (type, options, alg) => ({
  ...generateKeyPairSync(type, options).privateKey.export({ format: 'jwk' }),
  alg,
  use: 'sig',
  kid: alg.toLowerCase(),
});

// Listen first: the issuer names the port the kernel gave.
const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: {
    keys: [
      signingKey('rsa', { modulusLength: 2048 }, 'RS256'),
      signingKey('ec', { namedCurve: 'P-256' }, 'ES256'),
    ],
  },
  // Clients may register these as their `scope`: the resources' scopes and the OpenID ones.
  scopes: ['openid', 'offline_access', ...resourceScopes.split(' ')],
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    revocation: { enabled: true },
    resourceIndicators: {
      enabled: true,
      // A refresh without `resource` still gets a token for the resource it was granted.
      useGrantedResource: () => true,
      getResourceServerInfo(_ctx, resource) {
        if (!resources.has(resource)) throw new errors.InvalidTarget(`${resource} is not a resource of this provider`);
        return {
          scope: resourceScopes,
          audience: resource,
          accessTokenTTL,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'ES256' } },
        };
      },
    },
  },
  clientDefaults: { token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] },
  pkce: { required: () => true },
  // A public client gets a refresh token whenever it may use the grant, `offline_access` or not
  // (the default asks for `offline_access`, which OpenID ties to `prompt=consent`).
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  ttl: { AccessToken: accessTokenTTL, Interaction: 600, Session: 3600, Grant: 3600, RefreshToken: 3600 },
  // The login typed on the development page is the subject.
  findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub }) }),
});

provider.on('registration_create.success', (_ctx, client) => emit('registration', { client_id: client.clientId }));
provider.on('authorization.success', (ctx) => emit('authorization', { client_id: ctx.oidc.client?.clientId }));
provider.on('authorization.error', (_ctx, err) => emit('authorization.error', { error: err.error, description: err.error_description }));
provider.on('grant.success', (ctx) => emit('grant', { grant_type: ctx.oidc.params.grant_type, client_id: ctx.oidc.client?.clientId }));
provider.on('grant.error', (ctx, err) => emit('grant.error', { grant_type: ctx.oidc.params?.grant_type, error: err.error, description: err.error_description }));
provider.on('access_token.issued', (token) => emit('access_token', { jti: token.jti, sub: token.accountId, aud: token.aud, scope: token.scope }));
provider.on('grant.revoked', (_ctx, grantId) => emit('revocation', { grant_id: grantId }));
provider.on('server_error', (_ctx, err) => console.error('provider.mjs: server error', err));

server.on('request', provider.callback());
emit('ready', { issuer });

// The test kills it; a signal ends it cleanly too.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
