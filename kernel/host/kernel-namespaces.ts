import { ACCOUNTS_NAMESPACE, ACCOUNT_KEYS_NAMESPACE } from '../state/accounts.js';
import { PARAMS_NAMESPACE } from '../state/params.js';
import { VALIDATORS_NAMESPACE } from '../state/validator-set.js';
import { AUTH_NAMESPACE } from '../state/key-set.js';

/**
 * State namespaces the kernel owns. A plugin's namespace is its name, so a plugin named after one
 * of these could write balances, keys, parameters or the validator set directly; the host refuses
 * such a plugin at start.
 */
export const KERNEL_NAMESPACES: readonly string[] = [ACCOUNTS_NAMESPACE, ACCOUNT_KEYS_NAMESPACE, PARAMS_NAMESPACE, VALIDATORS_NAMESPACE, AUTH_NAMESPACE, 'kernel'];
