// Which attempts of a question can be looked inside (engine/readout.ts), and which are suggested:
// the deployment attempt, and per other probe its first attempt that reached the gold answer (a
// route that reached it, a silenced layer that repaired it). Every other attempt is read beside
// the deployment's generated answer: at the token where that departs from the gold, on its token.
import { isDeployment, titleOf } from '../../audit';
import type { AttemptLook, AttemptLookResult } from '../../engine/readout';
import type { QuestionView } from './analysis';

export interface LookTarget {
  /** probe key # attempt index: unique within a question. */
  key: string;
  label: string;
  deployment: boolean;
  correct: boolean;
  look: AttemptLook;
}

/** Every attempt of the question whose route is known, deployment first. A scored (log-likelihood)
 *  attempt has no response text: its emitted token is the greedy choice. */
export function lookTargets(q: QuestionView): LookTarget[] {
  const out: LookTarget[] = [];
  const dep = q.records.find(isDeployment)?.attempts[0];
  const deployed = dep && dep.response !== 'loglik' ? { deployed: dep.response } : {};
  for (const r of q.records) {
    const deployment = isDeployment(r);
    for (const a of r.attempts) {
      if (a.route === null) continue;
      const silenced = a.silence.length ? `, MLP ${a.silence.join(', ')} silenced` : '';
      out.push({
        key: `${r.probe_key}#${a.index}`,
        label: deployment ? 'deployment attempt' : `${titleOf(r.probe_spec)}, attempt ${a.index + 1}${silenced}`,
        deployment,
        correct: a.correct,
        look: { prompt: r.arguments.prompt, route: a.route, silence: a.silence, gold: q.target, response: a.response === 'loglik' ? '' : a.response, ...(deployment ? {} : deployed) },
      });
    }
  }
  return out.sort((x, y) => Number(y.deployment) - Number(x.deployment));
}

/** The deployment attempt and each probe's first correct attempt. */
export function suggestedTargets(targets: readonly LookTarget[]): LookTarget[] {
  const seen = new Set<string>();
  return targets.filter((t) => {
    const probe = t.key.slice(0, t.key.lastIndexOf('#'));
    if (!(t.deployment || t.correct) || seen.has(probe)) return false;
    seen.add(probe);
    return true;
  });
}

/** The one sentence a look inside says in place of figures when there is no other token to compare
 *  with the gold's: the attempt's answer has every gold token, or its route makes the gold token its
 *  own first choice where it was read. Null: there is a comparison to draw. */
export function nothingToCompare(r: AttemptLookResult): string | null {
  if (r.kind === 'matches') {
    const answer = JSON.stringify(r.response.trim());
    return r.longer
      ? `This attempt's answer ${answer} starts with every token of the gold answer, so there is no token where it departs from the gold and nothing to compare.`
      : `This attempt answers ${answer}, the gold answer token for token, so there is no token where it departs from the gold and nothing to compare.`;
  }
  if (r.gold !== r.emitted) return null;
  return `At answer token ${r.position + 1} this attempt's first choice is the gold token ${JSON.stringify(r.goldToken)} itself, so there is no other token to compare it with.`;
}
