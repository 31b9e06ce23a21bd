// The peer benchmark's Python virtual environment (.cache/peer-venv): made with `python3 -m venv`
// and filled by pip from the package index pip is configured for (PIP_INDEX_URL /
// PIP_EXTRA_INDEX_URL choose another, e.g. PyTorch's CPU-only wheels); reused once its imports work.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const PEER_PACKAGES = ['torch', 'transformers', 'safetensors'];
const IMPORTS = 'import torch, transformers, safetensors';

/** Setup that cannot go on: the message says what is missing and how to get it. */
export class PeerSetupError extends Error {}

/** The venv's python, created and installed first where needed. */
export function ensurePeerVenv(root: string, log: (line: string) => void): string {
  const dir = join(root, '.cache', 'peer-venv');
  const python = join(dir, 'bin', 'python');
  const system = process.env.PYTHON ?? 'python3';
  if (!existsSync(python)) {
    const version = spawnSync(system, ['--version'], { encoding: 'utf8' });
    if (version.error || version.status !== 0) {
      throw new PeerSetupError(`${system} is not available (${version.error?.message ?? version.stderr.trim()}): install Python 3.9 or newer, or set PYTHON to one`);
    }
    log(`creating the Python virtual environment .cache/peer-venv with ${version.stdout.trim() || version.stderr.trim()}…`);
    const made = spawnSync(system, ['-m', 'venv', dir], { encoding: 'utf8' });
    if (made.status !== 0) throw new PeerSetupError(`${system} -m venv failed (on Debian or Ubuntu install python3-venv): ${made.stderr.trim()}`);
  }
  if (spawnSync(python, ['-c', IMPORTS]).status === 0) return python;
  log(`installing ${PEER_PACKAGES.join(', ')} with pip (once; several minutes)…`);
  const pip = spawnSync(python, ['-m', 'pip', 'install', ...PEER_PACKAGES], { stdio: ['ignore', 2, 2] });
  if (pip.error || pip.status !== 0) {
    throw new PeerSetupError(`pip could not install ${PEER_PACKAGES.join(', ')} into .cache/peer-venv (pip's output is above; `
      + `no network or no wheel for this platform?): ${pip.error?.message ?? `exit status ${pip.status}`}`);
  }
  const check = spawnSync(python, ['-c', IMPORTS], { encoding: 'utf8' });
  if (check.status !== 0) throw new PeerSetupError(`after pip install, ${IMPORTS} still fails: ${check.stderr.trim().split('\n').at(-1)}`);
  return python;
}
