// A template worker that ignores every bound (the sandbox's tests): it says it is ready, then for
// the source 'spin' spins for ever, for 'grow' allocates until its heap cap, and otherwise answers.
import { parentPort } from 'node:worker_threads';

parentPort.postMessage({ ready: true });
parentPort.on('message', (req) => {
  if (req.source === 'spin') for (;;);
  if (req.source === 'grow') {
    const kept = [];
    for (let i = 0; ; i++) kept.push(new Array(1 << 16).fill(i));
  }
  parentPort.postMessage({ id: req.id, text: 'rogue' });
});
