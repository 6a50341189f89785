import { describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from './database-url.js';

describe('parseDatabaseUrl', () => {
  it('tells where a URL points, port and socket included, keeping the password out of what it prints', () => {
    expect(parseDatabaseUrl('postgres://u:secret@db.example.com/app')).toEqual({ server: 'db.example.com:5432', database: 'app', user: 'u', password: 'secret' });
    expect(parseDatabaseUrl('postgresql://127.0.0.1:6543/x').server).toBe('127.0.0.1:6543');
    expect(parseDatabaseUrl('postgres://[::1]:5433/x').server).toBe('[::1]:5433');
    expect(parseDatabaseUrl('postgres://%2Fvar%2Frun%2Fpostgresql/x').server).toBe('/var/run/postgresql:5432');
    expect(parseDatabaseUrl('postgres:///x?host=/tmp').server).toBe('local socket');
  });

  it.each([
    ['not a url', /is not a URL/],
    ['postgres://%%%', /host/],
    ['postgres://u:secret@%%%/x', /host/],
    ['postgres://u:se%cret@localhost/x', /password/],
    ['postgres://u:secret@bad host/x', /./],
    ['mysql://u:secret@localhost/x', /not postgres:\/\//],
    ['postgres://u:secret@localhost:70000/x', /has port 70000, out of range: a port is 1 to 65535/],
    ['postgres://u:secret@[::1]:65536', /has port 65536, out of range/],
  ])('refuses %s with INVALID_DATABASE_URL, never echoing it', (url, reason) => {
    let caught: unknown;
    try {
      parseDatabaseUrl(url);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: 'INVALID_DATABASE_URL', message: expect.stringMatching(reason) });
    expect((caught as Error).message).not.toMatch(/secret|se%cret|%%%/);
  });
});
