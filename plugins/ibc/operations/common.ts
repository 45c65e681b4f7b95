/** Every IBC operation signs for this address (part 1, "IBC v2": all sign for `chain:system.ibc`). */
export const IBC_TARGET = 'chain:system.ibc';

/** §63: `ch-tx-v4` only, on every network: with two chains a signature must name its chain and its act. */
export const IBC_SIGNING = { v4Only: true } as const;
