// Every bad input of issue 2, through the worker bridge (comlink over a MessageChannel, the same
// code path as the browser worker): each load or call fails with its clear error, and the same
// engine then loads a good checkpoint and computes the reference logits.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxAbsDiff, type Expected } from './conformance';
import { createEngine } from './engine';
import { connectEngine, exposeEngine, type RemoteEngine } from './remote';

const QWEN2 = resolve('test/fixtures/reference/tiny-qwen2');
const LLAMA = resolve('test/fixtures/reference/tiny-llama');
const expected = JSON.parse(readFileSync(join(QWEN2, 'expected.json'), 'utf8')) as Expected;

let root: string;
let channel: MessageChannel;
let engine: RemoteEngine;

/** A copy of a fixture folder with `mutate` applied to it. */
function variant(name: string, from: string, mutate: (dir: string) => void): string {
  const dir = join(root, name);
  mkdirSync(dir);
  for (const f of readdirSync(from)) copyFileSync(join(from, f), join(dir, f));
  mutate(dir);
  return dir;
}

/** model.safetensors of tiny-qwen2 with its JSON header rewritten by `edit` (data section kept). */
function editHeader(dir: string, edit: (h: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>) => void): void {
  const bytes = readFileSync(join(dir, 'model.safetensors'));
  const n = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
  edit(header);
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(join(dir, 'model.safetensors'), Buffer.concat([len, json, bytes.subarray(8 + n)]));
}

async function expectStillUsable(): Promise<void> {
  await engine.load({ kind: 'fs', dir: QWEN2 });
  const [last] = await engine.logits({ promptIds: expected.input_ids, route: expected.cases[0].route, silence: [] });
  expect(maxAbsDiff(last, expected.cases[0].last_logits)).toBeLessThanOrEqual(expected.tolerance.abs);
}

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'reachlab-bad-'));
  channel = new MessageChannel();
  exposeEngine(createEngine(), channel.port1 as never);
  const port = channel.port2 as unknown as Worker & { start(): void };
  engine = connectEngine(Object.assign(port, { terminate: () => channel.port2.close() }));
  port.start();
});

afterAll(async () => {
  await engine.dispose();
  channel.port1.close();
  channel.port2.close();
  rmSync(root, { recursive: true, force: true });
});

const cases: { name: string; code: string; message: RegExp; dir: () => string }[] = [
  {
    name: 'truncated weights file',
    code: 'bad-checkpoint',
    message: /model\.safetensors.*(truncated|outside the data section)/,
    dir: () => variant('truncated', QWEN2, (d) => {
      const b = readFileSync(join(d, 'model.safetensors'));
      writeFileSync(join(d, 'model.safetensors'), b.subarray(0, b.length - 1000));
    }),
  },
  {
    name: 'header length past the end',
    code: 'bad-checkpoint',
    message: /header length \d+ runs past the end of the file/,
    dir: () => variant('header-past-end', QWEN2, (d) => {
      const b = readFileSync(join(d, 'model.safetensors'));
      b.writeBigUInt64LE(BigInt(b.length * 2), 0);
      writeFileSync(join(d, 'model.safetensors'), b);
    }),
  },
  {
    name: 'overlapping offsets',
    code: 'bad-checkpoint',
    message: /tensors .* and .* overlap/,
    dir: () => variant('overlap', QWEN2, (d) => editHeader(d, (h) => {
      const norm = h['model.layers.0.input_layernorm.weight'];
      const other = h['model.layers.0.post_attention_layernorm.weight'];
      other.data_offsets = [norm.data_offsets[0], norm.data_offsets[1]];
    })),
  },
  {
    name: 'out-of-range offsets',
    code: 'bad-checkpoint',
    message: /model\.norm\.weight has data_offsets .* outside the data section/,
    dir: () => variant('out-of-range', QWEN2, (d) => editHeader(d, (h) => {
      const t = h['model.norm.weight'];
      t.data_offsets = [t.data_offsets[0] + 10_000_000, t.data_offsets[1] + 10_000_000];
    })),
  },
  {
    name: 'unknown dtype',
    code: 'unsupported-dtype',
    message: /model\.norm\.weight has dtype "Q4_K"/,
    dir: () => variant('unknown-dtype', QWEN2, (d) => editHeader(d, (h) => {
      h['model.norm.weight'].dtype = 'Q4_K';
    })),
  },
  {
    name: 'shard name with ..',
    code: 'bad-checkpoint',
    message: /\.\./,
    dir: () => variant('shard-dotdot', LLAMA, (d) => {
      const idx = JSON.parse(readFileSync(join(d, 'model.safetensors.index.json'), 'utf8'));
      const first = Object.keys(idx.weight_map)[0];
      idx.weight_map[first] = '../model-00001-of-00002.safetensors';
      writeFileSync(join(d, 'model.safetensors.index.json'), JSON.stringify(idx));
    }),
  },
  {
    name: 'missing shard',
    code: 'bad-checkpoint',
    message: /model-00002-of-00002\.safetensors/,
    dir: () => variant('missing-shard', LLAMA, (d) => rmSync(join(d, 'model-00002-of-00002.safetensors'))),
  },
  {
    name: 'unsupported model_type',
    code: 'unsupported-architecture',
    message: /model_type "mixtral"/,
    dir: () => variant('model-type', QWEN2, (d) => {
      const c = JSON.parse(readFileSync(join(d, 'config.json'), 'utf8'));
      c.model_type = 'mixtral';
      writeFileSync(join(d, 'config.json'), JSON.stringify(c));
    }),
  },
  {
    name: 'missing tensor',
    code: 'bad-checkpoint',
    message: /model\.layers\.2\.mlp\.up_proj\.weight/,
    dir: () => variant('missing-tensor', QWEN2, (d) => editHeader(d, (h) => {
      delete h['model.layers.2.mlp.up_proj.weight'];
    })),
  },
];

describe('bad inputs across the worker bridge', () => {
  for (const c of cases) {
    it(`${c.name}: ${c.code}, then the engine still works`, async () => {
      const err = await engine.load({ kind: 'fs', dir: c.dir() }).catch((e: unknown) => e);
      expect(err).toMatchObject({ name: 'EngineError', code: c.code });
      expect((err as Error).message).toMatch(c.message);
      await expectStillUsable();
    });
  }

  it('route index out of range and empty route: bad-input naming the problem, then still usable', async () => {
    await engine.load({ kind: 'fs', dir: QWEN2 });
    const row = { promptIds: expected.input_ids, silence: [], sampling: { kind: 'greedy' as const } };
    await expect(engine.generate([{ ...row, route: [0, 1, 6] }], { maxNewTokens: 2 })).rejects.toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/route\[2\] = 6 is not a layer index in \[0, 6\)/),
    });
    await expect(engine.generate([{ ...row, route: [] }], { maxNewTokens: 2 })).rejects.toMatchObject({
      code: 'bad-input',
      message: expect.stringMatching(/route.*empty/i),
    });
    await expectStillUsable();
  });
});
