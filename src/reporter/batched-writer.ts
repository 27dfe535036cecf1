/** Collects lines and writes them once per event-loop turn: one syscall for many attempts. */
export interface LineSink {
  write(line: string): void;
  flush(): void;
}

export function batchedWriter(stream: NodeJS.WritableStream): LineSink {
  let buffer = '';
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (buffer === '') return;
    const out = buffer;
    buffer = '';
    stream.write(out);
  };
  return {
    write(line) {
      buffer += `${line}\n`;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}
