import type { Logger } from 'pino';
import type { Chain, ProposedBlock } from '../chain/chain.js';
import type { Evidence } from '../model/types.js';
import { parseHex, toHex0x } from '../codec/hex.js';
import type { Value, ValueHost } from '../consensus/index.js';

export interface ChainValueHostDeps {
  readonly chain: Pick<Chain, 'head' | 'propose' | 'validate'>;
  /** The validator key this node proposes with; null for a node that follows without voting. */
  readonly signer: { readonly address: string } | null;
  readonly log: Logger;
  now(): number;
  /** The evidence a new proposal carries. */
  evidence(): Promise<Evidence[]>;
}

/** The chain answering the consensus driver (ABCI++ PrepareProposal / ProcessProposal). */
export class ChainValueHost implements ValueHost {
  constructor(private readonly d: ChainValueHostDeps) {}

  async getValue(height: number, round: number): Promise<Value> {
    const chain = this.d.chain;
    if (height !== chain.head.height + 1) throw new Error(`asked to propose for ${height} while the chain is at ${chain.head.height}`);
    const block = await chain.propose(round, this.d.signer!.address, this.d.now(), await this.d.evidence());
    return { hash: parseHex(block.hash, 32)!, block };
  }

  async validateValue(height: number, _round: number, block: unknown, hash: Uint8Array): Promise<boolean> {
    const b = block as ProposedBlock;
    if (b.header.height !== height || toHex0x(hash) !== b.hash) return false;
    const reason = await this.d.chain.validate(b);
    if (reason) this.d.log.warn({ height, reason }, 'refusing to prevote for an invalid proposal');
    return reason === null;
  }
}
