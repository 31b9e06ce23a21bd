// The app end to end on the WebGPU EP (SwiftShader in headless Chromium), a reference checkpoint served
// in Hub layout by the stand-in Hub: Setup → Run → Results → question drill-down → exports (tables as
// CSV, figures as SVG and PNG, the run file from the Library). Screenshots of every screen go to
// test-results/screens/ (or E2E_SCREENS_DIR). Plus: a gated repo needs the token; untrusted task text stays text.
import { writeFile } from 'node:fs/promises';
import { expect, test, type Page } from '@playwright/test';
import {
  download,
  HUB_TOKEN,
  loadHubModel,
  openSetup,
  requestHubModel,
  screen,
  setupHubRun,
  SCREENS_DIR,
  startRun,
  viewResults,
} from './helpers/app';
import { parseCsvRecords as parseCsv } from '../src/audit/tasks/file';

const QUESTIONS = 3;
const ROUTE_BUDGET = 4;
const LAYERS = 6; // tiny-qwen2: num_hidden_layers
// deployment + random routes + one silenced MLP per layer, per question
const ATTEMPTS = QUESTIONS * (1 + ROUTE_BUDGET + LAYERS);

// Console errors that are expected and harmless, each with its cause:
const KNOWN_CONSOLE = [
  // the page has no icon: Chromium asks for /favicon.ico and gets 404
  (text: string, url: string) => /status of 404/.test(text) && url.endsWith('/favicon.ico'),
  // the Hub reader probes the optional sharded-weights index; a single-file checkpoint answers 404
  (text: string, url: string) => /status of 404/.test(text) && url.endsWith('/model.safetensors.index.json'),
];

/** Every page error and every unexpected console error, to assert the flow produced none. */
function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error' && !KNOWN_CONSOLE.some((known) => known(m.text(), m.location().url))) errors.push(`console: ${m.text()} (${m.location().url})`);
  });
  return errors;
}

interface RunFileShape {
  format: string;
  manifest: { id: string; status: string; task: { questions: number }; engine: { ep: string }; probes: { probe: string }[] };
  records: {
    doc_id: string;
    probe: string;
    doc: { text: string };
    target: string;
    budget: number;
    first_success: number | null;
    decoy: string | null;
    attempts: { route: number[]; silence: number[]; extracted: string; correct: boolean }[];
  }[];
}

