import { describe, expect, it } from 'vitest';
import { ISOLATION_HEADERS, withIsolation } from './isolation';

describe('withIsolation', () => {
  it('adds COOP and COEP to a response, keeping its status, headers and body', async () => {
    const res = withIsolation(new Response('<!doctype html>', { status: 200, statusText: 'OK', headers: { 'content-type': 'text/html' } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(res.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(res.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
    expect(await res.text()).toBe('<!doctype html>');
    expect(Object.keys(ISOLATION_HEADERS)).toEqual(['Cross-Origin-Opener-Policy', 'Cross-Origin-Embedder-Policy']);
  });

  it('passes an error response through unchanged', () => {
    const err = Response.error();
    expect(withIsolation(err)).toBe(err);
  });
});
