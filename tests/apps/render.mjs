// The MCP Apps test: the weather example servers' widget (ui://weather/forecast) rendered by a
// web host (tests/apps/host.mjs) in a real browser, Debian's headless chromium driven by
// playwright-core (installed by tests/interop/setup_peers.sh in .peers/apps).
//
//   node tests/apps/render.mjs [python] [node] [rust]   the servers (default: all three)
//   node tests/apps/render.mjs --self-test              examples/apps/weather-widget.html with a
//                                                       made-up result, no server or client
//
// For each server: start it over Streamable HTTP on a free port, connect our Node client (with the
// io.modelcontextprotocol/ui extension), find the forecast tool's _meta.ui.resourceUri, call
// forecast {city: "paris", days: 3}, read the View with client.readApp, render it with the
// result, then check the View's DOM (the city, one line per day with its temperature), that the
// Content-Security-Policy is enforced (a fetch from the View is blocked), and the pixels of a
// screenshot of the View (decoded here): bar i is #1f77b4 from its bottom up to its height,
// round(t * 4) px, with white above it and between bars.
// Exits 1 on any failure. Env: CHROMIUM (default /usr/bin/chromium), PEERS (default <repo>/.peers).

import { spawn } from "node:child_process";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { crc32, deflateSync, inflateSync } from "node:zlib";

import { startHost, cspFromMeta } from "./host.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PEERS = process.env.PEERS || join(REPO, ".peers");
const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const WIDGET = join(REPO, "examples", "apps", "weather-widget.html");
const RESOURCE_URI = "ui://weather/forecast";
const MIME_TYPE = "text/html;profile=mcp-app";

// The widget's layout (examples/apps/weather-widget.html): bars 40 px wide, 10 px apart,
// bottom-aligned in #chart, 4 px per degree, #1f77b4 on white.
const BAR_WIDTH = 40;
const BAR_GAP = 10;
const PX_PER_DEGREE = 4;
const BAR_RGB = [0x1f, 0x77, 0xb4];
const WHITE = [0xff, 0xff, 0xff];
const TOLERANCE = 8;
const VIEW = { width: 400, height: 300 };

const SERVERS = {
  python: (port) => [join(REPO, ".venv", "bin", "python"), [join(REPO, "examples", "python", "weather_server.py"), "--http", String(port)]],
  node: (port) => [process.execPath, [join(REPO, "examples", "node", "weather_server.mjs"), "--http", String(port)]],
  rust: (port) => [join(process.env.HYPERMCP_BUILD || join(REPO, "target", "release"), "examples", "weather_server"), ["--http", String(port)]],
};

class Failure extends Error {}
const fail = (message) => {
  throw new Failure(message);
};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ------------------------------------------------------------------------------------ PNG

