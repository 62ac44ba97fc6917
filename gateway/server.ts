// The WebSocket gateway (ws) on the API's own HTTPS server, path /gateway, speaking the widely used API's gateway
// protocol v10 in JSON: HELLO, IDENTIFY → READY + GUILD_CREATEs, heartbeats, RESUME, presences (op 3), member
// requests (op 8), and the dispatches the gateway projector derives from the log.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import { startGatewaySession } from '../commands/gateway.js';
import { DomainError } from '../domain/errors.js';
import { parseJsonKeepingIds } from '../domain/snowflake.js';
import type { GatewayDeps } from './deps.js';
import { sha256 } from '../ports/secrets.js';
import { resumeGatewayUrl } from '../presenters/urls.js';
import type { TokenDoc } from '../projections/users.js';
import { tokenByHash } from '../projections/users.queries.js';
import { presenceDispatch } from './dispatches/presence.js';
import { guildIdsOf } from './guilds.js';
import {
  type MemberRequest,
  MemberListLimiter,
  asksForAllMembers,
  asksForMemberList,
  findRequestedMembers,
  memberChunks,
  parseMemberRequest,
} from './memberChunks.js';
import { ONLINE, Presences, type Shown, parseIdentifyPresence, parsePresence } from './presence.js';
import { GatewayProjector } from './projector.js';
import { CloseCode, GATEWAY_VERSION, type GatewayPayload, Intent, Op, isIntentSet } from './protocol.js';
import { SessionRegistry } from './registry.js';
import { Connection, Session } from './session.js';
import { type Snapshots, createSnapshots } from './snapshots.js';
import { CallVoice } from './callVoice.js';
import { channelVisibility } from './visibility.js';
import { TemporaryMemberships } from './temporaryMemberships.js';
import { GuildVoice } from './voice.js';
import { NodeLease } from './nodeLease.js';
import { RENEW_MS } from '../ports/leases.js';
import { parseVoiceStateRequest } from './voiceRequest.js';

const PAYLOADS_PER_MINUTE = 120;
/** The largest inbound frame: clients send small JSON payloads, so a frame announcing more is closed with 1009 unread. */
const MAX_INBOUND_PAYLOAD = 64 * 1024;

export interface GatewayOptions {
  heartbeatIntervalMs: number;
  /**
   * No other gateway node shares this log (the in-process bus of the embedded default): voice states that no session
   * of this node holds are left over from an earlier run and end when it starts. Otherwise each node holds a lease
   * while it runs, and the voice states of a node whose lease ran out are ended by another (gateway/nodeLease.ts).
   */
  soleNode: boolean;
}

