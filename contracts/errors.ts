// The bodies of refusals (http/openapi/errors.ts lists the codes and their statuses).
import { list, object, string } from './schema.js';

export const ErrorBody = object(
  'The spec’s error body. `errors` comes with INVALID_FORM_BODY, one entry per problem at its path in dot/index notation (`_root` for the body itself). Under `/api/v9` and `/api/v10`, `code` is the widely used API’s number instead (10008 for UNKNOWN_MESSAGE; 0, its general error, where it has none) and `errors` is nested by path.',
  { code: string, message: string },
  { errors: list(object('One problem with the request.', { path: string, message: string })) },
);

export const RateLimitError = object('A 429’s body: how long to wait, in seconds. There is no global limit.', {
  code: { type: 'string', enum: ['RATE_LIMITED', 'IMAGE_QUEUE_FULL', 'SLOWMODE_RATE_LIMITED'] },
  message: string,
  retry_after: { type: 'number' },
  global: { const: false },
});
