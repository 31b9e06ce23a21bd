// Imported files go through the one JSON parser (util/json-input.ts): a repeated key or nesting past
// the bound is refused by name before anything is checked or stored.
import { describe, expect, it } from 'vitest';
import { importRunJson } from './import.ts';
import type { RunStore } from './store.ts';

const noStore = {} as RunStore; // never reached: the text is refused first

describe('import: JSON bounds', () => {
  it('refuses a run file with a repeated key, naming the key and the file', async () => {
    await expect(importRunJson(noStore, '{"format":"reachlab-run","format":"x"}', 'run.json')).rejects.toThrow('run.json: duplicate key "format" at the top level (line 1)');
  });

  it('refuses a run file nested past 64 levels without recursing into it', async () => {
    const deep = `{"records":[{"doc":{"raw":${'['.repeat(100_000)}${']'.repeat(100_000)}}}]}`;
    await expect(importRunJson(noStore, deep, 'run.json')).rejects.toThrow(/^run\.json: nested deeper than 64 levels/);
  });

  it('keeps the "not JSON" message for text that is not JSON', async () => {
    await expect(importRunJson(noStore, '{"format":', 'run.json')).rejects.toThrow(/^run\.json: not JSON \(.+\)$/);
  });
});
