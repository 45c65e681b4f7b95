import binaryen from 'binaryen';

/**
 * A module in WebAssembly's text format as bytes, with Binaryen (the project's WebAssembly
 * toolkit; nothing encoded by hand). `features` are the proposals the text may use beyond MVP;
 * mutable globals are always allowed.
 */
export function watBytes(text: string, features: number = binaryen.Features.MVP): Uint8Array {
  const m = binaryen.parseText(text);
  try {
    m.setFeatures(features | binaryen.Features.MutableGlobals);
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}
