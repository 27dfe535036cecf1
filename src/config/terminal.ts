/** Whether a command colours its terminal output: a terminal, and no NO_COLOR (https://no-color.org). */
export function useColor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(stream.isTTY) && !env.NO_COLOR;
}
