import { Type } from '@sinclair/typebox';
import { pageAnswer, pageQuery, withRefusal } from '../../kernel/sdk.js';

/** GET `/api/v1/oracle/log`: newest first, optionally filtered (decisions.md §20: default 50, at most 100). */
export const OracleLogQuery = pageQuery(
  { default: 50, cap: 100 },
  {
    model: Type.Optional(Type.String({ maxLength: 128, description: 'only decisions of this model (sentinel, double-sign-evidence)' })),
    kind: Type.Optional(Type.String({ maxLength: 64, description: 'only decisions of this kind (anomaly, hold, release, refund, cancel, slash, jail)' })),
    subject: Type.Optional(Type.String({ maxLength: 128, description: 'only decisions about this subject (a transaction hash, a validator)' })),
  },
);

/** A log entry on the wire: confidence as a fraction 0..1. */
export const LogEntryView = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  model: Type.String(),
  kind: Type.String(),
  subject: Type.String(),
  decision: Type.String(),
  confidence: Type.Number({ minimum: 0, maximum: 1 }),
  height: Type.Integer({ minimum: 0 }),
  timestamp: Type.Integer({ minimum: 0 }),
  tx_hash: Type.Union([Type.String(), Type.Null()]),
  source_event: Type.String(),
});

/** What a registry entry says of itself, the same in its record and on the wire (the record keeps accuracy on 10 000). */
export const ModelFields = {
  /** The first 16 hex digits of SHA3-256 of `ch-model|<name>|<version>|<weights_hash>`. */
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  weights_hash: Type.String(),
  architecture: Type.String(),
  params_count: Type.Integer({ minimum: 0 }),
  /** `pending` or `active` (decisions.md §37 names no other status). */
  status: Type.Union([Type.Literal('pending'), Type.Literal('active')]),
  /** The id of a later version of the same name that became active after this one, if any (this one stays `active`). */
  superseded_by: Type.Optional(Type.String()),
  /** Validators that registered it, in address order. */
  votes: Type.Array(Type.String()),
  registered_height: Type.Integer({ minimum: 0 }),
  activated_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
};

/** A registry entry on the wire: accuracy as a fraction 0..1. */
export const ModelView = Type.Object({ ...ModelFields, accuracy: Type.Number({ minimum: 0, maximum: 1 }) });

export const OracleLogAnswer = pageAnswer('entries', LogEntryView);
export const ModelRegistryAnswer = pageAnswer('models', ModelView);
/** A log entry's id or a model's id, as the path gives it: anything else is answered 404, as an unknown id. */
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
export const ModelListQuery = pageQuery({ default: 100, cap: 100 });

const height = (name: string) => Type.Optional(withRefusal(Type.Integer({ minimum: 0, maximum: 999_999_999_999_999 }), () => `${name} must be a block height (a non-negative integer)`));

/** The export's range: block heights, inclusive; default the whole chain. */
export const ExportQuery = Type.Object({ from: height('from'), to: height('to') });
