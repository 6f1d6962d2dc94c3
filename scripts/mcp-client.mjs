#!/usr/bin/env node
// A real MCP client for `effectlint mcp`: the official TypeScript SDK
// (npm's @modelcontextprotocol/sdk, pinned in .ci/run) spawns the server
// over stdio, lists its tools and calls every one, validates each result's
// structuredContent against the tool's outputSchema (Ajv, draft 2020-12,
// besides the SDK's own check), and exits 1 on any mismatch, and on any
// allow or granted where an error must be a refusal.
//
//   node scripts/mcp-client.mjs [--sdk DIR] -- COMMAND [ARG...]
//
// DIR is the folder @modelcontextprotocol/sdk is installed in (npm install
// --prefix DIR @modelcontextprotocol/sdk@VERSION; default
// $EFFECTLINT_NODE_MCP). COMMAND starts effectlint: the script appends
// `mcp` and its flags (a ledger and a history in a temp folder of its own;
// then a ledger nobody answers for; then none). cmd's Go test runs it with
// its own test binary as COMMAND.
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
let sdkDir = process.env.EFFECTLINT_NODE_MCP || '';
const sep = argv.indexOf('--');
for (let i = 0; i < (sep < 0 ? argv.length : sep); i++) {
  if (argv[i] === '--sdk') sdkDir = argv[++i];
}
const command = sep < 0 ? [] : argv.slice(sep + 1);
if (!sdkDir || command.length === 0) {
  console.error('usage: node scripts/mcp-client.mjs [--sdk DIR] -- COMMAND [ARG...]   (DIR: where @modelcontextprotocol/sdk is installed, default $EFFECTLINT_NODE_MCP)');
  process.exit(2);
}

// The SDK's ESM entry points, by its package.json's exports; Ajv (the
// SDK's dependency) by require from the same folder.
const sdkRoot = join(sdkDir, 'node_modules', '@modelcontextprotocol', 'sdk');
const sdkPkg = JSON.parse(readFileSync(join(sdkRoot, 'package.json'), 'utf8'));
const entry = (sub) => pathToFileURL(join(sdkRoot, sdkPkg.exports[sub]?.import ?? sdkPkg.exports['./*'].import.replace('*', sub.slice(2)))).href;
const { Client } = await import(entry('./client'));
const { StdioClientTransport } = await import(entry('./client/stdio.js'));
const require = createRequire(join(sdkDir, 'noop.js'));
const Ajv2020 = require('ajv/dist/2020').default;
const ajv = new Ajv2020({ strict: true, allErrors: true });

let passed = 0;
let failed = 0;
function expect(ok, what, detail) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.error(`FAIL ${what}${detail === undefined ? '' : `: ${typeof detail === 'string' ? detail : JSON.stringify(detail)}`}`);
  }
}

// A world: t1 posted report.txt to slack/C024BE91L, fired send, could not
// read it back and ended: that delivery's key is consumed.
const dir = mkdtempSync(join(tmpdir(), 'effectlint-mcp-client-'));
const body = 'quarterly numbers\n';
const content = join(dir, 'report.txt');
writeFileSync(content, body);
const sha = createHash('sha256').update(body).digest('hex');
const histories = join(dir, 'histories');
mkdirSync(histories);
writeFileSync(join(histories, 't1.jsonl'), [
  { ts: '2026-11-29T17:00:00Z', task: 't1', type: 'task_started', relation: 'root' },
  { ts: '2026-11-29T17:00:01Z', task: 't1', type: 'intent', destination: { provider: 'slack', id: 'C024BE91L' }, content: { path: content } },
  { ts: '2026-11-29T17:00:07Z', task: 't1', type: 'send_fired' },
  { ts: '2026-11-29T17:00:20Z', task: 't1', type: 'readback', result: 'unavailable' },
  { ts: '2026-11-29T17:00:22Z', task: 't1', type: 'task_ended', status: 'completed' },
].map((e) => JSON.stringify(e)).join('\n') + '\n');
const consumedKey = `v1|dest=slack/C024BE91L|sha256=${sha}`;
const freshKey = `v1|dest=slack/C0OTHER99|sha256=${sha}`;

