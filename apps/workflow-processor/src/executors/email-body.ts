import { convert } from 'html-to-text';
import { resolveTemplateString, type TemplateScope } from '@docflow/workflow';

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c);
}

/**
 * The HTML body of an email_send_task (issue #13, item 15): the template is
 * the workflow author's markup, the values come from inputs and node outputs
 * (a webhook caller, an upstream API), so every inserted value is escaped and
 * can only ever be text. A body that is not a string is the author's literal.
 */
export function htmlBodyOf(rawBody: unknown, scope: TemplateScope): string | undefined {
  if (typeof rawBody !== 'string') return undefined;
  return resolveTemplateString(rawBody, scope, { escape: escapeHtml }) as string;
}

/** The plain-text alternative of an HTML body, for clients that show no HTML and for spam filters. */
export function textAlternativeOf(html: string): string {
  return convert(html, { wordwrap: 78 });
}
