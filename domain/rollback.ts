// Rolling back what one actor did to a guild in a window of time: a pure plan from the guild's stream (and the actor's
// messages, invites and webhooks that still stand) to the compensating actions, and what cannot be undone. The plan is
// made against the guild as it is now and the compensations already in the log (events naming the event they undo as
// their cause), so that a plan applied once plans nothing more.
import { isDeepStrictEqual } from 'node:util';
import { ChannelType } from './channel.js';
import { guildDecider } from './guild.js';
import { type GuildLogEvent, foldGuildAt } from './guildHistory.js';
import type { ChannelData, GuildSettings, GuildState, MemberData, RoleData } from './guildState.js';

export interface RollbackWindow {
  actorId: string;
  /** ISO 8601, inclusive. */
  after: string;
  /** ISO 8601, inclusive. */
  before: string;
}

/** What the actor made outside the guild's stream that still stands, with when it was made. */
export interface StandingWork {
  messages: { id: string; channelId: string; at: string }[];
  invites: { code: string; at: string }[];
  webhooks: { id: string; at: string }[];
}

interface Compensation<Kind extends string> {
  kind: Kind;
  target_id: string;
  description: string;
  /** The id of the event it undoes, recorded as the compensating event's cause. */
  cause?: string;
}

export type RollbackAction =
  | (Compensation<'recreate_role'> & { role: RoleData })
  | (Compensation<'recreate_channel'> & { channel: ChannelData })
  | (Compensation<'restore_role'> & { fields: Partial<RoleData> })
  | (Compensation<'restore_channel'> & { fields: Partial<ChannelData> })
  | (Compensation<'restore_guild'> & { fields: Partial<GuildSettings> })
  | Compensation<'unban'>
  | (Compensation<'restore_member_roles'> & { roles: string[] })
  | Compensation<'lift_timeout'>
  | (Compensation<'delete_message'> & { channelId: string })
  | Compensation<'delete_channel'>
  | Compensation<'delete_role'>
  | Compensation<'revoke_invite'>
  | Compensation<'delete_webhook'>;

export interface NotUndoable {
  target_id: string;
  reason: string;
}

export interface RollbackPlan {
  actions: RollbackAction[];
  not_undoable: NotUndoable[];
  /** Old id → new id of what earlier rollbacks recreated. */
  idMap: Record<string, string>;
}

/** The order actions are applied in: roles before the channels whose overwrites name them, categories before their children. */
const ORDER: RollbackAction['kind'][] = [
  'recreate_role',
  'restore_role',
  'recreate_channel',
  'restore_channel',
  'restore_guild',
  'unban',
  'restore_member_roles',
  'lift_timeout',
  'delete_message',
  'delete_channel',
  'delete_role',
  'revoke_invite',
  'delete_webhook',
];

/** Settings a rollback does not write back: ownership moves only by its owner, images are files the change let go. */
const UNRESTORED_SETTINGS = ['owner_id', 'icon', 'banner', 'splash', 'discovery_splash'];
/** Settings that name a channel. */
const CHANNEL_SETTINGS = ['afk_channel_id', 'system_channel_id'] as const;
const RESTORED_ROLE_FIELDS = ['name', 'color', 'hoist', 'mentionable', 'permissions', 'position'] as const;

const inWindow = (window: RollbackWindow) => (at: string) => {
  const t = Date.parse(at);
  return t >= Date.parse(window.after) && t <= Date.parse(window.before);
};

/** The fields among `keys` whose value now differs from then, with their values then (absent: null). */
function differing<T extends object>(then: T, now: T, keys: Iterable<string>): Partial<T> {
  const fields: Record<string, unknown> = {};
  for (const key of keys) {
    const [was, is] = [(then as Record<string, unknown>)[key] ?? null, (now as Record<string, unknown>)[key] ?? null];
    if (!isDeepStrictEqual(was, is)) fields[key] = was;
  }
  return fields as Partial<T>;
}

/** The keys a channel event of the actor's touched. */
function channelKeysOf(event: GuildLogEvent['event']): string[] {
  if (event.type === 'ChannelUpdated') return event.data.changes.map((c) => c.key);
  return event.type === 'ChannelOverwriteSet' || event.type === 'ChannelOverwriteDeleted' ? ['permission_overwrites'] : [];
}

/**
 * The guild as the actor's changes found it: as it was when the window opened, and what was made within it (the guild
 * itself, a channel, a role, a member who joined) as it was just before the actor's first change after it was made.
 * Without the latter, a change to what the window's start did not know yet would be neither planned nor listed.
 */
