// A foreign MCP client for the benchmarks: the TypeScript SDK's Client over stdio (what Node-based agents
// use), driving `vmark mcp` and the reference filesystem server side by side. Driven by bench_foreign.py:
// a JSON plan in the file named on the command line, one JSON result on stdout; every sample is the client's own wall time of a
// `callTool`, and every vmark write is checked applied, saved and journaled.
//
//   {"vmark": {"command", "args", "env"}, "peer": {"command", "args"}, "folder", "docs": [...], "rounds",
//    "warmup", "clients", "seconds"}
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const plan = JSON.parse(readFileSync(process.argv[2], "utf-8"));

async function connect(server) {
  const client = new Client({ name: "vmark-bench-foreign", version: "1.0.0" });
  const env = { PATH: process.env.PATH, HOME: process.env.HOME ?? "", ...(server.env ?? {}) };
  await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env, stderr: "ignore" }));
  return client;
}

function data(result, what) {
  if (result.isError) throw new Error(`${what} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

function checkSaved(d) {
  if (!(d.applied && d.saved && d.journaled === "yes")) throw new Error(`a vmark write was not saved: ${JSON.stringify(d)}`);
}

async function timed(fn) {
  const start = performance.now();
  await fn();
  return (performance.now() - start) / 1000;
}

// One document: vmark and the peer take turns (the order alternating), after warm-up rounds.
async function benchDoc(vmark, peer, doc) {
  const opened = data(await vmark.callTool({ name: "workspace", arguments: { action: "open", filePath: doc.path } }), "open");
  const tab = opened.tabId;
  const ops = {
    read: {
      vmark: () => vmark.callTool({ name: "document", arguments: { action: "read", tabId: tab } }).then((r) => data(r, "vmark read")),
      peer: () => peer.callTool({ name: "read_text_file", arguments: { path: doc.path } }).then((r) => data(r, "peer read")),
    },
    write: {
      vmark: (i) =>
        vmark
          .callTool({ name: "document", arguments: { action: "write", tabId: tab, content: doc.texts[i % 2] } })
          .then((r) => checkSaved(data(r, "vmark write"))),
      peer: (i) => peer.callTool({ name: "write_file", arguments: { path: doc.path, content: doc.texts[i % 2] } }).then((r) => data(r, "peer write")),
    },
  };
  const out = {};
  for (const op of doc.ops) {
    const samples = { vmark: [], peer: [] };
    for (let i = 0; i < plan.warmup + plan.rounds; i++) {
      const order = i % 2 === 0 ? ["vmark", "peer"] : ["peer", "vmark"];
      for (const who of order) {
        const seconds = await timed(() => ops[op][who](i));
        if (i >= plan.warmup) samples[who].push(seconds);
      }
    }
    out[op] = samples;
  }
  return { size: doc.size, ...out };
}

// `clients` vmark clients (each its own `vmark mcp`, so its own bridge connection) writing their own documents.
async function throughput(vmarkServer) {
  const clients = await Promise.all(plan.throughput.docs.map(() => connect(vmarkServer)));
  try {
    const tabs = [];
    for (const [k, doc] of plan.throughput.docs.entries()) {
      const r = data(await clients[k].callTool({ name: "workspace", arguments: { action: "open", filePath: doc.path } }), "open");
      tabs.push(r.tabId);
    }
    const writes = clients.map(() => 0);
    const latencies = [];
    const run = async (k, until, count) => {
      let n = 0;
      while (performance.now() < until) {
        const content = plan.throughput.docs[k].texts[n % 2];
        const seconds = await timed(async () =>
          checkSaved(data(await clients[k].callTool({ name: "document", arguments: { action: "write", tabId: tabs[k], content } }), "write")),
        );
        n += 1;
        if (count) {
          writes[k] += 1;
          latencies.push(seconds);
        }
      }
    };
    await Promise.all(clients.map((_, k) => run(k, performance.now() + 300, false)));
    const start = performance.now();
    await Promise.all(clients.map((_, k) => run(k, start + plan.throughput.seconds * 1000, true)));
    const elapsed = (performance.now() - start) / 1000;
    const total = writes.reduce((a, b) => a + b, 0);
    return { clients: clients.length, writes: total, seconds: elapsed, writes_per_s: total / elapsed, latencies };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

const vmark = await connect(plan.vmark);
const peer = await connect(plan.peer);
const result = { sizes: [] };
try {
  for (const doc of plan.docs) result.sizes.push(await benchDoc(vmark, peer, doc));
} finally {
  await vmark.close();
  await peer.close();
}
if (plan.throughput) result.throughput = await throughput(plan.vmark);
process.stdout.write(JSON.stringify(result));