export class Gateway {
  readonly registry: SessionRegistry;
  private readonly presences: Presences;
  private readonly guildVoice: GuildVoice;
  private readonly callVoice: CallVoice;
  private readonly temporaryMemberships: TemporaryMemberships;
  /** Set once close() begins. */
  private closing = false;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_INBOUND_PAYLOAD });
  private readonly projector: GatewayProjector;
  private readonly snapshots: Snapshots;
  private readonly memberLists = new MemberListLimiter();
  /** HELLO's, READY's and RESUMED's `_trace`, as the widely used API sends: which gateway node is serving. */
  private readonly trace: string[];
  private sweeper: NodeJS.Timeout | null = null;
  /** Where other gateway nodes run: the voice states of those that crashed are ended (gateway/nodeLease.ts). */
  private readonly nodeLease: NodeLease;
  private nodeWatch: NodeJS.Timeout | null = null;
  private readonly connections = new Set<Connection>();

  constructor(
    private readonly runtime: GatewayDeps,
    private readonly options: GatewayOptions,
  ) {
    this.registry = new SessionRegistry(channelVisibility(runtime), (session) => {
      this.presences.end(session.id, session.userId);
      // A session that ends (closed for good, or not resumed in time) leaves the voice channel or call it was in, and
      // with its user's last one, on this node and on the others, their temporary memberships end. Sessions this node
      // ends as it stops were not ended by their users, whose clients come back (op 7).
      this.guildVoice.sessionEnded(session);
      this.callVoice.sessionEnded(session);
      const last = !this.registry.hasSessionsOf(session.userId) && !this.presences.connectedElsewhere(session.userId);
      if (last && !this.closing) this.temporaryMemberships.lastSessionEnded(session.userId);
    });
    this.presences = new Presences(runtime.hints, (userId, presence) => this.announcePresence(userId, presence), runtime.log);
    this.guildVoice = new GuildVoice(runtime, this.presences.node);
    this.callVoice = new CallVoice(runtime, this.presences.node);
    this.nodeLease = new NodeLease(runtime.leases, this.presences.node, runtime.clock, runtime.log);
    this.temporaryMemberships = new TemporaryMemberships(runtime);
    this.projector = new GatewayProjector(runtime, this.registry, this.presences);
    this.snapshots = createSnapshots(runtime);
    this.trace = [`parley-gateway-${this.presences.node}`];
  }

  async start(server: Server): Promise<void> {
    this.presences.start();
    await this.projector.start();
    await this.guildVoice.start(this.options.soleNode);
    await this.callVoice.start(this.options.soleNode);
    if (!this.options.soleNode) {
      await this.nodeLease.renew();
      this.nodeWatch = setInterval(() => {
        this.watchNodes().catch((error: unknown) => this.runtime.log.error({ err: error }, 'voice states of stopped gateway nodes not ended'));
      }, RENEW_MS);
      this.nodeWatch.unref();
    }
    // Neither a socket nor the WebSocketServer may leave an error unhandled: it would end the process for everyone.
    this.wss.on('error', (error) => this.runtime.log.warn({ err: error }, 'gateway server error'));
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => socket.destroy());
      const url = new URL(request.url ?? '/', 'wss://gateway');
      if (url.pathname !== '/gateway' && url.pathname !== '/gateway/') {
        socket.destroy();
        return;
      }
      this.wss.handleUpgrade(request, socket, head, (ws) => this.connect(ws, url.searchParams));
    });
    this.sweeper = setInterval(() => {
      this.registry.sweep();
      this.memberLists.sweep(Date.now());
    }, 30_000);
    this.sweeper.unref();
  }

  /**
   * Renews this node's lease, and ends the voice states held on nodes whose leases ran out (they crashed, and ended
   * none of their sessions). Every RENEW_MS on each node of a distributed deployment.
   */
  async watchNodes(): Promise<void> {
    await this.nodeLease.renew();
    const gone = (node: string) => this.nodeLease.takeOver(node);
    await this.guildVoice.endLeftBy(gone);
    await this.callVoice.endLeftBy(gone);
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    if (this.nodeWatch) clearInterval(this.nodeWatch);
    await this.projector.stop();
    // Sessions ended now go offline on the other nodes; this one no longer announces anything.
    await this.presences.stop();
    // Each client is told to reconnect (op 7) and closed with a code it resumes after, so a restart or a rolling
    // deploy costs a bot a RESUME (an IDENTIFY when it lands on a fresh node), not a stop; a second later the rest go.
    const closed = Promise.all(
      [...this.connections].map((connection) =>
        connection.closeAfterSending(JSON.stringify({ op: Op.Reconnect, d: null }), CloseCode.UnknownError, 'Server restarting'),
      ),
    );
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
    for (const session of [...this.registry.all()]) this.registry.unregister(session);
    // Their voice states end now: their clients come back as new sessions, on whichever node. Memberships ended
    // before the close are written before the store closes.
    await Promise.all([this.guildVoice.stop(), this.callVoice.stop(), this.temporaryMemberships.stop()]);
    if (this.nodeWatch) await this.nodeLease.release();
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private connect(ws: WebSocket, query: URLSearchParams): void {
    const connection = new Connection(ws, query.get('compress') === 'zlib-stream', this.runtime.config.gatewayOutboundBufferBytes);
    const send = (payload: GatewayPayload) => connection.send(JSON.stringify(payload));
    const version = query.get('v');
    if (version !== null && Number(version) !== GATEWAY_VERSION) return connection.close(CloseCode.InvalidApiVersion, 'Invalid API version');
    if ((query.get('encoding') ?? 'json') !== 'json') return connection.close(CloseCode.DecodeError, 'Only the json encoding is supported');
    this.connections.add(connection);

    let session: Session | null = null;
    // One start per connection. IDENTIFY and RESUME await before their session is attached, so the start is claimed
    // before the first await: a second start frame, even one read in the same chunk, finds it claimed and closes the
    // connection with 4005. Only a start answered with INVALID_SESSION (it started nothing) gives the claim back, for
    // the fresh IDENTIFY the widely used API's documentation lets a client send on the same connection.
    let startClaimed = false;
    const start = async (begin: () => Promise<Session | null>) => {
      if (startClaimed) return connection.close(CloseCode.AlreadyAuthenticated, 'Already authenticated');
      startClaimed = true;
      session = await begin();
      startClaimed = session !== null;
    };
    let payloads = 0;
    // One member request at a time per connection: each may read a whole guild's member list.
    let memberRequests: Promise<void> = Promise.resolve();
    const window = setInterval(() => (payloads = 0), 60_000);
    let deadline = setTimeout(() => connection.close(CloseCode.SessionTimedOut, 'Heartbeat missed'), this.options.heartbeatIntervalMs * 1.5);
    const heartbeatSeen = () => {
      clearTimeout(deadline);
      deadline = setTimeout(() => connection.close(CloseCode.SessionTimedOut, 'Heartbeat missed'), this.options.heartbeatIntervalMs * 1.5);
    };

    // ws has already picked the close code (1002 protocol error, 1007 invalid UTF-8, 1009 too large) and closes with it.
    ws.on('error', (error) => this.runtime.log.debug({ err: error }, 'gateway connection error'));
    ws.on('close', (code) => {
      this.connections.delete(connection);
      clearTimeout(deadline);
      clearInterval(window);
      if (session?.connection !== connection) return;
      // As the widely used API does: closing with 1000 or 1001 ends the session (its user may go offline); any other
      // close keeps it for a RESUME.
      if (code === 1000 || code === 1001) this.registry.unregister(session);
      else session.detach();
    });

    const onMessage = async (raw: RawData, isBinary: boolean) => {
      payloads += 1;
      if (payloads > PAYLOADS_PER_MINUTE) return connection.close(CloseCode.RateLimited, 'You are sending too many payloads');
      let payload: GatewayPayload;
      try {
        payload = parseJsonKeepingIds(isBinary ? Buffer.from(raw as Buffer).toString('utf8') : raw.toString()) as GatewayPayload;
        if (typeof payload !== 'object' || payload === null || typeof payload.op !== 'number') throw new Error('not a payload');
      } catch {
        return connection.close(CloseCode.DecodeError, 'Error while decoding payload');
      }
      try {
        switch (payload.op) {
          case Op.Heartbeat:
            heartbeatSeen();
            if (session && typeof payload.d === 'number') session.acknowledge(payload.d);
            send({ op: Op.HeartbeatAck });
            return;
          case Op.Identify:
            return await start(() => this.identify(connection, payload.d));
          case Op.Resume:
            return await start(() => this.resume(connection, payload.d));
          case Op.PresenceUpdate: {
            if (!session) return connection.close(CloseCode.NotAuthenticated, 'Not authenticated');
            const presence = parsePresence(payload.d, Date.now());
            // The widely used API closes with 4001 on an invalid payload for an opcode.
            if (!presence) return connection.close(CloseCode.UnknownOpcode, 'Invalid presence update');
            this.presences.set(session.id, session.userId, presence);
            return;
          }
          case Op.RequestGuildMembers: {
            if (!session) return connection.close(CloseCode.NotAuthenticated, 'Not authenticated');
            const request = parseMemberRequest(payload.d);
            if (!request) return connection.close(CloseCode.UnknownOpcode, 'Invalid guild members request');
            const asking = session;
            const answer = memberRequests.then(() => this.requestMembers(asking, request));
            memberRequests = answer.catch(() => {});
            await answer;
            return;
          }
          case Op.VoiceStateUpdate: {
            if (!session) return connection.close(CloseCode.NotAuthenticated, 'Not authenticated');
            const request = parseVoiceStateRequest(payload.d);
            if (!request) return connection.close(CloseCode.UnknownOpcode, 'Invalid voice state update');
            const { guildId } = request;
            if (guildId === null) await this.callVoice.update(session, { ...request, guildId });
            else await this.guildVoice.update(session, { ...request, guildId });
            return;
          }
          default:
            if (!session) return connection.close(CloseCode.NotAuthenticated, 'Not authenticated');
            return connection.close(CloseCode.UnknownOpcode, 'Unknown opcode');
        }
      } catch (error) {
        this.runtime.log.error({ err: error }, 'gateway payload failed');
        connection.close(CloseCode.UnknownError, 'Unknown error');
      }
    };
    // A payload's failure is caught above: the socket's listener has nothing to wait for.
    ws.on('message', (raw, isBinary) => void onMessage(raw, isBinary));

    send({ op: Op.Hello, d: { heartbeat_interval: this.options.heartbeatIntervalMs, _trace: this.trace } });
  }

  /** The token's owner, or null after closing the connection with 4004. */
  private async authenticate(connection: Connection, token: unknown): Promise<TokenDoc | null> {
    const raw = typeof token === 'string' && token.length <= 512 ? token.replace(/^(Bot|Bearer)\s+/i, '') : '';
    const found = raw ? await tokenByHash(this.runtime.readStore, sha256(raw)) : null;
    if (!found) connection.close(CloseCode.AuthenticationFailed, 'Authentication failed');
    return found;
  }

  private async identify(connection: Connection, d: unknown): Promise<Session | null> {
    const data = (d ?? {}) as { token?: unknown; intents?: unknown; shard?: unknown; presence?: unknown };
    const token = await this.authenticate(connection, data.token);
    if (!token) return null;
    const intents = data.intents ?? 0;
    if (!isIntentSet(intents)) {
      connection.close(CloseCode.InvalidIntents, 'Invalid intent(s)');
      return null;
    }
    const shard = data.shard ?? [0, 1];
    if (!Array.isArray(shard) || shard.length !== 2 || shard[0] !== 0 || shard[1] !== 1) {
      // One shard carries every guild here (GET /gateway/bot answers shards: 1).
      connection.close(CloseCode.InvalidShard, 'Invalid shard');
      return null;
    }
    const presence = data.presence === undefined || data.presence === null ? ONLINE : parseIdentifyPresence(data.presence, Date.now());
    if (!presence) {
      connection.close(CloseCode.UnknownOpcode, 'Invalid presence');
      return null;
    }
    const sessionId = randomBytes(16).toString('hex');
    try {
      await startGatewaySession(this.runtime, { sessionId, userId: token.user_id, intents, shard: [0, 1] });
    } catch (error) {
      if (error instanceof DomainError && error.code === 'SESSION_START_LIMIT') {
        connection.close(CloseCode.RateLimited, error.message);
        return null;
      }
      // More IDENTIFYs at once than max_concurrency: the widely used API answers Invalid Session; the client may identify again.
      if (error instanceof DomainError && error.code === 'SESSION_START_CONCURRENCY') {
        connection.send(JSON.stringify({ op: Op.InvalidSession, d: false }));
        return null;
      }
      throw error;
    }
    // Members and their presences in GUILD_CREATE only with GUILD_PRESENCES, as the widely used API sends them.
    const withPresences = (intents & Intent.GUILD_PRESENCES) !== 0;
    const snapshot = await this.snapshots.ready(token.user_id);
    const guilds = await Promise.all(snapshot.guildIds.map((guildId) => this.snapshots.guildCreate(guildId, token.user_id, { everyMember: withPresences })));
    if (!connection.open) return null;
    const session = new Session({ id: sessionId, userId: token.user_id, bot: token.kind === 'bot', intents, shard: [0, 1] }, this.registry.erasures);
    session.attach(connection);
    session.dispatchOwn('READY', {
      _trace: this.trace,
      v: GATEWAY_VERSION,
      user: snapshot.user,
      guilds: snapshot.guildIds.map((id) => ({ id, unavailable: true })),
      session_id: sessionId,
      resume_gateway_url: resumeGatewayUrl(this.runtime.config),
      shard: [0, 1],
      private_channels: snapshot.privateChannels,
      relationships: [],
      user_settings: {},
      presences: [],
      ...(snapshot.application ? { application: snapshot.application } : {}),
    });
    this.registry.register(session, snapshot.guildIds);
    this.presences.set(sessionId, token.user_id, presence);
    for (const guild of guilds) {
      if (!guild) continue;
      const presences = withPresences ? this.presences.objects(guild.members.map((member) => member.user.id)) : [];
      session.dispatchOwn('GUILD_CREATE', { ...guild, presences });
    }
    return session;
  }

  private async resume(connection: Connection, d: unknown): Promise<Session | null> {
    const data = (d ?? {}) as { token?: unknown; session_id?: unknown; seq?: unknown };
    const token = await this.authenticate(connection, data.token);
    if (!token) return null;
    // Closed meanwhile (a second start, 4005, or the client gone): the session stays away, whole, for another RESUME.
    if (!connection.open) return null;
    const found = typeof data.session_id === 'string' ? this.registry.get(data.session_id) : undefined;
    // Another user's session id is no session of this token's: it is left as it is, not ended.
    const session = found?.userId === token.user_id ? found : undefined;
    const frames = session && typeof data.seq === 'number' ? session.framesAfter(data.seq) : null;
    if (!session || !frames) {
      if (session) this.registry.unregister(session);
      connection.send(JSON.stringify({ op: Op.InvalidSession, d: false }));
      return null;
    }
    session.connection?.close(4000, 'Resumed elsewhere');
    session.attach(connection);
    connection.sendReplay(frames);
    session.dispatchOwn('RESUMED', { _trace: this.trace });
    return session;
  }

  /** Answers op 8 with GUILD_MEMBERS_CHUNKs, RATE_LIMITED, or (as the widely used API does) not at all. */
  private async requestMembers(session: Session, request: MemberRequest): Promise<void> {
    const intents = session.identity.intents;
    if (!session.guildIds.has(request.guildId)) return;
    if (asksForMemberList(request) && (intents & Intent.GUILD_MEMBERS) === 0) return;
    if (asksForAllMembers(request)) {
      const wait = this.memberLists.wait(session.userId, request.guildId, Date.now());
      if (wait > 0) {
        const meta = { guild_id: request.guildId, ...(request.nonce !== undefined ? { nonce: request.nonce } : {}) };
        session.dispatchOwn('RATE_LIMITED', { opcode: Op.RequestGuildMembers, retry_after: wait / 1000, meta });
        return;
      }
    }
    const { members, notFound } = await findRequestedMembers(this.runtime, request);
    // Without GUILD_PRESENCES, `presences: true` counts as false.
    const presences = request.presences && (intents & Intent.GUILD_PRESENCES) !== 0 ? (userIds: string[]) => this.presences.objects(userIds) : undefined;
    for (const chunk of memberChunks(request.guildId, members, { notFound, presences, nonce: request.nonce })) {
      session.dispatchOwn('GUILD_MEMBERS_CHUNK', chunk);
    }
  }

  /** Every node tells its own sessions in the user's guilds. */
  private async announcePresence(userId: string, presence: Shown): Promise<void> {
    for (const guildId of await guildIdsOf(this.runtime, userId)) await this.registry.route(presenceDispatch(guildId, userId, presence));
  }
}