function asFound(log: readonly GuildLogEvent[], window: RollbackWindow, isDone: (e: GuildLogEvent) => boolean): GuildState {
  const start = Date.parse(window.after);
  let state = guildDecider.initialState();
  let found: GuildState | null = null;
  const channels = new Map<string, ChannelData>();
  const roles = new Map<string, RoleData>();
  const members = new Map<string, MemberData>();
  // What is known already keeps its earlier state: the window's start's first, then each entity's first sight.
  const take = (from: GuildState) => {
    for (const [into, entries] of [
      [channels, from.channels],
      [roles, from.roles],
      [members, from.members],
    ] as [Map<string, unknown>, ReadonlyMap<string, unknown>][])
      for (const [id, value] of entries) if (!into.has(id)) into.set(id, value);
  };
  const open = () => {
    found = state;
    take(state);
    return state;
  };
  for (const logged of log) {
    if (found === null && Date.parse(logged.at) >= start) open();
    if (isDone(logged)) {
      take(state);
      // A guild made in the window: its settings as they were before the actor first changed them.
      if (!found!.id && state.id) found = { ...found!, id: state.id, settings: state.settings };
    }
    state = guildDecider.evolve(state, logged.event);
  }
  const atStart: GuildState = found ?? open();
  return { ...atStart, channels, roles, members };
}

