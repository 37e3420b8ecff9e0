package stockfish

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"chessforge/datasets/fixture"
	"chessforge/engine/board"
)

func TestZigzagPutsTheSignInTheLowestBit(t *testing.T) {
	for _, c := range []struct {
		v int16
		u uint16
	}{{0, 0}, {-1, 1}, {1, 2}, {-2, 3}, {2, 4}, {32767, 65534}, {-32768, 65535}} {
		if got := zigzag(c.v); got != c.u {
			t.Errorf("zigzag(%d) = %d, want %d", c.v, got, c.u)
		}
		if got := unzigzag(c.u); got != c.v {
			t.Errorf("unzigzag(%d) = %d, want %d", c.u, got, c.v)
		}
	}
}

func TestBitsForCountsTheBitsOfTheLargestIndex(t *testing.T) {
	for n, want := range map[int]int{0: 0, 1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 16: 4, 17: 5, 48: 6} {
		if got := bitsFor(n); got != want {
			t.Errorf("bitsFor(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestStemOfTheStartPosition checks a stem against the layout worked out
// by hand: the occupied squares big-endian, a nibble per piece from a1 up
// (rooks with castling rights 13 and 14, the white king 10, the black king
// 11 with White to move), e2e4 as from 12, to 28, score 25 zigzagged to 50,
// ply 0 with a win (zigzag 2) in the top bits, halfmove clock 0.
func TestStemOfTheStartPosition(t *testing.T) {
	pos := board.NewPosition()
	m, err := pos.ParseUCIMove("e2e4")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewBinpackWriter(&buf)
	if err := w.Write(&Entry{Pos: pos, Move: m, Score: 25, Ply: 0, Result: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "42494e5022000000" + // BINP, 34 bytes
		"ffff00000000ffff" + "2d844ad2" + "00000000" + "11111111" + "3e955be3" +
		"0c70" + "0032" + "8000" + "0000" + "0000"
	if got := hex.EncodeToString(buf.Bytes()); got != want {
		t.Errorf("start position stem\n got  %s\n want %s", got, want)
	}
}

// TestMovetextOfAShortChain checks the bits of two continuation plies
// against the layout worked out by hand. After 1. e4 Black has 16 pieces (4
// bits of index), counted from a1 up: e7 is the fifth (index 4 = 0100); its
// pawn has 2 destinations, e5 and e6 in square order (e5 is index 0, 1
// bit). The score 10 is stored against the negated stem score, 10 - (-25)
// = 35, zigzag 70: the groups 0110 (more follow: 1 0110) and 0100 (last:
// 0 0100). Then White's g1 knight is the seventh white piece (index 6 =
// 0110) with 3 destinations e2, f3, h3 (f3 is index 1, 2 bits = 01); its
// score 30 against -10 is 40, zigzag 80: 1 0000, 0 0101.
func TestMovetextOfAShortChain(t *testing.T) {
	pos := board.NewPosition()
	var buf bytes.Buffer
	w := NewBinpackWriter(&buf)
	for i, step := range []struct {
		move  string
		score int16
	}{{"e2e4", 25}, {"e7e5", 10}, {"g1f3", 30}} {
		m, err := pos.ParseUCIMove(step.move)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(&Entry{Pos: pos, Move: m, Score: step.score, Ply: uint16(i), Result: int8(1 - 2*(i%2))}); err != nil {
			t.Fatal(err)
		}
		pos.MakeMove(m)
	}
	w.Close()
	bits := "0100" + "0" + "10110" + "00100" + "0110" + "01" + "10000" + "00101"
	for len(bits)%8 != 0 {
		bits += "0"
	}
	var text []byte
	for i := 0; i < len(bits); i += 8 {
		var b byte
		for _, c := range bits[i : i+8] {
			b = b<<1 | byte(c-'0')
		}
		text = append(text, b)
	}
	data := buf.Bytes()
	if got := data[chunkHeader+stemSize : chunkHeader+stemAndCount]; !bytes.Equal(got, []byte{0, 2}) {
		t.Fatalf("ply count %x, want 0002", got)
	}
	if got := data[chunkHeader+stemAndCount:]; !bytes.Equal(got, text) {
		t.Errorf("movetext %x, want %x", got, text)
	}
	r := NewBinpackReader(bytes.NewReader(data), "chain")
	var got []string
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Move.String()+" "+string(rune('0'+e.Ply))+" "+FEN(e.Pos))
		if e.Ply == 2 && (e.Score != 30 || e.Result != 1) {
			t.Errorf("ply 2: score %d, result %d; want 30, 1", e.Score, e.Result)
		}
	}
	if len(got) != 3 || !strings.HasPrefix(got[2], "g1f3 2 rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2") {
		t.Errorf("read back %q", got)
	}
}

// fixtureBinpack exports a small fixture dataset to binpack bytes.
func fixtureBinpack(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "src.parquet")
	if _, err := fixture.Write(src, fixture.Options{Games: 2, Seed: 3, MaxPlies: 40}); err != nil {
		t.Fatal(err)
	}
	_, data := exportFile(t, src, dir, "a.binpack", Binpack)
	return data
}

func readAll(data []byte, name string) (int, error) {
	r := NewBinpackReader(bytes.NewReader(data), name)
	n := 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// TestTruncatedBinpackIsAnErrorNamingFileAndOffset cuts a one-chunk file at
// every length: each cut must fail, naming the file and an offset.
func TestTruncatedBinpackIsAnErrorNamingFileAndOffset(t *testing.T) {
	data := fixtureBinpack(t)
	if n, err := readAll(data, "whole.binpack"); err != nil || n == 0 {
		t.Fatalf("the whole file: %d entries, %v", n, err)
	}
	for cut := 1; cut < len(data); cut++ {
		_, err := readAll(data[:cut], "cut.binpack")
		if err == nil || !strings.Contains(err.Error(), "cut.binpack: offset ") {
			t.Fatalf("cut at %d of %d bytes: error %v, want one naming the file and offset", cut, len(data), err)
		}
	}
	// A chunk whose size promises less than it holds leaves trailing bytes
	// that are not a chain.
	bad := bytes.Clone(data)
	bad = append(bad, "BINPxx"...)
	if _, err := readAll(bad, "tail.binpack"); err == nil || !strings.Contains(err.Error(), "tail.binpack: offset "+strconv.Itoa(len(data))+": truncated chunk header") {
		t.Errorf("trailing bytes: %v", err)
	}
	bad = bytes.Clone(data)
	copy(bad, "PACK")
	if _, err := readAll(bad, "magic.binpack"); err == nil || !strings.Contains(err.Error(), `magic.binpack: offset 0: not a binpack chunk: starts with "PACK"`) {
		t.Errorf("bad magic: %v", err)
	}
}

// TestCorruptBinpackNeverPanics flips every third byte of a file: reading
// it fails with an error naming the file and offset, or reads legal moves;
// it never panics.
func TestCorruptBinpackNeverPanics(t *testing.T) {
	data := fixtureBinpack(t)
	for i := 0; i < len(data); i += 3 {
		bad := bytes.Clone(data)
		bad[i] ^= 0x5a
		if _, err := readAll(bad, "flip.binpack"); err != nil && !strings.Contains(err.Error(), "flip.binpack: offset ") {
			t.Fatalf("byte %d flipped: error %v does not name the file and offset", i, err)
		}
	}
}

func TestPlainReaderErrorsNameTheLine(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"fen 8/8/8/8/8/8/8/K6k w - - 0 1\nmove a1a2\nscore 0\nply 0\nresult 0\n", "p.plain:5: truncated"},
		{"fen 8/8/8/8/8/8/8/K6k w - - 0 1\nmove a1a2\nscore 0\nply 0\ne\n", "p.plain:5: entry from line 1 has no result line"},
		{"fen 8/8/8/8/8/8/8/K6k w - - 0 1\nmove a1a2\nscore 0\nply 0\nresult 2\ne\n", "p.plain:5: result \"2\""},
		{"fen 8/8/8/8/8/8/8/K6k w - - 0 1\nmove a1a3\nscore 0\nply 0\nresult 0\ne\n", "p.plain:6: entry from line 1: move \"a1a3\""},
		{"fen 8/8/8/8/8/8/8/K6k w - - 0 1\nbest a1a2\n", "p.plain:2: unknown line \"best\""},
		{"score 40000\n", "p.plain:1: score \"40000\""},
	} {
		r := NewPlainReader(strings.NewReader(c.text), "p.plain")
		_, err := r.Next()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}

// TestManyChunksReadLikeOne writes the same entries into one chunk and into
// chunks closed at 200 bytes: both read back as the same entries.
func TestManyChunksReadLikeOne(t *testing.T) {
	data := fixtureBinpack(t)
	var small bytes.Buffer
	w := NewBinpackWriter(&small)
	w.target = 200
	r := NewBinpackReader(bytes.NewReader(data), "one.binpack")
	var want []string
	for {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, describe(e))
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if chunks := bytes.Count(small.Bytes(), []byte(chunkMagic)); chunks < 3 {
		t.Fatalf("%d chunks, want several", chunks)
	}
	r = NewBinpackReader(bytes.NewReader(small.Bytes()), "many.binpack")
	for i := 0; ; i++ {
		e, err := r.Next()
		if errors.Is(err, io.EOF) {
			if i != len(want) {
				t.Errorf("%d entries, want %d", i, len(want))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(want) || describe(e) != want[i] {
			t.Fatalf("entry %d: %s, want %s", i, describe(e), want[min(i, len(want)-1)])
		}
	}
}

func describe(e *Entry) string {
	return fmt.Sprintf("%s %v %d %d %d", e.Pos.FEN(), e.Move, e.Score, e.Ply, e.Result)
}
