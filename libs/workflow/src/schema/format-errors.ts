import type { ErrorObject } from 'ajv';
import { isPlainObject } from '@docflow/service-kit';
import { TEMPLATE_STRING_PATTERN } from '../task-types/schema-fragments';

/**
 * Turns ajv errors into short sentences that name the field:
 * `inputs.amount must be number`, `config.url is required`,
 * `config.to must be array or a {{template}} string`.
 *
 * anyOf/oneOf failures are collapsed: when the value has the type of exactly
 * one (non-template) branch, that branch's errors are reported; otherwise one
 * sentence lists the accepted forms.
 */

const PATTERN_HINTS: ReadonlyMap<string, string> = new Map([
  [TEMPLATE_STRING_PATTERN, 'a single {{template}}'],
  ['^\\$', 'a JSONPath starting with $'],
  ['^[^.\\s]+(\\.[^.\\s]+)*$', 'a dot-notation path such as status or data.state'],
]);

export function formatSchemaErrors(errors: readonly ErrorObject[] | null | undefined, label: string): string[] {
  return [...new Set(describe(errors ?? [], label))];
}

function describe(errors: readonly ErrorObject[], label: string): string[] {
  const composites = errors.filter(isComposite);
  const outermost = composites.filter((c) => !composites.some((o) => o !== c && isInside(c, o)));
  const messages: string[] = [];
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    if (outermost.includes(error)) {
      messages.push(
        ...describeComposite(
          error,
          errors.filter((e) => isInside(e, error)),
          label,
        ),
      );
    } else if (!outermost.some((c) => isInside(error, c))) {
      messages.push(formatOne(error, label));
    }
  }
  return messages;
}

function isComposite(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

/** Whether `error` comes from a branch of `composite` (same schema location and the same or a nested value). */
function isInside(error: ErrorObject, composite: ErrorObject): boolean {
  const sameValue = error.instancePath === composite.instancePath || error.instancePath.startsWith(`${composite.instancePath}/`);
  return sameValue && error.schemaPath.startsWith(`${composite.schemaPath}/`);
}

function describeComposite(composite: ErrorObject, children: readonly ErrorObject[], label: string): string[] {
  const path = renderPath(label, composite.instancePath);
  const branches: unknown = composite.schema;
  const passing = (composite.params as Record<string, unknown>)['passingSchemas'];
  if (composite.keyword === 'oneOf' && Array.isArray(passing)) {
    return [`${path} must match exactly one of the allowed forms`];
  }
  if (!Array.isArray(branches)) return [formatOne(composite, label)];

  const branchErrors = (index: number) => children.filter((e) => e.schemaPath.startsWith(`${composite.schemaPath}/${index}/`));
  const candidates = branches
    .map((_, index) => index)
    .filter((index) => !isTemplateBranch(branches[index]))
    .filter((index) => !branchErrors(index).some((e) => e.keyword === 'type' && e.instancePath === composite.instancePath && e.schemaPath === `${composite.schemaPath}/${index}/type`));
  const only = candidates.length === 1 ? candidates[0] : undefined;
  if (only !== undefined) return describe(branchErrors(only), label);

  const requiredOnly = branches.map(requiredOnlyFields);
  if (requiredOnly.every((fields): fields is string[] => fields !== undefined)) {
    return [`${path} must include ${requiredOnly.map((fields) => fields.join(' and ')).join(', or ')}`];
  }
  const forms = branches.map(describeBranch);
  if (forms.every((form): form is string => form !== undefined)) return [`${path} must be ${forms.join(' or ')}`];
  return [`${path} must match one of the allowed forms`];
}

function isTemplateBranch(branch: unknown): boolean {
  return isPlainObject(branch) && branch['pattern'] === TEMPLATE_STRING_PATTERN;
}

function requiredOnlyFields(branch: unknown): string[] | undefined {
  if (!isPlainObject(branch)) return undefined;
  const keys = Object.keys(branch).filter((k) => k !== 'description' && k !== 'title');
  const required = branch['required'];
  if (keys.length !== 1 || !Array.isArray(required) || !required.every((r) => typeof r === 'string')) return undefined;
  return required as string[];
}

function describeBranch(branch: unknown): string | undefined {
  if (!isPlainObject(branch)) return undefined;
  if (isTemplateBranch(branch)) return 'a {{template}} string';
  if ('const' in branch) return JSON.stringify(branch['const']);
  const type = branch['type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.join(' or ');
  return undefined;
}

function formatOne(error: ErrorObject, label: string): string {
  const path = renderPath(label, error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${joinField(path, String(params['missingProperty']))} is required`;
    case 'additionalProperties':
      return `${joinField(path, String(params['additionalProperty']))} is not an allowed field`;
    case 'enum': {
      const allowed = Array.isArray(params['allowedValues']) ? params['allowedValues'] : [];
      return `${path} must be one of ${allowed.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ')}`;
    }
    case 'const':
      return `${path} must be ${JSON.stringify(params['allowedValue'])}`;
    case 'type':
      return `${path} must be ${String(params['type']).split(',').join(' or ')}`;
    case 'format':
      return `${path} must be a valid ${String(params['format'])}`;
    case 'pattern': {
      const hint = PATTERN_HINTS.get(String(params['pattern']));
      return hint ? `${path} must be ${hint}` : `${path} must match pattern ${String(params['pattern'])}`;
    }
    default:
      return `${path} ${error.message ?? 'is invalid'}`;
  }
}

/** `inputs` + `/items/0/id` → `inputs.items[0].id` (JSON Pointer unescaped). */
export function renderPath(label: string, instancePath: string): string {
  if (instancePath === '') return label;
  return instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, segment) => (/^\d+$/.test(segment) ? `${path}[${segment}]` : joinField(path, segment)), label);
}

function joinField(path: string, field: string): string {
  return path === '' ? field : `${path}.${field}`;
}