export function planRollback(log: readonly GuildLogEvent[], window: RollbackWindow, standing: StandingWork): RollbackPlan {
  const within = inWindow(window);
  const now = foldGuildAt(log).state;
  // Compensations already made, by the event they undo; a recreation's new id is where the old one now lives.
  const compensated = new Set<string>();
  const idMap: Record<string, string> = {};
  const causes = new Map(log.map((e) => [e.id, e]));
  for (const e of log) {
    if (!e.causationId) continue;
    compensated.add(e.causationId);
    const cause = causes.get(e.causationId)?.event;
    if (cause?.type === 'ChannelDeleted' && e.event.type === 'ChannelCreated') idMap[cause.data.channel.id] = e.event.data.channel.id;
    if (cause?.type === 'RoleDeleted' && e.event.type === 'RoleCreated') idMap[cause.data.role.id] = e.event.data.role.id;
  }
  const current = (id: string) => idMap[id] ?? id;
  // The actor's own doings in the window; a rollback's compensations are never the actor's to undo again.
  const isDone = (e: GuildLogEvent) => e.actorId === window.actorId && !e.causationId && within(e.at);
  const done = log.filter(isDone);
  const then = asFound(log, window, isDone);
  // What the actor made in the window and deleted again: nothing to bring back.
  const made = new Set(done.flatMap(({ event: e }) => (e.type === 'ChannelCreated' ? [e.data.channel.id] : e.type === 'RoleCreated' ? [e.data.role.id] : [])));

  const actions: RollbackAction[] = [];
  const notUndoable: NotUndoable[] = [];
  const channelKeys = new Map<string, Set<string>>();
  const roleKeys = new Map<string, Set<string>>();
  const settingKeys = new Set<string>();
  const members = new Set<string>();
  const timedOut = new Set<string>();
  const keysOf = (map: Map<string, Set<string>>, id: string) => map.get(id) ?? map.set(id, new Set()).get(id)!;

  for (const logged of done) {
    const { event } = logged;
    switch (event.type) {
      case 'ChannelCreated':
      case 'RoleCreated': {
        const id = event.type === 'ChannelCreated' ? event.data.channel.id : event.data.role.id;
        const kind = event.type === 'ChannelCreated' ? 'delete_channel' : 'delete_role';
        const entity = event.type === 'ChannelCreated' ? now.channels.get(id) : now.roles.get(id);
        if (entity)
          actions.push({ kind, target_id: id, description: `Delete ${kind === 'delete_channel' ? '#' : '@'}${entity.name}, which the actor created` });
        break;
      }
      case 'ChannelDeleted': {
        const was = then.channels.get(event.data.channel.id);
        if (!was || made.has(was.id)) break;
        if (!compensated.has(logged.id))
          actions.push({
            kind: 'recreate_channel',
            target_id: was.id,
            description: `Recreate #${was.name} with its settings and overwrites`,
            cause: logged.id,
            channel: was,
          });
        // What named it lost it when it went (children their parent, the guild its system or AFK channel): given back.
        for (const child of then.channels.values()) if (child.parent_id === was.id) keysOf(channelKeys, child.id).add('parent_id');
        for (const key of CHANNEL_SETTINGS) if (then.settings[key] === was.id) settingKeys.add(key);
        if (was.type !== ChannelType.GUILD_CATEGORY && was.type !== ChannelType.GUILD_VOICE)
          notUndoable.push({ target_id: was.id, reason: `The messages of #${was.name} were erased with it: the recreated channel starts empty` });
        break;
      }
      case 'RoleDeleted': {
        const was = then.roles.get(event.data.role.id);
        if (!was || made.has(was.id)) break;
        if (was.tags) notUndoable.push({ target_id: was.id, reason: `@${was.name} was a bot's own role: it comes back with the bot` });
        else if (!compensated.has(logged.id))
          actions.push({
            kind: 'recreate_role',
            target_id: was.id,
            description: `Recreate @${was.name} with its permissions and position`,
            cause: logged.id,
            role: was,
          });
        // Its holders and the overwrites naming it lost it with it: given back under its new id.
        for (const member of then.members.values()) if (member.roles.includes(was.id)) members.add(member.user_id);
        for (const channel of then.channels.values())
          if (channel.permission_overwrites.some((o) => o.type === 0 && o.id === was.id)) keysOf(channelKeys, channel.id).add('permission_overwrites');
        break;
      }
      case 'ChannelUpdated':
      case 'ChannelOverwriteSet':
      case 'ChannelOverwriteDeleted':
        for (const key of channelKeysOf(event)) keysOf(channelKeys, event.data.channelId).add(key);
        break;
      case 'RoleUpdated':
        for (const change of event.data.changes) keysOf(roleKeys, event.data.roleId).add(change.key);
        break;
      case 'GuildUpdated':
        for (const change of event.data.changes) settingKeys.add(change.key);
        break;
      case 'MemberBanned':
        if (now.bans.has(event.data.userId)) actions.push({ kind: 'unban', target_id: event.data.userId, description: `Unban user ${event.data.userId}` });
        members.add(event.data.userId);
        if (event.data.deleteMessageSeconds > 0)
          notUndoable.push({ target_id: event.data.userId, reason: 'Their recent messages were deleted with the ban: their text is erased' });
        break;
      case 'MemberKicked':
        members.add(event.data.userId);
        break;
      case 'MemberUpdated':
        members.add(event.data.userId);
        if (event.data.changes.some((c) => c.key === 'communication_disabled_until' && c.new_value)) timedOut.add(event.data.userId);
        break;
      case 'MembersPruned':
        for (const userId of event.data.userIds) members.add(userId);
        break;
      case 'VanityCodeSet':
        notUndoable.push({ target_id: event.data.guildId, reason: 'The vanity URL is claimed across guilds: set it again by hand' });
        break;
      case 'AutoModerationRuleCreated':
      case 'AutoModerationRuleUpdated':
      case 'AutoModerationRuleDeleted': {
        const ruleId = event.type === 'AutoModerationRuleUpdated' ? event.data.ruleId : event.data.rule.id;
        notUndoable.push({ target_id: ruleId, reason: 'Auto-moderation rules are not rolled back: review them in the audit log' });
        break;
      }
      default:
        break;
    }
  }

  // Ids as they are now, or will be once this plan recreated what it recreates; what names nothing that will be is left out.
  const recreated = new Set(actions.flatMap((a) => (a.kind === 'recreate_role' || a.kind === 'recreate_channel' ? [a.target_id] : [])));
  const willExist = (id: string) => now.roles.has(current(id)) || now.channels.has(current(id)) || recreated.has(id);
  const asNow = (channel: ChannelData): ChannelData => ({
    ...channel,
    parent_id: channel.parent_id && willExist(channel.parent_id) ? current(channel.parent_id) : null,
    permission_overwrites: channel.permission_overwrites
      .filter((o) => (o.type === 0 ? willExist(o.id) : now.members.has(o.id)))
      .map((o) => (o.type === 0 ? { ...o, id: current(o.id) } : o)),
  });
  for (const [channelId, keys] of channelKeys) {
    const [was, is] = [then.channels.get(channelId), now.channels.get(channelId)];
    if (!was || !is || made.has(channelId)) continue; // created by the actor (deleted above) or deleted since (recreated as it was)
    const fields = differing(asNow(was), is, keys);
    if (Object.keys(fields).length)
      actions.push({ kind: 'restore_channel', target_id: channelId, description: `Restore #${was.name}: ${Object.keys(fields).join(', ')}`, fields });
  }
  for (const [roleId, keys] of roleKeys) {
    const [was, is] = [then.roles.get(roleId), now.roles.get(roleId)];
    if (!was || !is || made.has(roleId)) continue;
    const fields = differing(
      was,
      is,
      RESTORED_ROLE_FIELDS.filter((key) => keys.has(key)),
    );
    if (Object.keys(fields).length)
      actions.push({ kind: 'restore_role', target_id: roleId, description: `Restore @${was.name}: ${Object.keys(fields).join(', ')}`, fields });
  }
  const settingsThen = { ...then.settings };
  for (const key of CHANNEL_SETTINGS) {
    const channelId = settingsThen[key];
    if (channelId) settingsThen[key] = willExist(channelId) ? current(channelId) : null;
  }
  const settings = differing(
    settingsThen,
    now.settings,
    [...settingKeys].filter((key) => !UNRESTORED_SETTINGS.includes(key)),
  );
  if (Object.keys(settings).length)
    actions.push({ kind: 'restore_guild', target_id: then.id, description: `Restore the guild's ${Object.keys(settings).join(', ')}`, fields: settings });
  for (const key of settingKeys)
    if (UNRESTORED_SETTINGS.includes(key) && !isDeepStrictEqual(then.settings[key as keyof GuildSettings], now.settings[key as keyof GuildSettings]))
      notUndoable.push({
        target_id: then.id,
        reason: `The guild's ${key} is not restored: ${key === 'owner_id' ? 'only the owner hands ownership on' : 'the replaced image is gone'}`,
      });

  planMembers(log, window, then, now, { members, timedOut, current, willExist }, actions, notUndoable);

  for (const m of standing.messages.filter((m) => within(m.at)))
    actions.push({ kind: 'delete_message', target_id: m.id, channelId: m.channelId, description: `Delete the actor's message ${m.id}` });
  for (const i of standing.invites.filter((i) => within(i.at)))
    actions.push({ kind: 'revoke_invite', target_id: i.code, description: `Revoke invite ${i.code}` });
  for (const w of standing.webhooks.filter((w) => within(w.at)))
    actions.push({ kind: 'delete_webhook', target_id: w.id, description: `Delete webhook ${w.id}` });

  actions.sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || categoriesFirst(a) - categoriesFirst(b));
  return { actions, not_undoable: notUndoable, idMap };
}

