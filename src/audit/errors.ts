// The audit core's named error. `code` says what kind of problem it is so the UI can act on it.

export type AuditErrorCode =
  | 'bad-input' // a condition, probe spec, task spec or option is invalid
  | 'bad-task' // a task file or dataset page cannot be read into questions
  | 'offline' // the Hub dataset rows API could not be reached
  | 'http' // the Hub dataset rows API answered with an HTTP error
  | 'cancelled'; // the caller's AbortSignal fired

export class AuditError extends Error {
  readonly code: AuditErrorCode;
  constructor(code: AuditErrorCode, message: string) {
    super(message);
    this.name = 'AuditError';
    this.code = code;
  }
}