// The PNG filters' prediction of a byte from the bytes left (a), up (b) and up left (c) of it.
function predict(filter, a, b, c) {
  switch (filter) {
    case 0: return 0;
    case 1: return a;
    case 2: return b;
    case 3: return (a + b) >> 1;
    case 4: {
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    default: return undefined;
  }
}

// decodePng(buffer): {width, height, channels, pixels} of an 8-bit RGB or RGBA, non-interlaced
// PNG (what Chromium's screenshots are); pixels: the unfiltered rows, channels bytes a pixel.
export function decodePng(buffer) {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (buffer.length < 8 || signature.some((byte, i) => buffer[i] !== byte)) throw new Error("not a PNG");
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat = [];
  for (let at = 8; at + 8 <= buffer.length; ) {
    const length = buffer.readUInt32BE(at);
    const type = buffer.toString("latin1", at + 4, at + 8);
    const data = buffer.subarray(at + 8, at + 8 + length);
    at += 12 + length;
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [bitDepth, colorType, , , interlace] = data.subarray(8, 13);
      if (bitDepth !== 8 || (colorType !== 2 && colorType !== 6) || interlace !== 0) {
        throw new Error(`unsupported PNG: bit depth ${bitDepth}, colour type ${colorType}, interlace ${interlace}`);
      }
      channels = colorType === 6 ? 4 : 3;
    } else if (type === "IDAT") {
      idat.push(data);
    } else if (type === "IEND") {
      break;
    }
  }
  if (!channels) throw new Error("PNG without IHDR");
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error(`PNG data too short: ${raw.length} bytes`);
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const out = pixels.subarray(y * stride, (y + 1) * stride);
    const prev = y > 0 ? pixels.subarray((y - 1) * stride, y * stride) : Buffer.alloc(stride);
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? out[x - channels] : 0; // left
      const c = x >= channels ? prev[x - channels] : 0; // up left
      const predictor = predict(filter, a, prev[x], c);
      if (predictor === undefined) throw new Error(`PNG row ${y}: unknown filter type ${filter}`);
      out[x] = (line[x] + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

// encodePng(width, height, channels, pixels): a PNG whose row y uses filter type y % 5 (for the
// self-test of decodePng).
function encodePng(width, height, channels, pixels) {
  const stride = width * channels;
  const raw = Buffer.alloc(height * (stride + 1));
  for (let y = 0; y < height; y++) {
    const filter = y % 5;
    raw[y * (stride + 1)] = filter;
    for (let x = 0; x < stride; x++) {
      const at = y * stride + x;
      const a = x >= channels ? pixels[at - channels] : 0;
      const b = y > 0 ? pixels[at - stride] : 0;
      const c = x >= channels && y > 0 ? pixels[at - stride - channels] : 0;
      raw[y * (stride + 1) + 1 + x] = (pixels[at] - predict(filter, a, b, c)) & 0xff;
    }
  }
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "latin1");
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, channels === 4 ? 6 : 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

function pixelAt(image, x, y) {
  const at = (y * image.width + x) * image.channels;
  return [image.pixels[at], image.pixels[at + 1], image.pixels[at + 2]];
}

const hex = (rgb) => "#" + rgb.map((v) => v.toString(16).padStart(2, "0")).join("");
const near = (rgb, want) => rgb.every((v, i) => Math.abs(v - want[i]) <= TOLERANCE);

// ---------------------------------------------------------------------------- rendering

let playwright;
function loadPlaywright() {
  const pkg = join(PEERS, "apps", "package.json");
  try {
    playwright ??= createRequire(pkg)("playwright-core");
  } catch (error) {
    fail(`playwright-core is not installed in ${join(PEERS, "apps")} (run \`make peers\` or ` +
      `PEERS_PARTS=apps tests/interop/setup_peers.sh): ${error.message}`);
  }
  return playwright;
}

async function launchBrowser() {
  if (!existsSync(CHROMIUM)) {
    fail(`${CHROMIUM} is missing (run \`make peers\`: it installs Debian's chromium)`);
  }
  const { chromium } = loadPlaywright();
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--force-color-profile=srgb", "--disable-lcd-text", "--disable-gpu"],
  });
}

// The View's frame: the iframe inside the Sandbox proxy's iframe (#view).
async function viewFrame(page) {
  const proxy = await (await page.$("#view"))?.contentFrame();
  if (!proxy) fail("the host page has no Sandbox proxy iframe");
  const inner = await (await proxy.waitForSelector("iframe", { state: "attached" })).contentFrame();
  if (!inner) fail("the Sandbox proxy has no View iframe");
  return inner;
}

