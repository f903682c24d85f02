// Colours of the report charts. Series take the Okabe–Ito palette (Okabe & Ito,
// "Color Universal Design"), told apart under the common colour-vision
// deficiencies; its yellow is left out, too light to read as a line. The first
// two (stock and fixed in most reports) keep 3:1 contrast on every phase fill.
// Phases are hueless greys, told apart by lightness and hatching, so no series
// colour, nor its tinted band, can be mistaken for a phase.

/** Okabe–Ito: vermillion, blue, bluish green, black, reddish purple, orange, sky blue. */
export const PALETTE = ['#d55e00', '#0072b2', '#009e73', '#000000', '#cc79a7', '#e69f00', '#56b4e9'];

export interface PhaseStyle {
  /** The phase's background, a neutral grey. */
  readonly fill: string;
  /** Hatch lines over it, at this angle (degrees), or none. */
  readonly hatch: number | null;
}

/** Colour of every hatch line. */
const HATCH_COLOR = '#d6d6d6';

/** Each traffic phase kind, in charts and in the HTML key. */
export const PHASE_STYLE: Record<string, PhaseStyle> = {
  combat: { fill: '#eeeeee', hatch: 45 },
  lull: { fill: '#f2f2f2', hatch: null },
  quiet: { fill: '#fafafa', hatch: null },
  lobby: { fill: '#f7f7f7', hatch: 0 },
  join: { fill: '#f2f2f2', hatch: -45 },
  disconnect: { fill: '#eeeeee', hatch: 90 },
};

const OTHER_PHASE: PhaseStyle = { fill: '#f4f4f4', hatch: null };

export function phaseStyle(kind: string): PhaseStyle {
  return PHASE_STYLE[kind] ?? OTHER_PHASE;
}

/** The SVG <pattern> of a hatched phase, for `url(#id)`; lines 5 px apart. */
export function hatchPattern(id: string, angle: number): string {
  return `<pattern id="${id}" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(${angle})"><line x1="0" y1="0" x2="0" y2="5" stroke="${HATCH_COLOR}" stroke-width="1.2"/></pattern>`;
}

/** The CSS background of a phase's swatch in the HTML key. */
export function phaseSwatchCss(style: PhaseStyle): string {
  if (style.hatch === null) return `background:${style.fill}`;
  // CSS angles run clockwise from 12 o'clock; SVG's rotate of a vertical line matches `90deg + angle`.
  return `background:repeating-linear-gradient(${90 + style.hatch}deg,${HATCH_COLOR} 0 1.2px,${style.fill} 1.2px 5px)`;
}
