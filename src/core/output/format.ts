// Number formatting shared by the text, Markdown and HTML reports.

/** 12345 -> "12,345"; 0.12345 -> "0.123". */
export function fmt(value: number, digits = 3): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  const rounded = Number(value.toPrecision(digits));
  return Math.abs(rounded) >= 1000 ? Math.round(rounded).toLocaleString('en-US') : String(rounded);
}

/** Rounds for JSON/CSV so files stay stable and short: 4 significant digits. */
export function round4(value: number): number {
  if (!Number.isFinite(value) || Number.isInteger(value)) return value;
  return Number(value.toPrecision(4));
}

export function bytesLabel(bytes: number): string {
  if (bytes < 10_000) return `${fmt(bytes)} B`;
  if (bytes < 10_000_000) return `${fmt(bytes / 1024)} KiB`;
  return `${fmt(bytes / 1048576)} MiB`;
}

export function durationLabel(seconds: number): string {
  if (seconds < 120) return `${fmt(seconds)} s`;
  if (seconds < 7200) return `${fmt(seconds / 60)} min`;
  return `${fmt(seconds / 3600)} h`;
}

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Markdown-ish text as HTML: escaped, its `code spans` as <code> (a lone backtick stays as typed). */
export function textHtml(text: string): string {
  return escapeXml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
}