// renderAndProbe(browser, name, {html, meta, cspHeader, toolInput, toolResult, tool},
// expectDom(dom), expectPixels(image, dom)): renders the View through the host, checks the
// protocol and the CSP, then runs the given checks on the View's DOM and on its screenshot
// (saved in the temporary folder when a check fails).
async function renderAndProbe(browser, name, options, expectDom, expectPixels = () => {}) {
  const host = await startHost({ ...options, ...VIEW });
  const page = await browser.newPage({ viewport: { width: 640, height: 480 }, deviceScaleFactor: 1 });
  page.setDefaultTimeout(15000);
  const consoleLines = [];
  page.on("console", (msg) => consoleLines.push(`[${msg.type()}] ${msg.text()}`));
  page.on("pageerror", (error) => consoleLines.push(`[pageerror] ${error.message}`));
  const shot = join(tmpdir(), `hypermcp-apps-${name.replace(/[^a-z0-9]+/gi, "-")}.png`);
  rmSync(shot, { force: true });
  let screenshot = null;
  try {
    await page.goto(host.url);
    try {
      await page.waitForFunction(() => window.mcpHost && (window.mcpHost.rendered || window.mcpHost.errors.length > 0));
    } catch {
      const state = await page.evaluate(() => window.mcpHost).catch(() => null);
      fail(`the View did not render the tool result within 15 s; host state: ${JSON.stringify(state)}` +
        (consoleLines.length ? `; console:\n  ${consoleLines.join("\n  ")}` : ""));
    }
    const state = await page.evaluate(() => window.mcpHost);
    if (state.errors.length) fail(`the View broke the protocol: ${state.errors.join("; ")}`);
    const methods = state.messages.map((m) => m.method);
    const want = ["ui/notifications/sandbox-proxy-ready", "ui/initialize", "ui/notifications/initialized"];
    if (want.some((method, i) => methods[i] !== method)) {
      fail(`the View's first messages were ${JSON.stringify(methods.slice(0, 3))}, not ${JSON.stringify(want)}`);
    }

    const view = await viewFrame(page);
    // Two animation frames: what the View rendered is painted.
    await view.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const dom = await view.evaluate(() => {
      const rect = (el) => el && (({ left, top, right, bottom, width, height }) => ({ left, top, right, bottom, width, height }))(el.getBoundingClientRect());
      return {
        text: document.body.innerText,
        city: document.getElementById("city")?.textContent ?? null,
        days: [...document.querySelectorAll(".day")].map((el) => el.textContent),
        chart: rect(document.getElementById("chart")),
        bars: [...document.querySelectorAll("#chart > *")].map(rect),
        csp: document.querySelector('head > meta[http-equiv="Content-Security-Policy"]')?.content ?? null,
      };
    });
    if (dom.csp !== host.csp) fail(`the View's CSP <meta> is ${JSON.stringify(dom.csp)}, not ${JSON.stringify(host.csp)}`);
    // Enforced, not just present: the View may not fetch from the host's origin (no-cors: only
    // the CSP can stop it).
    const fetched = await view.evaluate(async (url) => {
      let violated = null;
      document.addEventListener("securitypolicyviolation", (e) => { violated = e.effectiveDirective; });
      try {
        await fetch(url, { mode: "no-cors" });
        return "fetched";
      } catch (error) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        return violated ? `blocked by ${violated}` : `failed without a CSP violation (${error.message})`;
      }
    }, host.url);
    if (fetched !== "blocked by connect-src") fail(`a fetch from the View to ${host.url}: ${fetched}, not blocked by the CSP's connect-src (${host.csp})`);

    expectDom(dom);

    screenshot = await page.locator("#view").screenshot();
    const image = decodePng(screenshot);
    if (image.width !== VIEW.width || image.height !== VIEW.height) {
      fail(`the screenshot of the View is ${image.width}x${image.height}, not ${VIEW.width}x${VIEW.height}`);
    }
    expectPixels(image, dom);
  } catch (error) {
    if (screenshot) writeFileSync(shot, screenshot);
    else await page.locator("#view").screenshot({ path: shot }).catch(() => {});
    if (existsSync(shot)) error.message += ` (screenshot: ${shot})`;
    throw error;
  } finally {
    await page.close().catch(() => {});
    await host.close();
  }
}

