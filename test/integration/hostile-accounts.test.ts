import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { toHex } from '../../kernel/codec/hex.js';

/**
 * An attacker against a real 4-validator devnet and its gateway, on each HTTP backend, as a
 * client would: binding a key to someone else's address through the faucet, sending coins to
 * addresses nobody can own, and signing as an address the key is not bound to (issue 20,
 * findings 1, 5 and 6). Every probe is sent to a validator's RPC and to the gateway alike.
 */
const NOT_THE_KEYS = ['chain:validator-3.node', 'chain:system.deploy', 'chain:system.stake', 'chain:ibc.escrow.chan-0', 'chain:someone.human'];
const NOBODYS = ['chain:0123456789abcd.human', 'chain:0123456789abcdef.human', 'chain:a.human', 'chain:x.node', 'chain:foo.vault', 'chain:foo.agent', 'chain:ibc.escrow.x'];

for (const backend of ['uws', 'node'] as const) {
  describe(`hostile account inputs (${backend} backend)`, () => {
    let net: TestDevnet;
    let entries: Array<[string, string]>;
    const owner = labelledWallet(`owner-${backend}`);
    const attacker = labelledWallet(`attacker-${backend}`);

    async function fund(w: Wallet): Promise<void> {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      assert.equal((await waitConfirmed(net.rpcUrls[0]!, f.body.tx_hash as string)).status, 'confirmed');
      // The scenarios read the account from other validators next: each has applied the credit.
      for (const url of net.rpcUrls) await waitConfirmed(url, f.body.tx_hash as string);
    }

    before(async () => {
      net = await startTestDevnet({ env: { CHAIN_HTTP_BACKEND: backend } });
      entries = [['validator', net.rpcUrls[1]!], ['gateway', net.gatewayUrl]];
      await fund(attacker);
    });
    after(async () => net?.stop());

    test('the faucet binds no key to another key\'s address, a record, a system or an escrow address; the real owner still gets coins', async () => {
      for (const [where, url] of entries) {
        const stolen = await postJson(`${url}/api/v1/faucet`, { address: owner.address, public_key: attacker.publicKeyHex });
        assert.equal(stolen.status, 409, `${where}: ${JSON.stringify(stolen.body)}`);
        assert.match(stolen.body.error as string, /derived from another public key/);
        for (const address of NOT_THE_KEYS) {
          const r = await postJson(`${url}/api/v1/faucet`, { address, public_key: attacker.publicKeyHex });
          assert.equal(r.status, 400, `${where} ${address}: ${JSON.stringify(r.body)}`);
          assert.match(r.body.error as string, /binds a public key only to the address derived from it/);
        }
      }
      // The attacker cannot sign for the owner's address: no binding was made.
      for (const [where, url] of entries) {
        const r = await postJson(`${url}/api/v1/transactions`, signTransfer(attacker, { from: owner.address, to: attacker.address, value: 1, nonce: 1 }));
        assert.equal(r.status, 401, `${where}: ${JSON.stringify(r.body)}`);
      }
      await fund(owner);
      const acct = await getJson(`${net.rpcUrls[2]}/api/v1/accounts/${owner.address}`);
      assert.equal(acct.body.balance, 50_000_000);
      const sent = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(owner, { to: attacker.address, value: 1000, nonce: 1 }));
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      assert.equal((await waitConfirmed(net.rpcUrls[0]!, sent.body.tx_hash as string)).status, 'confirmed', 'the owner signs for its own address');
    });

    test('a transfer to an address nobody can own is refused with 400 naming it; a key-derived one is accepted', async () => {
      const next = (await getJson(`${net.rpcUrls[0]}/api/v1/accounts/${attacker.address}`)).body.next_nonce as number;
      for (const [where, url] of entries) {
        for (const to of NOBODYS) {
          const r = await postJson(`${url}/api/v1/transactions`, signTransfer(attacker, { to, value: 1000, nonce: next }));
          assert.equal(r.status, 400, `${where} ${to}: ${JSON.stringify(r.body)}`);
          assert.ok((r.body.error as string).includes(to), `${where}: the error names ${to}: ${r.body.error}`);
        }
      }
      const fresh = labelledWallet(`fresh-${backend}`);
      const ok = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(attacker, { to: fresh.address, value: 1000, nonce: next }));
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      assert.equal((await waitConfirmed(net.rpcUrls[0]!, ok.body.tx_hash as string)).status, 'confirmed');
    });

    test('signing as an address the key is not bound to is 401, whatever the balance and nonce', async () => {
      const v0 = net.validatorKey(0);
      for (const [where, url] of entries) {
        for (const from of ['chain:system.stake', v0.file.node_address!, owner.address]) {
          const r = await postJson(`${url}/api/v1/transactions`, signTransfer(attacker, { from, to: attacker.address, value: 5, nonce: 1 }));
          assert.equal(r.status, 401, `${where} ${from}: ${JSON.stringify(r.body)}`);
          assert.match(r.body.error as string, /public key is not bound to/);
        }
      }
      // The validator's owner key still signs for its own (derived, funded at genesis) address.
      const owner0 = { keys: v0.keys, address: v0.file.address, publicKeyHex: toHex(v0.keys.publicKey) };
      const r = await postJson(`${net.rpcUrls[0]}/api/v1/transactions`, signTransfer(owner0, { to: attacker.address, value: 5, nonce: 1 }));
      assert.equal(r.status, 200, JSON.stringify(r.body));
    });
  });
}