test('whole flow on WebGPU: setup, run, results, drill-down, exports', async ({ page }) => {
  test.setTimeout(420_000);
  const errors = watchErrors(page);

  // ── Setup ──
  const info = await setupHubRun(page, { repo: 'reference/tiny-qwen2', ep: 'webgpu', count: QUESTIONS, probes: { 'uniform-routes': ROUTE_BUDGET, 'silencing-scan': true } });
  await expect(info).toContainText('reference/tiny-qwen2');
  await expect(info).toContainText(`qwen2, ${LAYERS} layers`);
  await expect(info).toContainText('WebGPU');
  await expect(info).toContainText(/swiftshader/i);
  // a software adapter: the banner says what that means for speed
  await expect(page.getByTestId('gpu-banner')).toContainText('Software GPU');
  // the load finished: no load progress bar is left behind
  await expect(page.getByTestId('screen-setup').locator('progress')).toHaveCount(0);
  await expect(page.getByTestId('estimate')).toContainText(`${ATTEMPTS} attempts? = ${QUESTIONS} questions × (1 deployment attempt + the budgets)`);
  await expect(page.getByTestId('start-run')).toBeEnabled();
  await screen(page, '01-setup');

  // ── Run ──
  await page.getByTestId('start-run').click();
  await expect(page.getByTestId('screen-run')).toBeVisible();
  await expect(page.getByTestId('run-progress')).toBeVisible();
  await expect(page.getByTestId('run-progress')).toHaveAttribute('max', String(ATTEMPTS));
  await expect(page.getByTestId('run-stats')).toContainText(`of ${QUESTIONS}`);
  await screen(page, '02-run-progress');
  await expect(page.getByTestId('run-view-results')).toBeVisible({ timeout: 240_000 });
  await expect(page.getByTestId('run-phase')).toHaveText('Finished');
  await expect(page.getByTestId('run-progress')).toHaveAttribute('value', String(ATTEMPTS));
  await expect(page.getByText(`Attempts ${ATTEMPTS} of ${ATTEMPTS} (100.0%)`)).toBeVisible();
  await expect(page.getByTestId('run-stats')).toContainText(`Questions with every probe done${QUESTIONS} of ${QUESTIONS}`);
  await expect(page.getByTestId('run-rate')).toHaveText(/^\d+\.\d$/);
  const counts = page.getByTestId('run-counts');
  await expect(counts).toContainText(new RegExp(`Realized\\?\\d+ of ${QUESTIONS} \\(`));
  await expect(counts).toContainText(new RegExp(`Reachable\\? \\(any probe\\)\\d+ of ${QUESTIONS} \\(`));
  await expect(counts).toContainText(new RegExp(`random routes\\d+ of ${QUESTIONS} reachable`));
  await screen(page, '03-run-finished');

  // ── Results ──
  await viewResults(page);
  const manifest = page.getByTestId('results-manifest');
  await expect(manifest).toContainText('reference/tiny-qwen2@main');
  await expect(manifest).not.toContainText('@main@main');
  await expect(manifest).toContainText(`builtin:arith-2d v1, ${QUESTIONS} of ${QUESTIONS} questions`);
  await expect(manifest).toContainText('webgpu, f32');
  await expect(manifest).toContainText('finished');

  // rates: realized, then reachable@B and ceiling@B for random routes, each over n = QUESTIONS
  const rateRows = page.getByTestId('table-rates').locator('tbody tr');
  await expect(rateRows.nth(0)).toContainText('realized');
  const rates = await rateRows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  expect(rates.length).toBeGreaterThanOrEqual(3);
  expect(rates.map((r) => r[1])).toEqual(expect.arrayContaining(['realized', `reachable@${ROUTE_BUDGET}`, `ceiling@${ROUTE_BUDGET}`]));
  for (const r of rates) {
    const [k, n] = [Number(r[2]), Number(r[3])];
    expect(n, `rate row ${r.join(' | ')}`).toBe(QUESTIONS);
    expect(k).toBeGreaterThanOrEqual(0);
    expect(k).toBeLessThanOrEqual(n);
    expect(r[4]).toBe(`${((100 * k) / n).toFixed(1)}%`);
    expect(parseFloat(r[5])).toBeLessThanOrEqual(parseFloat(r[4]));
    expect(parseFloat(r[6])).toBeGreaterThanOrEqual(parseFloat(r[4]));
  }
  const realizedK = Number(rates[0][2]);

  // realized × reachable: three outcomes whose counts sum to the number of questions
  const outcomeRows = await page
    .getByTestId('table-realized-reachable')
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
  expect(outcomeRows.map((r) => r[0])).toEqual(['realized', 'reachable-only', 'unreachable']);
  expect(outcomeRows.reduce((s, r) => s + Number(r[1]), 0)).toBe(QUESTIONS);
  expect(Number(outcomeRows[0][1])).toBe(realizedK);

  // the figures render as SVG: reach@k curves, per-layer silencing bars, layer usage
  for (const id of ['reachability-at-k', 'mlp-silencing-scan', 'layer-usage']) {
    await expect(page.getByTestId(`figure-${id}`).locator('.figure-plot svg').first(), id).toBeVisible();
    await expect(page.getByTestId(`figure-${id}`).getByRole('alert')).toHaveCount(0);
  }
  // reach@k: whole-number budgets on the k axis
  const kTicks = await page.getByTestId('figure-reachability-at-k').locator('g[aria-label="x-axis tick label"] text').allTextContents();
  expect(kTicks).toEqual(['1', '2', '4']);
  // the scan: a repaired bar and a broken bar per silenced layer; heights checked against the run file below
  const scanBars = await page
    .getByTestId('figure-mlp-silencing-scan')
    .locator('g[aria-label="bar"]')
    .evaluateAll((gs) => gs.slice(0, 2).map((g) => [...g.querySelectorAll('rect')].map((r) => Number(r.getAttribute('height') ?? 0))));
  expect(scanBars.map((b) => b.length)).toEqual([LAYERS, LAYERS]);
  await expect(page.getByTestId('question-list').locator('li')).toHaveCount(QUESTIONS);
  await screen(page, '04-results');

  // ── Exports from Results ──
  const ratesCsv = await download(page, page.getByTestId('export-csv-rates'));
  expect(ratesCsv.filename).toMatch(/^reachlab-.+-rates\.csv$/);
  const ratesParsed = parseCsv(ratesCsv.text);
  expect(ratesParsed[0]).toEqual(['probe', 'measure', 'k', 'n', 'rate', 'CI low', 'CI high']);
  // numbers as numbers: a rate and its interval ends are plain fractions, not "62.5%"
  for (const r of ratesParsed.slice(1)) for (const v of r.slice(4)) expect(v).toMatch(/^\d+(\.\d+)?(e-\d+)?$/);
  // the headline sentence says the realized count in words
  await expect(page.getByTestId('results-sentence')).toContainText(`${realizedK} of ${QUESTIONS} questions were answered correctly as deployed`);
  expect(ratesParsed.length - 1).toBe(rates.length);
  expect(ratesParsed.slice(1).map((r) => r[1])).toEqual(rates.map((r) => r[1]));

  const outcomesCsv = parseCsv((await download(page, page.getByTestId('export-csv-realized-reachable'))).text);
  expect(outcomesCsv[0]).toEqual(['outcome', 'questions', 'share']);
  expect(outcomesCsv.length - 1).toBe(3);
  expect(outcomesCsv.slice(1).reduce((s, r) => s + Number(r[1]), 0)).toBe(QUESTIONS);

  await page.locator('summary', { hasText: 'All questions as a table' }).click();
  const questionsCsv = parseCsv((await download(page, page.getByTestId('export-csv-questions'))).text);
  expect(questionsCsv[0]).toEqual(['doc_id', 'question', 'gold', 'deployed', 'realized', 'outcome', 'random routes first success (attempt no.)']);
  expect(questionsCsv.length - 1).toBe(QUESTIONS);
  const firstSuccessShown = new Map(questionsCsv.slice(1).map((r) => [r[0], r[6]]));

  const svg = await download(page, page.getByTestId('export-svg-reachability-at-k'));
  expect(svg.filename).toMatch(/reachability-at-k\.svg$/);
  const svgBody = svg.text.replace(/^<\?xml[^>]*\?>\s*/, '');
  expect(svgBody.startsWith('<svg')).toBe(true);
  expect(svgBody).toContain('xmlns="http://www.w3.org/2000/svg"');
  expect(svgBody.trimEnd().endsWith('</svg>')).toBe(true);

  const png = await download(page, page.getByTestId('export-png-mlp-silencing-scan'));
  expect(png.filename).toMatch(/mlp-silencing-scan\.png$/);
  expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.bytes.length).toBeGreaterThan(1000);
  await writeFile(`${SCREENS_DIR}/export-mlp-silencing-scan.png`, png.bytes);

  // ── Question drill-down ──
  const first = page.getByTestId('question-list').locator('li button').first();
  const listedText = (await first.locator('.q-text').textContent()) ?? '';
  await first.click();
  await expect(page.getByTestId('screen-question')).toBeVisible();
  await expect(page.getByTestId('question-text')).toHaveText(listedText);
  const gold = (await page.getByTestId('question-gold').textContent()) ?? '';
  expect(gold).toMatch(/^-?\d+$/); // arith-2d: a whole number
  await expect(page.getByTestId('question-deployed')).toContainText(/[✓✗] (correct|wrong)/);
  await page.locator('summary', { hasText: 'Full prompt' }).click();
  await expect(page.getByTestId('question-prompt')).toContainText(listedText);

  // one deployment attempt on the default route; ROUTE_BUDGET random-route attempts; LAYERS silencing effects
  const deployRows = page.getByTestId('attempts-deployment').locator('tbody tr');
  const routeRows = page.getByTestId('attempts-random-routes').locator('tbody tr');
  await expect(deployRows).toHaveCount(1);
  await expect(routeRows).toHaveCount(ROUTE_BUDGET);
  await expect(page.getByTestId('silencing-effects').locator('tbody tr')).toHaveCount(LAYERS);
  await expect(page.getByText(`Random routes (budget ${ROUTE_BUDGET}; first success`)).toBeVisible();
  // attempts are numbered from 1 where people read them
  expect(await routeRows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('td')?.textContent))).toEqual(
    Array.from({ length: ROUTE_BUDGET }, (_, i) => String(i + 1)),
  );
  // each attempt row draws one route strip; read its cells (layer, kind) for the check against the run file
  const strips = async (rows: typeof routeRows) =>
    rows.evaluateAll((trs) =>
      trs.map((tr) => {
        const strips = tr.querySelectorAll('[data-testid="route-strip"]');
        const cells = [...(strips[0]?.querySelectorAll('li') ?? [])].map((li) => ({ layer: parseInt(li.textContent ?? '', 10), skip: li.classList.contains('skip') }));
        return { strips: strips.length, cells, answer: tr.querySelectorAll('td')[2]?.textContent ?? '' };
      }),
    );
  const deployStrips = await strips(deployRows);
  const routeStrips = await strips(routeRows);
  for (const s of [...deployStrips, ...routeStrips]) expect(s.strips).toBe(1);
  // the deployment route runs every layer once, in order, with nothing skipped
  expect(deployStrips[0].cells).toEqual(Array.from({ length: LAYERS }, (_, l) => ({ layer: l, skip: false })));
  await screen(page, '05-question');

  // ── Library: the run file ──
  await page.getByTestId('nav-library').click();
  await expect(page.getByTestId('screen-library')).toBeVisible();
  const libRows = page.getByTestId('library-table').locator('tbody tr');
  await expect(libRows).toHaveCount(1);
  await expect(libRows.first()).toContainText('reference/tiny-qwen2');
  await expect(libRows.first()).toContainText('finished');
  await screen(page, '06-library');
  const exportBtn = libRows.first().getByRole('button', { name: 'Export' });
  const runFile = await download(page, exportBtn);
  const run = JSON.parse(runFile.text) as RunFileShape;
  expect(runFile.filename).toBe(`reachlab-${run.manifest.id}.json`);
  expect(run.manifest.status).toBe('finished');
  expect(run.manifest.engine.ep).toBe('webgpu');
  expect(run.manifest.task.questions).toBe(QUESTIONS);
  expect(run.manifest.probes.map((p) => p.probe)).toEqual(['deployment', 'random-routes', 'mlp-silencing']);
  expect(run.records).toHaveLength(QUESTIONS * 3);
  expect(run.records.reduce((s, r) => s + r.attempts.length, 0)).toBe(ATTEMPTS);

  // Results showed what the records say: realized and reachable@B counts, the scan's bars
  const deployments = run.records.filter((r) => r.probe === 'deployment');
  const realizedIds = new Set(deployments.filter((r) => r.attempts[0].correct).map((r) => r.doc_id));
  expect(realizedIds.size).toBe(realizedK);
  const reachRow = rates.find((r) => r[1] === `reachable@${ROUTE_BUDGET}`)!;
  expect(Number(reachRow[2])).toBe(run.records.filter((r) => r.probe === 'random-routes' && r.first_success !== null && r.first_success < ROUTE_BUDGET).length);
  // beside it, reachable@B against the decoy (a wrong number near the gold): the same attempts, graded against it
  const decoyRow = rates.find((r) => r[1] === `reachable@${ROUTE_BUDGET} (decoy)`)!;
  const routeRecords = run.records.filter((r) => r.probe === 'random-routes');
  expect(routeRecords.every((r) => r.decoy !== null && r.decoy !== r.target)).toBe(true);
  expect(Number(decoyRow[2])).toBe(routeRecords.filter((r) => r.attempts.slice(0, ROUTE_BUDGET).some((a) => a.extracted === r.decoy)).length);
  // the failure set: reachable under random routes and not realized (an unreachable question is no failure of the set)
  const reachableIds = new Set(run.records.filter((r) => r.probe === 'random-routes' && r.first_success !== null && r.first_success < ROUTE_BUDGET).map((r) => r.doc_id));
  const repaired = Array.from({ length: LAYERS }, () => 0);
  const broken = Array.from({ length: LAYERS }, () => 0);
  for (const r of run.records.filter((x) => x.probe === 'mlp-silencing')) {
    for (const a of r.attempts) {
      const realized = realizedIds.has(r.doc_id);
      if (!realized && reachableIds.has(r.doc_id) && a.correct) repaired[a.silence[0]]++;
      if (realized && !a.correct) broken[a.silence[0]]++;
    }
  }
  // a bar has height exactly when its count is above zero (no count, no bar)
  expect(scanBars[0].map((h) => h > 0)).toEqual(repaired.map((n) => n > 0));
  expect(scanBars[1].map((h) => h > 0)).toEqual(broken.map((n) => n > 0));

  // the drill-down showed this run's first question as stored: its text, gold, attempts and routes
  const shown = run.records.filter((r) => r.doc.text === listedText);
  expect(shown.map((r) => r.probe).sort()).toEqual(['deployment', 'mlp-silencing', 'random-routes']);
  expect(shown[0].target).toBe(gold);
  const routes = shown.find((r) => r.probe === 'random-routes')!;
  expect(routes.budget).toBe(ROUTE_BUDGET);
  // the CSV counts the first success from 1; the run file keeps the 0-based index
  for (const r of run.records.filter((x) => x.probe === 'random-routes')) {
    expect(firstSuccessShown.get(r.doc_id)).toBe(r.first_success === null ? '' : String(r.first_success + 1));
  }
  expect(routes.attempts).toHaveLength(routeStrips.length);
  routes.attempts.forEach((a, i) => {
    const cells = routeStrips[i].cells;
    // one cell per route position, in route order, plus a skip cell per default layer the route leaves out
    expect(cells.filter((c) => !c.skip).map((c) => c.layer)).toEqual(a.route);
    expect(cells.filter((c) => c.skip).map((c) => c.layer)).toEqual(Array.from({ length: LAYERS }, (_, l) => l).filter((l) => !a.route.includes(l)));
    expect(routeStrips[i].answer).toBe(a.extracted);
  });

  expect(errors).toEqual([]);
});

