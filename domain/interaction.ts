// The interaction aggregate (stream interaction-{id}): a click on a message component and its delivery to the bot
// endpoint of the webhook that posted the message. Every attempt and outcome is an event, so the retry schedule
// survives restarts, two delivery workers cannot both run the same attempt (each start appends on the revision it
// saw), and moderators can read what happened. The HTTP attempt itself is the delivery worker's (processes/delivery.ts).
import { type Component, ComponentType, ENTITY_SELECT_DEFAULTS, type EntitySelect, type StringSelect, interactiveComponents } from './components.js';
import type { Decider, DomainEvent } from './decider.js';
import { DomainError, badRequest, invalidForm } from './errors.js';

/** The spec: interaction payloads are type 3 (message component), schema version 1. */
export const INTERACTION_TYPE_COMPONENT = 3;
export const INTERACTION_VERSION = 1;
export const MAX_DELIVERY_ATTEMPTS = 5;
/** The spec's "about 30 minutes" ceiling on the backoff between attempts. */
export const BACKOFF_CEILING_MS = 30 * 60 * 1000;

/** The JSON body POSTed to the bot, as the spec's payload table. */
export interface InteractionPayload {
  id: string;
  type: number;
  token: string;
  version: number;
  channel_id: string;
  guild_id?: string;
  message_id: string;
  user: { id: string; username: string; discriminator: string; avatar: string | null };
  data: { custom_id: string; component_type: number; values?: string[] };
}

export interface Click {
  custom_id: string;
  values?: string[];
}

/** What an attempt came to: an HTTP status, a network error or timeout, or a refusal before any request was made. */
export type AttemptResult = { status: number } | { error: string } | { refused: string };

type Ids = {
  interactionId: string;
  webhookId: string | null;
  attempt: number;
};

/** `deliveryUrl` is the webhook's interaction_url at the time of the click; null: nothing is delivered. */
export type InteractionClicked = DomainEvent<
  'InteractionClicked',
  { interaction: InteractionPayload; webhookId: string | null; deliveryUrl: string | null; clickedAt: string }
>;
export type InteractionDeliveryAttempted = DomainEvent<'InteractionDeliveryAttempted', Ids & { startedAt: string }>;
export type InteractionDelivered = DomainEvent<'InteractionDelivered', Ids & { status: number; finishedAt: string }>;
/** `retryAt` null: that was the last attempt, the delivery gave up. */
export type InteractionDeliveryFailed = DomainEvent<
  'InteractionDeliveryFailed',
  Ids & { status: number | null; error: string | null; retryAt: string | null; finishedAt: string }
>;
export type InteractionDeliveryDropped = DomainEvent<'InteractionDeliveryDropped', Ids & { status: number | null; reason: string; finishedAt: string }>;
export type InteractionEvent =
  InteractionClicked | InteractionDeliveryAttempted | InteractionDelivered | InteractionDeliveryFailed | InteractionDeliveryDropped;

export type DeliveryStatus = 'none' | 'undelivered' | 'queued' | 'in_flight' | 'delivered' | 'dropped' | 'failed';

export interface InteractionState {
  status: DeliveryStatus;
  interaction: InteractionPayload | null;
  webhookId: string | null;
  deliveryUrl: string | null;
  attempts: number;
  /** Epoch milliseconds of the next attempt while queued. */
  nextAttemptAt: number | null;
}

export type InteractionCommand =
  | { type: 'RecordClick'; interaction: InteractionPayload; webhookId: string | null; deliveryUrl: string | null; at: number }
  | { type: 'StartAttempt'; attempt: number; at: number }
  /** `retryDelayMs` is the backoff to use should this attempt be retried (the caller draws its jitter). */
  | { type: 'RecordAttempt'; attempt: number; result: AttemptResult; retryDelayMs: number; at: number };

/** How long to wait after failed attempt `attempt` (1-based): base × 4^(attempt-1), ±20% jitter, at most the ceiling. */
export function backoffDelay(attempt: number, baseMs: number, random: number): number {
  const exponential = baseMs * 4 ** (attempt - 1);
  return Math.round(Math.min(exponential * (0.8 + 0.4 * random), BACKOFF_CEILING_MS));
}

const staleAttempt = () => new DomainError('conflict', 'DELIVERY_ATTEMPT_STALE', 'This delivery attempt was already made or is not due');

const SNOWFLAKE = /^\d{1,20}$/;

/**
 * The component a click names and the values it submits, checked against the message: the custom_id exists (in a row,
 * a container or a section), the component is enabled, it is a button (no values), a string select (values among its
 * options) or a user, role, mentionable or channel select (values are ids, which the command layer resolves), with
 * min_values..max_values values (1..1 by default), each once. Link buttons have no custom_id, so they never match.
 */
