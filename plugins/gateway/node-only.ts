import { notFound, type HttpMethod, type RouteTable } from '../../kernel/sdk.js';

/**
 * A route part 1 marks Node only: the gateway answers it 404 saying so (not the router's 405 when a
 * GET of the same shape exists, as `POST /contracts/analyze` beside `GET /contracts/:address`),
 * and leaves it out of its API reference.
 */
export function answerNodeOnly(routes: RouteTable, method: HttpMethod, path: string, hint: string): void {
  routes.add(
    method,
    path,
    () => {
      throw notFound(`${method} ${path} is served by the nodes only (part 1: Node only), not by the gateway`, hint);
    },
    { listed: false },
  );
}
