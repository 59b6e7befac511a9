import type { DetectedEntity } from '../entities';
import { LAYER_PRIORITY } from '../entities';
import type { Recognizer } from '../engine/recognizer';

const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
const LOCAL_OK = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_OK = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}$/;

function isLocalChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 95 || c === 37 || c === 43 || c === 45 || c === 39;
}

function isDomainChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 46 || c === 45;
}

/**
 * EMAIL (L1). Scans outwards from each `@` with bounded steps instead of a
 * regular expression that starts at every character, so a long run of
 * letters without `@` costs one pass, not a quadratic backtrack.
 */
export class EmailRecognizer implements Recognizer {
  readonly name = 'email';
  readonly types = ['EMAIL'];
  readonly layer = 'L1' as const;
  readonly priority = LAYER_PRIORITY.L1;

  find(text: string, emit: (entity: DetectedEntity) => void): void {
    let at = text.indexOf('@');
    while (at !== -1) {
      let start = at;
      while (start > 0 && at - start < MAX_LOCAL && isLocalChar(text.charCodeAt(start - 1))) start--;
      // Leading dots and quotes belong to the sentence, not the address.
      while (start < at && (text[start] === '.' || text[start] === "'")) start++;
      let end = at + 1;
      while (end < text.length && end - at <= MAX_DOMAIN && isDomainChar(text.charCodeAt(end))) end++;
      while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end--;
      const local = text.slice(start, at);
      const domain = text.slice(at + 1, end);
      if (local.length > 0 && LOCAL_OK.test(local) && DOMAIN_OK.test(domain)) {
        emit({ type: 'EMAIL', start, end, score: 1, layer: 'L1', priority: this.priority, source: this.name });
        at = text.indexOf('@', end);
      } else {
        at = text.indexOf('@', at + 1);
      }
    }
  }
}
