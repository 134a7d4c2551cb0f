// A real OpenID provider for the tests and the demo: `oidc-provider` (the certified Node.js
// implementation) on a loopback port, with one confidential client (Anteroom) and test
// accounts. Its development login page takes any login with any password; the login is the
// account's subject, and the accounts `ada` and `fan-*` carry `groups: ["fanclub"]`.
//
// Usage: node end2end/oidc/provider.mjs <port> <redirect uri>[,<redirect uri>...]
// Prints "ready <issuer>" once it listens.
import { readFileSync } from 'node:fs';
import Provider from 'oidc-provider';

const [port, redirects] = process.argv.slice(2);
if (!port || !redirects) {
  console.error('usage: provider.mjs <port> <redirect uri>[,...]');
  process.exit(2);
}
const issuer = `http://127.0.0.1:${port}`;

// Buyers: `ada` and `fan-*` are in the fan club. Operators (the company's sign-in): `crew-*`
// are in `onsale-team`, `*boss*` in `onsale-admins` (`crowded-*` in 40 groups more after it);
// `unverified-*` have an unverified address, `unsaid-*` one the provider says nothing about.
// A test changes an account's groups in the JSON file named by ANTEROOM_TEST_GROUPS.
const changed = (id) => {
  try {
    return JSON.parse(readFileSync(process.env.ANTEROOM_TEST_GROUPS, 'utf8'))[id];
  } catch {
    return undefined;
  }
};
const groupsOf = (id) => {
  const moved = changed(id);
  if (moved) return moved;
  if (id.startsWith('crowded-')) {
    return ['onsale-admins', ...Array.from({ length: 40 }, (_, i) => `team-${i}`)];
  }
  if (id === 'ada' || id.startsWith('fan-')) return ['fanclub'];
  if (id.startsWith('crew-')) return ['onsale-team'];
  if (id.includes('boss')) return ['onsale-admins'];
  return [];
};

const provider = new Provider(issuer, {
  clients: [{
    client_id: 'anteroom',
    client_secret: 'anteroom-test-secret',
    redirect_uris: redirects.split(','),
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'client_secret_basic',
  }],
  scopes: ['openid', 'profile', 'groups', 'email'],
  claims: {
    openid: ['sub'], profile: ['name'], groups: ['groups'], email: ['email', 'email_verified'],
  },
  // The ID token carries the claims its scopes ask, so that Anteroom reads `groups` from it.
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  cookies: { keys: ['anteroom-test-provider-cookie-key'] },
  features: { devInteractions: { enabled: true } },
  async findAccount(ctx, id) {
    return {
      accountId: id,
      async claims() {
        const claims = { sub: id, name: id, groups: groupsOf(id), email: `${id}@example.org` };
        if (!id.startsWith('unsaid-')) claims.email_verified = !id.startsWith('unverified-');
        return claims;
      },
    };
  },
  // Every scope Anteroom asks is granted without a consent page (a ticketer's own client).
  async loadExistingGrant(ctx) {
    const found = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (found) return ctx.oidc.provider.Grant.find(found);
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid profile groups email');
    grant.addOIDCClaims(['sub', 'name', 'groups', 'email', 'email_verified']);
    await grant.save();
    return grant;
  },
});
provider.listen(Number(port), '127.0.0.1', () => console.log(`ready ${issuer}`));