const categoriesFirst = (action: RollbackAction) => (action.kind === 'recreate_channel' && action.channel.type === ChannelType.GUILD_CATEGORY ? 0 : 1);

/**
 * Members the actor removed, stripped of roles or timed out: their roles as they were before the window (ids of
 * recreated roles mapped), where they are members again; who is gone says why.
 */
function planMembers(
  log: readonly GuildLogEvent[],
  window: RollbackWindow,
  then: GuildState,
  now: GuildState,
  touched: { members: Set<string>; timedOut: Set<string>; current: (id: string) => string; willExist: (roleId: string) => boolean },
  actions: RollbackAction[],
  notUndoable: NotUndoable[],
) {
  const within = inWindow(window);
  const leftByThemselves = new Set(
    log.filter((e) => e.event.type === 'MemberLeft' && e.actorId === e.event.data.userId && within(e.at)).map((e) => e.actorId!),
  );
  for (const userId of leftByThemselves)
    if (userId !== window.actorId) notUndoable.push({ target_id: userId, reason: 'Left the guild by themselves: only they can join again' });
  for (const userId of touched.members) {
    const [was, is] = [then.members.get(userId), now.members.get(userId)];
    if (!was || userId === window.actorId) continue;
    if (!is) {
      if (!leftByThemselves.has(userId))
        notUndoable.push({ target_id: userId, reason: 'Removed from the guild: their roles come back if they join again and the rollback is applied again' });
      continue;
    }
    // The roles they had (where recreated, under their new ids), less those deleted since by others; a bot's own role stays as it is.
    const managed = (id: string) => now.roles.get(id)?.tags !== undefined;
    const wanted = was.roles.filter((id) => touched.willExist(id) && !managed(touched.current(id)));
    const target = new Set([...wanted.map(touched.current), ...is.roles.filter(managed)]);
    if (target.size !== is.roles.length || !is.roles.every((id) => target.has(id)))
      actions.push({ kind: 'restore_member_roles', target_id: userId, roles: wanted, description: `Give member ${userId} back the roles they had before` });
  }
  for (const userId of touched.timedOut) {
    const until = now.members.get(userId)?.communication_disabled_until;
    if (until && Date.parse(until) > Date.parse(window.before))
      actions.push({ kind: 'lift_timeout', target_id: userId, description: `Lift the timeout of member ${userId}` });
  }
}
