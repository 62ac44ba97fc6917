// A guild's analytics from Parley's event stream, in Node with no dependency: the same answers as analytics.py
// (messages per channel per hour, moderation actions per moderator, join/leave churn per day), read as NDJSON from
// GET /api/v10/guilds/ID/events after the position it saved last, and saved with that position so the next run
// carries on where this one stopped, counting nothing twice.
//
//   PARLEY_TOKEN=... node examples/analytics.mjs --guild ID [--url https://127.0.0.1:8443] \
//       [--ca data/tls/self-signed.crt] [--state analytics-ID.json] [--follow]
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const MODERATION = new Set(['MemberBanned', 'MemberUnbanned', 'MemberKicked', 'MembersPruned', 'MessagesBulkDeleted']);

const { values: args } = parseArgs({
  options: {
    guild: { type: 'string' },
    url: { type: 'string', default: 'https://127.0.0.1:8443' },
    ca: { type: 'string', default: join(process.env.DATA_DIR ?? 'data', 'tls', 'self-signed.crt') },
    state: { type: 'string' },
    follow: { type: 'boolean', default: false },
  },
});
const token = process.env.PARLEY_TOKEN;
if (!args.guild || !token) {
  console.error('usage: PARLEY_TOKEN=... node examples/analytics.mjs --guild ID [--url URL] [--ca FILE] [--state FILE] [--follow]');
  process.exit(2);
}
const statePath = args.state ?? `analytics-${args.guild}.json`;
const state = existsSync(statePath)
  ? JSON.parse(readFileSync(statePath, 'utf8'))
  : { position: null, answers: { messages_per_channel_hour: {}, moderation_per_moderator: {}, churn_per_day: {} } };

/** Adds one at table[k1][k2]…. */
function count(table, ...keys) {
  const last = keys.pop();
  for (const key of keys) table = table[key] ??= {};
  table[last] = (table[last] ?? 0) + 1;
}

function fold(answers, { type, data, time, actor_id: actor }) {
  if (type === 'MessageCreated') count(answers.messages_per_channel_hour, data.channelId, `${time.slice(0, 13)}:00Z`);
  const moderator = actor ?? 'service';
  if (MODERATION.has(type)) count(answers.moderation_per_moderator, moderator, type);
  else if (type === 'MessageDeleted' && data.deletedBy !== data.authorId) count(answers.moderation_per_moderator, moderator, type);
  else if (type === 'MemberUpdated' && (data.changes ?? []).some((c) => c.key === 'communication_disabled_until'))
    count(answers.moderation_per_moderator, moderator, 'MemberTimedOut');
  const day = time.slice(0, 10);
  if (type === 'MemberJoined') count(answers.churn_per_day, day, 'joined');
  else if (type === 'MemberLeft' || type === 'MemberKicked' || type === 'MemberBanned') count(answers.churn_per_day, day, 'left');
}

/** Written whole to a temporary file, then renamed: a crash leaves the last state, never half of one. */
function save() {
  writeFileSync(`${statePath}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${statePath}.tmp`, statePath);
}

const query = new URLSearchParams({ follow: String(args.follow) });
if (state.position) query.set('after', state.position);
const url = new URL(`/api/v10/guilds/${args.guild}/events?${query}`, args.url);
const response = await new Promise((resolve, reject) => {
  const req = request(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'application/x-ndjson' },
    ca: existsSync(args.ca) ? readFileSync(args.ca) : undefined,
  });
  req.once('response', resolve).once('error', reject).end();
});
if (response.statusCode !== 200) {
  let body = '';
  for await (const chunk of response) body += chunk;
  console.error(`refused: ${response.statusCode} ${body}`);
  process.exit(1);
}
process.once('SIGINT', () => response.destroy());
try {
  for await (const line of createInterface({ input: response, crlfDelay: Infinity })) {
    if (!line.trim()) continue; // a heartbeat
    const item = JSON.parse(line);
    if ('stream' in item) fold(state.answers, item);
    // Cut off (a slow reader) or refused from now on: what was read is saved; run again to resume.
    else if (item.type === 'StreamEnded') console.error(`the stream ended: ${item.reason}`);
    if (item.position) state.position = item.position;
    if (args.follow) save();
  }
} catch (error) {
  if (error.code !== 'ABORT_ERR' && error.code !== 'ECONNRESET') throw error;
}
save();
console.log(JSON.stringify(state, null, 2));
