/**
 * The one module that imports `@opentelemetry/api` as a value. Loaded only when tracing is on
 * (start-tracing.ts, through a dynamic import of this file): a node without OTEL_* never loads it,
 * and `hookrelay/testing` needs no package for it. Re-exported by a module of ours, so the CLI's
 * bundle keeps the names (.dependency-cruiser.cjs, no-dynamic-import-of-a-library).
 */
export { context, createTraceState, isSpanContextValid, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
