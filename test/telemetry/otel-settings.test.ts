/** Which OTEL_* values turn traces on, and the one-line warning each unusable value gives. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildForwardRequest } from '../../src/handoff/forward-request.js';
import { traceSettingsOf } from '../../src/telemetry/otel-settings.js';
import { OTEL_PACKAGES } from '../../src/telemetry/start-tracing.js';
import { startArrival, startBridgeSend, startRelayTry, tracingOn } from '../../src/telemetry/tracing.js';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' };

describe('traceSettingsOf', () => {
  it.each([
    ['no variable', {}, false],
    ['an endpoint', ENDPOINT, true],
    ['a traces endpoint', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://collector.example/v1/traces' }, true],
    ['an empty endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false],
    ['OTEL_SDK_DISABLED=true', { ...ENDPOINT, OTEL_SDK_DISABLED: 'TRUE' }, false],
    ['OTEL_SDK_DISABLED=false', { ...ENDPOINT, OTEL_SDK_DISABLED: 'false' }, true],
    ['OTEL_TRACES_EXPORTER=none', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }, false],
    ['OTEL_TRACES_EXPORTER=otlp', { ...ENDPOINT, OTEL_TRACES_EXPORTER: 'otlp' }, true],
  ])('%s → on: %s', (_what, env, on) => {
    const settings = traceSettingsOf(env);
    expect(settings.on).toBe(on);
    expect(settings.warnings).toEqual([]);
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'localhost:4318' }, false, 'OTEL_EXPORTER_OTLP_ENDPOINT is not an http(s):// URL: traces are off'],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://x', ...ENDPOINT }, false, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is not an http(s):// URL'],
    [{ ...ENDPOINT, OTEL_SDK_DISABLED: 'yes' }, true, 'OTEL_SDK_DISABLED="yes" is neither true nor false'],
    [{ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'zipkin' }, true, 'OTEL_TRACES_EXPORTER="zipkin": hookrelay exports traces over OTLP only'],
    [{ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, true, 'OTEL_EXPORTER_OTLP_PROTOCOL="grpc": hookrelay sends traces as http/json'],
  ])('%j: one line naming the variable', (env, on, line) => {
    const settings = traceSettingsOf(env);
    expect(settings.on).toBe(on);
    expect(settings.warnings).toHaveLength(1);
    expect(settings.warnings[0]).toContain(line);
    expect(settings.warnings[0]).not.toContain('\n');
  });

  it('names the service hookrelay unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(traceSettingsOf(ENDPOINT).serviceName).toBe('hookrelay');
    expect(traceSettingsOf({ ...ENDPOINT, OTEL_SERVICE_NAME: 'inbox' }).serviceName).toBe('inbox');
  });
});

describe('tracing off', () => {
  it('builds no span and adds no header', () => {
    expect(tracingOn()).toBe(false);
    expect(startArrival({ source: 'http', headers: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } })).toBeNull();
    expect(startRelayTry({ id: 'd1', headers: [] }, 'http://127.0.0.1:1/', { relayTry: 1, replay: false })).toBeNull();
    expect(startBridgeSend({ id: 'd1', seq: 1, trigger: 't', headers: [] }, 'laptop/desk')).toBeNull();
    const delivery = { id: 'd1', rawBody: Buffer.from('{}'), headers: [['x-service-delivery', 'd1'], ['traceparent', `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`]] as Array<[string, string]>, receivedAt: 0 };
    const input = { delivery, secret: 's', nowSeconds: 1, relayTry: 1, replay: false, extraHeaders: [] };
    const without = buildForwardRequest(input);
    expect(Object.keys(without.headers)).not.toContain('traceparent');
    expect(buildForwardRequest({ ...input, trace: null })).toEqual(without);
    const traced = buildForwardRequest({ ...input, trace: { traceparent: '00-x-y-01', tracestate: 'a=1' } });
    expect(traced.headers).toMatchObject({ traceparent: '00-x-y-01', tracestate: 'a=1' });
  });
});

it('names the SDK packages with the ranges package.json gives them', () => {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { dependencies: Record<string, string> };
  for (const [name, range] of Object.entries(OTEL_PACKAGES)) expect(manifest.dependencies[name], name).toBe(range);
});

describe('the SDK variables hookrelay passes on', () => {
  it.each([
    [{ OTEL_EXPORTER_OTLP_TIMEOUT: 'soon' }, 'OTEL_EXPORTER_OTLP_TIMEOUT="soon" is not a number of milliseconds'],
    [{ OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'zip' }, 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION="zip" is neither gzip nor none'],
    [{ OTEL_EXPORTER_OTLP_HEADERS: 'api-key' }, 'OTEL_EXPORTER_OTLP_HEADERS is not a list of name=value pairs'],
    [{ OTEL_BSP_SCHEDULE_DELAY: '1s' }, 'OTEL_BSP_SCHEDULE_DELAY="1s" is not a whole number'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER="sometimes" is not one of'],
    [{ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG="2" is not a ratio from 0 to 1'],
  ])('%j: one warning naming it, traces stay on', (env, line) => {
    const settings = traceSettingsOf({ ...ENDPOINT, ...env });
    expect(settings.on).toBe(true);
    expect(settings.warnings).toHaveLength(1);
    expect(settings.warnings[0]).toContain(line);
  });

  it('never repeats a header value (it may be an API key)', () => {
    const settings = traceSettingsOf({ ...ENDPOINT, OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key' + 'SECRETVALUE' });
    expect(settings.warnings.join('\n')).not.toContain('SECRETVALUE');
  });

  it('accepts good values without a word', () => {
    const settings = traceSettingsOf({ ...ENDPOINT, OTEL_EXPORTER_OTLP_TIMEOUT: '5000', OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip', OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc, other = d', OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    expect(settings.warnings).toEqual([]);
  });
});
