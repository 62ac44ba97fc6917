// READY's private_channels: the DM and group DM channels the user is a recipient of.
import type { Runtime } from '../infra/runtime.js';

export async function privateChannelsOf(runtime: Runtime, userId: string): Promise<unknown[]> {
  return runtime.readStore.find('channels', { type: { $in: [1, 3] }, recipient_ids: { $all: [userId] } });
}
