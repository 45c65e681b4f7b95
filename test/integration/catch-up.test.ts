import { catchUpScenarios } from '../cluster/catch-up-scenario.js';

/*
 * The normal suite's short variant of docs/reliability.md's catch-up scenarios (the full one,
 * 2 000 blocks behind, runs by `npm run test:faults`: test/faults/catch-up.test.ts): a validator
 * stopped while the others commit under load, restarted; a node started from a snapshot while the
 * others keep committing; the history checked after both.
 */
catchUpScenarios('catch-up', Number(process.env.CATCH_UP_BLOCKS ?? 80));
