package export

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"chessforge/datasets"
	"chessforge/datasets/fixture"
	"chessforge/datasets/npy"
	"chessforge/encoder"
	"chessforge/engine/board"
)

// writeFixture writes a dataset of two shards and returns its directory
// and rows.
func writeFixture(t *testing.T) (string, int64) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	os.Mkdir(dir, 0o755)
	var rows int64
	for i, seed := range []uint64{1, 2} {
		n, err := fixture.Write(filepath.Join(dir, []string{"a.parquet", "b.parquet"}[i]),
			fixture.Options{Games: 3, Seed: seed, FirstID: int64(100 * i), MaxPlies: 80, RowGroupRows: 64})
		if err != nil {
			t.Fatal(err)
		}
		rows += n
	}
	return dir, rows
}

func TestEPDLinesParseBackToTheRows(t *testing.T) {
	src, n := writeFixture(t)
	out := filepath.Join(t.TempDir(), "out.epd")
	var seen int
	got, err := EPD(src, out, EPDOptions{Progress: func(k int) { seen += k }})
	if err != nil {
		t.Fatal(err)
	}
	if got != n || int64(seen) != n {
		t.Fatalf("EPD wrote %d lines, progress %d, want %d", got, seen, n)
	}
	rows := fixture.Rows(t, src)
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	i := 0
	for ; sc.Scan(); i++ {
		line := sc.Text()
		fen, res, ok := strings.Cut(line, " [")
		if !ok || !strings.HasSuffix(res, "]") {
			t.Fatalf("line %d %q is not FEN [result]", i+1, line)
		}
		pos, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if pos.FEN() != rows[i].FEN {
			t.Fatalf("line %d: FEN %q, row %q", i+1, pos.FEN(), rows[i].FEN)
		}
		want := map[float32]string{1: "1.0]", 0.5: "0.5]", 0: "0.0]"}[rows[i].Result]
		if res != want {
			t.Fatalf("line %d: result %q, want %q", i+1, res, want)
		}
	}
	if int64(i) != n {
		t.Fatalf("%d lines, want %d", i, n)
	}
	if _, err := os.Stat(out + datasets.TempSuffix); !os.IsNotExist(err) {
		t.Error("temporary file left behind")
	}
}

