// The built-in models, listed once: each one's name, its Hub-layout id, how Setup names it, and the tasks it was
// trained on (its model card). How a reference names one — a plan's "builtin:micro-arith", the
// id "reachlab/micro-arith", a run's source "builtin:reachlab/micro-arith" — is read here only.

export const BUILTIN_MODELS = [
  { name: 'micro-arith', id: 'reachlab/micro-arith', label: 'base', trainedOn: { tasks: ['arith-2d'], words: 'two-digit arithmetic (arith-2d)' } },
  { name: 'micro-arith-rl', id: 'reachlab/micro-arith-rl', label: 'RL-trained', trainedOn: { tasks: ['arith-2d'], words: 'two-digit arithmetic (arith-2d)' } },
] as const;

export type BuiltinModel = (typeof BUILTIN_MODELS)[number];
export type BuiltinModelId = BuiltinModel['id'];

/** "builtin:micro-arith": how a study plan and the study CLI name a built-in model. */
export const builtinRef = (m: BuiltinModel): string => `builtin:${m.name}`;

/** The built-in model a reference names ("builtin:micro-arith", "reachlab/micro-arith",
 *  "builtin:reachlab/micro-arith"), or null for any other reference. */
export function builtinModel(ref: string): BuiltinModel | null {
  const rest = ref.startsWith('builtin:') ? ref.slice('builtin:'.length) : null;
  return BUILTIN_MODELS.find((m) => m.id === ref || m.id === rest || m.name === rest) ?? null;
}
