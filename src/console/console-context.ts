/** What the control API routes share. */
import type { ConsoleServerOptions } from './console-options.js';
import type { CursorCodec } from './cursor.js';
import type { Feed } from './feed.js';
import type { StatusView } from './views.js';

export interface ConsoleContext {
  options: ConsoleServerOptions;
  cursors: CursorCodec;
  feed: Feed;
  now: () => number;
  /** Applied to free text from adapters and notices (options.redact, or identity). */
  redact: (text: string) => string;
  /** `options.status()`, reduced to the fields that may be shown. */
  status: () => StatusView;
}
