/**
 * What other code may import of the session plugin (test/sdk-boundary.test.ts refuses any other
 * file of it): the schemas of its bodies and of its list route's parameters (the assistant tool
 * server reuses them), and its events. It offers no methods.
 */
export { GrantSchema, PublicKeyHex, RevokeSchema, SessionListParams } from './schemas.js';
export { sessionGranted, sessionRevoked } from './events.js';
