/**
 * Whether the standard OTEL_* variables ask for traces, read once at start. Pure: the environment
 * is a parameter. Tracing is on when an OTLP endpoint is given (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), unless OTEL_TRACES_EXPORTER is `none` or OTEL_SDK_DISABLED is
 * `true`. A value hookrelay cannot use is a warning naming the variable, never a failed start.
 */
export interface TraceSettings {
  on: boolean;
  serviceName: string;
  /** One line each, naming the variable. */
  warnings: string[];
}

const PROTOCOL = 'http/json';

export function traceSettingsOf(env: Readonly<Record<string, string | undefined>>): TraceSettings {
  const warnings: string[] = [];
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v === undefined || v === '' ? undefined : v;
  };
  const serviceName = value('OTEL_SERVICE_NAME') ?? 'hookrelay';
  const off = (why?: string): TraceSettings => {
    if (why) warnings.push(why);
    return { on: false, serviceName, warnings };
  };

  const disabled = value('OTEL_SDK_DISABLED');
  if (disabled !== undefined && !/^(true|false)$/i.test(disabled)) warnings.push(`OTEL_SDK_DISABLED=${JSON.stringify(disabled)} is neither true nor false: read as false`);
  if (disabled?.toLowerCase() === 'true') return off();

  const exporters = value('OTEL_TRACES_EXPORTER');
  if (exporters !== undefined) {
    const names = exporters.split(',').map((name) => name.trim().toLowerCase());
    if (names.includes('none')) return off();
    const unknown = names.filter((name) => name !== 'otlp');
    if (unknown.length > 0) warnings.push(`OTEL_TRACES_EXPORTER=${JSON.stringify(exporters)}: hookrelay exports traces over OTLP only; ${unknown.join(', ')} ignored`);
  }

  const endpointName = value('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT') !== undefined ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  const endpoint = value(endpointName);
  if (endpoint === undefined) return off();
  if (!isHttpUrl(endpoint)) return off(`${endpointName} is not an http(s):// URL: traces are off`);

  for (const name of ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL']) {
    const protocol = value(name);
    if (protocol !== undefined && protocol !== PROTOCOL) {
      warnings.push(`${name}=${JSON.stringify(protocol)}: hookrelay sends traces as ${PROTOCOL} (OTLP over HTTP, JSON bodies); set it to ${PROTOCOL} or leave it out`);
      break;
    }
  }
  for (const prefix of ['OTEL_EXPORTER_OTLP_TRACES_', 'OTEL_EXPORTER_OTLP_']) {
    const timeout = value(`${prefix}TIMEOUT`);
    if (timeout !== undefined && !/^[1-9][0-9]*$/.test(timeout)) warnings.push(`${prefix}TIMEOUT=${JSON.stringify(timeout)} is not a number of milliseconds: the default (10000) is used`);
    const compression = value(`${prefix}COMPRESSION`);
    if (compression !== undefined && compression !== 'gzip' && compression !== 'none') warnings.push(`${prefix}COMPRESSION=${JSON.stringify(compression)} is neither gzip nor none: none is used`);
    // Not the value: it may hold an API key.
    const headers = value(`${prefix}HEADERS`);
    if (headers !== undefined && !headers.split(',').every((pair) => /^\s*[^=\s]+\s*=/.test(pair))) warnings.push(`${prefix}HEADERS is not a list of name=value pairs separated by commas: the malformed ones are not sent`);
  }
  for (const name of ['OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BSP_EXPORT_TIMEOUT', 'OTEL_BSP_MAX_QUEUE_SIZE', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE']) {
    const n = value(name);
    if (n !== undefined && !/^[0-9]+$/.test(n)) warnings.push(`${name}=${JSON.stringify(n)} is not a whole number: the default is used`);
  }
  const sampler = value('OTEL_TRACES_SAMPLER');
  if (sampler !== undefined && !SAMPLERS.has(sampler)) warnings.push(`OTEL_TRACES_SAMPLER=${JSON.stringify(sampler)} is not one of ${[...SAMPLERS].join(', ')}: parentbased_always_on is used`);
  const ratio = value('OTEL_TRACES_SAMPLER_ARG');
  if (ratio !== undefined && sampler?.includes('traceidratio') && !(Number(ratio) >= 0 && Number(ratio) <= 1)) warnings.push(`OTEL_TRACES_SAMPLER_ARG=${JSON.stringify(ratio)} is not a ratio from 0 to 1: 1 is used`);
  return { on: true, serviceName, warnings };
}

const SAMPLERS = new Set(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']);

/** The certificate and key files the exporter reads (a variable naming a file it cannot read: a warning). */
export const OTLP_FILE_VARIABLES = ['CERTIFICATE', 'CLIENT_CERTIFICATE', 'CLIENT_KEY'].flatMap((name) => [`OTEL_EXPORTER_OTLP_TRACES_${name}`, `OTEL_EXPORTER_OTLP_${name}`]);

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
