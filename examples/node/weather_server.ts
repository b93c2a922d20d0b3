// A realistic MCP server in TypeScript using every feature hypermcp offers (the Node twin of
// examples/python/weather_server.py).
//
// Tools with zod input and output schemas (structured output), annotations, progress,
// logging, cancellation, elicitation and sampling; a static resource and a resource template
// (subscribable: `report` changes a city's sky and tells subscribers);
// a prompt with arguments; argument completion; a lifespan holding shared state; an MCP App
// (the forecast widget, examples/apps/weather-widget.html). Serves stdio,
// or Streamable HTTP at http://127.0.0.1:PORT/mcp with `--http PORT` (until SIGINT/SIGTERM):
//
//     node --experimental-strip-types examples/node/weather_server.ts  # Node 22.7+ (no flag from 22.18/23.6)
//     node examples/node/weather_server.mjs                            # Node 20+: the JS twin
//     node examples/node/weather_server.mjs --http 3000                # HTTP (either file)
//
// KEEP IN SYNC with weather_server.mjs, its plain-JavaScript twin (same logic, JSDoc types),
// which the tests and `make demo` run. This file sticks to erasable TypeScript (no enums,
// namespaces or parameter properties; types imported with `import type`) so Node can strip
// the types and run it as is.

import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { image, INVALID_PARAMS, McpError, resourceLink, Server } from 'hypermcp';
import type { PromptMessageInput } from 'hypermcp';

interface City {
  name: string;
  country: string;
  temp_c: number;
  sky: string;
}

const CITIES: Record<string, City> = {
  paris: { name: 'Paris', country: 'FR', temp_c: 18.5, sky: 'sunny' },
  london: { name: 'London', country: 'GB', temp_c: 12.0, sky: 'rain' },
  tokyo: { name: 'Tokyo', country: 'JP', temp_c: 22.3, sky: 'cloudy' },
  lima: { name: 'Lima', country: 'PE', temp_c: 16.1, sky: 'fog' },
};
const CITY_KEYS = Object.keys(CITIES).sort();

// A 1x1 transparent PNG, so the example carries no binary files.
const PIXEL = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4e10000000049454e44ae426082',
  'hex',
);

/** What the lifespan opens before serving: here, a lookup counter. */
interface AppState {
  lookups: number;
}

const server = new Server({
  name: 'weather',
  version: '1.0.0',
  title: 'Weather',
  instructions: 'Ask for forecasts by city; read weather://{city}/now for current conditions.',
  lifespan: async () => {
    const state: AppState = { lookups: 0 };
    return {
      context: state,
      // Close connections, flush caches... Logs go to stderr, never stdout.
      close: () => console.error(`weather server: served ${state.lookups} lookups`),
    };
  },
});

function city(name: string): City {
  const found = CITIES[name.toLowerCase()];
  if (found === undefined) throw new McpError(INVALID_PARAMS, `unknown city ${JSON.stringify(name)}`, { known: CITY_KEYS });
  return found;
}

const Units = z.enum(['celsius', 'fahrenheit']).describe('Temperature units');

// MCP Apps: hosts that render apps show forecasts in this widget (the tool's text and
// structured result stay what every other host shows).
// (Found from this script's path: the file is type-checked as CommonJS, without import.meta.)
const WIDGET = readFileSync(new URL('../apps/weather-widget.html', pathToFileURL(process.argv[1] ?? '')), 'utf8');
server.app('ui://weather/forecast', { html: WIDGET, prefersBorder: true });

