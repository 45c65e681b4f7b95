/**
 * How far back evidence may reach: part 2's `slash_evidence_window`, in blocks. The validator set
 * history is kept that long (`validator-history.ts`), and evidence older than that is refused
 * both by a proposer and by every validator checking the block, so slashing never depends on
 * history a node may already have dropped, and old keys stop being a liability after a while.
 */
export const EVIDENCE_WINDOW_PARAM = 'slash_evidence_window';

/**
 * Why evidence of misbehaviour at `evidenceHeight` may not go into the block at `blockHeight`,
 * or null: it must name a height that block can judge (not ahead of it) at most `windowBlocks`
 * blocks back.
 */
export function evidenceWindowProblem(evidenceHeight: number, blockHeight: number, windowBlocks: bigint): string | null {
  if (evidenceHeight < 1 || evidenceHeight > blockHeight) return `names height ${evidenceHeight}, which block ${blockHeight} cannot judge`;
  if (BigInt(blockHeight - evidenceHeight) > windowBlocks) return `names height ${evidenceHeight}, more than ${EVIDENCE_WINDOW_PARAM} (${windowBlocks}) blocks before block ${blockHeight}`;
  return null;
}
