import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { toHex } from '../../kernel/codec/hex.js';
import { utf8Bytes } from '../../kernel/codec/utf8.js';
import { sha3Hex0x } from '../../kernel/crypto/hash.js';
import { IBC_VALSET_KEY, compareIbcKeys, ibcCommitmentKey, ibcHeaderMessage, ibcValsetValue } from '../../kernel/light-client/index.js';
import { makeSigners, stateOf, type TestSigner } from './light-chain.js';
import { commitmentValue, transferText } from '../../plugins/ibc/packets.js';

/*
 * A counterparty chain for IBC tests without processes: real ML-DSA-65 keys, a real state tree
 * holding `ibc/valset` and whatever packet records a test puts there, and §64 headers signed as
 * the counterparty's validators sign them, so each test can lie in exactly one place.
 */

/** Signers ascending by public key (the order of a §64 header's `validators`). */
export function ibcSigners(powers: readonly (number | bigint)[], seedBase = 40): TestSigner[] {
  const signers = makeSigners(powers.map(() => 1), seedBase, 'ibc').map((s, i) => ({ ...s, power: BigInt(powers[i]!) }));
  return signers.sort((a, b) => compareIbcKeys(a.public_key, b.public_key));
}

export interface CounterpartyHeader {
  readonly header: Record<string, unknown>;
  readonly root: string;
  /** A served `/state/proof` of `key` under this header's root (membership or absence). */
  prove(key: string): Promise<{ exists: boolean; value_hex: string | null; proof: unknown }>;
}

/**
 * A header of `chainId` at `height` whose state holds `ibc/valset` = `validators` and `records`,
 * signed by `signers` over the `ch-pq-lc-v1` text (or over `message` when a test forges it).
 */
export async function counterpartyHeader(o: { chainId: string; height: number; validators: readonly TestSigner[]; signers?: readonly TestSigner[]; records?: Readonly<Record<string, string>>; message?: string }): Promise<CounterpartyHeader> {
  const records: Record<string, string> = { ...(o.records ?? {}), [IBC_VALSET_KEY]: ibcValsetValue(o.validators) };
  const state = await stateOf(records);
  const blockHash = sha3Hex0x(`block|${o.chainId}|${o.height}|${state.root}`);
  const message = o.message ?? ibcHeaderMessage(o.chainId, o.height, blockHash, state.root);
  const signers = o.signers ?? o.validators;
  const valsetEntry = await state.entry(IBC_VALSET_KEY);
  const header = {
    chain_id: o.chainId,
    height: o.height,
    block_hash: blockHash,
    state_root: state.root,
    message,
    signatures: signers.map((s) => ({ validator: `chain:${s.address}`, public_key: s.public_key, power: Number(s.power), signature: toHex(nobleProvider.sign(utf8Bytes(message), s.secretKey)) })),
    signed_power: 0,
    total_power: 0,
    validators: o.validators.map((v) => ({ public_key: v.public_key, power: v.power <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v.power) : v.power.toString(10) })),
    validators_proof: valsetEntry['proof'],
  };
  return {
    header,
    root: state.root,
    async prove(key) {
      const e = await state.entry(key);
      return { exists: e['exists'] as boolean, value_hex: e['value_hex'] as string | null, proof: e['proof'] };
    },
  };
}

/** An inbound ICS-20 transfer: the `ibc_recv` body fields and the counterparty's commitment record (key and value) of them. */
export function inboundTransfer(o: { counterparty: string; channel: string; sequence: number; receiver: string; denom?: string; amount?: number; timeout?: number }) {
  const fields = { sender: 'cosmos1sender', receiver: o.receiver, denom: o.denom ?? 'uatom', amount: o.amount ?? 5000, memo: '' };
  const timeout = o.timeout ?? 1000;
  const value = commitmentValue(timeout, transferText({ ...fields, amount: BigInt(fields.amount), channel: o.channel }));
  return { body: { packet_id: `${o.counterparty}/${o.channel}/${o.sequence}`, ...fields, timeout_height: timeout }, key: ibcCommitmentKey(o.channel, o.sequence), value };
}
