// Changes as the domain records them ({key, old_value, new_value}) turned into a read-model $set.
import type { Change } from '../domain/guildState.js';

export const changeSet = (changes: readonly Change[]) => Object.fromEntries(changes.map((c) => [c.key, c.new_value]));
