// Which fields of which events are personal data, whose they are, and which events erase whom: the rules the log's
// sealing (infra/eventStore/sealing.ts) and the key shredder (processes/keyShredding.ts) follow. A field that a
// person wrote or that identifies a person is sealed with a key of its subject; ids, times, types and permission
// numbers stay in clear so the log stays readable for ordering and auditing. Subjects are named by ids only:
// `message:ID` (one key per version: an edit's key replaces the last, and the attachments it drops are sealed under a
// key of their own that the edit destroys with the replaced version's), `user:ID` (one key for a profile and what
// shows it elsewhere), `channel:ID` and `guild:ID` (whose deletion takes their messages' keys with them, and the names
// their members gave a thread, a forum post or a group DM: what a person wrote in a place goes with the place; a
// group DM ends when its last participant leaves, a DM when both participants' accounts are deleted).
//
// A guild's own furniture stays in clear: the names and topics of its channels, forum tags, roles, emojis, stickers,
// webhooks, invites, commands and rules, and the guild's name, are set by those who run it, in its name, shown to
// everyone who joins, and kept in its audit log after a deletion, as on the widely used API. They are the guild's, not
// a person's words, and no erasure of a person would take them. A thread's or post's name is different: any member may
// start one and its owner names it, a post's title is its author's first words, and a group DM's name is chosen by
// its participants.

import type { EventData, ParleyEventType } from './events.js';
import type { Attachment, MessageFields } from './message.js';
import type { ThreadData } from './thread.js';
import { endsDm } from './dmChannel.js';
import { endsGroupDm } from './groupDm.js';

/** A path into an event: 'data' or 'metadata', then keys and array indexes. */
export type FieldPath = readonly (string | number)[];

export interface SealGroup {
  /** Whose data this is: the first subject owns the key; the key is destroyed with any of them. */
  subjects: string[];
  /** A new key for this event (a message's version), never reused for the next one. */
  fresh: boolean;
  /** Sealed apart from the event's other fields of its subjects, under a fresh key the event's own erasure destroys. */
  replaced?: boolean;
  paths: FieldPath[];
}

export interface Erasure {
  subject: string;
  /**
   * Keep the key that seals this field of the event itself (an edit's new version); the subject's other keys go, the
   * event's own `replaced` group's among them.
   */
  keepKeyOf?: FieldPath;
}

/** What a user snapshot (an author, a mention, a recipient, a clicker) may show of its user: the rules seal these. */
interface UserSnapshot {
  id: string;
  username?: string;
  global_name?: string | null;
  avatar?: string | null;
  avatar_url?: string;
}
/** A change of a profile or a member, as its event lists it: the values are the person's. */
interface ChangedValue {
  key: string;
  old_value?: unknown;
  new_value?: unknown;
}

const USER_FIELDS = ['username', 'global_name', 'avatar', 'avatar_url'] as const;
const MESSAGE_TEXT = ['content', 'embeds', 'components'] as const;
const ATTACHMENT_TEXT = ['filename', 'description'] as const;
const EXECUTION_TEXT = ['content', 'matchedKeyword', 'matchedContent'] as const;
const CHANGED_VALUES = ['old_value', 'new_value'] as const;
const REGISTRATION_TEXT = ['username', 'email'] as const;
const USERNAME = ['username'] as const;
const REDIRECT_URI = ['redirectUri'] as const;
const SELECTED_VALUES = ['values'] as const;
/** The changes of a member that show the person (a guild nickname, avatar, banner); roles, mutes and timeouts don't. */
const MEMBER_PROFILE = ['nick', 'avatar', 'banner'] as const;
const NAME = ['name'] as const;

type Present<V> = Exclude<V, null | undefined>;
/** What a place's children are named by: an array's indexes, an object's fields. */
type KeyOf<V> = Present<V> extends readonly unknown[] ? number : keyof Present<V> & string;
type ValueAt<V, K> = Present<V> extends readonly (infer E)[] ? E : K extends keyof Present<V> ? Present<V>[K] : never;

/**
 * A place in an event, holding a value of type V, made once: its children and the paths of a field list under it are
 * kept, so a send's event finds its paths by a few map lookups instead of building arrays and names each time (sealing
 * runs on every send). V names the keys a rule may follow from it, so a field the event's type lacks does not compile.
 */
class Place<V> {
  private readonly children = new Map<string | number, Place<unknown>>();
  private readonly lists = new Map<readonly string[], FieldPath[]>();

  constructor(readonly path: FieldPath) {}

