// Size bounds on a checkpoint's text files, each with its reason, checked from the file's stated
// size (File.size, stat, Content-Length) before it is read, and again as its bytes arrive (a
// compressed or unsized reply). A file past its bound is refused by name, never parsed.

import { EngineError } from './types.ts';

const MB = 2 ** 20;

/** The largest size read for each text file of a checkpoint. */
export const TEXT_FILE_LIMITS: Readonly<Record<string, { bytes: number; reason: string }>> = {
  'config.json': { bytes: 1 * MB, reason: 'a model config is a few KB' },
  'generation_config.json': { bytes: 1 * MB, reason: 'a generation config is a few hundred bytes' },
  'tokenizer.json': { bytes: 64 * MB, reason: 'the largest released tokenizers (262k-token vocabularies) are about 35 MB' },
  'tokenizer_config.json': { bytes: 16 * MB, reason: 'it holds the chat template and the added tokens, at most a few MB' },
};
/** Any other text file (a chat template, a special-tokens map). */
const OTHER_TEXT_FILE_LIMIT = { bytes: 1 * MB, reason: 'small JSON or template files are a few KB' };

export function textFileLimit(file: string): { bytes: number; reason: string } {
  const base = file.slice(file.lastIndexOf('/') + 1);
  return Object.hasOwn(TEXT_FILE_LIMITS, base) ? TEXT_FILE_LIMITS[base] : OTHER_TEXT_FILE_LIMIT;
}

const mb = (n: number) => `${(n / MB).toFixed(n < MB ? 3 : 1)} MB`;

/** Throws EngineError('bad-checkpoint') when a text file of `size` bytes is past its bound. */
export function checkTextFileSize(label: string, file: string, size: number): void {
  const limit = textFileLimit(file);
  if (size > limit.bytes) {
    throw new EngineError('bad-checkpoint', `${file} in ${label} is ${mb(size)}, more than the ${mb(limit.bytes)} read for it (${limit.reason})`);
  }
}

/** A text file from an HTTP reply: refused from its Content-Length before the body is read, and
 *  cut off (and refused) as soon as more bytes than its bound have arrived. */
export async function readTextResponse(res: Response, label: string, file: string): Promise<Uint8Array> {
  const stated = res.headers.get('content-length');
  if (stated !== null && /^\d+$/.test(stated.trim())) {
    const size = Number(stated);
    try {
      checkTextFileSize(label, file, size);
    } catch (e) {
      await res.body?.cancel();
      throw e;
    }
  }
  if (!res.body) return new Uint8Array(0);
  const { bytes: limit } = textFileLimit(file);
  const parts: Uint8Array[] = [];
  let total = 0;
  const stream = res.body.getReader();
  for (;;) {
    const { done, value } = await stream.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await stream.cancel();
      checkTextFileSize(label, file, total);
    }
    parts.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
