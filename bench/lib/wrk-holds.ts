/**
 * Hold-then-cancel load from wrk: each wrk thread owns one connection and one buyer (its token
 * and its share of the seats, seat index ≡ thread mod threads as the pgbench scripts pick), and
 * alternates POST …/holds with DELETE /holds/:id. A load generator in C, as pgbench is for the
 * statements: a Node client took a fifth of a core here, three times wrk's, on a 2-core machine
 * where every cycle the client takes is one the server being measured does not get.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const SCRIPT = `
local threads = {}
local created = 0
function setup(thread)
  thread:set("client", created)
  created = created + 1
  table.insert(threads, thread)
end

function init(args)
  local tokens = {}
  for line in io.lines(os.getenv("TOKENS_FILE")) do tokens[#tokens + 1] = line end
  local seats = {}
  for line in io.lines(os.getenv("SEATS_FILE")) do seats[#seats + 1] = line end
  auth = "Bearer " .. tokens[client + 1]
  mine = {}
  for i, seat in ipairs(seats) do
    if (i - 1) % #tokens == client then mine[#mine + 1] = seat end
  end
  holdPath = os.getenv("HOLD_PATH")
  bestBody = os.getenv("BEST_BODY")
  math.randomseed(os.time() + client * 7919)
  holds, refused, cancels, cancelFailed = 0, 0, 0, 0
  pending, last = nil, nil
end

function request()
  if pending then
    local id = pending
    pending, last = nil, "DELETE"
    return wrk.format("DELETE", "/holds/" .. id, { ["Authorization"] = auth })
  end
  last = "POST"
  local body = bestBody
  if body == nil or body == "" then body = '{"seats":["' .. mine[math.random(#mine)] .. '"]}' end
  return wrk.format("POST", holdPath, { ["Authorization"] = auth, ["Content-Type"] = "application/json" }, body)
end

function response(status, headers, body)
  if last == "POST" then
    if status == 201 then
      holds = holds + 1
      pending = string.match(body, '"holdId":"([^"]+)"')
    else
      refused = refused + 1
    end
  elseif status == 204 then
    cancels = cancels + 1
  else
    cancelFailed = cancelFailed + 1
  end
end

function done(summary, latency, requests)
  local t = { holds = 0, refused = 0, cancels = 0, cancelFailed = 0 }
  for _, thread in ipairs(threads) do
    for key, _ in pairs(t) do t[key] = t[key] + (thread:get(key) or 0) end
  end
  io.write(string.format('WRK_HOLDS {"holds":%d,"refused":%d,"cancels":%d,"cancelFailed":%d}\\n',
    t.holds, t.refused, t.cancels, t.cancelFailed))
end
`;

export interface WrkHoldsResult {
  holds: number;
  refused: number;
  cancels: number;
  cancelFailed: number;
  seconds: number;
}

/** Runs wrk against a core at `url` for `seconds`; one thread and connection per token. */
export async function wrkHolds(options: {
  url: string;
  showtimeId: number;
  tokens: string[];
  seats: string[];
  seconds: number;
  /** Best available instead of chosen seats: the request body, e.g. {"count":2,"together":true}. */
  bestBody?: string;
}): Promise<WrkHoldsResult> {
  const dir = await mkdtemp(path.join(tmpdir(), 'wrk-holds-'));
  try {
    const script = path.join(dir, 'holds.lua');
    await writeFile(script, SCRIPT);
    await writeFile(path.join(dir, 'tokens'), `${options.tokens.join('\n')}\n`);
    await writeFile(path.join(dir, 'seats'), `${options.seats.join('\n')}\n`);
    const threads = String(options.tokens.length);
    const { stdout } = await run(
      'wrk',
      [`-t${threads}`, `-c${threads}`, `-d${options.seconds}s`, '-s', script, options.url],
      {
        env: {
          ...process.env,
          TOKENS_FILE: path.join(dir, 'tokens'),
          SEATS_FILE: path.join(dir, 'seats'),
          HOLD_PATH: `/showtimes/${options.showtimeId}/holds`,
          BEST_BODY: options.bestBody ?? '',
        },
        maxBuffer: 1 << 20,
      },
    );
    const line = /WRK_HOLDS (\{.*\})/.exec(stdout);
    if (!line) throw new Error(`wrk printed no hold counts:\n${stdout}`);
    return { ...(JSON.parse(line[1]!) as Omit<WrkHoldsResult, 'seconds'>), seconds: options.seconds };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
