import { defineMethods } from '../../kernel/sdk.js';
import { removedSince } from './keys.js';

/**
 * What identity offers other plugins: whether a main key stopped counting for an account since a
 * height (a rotation removed it, or a recovery replaced every key), so that what the key granted
 * ends with it. The session plugin ends the session keys it granted.
 */
export const identityMethods = defineMethods('identity', {
  read: { removedSince },
});
