import { catchUpScenarios } from '../cluster/catch-up-scenario.js';

/*
 * docs/reliability.md's catch-up scenarios in full (`npm run test:faults`): a validator 2 000
 * blocks behind under load, restarted, replays them from its peers and keeps up; a node started
 * from a snapshot while the others keep committing; the history checked after both.
 */
catchUpScenarios('catch-up-2000', 2_000);
