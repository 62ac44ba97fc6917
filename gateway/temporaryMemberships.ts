// A member who joined through a temporary invite is removed when they disconnect, as on the widely used API, unless a
// role was given to them meanwhile (the EndTemporaryMembership rule in domain/member.ts). "Disconnect" is their last
// session ending for good (closed with 1000 or 1001, not resumed within the resume window, or refused a RESUME), not
// a connection that drops: that session is kept for a RESUME, and a network blip or a gateway restart (op 7, then
// RESUME) is no reason to lose the guild. Other gateway nodes tell whether the user has a session there in their
// presence announcements (gateway/presence.ts), which a node that just started hears within a minute; two last
// sessions ending on two nodes closer together than a hint travels each see the other still there, and that
// membership ends with the user's next disconnect instead.
import { endTemporaryMemberships } from '../commands/guilds.js';
import { BackgroundWork } from './background.js';
import type { GatewayDeps } from './deps.js';

export class TemporaryMemberships {
  /** Memberships being ended, which a closing gateway waits for before the store closes. */
  private readonly ending: BackgroundWork;

  constructor(private readonly runtime: GatewayDeps) {
    this.ending = new BackgroundWork((error) => runtime.log.error({ err: error }, 'temporary memberships of a disconnected user not ended'));
  }

  /** The user's last session ended: the user is the actor, as when they leave a guild themselves. */
  lastSessionEnded(userId: string): void {
    void this.ending.add(endTemporaryMemberships(this.runtime, { actorId: userId }));
  }

  /** Resolves once the memberships of users disconnected so far are ended. */
  stop(): Promise<void> {
    return this.ending.settled();
  }
}
