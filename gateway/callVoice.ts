// PLACEHOLDER written by the lead so gateway/server.ts compiles; the calls helper replaces this file whole.
import type { GatewayDeps } from './deps.js';
import type { Session } from './session.js';
import type { VoiceStateRequest } from './voiceRequest.js';

export class CallVoice {
  constructor(
    private readonly runtime: GatewayDeps,
    /** This gateway node, named in the voice states its sessions hold. */
    private readonly node: string,
  ) {}
  /** Ends voice states left over by sessions that no longer exist (soleNode: every node but this one is gone). */
  async start(_soleNode: boolean): Promise<void> {}
  async update(_session: Session, _request: VoiceStateRequest & { guildId: null }): Promise<void> {
    throw new Error('DM calls are being written');
  }
  sessionEnded(_session: Session): void {}
}
