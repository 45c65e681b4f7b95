import { Type } from '@sinclair/typebox';

/**
 * The requests and answers of the analyzer's routes (decisions.md §46–50), shared with clients and
 * the gateway (whose audit and reaudit forward §47's answer unchanged).
 */
export const AnalyzeBody = Type.Object(
  {
    bytecode_hex: Type.Optional(Type.String({ description: 'the module, hex (an optional 0x), at most contract_max_bytecode_bytes bytes' })),
    address: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'a deployed contract whose code to analyse (instead of bytecode_hex)' })),
  },
  { additionalProperties: false },
);

export const ViolationView = Type.Object({
  rule: Type.String(),
  severity: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high'), Type.Literal('critical')]),
  weight: Type.Integer(),
  message: Type.String(),
  offset: Type.Optional(Type.Integer({ minimum: 0, description: 'byte offset of the first occurrence, for rules about an instruction or an import' })),
});

const analysisFields = {
  risk_score: Type.Integer({ minimum: 0, maximum: 100 }),
  security_score: Type.Integer({ minimum: 0, maximum: 100, description: '100 when whitelisted, else 100 − risk_score' }),
  safe: Type.Boolean({ description: 'whitelisted, or risk_score below deploy_risk_threshold at the last committed height' }),
  ml_score: Type.Number({ description: 'risk_score / 100' }),
  model: Type.String({ description: 'the analyzer and its version: static-v1' }),
  violations: Type.Array(ViolationView),
  gas_estimate: Type.Integer({ minimum: 0, description: 'gas a deploy of these bytes is charged when nothing runs at deploy (init and initialize on top)' }),
  bytecode_hash: Type.String({ description: '0x + SHA3-256 of the bytes' }),
  size: Type.Integer({ minimum: 0 }),
  whitelisted: Type.Boolean(),
  address: Type.Optional(Type.String()),
  code_hash: Type.Optional(Type.String()),
  recorded_security_score: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
  recorded_model: Type.Optional(Type.Union([Type.String(), Type.Null()])),
};

export const AnalysisAnswer = Type.Object(analysisFields);

export const AttestationAnswer = Type.Object({
  ...analysisFields,
  score: Type.Integer({ minimum: 0, maximum: 100, description: '= security_score' }),
  timestamp: Type.Integer({ description: 'ms, the node clock' }),
  subject: Type.String({ description: 'the address when given, else bytecode_hash' }),
  message: Type.String({ description: 'ch-ibc-attest-v1|<bytecode_hash>|<score>|<model>|<timestamp>|<subject>' }),
  signature: Type.String({ description: 'ML-DSA-65 over message, hex' }),
  pubkey: Type.String({ description: "the node's consensus public key, hex" }),
  signer: Type.String({ description: "the node's .node address (its key-derived address when it is no validator)" }),
});
