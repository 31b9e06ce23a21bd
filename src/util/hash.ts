// Canonical JSON and SHA-256 keys (condition keys, doc/prompt hashes, fingerprints).

/** JSON with object keys sorted at every depth; undefined members dropped; -0 written as 0. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortDeep(value));
}

function sortDeep(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortDeep);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v as object).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortDeep(x);
    }
    return out;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) throw new TypeError(`canonicalJson: non-finite number ${v}`);
  if (Object.is(v, -0)) return 0;
  return v;
}

/** A SHA-256 digest as hex text (what sha256Hex returns). */
export const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Hex SHA-256 of a string (UTF-8) or bytes, through WebCrypto (browser, worker and Node ≥ 20). */
export async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const digest = await crypto.subtle.digest('SHA-256', bytes as BufferSource);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}
