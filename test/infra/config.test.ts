// Voice settings read from the environment: RTC_REGIONS is checked whole at start-up (a bad value stops the start
// with one line saying what is expected), VOICE_ENDPOINT defaults to none and CALL_RING_TIMEOUT_MS to a minute.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../infra/config.js';

describe('voice configuration', () => {
  it('lists the widely used API’s regions by default, and takes a JSON list of {id, name, emoji}', () => {
    const defaults = loadConfig({});
    expect(defaults.rtcRegions.map((r) => r.id)).toContain('rotterdam');
    expect(defaults.voiceEndpoint).toBeNull();
    expect(defaults.callRingTimeoutMs).toBe(60_000);
    const own = loadConfig({
      RTC_REGIONS: JSON.stringify([{ id: 'home', name: 'Home', emoji: '🏠' }]),
      VOICE_ENDPOINT: 'media.example:443',
      CALL_RING_TIMEOUT_MS: '5000',
    });
    expect(own).toMatchObject({ rtcRegions: [{ id: 'home', name: 'Home', emoji: '🏠' }], voiceEndpoint: 'media.example:443', callRingTimeoutMs: 5000 });
  });

  it('refuses a list that is not one: bad JSON, empty, an entry without its fields, an id clients cannot send, repeated ids', () => {
    for (const value of [
      '[',
      '[]',
      '{}',
      '[{"id":"a","name":"A"}]',
      '[{"id":"Not An Id","name":"A","emoji":"x"}]',
      '[{"id":"a","name":"A","emoji":"x"},{"id":"a","name":"B","emoji":"y"}]',
    ]) {
      expect(() => loadConfig({ RTC_REGIONS: value }), value).toThrow(/RTC_REGIONS must be/);
    }
    expect(() => loadConfig({ CALL_RING_TIMEOUT_MS: '5' })).toThrow(/CALL_RING_TIMEOUT_MS/);
  });
});
