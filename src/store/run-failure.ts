// The error that stopped a failed run, as data: its class and code travel with the run's progress
// (across tabs and to the screens), so a question the model cannot take is shown as the input
// problem it is, not as an unknown failure.

import { AuditError, type AuditErrorCode } from '../audit/errors.ts';
import { EngineError, isEngineError, type EngineErrorCode } from '../engine/types.ts';
import { isStoreError, StoreError, type StoreErrorCode } from './errors.ts';

export type RunFailure = { kind: 'engine'; code: EngineErrorCode } | { kind: 'audit'; code: AuditErrorCode } | { kind: 'store'; code: StoreErrorCode } | { kind: 'other' };

/** What kind of error `e` is. */
export function runFailureOf(e: unknown): RunFailure {
  if (isEngineError(e)) return { kind: 'engine', code: e.code };
  if (e instanceof AuditError) return { kind: 'audit', code: e.code };
  if (isStoreError(e)) return { kind: 'store', code: e.code };
  return { kind: 'other' };
}

/** The error again, from its kind and message (an unknown kind: a plain Error). */
export function errorOfRunFailure(f: RunFailure | undefined, message: string): Error {
  switch (f?.kind) {
    case 'engine':
      return new EngineError(f.code, message);
    case 'audit':
      return new AuditError(f.code, message);
    case 'store':
      return new StoreError(f.code, message);
    default:
      return new Error(message);
  }
}
