import { html } from 'htm/preact';
import type { VNode } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { enc, getJson, listOf, type Json } from './api.js';
import { field, fieldList } from './fields.js';
import { makeChart, seriesOf } from './charts.js';
import { verifyAccount, type Verdict } from './verify.js';

/** One read per route parameter: its data, or the error that came instead. */
function useRead<T>(load: () => Promise<T>, key: string): { data?: T; error?: string } {
  const [state, setState] = useState<{ key: string; data?: T; error?: string }>({ key: '' });
  useEffect(() => {
    let live = true;
    setState({ key });
    load().then(
      (data) => live && setState({ key, data }),
      (e: unknown) => live && setState({ key, error: e instanceof Error ? e.message : String(e) }),
    );
    return () => {
      live = false;
    };
  }, [key]);
  return state.key === key ? state : {};
}

/** A view whose read is in flight (`data-loading`) or failed (`data-error`, the API's message). */
const Pending = (view: string, error?: string): VNode =>
  error ? html`<section data-view=${view}><p class="error" data-error>${error}</p></section>` : html`<section data-view=${view} data-loading><p class="muted">loading…</p></section>`;

export function TxRows({ txs }: { txs: readonly Json[] }): VNode {
  if (txs.length === 0) return html`<p class="muted">no transactions</p>`;
  return html`<table class="list">
    <thead><tr><th>hash</th><th>type</th><th>from</th><th>to</th><th>value</th><th>status</th><th>block</th></tr></thead>
    <tbody>${txs.map(
      (t) => html`<tr data-tx-hash=${String(t['hash'])}>
        <td class="hash">${field('hash', t['hash'])}</td><td>${field('type', t['type'])}</td><td class="addr">${field('from', t['from'])}</td><td class="addr">${field('to', t['to'])}</td>
        <td>${field('value_human', t['value_human'])}</td><td>${field('status', t['status'])}</td><td>${t['block'] === null || t['block'] === undefined ? '' : html`<a href=${`#/block/${String(t['block'])}`} data-field="block">${String(t['block'])}</a>`}</td>
      </tr>`,
    )}</tbody></table>`;
}

export function BlockRows({ blocks }: { blocks: readonly Json[] }): VNode {
  return html`<table class="list">
    <thead><tr><th>height</th><th>hash</th><th>txs</th><th>proposer</th><th>time</th></tr></thead>
    <tbody>${blocks.map(
      (b) => html`<tr data-block-height=${String(b['height'])}>
        <td><a href=${`#/block/${String(b['height'])}`} data-field="height">${String(b['height'])}</a></td>
        <td class="hash"><a href=${`#/block/${String(b['height'])}`} data-field="hash">${String(b['hash'])}</a></td>
        <td>${field('tx_count', b['tx_count'])}</td><td class="addr">${field('proposer', b['proposer'])}</td>
        <td title=${new Date(Number(b['timestamp'])).toISOString()}>${field('timestamp', b['timestamp'])}</td>
      </tr>`,
    )}</tbody></table>`;
}

function Chart({ blocks, which }: { blocks: readonly Json[]; which: 'time' | 'tps' }): VNode {
  const ref = useRef<HTMLDivElement>(null);
  const chart = useRef<ReturnType<typeof makeChart> | null>(null);
  useEffect(() => {
    if (!ref.current) return;
    chart.current = which === 'time' ? makeChart(ref.current, 'Block time', 'ms', '#2563eb') : makeChart(ref.current, 'Transactions per second', 'tx/s', '#16a34a');
    return () => chart.current?.destroy();
  }, []);
  useEffect(() => {
    const s = seriesOf(blocks);
    chart.current?.setData([s.heights, which === 'time' ? s.blockTimeMs : s.tps]);
  }, [blocks]);
  return html`<div class="chart" data-chart=${which} ref=${ref}></div>`;
}

export function HomeView({ height, blocks, txs, chartBlocks }: { height: number; blocks: readonly Json[]; txs: readonly Json[]; chartBlocks: readonly Json[] }): VNode {
  return html`<section data-view="home">
    <div class="tiles"><div class="tile"><div class="label">height</div><div class="big" data-field="height">${String(height)}</div></div></div>
    <div class="charts"><${Chart} blocks=${chartBlocks} which="time" /><${Chart} blocks=${chartBlocks} which="tps" /></div>
    <h2>Latest blocks</h2><div data-section="blocks"><${BlockRows} blocks=${blocks} /></div>
    <h2>Latest transactions</h2><div data-section="transactions"><${TxRows} txs=${txs} /></div>
  </section>`;
}

export function BlockView({ id }: { id: string }): VNode {
  const r = useRead(async () => {
    const block = await getJson(`/api/v1/blocks/${enc(id)}`);
    const txs = await getJson(`/api/v1/blocks/${String(block['height'])}/transactions`);
    return { block, txs: listOf(txs, 'transactions') };
  }, id);
  if (!r.data) return Pending('block', r.error);
  const h = Number(r.data.block['height']);
  return html`<section data-view="block">
    <h2>Block ${h}</h2>
    <nav class="pager">${h > 1 ? html`<a href=${`#/block/${h - 1}`}>← ${h - 1}</a>` : ''} <a href=${`#/block/${h + 1}`}>${h + 1} →</a></nav>
    <div data-section="block">${fieldList(r.data.block)}</div>
    <h3>Transactions</h3><div data-section="transactions"><${TxRows} txs=${r.data.txs} /></div>
  </section>`;
}

export function TxView({ hash }: { hash: string }): VNode {
  const r = useRead(() => getJson(`/api/v1/transactions/${enc(hash)}`), hash);
  if (!r.data) return Pending('tx', r.error);
  return html`<section data-view="tx"><h2>Transaction</h2><div data-section="tx">${fieldList(r.data)}</div>
    ${r.data['block'] !== null && r.data['block'] !== undefined ? html`<p><a href=${`#/block/${String(r.data['block'])}`}>block ${String(r.data['block'])}</a></p>` : ''}</section>`;
}

export function AccountView({ address }: { address: string }): VNode {
  const r = useRead(async () => {
    const [account, history, staking] = await Promise.all([
      getJson(`/api/v1/accounts/${enc(address)}?prove=true`),
      getJson(`/api/v1/accounts/${enc(address)}/transactions?limit=20`),
      getJson(`/api/v1/staking/info/${enc(address)}`),
    ]);
    return { account, history: listOf(history, 'transactions'), staking };
  }, address);
  const [verdict, setVerdict] = useState<{ key: string; v: Verdict } | undefined>(undefined);
  useEffect(() => {
    if (!r.data) return;
    let live = true;
    void verifyAccount(r.data.account).then((v) => live && setVerdict({ key: address, v }));
    return () => {
      live = false;
    };
  }, [r.data]);
  if (!r.data) return Pending('account', r.error);
  const v = verdict?.key === address ? verdict.v : undefined;
  const proof = r.data.account['proof'] as Json | undefined;
  return html`<section data-view="account" data-verified=${v === undefined ? undefined : String(v.verified)}>
    <h2>Account</h2>
    <div data-section="account">${fieldList(r.data.account, { links: false })}</div>
    <div class=${`proof ${v === undefined ? 'pending' : v.verified ? 'ok' : 'bad'}`} data-section="proof">
      ${v === undefined ? 'checking the proof…' : v.verified ? html`✔ balance, nonce and tx_count proven at height <span data-field="proof_height">${String(v.height)}</span> by the validators' signatures` : html`✘ not verified: <span data-verify-error>${v.error}</span>`}
      <div class="muted">state root <span class="hash">${String(proof?.['state_root'] ?? '')}</span>; genesis pinned for this origin: <span class="hash" data-field="genesis_hash">${v?.genesisHash ?? ''}</span></div>
    </div>
    <h3>Staking</h3><div data-section="staking">${fieldList(r.data.staking, { skip: ['address'] })}</div>
    <h3>History</h3><div data-section="history"><${TxRows} txs=${r.data.history} /></div>
  </section>`;
}

export function ValidatorsView(): VNode {
  const r = useRead(() => getJson('/api/v1/validators'), 'validators');
  if (!r.data) return Pending('validators', r.error);
  const vs = listOf(r.data, 'validators');
  return html`<section data-view="validators"><h2>Validators</h2>
    <p><span data-field="count">${String(r.data['count'] ?? vs.length)}</span> validators, <span data-field="total_staked_human">${String(r.data['total_staked_human'] ?? '')}</span> staked</p>
    <table class="list"><thead><tr><th>address</th><th>stake</th><th>trust</th><th>proposed</th><th>votes</th><th>last active</th></tr></thead>
    <tbody>${vs.map(
      (v) => html`<tr data-validator=${String(v['address'])}><td class="addr">${field('address', v['address'])}</td><td>${field('stake_human', v['stake_human'])}</td><td>${field('trust_score', v['trust_score'])}</td>
        <td>${field('blocks_proposed', v['blocks_proposed'])}</td><td>${field('votes_cast', v['votes_cast'])}</td><td>${field('last_active', v['last_active'])}</td></tr>`,
    )}</tbody></table></section>`;
}

export function ProposalsView(): VNode {
  const r = useRead(() => getJson('/api/v1/governance/proposals?limit=100'), 'proposals');
  if (!r.data) return Pending('proposals', r.error);
  const ps = listOf(r.data, 'proposals');
  return html`<section data-view="proposals"><h2>Proposals</h2>
    ${ps.length === 0 ? html`<p class="muted">no proposals</p>` : ''}
    <table class="list"><thead><tr><th>id</th><th>title</th><th>kind</th><th>status</th><th>proposer</th></tr></thead>
    <tbody>${ps.map(
      (p) => html`<tr data-proposal-id=${String(p['id'])}><td><a href=${`#/proposal/${String(p['id'])}`} data-field="id">${String(p['id'])}</a></td><td>${field('title', p['title'])}</td><td>${field('kind', p['kind'])}</td><td>${field('status', p['status'])}</td><td class="addr">${field('proposer', p['proposer'])}</td></tr>`,
    )}</tbody></table></section>`;
}

export function ProposalView({ id }: { id: string }): VNode {
  const r = useRead(() => getJson(`/api/v1/governance/${enc(id)}`), id);
  if (!r.data) return Pending('proposal', r.error);
  return html`<section data-view="proposal"><h2>Proposal ${id}</h2><div data-section="proposal">${fieldList(r.data)}</div></section>`;
}

export function ContractsView(): VNode {
  const r = useRead(() => getJson('/api/v1/contracts?limit=100'), 'contracts');
  if (!r.data) return Pending('contracts', r.error);
  const cs = listOf(r.data, 'contracts');
  return html`<section data-view="contracts"><h2>Contracts</h2>
    ${cs.length === 0 ? html`<p class="muted">no contracts</p>` : ''}
    <table class="list"><thead><tr><th>address</th><th>owner</th><th>name</th></tr></thead>
    <tbody>${cs.map((c) => html`<tr data-contract=${String(c['address'])}><td class="addr">${field('address', c['address'])}</td><td class="addr">${field('owner', c['owner'])}</td><td>${field('name', c['name'] ?? '')}</td></tr>`)}</tbody></table></section>`;
}

export function ContractView({ address }: { address: string }): VNode {
  const r = useRead(() => getJson(`/api/v1/contracts/${enc(address)}`), address);
  if (!r.data) return Pending('contract', r.error);
  return html`<section data-view="contract"><h2>Contract</h2><div data-section="contract">${fieldList(r.data)}</div></section>`;
}

export function NotFoundView({ what }: { what: string }): VNode {
  return html`<section data-view="notfound"><h2>Not found</h2><p>Nothing is known as <code>${what}</code>.</p></section>`;
}