server.tool(
  'forecast',
  {
    description: 'Forecast for a city.',
    ui: 'ui://weather/forecast',
    inputSchema: {
      city: z.string().describe('Which city (paris, london, tokyo, lima).'),
      days: z.number().int().min(1).max(7).default(3).describe('How many days ahead (1-7)'),
      units: Units.default('celsius'),
    },
    outputSchema: {
      city: z.string().describe("The city's name."),
      days: z.number().int().describe('How many days it covers.'),
      temperatures: z.array(z.number()).describe('One temperature per day.'),
      units: Units,
    },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async ({ city: name, days, units }, ctx) => {
    const base = city(name).temp_c;
    const temperatures: number[] = [];
    for (let day = 0; day < days; day++) {
      ctx.signal.throwIfAborted(); // the client cancelled: stop working
      await ctx.reportProgress(day + 1, days, `day ${day + 1}`);
      const state = ctx.server.lifespanContext;
      if (state) state.lookups += 1;
      const t = base + day * 0.5;
      temperatures.push(units === 'fahrenheit' ? Math.round(((t * 9) / 5 + 32) * 10) / 10 : t);
      await new Promise((resolve) => setImmediate(resolve));
    }
    await ctx.info(`forecast for ${name} over ${days} days`);
    return { city: city(name).name, days, temperatures, units };
  },
);

const Alert = z.object({
  city: z.string(),
  level: z.enum(['info', 'warning', 'severe']),
  message: z.string(),
});

server.tool(
  'alerts',
  {
    description: 'Active weather alerts, optionally for one country code.',
    inputSchema: { country: z.string().optional().describe('An ISO country code, e.g. GB') },
    outputSchema: { alerts: z.array(Alert) },
    annotations: { readOnlyHint: true },
  },
  ({ country }) => {
    const found: z.infer<typeof Alert>[] = [
      { city: 'London', level: 'warning', message: 'Heavy rain' },
      { city: 'Lima', level: 'info', message: 'Morning fog' },
    ];
    const codes = new Map(Object.values(CITIES).map((c) => [c.name, c.country]));
    return { alerts: found.filter((a) => country === undefined || codes.get(a.city) === country.toUpperCase()) };
  },
);

server.tool(
  'weather_map',
  {
    title: 'Weather map',
    description: "A (tiny) weather map image and a link to the city's current conditions.",
    inputSchema: { city: z.string() },
  },
  ({ city: name }) => {
    city(name);
    return [image(PIXEL, 'image/png'), resourceLink({ uri: `weather://${name.toLowerCase()}/now`, name: `${name} now` })];
  },
);

server.tool(
  'plan_trip',
  'Asks the user where to go (elicitation), then a model for advice (sampling).',
  async (_args, ctx) => {
    const answer = await ctx.elicit('Where would you like to go?', {
      type: 'object',
      properties: {
        city: { type: 'string', enum: CITY_KEYS },
        days: { type: 'integer', minimum: 1, maximum: 7, default: 3 },
      },
      required: ['city'],
    });
    if (answer.action !== 'accept' || !answer.content) {
      return `Trip planning ${answer.action === 'decline' ? 'declined' : 'cancelled'}.`;
    }
    const where = String(answer.content.city);
    const advice = await ctx.sample(`One sentence of packing advice for ${where}, weather: ${city(where).sky}.`, {
      maxTokens: 60,
    });
    const content = Array.isArray(advice.content) ? advice.content[0] : advice.content;
    const text = content?.type === 'text' ? content.text : '';
    return `${where}: ${text}`;
  },
);

server.tool(
  'outlook',
  {
    description:
      'A long-range outlook, half a second a day: it runs as a task when the client asks (polled with tasks/get, cancelled with tasks/cancel, its result taken with tasks/result).',
    inputSchema: { city: z.string(), days: z.number().int().min(1).default(3) },
    task: true,
  },
  async ({ city: name, days }, ctx) => {
    const place = city(name);
    for (let day = 1; day <= days; day++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      if (ctx.signal.aborted) throw new Error('cancelled');
      await ctx.reportProgress(day, days, `day ${day}`);
    }
    return `${place.name}: ${place.sky} for ${days} days`;
  },
);

server.tool(
  'report',
  {
    description: "Reports a city's sky; clients subscribed to its conditions are told.",
    inputSchema: { city: z.string(), sky: z.string() },
  },
  ({ city: name, sky }) => {
    city(name).sky = sky;
    server.notifyResourceUpdated(`weather://${name.toLowerCase()}/now`);
    return `${name.toLowerCase()}: ${sky}`;
  },
);

server.resource('weather://cities', { description: 'Every city this server knows.', mimeType: 'application/json' }, () => CITY_KEYS);

server.resource(
  'weather://{city}/now',
  { name: 'now', description: 'Current conditions in a city.', mimeType: 'application/json' },
  async (_url, vars) => city(vars.city),
);

server.prompt(
  'packing_list',
  {
    description: 'A packing list for a trip.',
    argsSchema: {
      city: z.string().describe('Destination.'),
      days: z.coerce.number().int().min(1).default(3).describe('Length of the trip.'),
    },
  },
  ({ city: where, days }): PromptMessageInput[] => {
    const sky = city(where).sky;
    return [
      { role: 'user', content: `I am going to ${where} for ${days} days; the sky is ${sky}.` },
      { role: 'user', content: 'What should I pack?' },
    ];
  },
);

const completeCity = (value: string): string[] => CITY_KEYS.filter((c) => c.startsWith(value.toLowerCase()));
server.completion({ prompt: 'packing_list', argument: 'city' }, completeCity);
server.completion({ resource: 'weather://{city}/now', argument: 'city' }, completeCity);

const httpAt = process.argv.indexOf('--http');
const port = httpAt < 0 ? null : Number(process.argv[httpAt + 1]);
if (port !== null && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
  console.error(`weather_server: --http: not a port number: ${process.argv[httpAt + 1]}`);
  process.exit(2);
}
const serving = port === null ? server.run() : server.run({ transport: 'http', host: '127.0.0.1', port, path: '/mcp' });
serving.catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
