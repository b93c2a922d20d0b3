// A minimal web MCP Apps host (extension io.modelcontextprotocol/ui, spec 2026-01-26) for
// tests/apps/render.mjs: it serves, on 127.0.0.1, a host page that shows one View the way the
// spec asks of web hosts: through a Sandbox proxy of another origin.
//
//   host page      http://127.0.0.1:P1/   the host side of the postMessage protocol
//   Sandbox proxy  http://127.0.0.1:P2/sandbox.html   (another port: another origin), in an
//                  iframe with sandbox="allow-scripts allow-same-origin"; it loads the View in an
//                  inner iframe (srcdoc, sandbox="allow-scripts": an opaque origin) and relays
//                  every message but the ui/notifications/sandbox-* ones
//
// The host page answers ui/initialize (protocolVersion, hostCapabilities, hostInfo, hostContext
// with theme "light" and fixed containerDimensions), and once the View sent
// ui/notifications/initialized it sends ui/notifications/tool-input and
// ui/notifications/tool-result. The Content-Security-Policy to enforce (cspHeader) goes in as a
// <meta http-equiv> at the start of the View's <head>. Both iframes are borderless and exactly
// width x height (400 x 300) at the page's top left corner, so the View's pixels sit at known
// positions in a screenshot of the outer iframe (#view).
//
// The page keeps its state in window.mcpHost: messages (every message from the View, in order),
// initializeParams, initialized, toolResultSent, rendered (true once the View reported its size
// with ui/notifications/size-changed after the tool result: it has rendered the result), size,
// errors (protocol violations seen, as strings), logs (notifications/message params).
//
// Node 20, node: builtins only.

import { createServer } from "node:http";

export const PROTOCOL_VERSION = "2026-01-26";
export const HOST_INFO = { name: "hypermcp-apps-test-host", version: "1.0.0" };

// cspFromMeta(csp): the Content-Security-Policy a host builds from a UI resource's _meta.ui.csp,
// as the spec says: its restrictive default when csp is absent, else its construction from the
// declared domains (connect, resource, frame and base-uri domains).
export function cspFromMeta(csp) {
  if (!csp) {
    return [
      "default-src 'none'",
      "script-src 'self' 'unsafe-inline'",
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "media-src 'self' data:",
      "connect-src 'none'",
    ].join("; ");
  }
  const list = (domains) => (Array.isArray(domains) ? domains.join(" ") : "");
  const resources = list(csp.resourceDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline' ${resources}`,
    `style-src 'self' 'unsafe-inline' ${resources}`,
    `connect-src 'self' ${list(csp.connectDomains)}`,
    `img-src 'self' data: ${resources}`,
    `font-src 'self' ${resources}`,
    `media-src 'self' data: ${resources}`,
    `frame-src ${list(csp.frameDomains) || "'none'"}`,
    "object-src 'none'",
    `base-uri ${list(csp.baseUriDomains) || "'self'"}`,
  ]
    .map((directive) => directive.trim())
    .join("; ");
}

// withCsp(html, csp): the View's HTML with <meta http-equiv="Content-Security-Policy"> as the
// first element of its <head> (a <head> is added when there is none).
export function withCsp(html, csp) {
  const attr = csp.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const meta = `<meta http-equiv="Content-Security-Policy" content="${attr}">`;
  if (/<head(\s[^>]*)?>/i.test(html)) return html.replace(/<head(\s[^>]*)?>/i, (tag) => tag + meta);
  if (/<html(\s[^>]*)?>/i.test(html)) return html.replace(/<html(\s[^>]*)?>/i, (tag) => `${tag}<head>${meta}</head>`);
  return `<head>${meta}</head>${html}`;
}

// A JSON value inside an inline <script>: no "</script>" or "<!--" can appear in it.
const scriptJson = (value) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");

