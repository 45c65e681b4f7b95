import { html } from 'htm/preact';
import type { VNode } from 'preact';
import type { Json } from './api.js';

/**
 * Values as the API serves them (decisions.md §88): each in an element `[data-field="<API field
 * name>"]` whose text is the value, `*_human` strings as served. Nested values are not fields.
 */
export function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

export const text = (v: unknown): string => (v === null ? 'null' : String(v));

/** Where an address or hash leads, so a field's text stays the value and the link is around it. */
export function hrefOf(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (/^chain:[0-9a-z_.-]+$/.test(value) && !value.startsWith('chain:system.')) return value.endsWith('.app') ? `#/contract/${value}` : `#/account/${value}`;
  if (/^0x[0-9a-f]{64}$/.test(value) && (field === 'hash' || field === 'tx_hash') ) return `#/tx/${value}`;
  return undefined;
}

export function field(name: string, value: unknown, link = true): VNode {
  const href = link ? hrefOf(name, value) : undefined;
  return href ? html`<a data-field=${name} href=${href}>${text(value)}</a>` : html`<span data-field=${name}>${text(value)}</span>`;
}

/** Every scalar field of a record, in the API's order, as a definition list. */
export function fieldList(record: Json, options: { skip?: readonly string[]; links?: boolean } = {}): VNode {
  const rows = Object.entries(record).filter(([k, v]) => isScalar(v) && !(options.skip ?? []).includes(k));
  return html`<dl class="fields">${rows.map(([k, v]) => html`<div class="row"><dt>${k}</dt><dd>${field(k, v, options.links ?? true)}</dd></div>`)}</dl>`;
}
