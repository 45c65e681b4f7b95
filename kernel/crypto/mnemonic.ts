import { generateMnemonic, mnemonicToSeedSync, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { sha3 } from './hash.js';

/** A fresh 24-word BIP-39 English recovery phrase (256 bits of entropy). */
export function newMnemonic(): string {
  return generateMnemonic(wordlist, 256);
}

export function isValidMnemonic(words: string): boolean {
  return validateMnemonic(normalizeWords(words), wordlist);
}

/** decisions.md §4: key seed = SHA3-256(BIP-39 seed bytes, empty passphrase). */
export function seedFromMnemonic(words: string): Uint8Array {
  const normalized = normalizeWords(words);
  if (!validateMnemonic(normalized, wordlist)) throw new Error('invalid recovery phrase: not a BIP-39 English mnemonic');
  return sha3(mnemonicToSeedSync(normalized, ''));
}

function normalizeWords(words: string): string {
  return words.trim().toLowerCase().split(/\s+/).join(' ');
}
