import { html, render } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { enc, exists, getJson, listOf, type Json } from './api.js';
import { live } from './live.js';
import { AccountView, BlockView, ContractView, ContractsView, HomeView, NotFoundView, ProposalView, ProposalsView, TxView, ValidatorsView } from './views.js';

/**
 * The explorer page (decisions.md §88): hash routes, one `[data-view]` element per view, the
 * search box on every view, and the home view kept live from `/ws` (`init`, `new_block`).
 */

const RECENT_BLOCKS = 20;
const CHART_BLOCKS = 100;
const RECENT_TXS = 20;

function route(): string[] {
  return location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
}

/** Where a search leads: digits a block, 0x + 64 hex a transaction (else the block of that hash), an address its account (a contract for `.app`). */
async function searchTarget(q: string): Promise<string> {
  const s = q.trim();
  if (/^\d+$/.test(s)) return `#/block/${s}`;
  if (/^0x[0-9a-fA-F]{64}$/.test(s)) {
    const hash = s.toLowerCase();
    if (await exists(`/api/v1/transactions/${hash}`)) return `#/tx/${hash}`;
    try {
      return `#/block/${String((await getJson(`/api/v1/blocks/${hash}`))['height'])}`;
    } catch {
      return `#/notfound/${enc(s)}`;
    }
  }
  if (/^chain:[0-9a-z_.-]+$/.test(s)) return s.endsWith('.app') ? `#/contract/${s}` : `#/account/${s}`;
  return `#/notfound/${enc(s)}`;
}

function Search(): VNode {
  const onKey = (e: KeyboardEvent): void => {
    if (e.key !== 'Enter') return;
    const input = e.currentTarget as HTMLInputElement;
    void searchTarget(input.value).then((target) => {
      location.hash = target;
      input.value = '';
    });
  };
  return html`<input data-search type="search" placeholder="height, tx or block hash, address" aria-label="search" onKeyDown=${onKey} />`;
}

interface LiveState {
  height: number;
  blocks: Json[];
  chartBlocks: Json[];
  txs: Json[];
  connected: boolean;
}

function mergeBlock(list: readonly Json[], block: Json, max: number): Json[] {
  const h = Number(block['height']);
  if (list.some((b) => Number(b['height']) === h)) return [...list];
  return [block, ...list].sort((a, b) => Number(b['height']) - Number(a['height'])).slice(0, max);
}

function App(): VNode {
  const [path, setPath] = useState(route());
  const [state, setState] = useState<LiveState>({ height: 0, blocks: [], chartBlocks: [], txs: [], connected: false });

  useEffect(() => {
    const onHash = (): void => setPath(route());
    window.addEventListener('hashchange', onHash);
    void getJson(`/api/v1/blocks?limit=${CHART_BLOCKS}`).then(
      (b) => setState((s) => ({ ...s, chartBlocks: listOf(b, 'blocks').reduce((acc, x) => mergeBlock(acc, x, CHART_BLOCKS), s.chartBlocks) })),
      () => undefined,
    );
    const sub = live(
      (e) => {
        const data = (e.data ?? {}) as Json;
        if (e.type === 'init') {
          setState((s) => ({ ...s, height: Math.max(s.height, Number(data['height'] ?? 0)), blocks: listOf(data, 'blocks').reduce((acc, b) => mergeBlock(acc, b, RECENT_BLOCKS), s.blocks), txs: listOf(data, 'txs').slice(0, RECENT_TXS) }));
        } else if (e.type === 'new_block') {
          setState((s) => ({ ...s, height: Math.max(s.height, Number(data['height'] ?? 0)), blocks: mergeBlock(s.blocks, data, RECENT_BLOCKS), chartBlocks: mergeBlock(s.chartBlocks, data, CHART_BLOCKS) }));
          if (Number(data['tx_count'] ?? 0) > 0) {
            void getJson(`/api/v1/blocks/${String(data['height'])}/transactions`).then(
              (t) => setState((s) => ({ ...s, txs: [...listOf(t, 'transactions'), ...s.txs.filter((x) => !listOf(t, 'transactions').some((y) => y['hash'] === x['hash']))].slice(0, RECENT_TXS) })),
              () => undefined,
            );
          }
        }
      },
      (open) => setState((s) => ({ ...s, connected: open })),
    );
    return () => {
      window.removeEventListener('hashchange', onHash);
      sub.close();
    };
  }, []);

  const [view, arg = ''] = path;
  let body: VNode;
  switch (view) {
    case '':
    case undefined:
      body = html`<${HomeView} height=${state.height} blocks=${state.blocks} txs=${state.txs} chartBlocks=${state.chartBlocks} />`;
      break;
    case 'block':
      body = html`<${BlockView} id=${arg} />`;
      break;
    case 'tx':
      body = html`<${TxView} hash=${arg} />`;
      break;
    case 'account':
      body = html`<${AccountView} address=${arg} />`;
      break;
    case 'validators':
      body = html`<${ValidatorsView} />`;
      break;
    case 'proposals':
      body = html`<${ProposalsView} />`;
      break;
    case 'proposal':
      body = html`<${ProposalView} id=${arg} />`;
      break;
    case 'contracts':
      body = html`<${ContractsView} />`;
      break;
    case 'contract':
      body = html`<${ContractView} address=${arg} />`;
      break;
    default:
      body = html`<${NotFoundView} what=${view === 'notfound' ? arg : path.join('/')} />`;
  }
  return html`<header>
      <a class="brand" href="#/">pq-chain</a>
      <nav><a href="#/">Home</a><a href="#/validators">Validators</a><a href="#/proposals">Proposals</a><a href="#/contracts">Contracts</a></nav>
      <${Search} />
      <span class=${`dot ${state.connected ? 'on' : 'off'}`} title=${state.connected ? 'live' : 'reconnecting'}></span>
    </header>
    <main>${body}</main>`;
}

render(html`<${App} />`, document.getElementById('app')!);
