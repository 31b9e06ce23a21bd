// Import benchmark: one generated lm-eval samples file (default 100,000 lines) imported into the
// app's IndexedDB in headless Chromium three ways, each on an empty database: "before" (the app's
// path before imports streamed: the whole text parsed on the page, then one awaited get and put
// per record in the import's transaction), "after-inline" (import-file.ts on the page: the file
// read as a stream, the records written a batch of requests at a time) and "after-worker" (the
// same in the import worker, as the Library does); "puts-only" times the store's raw put throughput
// (the records put a batch at a time with no get before each, right only on an empty store). For
// each: seconds, seconds in the store's importRun (records per second), and the page's longest
// main-thread stall (the worker's storing time is inside its total).
// Prints one JSON object on stdout, a short table on stderr.
//
//   npm run -s bench:import [-- --lines 100000] [-- --cases before,after-inline,after-worker]
// Serves scripts/bench-import/ with Vite on port 4175; run it under the team's e2e lock.

import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from '@playwright/test';
import { createServer } from 'vite';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { answerHelp } from './lib/cli-help.ts';
import type { CaseResult } from './bench-import/page.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PORT = 4175;
const CASES = ['before', 'after-inline', 'after-worker', 'puts-only'];

async function main(): Promise<void> {
  answerHelp(process.argv.slice(2), import.meta.url);
  const { values } = parseArgs({ options: { lines: { type: 'string' }, cases: { type: 'string' } }, strict: true });
  const lines = Number(values.lines ?? 100_000);
  if (!Number.isInteger(lines) || lines < 1) throw new Error(`--lines: expected a positive integer, got ${values.lines}`);
  const cases = values.cases ? values.cases.split(',') : CASES;
  const unknown = cases.filter((c) => !CASES.includes(c));
  if (unknown.length) throw new Error(`--cases: unknown ${unknown.join(', ')} (known: ${CASES.join(', ')})`);

  const server = await createServer({ configFile: false, root, logLevel: 'error', server: { host: '127.0.0.1', port: PORT, strictPort: true }, worker: { format: 'es' } });
  await server.listen();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${PORT}/scripts/bench-import/index.html`);
    await page.waitForFunction(() => typeof window.benchImport === 'function');
    const { bytes, results } = await page.evaluate(([n, c]) => window.benchImport(n, c), [lines, cases] as const);
    const report = { bench: 'import', browser: browser.version(), lines, bytes, results };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    const row = (name: string, r: CaseResult) =>
      `${name.padEnd(13)} ${r.seconds.toFixed(1).padStart(8)} ${r.storeSeconds === null ? '       —' : r.storeSeconds.toFixed(1).padStart(8)} ${r.storeSeconds ? Math.round(r.records / r.storeSeconds).toLocaleString('en').padStart(10) : '         —'} ${Math.round(r.maxStallMs).toLocaleString('en').padStart(10)}`;
    process.stderr.write(
      [`${lines.toLocaleString('en')} lines, ${(bytes / 1e6).toFixed(1)} MB, headless Chromium ${browser.version()}`, 'case           total s  store s  records/s  stall ms', ...Object.entries(results).map(([k, r]) => row(k, r))].join('\n') + '\n',
    );
  } finally {
    await browser.close();
    await server.close();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`bench:import: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
