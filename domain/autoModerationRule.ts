// An auto-moderation rule as the guild's state, its events and the widely used API hold it (domain/autoModeration.ts
// decides on it; domain/guildState.ts keeps the guild's).
/** Only the fields of the rule's trigger type are kept (and answered). */
export interface TriggerMetadata {
  keyword_filter?: string[];
  regex_patterns?: string[];
  presets?: number[];
  allow_list?: string[];
  mention_total_limit?: number;
  mention_raid_protection_enabled?: boolean;
}

export interface AutoModerationAction {
  type: number;
  metadata: { channel_id?: string; duration_seconds?: number; custom_message?: string };
}

export interface AutoModerationRuleData {
  id: string;
  guild_id: string;
  name: string;
  creator_id: string;
  event_type: number;
  trigger_type: number;
  trigger_metadata: TriggerMetadata;
  actions: AutoModerationAction[];
  enabled: boolean;
  exempt_roles: string[];
  exempt_channels: string[];
}