export function resolveClick(messageComponents: readonly Component[], click: Click): InteractionPayload['data'] {
  const component = interactiveComponents(messageComponents).find((c) => 'custom_id' in c && c.custom_id === click.custom_id);
  if (!component) throw badRequest('UNKNOWN_COMPONENT', 'The message has no component with this custom_id');
  if ((component as { disabled?: boolean }).disabled) throw badRequest('COMPONENT_DISABLED', 'This component is disabled');
  if (component.type === ComponentType.BUTTON) {
    if (click.values !== undefined) throw invalidForm([{ path: 'values', message: 'A button takes no values' }]);
    return { custom_id: click.custom_id, component_type: ComponentType.BUTTON };
  }
  const entity = ENTITY_SELECT_DEFAULTS[component.type] !== undefined;
  if (component.type !== ComponentType.STRING_SELECT && !entity) throw badRequest('COMPONENT_NOT_INTERACTIVE', 'This component type cannot be used');
  const select = component as StringSelect | EntitySelect;
  const values = click.values ?? [];
  const min = select.min_values ?? 1;
  const max = select.max_values ?? 1;
  const errors = values.flatMap((value, i) =>
    entity
      ? SNOWFLAKE.test(value)
        ? []
        : [{ path: `values.${i}`, message: 'Must be an id (a snowflake)' }]
      : !(select as StringSelect).options.some((o) => o.value === value)
        ? [{ path: `values.${i}`, message: 'Not an option of the select menu' }]
        : [],
  );
  values.forEach((value, i) => {
    if (values.indexOf(value) !== i) errors.push({ path: `values.${i}`, message: 'Chosen twice' });
  });
  if (values.length < min || values.length > max) errors.unshift({ path: 'values', message: `Must choose between ${min} and ${max} options` });
  if (errors.length) throw invalidForm(errors);
  return { custom_id: click.custom_id, component_type: component.type, values };
}

function recordAttempt(command: Extract<InteractionCommand, { type: 'RecordAttempt' }>, state: InteractionState): InteractionEvent[] {
  if (state.status !== 'in_flight' || command.attempt !== state.attempts) throw staleAttempt();
  const ids: Ids = { interactionId: state.interaction!.id, webhookId: state.webhookId, attempt: command.attempt };
  const finishedAt = new Date(command.at).toISOString();
  const { result } = command;
  // The spec's rules: 2xx delivered; any 4xx but 429 is permanent; 429, 5xx and network errors are retried.
  if ('refused' in result) return [{ type: 'InteractionDeliveryDropped', data: { ...ids, status: null, reason: result.refused, finishedAt } }];
  const status = 'status' in result ? result.status : null;
  if (status !== null && status >= 200 && status < 300) return [{ type: 'InteractionDelivered', data: { ...ids, status, finishedAt } }];
  if (status !== null && status >= 400 && status < 500 && status !== 429) {
    return [{ type: 'InteractionDeliveryDropped', data: { ...ids, status, reason: `the endpoint answered ${status}`, finishedAt } }];
  }
  const error = 'error' in result ? result.error : null;
  const retryAt = command.attempt < MAX_DELIVERY_ATTEMPTS ? new Date(command.at + command.retryDelayMs).toISOString() : null;
  return [{ type: 'InteractionDeliveryFailed', data: { ...ids, status, error, retryAt, finishedAt } }];
}

export const interactionDecider: Decider<InteractionState, InteractionCommand, InteractionEvent> = {
  initialState: () => ({ status: 'none', interaction: null, webhookId: null, deliveryUrl: null, attempts: 0, nextAttemptAt: null }),

  decide(command, state) {
    switch (command.type) {
      case 'RecordClick': {
        if (state.status !== 'none') throw new DomainError('conflict', 'INTERACTION_EXISTS', 'Interaction already exists');
        const { interaction, webhookId, deliveryUrl, at } = command;
        return [{ type: 'InteractionClicked', data: { interaction, webhookId, deliveryUrl, clickedAt: new Date(at).toISOString() } }];
      }
      case 'StartAttempt':
        if (state.status !== 'queued' || command.attempt !== state.attempts + 1) throw staleAttempt();
        return [
          {
            type: 'InteractionDeliveryAttempted',
            data: { interactionId: state.interaction!.id, webhookId: state.webhookId, attempt: command.attempt, startedAt: new Date(command.at).toISOString() },
          },
        ];
      case 'RecordAttempt':
        return recordAttempt(command, state);
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'InteractionClicked': {
        const { interaction, webhookId, deliveryUrl, clickedAt } = event.data;
        return {
          ...state,
          status: deliveryUrl ? 'queued' : 'undelivered',
          interaction,
          webhookId,
          deliveryUrl,
          nextAttemptAt: deliveryUrl ? Date.parse(clickedAt) : null,
        };
      }
      case 'InteractionDeliveryAttempted':
        return { ...state, status: 'in_flight', attempts: event.data.attempt, nextAttemptAt: null };
      case 'InteractionDelivered':
        return { ...state, status: 'delivered' };
      case 'InteractionDeliveryDropped':
        return { ...state, status: 'dropped' };
      case 'InteractionDeliveryFailed':
        return event.data.retryAt ? { ...state, status: 'queued', nextAttemptAt: Date.parse(event.data.retryAt) } : { ...state, status: 'failed' };
    }
  },
};
