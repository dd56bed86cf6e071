/**
 * Server-sent events in one import: the raw stream (`sseStream.ts`: one connection, bounded
 * reading), the decoding of run-event frames (`runEventDecoder.ts`) and the one reconnect layer
 * of run-event streams (`runEventStream.ts`).
 */
export { MAX_EVENT_CHARS, SseConnection, Utf8Stream, checkEventStreamResponse, discard, streamSse } from './sseStream';
export type { SseMessage, SseReadResult, SseSink, SseStreamOptions } from './sseStream';
export { RunEventDecoder } from './runEventDecoder';
export type { FrameSource } from './runEventDecoder';
export { RunEventStream } from './runEventStream';
export type { RunEventStreamParams, StreamOutageEvent, StreamReconnectOptions } from './runEventStream';
