import { trustFromGenesis, verifyProvenRead, ONE_THIRD, type ProvenRead, type SignatureCheck, type TrustedValidators } from '../kernel/light-client/index.js';
import { SdkError } from './errors.js';
import type { Http } from './http.js';

/**
 * Proven reads checked as decisions.md §85 says, by the kernel's light client: trust starts from
 * the validators of a genesis whose hash the caller pinned, follows set changes (more than 1/3 of
 * the trusted power must sign a header of a new set), and nothing unchecked is ever returned: a
 * lie throws LightClientError, whose `check` names the rule it broke.
 */
export interface ProvenAnswer {
  /** The answer as served, `proof` included; its fields are the proven ones (§85). */
  readonly answer: Readonly<Record<string, unknown>>;
  /** The state height the answer was read at (`proof.height`). */
  readonly height: number;
  /** Whether this answer moved the client to a new validator set. */
  readonly setChanged: boolean;
}

export interface ProvenReaderOptions {
  /** `0x` SHA3-256 of the canonical genesis document (decisions.md §82): the trust anchor. */
  readonly genesisHash: string;
  /** The genesis document; by default `GET /api/v1/genesis`, checked against `genesisHash` either way. */
  readonly genesis?: unknown;
  /** Signature check; noble's ML-DSA-65 by default. */
  readonly verify?: SignatureCheck;
}

/** `GET /api/v1/genesis` (decisions.md §83): the one place the SDK reads the genesis from. */
export async function fetchGenesis(http: Http): Promise<unknown> {
  return http.get('/api/v1/genesis');
}

export class ProvenReader {
  private trusted: TrustedValidators | undefined;
  private anchoring: Promise<TrustedValidators> | undefined;

  constructor(
    private readonly http: Http,
    private readonly options: ProvenReaderOptions,
  ) {
    if (!/^0x[0-9a-f]{64}$/.test(options.genesisHash)) throw new SdkError('input', 'genesisHash must be 0x + 64 lowercase hex');
  }

  /** The set trusted now: the genesis validators until an answer moved it. */
  async trust(): Promise<TrustedValidators> {
    if (this.trusted) return this.trusted;
    this.anchoring ??= (async () => {
      const genesis = this.options.genesis ?? (await fetchGenesis(this.http));
      return trustFromGenesis(genesis, this.options.genesisHash);
    })();
    try {
      this.trusted = await this.anchoring;
    } finally {
      this.anchoring = undefined;
    }
    return this.trusted;
  }

  /** Checks an answer already fetched (a `prove=true` read), moving trust when its set changed. */
  async check(answer: unknown, kind: 'account' | 'record'): Promise<ProvenAnswer> {
    const read: ProvenRead = verifyProvenRead(answer, await this.trust(), { kind, trustLevel: ONE_THIRD, ...(this.options.verify ? { verify: this.options.verify } : {}) });
    this.trusted = read.trusted;
    return { answer: answer as Record<string, unknown>, height: read.height, setChanged: read.commit.setChanged };
  }

  /** `GET /api/v1/accounts/:address?prove=true`: balance, nonce and tx_count proven. */
  async account(address: string): Promise<ProvenAnswer> {
    return this.check(await this.http.get(`/api/v1/accounts/${encodeURIComponent(address)}?prove=true`), 'account');
  }

  /** Any single-record read of decisions.md §84 (`/api/v1/nodes/:address`, `/staking/info/:address`, …) with `prove=true`. */
  async record(path: string): Promise<ProvenAnswer> {
    return this.check(await this.http.get(`${path}${path.includes('?') ? '&' : '?'}prove=true`), 'record');
  }
}
