// The "Add a …" recipes' claim, done: a probe, an answer format, a metric and a Hub task of the
// test's own (test/fixtures/test-registrations.ts), each added through its registry's hook and
// nothing else, show in the audit CLI's --help, in Setup's choices and on Results; and each
// recipe's Files: list names exactly what such an addition touches (the entry's own file and spec,
// the module holding the list the hook adds to), none of the places that follow from it.

// first: the entries are registered before any module deriving a list from a registry loads
import { TEST_FORMAT, TEST_METRIC, TEST_PROBE, TEST_TASK, unregister } from './fixtures/test-registrations';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { render } from 'svelte/server';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** A recipe's `Files:` paragraph of docs/ARCHITECTURE.md, as its paths. */
function recipeFiles(recipe: string): string[] {
  const doc = read('docs/ARCHITECTURE.md');
  const at = doc.search(new RegExp(`^(?:### |\\*\\*)Add an? ${recipe}\\b`, 'm'));
  expect(at, `docs/ARCHITECTURE.md has an "Add a ${recipe}" recipe`).toBeGreaterThanOrEqual(0);
  const files = /^Files: (.*(?:\n(?!\n).*)*)/m.exec(doc.slice(at))!;
  return [...files[1].matchAll(/`([^`\s]+\/[^`\s]+)`/g)].map((m) => m[1]);
}

/** Each recipe's registry hook and the module it is exported from. */
const HOOKS = [
  { recipe: 'probe', hook: 'registerProbe', module: 'src/audit/probes/registry.ts', entry: 'src/audit/probes/<name>.ts' },
  { recipe: 'format', hook: 'registerFormat', module: 'src/audit/formats/registry.ts', entry: 'src/audit/formats/<name>.ts' },
  { recipe: 'metric', hook: 'registerMetric', module: 'src/audit/metrics/registry.ts', entry: 'src/audit/metrics/<name>.ts' },
  { recipe: 'task', hook: 'registerHubPreset', module: 'src/audit/tasks/hub.ts', entry: null },
] as const;

/** What a probe recipe adds for a probe that keeps its own record field (test/recipes.spec.ts checks those). */
const RECORD_FIELD_FILES = ['src/audit/types.ts', 'src/store/run-file.ts', 'src/store/verify.ts', 'src/store/export.ts'];

describe('a probe, format, metric and task added through their registries only', () => {
  afterAll(unregister);

  it("are listed in the audit CLI's --help", () => {
    const help = execFileSync(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), '--import', join(root, 'test/fixtures/test-registrations.ts'), join(root, 'scripts/audit-cli.ts'), '--help'], { encoding: 'utf8' });
    expect(help).toContain(`  ${TEST_PROBE.name}: ${TEST_PROBE.label}`);
    expect(help).toContain(`  ${TEST_FORMAT.name}: ${TEST_FORMAT.label} (grader version ${TEST_FORMAT.version})`);
    expect(help).toContain(`  ${TEST_METRIC.id}: ${TEST_METRIC.term}`);
    expect(help).toContain(`  hub:${TEST_TASK.id}: ${TEST_TASK.name} — ${TEST_TASK.dataset} ${TEST_TASK.config}/${TEST_TASK.testSplit}, ${TEST_TASK.declaredRows} rows (declared)`);
  }, 60_000);

  it("are among Setup's choices and the Study form's tasks", async () => {
    const { AppState } = await import('../src/ui/stores/app.svelte');
    const { TestBackend } = await import('../src/ui/testing/test-backend');
    const { default: SetupScreen } = await import('../src/ui/components/SetupScreen.svelte');
    const { FORM_TASKS } = await import('../src/ui/lib/study-form');
    const app = new AppState(new TestBackend(), null);
    app.setup.taskKind = 'hub';
    const body = render(SetupScreen, { props: { app } }).body;
    expect(body).toContain(`data-testid="probe-${TEST_PROBE.presets![0].id}"`);
    expect(body).toContain(`<option value="${TEST_FORMAT.name}"`);
    expect(body).toContain(`<option value="${TEST_TASK.id}"`);
    expect(FORM_TASKS.map((t) => t.ref)).toContain(`hub:${TEST_TASK.id}`);
  });

  it('run, and show on Results: the probe and a row of the metric for it', async () => {
    const { AppState } = await import('../src/ui/stores/app.svelte');
    const { TestBackend, runToEnd, testSetup } = await import('../src/ui/testing/test-backend');
    const { default: ResultsScreen } = await import('../src/ui/components/ResultsScreen.svelte');
    const { DEPLOYMENT } = await import('../src/audit');
    const backend = new TestBackend();
    const spec = TEST_PROBE.presets![0].spec(backend.numLayers);
    const run = await runToEnd(backend, testSetup([{ probe: DEPLOYMENT }, spec as never], 6));
    expect(run.records.filter((r) => (r.probe as string) === TEST_PROBE.name)).toHaveLength(6);
    const { body } = render(ResultsScreen, { props: { app: new AppState(backend, null), run } });
    const rates = body.split('data-testid="table-rates"')[1].split('</table>')[0];
    const rows = rates.split('<tr').filter((r) => r.includes(TEST_METRIC.label(3)));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(TEST_PROBE.label);
  });

  it("each recipe's Files: list is the entry's own file and spec and the module its hook adds to", () => {
    for (const { recipe, hook, module, entry } of HOOKS) {
      expect(read(module), `${hook} lives in ${module}`).toMatch(new RegExp(`^export function ${hook}\\b`, 'm'));
      const named = recipeFiles(recipe).filter((f) => !(recipe === 'probe' && RECORD_FIELD_FILES.includes(f)));
      const own = entry ? [entry, entry.replace(/\.ts$/, '.spec.ts')] : [];
      const specs = named.filter((f) => f.endsWith('.spec.ts') && !own.includes(f));
      // a task is tested against the local rows server beside tasks.spec.ts
      expect(specs, `Add a ${recipe}: its specs`).toEqual(entry ? [] : ['src/audit/tasks/tasks.spec.ts']);
      expect(named.filter((f) => !specs.includes(f)).sort(), `Add a ${recipe}: its files`).toEqual([...own, module].sort());
    }
  });
});
