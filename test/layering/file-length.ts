// Lines of a file as an editor counts them: a final newline ends the last line, it does not start one.
export function longFiles(files: readonly { path: string; text: string }[], limitLines: number): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const lines = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
    if (lines > limitLines) out.push(`${path}: ${lines} lines`);
  }
  return out;
}