async function start(flags) {
  const env = { ...process.env };
  delete env.EFFECTLINT_LEDGER;
  const transport = new StdioClientTransport({ command: command[0], args: [...command.slice(1), 'mcp', ...flags], env, stderr: 'inherit' });
  const client = new Client({ name: 'effectlint-node-client', version: sdkPkg.version });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const validators = {};
  for (const t of tools) {
    try {
      validators[t.name] = ajv.compile(t.outputSchema);
    } catch (e) {
      expect(false, `${t.name}: outputSchema compiles`, e.message);
    }
  }
  return { client, tools, validators };
}

// call calls a tool; the result's structuredContent must match the
// tool's outputSchema, whatever it says.
async function call(s, name, args, label) {
  const what = `${label ?? name} ${JSON.stringify(args)}`;
  let res;
  try {
    res = await s.client.callTool({ name, arguments: args });
  } catch (e) {
    expect(false, `${what}: the call is answered (the SDK checks structuredContent against outputSchema)`, e.message);
    return { isError: true, out: {} };
  }
  const out = res.structuredContent;
  expect(out && typeof out === 'object', `${what}: structuredContent`, res);
  const v = s.validators[name];
  if (v && out) expect(v(out), `${what}: structuredContent matches the outputSchema`, v.errors);
  expect(Array.isArray(res.content) && res.content.length > 0, `${what}: content`);
  return { isError: res.isError === true, out: out ?? {} };
}

const rule = (r) => r.out.reasons?.[0]?.rule;

// A refusal: never allow or granted; isError when it is an error.
function refusal(r, what, { tool, isError, rule: want }) {
  if (tool === 'check') expect(r.out.decision === 'stop', `${what}: decision stop, never allow`, r.out);
  else if (tool === 'key') expect(r.out.key === '', `${what}: no key`, r.out);
  else if (tool === 'explain') expect(r.out.explained === false, `${what}: not explained`, r.out);
  else expect(r.out.granted === false, `${what}: granted false, never true`, r.out);
  if (isError !== undefined) expect(r.isError === isError, `${what}: isError ${isError}`, r);
  if (want) expect(rule(r) === want, `${what}: rule ${want}`, r.out.reasons);
}

