// The attachment remover: the files of deleted messages, of attachments an edit dropped, of deleted channels and
// guilds, and of ended DMs and group DMs leave the blob store. The log is the truth and a 2xx means the deletion is on disk;
// removing the files is a side effect that follows the log here, so a crash between the two only delays it: the
// remover resumes from its checkpoint and removes again (a file already gone is fine). Its first start reads the log
// from the beginning, so the files that versions before it left behind go too. Commands that drop files wait for it (settleFiles), as they wait
// for the read models, so a 2xx means the CDN answers 404.
// It also sweeps the uploads noted before a send's or edit's files are stored (commands/messages/attachments.ts): a
// note still there after the grace is a request that died between storing its files and appending its event (or
// could not take them back), and its files the message does not list go. At start, then every grace period.
import type { Uses } from '../commands/deps.js';
import { UPLOADS_FOLDER, attachmentFolder, channelAttachmentsFolder, readUploadNote, takeBackUnlisted } from '../commands/messages/attachments.js';
import { guildStream } from '../commands/streams.js';
import { guildDecider } from '../domain/guild.js';
import { snowflakeTimestamp } from '../domain/snowflake.js';
import type { EventStore, Position } from '../ports/eventStore.js';
import type { Recorded } from '../projections/projection.js';
import { LogFollower, reactor } from '../projections/reactor.js';
import { endsDmChannel } from '../domain/groupDm.js';

const CHECKPOINT = 'attachment-removal';

type Dropping = Recorded<'MessageDeleted' | 'MessageEdited' | 'ChannelDeleted' | 'GuildDeleted' | 'RecipientRemoved' | 'DmRecipientLeft'>;

/** Notes read per sweep: a longer backlog (a crash loop) waits for the next sweeps. */
const SWEEP_BATCH = 1000;

export interface AttachmentRemovalDeps extends Uses<'commands' | 'readStore' | 'blobs' | 'clock'> {
  store: EventStore;
}

/** The events that may let go of files; a batch that removed any is checkpointed at once. */
const attachmentRemoval = reactor({
  name: 'attachmentRemoval',
  handles: ['MessageDeleted', 'MessageEdited', 'ChannelDeleted', 'GuildDeleted', 'RecipientRemoved', 'DmRecipientLeft'],
  // Most events let go of no file (a send's among them): only the few that may are awaited.
  async react(events, deps: AttachmentRemovalDeps) {
    const removed = await Promise.all(events.map((event) => removeFilesOf(deps, event)));
    if (removed.includes(true)) return 'checkpoint';
  },
});

/** Removes the files the event lets go of; whether it let go of any. */
async function removeFilesOf(deps: AttachmentRemovalDeps, event: Dropping): Promise<boolean> {
  const { blobs } = deps;
  switch (event.type) {
    case 'MessageDeleted':
    case 'MessageEdited': {
      const { channelId } = event.data;
      const dropped = event.type === 'MessageDeleted' ? event.data.attachments : event.data.removedAttachments;
      // By id: the file's name is personal data, which the key shredder may have erased by now.
      await Promise.all(dropped.map((attachment) => blobs.deleteUnder(attachmentFolder(channelId, attachment))));
      return dropped.length > 0;
    }
    case 'ChannelDeleted':
      await blobs.deleteUnder(channelAttachmentsFolder(event.data.channel.id));
      return true;
    // The last participant gone, the DM or group DM ends and its files go with it.
    case 'RecipientRemoved':
    case 'DmRecipientLeft':
      if (!endsDmChannel(event)) return false;
      await blobs.deleteUnder(channelAttachmentsFolder(event.data.channelId));
      return true;
    case 'GuildDeleted': {
      // The channels it still had (those deleted before took their files then), as the guild's stream tells.
      const { state } = await deps.commands.load(guildStream(event.data.guildId), guildDecider);
      await Promise.all([...state.channels.keys()].map((channelId) => blobs.deleteUnder(channelAttachmentsFolder(channelId))));
      return true;
    }
  }
}

export class AttachmentRemover {
  private readonly follower: LogFollower<AttachmentRemovalDeps>;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;

  /** `uploadGraceMs`: how old a note of uploads must be before its files count as left behind. */
  constructor(
    private readonly deps: AttachmentRemovalDeps,
    private readonly uploadGraceMs: number,
    onError: (error: unknown) => void = () => {},
  ) {
    const { readStore } = deps;
    const checkpoint = {
      load: () => readStore.getCheckpoint(CHECKPOINT),
      save: (position: Position) => readStore.bulkWrite([], [{ projection: CHECKPOINT, position }]),
    };
    this.follower = new LogFollower(attachmentRemoval, deps, deps.store, checkpoint, onError);
  }

  async start(): Promise<void> {
    // A sweep that fails (the blob store away) is tried again at the next: it only delays what it removes.
    const sweep = () => void this.sweepUploads().catch(() => {});
    sweep();
    this.sweepTimer = setInterval(sweep, this.uploadGraceMs);
    this.sweepTimer.unref();
    await this.follower.start();
  }

  /**
   * Takes back the files of the notes older than the grace; answers how many notes it settled. One sweep at a time: a
   * call during one waits for it and then sweeps again.
   */
  async sweepUploads(): Promise<number> {
    while (this.sweeping) await this.sweeping.catch(() => {});
    this.sweeping = this.sweepOnce();
    try {
      return await this.sweeping;
    } finally {
      this.sweeping = null;
    }
  }

  private async sweepOnce(): Promise<number> {
    // A note is named by a snowflake: its time is when the request made it, with no read of the note.
    const before = this.deps.clock.now() - this.uploadGraceMs;
    const due = (await this.deps.blobs.folders(UPLOADS_FOLDER)).filter((noteId) => /^\d+$/.test(noteId) && snowflakeTimestamp(noteId) < before);
    for (const noteId of due.slice(0, SWEEP_BATCH)) await takeBackUnlisted(this.deps, noteId, await readUploadNote(this.deps, noteId));
    return Math.min(due.length, SWEEP_BATCH);
  }

  /** Resolves once the files the log let go of up to `position` are gone, or at once when the remover is not running. */
  async waitFor(position: Position | null, timeoutMs: number): Promise<void> {
    await this.follower.waitFor(position, timeoutMs);
  }

  /** Resolves when everything the log held when it was called has been followed. */
  caughtUp(): Promise<void> {
    return this.follower.caughtUp();
  }

  async stop(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = null;
    await this.sweeping?.catch(() => {});
    await this.follower.stop();
  }
}
