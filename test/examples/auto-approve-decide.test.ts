/** examples/auto-approve's rule: an email's domain against the allowed ones, for hostile addresses too. */
import { describe, expect, it } from 'vitest';
import { decide, emailDomain } from '../../examples/auto-approve/decide.js';

const ALLOWED = ['example.com', 'partner.test'];

describe('auto-approve decide', () => {
  it.each([
    ['visitor1@example.com', true],
    ['Visitor@EXAMPLE.COM', true],
    ['a@eu.example.com', true],
    ['a@partner.test', true],
    ['a@evil-example.com', false],
    ['a@example.com.evil.test', false],
    ['example.com@evil.test', false],
    ['a@b@example.com', true],
    ['no-at-sign', false],
    ['@example.com', false],
    ['a@', false],
  ])('%s → approve %s', (email, approve) => {
    const decision = decide({ id: 'r', visitorEmail: email }, ALLOWED);
    expect(decision.approve).toBe(approve);
    if (decision.approve) expect(decision.reference.length).toBeLessThanOrEqual(500);
    else expect(decision.reason.length).toBeGreaterThan(0);
  });

  it('keeps a refused reason short whatever the requester typed', () => {
    const decision = decide({ id: 'r', visitorEmail: `a@${'x'.repeat(5000)}.test` }, ALLOWED);
    expect(decision.approve).toBe(false);
    expect(!decision.approve && decision.reason.length).toBeLessThan(300);
  });

  it('keeps an approval\'s reference within the 500 characters the service takes (spec 4.3), however long the allowed subdomain', () => {
    const decision = decide({ id: 'r', visitorEmail: `mallory@${'x'.repeat(480)}.example.com` }, ALLOWED);
    expect(decision.approve).toBe(true);
    expect(decision.approve && decision.reference.length).toBeLessThanOrEqual(500);
  });

  it('takes the domain after the last @, lowercased', () => {
    expect(emailDomain('x@y@Z.Test ')).toBe('z.test');
    expect(emailDomain('x')).toBeNull();
  });
});