// The checks of a rendered forecast: DOM first (inside renderAndProbe), then pixels.
async function checkForecast(browser, name, options) {
  const forecast = options.toolResult.structuredContent;
  const temps = forecast.temperatures;
  const unit = forecast.units === "fahrenheit" ? "°F" : "°C";
  const expectDom = (dom) => {
    if (!dom.text.includes(forecast.city)) fail(`the View's text does not show the city ${JSON.stringify(forecast.city)}: ${JSON.stringify(dom.text)}`);
    if (dom.city !== forecast.city) fail(`#city is ${JSON.stringify(dom.city)}, not ${JSON.stringify(forecast.city)}`);
    for (const t of temps) {
      if (!dom.text.includes(String(t))) fail(`the View's text does not show the temperature ${t}: ${JSON.stringify(dom.text)}`);
    }
    const lines = temps.map((t, i) => `Day ${i + 1}: ${t} ${unit}`);
    if (JSON.stringify(dom.days) !== JSON.stringify(lines)) fail(`the .day lines are ${JSON.stringify(dom.days)}, not ${JSON.stringify(lines)}`);
    if (!dom.chart) fail("the View has no #chart");
    if (dom.bars.length !== temps.length) fail(`#chart has ${dom.bars.length} bars, not ${temps.length}`);
    const edges = [dom.chart.left, dom.chart.bottom];
    if (!edges.every(Number.isInteger)) fail(`#chart is not on whole pixels (left ${edges[0]}, bottom ${edges[1]})`);
  };
  // Bar i spans x in [left + i * 50, left + i * 50 + 40) and the rows bottom - h to bottom - 1
  // (h = round(t * 4), at least 0) of #chart; "height k" below is the row bottom - k.
  const expectPixels = (image, dom) => {
    const { left, bottom } = dom.chart;
    const probe = (x, k, want, what) => {
      const y = bottom - k;
      if (x < 0 || y < 0 || x >= image.width || y >= image.height) fail(`${what}: (${x}, ${y}) is outside the ${image.width}x${image.height} View`);
      const got = pixelAt(image, x, y);
      if (!near(got, want)) fail(`${what}: the pixel at (${x}, ${y}) is ${hex(got)}, not ${hex(want)}`);
    };
    temps.forEach((t, i) => {
      const h = Math.max(0, Math.round(t * PX_PER_DEGREE));
      const x0 = left + i * (BAR_WIDTH + BAR_GAP);
      for (const x of [x0 + 2, x0 + BAR_WIDTH / 2, x0 + BAR_WIDTH - 3]) {
        for (let k = 2; k <= h - 2; k++) probe(x, k, BAR_RGB, `bar ${i + 1} (${t} ${unit}, ${h} px)`);
        probe(x, h + 1, WHITE, `just above bar ${i + 1} (${t} ${unit}, ${h} px)`);
      }
      if (i + 1 < temps.length) probe(x0 + BAR_WIDTH + BAR_GAP / 2, 2, WHITE, `between bars ${i + 1} and ${i + 2}`);
    });
    probe(left + temps.length * (BAR_WIDTH + BAR_GAP), 2, WHITE, "right of the last bar");
  };
  await renderAndProbe(browser, name, options, expectDom, expectPixels);
  return `${forecast.city} ${temps.join("/")}`;
}

// ------------------------------------------------------------------------------ servers

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const running = new Set();
function stopAll() {
  for (const child of running) {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
}
process.on("exit", stopAll);
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });
}

