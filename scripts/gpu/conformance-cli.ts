// The reference conformance on WebGPU in Node (gpu/ package: npm --prefix gpu run conformance):
//   conformance [--dtypes f32,f16] [--fixtures DIR]
// One line per checkpoint and dtype; exits 1 when any fails (naming what), 2 on bad arguments.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { answerHelp } from '../lib/cli-help.ts';
import { gpuConformance } from './conformance.ts';

async function main(): Promise<void> {
  answerHelp(process.argv.slice(2), import.meta.url);
  let dtypes: ('f32' | 'f16')[];
  let fixtures: string;
  try {
    const { values } = parseArgs({ args: process.argv.slice(2), options: { dtypes: { type: 'string' }, fixtures: { type: 'string' } }, strict: true });
    dtypes = (values.dtypes ?? 'f32,f16').split(',') as ('f32' | 'f16')[];
    const bad = dtypes.filter((d) => d !== 'f32' && d !== 'f16');
    if (bad.length) throw new Error(`--dtypes takes f32 and f16, got ${bad.join(', ')}`);
    fixtures = values.fixtures ?? path.resolve(import.meta.dirname, '../../test/fixtures/reference');
  } catch (e) {
    process.stderr.write(`conformance: ${(e as Error).message}\n`);
    process.exit(2);
  }
  const rows = await gpuConformance(fixtures, dtypes, (line) => process.stdout.write(`${line}\n`));
  const adapter = rows.find((r) => r.adapter)?.adapter;
  process.stdout.write(`adapter: ${adapter ?? 'none'}\n`);
  if (rows.some((r) => r.failures.length)) process.exit(1);
}

void main();
