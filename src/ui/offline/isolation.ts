// The headers that make a page, and the workers it starts, cross-origin isolated: the same ones
// vite.config.ts sends from the dev and preview servers, added by the service worker elsewhere.

export const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
} as const;

/** `res` with the isolation headers (and `extra` ones) set; an opaque or error response passes unchanged. */
export function withIsolation(res: Response, extra: Record<string, string> = {}): Response {
  if (res.type === 'opaque' || res.type === 'opaqueredirect' || res.status === 0) return res;
  const headers = new Headers(res.headers);
  for (const [k, v] of Object.entries({ ...ISOLATION_HEADERS, ...extra })) headers.set(k, v);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
}
