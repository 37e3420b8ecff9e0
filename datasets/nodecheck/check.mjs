// Reads a chessforge dataset written by the Go code with DuckDB (its own
// Parquet reader, nothing shared with arrow-go) and checks it against the
// contracts of SPEC §1 and §3: row and game counts from expect.json, every
// planes list 1152 values long with no nulls, the planes of every row
// re-derived from its FEN in JavaScript, and the file metadata.
//
//   node check.mjs DIR            check the dataset in DIR (expect.json beside it)
//   node check.mjs --bench DIR    also time a full read of every column
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const bench = args[0] === '--bench';
const dir = bench ? args[1] : args[0];
if (!dir) {
  console.error('usage: node check.mjs [--bench] DIR');
  process.exit(2);
}
const expect = JSON.parse(readFileSync(join(dir, 'expect.json'), 'utf8'));
const glob = join(dir, '*.parquet').replaceAll("'", "''");
const src = `read_parquet('${glob}')`;

let failures = 0;
function check(ok, what) {
  if (!ok) {
    failures++;
    console.error('nodecheck: FAIL: ' + what);
  }
}

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
async function rows(sql) {
  const r = await conn.runAndReadAll(sql);
  return r.getRowObjectsJS();
}

// Counts and list shape.
const [c] = await rows(`SELECT count(*) AS n, count(DISTINCT game_id) AS games,
  min(len(planes)) AS minlen, max(len(planes)) AS maxlen,
  min(list_count(planes)) AS minvalid,
  count(*) FILTER (WHERE planes IS NULL OR fen IS NULL OR move IS NULL OR best_move IS NULL
    OR policy IS NULL OR score_cp IS NULL OR result IS NULL OR ply IS NULL OR game_id IS NULL) AS nulls
  FROM ${src}`);
check(Number(c.n) === expect.rows, `row count ${c.n}, want ${expect.rows}`);
check(Number(c.games) === expect.games, `games ${c.games}, want ${expect.games}`);
check(Number(c.minlen) === 1152 && Number(c.maxlen) === 1152, `planes lengths ${c.minlen}..${c.maxlen}, want 1152`);
check(Number(c.minvalid) === 1152, `a planes list has ${c.minvalid} non-null values, want 1152`);
check(Number(c.nulls) === 0, `${c.nulls} rows with a null in a required column`);

// Column order and types of SPEC §3.
const desc = await rows(`DESCRIBE SELECT * FROM ${src}`);
const wantCols = [['game_id', 'BIGINT'], ['ply', 'INTEGER'], ['fen', 'VARCHAR'], ['planes', 'FLOAT[]'],
  ['move', 'VARCHAR'], ['best_move', 'VARCHAR'], ['policy', 'INTEGER'], ['score_cp', 'INTEGER'], ['result', 'FLOAT']];
wantCols.forEach(([name, type], i) => {
  const d = desc[i] || {};
  const t = String(d.column_type);
  check(d.column_name === name && (t === type || (name === 'planes' && t === 'FLOAT[1152]')),
    `column ${i} is ${d.column_name} ${t}, want ${name} ${type}`);
});

// Planes against the FEN.
function planesFromFEN(fen) {
  const p = new Float32Array(1152);
  const [place, side, castle, ep, half] = fen.split(' ');
  let r = 7, f = 0;
  for (const ch of place) {
    if (ch === '/') { r--; f = 0; continue; }
    if (ch >= '1' && ch <= '8') { f += Number(ch); continue; }
    p['PNBRQKpnbrqk'.indexOf(ch) * 64 + r * 8 + f] = 1;
    f++;
  }
  const whole = (plane, v) => p.fill(v, plane * 64, plane * 64 + 64);
  if (side === 'w') whole(13, 1);
  whole(14, (castle.includes('K') + castle.includes('Q')) / 2);
  whole(15, (castle.includes('k') + castle.includes('q')) / 2);
  if (ep !== '-') p[16 * 64 + (ep.charCodeAt(1) - 49) * 8 + (ep.charCodeAt(0) - 97)] = 1;
  whole(17, Math.min(Math.fround(Number(half) / 100), 1));
  return p;
}
// Every row of a small dataset; a deterministic sample of about 20,000 rows
// of a large one, so that memory stays bounded.
const step = Math.max(1, Math.ceil(expect.rows / 20000));
const all = await rows(`SELECT fen, planes, move, best_move, policy FROM ${src}
  WHERE (game_id * 7919 + ply) % ${step} = 0`);
