/** Fan-out in the core: a route of several targets, `--also` routes, and the one choice of a delivery's targets. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ROUTE_TARGETS, parseRoute, relayJobsOf, relayTargetOf, relayTargetsOf, type Route } from '../../src/core/routes.js';

const FALLBACK = 'http://fallback/';

describe('parseRoute: several targets', () => {
  it('reads the targets after "=", separated by spaces, in order, each normalised', () => {
    expect(parseRoute('vendor.*=http://127.0.0.1:3001/a  HTTPS://Audit.example/b?x=1,2')).toEqual({
      ok: true,
      route: { glob: 'vendor.*', urls: ['http://127.0.0.1:3001/a', 'https://audit.example/b?x=1,2'] },
    });
  });

  it('reads the targets of a filtered route after its " = ", the conditions holding "=" and words', () => {
    const parsed = parseRoute('vendor.* where /data/name = "a = b" and /data/risk >= 70 = http://a/one http://b/two');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.route.urls).toEqual(['http://a/one', 'http://b/two']);
    expect(parsed.route.where!.map((c) => c.text)).toEqual(['/data/name = "a = b"', '/data/risk >= 70']);
  });

  it('marks an --also route, and only when asked', () => {
    expect(parseRoute('*=http://a/', true)).toEqual({ ok: true, route: { glob: '*', urls: ['http://a/'], also: true } });
    expect(parseRoute('*=http://a/')).toEqual({ ok: true, route: { glob: '*', urls: ['http://a/'] } });
  });

  it.each([
    ['vendor.*=http://a/ http://a/', /names "http:\/\/a\/" twice/],
    ['vendor.*=http://a/ ftp://b/', /must be an http or https URL, got ftp:/],
    ['vendor.*=http://a/ b.example', /"b.example" is not a URL \(the scheme is missing/],
    [`vendor.*=${Array.from({ length: MAX_ROUTE_TARGETS + 1 }, (_, i) => `http://t${i}/`).join(' ')}`, new RegExp(`names ${MAX_ROUTE_TARGETS + 1} targets: at most ${MAX_ROUTE_TARGETS}`)],
  ])('refuses %j, naming why', (text, why) => {
    const parsed = parseRoute(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(why);
  });

  it('never echoes a target\'s credentials in a refusal', () => {
    const parsed = parseRoute('vendor.*=http://bob:Hunter2Pass@a/ http://bob:Hunter2Pass@a/');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).not.toContain('Hunter2Pass');
  });
});

describe('relayTargetsOf: the first route\'s targets, else the fallback, and every matching --also route\'s', () => {
  const routes: Route[] = [
    { glob: 'vendor.rating_dropped', urls: ['http://app/', 'http://risk/'] },
    { glob: 'vendor.*', urls: ['http://app/'] },
    { glob: '*', urls: ['http://log/'], also: true },
    { glob: 'vendor.*', urls: ['http://risk/', 'http://audit/'], also: true },
  ];

  it.each([
    ['vendor.rating_dropped', ['http://app/', 'http://risk/', 'http://log/', 'http://audit/']],
    ['vendor.other', ['http://app/', 'http://log/', 'http://risk/', 'http://audit/']],
    ['trustcenter.access_requested', [FALLBACK, 'http://log/']],
  ])('hands %j to %j, each target once', (trigger, targets) => {
    expect(relayTargetsOf({ to: FALLBACK, routes }, { trigger })).toEqual(targets);
  });

  it('never takes an --also route as the first match, however early it is written', () => {
    const early: Route[] = [{ glob: '*', urls: ['http://log/'], also: true }, { glob: 'vendor.*', urls: ['http://app/'] }];
    expect(relayTargetsOf({ to: FALLBACK, routes: early }, { trigger: 'vendor.x' })).toEqual(['http://app/', 'http://log/']);
    expect(relayTargetOf({ to: FALLBACK, routes: early }, { trigger: 'vendor.x' })).toBe('http://app/');
    expect(relayTargetOf({ to: FALLBACK, routes: early }, { trigger: 'sod.x' })).toBe(FALLBACK);
  });

  it('applies an --also route\'s filter on the body', () => {
    const filtered = parseRoute('vendor.* where /data/risk >= 70 = http://risk/', true);
    if (!filtered.ok) throw new Error(filtered.message);
    const targets = { to: FALLBACK, routes: [filtered.route] };
    const body = (risk: number) => Buffer.from(JSON.stringify({ data: { risk } }));
    expect(relayTargetsOf(targets, { trigger: 'vendor.x', rawBody: body(80), headers: [] })).toEqual([FALLBACK, 'http://risk/']);
    expect(relayTargetsOf(targets, { trigger: 'vendor.x', rawBody: body(10), headers: [] })).toEqual([FALLBACK]);
  });

  it('gives each target its own order key, only for the targets that are ordered', () => {
    const targets = { to: FALLBACK, routes, order: { 'http://audit/': { text: 'trigger', key: 'trigger' as const, onDead: 'skip' as const } } };
    expect(relayJobsOf(targets, { trigger: 'vendor.other' })).toEqual([
      { target: 'http://app/', orderKey: null },
      { target: 'http://log/', orderKey: null },
      { target: 'http://risk/', orderKey: null },
      { target: 'http://audit/', orderKey: expect.any(String) },
    ]);
  });

  it('always names distinct targets, the first route\'s (or the fallback) first (property)', () => {
    const url = fc.constantFrom('http://a/', 'http://b/', 'http://c/', FALLBACK);
    const route = fc.record({ glob: fc.constantFrom('*', 'vendor.*', 'sod.*', 'vendor.x'), urls: fc.uniqueArray(url, { minLength: 1, maxLength: 3 }), also: fc.constantFrom(undefined, true as const) });
    fc.assert(
      fc.property(fc.array(route, { maxLength: 6 }), fc.constantFrom('vendor.x', 'sod.y', 'trustcenter.z'), (table, trigger) => {
        const routesOf = table.map(({ also, ...r }) => (also ? { ...r, also } : r));
        const targets = relayTargetsOf({ to: FALLBACK, routes: routesOf }, { trigger });
        expect(new Set(targets).size).toBe(targets.length);
        expect(targets[0]).toBe(relayTargetOf({ to: FALLBACK, routes: routesOf }, { trigger }));
      }),
      { seed: 41, numRuns: 300 },
    );
  });
});