// startServer(name): the server in its own process group, answering on http://127.0.0.1:PORT/mcp.
async function startServer(name) {
  const port = await freePort();
  const [command, args] = SERVERS[name](port);
  if (!existsSync(command)) {
    fail(`${command} is missing (\`make build\` builds the Rust examples, the Python package into .venv and the Node addon)`);
  }
  const child = spawn(command, args, { cwd: REPO, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  let output = "";
  const keep = (chunk) => {
    output = (output + chunk).slice(-4000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = null;
  child.on("exit", (code, signal) => {
    exited = signal ?? `exit code ${code}`;
  });
  child.on("error", (error) => {
    exited = error.message;
  });
  const url = `http://127.0.0.1:${port}/mcp`;
  const stop = async () => {
    if (exited === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // gone already
      }
      for (let i = 0; i < 20 && exited === null; i++) await sleep(100);
      if (exited === null) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
    }
    running.delete(child);
  };
  const command_line = [command, ...args].join(" ");
  const deadline = Date.now() + 20000;
  for (;;) {
    if (exited !== null) {
      await stop();
      fail(`\`${command_line}\` exited (${exited}) before answering on ${url}; its output:\n${output}`);
    }
    try {
      // Any HTTP answer (even 400/405 to a bare GET) means it listens.
      await fetch(url, { signal: AbortSignal.timeout(1000) }).then((res) => res.body?.cancel());
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        fail(`\`${command_line}\` did not answer on ${url} within 20 s; its output:\n${output}`);
      }
      await sleep(200);
    }
  }
  return { url, stop, output: () => output };
}

let Client;
async function loadClient() {
  if (!Client) {
    const entry = join(REPO, "bindings-node", "js", "index.mjs");
    try {
      ({ Client } = await import(pathToFileURL(entry).href));
    } catch (error) {
      fail(`cannot load our Node client ${entry} (\`make node\` builds it): ${error.message}`);
    }
  }
  return Client;
}

async function checkServer(browser, name) {
  const ClientClass = await loadClient();
  const server = await startServer(name);
  let client = null;
  try {
    client = await ClientClass.http(server.url, {
      name: "apps-test",
      extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [MIME_TYPE] } },
    });
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === "forecast");
    if (!tool) fail(`the server has no forecast tool (tools: ${tools.map((t) => t.name).join(", ") || "none"})`);
    const resourceUri = tool._meta?.ui?.resourceUri;
    if (!resourceUri) fail(`the forecast tool has no _meta.ui.resourceUri (its _meta: ${JSON.stringify(tool._meta ?? null)})`);
    if (resourceUri !== RESOURCE_URI) fail(`the forecast tool's _meta.ui.resourceUri is ${JSON.stringify(resourceUri)}, not ${RESOURCE_URI}`);

    const toolInput = { city: "paris", days: 3 };
    const result = await client.callTool("forecast", toolInput);
    if (result?.isError) fail(`forecast ${JSON.stringify(toolInput)} failed: ${JSON.stringify(result.content)}`);
    const forecast = result?.structuredContent;
    if (!forecast || typeof forecast.city !== "string" || !Array.isArray(forecast.temperatures)) {
      fail(`forecast returned no structuredContent {city, days, temperatures, units}: ${JSON.stringify(result)}`);
    }
    if (forecast.city !== "Paris") fail(`forecast {city: "paris"} answered for ${JSON.stringify(forecast.city)}, not "Paris"`);
    if (forecast.days !== 3 || forecast.temperatures.length !== 3) {
      fail(`forecast {days: 3} answered ${forecast.days} days and ${forecast.temperatures.length} temperatures`);
    }

    if (typeof client.readApp !== "function") fail("our Node client has no readApp(uri)");
    const app = await client.readApp(resourceUri);
    if (app?.uri !== resourceUri) fail(`readApp(${resourceUri}) returned uri ${JSON.stringify(app?.uri)}`);
    if (app.mimeType !== MIME_TYPE) fail(`${resourceUri} has mimeType ${JSON.stringify(app.mimeType)}, not ${MIME_TYPE}`);
    if (typeof app.html !== "string" || !/<html[\s>]/i.test(app.html)) fail(`${resourceUri} is not an HTML document: ${JSON.stringify(String(app.html).slice(0, 200))}`);
    if (typeof app.cspHeader !== "string" || !app.cspHeader.includes("default-src")) {
      fail(`readApp(${resourceUri}) gave no Content-Security-Policy (cspHeader: ${JSON.stringify(app.cspHeader)})`);
    }
    return await checkForecast(browser, name, {
      html: app.html,
      meta: app.meta ?? {},
      cspHeader: app.cspHeader,
      toolInput,
      toolResult: result,
      tool,
    });
  } catch (error) {
    if (!(error instanceof Failure)) error.message += `\nserver output:\n${server.output()}`;
    throw error;
  } finally {
    if (client) await client.close().catch(() => {});
    await server.stop();
  }
}

// ---------------------------------------------------------------------------- self-test

const SELF_TEST_TOOL = {
  name: "forecast",
  description: "The weather forecast for a city",
  inputSchema: {
    type: "object",
    properties: { city: { type: "string" }, days: { type: "integer" }, units: { enum: ["celsius", "fahrenheit"] } },
    required: ["city"],
  },
  _meta: { ui: { resourceUri: RESOURCE_URI } },
};

// decodePng against Chromium's own PNG decoder, on images using every filter type (Chromium's
// screenshots use only some of them), RGB and RGBA (opaque: a canvas gives the bytes back as is).
async function pngSelfTest(browser) {
  const page = await browser.newPage();
  try {
    for (const channels of [3, 4]) {
      const width = 13;
      const height = 10;
      const pixels = Buffer.alloc(width * height * channels);
      for (let i = 0; i < pixels.length; i++) pixels[i] = channels === 4 && i % 4 === 3 ? 255 : (i * 7919 + (i >> 3) * 104729) % 256;
      const png = encodePng(width, height, channels, pixels);
      const mine = decodePng(png);
      if (!mine.pixels.equals(pixels)) fail(`decodePng does not give back the pixels of a ${channels}-channel PNG`);
      const chromiums = await page.evaluate(async (src) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        const canvas = document.createElement("canvas");
        canvas.width = img.width;
        canvas.height = img.height;
        const context = canvas.getContext("2d");
        context.drawImage(img, 0, 0);
        return [...context.getImageData(0, 0, img.width, img.height).data];
      }, `data:image/png;base64,${png.toString("base64")}`);
      for (let i = 0; i < width * height; i++) {
        const want = [...mine.pixels.subarray(i * channels, i * channels + 3)];
        const got = chromiums.slice(i * 4, i * 4 + 3);
        if (want.some((v, j) => v !== got[j])) {
          fail(`pixel ${i % width},${Math.floor(i / width)} of a ${channels}-channel PNG: decodePng ${hex(want)}, Chromium ${hex(got)}`);
        }
      }
    }
  } finally {
    await page.close();
  }
}