  at<K extends KeyOf<V>>(key: K): Place<ValueAt<V, K>> {
    const name: string | number = key;
    let child = this.children.get(name);
    if (!child) {
      child = new Place([...this.path, name]);
      // Array indexes are the only keys not written in this file: a long list's far elements are not kept.
      if (typeof name === 'string' || name < 1_000) this.children.set(name, child);
    }
    // The same place serves every event type: what it holds is the type of the rule that follows it.
    return child as Place<ValueAt<V, K>>;
  }

  /** `fields` must be one of this file's constant lists: they are told apart by identity. */
  paths(fields: readonly (keyof Present<V> & string)[]): FieldPath[] {
    let paths = this.lists.get(fields);
    if (!paths) {
      paths = fields.map((field) => [...this.path, field]);
      this.lists.set(fields, paths);
    }
    return paths;
  }
}

const DATA = new Place<{ data: unknown }>([]).at('data');

/** Collects paths by subject set, so each key seals one envelope of an event. */
class Groups {
  /** Few (an event has one to three): found by comparing subjects, with no map or joined names to build per event. */
  private readonly groups: SealGroup[] = [];

  add(subjects: string[], fresh: boolean, paths: FieldPath[], source: unknown, replaced = false): this {
    const present = paths.filter((path) => valueAt(source, path) !== undefined);
    if (present.length === 0) return this;
    const group = this.groups.find((known) => known.fresh === fresh && (known.replaced ?? false) === replaced && sameSubjects(known.subjects, subjects));
    if (group) group.paths.push(...present);
    else this.groups.push(replaced ? { subjects, fresh, replaced, paths: present } : { subjects, fresh, paths: present });
    return this;
  }

  /** A snapshot of a user (author, mention, recipient): their names and avatar under their profile key. */
  user(event: unknown, at: Place<UserSnapshot | undefined>, snapshot: UserSnapshot | undefined): this {
    if (!snapshot?.id) return this;
    return this.add([`user:${snapshot.id}`], false, at.paths(USER_FIELDS), event);
  }

  users(event: unknown, at: Place<readonly UserSnapshot[] | undefined>, snapshots: readonly UserSnapshot[] | undefined): this {
    (snapshots ?? []).forEach((snapshot, i) => this.user(event, at.at(i), snapshot));
    return this;
  }

  attachments(
    event: unknown,
    at: Place<readonly Attachment[] | undefined>,
    subjects: string[],
    attachments: readonly Attachment[] | undefined,
    replaced = false,
  ): this {
    (attachments ?? []).forEach((_, i) => this.add(subjects, true, at.at(i).paths(ATTACHMENT_TEXT), event, replaced));
    return this;
  }

  /** A message object: what its author wrote under the message's key, the people it shows under theirs. */
  message(event: unknown, at: Place<MessageFields | null | undefined>, subjects: string[], message: MessageFields | null | undefined): this {
    if (!message) return this;
    this.add(subjects, true, at.paths(MESSAGE_TEXT), event).attachments(event, at.at('attachments'), subjects, message.attachments);
    // A webhook's name and avatar are chosen per message: they are the message's, not a person's profile.
    if (message.webhook_id) this.add(subjects, true, at.at('author').paths(USER_FIELDS), event);
    else this.user(event, at.at('author'), message.author);
    if (message.mentions?.length) this.users(event, at.at('mentions'), message.mentions);
    if (message.interaction_metadata?.user) this.user(event, at.at('interaction_metadata').at('user'), message.interaction_metadata.user);
    if (message.interaction?.user) this.user(event, at.at('interaction').at('user'), message.interaction.user);
    return this;
  }

  /** A message shown where it was not sent (an interaction's): sealed under its own ids, as where it was sent. */
  shownMessage(event: unknown, at: Place<MessageFields | null | undefined>, message: MessageFields | null | undefined): this {
    return message ? this.message(event, at, messageSubjects(message.id, message.channel_id, message.guild_id), message) : this;
  }

  /** Fields of the event's subject user. */
  userFields<D extends { userId: string }>(event: { data: D }, at: Place<D>, fields: readonly (keyof D & string)[]): this {
    return this.add([`user:${event.data.userId}`], false, at.paths(fields), event);
  }

  /** The old and new values of the changes listed at `at` (of the keys in `keys`, if given), under a key of `subjects`. */
  changedValues(
    event: unknown,
    at: Place<readonly ChangedValue[] | undefined>,
    changes: readonly ChangedValue[] | undefined,
    subjects: string[],
    fresh: boolean,
    keys?: readonly string[],
  ): this {
    const paths = (changes ?? []).flatMap((change, i) => (!keys || keys.includes(change.key) ? at.at(i).paths(CHANGED_VALUES) : []));
    return this.add(subjects, fresh, paths, event);
  }

