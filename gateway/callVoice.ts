// Op 4 with guild_id null: a DM's or group DM's call. A recipient (a person: bots take no part in calls) joins the
// call's voice with a channel id, changes their self flags, or leaves with null; anything else changes nothing and
// hears nothing back. A user is in one call at most: joining another leaves the first. A voice state belongs to the
// session that joined: when that session ends, the state ends with it.
// Ring timeouts run here too, on every gateway node: each follows the log (a non-durable bus consumer, as the gateway
// projector does) and keeps a timer per call at its earliest ringing deadline, where it appends the stop. The decider
// stops only what is due, so several nodes, or a deadline pushed back by a new ring meanwhile, append nothing twice.
// On start the timers come from the read model, so a restart loses no deadline. The same consumer drops a user removed
// from a group DM from its call.
import { dropFromCall, endLeftoverCallVoice, joinCall, leaveCall, timeOutRinging } from '../commands/calls.js';
import { isDm } from '../commands/access.js';
import { CALL_EVENT_TYPES, type RingingData } from '../domain/call.js';
import { activeCalls, callOfVoiceUser } from '../projections/calls.queries.js';
import { dmChannelById } from '../projections/dms.queries.js';
import { queued } from '../commands/queue.js';
import { BusFollower, reactor } from '../projections/reactor.js';
import { BackgroundWork } from './background.js';
import type { GatewayDeps } from './deps.js';
import type { Session } from './session.js';
import type { VoiceStateRequest } from './voiceRequest.js';

/** What the log asks of a gateway node's calls. */
interface CallsFollowed {
  /** A call's ringing as it now is, whose earliest deadline is timed again. */
  ringing(channelId: string, ringing: RingingData[]): void;
  /** A user removed from a group DM leaves its call. */
  removed(channelId: string, userId: string, actorId: string | null): void;
}

const callVoice = reactor({
  name: 'call-voice',
  handles: [...CALL_EVENT_TYPES, 'RecipientRemoved'],
  react(events, calls: CallsFollowed) {
    for (const event of events) {
      if (event.type === 'RecipientRemoved') calls.removed(event.data.channelId, event.data.user.id, event.metadata.actorId);
      else calls.ringing(event.data.channelId, event.data.call.ringing);
    }
  },
});

export class CallVoice {
  /** The call each of this node's sessions joined (a later leave or takeover is checked when it ends). */
  private readonly held = new Map<string, string>();
  /** Per call, the timer at its earliest ringing deadline. */
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Appends no request waits for (ended sessions, timeouts, removals), which stop() waits for. */
  private readonly background: BackgroundWork;
  private readonly follower: BusFollower<CallsFollowed>;
  private stopped = false;

  constructor(
    private readonly runtime: GatewayDeps,
    /** This gateway node, named in the voice states its sessions hold. */
    private readonly node: string,
  ) {
    this.background = new BackgroundWork((error) => runtime.log.error({ err: error }, 'call voice update failed'));
    const calls: CallsFollowed = {
      ringing: (channelId, ringing) => this.schedule(channelId, ringing),
      removed: (channelId, userId, actorId) => void this.background.add(dropFromCall(runtime, { actorId }, channelId, userId)),
    };
    this.follower = new BusFollower(callVoice, calls, runtime.bus, (error) => runtime.log.error({ err: error }, 'call ring timeouts stopped'));
  }

  /**
   * Follows the log for ringing deadlines, schedules those the read model holds, and on the sole gateway node (the
   * embedded default) ends every call voice state another node (an earlier run of this process) holds.
   */
  async start(soleNode: boolean): Promise<void> {
    await this.follower.start();
    for (const call of await activeCalls(this.runtime.readStore)) this.schedule(call._id, call.ringing);
    if (soleNode) await this.endLeftBy(async () => true);
  }

  /** Ends the call voice states held on other nodes that are `gone` (gateway/nodeLease.ts). */
  async endLeftBy(gone: (node: string) => Promise<boolean>): Promise<void> {
    for (const call of await activeCalls(this.runtime.readStore)) {
      for (const state of call.voice_states)
        if (state.node !== this.node && (await gone(state.node))) await endLeftoverCallVoice(this.runtime, call._id, state);
    }
  }

  update(session: Session, request: VoiceStateRequest & { guildId: null }): Promise<void> {
    return this.inTurn(session.userId, () => this.apply(session, request));
  }

  sessionEnded(session: Session): void {
    const channelId = this.held.get(session.id);
    if (channelId === undefined) return;
    this.held.delete(session.id);
    void this.background.add(this.inTurn(session.userId, () => leaveCall(this.runtime, { actorId: session.userId }, channelId, session.userId, session.id)));
  }

  /** Stops the timers and the follower once the appends under way are done (a closing gateway). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.follower.stop();
    await this.background.settled();
  }

  private async apply(session: Session, request: VoiceStateRequest): Promise<void> {
    if (session.identity.bot) return;
    const meta = { actorId: session.userId };
    const current = await callOfVoiceUser(this.runtime.readStore, session.userId);
    if (request.channelId === null) {
      if (current) await leaveCall(this.runtime, meta, current._id, session.userId, null);
      this.held.delete(session.id);
      return;
    }
    const dm = await dmChannelById(this.runtime.readStore, request.channelId);
    if (!isDm(dm) || !dm.recipient_ids.includes(session.userId)) return;
    if (current && current._id !== dm._id) await leaveCall(this.runtime, meta, current._id, session.userId, null);
    const state = {
      user_id: session.userId,
      session_id: session.id,
      node: this.node,
      self_mute: request.selfMute,
      self_deaf: request.selfDeaf,
      self_video: request.selfVideo,
    };
    await joinCall(this.runtime, meta, dm._id, state);
    this.held.set(session.id, dm._id);
  }

  /** Runs `work` after the user's earlier voice changes (each reads which call the previous one left them in). */
  private inTurn(userId: string, work: () => Promise<void>): Promise<void> {
    return queued(`call-voice-user-${userId}`, work);
  }

  /** Keeps one timer per call, at its earliest deadline (none when nobody is rung). */
  private schedule(channelId: string, ringing: RingingData[]): void {
    clearTimeout(this.timers.get(channelId));
    this.timers.delete(channelId);
    if (ringing.length === 0 || this.stopped) return;
    const due = Math.min(...ringing.map((r) => Date.parse(r.until)));
    const timer = setTimeout(
      () => {
        this.timers.delete(channelId);
        void this.background.add(timeOutRinging(this.runtime, channelId).then((call) => this.schedule(channelId, call.ringing)));
      },
      Math.max(0, due - this.runtime.clock.now()),
    );
    timer.unref();
    this.timers.set(channelId, timer);
  }
}
