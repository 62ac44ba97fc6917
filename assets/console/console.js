// The moderator console's script. It signs in through the API's login (the use case the authorization page's sign-in
// runs), keeps the session's token in this tab only (sessionStorage), and does everything else through the public API
// with it: the audit log and its filters, timeouts and bans, time travel and rollbacks, and the gateway for entries as
// they happen. Text from the server is only ever set as text, never parsed as markup.
const API = '/api/v10';
const EPOCH = 1420070400000n;
const VIEW_AUDIT_LOG = 1n << 7n;
const ADMINISTRATOR = 1n << 3n;
/** GUILDS and GUILD_MODERATION: the guild list, and audit entries as they are made. */
const INTENTS = (1 << 0) | (1 << 2);

/** The audit log's action types, in words. */
const ACTIONS = {
  1: 'Server updated',
  10: 'Channel created',
  11: 'Channel updated',
  12: 'Channel deleted',
  13: 'Permission overwrite created',
  14: 'Permission overwrite updated',
  15: 'Permission overwrite deleted',
  20: 'Member kicked',
  21: 'Members pruned',
  22: 'Member banned',
  23: 'Member unbanned',
  24: 'Member updated',
  25: 'Member roles updated',
  26: 'Member moved',
  27: 'Member disconnected',
  28: 'Bot added',
  30: 'Role created',
  31: 'Role updated',
  32: 'Role deleted',
  40: 'Invite created',
  41: 'Invite updated',
  42: 'Invite deleted',
  50: 'Webhook created',
  51: 'Webhook updated',
  52: 'Webhook deleted',
  72: 'Emoji created',
  73: 'Emoji updated',
  74: 'Emoji deleted',
  90: 'Sticker created',
  91: 'Sticker updated',
  92: 'Sticker deleted',
  110: 'Thread created',
  111: 'Thread updated',
  112: 'Thread deleted',
  140: 'AutoMod rule created',
  141: 'AutoMod rule updated',
  142: 'AutoMod rule deleted',
  143: 'AutoMod blocked a message',
  144: 'AutoMod flagged a message',
  145: 'AutoMod timed out a member',
};
const AUTOMOD_ACTIONS = [143, 144, 145];

const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text nodes). */
function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

/** The rollback previewed last, to apply as it was previewed. */
let plannedRequest = null;

const state = {
  token: sessionStorage.getItem('parley-console-token'),
  me: null,
  guild: null,
  /** Names by id: users, channels and roles met so far, for the tables' words. */
  names: new Map(),
  audit: { entries: [], cursor: null, missed: 0 },
  /** Set while a rollback is applied: its entries, as the gateway brings them. */
  rollback: null,
  socket: null,
};

function say(text) {
  $('status').textContent = text;
}

function showError(id, error) {
  const node = $(id);
  node.hidden = !error;
  node.textContent = error ? (error.message ?? String(error)) : '';
}

class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ? `${body.message} (${status})` : `The server answered ${status}`);
    this.status = status;
    this.body = body;
  }
}

/**
 * A call of the API with the session's token. Calls of one route (its path without the query) go one after another,
 * and one waits when the last answer said its bucket has nothing left (X-RateLimit-Remaining 0) until the bucket resets,
 * as the client libraries do: a page that pages, filters and follows the log at once would otherwise run into 429s. A
 * 429 that comes all the same is waited out (its retry_after) and tried again.
 */
const routeQueues = new Map();
function api(method, path, body) {
  const key = `${method} ${path.split('?')[0]}`;
  const queued = (routeQueues.get(key) ?? Promise.resolve()).then(() => callRoute(key, method, path, body));
  const settled = queued.catch(() => undefined).then(() => {
    if (routeQueues.get(key) === settled) routeQueues.delete(key);
  });
  routeQueues.set(key, settled);
  return queued;
}