func TestNPYRebuildsTheParquetPlanesExactly(t *testing.T) {
	src, n := writeFixture(t)
	dir := filepath.Join(t.TempDir(), "npy")
	const shardRows = 100 // several shards, one cut inside a batch
	m, err := NPY(src, dir, NPYOptions{ShardRows: shardRows})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != n || len(m.Shards) != int((n+shardRows-1)/shardRows) {
		t.Fatalf("manifest: %d rows in %d shards, want %d rows", m.Rows, len(m.Shards), n)
	}
	m2, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := fixture.Rows(t, src)
	var planes encoder.Planes
	i := 0
	for _, s := range m2.Shards {
		load := func(name string) *npy.Array {
			a, err := npy.Load(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if a.Shape[0] != s.Rows {
				t.Fatalf("%s: %d rows, manifest says %d", name, a.Shape[0], s.Rows)
			}
			return a
		}
		packed, _ := load(s.Planes).Uint8s()
		scalars, _ := load(s.Scalars).Float32s()
		policy, _ := load(s.Policy).Int32s()
		score, _ := load(s.ScoreCP).Int32s()
		result, _ := load(s.Result).Float32s()
		ply, _ := load(s.Ply).Int32s()
		if s.InCheck == "" || s.BestIsCapture == "" || s.BestIsPromotion == "" {
			t.Fatalf("shard %+v: no filter flags, though the source has them", s)
		}
		inCheck, _ := load(s.InCheck).Uint8s()
		capture, _ := load(s.BestIsCapture).Uint8s()
		promotion, _ := load(s.BestIsPromotion).Uint8s()
		for k := 0; k < s.Rows; k++ {
			Unpack(planes[:], packed[k*PackedBytes:], scalars[k*NumScalars:])
			want := &rows[i]
			if planes != want.Planes {
				for j := range planes {
					if planes[j] != want.Planes[j] {
						t.Fatalf("row %d: planes[%d] = %v, Parquet %v", i, j, planes[j], want.Planes[j])
					}
				}
			}
			if policy[k] != want.Policy || score[k] != want.ScoreCP || result[k] != want.Result {
				t.Fatalf("row %d: policy/score/result %d %d %v, Parquet %d %d %v", i,
					policy[k], score[k], result[k], want.Policy, want.ScoreCP, want.Result)
			}
			if ply[k] != want.Ply || inCheck[k] != boolByte(want.InCheck) ||
				capture[k] != boolByte(want.BestIsCapture) || promotion[k] != boolByte(want.BestIsPromotion) {
				t.Fatalf("row %d: ply/in_check/best_is_capture/best_is_promotion %d %d %d %d, Parquet %d %v %v %v", i,
					ply[k], inCheck[k], capture[k], promotion[k], want.Ply, want.InCheck, want.BestIsCapture, want.BestIsPromotion)
			}
			i++
		}
	}
	if int64(i) != n {
		t.Fatalf("read %d rows back, want %d", i, n)
	}
}

func TestPackRejectsPlanesTheLayoutCannotHold(t *testing.T) {
	pos := board.NewPosition()
	var good encoder.Planes
	encoder.EncodeTo(&good, pos)
	packed := make([]byte, PackedBytes)
	scalars := make([]float32, NumScalars)
	if err := Pack(packed, scalars, good[:]); err != nil {
		t.Fatal(err)
	}
	// White pawns on rank 2: byte 1 of plane 0 all set.
	if packed[1] != 0xff || packed[0] != 0 {
		t.Errorf("white pawns packed as % x", packed[:8])
	}
	// Black king on e8: plane 11, byte 7, bit for file e (index 4).
	if packed[11*8+7] != 0x80>>4 {
		t.Errorf("black king packed as %08b", packed[11*8+7])
	}
	cases := map[string]func(p *encoder.Planes){
		"half on a piece plane": func(p *encoder.Planes) { p[3*64+5] = 0.5 },
		"two on en passant":     func(p *encoder.Planes) { p[16*64+20] = 2 },
		"uneven side to move":   func(p *encoder.Planes) { p[13*64+63] = 0 },
		"uneven halfmove":       func(p *encoder.Planes) { p[17*64+1] = 0.01 },
	}
	for name, mutate := range cases {
		bad := good
		mutate(&bad)
		if err := Pack(packed, scalars, bad[:]); err == nil {
			t.Errorf("%s: Pack accepted it", name)
		}
	}
}

func TestReadManifestRefusesAnUnfinishedExport(t *testing.T) {
	if _, err := ReadManifest(t.TempDir()); err == nil || !strings.Contains(err.Error(), "unfinished") {
		t.Errorf("error %v", err)
	}
}

func TestNPYFailureNamesTheRowAndKeepsTheEarlierExport(t *testing.T) {
	src, _ := writeFixture(t)
	dir := filepath.Join(t.TempDir(), "npy")
	before, err := NPY(src, dir, NPYOptions{ShardRows: 50})
	if err != nil {
		t.Fatal(err)
	}
	// Export over it a file whose row 30 has a half on a piece plane.
	bad := filepath.Join(t.TempDir(), "bad.parquet")
	if _, err := fixture.Write(bad, fixture.Options{Games: 1, Seed: 3, MaxPlies: 40, Mutate: func(i int64, r *datasets.Row) {
		if i == 30 {
			r.Planes[2*64+9] = 0.5
		}
	}}); err != nil {
		t.Fatal(err)
	}
	_, err = NPY(bad, dir, NPYOptions{ShardRows: 50})
	if err == nil || !strings.Contains(err.Error(), bad+": row 30: ") {
		t.Fatalf("error %v does not name row 30 of %s", err, bad)
	}
	after, err := ReadManifest(dir)
	if err != nil {
		t.Fatalf("the earlier export is gone after a failed export over it: %v", err)
	}
	if !reflect.DeepEqual(after, before) {
		t.Error("the earlier export's manifest changed")
	}
	for _, s := range before.Shards {
		if _, err := npy.Load(filepath.Join(dir, s.Planes)); err != nil {
			t.Errorf("the earlier export's shard: %v", err)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*"))
	inside, _ := filepath.Glob(filepath.Join(dir, "*"+npy.TempSuffix))
	if len(left)+len(inside) > 0 {
		t.Errorf("temporaries left: %v %v", left, inside)
	}
}

// TestExportsWriteTheRowsTheFiltersKeep exports with read-time filters in
// both formats and checks the rows against a selection made here from the
// fixture's rows, in check decided by the board.
func TestExportsWriteTheRowsTheFiltersKeep(t *testing.T) {
	src, n := writeFixture(t)
	f := datasets.Filter{MinPly: 10, MaxScore: 200, SkipInCheck: true}
	var want []datasets.Row
	for _, r := range fixture.Rows(t, src) {
		pos, err := board.ParseFEN(r.FEN)
		if err != nil {
			t.Fatal(err)
		}
		if r.Ply >= 10 && r.ScoreCP <= 200 && r.ScoreCP >= -200 && !pos.InCheck() {
			want = append(want, r)
		}
	}
	if len(want) == 0 || int64(len(want)) >= n*3/4 {
		t.Fatalf("the filter keeps %d of %d rows: the fixture does not exercise it", len(want), n)
	}

	out := filepath.Join(t.TempDir(), "out.epd")
	seen := 0
	lines, err := EPD(src, out, EPDOptions{Filter: f, Progress: func(k int) { seen += k }})
	if err != nil {
		t.Fatal(err)
	}
	if lines != int64(len(want)) || seen < len(want) || int64(seen) > n {
		t.Fatalf("EPD wrote %d lines (progress %d of %d rows), want %d", lines, seen, n, len(want))
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if fen, _, _ := strings.Cut(line, " ["); fen != want[i].FEN {
			t.Fatalf("line %d: %s, want %s", i+1, fen, want[i].FEN)
		}
	}

	dir := filepath.Join(t.TempDir(), "npy")
	m, err := NPY(src, dir, NPYOptions{ShardRows: 40, Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	if m.Rows != int64(len(want)) || m.Metadata[KeyFilter] != f.String() {
		t.Fatalf("manifest: %d rows, filter %q; want %d rows, %q", m.Rows, m.Metadata[KeyFilter], len(want), f.String())
	}
	i := 0
	for _, s := range m.Shards {
		a, err := npy.Load(filepath.Join(dir, s.ScoreCP))
		if err != nil {
			t.Fatal(err)
		}
		score, _ := a.Int32s()
		a, err = npy.Load(filepath.Join(dir, s.Policy))
		if err != nil {
			t.Fatal(err)
		}
		policy, _ := a.Int32s()
		for k := range score {
			if score[k] != want[i].ScoreCP || policy[k] != want[i].Policy {
				t.Fatalf("npy row %d: score %d policy %d, want %d %d", i, score[k], policy[k], want[i].ScoreCP, want[i].Policy)
			}
			i++
		}
	}
	if i != len(want) {
		t.Fatalf("npy holds %d rows, want %d", i, len(want))
	}
}

func TestNPYExportsADraughtsDataset(t *testing.T) {
	src := filepath.Join(t.TempDir(), "dama.parquet")
	n, err := fixture.Write(src, fixture.Options{Game: encoder.GameDama, Games: 6, Seed: 2, MaxPlies: 100})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "npy")
	if _, err := NPY(src, dir, NPYOptions{ShardRows: 64}); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := m.Layout(); err != nil || l != encoder.Dama || m.Game != "dama" || m.Rows != n {
		t.Fatalf("manifest game %q, layout %v (%v), %d rows of %d", m.Game, l, err, m.Rows, n)
	}
	rows := fixture.Rows(t, src)
	var planes encoder.Planes
	i := 0
	for _, s := range m.Shards {
		p, err := npy.Load(filepath.Join(dir, s.Planes))
		if err != nil {
			t.Fatal(err)
		}
		sc, err := npy.Load(filepath.Join(dir, s.Scalars))
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Shape) != 3 || p.Shape[1] != 4 || p.Shape[2] != 8 || sc.Shape[1] != 3 {
			t.Fatalf("planes shape %v, scalars %v; want [N 4 8] and [N 3]", p.Shape, sc.Shape)
		}
		packed, _ := p.Uint8s()
		scalars, _ := sc.Float32s()
		for k := 0; k < s.Rows; k++ {
			UnpackAs(encoder.Dama, planes[:448], packed[k*32:], scalars[k*3:])
			if planes != rows[i].Planes {
				t.Fatalf("row %d: the unpacked planes differ from the Parquet ones", i)
			}
			i++
		}
	}
	if int64(i) != n {
		t.Fatalf("%d rows exported, want %d", i, n)
	}
	if got := RowBytes(encoder.Dama); got != 4*8+3*4+19 {
		t.Errorf("RowBytes(Dama) = %d", got)
	}
	if RowBytes(encoder.Chess) != BytesPerRow {
		t.Errorf("RowBytes(Chess) = %d, BytesPerRow %d", RowBytes(encoder.Chess), BytesPerRow)
	}
}
