/**
 * Production identity: customer tokens come from an identity provider and are verified
 * against its JWKS (fetched over HTTP from a local stand-in for the provider), issuer and
 * audience, with an algorithm allow-list. Demo login is off, and the edge's own token types
 * are never accepted as customer identity.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseEdgeConfig } from '../src/config';
import { startEdge, type RunningEdge } from '../src/node';
import { callJson, fetchFrom } from '../../test/support/json-call';
import { EDGE_ADMIN_TOKEN, fastRoom, testTokenKeys } from './edge-harness';
import { serveRestartable, type RestartableHttp } from './private-servers';
import { createStubCore, type StubCore } from './stub-core';

const ISSUER = 'https://login.example.test/';
const AUDIENCE = 'flash-sale';
let provider: Server;
let providerKey: CryptoKey;
let strangerKey: CryptoKey;
let core: StubCore;
let coreServer: RestartableHttp;
let edge: RunningEdge;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  providerKey = pair.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  const jwks = JSON.stringify({
    keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' }],
  });
  provider = createServer((request, response) => {
    if (request.url !== '/.well-known/jwks.json') return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
  });
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  const keys = await testTokenKeys();
  core = createStubCore(keys);
  coreServer = await serveRestartable((request) => core.app.fetch(request));
  edge = await startEdge(
    parseEdgeConfig({
      EDGE_PORT: '0',
      EDGE_HOST: '127.0.0.1',
      CORE_URL: coreServer.url,
      ADMIN_TOKEN: EDGE_ADMIN_TOKEN,
      LOG_LEVEL: 'silent',
      DEMO_LOGIN: '0',
      CUSTOMER_JWKS_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/.well-known/jwks.json`,
      CUSTOMER_ISSUER: ISSUER,
      CUSTOMER_AUDIENCE: AUDIENCE,
      CUSTOMER_ALGORITHMS: 'RS256',
    }),
    { tokenKeys: keys, consumeEvents: false },
  );
});
afterAll(async () => {
  await edge?.close();
  await coreServer?.stop();
  await new Promise((resolve) => provider?.close(resolve));
});

const api = (method: string, path: string, init?: Parameters<typeof callJson>[3]) =>
  callJson(fetchFrom(edge.url), method, path, init);

function idToken(
  claims: { sub?: string; iss?: string; aud?: string; expSeconds?: number },
  key: CryptoKey = providerKey,
  kid = 'idp-1',
) {
  return new SignJWT({})
    .setProtectedHeader({ alg: 'RS256', kid })
    .setSubject(claims.sub ?? 'idp-customer-1')
    .setIssuer(claims.iss ?? ISSUER)
    .setAudience(claims.aud ?? AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(claims.expSeconds ?? Math.floor(Date.now() / 1000) + 600)
    .sign(key);
}

it('admits a customer whose token the identity provider signed, and refuses every other token', async () => {
  const showtimeId = core.addShowtime();
  await edge.app.rooms.engine.configure(String(showtimeId), { ...fastRoom, capacity: 5 });
  const join = (token: string) => api('POST', `/api/showtimes/${showtimeId}/queue`, { token });

  const joined = await join(await idToken({ sub: 'idp-alice' }));
  expect(joined.status).toBe(200);
  expect(['admitted', 'waiting']).toContain(joined.json.state);

  const refused = [
    await idToken({ iss: 'https://evil.example.test/' }),
    await idToken({ aud: 'someone-else' }),
    await idToken({ expSeconds: Math.floor(Date.now() / 1000) - 600 }),
    await idToken({}, strangerKey), // right kid, wrong key
    await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('x')
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!!')),
    joined.json.queueToken as string, // our own token types are never identity
  ];
  for (const token of refused) expect((await join(token)).status).toBe(401);
  expect((await api('POST', '/api/auth/demo', { body: { customerId: 'demo-x' } })).status).toBe(404);
});
