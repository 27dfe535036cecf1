/** `--route GLOB=URL` in the core: parsing, refusals that name the cause, and first-match-wins. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isTriggerGlob, matchesCatalogue, parseRoute, relayTargetOf, type Route } from '../../src/core/routes.js';

describe('parseRoute', () => {
  it.each([
    ['vendor.*=http://127.0.0.1:3001/vendor', { glob: 'vendor.*', urls: ['http://127.0.0.1:3001/vendor'] }],
    [' trustcenter.access_? = https://localhost:3443/tc ', { glob: 'trustcenter.access_?', urls: ['https://localhost:3443/tc'] }],
    // The glob ends at the first "=": a query string keeps its own.
    ['*=http://127.0.0.1:3000/hook?a=1&b=2', { glob: '*', urls: ['http://127.0.0.1:3000/hook?a=1&b=2'] }],
    ['sod.violation_detected=http://LOCALHOST:3000', { glob: 'sod.violation_detected', urls: ['http://localhost:3000/'] }],
  ])('reads %j', (text, route) => {
    expect(parseRoute(text)).toEqual({ ok: true, route });
  });

  it.each([
    ['vendor.*', /has no "="/],
    ['=http://127.0.0.1:3000/', /has no glob before "="/],
    ['vendor .*=http://127.0.0.1:3000/', /the glob "vendor \.\*" is not a trigger glob/],
    ['vendor/*=http://127.0.0.1:3000/', /is not a trigger glob/],
    ['vendor.*=127.0.0.1:3000', /is not a URL \(the scheme is missing/],
    ['vendor.*=localhost:3000/hook', /must be an http or https URL \(the scheme is missing/],
    ['vendor.*=not a url', /"not" is not a URL \(the scheme is missing/],
    ['vendor.*=ftp://127.0.0.1/x', /must be an http or https URL, got ftp:/],
    ['vendor.*=', /has no target after "="/],
  ])('refuses %j, naming why', (text, why) => {
    const parsed = parseRoute(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(why);
  });

  it('never echoes more than 200 characters of hostile input', () => {
    const parsed = parseRoute(`${'x'.repeat(5000)}`);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message.length).toBeLessThan(400);
  });
});

describe('relayTargetOf: the one choice of a target', () => {
  const routes: Route[] = [
    { glob: 'vendor.rating_dropped', urls: ['http://a/'] },
    { glob: 'vendor.*', urls: ['http://b/'] },
    { glob: 'trustcenter.access_*', urls: ['http://c/'] },
  ];

  it.each([
    ['vendor.rating_dropped', 'http://a/'],
    ['vendor.other', 'http://b/'],
    ['trustcenter.access_requested', 'http://c/'],
    ['trustcenter.resource_downloaded', 'http://fallback/'],
    ['', 'http://fallback/'],
  ])('sends %j to %s: the first matching route, else the fallback', (trigger, target) => {
    expect(relayTargetOf({ to: 'http://fallback/', routes }, { trigger })).toBe(target);
  });

  it('sends everything to the fallback when there are no routes', () => {
    expect(relayTargetOf({ to: 'http://fallback/', routes: [] }, { trigger: 'vendor.x' })).toBe('http://fallback/');
  });

  it('always picks the first route whose glob matches (property)', () => {
    const glob = fc.stringMatching(/^[a-c.*?]{1,6}$/);
    const FALLBACK = 'http://fallback/';
    const matches = (route: Route, trigger: string) => relayTargetOf({ to: FALLBACK, routes: [route] }, { trigger }) !== FALLBACK;
    fc.assert(
      fc.property(fc.array(glob, { maxLength: 6 }), fc.stringMatching(/^[a-c.]{0,6}$/), (globs, trigger) => {
        const table = globs.map((g, i) => ({ glob: g, urls: [`http://t${i}/`] }));
        const chosen = relayTargetOf({ to: FALLBACK, routes: table }, { trigger });
        const index = table.findIndex((r) => r.urls[0] === chosen);
        if (index < 0) return chosen === FALLBACK && table.every((r) => !matches(r, trigger));
        // Matching is the trigger-glob matcher: a route is chosen only if it matches, and none before it did.
        return table.slice(0, index).every((r) => !matches(r, trigger)) && matches(table[index]!, trigger);
      }),
      { seed: 15, numRuns: 300 },
    );
  });
});

describe('trigger globs', () => {
  it('knows which globs match the catalogue', () => {
    expect(matchesCatalogue('vendor.*')).toBe(true);
    expect(matchesCatalogue('*')).toBe(true);
    expect(matchesCatalogue('vendr.*')).toBe(false);
    expect(isTriggerGlob('a b')).toBe(false);
    expect(isTriggerGlob('x'.repeat(257))).toBe(false);
  });
});
