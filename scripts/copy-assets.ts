// Copies run-time assets into public/ before dev/build (not committed; see .gitignore):
// the reference checkpoints → public/hub/reference/{name}/resolve/main/, so the self-test page
//   can check this browser's GPU against expected.json through the same Hub code path.
import { copyFileSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function copyIfChanged(from: string, to: string): void {
  if (!existsSync(from)) throw new Error(`missing ${from}`);
  mkdirSync(dirname(to), { recursive: true });
  if (!existsSync(to) || statSync(to).size !== statSync(from).size) copyFileSync(from, to);
}

const refDir = join(root, 'test', 'fixtures', 'reference');
for (const name of readdirSync(refDir)) {
  const dir = join(refDir, name);
  if (!statSync(dir).isDirectory()) continue;
  for (const f of readdirSync(dir)) copyIfChanged(join(dir, f), join(root, 'public', 'hub', 'reference', name, 'resolve', 'main', f));
}
