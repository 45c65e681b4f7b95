import assert from 'node:assert/strict';
import { signOperation, type Wallet } from './chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from './node-process.js';
import type { TestDevnet } from './devnet.js';

export const GOV = 'chain:system.governance';
/** A voting window is at least 100 blocks (part 1, Governance 3). */
export const WINDOW = 100;

export type Signer = Pick<Wallet, 'keys' | 'publicKeyHex'>;

/**
 * What the governance devnet tests do as a client: sign an operation with the next nonce of the
 * file's clock, submit it through the gateway and wait for validator 0 to confirm it, propose and
 * vote, and read proposals, parameters and state roots. `nonce` is the file's operation clock
 * (operation nonces only increase per signer, and a file may sign for one from two places).
 * `devnet` is read at each call: the file's devnet starts in its `before`, after this is made.
 */
export function governanceDriver(devnet: () => TestDevnet, nonce: () => number) {
  const rpc = (i = 0): string => devnet().rpcUrls[i]!;
  const height = async (i = 0): Promise<number> => (await getJson(`${rpc(i)}/health`)).body.height as number;
  const sign = (w: Signer, actor: string, target: string, body: Record<string, unknown>, value = 0) => signOperation(w, { actor, target, value, nonce: nonce(), body });
  const confirmed = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = await postJson(`${devnet().gatewayUrl}${path}`, body);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    const tx = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', `${path}: ${JSON.stringify(tx)}`);
    return tx;
  };
  const propose = (w: Signer, proposer: string, body: Record<string, unknown>) => confirmed('/api/v1/governance/propose', sign(w, proposer, GOV, { proposer, title: 'change', description: 'by test', voting_duration: WINDOW, ...body }));
  const vote = (w: Signer, voter: string, id: number, accept: boolean) => confirmed(`/api/v1/governance/${id}/vote`, sign(w, voter, GOV, { voter, accept }));
  const proposal = async (id: number, i = 0): Promise<Record<string, unknown>> => (await getJson(`${rpc(i)}/api/v1/governance/${id}`)).body;
  const closed = (id: number, i = 0) => until(`proposal ${id} tallied on validator ${i}`, async () => ((await proposal(id, i)).status !== 'active' ? proposal(id, i) : undefined), 120_000);
  const param = async (key: string, i = 0): Promise<number> => (((await getJson(`${rpc(i)}/api/v1/governance/params`)).body.params as Record<string, { value: number }>)[key]!.value);
  const rootAt = async (h: number, i: number): Promise<string> => {
    const b = await until(`block ${h} on validator ${i}`, async () => {
      const r = await getJson(`${rpc(i)}/api/v1/blocks/${h}`);
      return r.status === 200 ? r.body : undefined;
    }, 60_000);
    return b.state_root as string;
  };
  /** validator-i's key as a signer of operations for its .node. */
  const validator = (i: number): Signer => {
    const k = devnet().validatorKey(i);
    return { keys: k.keys, publicKeyHex: k.file.public_key };
  };
  /** Funds each wallet from the faucet through the gateway, confirmed on validator 0. */
  const fund = async (wallets: readonly Wallet[]): Promise<void> => {
    for (const w of wallets) {
      const f = await postJson(`${devnet().gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await waitConfirmed(rpc(), f.body.tx_hash as string);
    }
  };
  return { rpc, height, sign, confirmed, propose, vote, proposal, closed, param, rootAt, validator, fund };
}
