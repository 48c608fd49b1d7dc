// The official TypeScript SDK's OAuth client (an `OAuthClientProvider` given to
// StreamableHTTPClientTransport as `authProvider`) against one server.
//
// The SDK does the flow itself (401, protected resource metadata, authorization server
// metadata, dynamic client registration, PKCE, `resource`, token request, re-authorization
// on 403 insufficient_scope). This script plays the browser and the redirect target, as an
// application does: `redirectToAuthorization` GETs the authorization URL without following
// redirects (the test authorization server consents at once) and keeps the `code` of the
// Location; after the SDK's UnauthorizedError the script calls `transport.finishAuth(code)`
// and retries, the documented way.
//
//   node sdk_ts_client.mjs --url URL --call TOOL [--args JSON] [--step-up TOOL --step-up-args JSON]
//
// Output: `ok - NAME` / `not ok - NAME: why`, then `N passed, M failed`; exit 1 on a failure.
// The SDK (@modelcontextprotocol/sdk, pinned in tests/interop/node) is installed by
// tests/interop/setup.sh.

import { createRequire } from 'node:module';
import process from 'node:process';

const require = createRequire(new URL('../interop/node/package.json', import.meta.url));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { UnauthorizedError } = require('@modelcontextprotocol/sdk/client/auth.js');

const opts = { args: '{}', 'step-up-args': '{}' };
for (let i = 2; i < process.argv.length; i += 2) opts[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];
if (!opts.url || !opts.call) {
    console.error('usage: sdk_ts_client.mjs --url URL --call TOOL [--args JSON] [--step-up TOOL --step-up-args JSON]');
    process.exit(2);
}

let passed = 0;
let failed = 0;
function check(name, ok, why = '') {
    if (ok) { passed++; console.log(`ok - ${name}${why ? ` (${why})` : ''}`); }
    else { failed++; console.log(`not ok - ${name}: ${why}`); }
}

const REDIRECT = 'http://127.0.0.1:9/callback'; // nothing listens: the browser is simulated

class Provider {
    constructor() { this.authorizations = []; this.pendingCode = undefined; }
    get redirectUrl() { return REDIRECT; }
    get clientMetadata() {
        return {
            client_name: 'picomcp auth test (TypeScript SDK)',
            redirect_uris: [REDIRECT],
            // No refresh token: on 403 insufficient_scope, SDK 1.32.2's auth() tries the
            // refresh grant first when it holds a refresh token, which cannot widen the
            // scope, and then gives up ("403 after trying upscoping"). Without one it
            // re-authorizes with the challenged scope, which is the step-up under test.
            grant_types: ['authorization_code'],
            response_types: ['code'],
            token_endpoint_auth_method: 'none',
        };
    }
    state() { return crypto.randomUUID(); }
    clientInformation() { return this.client; }
    saveClientInformation(info) { this.client = info; }
    tokens() { return this.saved; }
    saveTokens(tokens) { this.saved = tokens; }
    saveCodeVerifier(v) { this.verifier = v; }
    codeVerifier() { return this.verifier; }
    async redirectToAuthorization(url) {
        this.authorizations.push(url.toString());
        const r = await fetch(url, { redirect: 'manual' });
        const location = r.headers.get('location');
        if (r.status !== 302 || !location) throw new Error(`authorization endpoint answered ${r.status}`);
        const back = new URL(location);
        if (back.searchParams.get('state') !== url.searchParams.get('state')) throw new Error('state mismatch');
        this.pendingCode = back.searchParams.get('code') ?? undefined;
        if (!this.pendingCode) throw new Error(`authorization refused: ${location}`);
    }
}

const provider = new Provider();
const transport = new StreamableHTTPClientTransport(new URL(opts.url), { authProvider: provider });
const client = new Client({ name: 'picomcp-auth-ts', version: '0' });

// Runs `op`; on the SDK's UnauthorizedError (it sent the user to authorize), completes the
// authorization with the code and runs `op` again.
async function authorized(tr, op, reconnect) {
    try {
        return await op();
    } catch (e) {
        if (!(e instanceof UnauthorizedError) || !provider.pendingCode) throw e;
        const code = provider.pendingCode;
        provider.pendingCode = undefined;
        await tr.finishAuth(code);
        return await (reconnect ?? op)();
    }
}

const text = (r) => (r.content ?? []).map((c) => c.text ?? '').join('');

try {
    let connected = transport;
    await authorized(transport, () => client.connect(transport), async () => {
        // connect() started the transport; a fresh one carries on with the saved tokens.
        connected = new StreamableHTTPClientTransport(new URL(opts.url), { authProvider: provider });
        await client.connect(connected);
    });
    check('connect', true, `${provider.authorizations.length} authorization(s)`);
    const first = (await client.listTools()).tools.map((t) => t.name);
    let r = await client.callTool({ name: opts.call, arguments: JSON.parse(opts.args) });
    check(`call ${opts.call}`, !r.isError, text(r).slice(0, 80));
    if (opts['step-up']) {
        const name = opts['step-up'];
        const before = provider.authorizations.length;
        check(`${name} hidden before step-up`, !first.includes(name), `first list: ${first}`);
        r = await authorized(connected, () => client.callTool({ name, arguments: JSON.parse(opts['step-up-args']) }));
        check(`step-up ${name}`, !r.isError && provider.authorizations.length === before + 1,
            `${provider.authorizations.length - before} more authorization(s); ${text(r).slice(0, 80)}`);
        const after = (await client.listTools()).tools.map((t) => t.name);
        check(`${name} listed after step-up`, after.includes(name), `${after}`);
    }
    await client.close();
} catch (e) {
    check('flow', false, `${e?.constructor?.name}: ${e?.message}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
