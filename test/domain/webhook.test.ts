// Given/when/then on the webhook decider and on the interaction decider (clicks, attempts, outcomes, backoff).
import { describe, expect, it } from 'vitest';
import type { Component } from '../../domain/components.js';
import { BACKOFF_CEILING_MS, type InteractionEvent, backoffDelay, interactionDecider, resolveClick } from '../../domain/interaction.js';
import { type WebhookData, webhookDecider } from '../../domain/webhook.js';
import { given } from '../support/given.js';

const webhook: WebhookData = { id: '9', guild_id: '1', channel_id: '2', creator_id: '3', name: 'Hook', avatar: null, interaction_url: null };
const created = { type: 'WebhookCreated' as const, data: { webhook, sealedToken: 's1.a.b.c', tokenHash: 'h' } };

describe('webhook', () => {
  it('is created once', () => {
    given(webhookDecider, [])
      .when({ type: 'CreateWebhook', webhook, credential: { sealedToken: 's1.a.b.c', tokenHash: 'h' } })
      .then([created]);
    given(webhookDecider, [created])
      .when({ type: 'CreateWebhook', webhook, credential: { sealedToken: 'x', tokenHash: 'y' } })
      .thenRefuses('WEBHOOK_EXISTS');
  });

  it('records only changed settings, and a move with the channel it left', () => {
    given(webhookDecider, [created])
      .when({ type: 'UpdateWebhook', settings: { name: 'Hook' } })
      .then([]);
    given(webhookDecider, [created])
      .when({ type: 'UpdateWebhook', settings: { name: 'New', channel_id: '5', interaction_url: 'https://bot.example/i' } })
      .then([
        {
          type: 'WebhookUpdated',
          data: {
            webhookId: '9',
            guildId: '1',
            channelId: '5',
            previousChannelId: '2',
            changes: [
              { key: 'name', old_value: 'Hook', new_value: 'New' },
              { key: 'channel_id', old_value: '2', new_value: '5' },
              { key: 'interaction_url', old_value: null, new_value: 'https://bot.example/i' },
            ],
            webhook: { ...webhook, name: 'New', channel_id: '5', interaction_url: 'https://bot.example/i' },
          },
        },
      ]);
  });

  it('is unknown once deleted', () => {
    const deleted = { type: 'WebhookDeleted' as const, data: { webhook } };
    given(webhookDecider, [created]).when({ type: 'DeleteWebhook' }).then([deleted]);
    given(webhookDecider, [created, deleted]).when({ type: 'DeleteWebhook' }).thenRefuses('UNKNOWN_WEBHOOK');
    given(webhookDecider, [])
      .when({ type: 'UpdateWebhook', settings: { name: 'x' } })
      .thenRefuses('UNKNOWN_WEBHOOK');
  });
});

const payload = {
  id: '100',
  type: 3,
  token: 't',
  version: 1,
  channel_id: '2',
  guild_id: '1',
  message_id: '50',
  user: { id: '7', username: 'ada', discriminator: '0001', avatar: null },
  data: { custom_id: 'go', component_type: 2 },
};
const at = Date.parse('2026-01-01T00:00:00Z');
const clicked: InteractionEvent = {
  type: 'InteractionClicked',
  data: { interaction: payload, webhookId: '9', deliveryUrl: 'https://bot.example/i', clickedAt: new Date(at).toISOString() },
};
const attempted = (attempt: number): InteractionEvent => ({
  type: 'InteractionDeliveryAttempted',
  data: { interactionId: '100', webhookId: '9', attempt, startedAt: new Date(at).toISOString() },
});
const ids = (attempt: number) => ({ interactionId: '100', webhookId: '9', attempt });
const finishedAt = new Date(at + 10).toISOString();

