import { describe, expect, it } from 'vitest';
import { createMemoryGuardStore } from '../state/guard-store';
import { createConsoleSessions } from './admin-session';

describe('console sessions', () => {
  it('expire on the server, are revoked, and die with the admin token they were opened under', async () => {
    const store = createMemoryGuardStore();
    const sessions = createConsoleSessions({ store, adminToken: 'admin-token-one-0123456789', ttlMs: 500 }); // wide enough that a busy machine reads it back before it lapses
    const { id, session } = await sessions.create('alice', '192.0.2.1');
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessions.find(id)).toEqual(session);
    // Another id one character away (not the same one: a random id ends in 'A' one time in 64).
    expect(await sessions.find(`${id.slice(0, -1)}${id.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 650));
    expect(await sessions.find(id)).toBeNull(); // the server's expiry, whatever the cookie says

    const other = await sessions.create(null, '192.0.2.1');
    expect(other.session.operator).toBe('console');
    const rotated = createConsoleSessions({ store, adminToken: 'admin-token-two-0123456789', ttlMs: 80_000 });
    expect(await rotated.find(other.id)).toBeNull();
    await sessions.revoke(other.id);
    expect(await sessions.find(other.id)).toBeNull();
  });
});
