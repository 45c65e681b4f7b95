import { defineMethods } from '../../kernel/sdk.js';
import { whitelist } from './store.js';

/**
 * What the analyzer offers other plugins: whether a bytecode hash is on the trusted list
 * (§49). The deploy gate runs in the contracts plugin's context and reads the list through it.
 */
export const analyzerMethods = defineMethods('analyzer', {
  read: {
    async trusted(ctx, codeHash: string): Promise<boolean> {
      return (await whitelist.get(ctx.store, codeHash))?.status === 'trusted';
    },
  },
});