test('gated repo: an error naming the token without one, loads with it', async ({ page }) => {
  test.setTimeout(180_000);
  await openSetup(page);
  await requestHubModel(page, { repo: 'reference/gated-qwen2', ep: 'webgpu' });
  const err = page.getByTestId('error-message');
  await expect(err).toBeVisible({ timeout: 60_000 });
  await expect(err).toContainText(/gated/i);
  await expect(err).toContainText(/token/i);
  await expect(err.getByTestId('error-action')).toHaveText('Add a Hugging Face token');
  await expect(page.getByTestId('model-info')).toHaveCount(0);
  await screen(page, '07-gated-no-token');

  // the action puts the cursor in the token field
  await err.getByTestId('error-action').click();
  await expect(page.getByTestId('hub-token')).toBeFocused();
  const info = await loadHubModel(page, { repo: 'reference/gated-qwen2', token: HUB_TOKEN, ep: 'webgpu' });
  await expect(info).toContainText('reference/gated-qwen2');
  await expect(info).toContainText('WebGPU');
  await expect(page.getByTestId('error-message')).toHaveCount(0);
  await screen(page, '08-gated-with-token');
});

test('untrusted task text stays text on every screen', async ({ page }) => {
  test.setTimeout(240_000);
  const dialogs: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  const HOSTILE = '<img src=x onerror=alert(1)>What is 2+2?';
  const rows = [
    { q: HOSTILE, a: '4' },
    { q: '<b onmouseover=alert(2)>What is 3+4?</b>', a: '7' },
  ];
  const jsonl = rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

  await openSetup(page);
  await loadHubModel(page, { repo: 'reference/tiny-qwen2', ep: 'webgpu' });
  await page.getByTestId('task-file').check();
  await page.getByTestId('task-file-input').setInputFiles({ name: 'hostile.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(jsonl) });
  await expect(page.getByTestId('file-summary')).toHaveText('2 rows (jsonl). Which column holds what:');
  // columns q / a are not among the guessed names: map them by hand
  await page.getByTestId('map-question').selectOption('q');
  await page.getByTestId('map-answer').selectOption('a');
  await page.getByTestId('task-count').fill('2');
  await page.getByTestId('probe-sampling-ceiling').uncheck();
  await page.getByTestId('probe-uniform-routes').check();
  await page.getByTestId('budget-uniform-routes').fill('2');
  await expect(page.getByTestId('setup-problems')).toHaveCount(0);
  // the preview table shows the raw cell as text
  await expect(page.getByRole('cell', { name: HOSTILE, exact: true })).toBeVisible();
  await expect(page.locator('main img, main b')).toHaveCount(0);
  await screen(page, '09-hostile-setup');

  await startRun(page);
  await viewResults(page);
  const item = page.getByTestId('question-list').locator('li', { hasText: 'What is 2+2?' });
  await expect(item.locator('.q-text')).toHaveText(HOSTILE);
  await expect(page.locator('main img, main b')).toHaveCount(0);
  await screen(page, '10-hostile-results');

  await item.locator('button').click();
  await expect(page.getByTestId('question-text')).toHaveText(HOSTILE);
  await expect(page.getByTestId('question-gold')).toHaveText('4');
  await expect(page.locator('img')).toHaveCount(0);
  await expect(page.locator('main b')).toHaveCount(0);
  await screen(page, '11-hostile-question');
  expect(dialogs).toEqual([]);
});
