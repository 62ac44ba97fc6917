// A gateway session outlives its connection: while the client is away, its dispatches keep going into a bounded
// replay buffer, so a RESUME gets every dispatch after its last sequence, in order, once. A client that stays away
// too long, or misses more than the buffer holds, gets INVALID_SESSION and identifies again.
import { constants, createDeflate, type Deflate } from 'node:zlib';
import type { WebSocket } from 'ws';
import { ErasedSubjects, type Marked, NO_SUBJECTS, subjectsOf } from './erasures.js';
import type { ContractedDataOfEach } from './dispatch.js';
import type { DataOfEach, DispatchEvent } from './protocol.js';

/** The close code of a connection whose client does not read: WebSocket's "try again later". */
export const CLIENT_NOT_READING = 1013;
/** Dispatches, and bytes of their payloads, a session holds for a RESUME; past either, the oldest go. */
const REPLAY_LIMIT = 5000;
const REPLAY_BYTES = 2 * 1024 * 1024;
export const RESUME_WINDOW_MS = 3 * 60 * 1000;

/** One WebSocket; frames are JSON text, or one zlib stream of binary chunks when the client asked for zlib-stream. */
export class Connection {
  private readonly deflate: Deflate | null;
  private chain: Promise<void> = Promise.resolve();
  /**
   * What a RESUME's replay left in the outbound buffer, allowed on top of the bound until the buffer has drained below
   * it: the session held those dispatches in memory already, and a client that missed more than the bound would
   * otherwise be closed again by its own replay, RESUME after RESUME.
   */
  private replayed = 0;

  constructor(
    readonly socket: WebSocket,
    compress: boolean,
    /** Outbound bytes the connection may have waiting before it counts as not reading (GATEWAY_OUTBOUND_BUFFER_BYTES). */
    private readonly maxBufferedBytes: number,
  ) {
    this.deflate = compress ? createDeflate({ flush: constants.Z_SYNC_FLUSH }) : null;
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /**
   * Sends a frame; false when the client does not read what it is sent and the connection was closed for it: its
   * buffer stays bounded, and its session keeps what it missed for a RESUME. 1013 (try again later) is a code both
   * discord.js and discord.py resume after; 4008 would make discord.js identify again.
   */
  send(frame: string): boolean {
    if (!this.open) return false;
    const buffered = this.socket.bufferedAmount;
    if (buffered <= this.maxBufferedBytes) this.replayed = 0;
    else if (buffered > this.maxBufferedBytes + this.replayed) {
      this.close(CLIENT_NOT_READING, 'Client not reading: outbound buffer full');
      return false;
    }
    this.write(frame);
    return true;
  }

  /**
   * Sends what a RESUME replays, in order, whatever the bound; what it leaves buffered is allowed until it drains (with
   * zlib-stream, once its frames are compressed and written: until then, whatever is buffered).
   */
  sendReplay(frames: readonly string[]): void {
    if (!this.open) return;
    this.replayed = Number.POSITIVE_INFINITY;
    for (const frame of frames) this.write(frame);
    this.chain = this.chain.then(() => {
      this.replayed = this.socket.bufferedAmount;
    });
  }

  private write(frame: string): void {
    if (!this.deflate) {
      this.socket.send(frame);
      return;
    }
    const deflate = this.deflate;
    this.chain = this.chain.then(
      () =>
        new Promise<void>((resolve) => {
          const chunks: Buffer[] = [];
          const collect = (chunk: Buffer) => chunks.push(chunk);
          deflate.on('data', collect);
          deflate.write(frame);
          deflate.flush(constants.Z_SYNC_FLUSH, () => {
            deflate.off('data', collect);
            if (this.open) this.socket.send(Buffer.concat(chunks));
            resolve();
          });
        }),
    );
  }

  /** Sends `frame` (after any frame still being compressed), then closes; resolves once the socket has closed. */
  closeAfterSending(frame: string, code: number, reason: string): Promise<void> {
    if (!this.open) return Promise.resolve();
    const closed = new Promise<void>((resolve) => this.socket.once('close', () => resolve()));
    this.send(frame);
    this.chain = this.chain.then(() => this.close(code, reason));
    return closed;
  }

  close(code: number, reason: string): void {
    if (this.socket.readyState === this.socket.OPEN || this.socket.readyState === this.socket.CONNECTING) this.socket.close(code, reason);
    this.deflate?.destroy();
  }
}

/** A dispatch frame around a payload serialized once for all its recipients. */
const frame = (seq: number, t: DispatchEvent, json: string) => `{"op":0,"s":${seq},"t":${JSON.stringify(t)},"d":${json}}`;

export interface SessionIdentity {
  id: string;
  userId: string;
  bot: boolean;
  intents: number;
  shard: [number, number];
}

export class Session {
  seq = 0;
  connection: Connection | null = null;
  /** When the connection went away; null while connected. */
  awaySince: number | null = null;
  readonly guildIds = new Set<string>();
  /** What a RESUME would send again: the payload `d` is the string every recipient of the dispatch shares. */
  private replay: ({ seq: number; t: DispatchEvent } & Marked)[] = [];
  private replayBytes = 0;