const emptyBuckets = new Map();
async function callRoute(key, method, path, body) {
  for (let attempt = 0; ; attempt++) {
    const resetAt = emptyBuckets.get(key);
    if (resetAt !== undefined && resetAt > Date.now()) await new Promise((resolve) => setTimeout(resolve, resetAt - Date.now()));
    emptyBuckets.delete(key);
    const response = await fetch(API + path, {
      method,
      headers: { ...(state.token ? { authorization: `Bearer ${state.token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    if (response.headers.get('x-ratelimit-remaining') === '0') {
      emptyBuckets.set(key, Date.now() + Number(response.headers.get('x-ratelimit-reset-after') ?? 1) * 1000);
    }
    const answer = response.status === 204 ? null : await response.json().catch(() => null);
    if (response.status === 429 && attempt < 5) {
      say('Waiting for the rate limit…');
      await new Promise((resolve) => setTimeout(resolve, Math.ceil((answer?.retry_after ?? 1) * 1000)));
      continue;
    }
    if (response.status === 401 && state.me) signOut('Your session has ended: sign in again.');
    if (!response.ok) throw new ApiError(response.status, answer);
    return answer;
  }
}

// Times: entry ids are snowflakes of their time, so a time bounds a page of the log.
const snowflakeOf = (ms) => ((BigInt(ms) - EPOCH) << 22n).toString();
const timeOf = (id) => Number((BigInt(id) >> 22n) + EPOCH);
const formatTime = (value) => new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
/** A datetime-local input's value, read as local time; null when empty. */
const inputTime = (input) => (input.value ? new Date(input.value).getTime() : null);
const localInput = (ms) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60000);
  return d.toISOString().slice(0, 19);
};

const nameOf = (id) => (id ? (state.names.get(id) ?? id) : '—');
function learnUsers(users) {
  for (const user of users ?? []) state.names.set(user.id, user.global_name ?? user.username);
}
/** A channel's or role's name from its entry's changes, so that one deleted or made since still reads by name. */
function learnEntry(entry) {
  const name = entry.changes?.find((change) => change.key === 'name');
  const value = name?.new_value ?? name?.old_value;
  if (!entry.target_id || typeof value !== 'string' || state.names.has(entry.target_id)) return;
  if (entry.action_type >= 10 && entry.action_type <= 12) state.names.set(entry.target_id, `#${value}`);
  if (entry.action_type >= 30 && entry.action_type <= 32) state.names.set(entry.target_id, `@${value}`);
}

// ---- Sign-in and the server picker

async function signIn(event) {
  event.preventDefault();
  showError('signin-error', null);
  const button = event.submitter;
  button.disabled = true;
  try {
    const session = await api('POST', '/auth/login', { login: $('login').value, password: $('password').value });
    state.token = session.token;
    sessionStorage.setItem('parley-console-token', session.token);
    $('password').value = '';
    await start();
  } catch (error) {
    const fieldMessage = error.body?.errors?.login?._errors?.[0]?.message ?? error.body?.errors?.password?._errors?.[0]?.message;
    showError('signin-error', fieldMessage ? new Error(fieldMessage) : error);
  } finally {
    button.disabled = false;
  }
}

function signOut(message) {
  state.token = null;
  state.me = null;
  sessionStorage.removeItem('parley-console-token');
  state.socket?.close(1000);
  state.socket = null;
  $('console').hidden = true;
  $('account').hidden = true;
  $('no-guilds').hidden = true;
  $('signin').hidden = false;
  showError('signin-error', message ? new Error(message) : null);
  $('login').focus();
}

/** The guilds where the person may view the audit log. */
async function auditableGuilds() {
  const guilds = await api('GET', '/users/@me/guilds');
  return guilds.filter((guild) => {
    const permissions = BigInt(guild.permissions ?? '0');
    return guild.owner || (permissions & (VIEW_AUDIT_LOG | ADMINISTRATOR)) !== 0n;
  });
}

async function start() {
  try {
    state.me = await api('GET', '/users/@me');
  } catch {
    return signOut();
  }
  learnUsers([state.me]);
  $('me').textContent = state.me.username;
  $('signin').hidden = true;
  $('account').hidden = false;
  const guilds = await auditableGuilds();
  const picker = $('guild');
  picker.replaceChildren(...guilds.map((guild) => el('option', { value: guild.id }, guild.name)));
  if (guilds.length === 0) {
    $('no-guilds').hidden = false;
    return;
  }
  connectGateway();
  const wanted = new URLSearchParams(location.hash.slice(1)).get('guild');
  picker.value = guilds.some((guild) => guild.id === wanted) ? wanted : guilds[0].id;
  await chooseGuild();
}

async function chooseGuild() {
  const guildId = $('guild').value;
  history.replaceState(null, '', `#guild=${guildId}`);
  state.guild = { id: guildId, channels: [], roles: [], members: [] };
  // A plan is one server's: another server starts without one.
  plannedRequest = null;
  state.rollback = null;
  $('rollback-plan').hidden = true;
  $('rollback-applied').hidden = true;
  $('console').hidden = false;
  const [guild, channels, roles, members] = await Promise.all([
    api('GET', `/guilds/${guildId}`),
    api('GET', `/guilds/${guildId}/channels`),
    api('GET', `/guilds/${guildId}/roles`),
    api('GET', `/guilds/${guildId}/members?limit=1000`),
  ]);
  Object.assign(state.guild, { name: guild.name, ownerId: guild.owner_id, channels, roles, members });
  for (const channel of channels) state.names.set(channel.id, `#${channel.name}`);
  for (const role of roles) state.names.set(role.id, role.id === guildId ? '@everyone' : `@${role.name}`);
  learnUsers(members.map((member) => member.user));
  fillActors();
  resetAudit();
  await loadAudit();
  setUpTimeline();
  if (!$('panel-moderation').hidden) await loadModeration();
  $('content').focus();
  say(`Showing ${guild.name}`);
}

/** The actor pickers: the members, and anyone the log names. */
function fillActors() {
  const people = [...new Map(state.guild.members.map((member) => [member.user.id, member.user])).values()];
  for (const id of ['filter-actor', 'rollback-actor']) {
    const picker = $(id);
    const first = picker.options[0];
    const chosen = picker.value;
    picker.replaceChildren(first, ...people.map((user) => el('option', { value: user.id }, `${user.username} (${user.id})`)));
    picker.value = chosen;
  }
}

function addActor(userId) {
  for (const id of ['filter-actor', 'rollback-actor']) {
    const picker = $(id);
    if (![...picker.options].some((option) => option.value === userId)) picker.append(el('option', { value: userId }, `${nameOf(userId)} (${userId})`));
  }
}

// ---- The audit log

function auditFilters() {
  return {
    actor: $('filter-actor').value,
    action: $('filter-action').value,
    target: $('filter-target').value.trim().toLowerCase(),
    from: inputTime($('filter-from')),
    to: inputTime($('filter-to')),
  };
}

/** Whether an entry passes the filters the API does not apply itself (target and the window's start). */
function matches(entry, filters) {
  if (filters.actor && entry.user_id !== filters.actor) return false;
  if (filters.action && String(entry.action_type) !== filters.action) return false;
  if (filters.from !== null && timeOf(entry.id) < filters.from) return false;
  if (filters.to !== null && timeOf(entry.id) >= filters.to) return false;
  if (filters.target) {
    const target = entry.target_id ?? '';
    if (target !== filters.target && !nameOf(target).toLowerCase().includes(filters.target)) return false;
  }
  return true;
}

function resetAudit() {
  state.audit = { entries: [], cursor: null, missed: 0 };
  $('audit-new').hidden = true;
}

/** A page of the log: the newest (cursor null), or the one before or after an entry. */
async function loadAudit(cursor = null) {
  showError('audit-error', null);
  const filters = auditFilters();
  const limit = Number($('filter-limit').value);
  const query = new URLSearchParams({ limit: String(limit) });
  if (filters.actor) query.set('user_id', filters.actor);
  if (filters.action) query.set('action_type', filters.action);
  if (cursor) query.set(cursor.direction, cursor.id);
  else if (filters.to !== null) query.set('before', snowflakeOf(filters.to));
  try {
    const page = await api('GET', `/guilds/${state.guild.id}/audit-logs?${query}`);
    learnUsers(page.users);
    for (const user of page.users ?? []) addActor(user.id);
    const entries = (page.audit_log_entries ?? page.entries).sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    entries.forEach(learnEntry);
    // Newer than the newest page: nothing there, stay where we are.
    if (cursor?.direction === 'after' && entries.length === 0) return say('No newer entries');
    state.audit.entries = entries;
    // A short page of newer entries reaches the newest: the page the gateway's entries join.
    state.audit.cursor = cursor?.direction === 'after' && entries.length < limit ? null : cursor;
    state.audit.full = entries.length === limit;
    renderAudit();
  } catch (error) {
    showError('audit-error', error);
  }
}

function changeText(value) {
  if (value === undefined) return '∅';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function entryRows(entry, fresh) {
  const detailsId = `changes-${entry.id}`;
  const changes = entry.changes ?? [];
  const options = Object.entries(entry.options ?? {});
  const expandable = changes.length > 0 || options.length > 0;
  const details = el(
    'tr',
    { id: detailsId, class: 'details', hidden: true },
    el(
      'td',
      { colspan: 6 },
      el(
        'ul',
        { class: 'changes', 'aria-label': 'Changes' },
        changes.map((change) =>
          el('li', {}, el('strong', {}, change.key), ': ', el('code', {}, changeText(change.old_value)), ' → ', el('code', {}, changeText(change.new_value))),
        ),
        options.map(([key, value]) => el('li', {}, el('strong', {}, key), ': ', el('code', {}, changeText(value)))),
      ),
    ),
  );
  const toggle = expandable
    ? el(
        'button',
        {
          type: 'button',
          class: 'small',
          'aria-expanded': 'false',
          'aria-controls': detailsId,
          onclick: (event) => {
            const open = event.currentTarget.getAttribute('aria-expanded') !== 'true';
            event.currentTarget.setAttribute('aria-expanded', String(open));
            event.currentTarget.textContent = open ? 'Hide changes' : 'Changes';
            details.hidden = !open;
          },
        },
        'Changes',
      )
    : '';
  const row = el(
    'tr',
    { class: fresh ? 'new' : null, 'data-entry': entry.id },
    el('td', { class: 'when' }, el('time', { datetime: new Date(timeOf(entry.id)).toISOString() }, formatTime(timeOf(entry.id)))),
    el('td', { 'data-label': 'Actor' }, nameOf(entry.user_id)),
    el('td', { 'data-label': 'Action' }, ACTIONS[entry.action_type] ?? `Action ${entry.action_type}`),
    el('td', { 'data-label': 'Target' }, nameOf(entry.target_id)),
    el('td', { 'data-label': entry.reason ? 'Reason' : null }, entry.reason ?? ''),
    el('td', {}, toggle),
  );
  return [row, details];
}

function renderAudit() {
  const filters = auditFilters();
  const shown = state.audit.entries.filter((entry) => matches(entry, filters));
  const body = $('audit-table').tBodies[0];
  body.replaceChildren(...shown.flatMap((entry) => entryRows(entry, false)));
  if (shown.length === 0) body.append(el('tr', {}, el('td', { colspan: 6, class: 'muted' }, 'No entries match.')));
  const oldest = state.audit.entries.at(-1);
  const pastWindow = oldest && filters.from !== null && timeOf(oldest.id) < filters.from;
  $('audit-older').disabled = !state.audit.full || pastWindow;
  $('audit-newer').disabled = state.audit.cursor === null;
  $('audit-caption').textContent = `${shown.length} of ${state.audit.entries.length} entries on this page, newest first`;
  say(`${shown.length} audit log entries`);
}

/** An entry the gateway brought: shown at once on the newest page, else counted. */
function entryArrived(entry) {
  learnEntry(entry);
  addActor(entry.user_id);
  if (state.rollback && entry.user_id === state.me.id && BigInt(entry.id) >= state.rollback.since) {
    $('rollback-arrivals').append(el('li', {}, `${ACTIONS[entry.action_type] ?? entry.action_type}: ${nameOf(entry.target_id)}`));
    state.rollback.arrived++;
    $('applied-summary').textContent = `${state.rollback.summary} ${state.rollback.arrived} audit entries arrived.`;
  }
  if (!matches(entry, auditFilters())) return;
  if (state.audit.cursor !== null) {
    state.audit.missed++;
    const button = $('audit-new');
    button.hidden = false;
    button.textContent = `${state.audit.missed} new entries: show the newest`;
    return;
  }
  if (state.audit.entries.some((known) => known.id === entry.id)) return;
  state.audit.entries.unshift(entry);
  const body = $('audit-table').tBodies[0];
  if (body.querySelector('td[colspan]') && state.audit.entries.length === 1) body.replaceChildren();
  body.prepend(...entryRows(entry, true));
  $('audit-caption').textContent = `${state.audit.entries.length} entries, newest first (live)`;
}

// ---- Timeouts, bans, AutoMod

async function loadModeration() {
  showError('moderation-error', null);
  const guildId = state.guild.id;
  try {
    const [members, bans] = await Promise.all([api('GET', `/guilds/${guildId}/members?limit=1000`), api('GET', `/guilds/${guildId}/bans?limit=1000`)]);
    learnUsers(members.map((member) => member.user));
    const now = Date.now();
    const timedOut = members.filter((member) => member.communication_disabled_until && Date.parse(member.communication_disabled_until) > now);
    fillTable(
      'timeouts-table',
      timedOut.map((member) => [
        member.user.username,
        formatTime(member.communication_disabled_until),
        actionButton(`Lift timeout of ${member.user.username}`, 'Lift timeout', async () => {
          await api('PATCH', `/guilds/${guildId}/members/${member.user.id}`, { communication_disabled_until: null });
          say(`Timeout of ${member.user.username} lifted`);
        }),
      ]),
      'No member is in timeout.',
    );
    learnUsers(bans.map((ban) => ban.user));
    fillTable(
      'bans-table',
      bans.map((ban) => [
        ban.user.username,
        ban.reason ?? '',
        actionButton(`Unban ${ban.user.username}`, 'Unban', async () => {
          await api('DELETE', `/guilds/${guildId}/bans/${ban.user.id}`);
          say(`${ban.user.username} unbanned`);
        }),
      ]),
      'No one is banned.',
    );
    const executions = [];
    for (const type of AUTOMOD_ACTIONS) {
      const page = await api('GET', `/guilds/${guildId}/audit-logs?action_type=${type}&limit=25`);
      learnUsers(page.users);
      executions.push(...(page.audit_log_entries ?? page.entries));
    }
    executions.sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
    fillTable(
      'automod-table',
      executions.map((entry) => [
        formatTime(timeOf(entry.id)),
        nameOf(entry.target_id),
        ACTIONS[entry.action_type],
        entry.options?.auto_moderation_rule_name ?? '',
        nameOf(entry.options?.channel_id),
      ]),
      'AutoMod has not acted here.',
    );
  } catch (error) {
    showError('moderation-error', error);
  }
}

/** A button that runs an action, then reloads the panel; its accessible name says whom it acts on. */
function actionButton(label, text, action) {
  return el(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': label,
      onclick: async (event) => {
        event.currentTarget.disabled = true;
        try {
          await action();
        } catch (error) {
          showError('moderation-error', error);
        }
        await loadModeration();
      },
    },
    text,
  );
}

function fillTable(id, rows, empty) {
  const columns = $(id).tHead.rows[0].cells.length;
  const body = $(id).tBodies[0];
  body.replaceChildren(...rows.map((cells) => el('tr', {}, cells.map((cell) => el('td', {}, cell)))));
  if (rows.length === 0) body.append(el('tr', {}, el('td', { colspan: columns, class: 'muted' }, empty)));
}

// ---- Time travel

function setUpTimeline() {
  const slider = $('history-slider');
  // From the guild's creation (its id's time) to now, by the second.
  slider.min = String(Math.floor(timeOf(state.guild.id) / 1000));
  slider.max = String(Math.ceil(Date.now() / 1000));
  slider.value = slider.max;
  showMoment();
  $('history-result').hidden = true;
}

function showMoment() {
  const ms = Number($('history-slider').value) * 1000;
  $('history-moment').textContent = formatTime(ms);
  $('history-at').value = localInput(ms);
  $('history-slider').setAttribute('aria-valuetext', formatTime(ms));
}

async function loadHistory(event) {
  event?.preventDefault();
  showError('history-error', null);
  const ms = inputTime($('history-at')) ?? Number($('history-slider').value) * 1000;
  const at = new Date(ms).toISOString();
  const guildId = state.guild.id;
  try {
    const [then, diff] = await Promise.all([
      api('GET', `/guilds/${guildId}/history?at=${encodeURIComponent(at)}`),
      api('GET', `/guilds/${guildId}/history/diff?from=${encodeURIComponent(at)}`),
    ]);
    learnUsers(then.members.map((member) => member.user));
    diff.entries.forEach(learnEntry);
    learnUsers(then.bans.map((ban) => ban.user));
    const roleNames = new Map(then.roles.map((role) => [role.id, role.id === guildId ? '@everyone' : `@${role.name}`]));
    const list = (id, items) => $(id).replaceChildren(...(items.length ? items : ['—']).map((item) => el('li', {}, item)));
    list(
      'history-channels',
      then.channels.map((channel) => (channel.type === 4 ? el('strong', {}, channel.name) : `#${channel.name}`)),
    );
    list(
      'history-roles',
      then.roles.map((role) => `${roleNames.get(role.id)} · permissions ${role.permissions}`),
    );
    list(
      'history-members',
      then.members.map((member) => {
        const roles = member.roles.map((roleId) => roleNames.get(roleId) ?? roleId).join(', ');
        const muted = member.communication_disabled_until && Date.parse(member.communication_disabled_until) > ms ? ' · in timeout' : '';
        return `${member.user.username ?? member.user.id}${roles ? ` · ${roles}` : ''}${muted}`;
      }),
    );
    list(
      'history-bans',
      then.bans.map((ban) => `${ban.user.username ?? ban.user.id}${ban.reason ? ` · ${ban.reason}` : ''}`),
    );
    $('history-summary').textContent =
      `${formatTime(then.at.time)}: ${then.channels.length} channels, ${then.roles.length} roles, ${then.members.length} members, ${then.bans.length} bans; ${diff.entries.length} changes since.`;
    fillTable(
      'diff-table',
      diff.entries.map((entry) => [formatTime(entry.time), nameOf(entry.user_id), ACTIONS[entry.action_type] ?? String(entry.action_type), nameOf(entry.target_id)]),
      'Nothing changed since.',
    );
    $('history-result').hidden = false;
  } catch (error) {
    showError('history-error', error.status === 404 && !error.body?.code ? new Error('Time travel is not available on this server.') : error);
  }
}

// ---- Rollback

function rollbackRequest(dryRun) {
  const after = inputTime($('rollback-after'));
  const before = inputTime($('rollback-before'));
  return {
    actor_id: $('rollback-actor').value,
    ...(after !== null ? { after: new Date(after).toISOString() } : {}),
    ...(before !== null ? { before: new Date(before).toISOString() } : {}),
    dry_run: dryRun,
  };
}

async function previewRollback(event) {
  event.preventDefault();
  showError('rollback-error', null);
  $('rollback-applied').hidden = true;
  const request = rollbackRequest(true);
  try {
    const plan = await api('POST', `/guilds/${state.guild.id}/rollbacks`, request);
    plannedRequest = { ...request, dry_run: false };
    $('plan-summary').textContent =
      `${plan.actions.length} changes to undo for ${nameOf(plan.actor_id)}, ${formatTime(plan.after)} to ${formatTime(plan.before)}; ${plan.not_undoable.length} that cannot be undone.`;
    $('plan-actions').replaceChildren(...plan.actions.map((action) => el('li', {}, action.description)));
    $('plan-kept').replaceChildren(
      ...(plan.not_undoable.length ? plan.not_undoable.map((kept) => el('li', {}, `${nameOf(kept.target_id)}: ${kept.reason}`)) : [el('li', {}, 'Nothing.')]),
    );
    $('rollback-apply').disabled = plan.actions.length === 0;
    $('rollback-plan').hidden = false;
  } catch (error) {
    showError('rollback-error', error);
  }
}

function confirmRollback() {
  const count = $('plan-actions').children.length;
  $('confirm-text').textContent = `${count} changes by ${nameOf(plannedRequest.actor_id)} will be undone, as your own actions, each with its audit entry.`;
  const dialog = $('confirm');
  dialog.returnValue = '';
  dialog.showModal();
}

async function applyRollback() {
  if ($('confirm').returnValue !== 'apply' || !plannedRequest) return;
  showError('rollback-error', null);
  $('rollback-arrivals').replaceChildren();
  // Entries of this moment on, by the person applying: those the rollback makes.
  state.rollback = { since: BigInt(snowflakeOf(Date.now() - 1000)), arrived: 0, summary: 'Applying…' };
  $('rollback-applied').hidden = false;
  $('applied-summary').textContent = 'Applying…';
  try {
    const result = await api('POST', `/guilds/${state.guild.id}/rollbacks`, plannedRequest);
    const recreated = Object.keys(result.id_map ?? {}).length;
    state.rollback.summary = `${result.actions.length} changes undone${recreated ? `, ${recreated} channels or roles recreated with new ids` : ''}.`;
    $('applied-summary').textContent = `${state.rollback.summary} ${state.rollback.arrived} audit entries arrived.`;
    $('rollback-apply').disabled = true;
    plannedRequest = null;
  } catch (error) {
    showError('rollback-error', error);
  }
}

// ---- The gateway

function connectGateway(attempt = 0) {
  const badge = $('live');
  api('GET', '/gateway').then(({ url }) => {
    if (!state.token) return;
    const socket = new WebSocket(`${url}?v=10&encoding=json`);
    state.socket = socket;
    let sequence = null;
    let heartbeat = null;
    socket.addEventListener('message', (message) => {
      const payload = JSON.parse(message.data);
      if (payload.s) sequence = payload.s;
      if (payload.op === 10) {
        heartbeat = setInterval(() => socket.send(JSON.stringify({ op: 1, d: sequence })), payload.d.heartbeat_interval);
        socket.send(
          JSON.stringify({ op: 2, d: { token: state.token, intents: INTENTS, properties: { os: 'browser', browser: 'Parley console', device: 'Parley console' } } }),
        );
      } else if (payload.op === 0 && payload.t === 'READY') {
        attempt = 0;
        badge.textContent = 'Live';
        badge.classList.add('on');
      } else if (payload.op === 0 && payload.t === 'GUILD_AUDIT_LOG_ENTRY_CREATE' && payload.d.guild_id === state.guild?.id) {
        entryArrived(payload.d);
      }
    });
    socket.addEventListener('close', () => {
      clearInterval(heartbeat);
      badge.textContent = 'Offline';
      badge.classList.remove('on');
      // Signed out, or replaced: nothing to do. Else reconnect, waiting longer after each failure.
      if (state.socket !== socket || !state.token) return;
      setTimeout(() => connectGateway(attempt + 1), Math.min(30000, 1000 * 2 ** attempt));
    });
  });
}

// ---- Wiring

function showPanel(name) {
  for (const button of document.querySelectorAll('[data-panel]')) {
    const current = button.dataset.panel === name;
    if (current) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
    $(`panel-${button.dataset.panel}`).hidden = !current;
  }
  if (name === 'moderation') loadModeration();
}

document.addEventListener('DOMContentLoaded', () => {
  $('filter-action').append(...Object.entries(ACTIONS).map(([value, name]) => el('option', { value }, name)));
  $('signin-form').addEventListener('submit', signIn);
  $('signout').addEventListener('click', () => signOut());
  $('guild').addEventListener('change', chooseGuild);
  for (const button of document.querySelectorAll('[data-panel]')) button.addEventListener('click', () => showPanel(button.dataset.panel));
  $('audit-filters').addEventListener('submit', (event) => {
    event.preventDefault();
    resetAudit();
    loadAudit();
  });
  $('audit-filters').addEventListener('reset', () => setTimeout(() => (resetAudit(), loadAudit())));
  $('audit-older').addEventListener('click', () => loadAudit({ direction: 'before', id: state.audit.entries.at(-1).id }));
  $('audit-newer').addEventListener('click', () => {
    const newest = state.audit.entries[0];
    loadAudit(newest ? { direction: 'after', id: newest.id } : null);
  });
  $('audit-new').addEventListener('click', () => {
    resetAudit();
    loadAudit();
  });
  $('history-slider').addEventListener('input', showMoment);
  $('history-at').addEventListener('change', () => {
    const ms = inputTime($('history-at'));
    if (ms !== null) $('history-slider').value = String(Math.round(ms / 1000));
    $('history-moment').textContent = ms === null ? '' : formatTime(ms);
  });
  $('history-slider').addEventListener('change', () => loadHistory());
  $('history-form').addEventListener('submit', loadHistory);
  $('rollback-form').addEventListener('submit', previewRollback);
  $('rollback-apply').addEventListener('click', confirmRollback);
  $('confirm').addEventListener('close', applyRollback);
  if (state.token) start();
  else $('login').focus();
});
