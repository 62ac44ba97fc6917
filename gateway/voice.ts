// Op 4 for guild voice channels: a session joins, moves, changes its self flags or leaves (channel_id null). A request
// the guild refuses (not a member, not a voice channel, no VIEW_CHANNEL or CONNECT, a full channel) changes nothing,
// and the session hears nothing back, as with the widely used API. A voice state belongs to the session that joined:
// when that session ends (closed for good, or not resumed in time) the state ends with it.
import { endSessionVoiceState, updateOwnVoiceState } from '../commands/voice.js';
import { DomainError } from '../domain/errors.js';
import { voiceStatesNotOfNode } from '../projections/voiceStates.queries.js';
import { BackgroundWork } from './background.js';
import type { GatewayDeps } from './deps.js';
import type { Session } from './session.js';
import type { VoiceStateRequest } from './voiceRequest.js';

export class GuildVoice {
  /** The guilds in which each of this node's sessions joined voice (a later leave or takeover is checked on ending). */
  private readonly held = new Map<string, Set<string>>();
  /** Ends of voice states of sessions that ended, which a closing gateway waits for. */
  private readonly ending: BackgroundWork;

  constructor(
    private readonly runtime: GatewayDeps,
    /** This gateway node, named in the voice states its sessions hold. */
    private readonly node: string,
  ) {
    this.ending = new BackgroundWork((error) => runtime.log.error({ err: error }, 'voice state of an ended session not ended'));
  }

  /**
   * Ends voice states left over by sessions that no longer exist. On the sole gateway node (the embedded default) that
   * is every state another node (an earlier run of this process) holds: sessions do not outlive their process.
   */
  async start(soleNode: boolean): Promise<void> {
    if (soleNode) await this.endLeftBy(async () => true);
  }

  /** Ends the voice states held on other nodes that are `gone` (gateway/nodeLease.ts). */
  async endLeftBy(gone: (node: string) => Promise<boolean>): Promise<void> {
    for (const state of await voiceStatesNotOfNode(this.runtime.readStore, this.node))
      if (await gone(state.node)) await this.ending.add(this.end(state.guild_id, state.user_id, state.session_id));
  }

  async update(session: Session, request: VoiceStateRequest & { guildId: string }): Promise<void> {
    if (!session.guildIds.has(request.guildId)) return;
    const { guildId, channelId, selfMute, selfDeaf, selfVideo } = request;
    try {
      await updateOwnVoiceState(
        this.runtime,
        { actorId: session.userId },
        { guildId, sessionId: session.id, node: this.node, channelId, selfMute, selfDeaf, selfVideo },
      );
    } catch (error) {
      if (error instanceof DomainError) return;
      throw error;
    }
    let guilds = this.held.get(session.id);
    if (!guilds) this.held.set(session.id, (guilds = new Set()));
    if (channelId === null) guilds.delete(guildId);
    else guilds.add(guildId);
    if (guilds.size === 0) this.held.delete(session.id);
  }

  sessionEnded(session: Session): void {
    const guilds = this.held.get(session.id);
    this.held.delete(session.id);
    for (const guildId of guilds ?? []) void this.ending.add(this.end(guildId, session.userId, session.id));
  }

  /** Resolves once the voice states of sessions ended so far are ended. */
  stop(): Promise<void> {
    return this.ending.settled();
  }

  /** Ends the session's voice state in the guild; a guild deleted meanwhile has none left to end. */
  private async end(guildId: string, userId: string, sessionId: string): Promise<void> {
    await endSessionVoiceState(this.runtime, { actorId: userId }, guildId, sessionId).catch((error: unknown) => {
      if (!(error instanceof DomainError)) throw error;
    });
  }
}
