import { describe, expect, it } from 'vitest';
import { cspHeader, cspMeta, mirrorsFrom } from './csp';
import { withIsolation } from './isolation';

const directive = (policy: string, name: string) => policy.split('; ').find((d) => d.startsWith(`${name} `));

describe('Content-Security-Policy', () => {
  it('allows WebAssembly compilation but never eval, workers from the app, and the Hub hosts', () => {
    const p = cspHeader();
    expect(p).not.toContain("'unsafe-eval'");
    expect(directive(p, 'script-src')).toBe("script-src 'self' 'wasm-unsafe-eval'");
    expect(directive(p, 'worker-src')).toBe("worker-src 'self' blob:");
    expect(directive(p, 'object-src')).toBe("object-src 'none'");
    for (const host of ['https://huggingface.co', 'https://*.huggingface.co', 'https://*.hf.co', 'http://localhost:*', 'http://127.0.0.1:*']) {
      expect(directive(p, 'connect-src')!.split(' ')).toContain(host);
    }
    expect(directive(p, 'frame-ancestors')).toBe("frame-ancestors 'none'");
    // a meta tag cannot carry frame-ancestors (browsers ignore it there, with a console error)
    expect(directive(cspMeta(), 'frame-ancestors')).toBeUndefined();
  });

  it('adds mirrors named at build time, and refuses one that is not an origin', () => {
    const mirrors = mirrorsFrom(' https://mirror.example:8443  https://*.hf-mirror.com ');
    expect(mirrors).toEqual(['https://mirror.example:8443', 'https://*.hf-mirror.com']);
    expect(directive(cspMeta(mirrors), 'connect-src')!.split(' ').slice(-2)).toEqual(mirrors);
    expect(() => cspHeader(["https://x.example; script-src 'unsafe-eval'"])).toThrow(/REACHLAB_HUB_MIRRORS: ".*" is not an origin like https:\/\/mirror\.example/);
    expect(() => cspHeader(['mirror.example'])).toThrow(/is not an origin/);
  });

  it('is added by the service worker along with the isolation headers', () => {
    const res = withIsolation(new Response('<!doctype html>', { headers: { 'content-type': 'text/html' } }), { 'Content-Security-Policy': cspHeader() });
    expect(res.headers.get('content-security-policy')).toBe(cspHeader());
    expect(res.headers.get('cross-origin-embedder-policy')).toBe('require-corp');
  });
});