  /**
   * The name a person gave a place (a thread, a post, a group DM), when it has one: under a fresh key of the place's
   * subjects, never a reused one, so that each name goes with exactly the erasures of its own event's subjects.
   */
  placeName(event: unknown, at: Place<{ name?: string | null }>, subjects: string[], name: string | null | undefined): this {
    return typeof name === 'string' ? this.add(subjects, true, at.paths(NAME), event) : this;
  }

  list(): SealGroup[] {
    return this.groups;
  }
}

function sameSubjects(a: readonly string[], b: readonly string[]): boolean {
  return a === b || (a.length === b.length && a.every((subject, i) => subject === b[i]));
}

function messageSubjects(messageId: string, channelId: string, guildId: string | null | undefined): string[] {
  return [`message:${messageId}`, `channel:${channelId}`, ...(guildId ? [`guild:${guildId}`] : [])];
}

const messageEventIds = (data: { messageId: string; channelId: string; guildId: string | null }) =>
  messageSubjects(data.messageId, data.channelId, data.guildId);

/** A thread's or post's: its channel's and its guild's, whose deletion erases the guild rather than each of its channels. */
const threadSubjects = (threadId: string, guildId: string) => [`channel:${threadId}`, `guild:${guildId}`];
/** A group DM's: its channel's (a DM channel is in no guild). */
const groupDmSubjects = (channelId: string) => [`channel:${channelId}`];
/** A thread's or post's name, as its creation and its deletion carry it (the deletion's reads as erased once done). */
const threadName: Exclude<PersonalDataRule<{ guildId: string; thread: ThreadData }>['seals'], 'none'> = (event, at) =>
  new Groups().placeName(event, at.at('thread'), threadSubjects(event.data.thread.id, event.data.guildId), event.data.thread.name);

/** Where an edit's new version is: the key sealing it is the one the edit keeps of its message's. */
const EDITED_VERSION: FieldPath = ['data', 'message'];
const NO_ERASURES: readonly Erasure[] = Object.freeze([]);

/**
 * One event type's rule: `seals` groups the personal fields of an event of that type by the key that seals them (`at`
 * is the place of its data), or is 'none' when it carries none; `erases` names the subjects whose keys it destroys.
 */
export interface PersonalDataRule<D> {
  seals: ((event: { data: D }, at: Place<D>) => Groups) | 'none';
  erases?: (data: D) => Erasure[];
}

/** A rule for every event type the log holds: 'none' says it carries no personal data and erases no one. */
export type PersonalDataRules = { [T in ParleyEventType]: PersonalDataRule<EventData<T>> | 'none' };