function hostPage(config) {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>hypermcp MCP Apps test host</title>
<style>html, body { margin: 0; background: #ffffff; }
#view { display: block; border: 0; margin: 0; padding: 0; width: ${config.width}px; height: ${config.height}px; }</style>
</head><body>
<iframe id="view" sandbox="allow-scripts allow-same-origin" src="${config.sandboxOrigin}/sandbox.html"></iframe>
<script>
"use strict";
const config = ${scriptJson(config)};
const frame = document.getElementById("view");
const state = window.mcpHost = {
  messages: [], initializeParams: null, initialized: false, toolResultSent: false,
  rendered: false, size: null, errors: [], logs: [],
};
const post = (message) => frame.contentWindow.postMessage({ jsonrpc: "2.0", ...message }, config.sandboxOrigin);
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

window.addEventListener("message", (event) => {
  if (event.source !== frame.contentWindow) return;
  const msg = event.data;
  if (event.origin !== config.sandboxOrigin) {
    state.errors.push("a message from " + event.origin + ", not the sandbox origin");
    return;
  }
  if (!isObject(msg) || msg.jsonrpc !== "2.0") {
    state.errors.push("not a JSON-RPC 2.0 message: " + JSON.stringify(msg));
    return;
  }
  state.messages.push(msg);
  const hasId = msg.id !== undefined && msg.id !== null;
  switch (msg.method) {
    case "ui/notifications/sandbox-proxy-ready":
      post({
        method: "ui/notifications/sandbox-resource-ready",
        params: { html: config.html, sandbox: "allow-scripts", csp: config.csp ?? {}, permissions: config.permissions ?? {} },
      });
      return;
    case "ui/initialize": {
      const p = msg.params;
      if (!hasId) state.errors.push("ui/initialize sent as a notification (no id)");
      if (!isObject(p)) { state.errors.push("ui/initialize without params"); break; }
      if (!isObject(p.appInfo) || typeof p.appInfo.name !== "string" || typeof p.appInfo.version !== "string")
        state.errors.push("ui/initialize params.appInfo is not {name, version}: " + JSON.stringify(p.appInfo));
      if (!isObject(p.appCapabilities))
        state.errors.push("ui/initialize params.appCapabilities is not an object: " + JSON.stringify(p.appCapabilities));
      if (typeof p.protocolVersion !== "string")
        state.errors.push("ui/initialize params.protocolVersion is not a string: " + JSON.stringify(p.protocolVersion));
      if (state.initializeParams) state.errors.push("ui/initialize sent twice");
      state.initializeParams = p;
      post({
        id: msg.id,
        result: {
          protocolVersion: config.protocolVersion,
          hostCapabilities: {
            logging: {},
            sandbox: { csp: config.csp ?? {}, permissions: config.permissions ?? {} },
          },
          hostInfo: config.hostInfo,
          hostContext: config.hostContext,
        },
      });
      return;
    }
    case "ui/notifications/initialized":
      if (!state.initializeParams) state.errors.push("ui/notifications/initialized before ui/initialize");
      if (state.initialized) state.errors.push("ui/notifications/initialized sent twice");
      if (hasId) state.errors.push("ui/notifications/initialized sent as a request (with an id)");
      state.initialized = true;
      post({ method: "ui/notifications/tool-input", params: { arguments: config.toolInput } });
      post({ method: "ui/notifications/tool-result", params: config.toolResult });
      state.toolResultSent = true;
      return;
    case "ui/notifications/size-changed":
      state.size = msg.params;
      if (state.toolResultSent) state.rendered = true;
      return;
    case "notifications/message":
      state.logs.push(msg.params);
      return;
    case undefined:
      state.errors.push("a response from the View to nothing the host asked: " + JSON.stringify(msg));
      return;
    default:
      if (hasId) post({ id: msg.id, error: { code: -32601, message: "Method not found: " + msg.method } });
      else if (!msg.method.startsWith("notifications/") && !msg.method.startsWith("ui/notifications/"))
        state.errors.push("unknown notification " + msg.method);
  }
});
</script>
</body></html>`;
}

function sandboxPage(hostOrigin) {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>MCP Apps sandbox proxy</title>
<style>html, body { margin: 0; overflow: hidden; background: #ffffff; }
iframe { display: block; border: 0; margin: 0; padding: 0; width: 100vw; height: 100vh; }</style>
</head><body>
<script>
"use strict";
const hostOrigin = ${scriptJson(hostOrigin)};
let inner = null;
window.addEventListener("message", (event) => {
  const msg = event.data;
  if (event.source === window.parent && event.origin === hostOrigin) {
    if (msg?.method === "ui/notifications/sandbox-resource-ready") {
      const params = msg.params ?? {};
      inner = document.createElement("iframe");
      inner.setAttribute("sandbox", params.sandbox ?? "allow-scripts");
      const allow = [];
      if (params.permissions?.camera) allow.push("camera");
      if (params.permissions?.microphone) allow.push("microphone");
      if (params.permissions?.geolocation) allow.push("geolocation");
      if (params.permissions?.clipboardWrite) allow.push("clipboard-write");
      if (allow.length) inner.setAttribute("allow", allow.join("; "));
      inner.srcdoc = params.html;
      document.body.append(inner);
    } else if (inner && !String(msg?.method ?? "").startsWith("ui/notifications/sandbox-")) {
      inner.contentWindow.postMessage(msg, "*");
    }
  } else if (inner && event.source === inner.contentWindow) {
    window.parent.postMessage(msg, hostOrigin);
  }
});
window.parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {} }, hostOrigin);
</script>
</body></html>`;
}

function listen(handler) {
  return new Promise((resolve, reject) => {
    const server = createServer(handler);
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

// startHost({html, meta, cspHeader, toolInput, toolResult, tool, width, height}): serves the host
// page for one View. html: the View (the ui:// resource's text); meta: its _meta.ui (csp,
// permissions, ...); cspHeader: the Content-Security-Policy to enforce (default:
// cspFromMeta(meta.csp)); toolInput: the tool call's arguments; toolResult: its CallToolResult;
// tool: the tool's definition (for hostContext.toolInfo). Returns {url, hostOrigin,
// sandboxOrigin, csp, width, height, close()}.
export async function startHost({
  html,
  meta = {},
  cspHeader,
  toolInput = {},
  toolResult,
  tool,
  width = 400,
  height = 300,
}) {
  if (typeof html !== "string" || html === "") throw new Error("startHost: no View HTML");
  if (!toolResult || typeof toolResult !== "object") throw new Error("startHost: no tool result");
  const csp = cspHeader || cspFromMeta(meta?.csp);
  let hostOrigin = "";
  let sandboxOrigin = "";
  const hostServer = await listen((req, res) => {
    if (req.method === "GET" && (req.url === "/" || req.url === "/index.html")) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(page);
    } else if (req.url === "/favicon.ico") {
      res.writeHead(204).end();
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    }
  });
  const sandboxServer = await listen((req, res) => {
    if (req.method === "GET" && req.url === "/sandbox.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
      res.end(sandboxPage(hostOrigin));
    } else if (req.url === "/favicon.ico") {
      res.writeHead(204).end();
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    }
  });
  hostOrigin = `http://127.0.0.1:${hostServer.address().port}`;
  sandboxOrigin = `http://127.0.0.1:${sandboxServer.address().port}`;
  const hostContext = {
    theme: "light",
    displayMode: "inline",
    availableDisplayModes: ["inline"],
    containerDimensions: { width, height },
    locale: "en-US",
    timeZone: "UTC",
    platform: "web",
    userAgent: `${HOST_INFO.name}/${HOST_INFO.version}`,
    ...(tool ? { toolInfo: { tool } } : {}),
  };
  const page = hostPage({
    html: withCsp(html, csp),
    csp: meta?.csp,
    permissions: meta?.permissions,
    toolInput,
    toolResult,
    hostContext,
    hostInfo: HOST_INFO,
    protocolVersion: PROTOCOL_VERSION,
    sandboxOrigin,
    width,
    height,
  });
  const close = () =>
    Promise.all(
      [hostServer, sandboxServer].map(
        (server) =>
          new Promise((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  return { url: `${hostOrigin}/`, hostOrigin, sandboxOrigin, csp, width, height, close };
}
