// A stored record's attempts replayed: the probe's seeded session is started on the record's
// question and told the record's own grades in order, so it proposes the asks it proposed when the
// record was made (routes, silence sets, samples, depths). A record whose attempts are not those
// asks was not made by its probe under its spec. A search may revisit the default route uncharged
// (mcts.ts); that decode is not in the record, so its grade is taken from the question's deployment
// attempt (the same route and decoding), and, should the replay then disagree, from the other grade
// (a batch can round a near tie the other way).

import type { Question } from './attempts';
import type { ProbeContext } from './probes/probe';
import { probeOf } from './probes/registry';
import type { Attempt, ProbeSpec, QuestionRecord } from './types';

/** What the replay found: null when the attempts are the session's asks, else the first
 *  attempt (or the count) that differs, in words. */
export type ReplayProblem = { field: string; why: string } | null;

const MAX_REVISITS_TRIED = 6;
/** A session that only revisits is stopped. */
const MAX_REVISITS = 100_000;

/** The record's attempts against its probe's session; `deploymentCorrect` is the question's
 *  deployment grade, or null when the run holds none. */
export function replayProblem(spec: ProbeSpec, record: QuestionRecord, ctx: ProbeContext, deploymentCorrect: boolean | null): ReplayProblem {
  let first: ReplayProblem = null;
  for (let flips = 0; flips < 2 ** MAX_REVISITS_TRIED; flips++) {
    const { problem, revisits } = replay(spec, record, ctx, (i) => (deploymentCorrect === null ? null : ((flips >> i) & 1) === 1 ? !deploymentCorrect : deploymentCorrect));
    if (!problem) return null;
    first ??= problem;
    if (revisits === 0 || deploymentCorrect === null || flips + 1 >= 2 ** Math.min(revisits, MAX_REVISITS_TRIED)) break;
  }
  return first;
}

function replay(spec: ProbeSpec, r: QuestionRecord, ctx: ProbeContext, revisitGrade: (i: number) => boolean | null): { problem: ReplayProblem; revisits: number } {
  // a session reads the question's id and text, never its token ids
  const q: Question = { doc: r.doc, prompt: r.arguments.prompt, promptIds: [], doc_hash: r.doc_hash, prompt_hash: r.prompt_hash };
  const session = probeOf(spec).start(spec, q, ctx);
  let k = 0;
  let revisits = 0;
  for (let asks = session.propose(); asks; asks = session.propose()) {
    const grades: boolean[] = [];
    for (const ask of asks) {
      if (ask.charged === false) {
        if (revisits > MAX_REVISITS) return { problem: { field: 'attempts', why: `cannot be replayed: the search revisits the default route more than ${MAX_REVISITS} times` }, revisits };
        const g = revisitGrade(revisits++);
        if (g === null) return { problem: { field: 'attempts', why: `cannot be replayed: the search revisits the default route, whose grade is the deployment record's, and the run holds no deployment record of question ${r.doc_id}` }, revisits };
        grades.push(g);
        continue;
      }
      const a: Attempt | undefined = r.attempts[k];
      if (!a) return { problem: { field: 'attempts', why: `hold ${r.attempts.length}, but the probe's session under this spec asks for more` }, revisits };
      const asked = { route: ask.route, silence: ask.silence, sample: ask.sample ?? null, depth: ask.depth ?? null };
      // records of an earlier version state no depth: what they state is checked
      const stated = { route: a.route, silence: a.silence, sample: a.sample ?? null, depth: a.depth === undefined ? asked.depth : a.depth };
      if (JSON.stringify(stated) !== JSON.stringify(asked)) {
        return { problem: { field: `attempts[${k}]`, why: `says ${JSON.stringify(stated)}, but the probe's session under this spec asks for ${JSON.stringify(asked)}` }, revisits };
      }
      grades.push(a.correct);
      k++;
    }
    session.observe(grades);
  }
  if (k !== r.attempts.length) return { problem: { field: 'attempts', why: `hold ${r.attempts.length}, but the probe's session under this spec makes ${k}` }, revisits };
  return { problem: null, revisits };
}
