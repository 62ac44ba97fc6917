// READY's private_channels: the DM and group DM channels the user is a recipient of and has not closed.
import { dmChannelObject } from '../presenters/messages.js';
import type { GatewayDeps } from './deps.js';
import { privateChannelDocsOf } from '../projections/dms.queries.js';

export async function privateChannelsOf(runtime: GatewayDeps, userId: string) {
  const docs = await privateChannelDocsOf(runtime.readStore, userId);
  return docs.filter((doc) => !doc.closed_by.includes(userId)).map((doc) => dmChannelObject(doc, userId));
}
