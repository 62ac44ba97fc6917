// Which fields of which events are personal data, whose they are, and which events erase whom: the rules the log's
// sealing (infra/eventStore/sealing.ts) and the key shredder (processes/keyShredding.ts) follow. A field that a
// person wrote or that identifies a person is sealed with a key of its subject; ids, times, types and permission
// numbers stay in clear so the log stays readable for ordering and auditing. Subjects are named by ids only:
// `message:ID` (one key per version: an edit's key replaces the last, and the attachments it drops are sealed under a
// key of their own that the edit destroys with the replaced version's), `user:ID` (one key for a profile and what
// shows it elsewhere), `channel:ID` and `guild:ID` (whose deletion takes their messages' keys with them).

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

// The fields the rules look at; the events' own types live with their deciders.
type Json = Record<string, unknown>;
interface UserSnapshot {
  id: string;
}
interface MessageShape {
  id: string;
  webhook_id?: string | null;
  author?: UserSnapshot;
  attachments?: unknown[];
  mentions?: UserSnapshot[];
  interaction_metadata?: { user?: UserSnapshot };
  interaction?: { user?: UserSnapshot };
}

const USER_FIELDS = ['username', 'global_name', 'avatar', 'avatar_url'] as const;
const MESSAGE_TEXT = ['content', 'embeds', 'components'] as const;
const ATTACHMENT_TEXT = ['filename', 'description'] as const;
const EXECUTION_TEXT = ['content', 'matchedKeyword', 'matchedContent'] as const;

/**
 * A place in an event, made once: its children and the paths of a field list under it are kept, so a send's event
 * finds its paths by a few map lookups instead of building arrays and names each time (sealing runs on every send).
 */
class Place {
  private readonly children = new Map<string | number, Place>();
  private readonly lists = new Map<readonly string[], FieldPath[]>();

  constructor(readonly path: FieldPath) {}

  at(key: string | number): Place {
    let child = this.children.get(key);
    if (!child) {
      child = new Place([...this.path, key]);
      // Array indexes are the only keys not written in this file: a long list's far elements are not kept.
      if (typeof key === 'string' || key < 1_000) this.children.set(key, child);
    }
    return child;
  }

  /** `fields` must be one of this file's constant lists: they are told apart by identity. */
  paths(fields: readonly string[]): FieldPath[] {
    let paths = this.lists.get(fields);
    if (!paths) {
      paths = fields.map((field) => [...this.path, field]);
      this.lists.set(fields, paths);
    }
    return paths;
  }
}

