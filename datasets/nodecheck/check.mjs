// Reads a chessforge dataset written by the Go code with DuckDB (its own
// Parquet reader, nothing shared with arrow-go) and checks it against the
// format of docs/format.md: row and game counts from expect.json, every
// planes list 1152 values long with no nulls, the planes and policy index
// of every row re-derived from its FEN and best move in JavaScript
// (contract.mjs, shared with hypcheck.mjs), and the file metadata.
//
//   node check.mjs DIR            check the dataset in DIR (expect.json beside it)
//   node check.mjs --bench DIR    also time a full read of every column
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Failures, checkMetadata, checkPageExamples, checkRow, planesSize, requiredColumns } from './contract.mjs';

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

const f = new Failures('DuckDB');
const check = f.check.bind(f);
checkPageExamples(f);

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
const size = planesSize[expect.game || 'chess'];
check(Number(c.minlen) === size && Number(c.maxlen) === size, `planes lengths ${c.minlen}..${c.maxlen}, want ${size}`);
check(Number(c.minvalid) === size, `a planes list has ${c.minvalid} non-null values, want ${size}`);
check(Number(c.nulls) === 0, `${c.nulls} rows with a null in a required column`);

// Column order and types (docs/format.md, "Columns").
const desc = await rows(`DESCRIBE SELECT * FROM ${src}`);
const duckTypes = ['BIGINT', 'INTEGER', 'VARCHAR', 'FLOAT[]', 'VARCHAR', 'VARCHAR', 'INTEGER', 'INTEGER', 'FLOAT'];
requiredColumns.forEach((name, i) => {
  const type = duckTypes[i];
  const d = desc[i] || {};
  const t = String(d.column_type);
  check(d.column_name === name && (t === type || (name === 'planes' && t === `FLOAT[${size}]`)),
    `column ${i} is ${d.column_name} ${t}, want ${name} ${type}`);
});

// Planes and policy against the FEN and best move: every row of a small dataset; a deterministic sample of about 20,000 rows
// of a large one, so that memory stays bounded.
const step = Math.max(1, Math.ceil(expect.rows / 20000));
const all = await rows(`SELECT fen, planes, move, best_move, policy FROM ${src}
  WHERE ((game_id % 1000003) * 7919 + ply) % ${step} = 0`);
let checked = 0, repeated = 0;
for (const row of all) {
  if (checkRow(f, row, expect.game)) repeated++;
  checked++;
}

// Metadata of every file.
for (const name of expect.files) {
  const path = join(dir, name).replaceAll("'", "''");
  const kv = await rows(`SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata('${path}')`);
  checkMetadata(f, name, Object.fromEntries(kv.map((x) => [x.k, x.v])), expect);
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

if (f.count > 0) {
  console.error(`nodecheck: DuckDB: ${f.count} failures`);
  process.exit(1);
}
console.log(`nodecheck: DuckDB read ${c.n} rows, ${c.games} games from ${expect.files.length} files; planes and policy of ${checked} rows match their FEN and best move (${repeated} with a repetition); metadata ok`);
