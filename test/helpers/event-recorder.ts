import { badRequest, NodeFault } from '../../kernel/errors.js';
import { definePlugin } from '../../kernel/host/plugin.js';
import { utf8Bytes } from '../../kernel/codec/utf8.js';

/** The system address the recorder's transactions go to; `data` says what the handler does. */
export const NOTE_ADDRESS = 'chain:system.note';

/**
 * A state plugin that emits an event in every phase of a block (begin_block, each note
 * transaction, evidence, end_block), writes a state record per note and, with `index`, stages
 * node-local index writes beside each event. A note whose data is `fail` emits, stages and then
 * throws; `float` emits data the store cannot hold; `Bad-Type` emits a malformed type; `fault`
 * throws a NodeFault (the node, not the transaction, failed). The record a note writes holds its
 * text, so a long note grows state by about its length.
 */
export function eventRecorder(opts: { index?: boolean } = {}) {
  return definePlugin({
    name: 'recorder',
    kind: 'state',
    description: 'emits an event in every phase of a block',
    systemAddresses: [{ address: NOTE_ADDRESS, gas: 30 }],
    events: [
      { type: 'block_opened', description: 'beginBlock ran', fields: ['height'] },
      { type: 'noted', description: 'a note transaction applied', fields: ['from', 'note'], socket: true },
      { type: 'offence_seen', description: 'evidence applied', fields: ['validator'] },
      { type: 'block_closed', description: 'endBlock ran', fields: ['height'] },
    ],
    register(api) {
      api.hooks.beginBlock.tapPromise(api.name, async (ctx) => {
        ctx.emit({ type: 'block_opened', data: { height: ctx.block.height } });
        if (opts.index) ctx.index.put(`opened/${ctx.block.height}`, utf8Bytes('begin'));
      });
      api.hooks.executeTx.for(NOTE_ADDRESS).tapPromise(api.name, async (ctx, tx) => {
        const note = tx.data ?? '';
        ctx.emit({ type: 'noted', data: { from: tx.from, note } });
        ctx.store.setRecord(`note/${tx.from}`, { note });
        if (opts.index) ctx.index.putRecord(`note/${tx.hash}`, { from: tx.from, note });
        if (note === 'fail') throw badRequest('the note refuses after emitting');
        if (note === 'fault') throw new NodeFault('this node could not allocate what the note needed');
        if (note === 'float') ctx.emit({ type: 'noted', data: { share: 0.5 } });
        if (note === 'Bad-Type') ctx.emit({ type: 'Bad-Type', data: {} });
        return undefined;
      });
      api.hooks.evidence.tapPromise(api.name, async (ctx, ev) => {
        ctx.emit({ type: 'offence_seen', data: { validator: ev.validator } });
      });
      api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
        ctx.emit({ type: 'block_closed', data: { height: ctx.block.height } });
        if (opts.index) ctx.index.delete(`opened/${ctx.block.height - 1}`);
        return result;
      });
    },
  });
}
