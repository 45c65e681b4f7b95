/**
 * What other code may import from the ibc plugin: the wire schemas of its bodies and answers and
 * the packet texts (a relayer rebuilds commitments with them). Headers and proofs are verified by
 * the kernel light client (`lightClient.verifyIbcHeader`, `lightClient.verifyIbcProof`).
 */
export { AckBody, AttestBody, ChannelOpenBody, ChannelPauseBody, ChannelView, ClientUpdateBody, ClientView, DenomView, PacketView, RecvBody, SendBody, TimeoutBody, VoucherView } from './schemas.js';
export { attestText, commitmentValue, escrowAddress, packetId, parsePacketId, transferText, voucherDenom } from './packets.js';