let code = 0;
try {
  // 1. A ledger in the temp folder and the history.
  const s = await start(['--ledger', join(dir, 'ledger.db'), '--history', histories]);
  const names = s.tools.map((t) => t.name).sort().join(' ');
  expect(names === 'check claim cross explain key settle', 'tools/list: the six tools', names);
  for (const t of s.tools) {
    expect(t.inputSchema?.type === 'object' && t.outputSchema?.type === 'object', `${t.name}: input and output schemas`);
    expect(typeof t.description === 'string' && t.description.length > 40, `${t.name}: a description`);
    const a = t.annotations ?? {};
    if (['check', 'key', 'explain'].includes(t.name)) {
      expect(a.readOnlyHint === true, `${t.name}: readOnlyHint true`, a);
    } else {
      expect(a.readOnlyHint === false && a.idempotentHint === false && a.destructiveHint === false, `${t.name}: readOnlyHint, idempotentHint, destructiveHint false`, a);
    }
  }

  let r = await call(s, 'key', { destination: 'slack/C0OTHER99', file: content });
  expect(r.out.key === freshKey && !r.isError, 'key: the canonical key', r.out);
  r = await call(s, 'check', { task: 't2', checkpoint: 'send', destination: 'slack/C024BE91L', file: content });
  expect(r.out.decision === 'stop' && rule(r) === 'KEY_CONSUMED' && !r.isError, 'check: a consumed key stops', r.out);
  r = await call(s, 'check', { task: 'w1', checkpoint: 'send', key: freshKey });
  expect(r.out.decision === 'allow' && !r.isError, 'check: a fresh key is allowed', r.out);

  const c = await call(s, 'claim', { task: 'w1', key: freshKey, lease: '2m', tool_use_id: 'toolu_node_1' });
  expect(c.out.granted === true && c.out.token === 1 && c.out.state === 'claimed', 'claim: granted', c.out);
  r = await call(s, 'claim', { task: 'w2', key: freshKey }, 'second claim');
  refusal(r, 'a second claim', { tool: 'claim', isError: false });
  r = await call(s, 'cross', { key: freshKey, token: c.out.token });
  expect(r.out.granted === true && r.out.state === 'crossing', 'cross: granted', r.out);
  r = await call(s, 'settle', { key: freshKey, token: c.out.token, outcome: 'confirmed' });
  expect(r.out.granted === true && r.out.state === 'sent_verified', 'settle: granted', r.out);
  r = await call(s, 'claim', { task: 'w3', key: freshKey }, 'claim of a consumed scope');
  refusal(r, 'a claim of a consumed scope', { tool: 'claim', isError: false, rule: 'KEY_CONSUMED' });

  r = await call(s, 'explain', { key: consumedKey });
  expect(r.out.explained === true && r.out.scopes?.[0]?.state === 'send_status_unknown', 'explain: a key', r.out);
  r = await call(s, 'explain', { task: 't2', checkpoint: 'send', destination: 'slack/C024BE91L', file: content });
  expect(r.out.explained === true && r.out.gate?.decision === 'stop', 'explain: a task', r.out);

  // Errors: refusals, with isError where the call failed.
  const missing = join(dir, 'no', 'such');
  for (const [tool, args, want] of [
    ['check', { task: 'w4', checkpoint: 'send', key: 'v1|nonsense' }, { isError: false, rule: 'NO_KEY' }],
    ['check', { task: 'w4', checkpoint: 'send', key: freshKey, paths: [missing] }, { isError: true, rule: 'GATE_ERROR' }],
    ['check', { task: 7, checkpoint: 'send', key: freshKey }, { isError: true, rule: 'GATE_ERROR' }],
    ['check', { task: 'w4', checkpoint: 'sned', key: freshKey }, { isError: true, rule: 'GATE_ERROR' }],
    ['claim', { task: 'w4', key: 'v1|nonsense' }, { isError: true, rule: 'NO_KEY' }],
    ['claim', { task: 'w4', key: freshKey, paths: [missing] }, { isError: true, rule: 'GATE_ERROR' }],
    ['claim', { task: 'w4', key: freshKey, lease: 'soon' }, { isError: true, rule: 'INVALID_REQUEST' }],
    ['cross', { key: freshKey, token: '1' }, { isError: true, rule: 'INVALID_REQUEST' }],
    ['cross', { key: 'v1|nonsense', token: 1 }, { isError: true, rule: 'INVALID_REQUEST' }],
    ['settle', { key: freshKey, token: 1, outcome: 'sent' }, { isError: true, rule: 'INVALID_REQUEST' }],
    ['key', { destination: 'slack/C0OTHER99' }, { isError: true, rule: 'NO_KEY' }],
    ['key', { destination: 'slack/C0OTHER99', file: missing }, { isError: true, rule: 'NO_KEY' }],
    ['explain', {}, { isError: true }],
    ['explain', { task: 't2', paths: [missing] }, { isError: true }],
  ]) {
    refusal(await call(s, tool, args, `error case ${tool}`), `error case ${tool} ${JSON.stringify(args)}`, { tool, ...want });
  }
  await s.client.close();

  // 2. A ledger nobody answers for.
  const down = await start(['--ledger', 'postgres://nobody@127.0.0.1:1/x?connect_timeout=1', '--history', histories]);
  refusal(await call(down, 'check', { task: 'w1', checkpoint: 'send', key: freshKey }), 'check, ledger down', { tool: 'check', rule: 'HISTORY_UNREADABLE' });
  for (const [tool, args] of [
    ['claim', { task: 'w1', key: freshKey }],
    ['cross', { key: freshKey, token: 1 }],
    ['settle', { key: freshKey, token: 1, outcome: 'unknown' }],
  ]) {
    refusal(await call(down, tool, args), `${tool}, ledger down`, { tool, isError: true, rule: 'LEDGER_ERROR' });
  }
  await down.client.close();

  // 3. No ledger at all.
  const none = await start(['--history', histories]);
  for (const [tool, args] of [
    ['claim', { task: 'w1', key: freshKey }],
    ['cross', { key: freshKey, token: 1 }],
    ['settle', { key: freshKey, token: 1, outcome: 'confirmed' }],
  ]) {
    refusal(await call(none, tool, args), `${tool}, no ledger`, { tool, isError: true, rule: 'NO_LEDGER' });
  }
  await none.client.close();
} catch (e) {
  expect(false, 'the session', e.stack ?? String(e));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
console.log(`mcp-client (@modelcontextprotocol/sdk ${sdkPkg.version}): ${passed} passed, ${failed} failed`);
if (failed > 0) code = 1;
process.exit(code);