const ROOT = new Place([]);
const DATA = ROOT.at('data');

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
  user(event: unknown, at: Place, snapshot: UserSnapshot | undefined): this {
    if (!snapshot?.id) return this;
    return this.add([`user:${snapshot.id}`], false, at.paths(USER_FIELDS), event);
  }

  users(event: unknown, at: Place, snapshots: UserSnapshot[] | undefined): this {
    (snapshots ?? []).forEach((snapshot, i) => this.user(event, at.at(i), snapshot));
    return this;
  }

  attachments(event: unknown, at: Place, subjects: string[], attachments: unknown[] | undefined, replaced = false): this {
    (attachments ?? []).forEach((_, i) => this.add(subjects, true, at.at(i).paths(ATTACHMENT_TEXT), event, replaced));
    return this;
  }

  /** A message object: what its author wrote under the message's key, the people it shows under theirs. */
  message(event: unknown, at: Place, subjects: string[], message: MessageShape | undefined): this {
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

type Rule = (event: { data: Json }) => Groups;

const messageEventIds = (data: Json) => messageSubjects(String(data.messageId), String(data.channelId), data.guildId as string | null);
const userKey =
  (data: Json, fields: string[]): Rule =>
  (event) =>
    new Groups().add(
      [`user:${String(data.userId)}`],
      false,
      fields.map((f) => ['data', f]),
      event,
    );
const changeValues = (event: { data: Json }, subject: string, keys?: readonly string[]) => {
  const changes = (event.data.changes as { key: string }[] | undefined) ?? [];
  const paths = changes.flatMap((change, i) =>
    !keys || keys.includes(change.key)
      ? [
          ['data', 'changes', i, 'old_value'],
          ['data', 'changes', i, 'new_value'],
        ]
      : [],
  );
  return new Groups().add([subject], false, paths, event);
};

/** By event type, the groups of its personal fields. */
const RULES: Record<string, Rule> = {
  MessageCreated: (event) => new Groups().message(event, DATA.at('message'), messageEventIds(event.data), event.data.message as MessageShape),
  MessageEdited: (event) => {
    const subjects = messageEventIds(event.data);
    const changes = (event.data.changes ?? {}) as Json & { mentions?: UserSnapshot[]; attachments?: unknown[] };
    return (
      new Groups()
        .message(event, DATA.at('message'), subjects, event.data.message as MessageShape)
        .add(subjects, true, DATA.at('changes').paths(MESSAGE_TEXT), event)
        .attachments(event, DATA.at('changes').at('attachments'), subjects, changes.attachments)
        .users(event, DATA.at('changes').at('mentions'), changes.mentions)
        // What the edit drops belongs to the version it replaces: it goes with that version's key, not the live one.
        .attachments(event, DATA.at('removedAttachments'), subjects, event.data.removedAttachments as unknown[], true)
    );
  },
  MessageDeleted: (event) => new Groups().attachments(event, DATA.at('attachments'), messageEventIds(event.data), event.data.attachments as unknown[]),
  UserRegistered: (event) => userKey(event.data, ['username', 'email'])(event),
  UserProfileUpdated: (event) => changeValues(event, `user:${String(event.data.userId)}`),
  DiscriminatorClaimed: (event) => userKey(event.data, ['username'])(event),
  DiscriminatorReleased: (event) => userKey(event.data, ['username'])(event),
  MemberUpdated: (event) => changeValues(event, `user:${String(event.data.userId)}`, ['nick', 'avatar', 'banner']),
  DmChannelOpened: (event) => new Groups().users(event, DATA.at('recipients'), event.data.recipients as UserSnapshot[]),
  DmChannelReopened: (event) => new Groups().users(event, DATA.at('recipients'), event.data.recipients as UserSnapshot[]),
  RecipientAdded: (event) =>
    new Groups().user(event, DATA.at('user'), event.data.user as UserSnapshot).users(event, DATA.at('recipients'), event.data.recipients as UserSnapshot[]),
  RecipientRemoved: (event) => new Groups().user(event, DATA.at('user'), event.data.user as UserSnapshot),
  InteractionCreated: (event) => {
    type SourceMessage = MessageShape & { channel_id: string; guild_id?: string | null };
    const interaction = event.data.interaction as Json & {
      userId: string;
      component?: { message?: SourceMessage } | null;
      modal?: { message?: SourceMessage | null } | null;
      command?: { targetMessage?: SourceMessage } | null;
    };
    // What the user typed or chose: options (an autocomplete's partial text too), select values, a modal's values.
    const groups = new Groups().add(
      [`user:${interaction.userId}`],
      false,
      [
        ['data', 'interaction', 'command', 'options'],
        ['data', 'interaction', 'component', 'values'],
        ['data', 'interaction', 'modal', 'components'],
      ],
      event,
    );
    // The message a component was used on (or that showed a submitted modal), or a message command's target, as it
    // was: its author's words.
    for (const [at, message] of [
      [DATA.at('interaction').at('component').at('message'), interaction.component?.message],
      [DATA.at('interaction').at('modal').at('message'), interaction.modal?.message],
      [DATA.at('interaction').at('command').at('targetMessage'), interaction.command?.targetMessage],
    ] as const) {
      if (message) groups.message(event, at, messageSubjects(message.id, message.channel_id, message.guild_id), message);
    }
    return groups;
  },
  InteractionClicked: (event) => {
    const { user } = event.data.interaction as { user?: UserSnapshot };
    const groups = new Groups().user(event, DATA.at('interaction').at('user'), user);
    return user?.id ? groups.add([`user:${user.id}`], false, [['data', 'interaction', 'data', 'values']], event) : groups;
  },
  OAuth2CodeIssued: (event) => userKey(event.data, ['redirectUri'])(event),
  // What the author wrote and what a rule matched in it: like a message's content, a fresh key per execution,
  // destroyed with the author's account or the guild.
  AutoModerationActionExecuted: (event) => {
    const execution = event.data.execution as { userId: string; guildId: string };
    return new Groups().add([`user:${execution.userId}`, `guild:${execution.guildId}`], true, DATA.at('execution').paths(EXECUTION_TEXT), event);
  },
};

/** The personal fields of an event, grouped by the key that seals them; the audit-log reason is its writer's. */
export function personalFields(event: { type: string; data: unknown; metadata: { actorId: string | null; reason?: string | null } }): SealGroup[] {
  const rule = RULES[event.type];
  const groups = rule ? rule(event as { data: Json }) : new Groups();
  if (event.metadata.reason && event.metadata.actorId) groups.add([`user:${event.metadata.actorId}`], false, [['metadata', 'reason']], event);
  return groups.list();
}

/** Where an edit's new version is: the key sealing it is the one the edit keeps of its message's. */
const EDITED_VERSION: FieldPath = ['data', 'message'];

/** The subjects an event erases: their keys are destroyed once the shredder follows it. */
export function erasures(event: { type: string; data: unknown }): Erasure[] {
  const data = event.data as Json;
  switch (event.type) {
    case 'MessageDeleted':
      return [{ subject: `message:${String(data.messageId)}` }];
    case 'MessageEdited':
      return [{ subject: `message:${String(data.messageId)}`, keepKeyOf: EDITED_VERSION }];
    case 'ChannelDeleted':
      return [{ subject: `channel:${String((data.channel as { id: string }).id)}` }];
    // A thread's messages are sealed under its own channel id: they go with it.
    case 'ThreadDeleted':
      return [{ subject: `channel:${String((data.thread as { id: string }).id)}` }];
    case 'GuildDeleted':
      return [{ subject: `guild:${String(data.guildId)}` }];
    case 'UserErased':
      return [{ subject: `user:${String(data.userId)}` }];
    default:
      return [];
  }
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
