// The self-test page: loads each reference checkpoint through the Hub source (served by the app
// itself, or by ?endpoint=) in a fresh engine worker, and checks it against its expected.json.
// Query: ?ep=webgpu|wasm|auto  &dtype=f32|f16|...  &repos=reference/tiny-qwen2,...  &endpoint=URL
// ?bench=scale&spec=JSON runs one bench:scale row instead (scale-page.ts), ?bench=engine&spec=JSON
// bench:engine's WebGPU decode measurement (engine-page.ts), ?check=gpu-state the WebGPU state
// checks (gpu-checks.ts).
// The tolerance is the f32 one: a dtype that really computes in f16 or q4 shows its deviations as
// FAIL (bench:engine reports those modes against f32; src/engine/precision.spec.ts bounds f16).
import { checkConformance, type ConformanceReport, type Expected } from '../engine/conformance';
import { spawnEngine } from '../engine/spawn-worker';
import { type EngineDtype, type ExecutionProvider, type ModelInfo } from '../engine/types';

const params = new URLSearchParams(location.search);
const ep = (params.get('ep') ?? 'auto') as ExecutionProvider | 'auto';
const dtype = (params.get('dtype') ?? 'f32') as EngineDtype;
const endpoint = params.get('endpoint') ?? `${location.origin}${import.meta.env.BASE_URL}hub`;
const repos = (params.get('repos') ?? 'reference/tiny-qwen2,reference/tiny-llama,reference/tiny-qwen3').split(',');

const statusEl = document.getElementById('status')!;
const reportsEl = document.getElementById('reports')!;

function cell(row: HTMLTableRowElement, text: string, cls?: string): void {
  const td = row.insertCell();
  td.textContent = text; // model output and names stay text
  if (cls) td.className = cls;
}

function render(repo: string, info: ModelInfo, r: ConformanceReport): void {
  const h = document.createElement('h2');
  h.textContent = `${repo} — ${info.ep}${info.adapter ? ` (${info.adapter})` : ''}, ${info.dtype}: ${r.pass ? 'PASS' : 'FAIL'}`;
  h.className = r.pass ? 'pass' : 'fail';
  if (info.dtypeFallbackReason) {
    const note = document.createElement('p');
    note.textContent = info.dtypeFallbackReason;
    reportsEl.append(note);
  }
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  for (const t of ['case', 'max |Δ logit|', 'argmax', 'greedy', 'cache = recompute']) cell(head, t);
  for (const c of r.cases) {
    const row = table.insertRow();
    cell(row, c.name);
    cell(row, c.maxAbsDiff.toExponential(2), c.maxAbsDiff <= r.tolerance ? 'pass' : 'fail');
    for (const ok of [c.argmaxExact, c.greedyExact, c.cachedEqualsRecomputed]) cell(row, ok ? 'exact' : 'differs', ok ? 'pass' : 'fail');
  }
  const foot = document.createElement('p');
  foot.textContent = `all positions (default route): max |Δ| ${r.defaultAllMaxAbsDiff.toExponential(2)}; batched = one by one: ${r.batchedEqualsSingle}`;
  reportsEl.append(h, table, foot);
}

async function main(): Promise<void> {
  const results: { repo: string; info: ModelInfo; report: ConformanceReport }[] = [];
  for (const repo of repos) {
    statusEl.textContent = `checking ${repo}…`;
    const engine = spawnEngine();
    try {
      const info = await engine.load({ kind: 'hub', repo, revision: 'main', endpoint }, { ep, dtype });
      const res = await fetch(`${endpoint}/${repo}/resolve/main/expected.json`);
      if (!res.ok) throw new Error(`${repo}: expected.json answered HTTP ${res.status}`);
      const report = await checkConformance(engine, (await res.json()) as Expected);
      results.push({ repo, info, report });
      render(repo, info, report);
    } finally {
      engine.terminate();
    }
  }
  const pass = results.every((r) => r.report.pass);
  statusEl.textContent = pass ? 'all checks pass' : 'some checks FAIL';
  statusEl.dataset.done = pass ? 'pass' : 'fail';
  (window as unknown as { __selftest: unknown }).__selftest = results;
}

/** ?check=gpu-state: gpu-checks.ts on each repo; results in window.__gpuChecks. */
async function gpuState(): Promise<void> {
  const { checkGpuState } = await import('./gpu-checks');
  const results = [];
  for (const repo of repos) {
    statusEl.textContent = `checking the WebGPU state of ${repo}…`;
    const res = await fetch(`${endpoint}/${repo}/resolve/main/expected.json`);
    if (!res.ok) throw new Error(`${repo}: expected.json answered HTTP ${res.status}`);
    results.push(await checkGpuState({ kind: 'hub', repo, revision: 'main', endpoint }, (await res.json()) as Expected));
  }
  const pre = document.createElement('pre');
  pre.textContent = JSON.stringify(results, null, 2); // model output stays text
  reportsEl.append(pre);
  statusEl.textContent = 'done';
  statusEl.dataset.done = 'pass';
  (window as unknown as { __gpuChecks: unknown }).__gpuChecks = results;
}

const bench = params.get('bench');
const spec = params.get('spec') ?? '';
const run =
  bench === 'scale' ? import('./scale-page').then((m) => m.runScalePage(spec, statusEl))
  : bench === 'engine' ? import('./engine-page').then((m) => m.runEngineBenchPage(spec, statusEl))
  : params.get('check') === 'gpu-state' ? gpuState()
  : main();
run.catch((e: unknown) => {
  statusEl.textContent = `self-test error: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`;
  statusEl.dataset.done = 'error';
});
