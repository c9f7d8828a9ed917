// A real OpenID Provider (npm oidc-provider) for the SSO tests, on a loopback port.
// Usage: node oidc_provider.mjs CONFIG.json — the config names the port, clients, signing keys and
// accounts. The provider's own development login and consent pages stand in for a person: any
// login name signs in as the account of that name (its e-mail claims from `accounts`, else the
// name as a verified e-mail address).
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const issuer = `http://127.0.0.1:${config.port}`;

function claimsOf(accountId) {
  const known = (config.accounts || {})[accountId] || {};
  return {
    sub: accountId,
    email: known.email ?? accountId,
    email_verified: known.email_verified ?? true,
  };
}

const provider = new Provider(issuer, {
  clients: config.clients,
  jwks: config.jwks,
  cookies: { keys: ['test-only-cookie-key'] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'] },
  features: { devInteractions: { enabled: true } },
  pkce: { required: () => true },
  ttl: { IdToken: config.id_token_ttl || 3600 },
  async findAccount(ctx, id) {
    return { accountId: id, async claims() { return claimsOf(id); } };
  },
});
provider.proxy = false;

const server = provider.listen(config.port, '127.0.0.1', () => {
  process.stdout.write(`ready ${issuer}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
