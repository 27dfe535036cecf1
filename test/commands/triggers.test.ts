import { describe, expect, it } from 'vitest';
import { registerTriggersCommand } from '../../src/commands/triggers.js';
import { runCli } from '../sender/helpers/cli.js';

describe('hookrelay triggers', () => {
  it('prints the seven triggers with tier, description and data fields', async () => {
    const { out, exitCode } = await runCli(registerTriggersCommand, ['triggers']);
    expect(exitCode).toBeUndefined();
    for (const name of [
      'trustcenter.access_requested', 'trustcenter.access_approved', 'trustcenter.access_rejected', 'trustcenter.resource_downloaded',
      'control.drift_detected', 'vendor.rating_dropped', 'sod.violation_detected',
    ]) {
      expect(out).toMatch(new RegExp(`^${name.replace('.', '\\.')}\\s+(premium|core)\\s+\\S`, 'm'));
    }
    expect(out).toMatch(/^trustcenter\.resource_downloaded\s+premium/m);
    expect(out).toContain('data: accessEventId, resourceId, visitorTokenId, channel, watermarked, occurredAt');
  });

  it('prints the catalogue entries as JSON with --json', async () => {
    const { out } = await runCli(registerTriggersCommand, ['triggers', '--json']);
    const entries = JSON.parse(out);
    expect(entries).toHaveLength(7);
    expect(entries[1]).toEqual({
      trigger: 'trustcenter.access_approved',
      description: expect.any(String),
      tier: 'premium',
      status: 'active',
      entitled: true,
      dataFields: ['accessRequestId', 'visitorTokenId', 'decidedBy'],
    });
  });
});
