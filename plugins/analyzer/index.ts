import { definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { deployGate } from '../contracts/public.js';
import { analyzeBody, analyzeRoute } from './analyze-route.js';
import { attest, attestRoute } from './attest-route.js';
import { gateCheck } from './gate.js';
import { analyzerMethods } from './methods.js';
import { ANALYZER_PARAMS } from './params.js';
import { ALL_STORES } from './store.js';
import { analysisBudget, AnalyzerOptionsSchema, withinBudget, type AnalyzerOptions } from './options.js';
import { whitelistOperation } from './operations/whitelist.js';
import { scoreOperation } from './operations/score.js';
import { certifyOperation } from './operations/certify.js';
import { CERTIFICATE_ROUTES, certificateList, certificateRoute, certificatesRoute, certificateView, contractCertificate, contractCertificateRoute } from './certificate-routes.js';
import { whitelistRoute, whitelistView } from './whitelist-route.js';

/**
 * The contract analyzer (decisions.md §46–50): `static-v1` scores a module's bytes alone,
 * deterministically, so every validator computes the same risk; the deploy gate the contracts
 * plugin runs at admission and in the block refuses risky deploys (403); operators (the active
 * validators) trust bytecode, set scores and certify contracts.
 */
export const analyzerPlugin = definePlugin<AnalyzerOptions, NodeServices>({
  name: 'analyzer',
  kind: 'state',
  description: 'static contract analysis (static-v1), the deploy gate, trusted bytecode, scores and certificates',
  dependencies: ['contracts'],
  optionsSchema: AnalyzerOptionsSchema,
  params: ANALYZER_PARAMS,
  stores: ALL_STORES,
  events: [],
  methods: analyzerMethods,
  operations: [whitelistOperation, scoreOperation, certifyOperation],
  // Listed so the gateway proxies them (and answers their socket methods) under these declarations.
  // The analysis is listed though Node only: the gateway answers it 404 saying so, where a POST beside GET /contracts/:address would be a 405.
  routes: [analyzeRoute, whitelistRoute, ...CERTIFICATE_ROUTES],
  register(api) {
    deployGate.add(api.name, gateCheck);
    const s = api.services;
    const rpm = api.options.analysis_rpm;
    const budget = analysisBudget(rpm);
    api.hooks.routes.tap(api.name, (routes) => {
      routes.serve(analyzeRoute, (req) => withinBudget(budget, rpm, req.raw.ip, () => s.query.run(api.name, (ctx) => analyzeBody(ctx, req.body))));
      routes.serve(whitelistRoute, (req) => s.query.run(api.name, (ctx) => whitelistView(ctx, req.params.bytecode_hash)));
      routes.serve(attestRoute, (req) => withinBudget(budget, rpm, req.raw.ip, () => s.query.run(api.name, (ctx) => attest(ctx, s, req.body))));
      routes.serve(certificatesRoute, (req) => s.query.run(api.name, (ctx) => certificateList(ctx, req.query)));
      routes.serve(certificateRoute, (req) => s.query.run(api.name, (ctx) => certificateView(ctx, req.params.id)));
      routes.serve(contractCertificateRoute, (req) => s.query.run(api.name, (ctx) => contractCertificate(ctx, req.params.address)));
    });
  },
});
