/**
 * Turns tracing on when the standard OTEL_* variables ask for it (otel-settings.ts), for as long as
 * a node runs: the API and the SDK are loaded then, and only then, through dynamic imports of our
 * own modules. Several nodes in one process share one SDK; the last to close flushes and stops it.
 * A problem is a warning line naming the variable or the missing package, never a failed start.
 *
 * The one place outside src/config/ that reads process.env, and only the standard OTEL_* names: the
 * SDK's exporter reads its own (OTEL_EXPORTER_OTLP_HEADERS, …) from process.env whatever we do, so
 * all of them are read where the SDK reads them, not split between config and here.
 */
import { accessSync, constants } from 'node:fs';
import { VERSION } from '../runtime/version.js';
import { OTLP_FILE_VARIABLES, traceSettingsOf } from './otel-settings.js';
import { useTracer } from './tracing.js';

/** The SDK's packages and their ranges, as package.json lists them (a test checks). */
export const OTEL_PACKAGES: Readonly<Record<string, string>> = {
  '@opentelemetry/api': '^1.9.1',
  '@opentelemetry/exporter-trace-otlp-http': '^0.223.1',
  '@opentelemetry/resources': '^2.12.1',
  '@opentelemetry/sdk-trace-base': '^2.12.1',
};

export interface Tracing {
  /** Whether spans are exported. */
  on: boolean;
  /** One line each, for the start's notices. */
  warnings: string[];
  /** Exports what is buffered (the last node to close), then stops. */
  close(): Promise<void>;
}

let shared: { users: number; shutdown: () => Promise<void> } | null = null;

export async function startTracing(env: Readonly<Record<string, string | undefined>> = process.env): Promise<Tracing> {
  const settings = traceSettingsOf(env);
  const warnings = [...settings.warnings];
  if (!settings.on) return { on: false, warnings, close: async () => {} };
  for (const name of OTLP_FILE_VARIABLES) {
    const file = env[name]?.trim();
    if (!file) continue;
    try {
      accessSync(file, constants.R_OK);
    } catch {
      warnings.push(`${name} names a file that cannot be read (${file}): spans are sent without it`);
    }
  }
  if (shared === null) {
    try {
      const [api, sdk] = await Promise.all([import('./otel-api.js'), import('./otel-sdk.js')]);
      const running = sdk.startSdk({ serviceName: settings.serviceName, serviceVersion: VERSION });
      useTracer(api, running.tracer);
      shared = { users: 0, shutdown: running.shutdown };
    } catch (err) {
      const missing = (err as { code?: string }).code === 'ERR_MODULE_NOT_FOUND';
      const install = Object.entries(OTEL_PACKAGES).map(([name, range]) => `'${name}@${range}'`).join(' ');
      warnings.push(missing ? `traces are off: the OpenTelemetry SDK is not installed (npm install ${install})` : `traces are off: the OpenTelemetry SDK did not start (${(err as Error).message})`);
      return { on: false, warnings, close: async () => {} };
    }
  }
  shared.users++;
  let closed = false;
  return {
    on: true,
    warnings,
    async close() {
      if (closed || shared === null) return;
      closed = true;
      if (--shared.users > 0) return;
      const { shutdown } = shared;
      shared = null;
      useTracer(null, null);
      try {
        await shutdown();
      } catch {
        // The collector is gone: what was buffered is lost, and the node closes all the same.
      }
    },
  };
}
