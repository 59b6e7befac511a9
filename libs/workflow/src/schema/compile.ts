import { compileUserRegex } from '@docflow/safe-regex';
import Ajv, { type Options, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import Ajv2019 from 'ajv/dist/2019';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import draft06MetaSchema from 'ajv/dist/refs/json-schema-draft-06.json';
import { LRUCache } from 'lru-cache';
import { errorMessage } from '@docflow/service-kit';

/**
 * Compiles JSON Schemas (from the registry and from user definitions) with a
 * bounded cache. The dialect follows `$schema`: draft-07 (and draft-06) by
 * default, 2019-09 and 2020-12 when declared. Unknown keywords are tolerated
 * (`strict: false`) because designers add annotations such as `x-ui`; the
 * schema itself is still checked against its meta-schema.
 *
 * `pattern` and `patternProperties` come from users (input schemas reach the
 * public API's event loop), so ajv runs them in RE2 through libs/safe-regex:
 * linear-time matching, no lookaround or backreferences (issue #13). A
 * pattern RE2 cannot run makes the schema unusable, with the reason.
 */

type AnyAjv = Ajv | Ajv2019 | Ajv2020;
type Dialect = 'draft-07' | '2019-09' | '2020-12';

// ajv always asks for the `u` flag (unicodeRegExp); RE2 is Unicode-aware without it.
const re2: RegExpEngine = Object.assign((pattern: string) => compileUserRegex(pattern), { code: 're2' });
const OPTIONS: Options = { allErrors: true, strict: false, verbose: true, code: { regExp: re2 } };
const CACHE_LIMIT = 500;

const instances = new Map<Dialect, AnyAjv>();
/** Least recently used schemas go first; an evicted schema leaves its ajv instance too. */
const cache = new LRUCache<string, { validate: ValidateFunction; schema: object; ajv: AnyAjv }>({
  max: CACHE_LIMIT,
  dispose: (evicted) => evicted.ajv.removeSchema(evicted.schema),
});

function instanceFor(dialect: Dialect): AnyAjv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    switch (dialect) {
      case 'draft-07': {
        const draft07 = new Ajv(OPTIONS);
        draft07.addMetaSchema(draft06MetaSchema);
        ajv = draft07;
        break;
      }
      case '2019-09':
        ajv = new Ajv2019(OPTIONS);
        break;
      case '2020-12':
        ajv = new Ajv2020(OPTIONS);
        break;
      default: {
        const never: never = dialect;
        throw new Error(`unknown dialect ${String(never)}`);
      }
    }
    addFormats(ajv);
    instances.set(dialect, ajv);
  }
  return ajv;
}

function dialectOf(schema: object): Dialect | { error: string } {
  const declared: unknown = (schema as Record<string, unknown>)['$schema'];
  if (declared === undefined) return 'draft-07';
  if (typeof declared !== 'string') return { error: '$schema must be a string' };
  if (/draft-0[67]\/schema#?$/.test(declared)) return 'draft-07';
  if (declared.includes('/draft/2019-09/')) return '2019-09';
  if (declared.includes('/draft/2020-12/')) return '2020-12';
  return { error: `unsupported $schema ${declared} (use draft-07, 2019-09 or 2020-12)` };
}

export type CompileResult = { validate: ValidateFunction } | { error: string };

/** Compiles `schema` (an object or a boolean schema), or says why it is not a usable JSON Schema. */
export function compileSchema(schema: unknown): CompileResult {
  if (typeof schema === 'boolean') schema = schema ? {} : { not: {} };
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
    return { error: 'must be a JSON Schema object' };
  }
  const dialect = dialectOf(schema);
  if (typeof dialect !== 'string') return dialect;
  let key: string;
  try {
    key = `${dialect}:${JSON.stringify(schema)}`;
  } catch {
    return { error: 'must be JSON-serialisable' };
  }
  const hit = cache.get(key);
  if (hit) return { validate: hit.validate };

  const ajv = instanceFor(dialect);
  const id: unknown = (schema as Record<string, unknown>)['$id'];
  if (typeof id === 'string') ajv.removeSchema(id);
  try {
    const validate = ajv.compile(schema);
    cache.set(key, { validate, schema, ajv });
    return { validate };
  } catch (err) {
    ajv.removeSchema(schema);
    return { error: errorMessage(err).replace(/^schema is invalid: /, '') };
  }
}
