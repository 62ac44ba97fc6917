// Stream ids of the guild side's aggregates, in one place so command modules can name each other's streams.
export const guildStream = (guildId: string) => `guild-${guildId}`;
export const inviteStream = (code: string) => `invite-${code}`;
export const vanityStream = (code: string) => `vanity-${code}`;