let checked = 0, repeated = 0;
for (const row of all) {
  const want = planesFromFEN(row.fen);
  const got = row.planes;
  const rep = got[12 * 64];
  if (rep !== 0) repeated++;
  check([0, 0.5, 1].includes(rep), `${row.fen}: repetition plane ${rep}`);
  for (let i = 0; i < 1152; i++) {
    if (Math.floor(i / 64) === 12) { // repetition needs the game's history: whole plane, one value
      if (got[i] !== rep) { check(false, `${row.fen}: repetition plane not uniform`); break; }
      continue;
    }
    if (Math.fround(got[i]) !== want[i]) {
      check(false, `${row.fen}: plane ${Math.floor(i / 64)} square ${i % 64} is ${got[i]}, want ${want[i]}`);
      break;
    }
  }
  const from = row.policy % 64;
  const fromSq = String.fromCharCode(97 + (from % 8)) + String(Math.floor(from / 8) + 1);
  check(row.best_move.startsWith(fromSq), `${row.fen}: policy ${row.policy} starts on ${fromSq}, best move ${row.best_move}`);
  checked++;
}

// Metadata of every file.
for (const name of expect.files) {
  const path = join(dir, name).replaceAll("'", "''");
  const kv = await rows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path}')`);
  const m = Object.fromEntries(kv.map((x) => [x.k, x.v]));
  check(m['chessforge.schema_version'] === '1', `${name}: chessforge.schema_version ${m['chessforge.schema_version']}`);
  check(m['chessforge.planes'] === '18x8x8-v1', `${name}: chessforge.planes ${m['chessforge.planes']}`);
  check(m['chessforge.policy'] === '73x8x8-v1', `${name}: chessforge.policy ${m['chessforge.policy']}`);
  check(!!m['chessforge.engine_version'], `${name}: no chessforge.engine_version`);
  let cfg = {};
  try { cfg = JSON.parse(m['chessforge.config']); } catch (e) { check(false, `${name}: config is not JSON`); }
  check(cfg.seed === expect.seed, `${name}: config seed ${cfg.seed}, want ${expect.seed}`);
  check(!!m['ARROW:schema'], `${name}: no ARROW:schema`);
}

if (bench) {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  const [b] = await rows(`SELECT count(*) AS n, sum(list_sum(planes)) AS s, sum(length(fen)) AS f,
    sum(length(move) + length(best_move) + length(termination)) AS m, sum(policy + score_cp + ply + depth) AS i,
    sum(result) AS r, sum(nodes) AS nodes, sum(game_id) AS g, count(*) FILTER (WHERE in_check OR best_is_capture OR best_is_promotion) AS flags
    FROM ${src}`);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const cpuSecs = (cpu.user + cpu.system) / 1e6;
  console.log(`nodecheck bench: DuckDB read ${b.n} rows (every column, planes summed) in ${secs.toFixed(3)} s, ` +
    `${cpuSecs.toFixed(3)} CPU s: ${Math.round(Number(b.n) / secs)} positions/s, ${Math.round(Number(b.n) / cpuSecs)} positions/CPU-s`);
}

if (failures > 0) {
  console.error(`nodecheck: ${failures} failures`);
  process.exit(1);
}
console.log(`nodecheck: DuckDB read ${c.n} rows, ${c.games} games from ${expect.files.length} files; planes of ${checked} rows match their FEN (${repeated} with a repetition); metadata ok`);
