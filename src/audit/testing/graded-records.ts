// Records for the metrics' specs: one question of a probe (or of deployment) with its attempts' grades.

import type { QuestionRecord } from '../types';

/** A record of `probe` for question `doc`: attempt i correct where correct[i], first success and
 *  reachability from them; deployment's realized is its one attempt. */
export function gradedRecord(doc: string, probe: 'deployment' | 'random-routes', correct: boolean[], budget = correct.length): QuestionRecord {
  const first = correct.indexOf(true);
  const deployed = probe === 'deployment';
  return {
    doc_id: doc,
    probe,
    probe_key: probe,
    condition_key: 'c',
    budget,
    attempts: correct.map((c, index) => ({ index, route: [0], silence: [], response: '', extracted: c ? 'g' : 'x', correct: c, meanLogprob: null })),
    first_success: first < 0 ? null : first,
    realized: deployed ? correct[0] : null,
    reachable: deployed ? null : first >= 0 && first < budget,
    realized_decoy: deployed ? false : null,
    reachable_decoy: deployed ? null : false,
    stop_reason: 'budget',
    invalid: 0,
    selection_saw_gold: false,
  } as unknown as QuestionRecord;
}
