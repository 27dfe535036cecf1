/**
 * The SDK: a tracer provider with a batch processor and the OTLP/HTTP (JSON) exporter. Loaded only
 * when the OTEL_* variables ask for tracing (start-tracing.ts imports this file on demand), so a node
 * without them never reads these packages. The exporter reads its own standard variables
 * (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION, _CERTIFICATE, …), and the
 * batch processor the OTEL_BSP_* ones. The provider is not registered globally: hookrelay holds its
 * own tracer, so a host app's own OpenTelemetry set-up is left alone.
 */
import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface RunningSdk {
  tracer: Tracer;
  /** Exports what is buffered, then stops. */
  shutdown(): Promise<void>;
}

export function startSdk(settings: { serviceName: string; serviceVersion: string }): RunningSdk {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName, 'service.version': settings.serviceVersion }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())],
  });
  return {
    tracer: provider.getTracer('hookrelay', settings.serviceVersion),
    shutdown: () => provider.shutdown(),
  };
}
