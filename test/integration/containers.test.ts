import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CLI } from '../helpers/node-process.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * The image and the compose file cannot be built here (no image registry), so they are checked
 * as text against what `chain testnet --ips` makes of the compose file's own arguments: the
 * services, their static IPs, volumes, ports and the seeds every home gets.
 */

interface Service {
  command?: string[] | string;
  entrypoint?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: Record<string, { condition: string }>;
  networks?: Record<string, { ipv4_address: string }>;
  healthcheck?: { disable?: boolean };
}

interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
  networks: Record<string, { ipam: { config: Array<{ subnet: string }> } }>;
}

const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as Compose;
const dockerfile = readFileSync('Dockerfile', 'utf8');

/** `--flag value` pairs of a command line. */
function flags(text: string): Map<string, string> {
  const words = text.split(/\s+/).filter(Boolean);
  const out = new Map<string, string>();
  for (let i = 0; i < words.length; i++) if (words[i]!.startsWith('--') && words[i + 1] !== undefined && !words[i + 1]!.startsWith('--')) out.set(words[i]!, words[i + 1]!);
  return out;
}

function ipToInt(ip: string): number {
  return ip.split('.').reduce((n, x) => n * 256 + Number(x), 0) >>> 0;
}

test('docker-compose.yml: an init service running chain testnet --ips, a validator per IP on the bridge with its home, a gateway publishing 3000; the seeds are the other validators', () => {
  const init = compose.services.init!;
  const script = Array.isArray(init.command) ? init.command.join(' ') : String(init.command);
  assert.match(script, /chain testnet /);
  const f = flags(script.slice(script.indexOf('chain testnet')));
  const ips = f.get('--ips')!.split(',');
  const n = Number(f.get('--validators'));
  const out = f.get('--out')!;
  const p2pPort = f.get('--p2p-port') ?? '26656';
  const rpcPort = f.get('--rpc-port') ?? '9933';
  assert.equal(ips.length, n);

  // What the init service makes, made here from the same arguments.
  const dir = tempDir('compose-');
  const r = spawnSync(process.execPath, [CLI, 'testnet', '--validators', String(n), '--chain-id', f.get('--chain-id')!, '--network', f.get('--network')!, '--out', dir, '--ips', ips.join(','), '--p2p-port', p2pPort, '--rpc-port', rpcPort], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const made = JSON.parse(r.stdout) as { genesis_hash: string; validators: Array<{ node_id: string; host: string; p2p_endpoint: string }> };
  assert.match(spawnSync(process.execPath, [CLI, 'genesis', 'validate', '--network', f.get('--network')!, join(dir, 'genesis.json')], { encoding: 'utf8' }).stdout, new RegExp(made.genesis_hash));

  const [network, net] = Object.entries(compose.networks)[0]!;
  const [base, bits] = net.ipam.config[0]!.subnet.split('/');
  const mask = (~0 << (32 - Number(bits))) >>> 0;
  const inSubnet = (ip: string): boolean => ((ipToInt(ip) & mask) >>> 0) === ((ipToInt(base!) & mask) >>> 0) && (ipToInt(ip) & ~mask) > 1 && (ipToInt(ip) & ~mask) !== (~mask >>> 0);
  const staticIps = Object.values(compose.services).map((s) => s.networks?.[network]?.ipv4_address);
  assert.ok(staticIps.every((ip) => ip !== undefined && inSubnet(ip)), `every service has a static address inside ${net.ipam.config[0]!.subnet} (not the network, gateway or broadcast address): ${staticIps.join(', ')}`);
  assert.equal(new Set(staticIps).size, staticIps.length, 'no address twice');

  const [volume] = Object.keys(compose.volumes);
  const mount = `${volume}:${out}`;
  assert.ok(init.volumes?.includes(mount), `init writes to ${mount}`);
  assert.equal(init.entrypoint?.[0], 'sh', 'init keeps existing homes on a second up');
  assert.match(script, new RegExp(`test -f ${out}/genesis\\.json`));

  const gatewayIp = compose.services.gateway!.networks![network]!.ipv4_address;
  for (let i = 0; i < n; i++) {
    const v = compose.services[`validator-${i}`];
    assert.ok(v, `service validator-${i}`);
    assert.deepEqual(v.command, ['node', '--home', `${out}/validator-${i}`], 'started by its home alone');
    assert.equal(v.networks![network]!.ipv4_address, ips[i], `validator-${i} has the address its peers dial`);
    assert.ok(v.volumes?.includes(mount));
    assert.equal(v.depends_on?.init?.condition, 'service_completed_successfully');
    assert.equal(v.environment?.CHAIN_RPC_TRUSTED_IPS, gatewayIp, 'only the gateway skips the node\'s per-IP limit (§93)');
    assert.equal(v.ports, undefined, 'validators publish nothing');
    // The home the init service makes for it: its endpoint and the other validators as seeds.
    const nodeJson = JSON.parse(readFileSync(join(dir, `validator-${i}`, 'config', 'node.json'), 'utf8')) as { genesis_hash: string; rpc: { host: string; port: number }; p2p: { host: string; port: number; external: string; seeds: string[] } };
    assert.equal(nodeJson.genesis_hash, made.genesis_hash);
    assert.deepEqual(nodeJson.rpc, { host: '0.0.0.0', port: Number(rpcPort) });
    assert.deepEqual([nodeJson.p2p.host, nodeJson.p2p.port, nodeJson.p2p.external], ['0.0.0.0', Number(p2pPort), `${ips[i]}:${p2pPort}`]);
    assert.deepEqual(nodeJson.p2p.seeds, made.validators.filter((_, j) => j !== i).map((m) => `${m.node_id}@${ips[made.validators.indexOf(m)]}:${p2pPort}`));
  }
  assert.equal(Object.keys(compose.services).filter((s) => s.startsWith('validator-')).length, n);

  const gw = compose.services.gateway!;
  assert.deepEqual(gw.command, ['gateway', '--network', f.get('--network')]);
  assert.deepEqual(gw.ports, ['3000:3000']);
  assert.equal(gw.environment?.PORT, '3000');
  assert.equal(gw.environment?.NODE_RPC_URL, `http://${ips[0]}:${rpcPort}`);
  assert.deepEqual(gw.environment?.SHARD_NODE_URLS?.split('|'), ips.map((ip) => `http://${ip}:${rpcPort}`));
  assert.equal(gw.environment?.HEALTH_URL, 'http://127.0.0.1:3000/health', 'the image\'s health check asks the gateway\'s own port');
});

test('Dockerfile: Debian Node 20, native providers built and checked, every compiled folder copied, a non-root user, a HEALTHCHECK on /health, chain as the entry point', () => {
  const stages = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]!);
  assert.ok(stages.length >= 1 && stages.every((s) => /^node:20-bookworm(-slim)?\b/.test(s)), `Debian (bookworm) Node 20 images: ${stages.join(', ')}`);
  assert.match(dockerfile, /RUN npm ci --no-audit --no-fund/, 'install scripts run: the native providers build');
  assert.doesNotMatch(dockerfile, /--ignore-scripts/);
  assert.match(dockerfile, /selectProvider\('pqclean'\)/, 'the build fails unless the native ML-DSA-65 provider loads');
  const tsconfig = JSON.parse(readFileSync('tsconfig.json', 'utf8')) as { include: string[] };
  for (const folder of new Set(tsconfig.include.map((p) => p.split('/')[0]!))) assert.match(dockerfile, new RegExp(`^COPY ${folder} \\./${folder}$`, 'm'), `the build copies ${folder}/ (tsconfig compiles it)`);
  for (const runtime of ['dist', 'node_modules', 'configs', 'plugins/sentinel/model']) assert.match(dockerfile, new RegExp(`COPY --from=build /app/${runtime} \\./${runtime}`), `the image has ${runtime}`);
  const user = [...dockerfile.matchAll(/^USER (\S+)/gm)].map((m) => m[1]!);
  assert.ok(user.length > 0 && !['root', '0'].includes(user.at(-1)!), 'runs as a user of its own');
  assert.match(dockerfile, /useradd --system/);
  assert.match(dockerfile, /^HEALTHCHECK .*\n?.*fetch\(process\.env\.HEALTH_URL\)/m);
  assert.match(dockerfile, /^ENV HEALTH_URL=http:\/\/127\.0\.0\.1:9933\/health$/m);
  assert.match(dockerfile, /ln -s \/app\/dist\/cli\/main\.js \/usr\/local\/bin\/chain/);
  assert.match(dockerfile, /^ENTRYPOINT \["chain"\]$/m);
  assert.match(dockerfile, /^EXPOSE 9933 26656 3000$/m);
  assert.match(readFileSync('.dockerignore', 'utf8'), /^node_modules$/m);
});