// The self-test: the widget file itself, with made-up results, through the same host and checks
// (no server, no client); the lines to print.
async function selfTest(browser) {
  const lines = [];
  await pngSelfTest(browser);
  lines.push("self-test (PNG decoder): filter types 0-4, RGB and RGBA, the pixels Chromium decodes");

  const html = readFileSync(WIDGET, "utf8");
  const paris = await checkForecast(browser, "self-test", {
    html,
    meta: {},
    cspHeader: cspFromMeta(undefined), // the spec's restrictive default
    toolInput: { city: "paris", days: 3 },
    toolResult: {
      content: [{ type: "text", text: "Paris, 3 days: 18.5, 19, 19.5 °C" }],
      structuredContent: { city: "Paris", days: 3, temperatures: [18.5, 19, 19.5], units: "celsius" },
    },
    tool: SELF_TEST_TOOL,
  });
  lines.push(`self-test: ${paris} rendered and probed`);

  const lyon = await checkForecast(browser, "self-test-lyon", {
    html,
    meta: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: false }, // CSP built from it
    toolInput: { city: "lyon", days: 5 },
    toolResult: {
      content: [{ type: "text", text: "Lyon, 5 days: 4, 0, -2, 12.25, 30 °C" }],
      structuredContent: { city: "Lyon", days: 5, temperatures: [4, 0, -2, 12.25, 30], units: "celsius" },
    },
    tool: SELF_TEST_TOOL,
  });
  lines.push(`self-test (5 days, 0 and below): ${lyon} rendered and probed`);

  const text = "Oslo, 2 days: 3, 4 °C";
  const expectText = (dom) => {
    if (!dom.text.includes(text)) fail(`without structuredContent the View does not show the text content: ${JSON.stringify(dom.text)}`);
    if (dom.days.length || dom.bars.length) fail("without structuredContent the View still draws days or bars");
  };
  await renderAndProbe(browser, "self-test-text", {
    html,
    toolInput: { city: "oslo", days: 2 },
    toolResult: { content: [{ type: "text", text }] },
    tool: SELF_TEST_TOOL,
  }, expectText);
  lines.push(`self-test (text fallback): "${text}" shown without structuredContent`);
  return lines;
}

// ---------------------------------------------------------------------------------- main

async function main() {
  const args = process.argv.slice(2);
  const self = args.includes("--self-test");
  const names = args.filter((a) => a !== "--self-test");
  for (const name of names) {
    if (!(name in SERVERS)) {
      console.error(`render.mjs: unknown server ${JSON.stringify(name)} (known: ${Object.keys(SERVERS).join(", ")}; or --self-test)`);
      process.exit(2);
    }
  }
  let browser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    console.error(`FAIL cannot start ${CHROMIUM} with playwright-core: ${error.message}`);
    process.exit(1);
  }
  let failed = 0;
  try {
    if (self) {
      try {
        for (const line of await selfTest(browser)) console.log(`ok   ${line}`);
      } catch (error) {
        failed++;
        console.log(`FAIL self-test: ${error instanceof Failure ? error.message : error.stack}`);
      }
    } else {
      for (const name of names.length ? names : Object.keys(SERVERS)) {
        try {
          console.log(`ok   ${name}: ${await checkServer(browser, name)} rendered and probed`);
        } catch (error) {
          failed++;
          console.log(`FAIL ${name}: ${error instanceof Failure ? error.message : error.stack}`);
        }
      }
    }
  } finally {
    await browser.close().catch(() => {});
    stopAll();
  }
  if (failed) {
    console.error(`render.mjs: ${failed} failed`);
    process.exit(1);
  }
}

await main();