export const PERSONAL_DATA: PersonalDataRules = {
  ApplicationCreated: 'none',
  ApplicationBotCreated: 'none',
  ApplicationUpdated: 'none',
  ApplicationSecretReset: 'none',
  ApplicationKeyCreated: 'none',
  ApplicationCommandCreated: 'none',
  ApplicationCommandUpdated: 'none',
  ApplicationCommandDeleted: 'none',
  // What the author wrote and what a rule matched in it: like a message's content, a fresh key per execution,
  // destroyed with the author's account or the guild.
  AutoModerationActionExecuted: {
    seals: (event, at) => {
      const { execution } = event.data;
      return new Groups().add([`user:${execution.userId}`, `guild:${execution.guildId}`], true, at.at('execution').paths(EXECUTION_TEXT), event);
    },
  },
  CallRung: 'none',
  CallRingingStopped: 'none',
  CallRegionChanged: 'none',
  CallJoined: 'none',
  CallSelfStateChanged: 'none',
  CallLeft: 'none',
  InteractionCreated: {
    seals: (event, at) => {
      const { interaction } = event.data;
      const place = at.at('interaction');
      // What the user typed or chose: options (an autocomplete's partial text too), select values, a modal's values.
      const typed = [place.at('command').at('options').path, place.at('component').at('values').path, place.at('modal').at('components').path];
      // The message a component was used on (or that showed a submitted modal), or a message command's target, as it
      // was: its author's words.
      return new Groups()
        .add([`user:${interaction.userId}`], false, typed, event)
        .shownMessage(event, place.at('component').at('message'), interaction.component?.message)
        .shownMessage(event, place.at('modal').at('message'), interaction.modal?.message)
        .shownMessage(event, place.at('command').at('targetMessage'), interaction.command?.targetMessage);
    },
  },
  InteractionResponded: 'none',
  InteractionFailed: 'none',
  ModalSubmitted: 'none',
  DmChannelOpened: {
    seals: (event, at) =>
      new Groups().users(event, at.at('recipients'), event.data.recipients).placeName(event, at, groupDmSubjects(event.data.channelId), event.data.name),
  },
  DmChannelClosed: 'none',
  DmChannelReopened: { seals: (event, at) => new Groups().users(event, at.at('recipients'), event.data.recipients) },
  // Both participants' accounts deleted, no one can reach the DM again: its messages go with it.
  DmRecipientLeft: { seals: 'none', erases: (data) => (endsDm(data) ? [{ subject: `channel:${data.channelId}` }] : []) },
  EmailClaimed: 'none',
  EmailReleased: 'none',
  GatewaySessionStarted: 'none',
  RecipientAdded: {
    seals: (event, at) =>
      new Groups()
        .user(event, at.at('user'), event.data.user)
        .users(event, at.at('recipients'), event.data.recipients)
        .placeName(event, at, groupDmSubjects(event.data.channelId), event.data.name),
  },
  // The last participant gone (no owner left), no one can reach the group DM again: its name and messages go with it.
  RecipientRemoved: {
    seals: (event, at) => new Groups().user(event, at.at('user'), event.data.user),
    erases: (data) => (endsGroupDm(data) ? [{ subject: `channel:${data.channelId}` }] : []),
  },
  GroupDmRenamed: { seals: (event, at) => new Groups().placeName(event, at, groupDmSubjects(event.data.channelId), event.data.name) },
  GuildCreated: 'none',
  GuildUpdated: 'none',
  GuildDeleted: { seals: 'none', erases: (data) => [{ subject: `guild:${data.guildId}` }] },
  VanityCodeSet: 'none',
  RoleCreated: 'none',
  RoleUpdated: 'none',
  RoleDeleted: 'none',
  MemberJoined: 'none',
  MemberUpdated: {
    seals: (event, at) => new Groups().changedValues(event, at.at('changes'), event.data.changes, [`user:${event.data.userId}`], false, MEMBER_PROFILE),
  },
  MemberLeft: 'none',
  MemberKicked: 'none',
  MemberBanned: 'none',
  MemberUnbanned: 'none',
  MembersPruned: 'none',
  ChannelCreated: 'none',
  ChannelUpdated: 'none',
  ChannelDeleted: { seals: 'none', erases: (data) => [{ subject: `channel:${data.channel.id}` }] },
  ChannelOverwriteSet: 'none',
  ChannelOverwriteDeleted: 'none',
  AutoModerationRuleCreated: 'none',
  AutoModerationRuleUpdated: 'none',
  AutoModerationRuleDeleted: 'none',
  EmojiCreated: 'none',
  EmojiUpdated: 'none',
  EmojiDeleted: 'none',
  StickerCreated: 'none',
  StickerUpdated: 'none',
  StickerDeleted: 'none',
  InteractionClicked: {
    seals: (event, at) => {
      const { user } = event.data.interaction;
      const place = at.at('interaction');
      const groups = new Groups().user(event, place.at('user'), user);
      return user?.id ? groups.add([`user:${user.id}`], false, place.at('data').paths(SELECTED_VALUES), event) : groups;
    },
  },
  InteractionDeliveryAttempted: 'none',
  InteractionDelivered: 'none',
  InteractionDeliveryFailed: 'none',
  InteractionDeliveryDropped: 'none',
  InviteCreated: 'none',
  InviteAccepted: 'none',
  InviteDeleted: 'none',
  MessageCreated: { seals: (event, at) => new Groups().message(event, at.at('message'), messageEventIds(event.data), event.data.message) },
  MessageEdited: {
    seals: (event, at) => {
      const subjects = messageEventIds(event.data);
      const changes = event.data.changes ?? {};
      return (
        new Groups()
          .message(event, at.at('message'), subjects, event.data.message)
          .add(subjects, true, at.at('changes').paths(MESSAGE_TEXT), event)
          .attachments(event, at.at('changes').at('attachments'), subjects, changes.attachments)
          .users(event, at.at('changes').at('mentions'), changes.mentions)
          // What the edit drops belongs to the version it replaces: it goes with that version's key, not the live one.
          .attachments(event, at.at('removedAttachments'), subjects, event.data.removedAttachments, true)
      );
    },
    erases: (data) => [{ subject: `message:${data.messageId}`, keepKeyOf: EDITED_VERSION }],
  },
  MessageDeleted: {
    seals: (event, at) => new Groups().attachments(event, at.at('attachments'), messageEventIds(event.data), event.data.attachments),
    erases: (data) => [{ subject: `message:${data.messageId}` }],
  },
  ReactionAdded: 'none',
  ReactionRemoved: 'none',
  ReactionsCleared: 'none',
  MessagesBulkDeleted: 'none',
  MessageNonceClaimed: 'none',
  OAuth2CodeIssued: { seals: (event, at) => new Groups().userFields(event, at, REDIRECT_URI) },
  OAuth2TokensIssued: 'none',
  OAuth2TokensRefreshed: 'none',
  OAuth2GrantRevoked: 'none',
  MessagePinned: 'none',
  MessageUnpinned: 'none',
  SlowmodeSendAdmitted: 'none',
  SlowmodeThreadAdmitted: 'none',
  ThreadCreated: { seals: threadName },
  // A rename's old and new names: the thread's, as its first.
  ThreadUpdated: {
    seals: (event, at) =>
      new Groups().changedValues(event, at.at('changes'), event.data.changes, threadSubjects(event.data.threadId, event.data.guildId), true, NAME),
  },
  ThreadArchived: 'none',
  // A thread's messages and names are sealed under its own channel id: they go with it, the name this event carries too.
  ThreadDeleted: { seals: threadName, erases: (data) => [{ subject: `channel:${data.thread.id}` }] },
  ThreadMemberAdded: 'none',
  ThreadMemberRemoved: 'none',
  UserRegistered: { seals: (event, at) => new Groups().userFields(event, at, REGISTRATION_TEXT) },
  UserProfileUpdated: { seals: (event, at) => new Groups().changedValues(event, at.at('changes'), event.data.changes, [`user:${event.data.userId}`], false) },
  SessionStarted: 'none',
  BotTokenIssued: 'none',
  UserErased: { seals: 'none', erases: (data) => [{ subject: `user:${data.userId}` }] },
  DiscriminatorClaimed: { seals: (event, at) => new Groups().userFields(event, at, USERNAME) },
  DiscriminatorReleased: { seals: (event, at) => new Groups().userFields(event, at, USERNAME) },
  VanityCodeClaimed: 'none',
  VanityCodeReleased: 'none',
  VoiceChannelJoined: 'none',
  VoiceChannelMoved: 'none',
  VoiceSelfStateChanged: 'none',
  VoiceChannelLeft: 'none',
  WebhookCreated: 'none',
  WebhookUpdated: 'none',
  WebhookDeleted: 'none',
};

