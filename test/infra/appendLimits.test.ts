// The largest event the log takes (infra/eventStore/limits.ts), over HTTPS: a request that would make a larger one is
// refused with a 413 and appends nothing, on any engine, so the bus never meets a message it cannot carry; the
// largest legitimate events pass well under it. And the EventStoreDB adapter refuses an append over the server's
// 1 MiB before it sends anything (the real client, pointed at a port nothing listens on).
import { EventStoreDBClient } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../domain/errors.js';
import { EsdbEventStore } from '../../infra/eventStore/esdb.js';
import { MAX_EVENT_BYTES, eventBytes } from '../../infra/eventStore/limits.js';
import { SealingEventStore } from '../../infra/eventStore/sealing.js';
import type { NewEvent } from '../../ports/eventStore.js';
import { createGuild, expectRefusedWithoutEvents } from '../http/guildSupport.js';
import { createBot, fileServer } from '../support/server.js';

const server = await fileServer();

/** The 32 locales of the widely used API's localizations. */
const LOCALES = 'id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el bg ru uk hi th zh-CN ja zh-TW ko'.split(' ');
const localized = (text: string) => Object.fromEntries(LOCALES.map((locale) => [locale, text]));

/** The last event of the log as stored (sealed), and its size as the limit counts it. */
async function lastStoredEvent() {
  const { store } = server.runtime;
  const [last] = await (store instanceof SealingEventStore ? store.sealedLog : store).readAll({ direction: 'backwards', maxCount: 1 });
  return { type: last.type, bytes: eventBytes(last) };
}

describe('the largest event', () => {
  it('a request that would make an event over the limit is refused with a 413, nothing appended', async () => {
    const bot = await createBot(server);
    // 25 options of 25 choices, each choice named in every locale: one ApplicationCommandCreated of about 2.5 MB.
    const choices = Array.from({ length: 25 }, (_, n) => ({ name: `choice ${n}`, name_localizations: localized('é'.repeat(100)), value: `v${n}` }));
    const options = Array.from({ length: 25 }, (_, n) => ({ type: 3, name: `option${n}`, description: 'an option', choices }));
    await expectRefusedWithoutEvents(
      server,
      () =>
        server.api('POST', `/applications/${bot.applicationId}/commands`, {
          token: bot.token,
          scheme: 'Bot',
          body: { name: 'huge', description: 'd', options },
        }),
      413,
      'REQUEST_ENTITY_TOO_LARGE',
    );
  });

  it('the largest legitimate events stay under it: a full message, a command of 8000 characters localized in every locale', async () => {
    const bot = await createBot(server);
    // Within the widely used API's 8000 characters a command (the longest localization of each field counted):
    // 25 options of 10 choices, about 6000 characters, each field localized in all 32 locales at full length.
    const options = Array.from({ length: 25 }, (_, n) => ({
      type: 3,
      name: `option${String(n).padStart(2, '0')}`,
      name_localizations: localized(`é${String(n).padStart(7, 'é')}`),
      description: 'd'.repeat(100),
      description_localizations: localized('é'.repeat(100)),
      choices: Array.from({ length: 10 }, (_, c) => ({ name: `choice ${c}`.padEnd(10, '.'), name_localizations: localized('é'.repeat(10)), value: `v${c}` })),
    }));
    const command = await server.api('POST', `/applications/${bot.applicationId}/commands`, {
      token: bot.token,
      scheme: 'Bot',
      body: { name: 'big', description: 'd'.repeat(100), description_localizations: localized('é'.repeat(100)), options },
    });
    expect(command.status, command.text).toBe(201);
    const stored = await lastStoredEvent();
    expect(stored.type).toBe('ApplicationCommandCreated');
    expect(stored.bytes).toBeLessThan(MAX_EVENT_BYTES * 0.75);

    const guild = await createGuild(server);
    // 2000 characters of content and 6000 of embed text over 10 embeds (UTF-16 units), all of 4-byte characters, and
    // 5 rows of buttons.
    const wide = (units: number) => '😀'.repeat(units / 2);
    const embeds = Array.from({ length: 10 }, (_, n) => ({ title: wide(256), description: wide(342), footer: { text: `${n}` } }));
    const components = Array.from({ length: 5 }, (_, row) => ({
      type: 1,
      components: Array.from({ length: 5 }, (_, b) => ({ type: 2, style: 1, label: wide(80), custom_id: `r${row}b${b}${'x'.repeat(90)}` })),
    }));
    const message = await server.api('POST', `/channels/${guild.channelId}/messages`, {
      token: guild.owner.token,
      body: { content: wide(2000), embeds, components },
    });
    expect(message.status, message.text).toBe(200);
    const sent = await lastStoredEvent();
    expect(sent.type).toBe('MessageCreated');
    expect(sent.bytes).toBeLessThan(MAX_EVENT_BYTES / 4);
  });
});

describe('EventStoreDB appends', () => {
  it('over the server’s 1 MiB together are refused with a 413 before anything is sent', async () => {
    const client = EventStoreDBClient.connectionString('esdb://127.0.0.1:1?tls=false');
    const store = new (EsdbEventStore as unknown as new (client: EventStoreDBClient) => EsdbEventStore)(client);
    const half: NewEvent = { type: 'Noted', data: { text: 'x'.repeat(600 * 1024) }, metadata: { actorId: null, createdAt: '2024-01-01T00:00:00.000Z' } };
    try {
      const refused = await store.appendToStream('s', [half, half]).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect(refused).toMatchObject({ kind: 'too_large', code: 'REQUEST_ENTITY_TOO_LARGE' });
    } finally {
      await store.close();
    }
  });
});