describe('interaction delivery', () => {
  it('claims each attempt once, in order', () => {
    given(interactionDecider, [clicked])
      .when({ type: 'StartAttempt', attempt: 1, at })
      .then([attempted(1)]);
    given(interactionDecider, [clicked, attempted(1)])
      .when({ type: 'StartAttempt', attempt: 1, at })
      .thenRefuses('DELIVERY_ATTEMPT_STALE');
    given(interactionDecider, [clicked]).when({ type: 'StartAttempt', attempt: 2, at }).thenRefuses('DELIVERY_ATTEMPT_STALE');
    const undeliverable: InteractionEvent = { type: 'InteractionClicked', data: { ...clicked.data, deliveryUrl: null } as never };
    given(interactionDecider, [undeliverable]).when({ type: 'StartAttempt', attempt: 1, at }).thenRefuses('DELIVERY_ATTEMPT_STALE');
  });

  it('follows the spec’s response rules', () => {
    const record = (result: { status: number } | { error: string } | { refused: string }, attempt = 1) => ({
      type: 'RecordAttempt' as const,
      attempt,
      result,
      retryDelayMs: 1000,
      at: at + 10,
    });
    given(interactionDecider, [clicked, attempted(1)])
      .when(record({ status: 204 }))
      .then([{ type: 'InteractionDelivered', data: { ...ids(1), status: 204, finishedAt } }]);
    given(interactionDecider, [clicked, attempted(1)])
      .when(record({ status: 404 }))
      .then([{ type: 'InteractionDeliveryDropped', data: { ...ids(1), status: 404, reason: 'the endpoint answered 404', finishedAt } }]);
    const retryAt = new Date(at + 1010).toISOString();
    for (const status of [429, 500, 503]) {
      given(interactionDecider, [clicked, attempted(1)])
        .when(record({ status }))
        .then([{ type: 'InteractionDeliveryFailed', data: { ...ids(1), status, error: null, retryAt, finishedAt } }]);
    }
    given(interactionDecider, [clicked, attempted(1)])
      .when(record({ error: 'ECONNREFUSED' }))
      .then([{ type: 'InteractionDeliveryFailed', data: { ...ids(1), status: null, error: 'ECONNREFUSED', retryAt, finishedAt } }]);
    given(interactionDecider, [clicked, attempted(1)])
      .when(record({ refused: 'the webhook was deleted' }))
      .then([{ type: 'InteractionDeliveryDropped', data: { ...ids(1), status: null, reason: 'the webhook was deleted', finishedAt } }]);
  });

  it('gives up after the fifth failed attempt', () => {
    const history: InteractionEvent[] = [clicked];
    for (let attempt = 1; attempt <= 4; attempt++) {
      history.push(attempted(attempt), {
        type: 'InteractionDeliveryFailed',
        data: { ...ids(attempt), status: 500, error: null, retryAt: finishedAt, finishedAt },
      });
    }
    history.push(attempted(5));
    given(interactionDecider, history)
      .when({ type: 'RecordAttempt', attempt: 5, result: { status: 500 }, retryDelayMs: 1000, at: at + 10 })
      .then([{ type: 'InteractionDeliveryFailed', data: { ...ids(5), status: 500, error: null, retryAt: null, finishedAt } }]);
  });

  it('backs off exponentially with jitter, up to the ceiling', () => {
    expect(backoffDelay(1, 30_000, 0.5)).toBe(30_000);
    expect(backoffDelay(2, 30_000, 0.5)).toBe(120_000);
    expect(backoffDelay(1, 30_000, 0)).toBe(24_000);
    expect(backoffDelay(1, 30_000, 1)).toBe(36_000);
    expect(backoffDelay(4, 30_000, 1)).toBe(BACKOFF_CEILING_MS);
  });
});

describe('clicks', () => {
  const components: Component[] = [
    {
      type: 1,
      components: [
        { type: 2, style: 1, custom_id: 'go' },
        { type: 2, style: 4, custom_id: 'off', disabled: true },
        { type: 2, style: 5, url: 'https://x.example' },
      ],
    },
    {
      type: 1,
      components: [
        {
          type: 3,
          custom_id: 'pick',
          options: [
            { label: 'A', value: 'a' },
            { label: 'B', value: 'b' },
          ],
          max_values: 2,
        },
      ],
    },
    { type: 1, components: [{ type: 5, custom_id: 'users' }] },
  ];
  const refusal = (click: { custom_id: string; values?: string[] }) => {
    try {
      resolveClick(components, click);
    } catch (error) {
      return (error as { code: string; errors?: unknown }).code;
    }
    return null;
  };

  it('resolves buttons, string selects and user selects (whose ids the command layer resolves)', () => {
    expect(resolveClick(components, { custom_id: 'go' })).toEqual({ custom_id: 'go', component_type: 2 });
    expect(resolveClick(components, { custom_id: 'pick', values: ['b', 'a'] })).toEqual({ custom_id: 'pick', component_type: 3, values: ['b', 'a'] });
    expect(resolveClick(components, { custom_id: 'users', values: ['1'] })).toEqual({ custom_id: 'users', component_type: 5, values: ['1'] });
  });

  it('refuses unknown and disabled components, and values that do not fit', () => {
    expect(refusal({ custom_id: 'nope' })).toBe('UNKNOWN_COMPONENT');
    expect(refusal({ custom_id: 'off' })).toBe('COMPONENT_DISABLED');
    expect(refusal({ custom_id: 'users', values: ['ada'] })).toBe('INVALID_FORM_BODY');
    expect(refusal({ custom_id: 'go', values: [] })).toBe('INVALID_FORM_BODY');
    expect(refusal({ custom_id: 'pick', values: ['c'] })).toBe('INVALID_FORM_BODY');
    expect(refusal({ custom_id: 'pick', values: ['a', 'a'] })).toBe('INVALID_FORM_BODY');
    expect(refusal({ custom_id: 'pick' })).toBe('INVALID_FORM_BODY');
  });
});
