// A scenario's `mode` block, derived from the switch declarations
// (transport/switch-declarations.ts): a new switch is accepted here, by `--set
// mode.<name>` and by `--switch` without touching this file.
import * as z from 'zod';
import { PRESET_NAMES, SWITCHES } from '../transport/index.js';
import type { SwitchDeclaration, SwitchGroup, SwitchPatch, SwitchValue } from '../transport/index.js';
import { grouped } from './schema-fields.js';
import type { FieldSchemas } from './schema-fields.js';

/** What a scenario may set for one switch: a group field by field. */
type Override<D> = D extends SwitchGroup<infer F> ? { [K in keyof F]?: SwitchValue<F[K]> } : SwitchValue<D>;
type Shape<F> = { [K in keyof F]: z.ZodOptional<z.ZodType<Override<F[K]>>> };

/** The schema of one declared switch, with the one-line message of each refusal. */
function switchSchema(d: SwitchDeclaration, fields: FieldSchemas): z.ZodType {
  const { oneOf, positiveInt, positive, nonNegative, bool } = fields;
  switch (d.kind) {
    case 'choice':
      return oneOf(d.values);
    case 'flag':
      return bool;
    case 'count':
      return positiveInt(d.unit, d.max);
    case 'countOrNull':
      return z.union([positiveInt(d.unit, d.max), z.null()], {
        error: `expected a whole number of ${d.unit} 1..${grouped(d.max)}, or null for ${d.nullMeans}`,
      });
    case 'millis':
      return d.zero ? nonNegative('milliseconds', d.max) : positive('milliseconds', d.max);
    case 'subset':
      return z
        .array(oneOf(d.values))
        .max(d.values.length)
        .refine((list) => new Set(list).size === list.length, `expected each of ${d.values.join(', ')} at most once`);
  }
}

function switchShape<F extends Record<string, SwitchDeclaration | SwitchGroup>>(
  declared: F,
  fields: FieldSchemas,
): Shape<F> {
  const shape: Record<string, z.ZodOptional> = {};
  for (const [name, d] of Object.entries(declared)) {
    const schema = d.kind === 'group' ? z.strictObject(switchShape(d.fields, fields)) : switchSchema(d, fields);
    shape[name] = schema.optional();
  }
  // Built key by key from the declaration, so its type is the declaration's (TypeScript cannot
  // follow the loop); test/scenarios/switch-schema.test.ts holds every value to it.
  return shape as Shape<F>;
}

/** `{ "preset": "stock", "<switch>": … }`, every key but the preset optional. */
export function modeObjectSchema(fields: FieldSchemas) {
  return z.strictObject({ preset: fields.oneOf(PRESET_NAMES), ...switchShape(SWITCHES, fields) });
}

type Mode = z.output<ReturnType<typeof modeObjectSchema>>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** The compiler holds the schema's output to the transport's own override type, both ways. */
const modeIsSwitchPatch: Same<Omit<Mode, 'preset'>, SwitchPatch> = true;
void modeIsSwitchPatch;