/**
 * The rules by the type an event names: each is only ever handed events of its own type (the log's events are those
 * its deciders produced), whose data is the type its rule reads.
 */
const RULES_BY_NAME = PERSONAL_DATA as Partial<Record<string, PersonalDataRule<unknown> | 'none'>>;

/** The personal fields of an event, grouped by the key that seals them; the audit-log reason is its writer's. */
export function personalFields(event: { type: string; data: unknown; metadata: { actorId: string | null; reason?: string | null } }): SealGroup[] {
  const rule = RULES_BY_NAME[event.type];
  const groups = rule === undefined || rule === 'none' || rule.seals === 'none' ? new Groups() : rule.seals(event, DATA);
  if (event.metadata.reason && event.metadata.actorId) groups.add([`user:${event.metadata.actorId}`], false, [['metadata', 'reason']], event);
  return groups.list();
}

/** The subjects an event erases: their keys are destroyed once the shredder follows it. */
export function erasures(event: { type: string; data: unknown }): readonly Erasure[] {
  const rule = RULES_BY_NAME[event.type];
  return rule === undefined || rule === 'none' || rule.erases === undefined ? NO_ERASURES : rule.erases(event.data);
}

/** What an erased field reads as, so that code folding old events meets the shapes it expects. */
export function erasedValue(path: FieldPath): unknown {
  switch (path[path.length - 1]) {
    case 'content':
      return '';
    case 'embeds':
    case 'components':
    case 'options':
      return [];
    case 'username':
      return 'Deleted User';
    default:
      return null;
  }
}

export function valueAt(source: unknown, path: FieldPath): unknown {
  let value = source;
  // By index: the log freezes the events it keeps, and with them the paths their envelopes share with this file, and
  // V8 iterates a frozen array with for…of through an iterator object per step.
  for (let i = 0; i < path.length; i++) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string | number, unknown>)[path[i]];
  }
  return value;
}
