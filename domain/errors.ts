// Refusals the domain can give. Each has a stable code (the spec's error format) and a kind the HTTP layer maps to a status.
export type ErrorKind = 'invalid' | 'unauthorized' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'failed_dependency' | 'rate_limited';

export interface FieldError {
  path: string;
  message: string;
  /** The widely used API's name for the problem (`BASE_TYPE_REQUIRED`), where one is known; its versions show it. */
  code?: string;
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly errors?: FieldError[],
    /** Seconds after which the same request may succeed (a refusal for now, not for good). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalidForm = (errors: FieldError[], message = 'Invalid Form Body') => new DomainError('invalid', 'INVALID_FORM_BODY', message, errors);
export const notFound = (code: string, message: string) => new DomainError('not_found', code, message);
export const forbidden = (code: string, message: string) => new DomainError('forbidden', code, message);
export const missingPermissions = (message = 'Missing Permissions') => forbidden('MISSING_PERMISSIONS', message);
export const badRequest = (code: string, message: string) => new DomainError('invalid', code, message);
