const encoder = new TextEncoder();

/**
 * UTF-8 bytes of a string through the kernel's one shared encoder, instead of an encoder per
 * module. noble's `utf8ToBytes` builds a new TextEncoder per call and copies its output again;
 * keys and signed messages are encoded several times per transaction.
 */
export function utf8Bytes(text: string): Uint8Array {
  return encoder.encode(text);
}