  constructor(
    readonly identity: SessionIdentity,
    /** The erasures of the gateway's sessions: what they apply to is not replayed. */
    private readonly erasures = new ErasedSubjects(),
  ) {}

  get id() {
    return this.identity.id;
  }

  get userId() {
    return this.identity.userId;
  }

  /** Sends a dispatch whose `d` was serialized once for all its recipients, showing the fields of `subjects`. */
  dispatch(t: DispatchEvent, json: string, subjects: readonly string[] = NO_SUBJECTS): void {
    this.seq += 1;
    this.replay.push({ seq: this.seq, t, d: json, subjects, mark: this.erasures.mark });
    this.replayBytes += json.length;
    while (this.replay.length > REPLAY_LIMIT || (this.replayBytes > REPLAY_BYTES && this.replay.length > 1)) {
      this.replayBytes -= this.replay.shift()!.d.length;
    }
    if (this.connection && !this.connection.send(frame(this.seq, t, json))) this.detach();
  }

  /** Sends a dispatch made for this session alone, its data checked against its event's (DispatchData) and its contract. */
  dispatchOwn<T extends DispatchEvent>(t: T, d: DataOfEach<T> & ContractedDataOfEach<T>): void {
    this.dispatch(t, JSON.stringify(d), subjectsOf(d));
  }

  attach(connection: Connection): void {
    this.connection = connection;
    this.awaySince = null;
  }

  detach(): void {
    this.connection = null;
    this.awaySince ??= Date.now();
    this.scrubReplay();
  }

  /**
   * Blanks, in the dispatches it holds, the fields of the subjects erased since each was buffered: what a session away
   * holds until it resumes or expires is scrubbed within a second of the erasure (the registry's), not at the RESUME
   * alone.
   */
  scrubReplay(): void {
    const mark = this.erasures.mark;
    for (const entry of this.replay) {
      if (entry.mark === mark) continue;
      const d = this.erasures.replayable(entry);
      this.replayBytes += d.length - entry.d.length;
      entry.d = d;
      entry.mark = mark;
    }
  }

  /** The client's heartbeat carries the last sequence it got: what it has need not be held for a resume. */
  acknowledge(seq: number): void {
    let drop = 0;
    while (drop < this.replay.length && this.replay[drop].seq <= seq) this.replayBytes -= this.replay[drop++].d.length;
    if (drop) this.replay.splice(0, drop);
  }

  /**
   * The frames after `seq`, or null when some of them are no longer held. What was dropped is refused only to a client
   * that misses it: one closed for not reading has most of the buffer already, and resumes though dispatches went on.
   */
  framesAfter(seq: number): string[] | null {
    if (seq > this.seq) return null;
    if (seq === this.seq) return [];
    const first = this.replay[0];
    if (!first || first.seq > seq + 1) return null;
    // Everything the client names as received is pruned; what it missed is all here, without what was erased since.
    return this.replay.filter((f) => f.seq > seq).map((f) => frame(f.seq, f.t, this.erasures.replayable(f)));
  }

  /** The erasure mark of the oldest dispatch it holds: erasures up to it apply to none of them. */
  get oldestMark(): number {
    return this.replay[0]?.mark ?? this.erasures.mark;
  }

  expired(now: number): boolean {
    return this.awaySince !== null && now - this.awaySince > RESUME_WINDOW_MS;
  }
}
