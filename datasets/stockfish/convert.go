package stockfish

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/board"
)

// Format is one of Stockfish's training-data formats.
type Format int

// The formats this package reads and writes.
const (
	Plain   Format = iota + 1 // .plain text
	Binpack                   // .binpack
)

// String returns the format's name, as the command line spells it.
func (f Format) String() string {
	switch f {
	case Plain:
		return "plain"
	case Binpack:
		return "binpack"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// ParseFormat reads a format name: "plain" or "binpack".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "plain":
		return Plain, nil
	case "binpack":
		return Binpack, nil
	}
	return 0, fmt.Errorf("unknown format %q: want plain or binpack", s)
}

// FormatOf returns the format a file name's extension names (.plain or
// .binpack).
func FormatOf(path string) (Format, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".plain":
		return Plain, true
	case ".binpack":
		return Binpack, true
	}
	return 0, false
}

// Progress is told how many more rows have been handled; nil shows nothing.
type Progress func(rows int)

// ExportReport says what an export wrote.
type ExportReport struct {
	Rows   int64 // entries written, one per dataset row
	Chains int64 // binpack chains (stems); 0 for plain
	Bytes  int64 // size of the file written
}

// entryWriter is a format's writer.
type entryWriter interface {
	Write(*Entry) error
	Close() error
}

// Export writes every row of the dataset at src (a file, a directory or a
// glob), in order, to the file out in format f: one entry per row, as the
// package comment describes. out is written under a temporary name and
// renamed when complete.
func Export(src, out string, f Format, progress Progress) (*ExportReport, error) {
	r, err := datasets.Open(src, &datasets.ReaderOptions{Columns: []string{
		datasets.ColPly, datasets.ColFEN, datasets.ColBestMove, datasets.ColScoreCP, datasets.ColResult}})
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if l := r.Layout(); l.Game != encoder.GameChess {
		return nil, fmt.Errorf("stockfish: %s holds %s positions: Stockfish's formats are for chess", src, l.Game)
	}
	file, err := os.Create(out + datasets.TempSuffix)
	if err != nil {
		return nil, fmt.Errorf("stockfish: %w", err)
	}
	fail := func(err error) (*ExportReport, error) {
		file.Close()
		os.Remove(out + datasets.TempSuffix)
		return nil, err
	}
	var w entryWriter
	var bw *BinpackWriter
	switch f {
	case Plain:
		w = NewPlainWriter(file)
	case Binpack:
		bw = NewBinpackWriter(file)
		w = bw
	default:
		return fail(fmt.Errorf("stockfish: unknown format %v", f))
	}
	rep := &ExportReport{}
	var b datasets.Batch
	var e Entry
	for {
		err := r.ReadBatch(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(err)
		}
		for i := 0; i < b.Len; i++ {
			if err := entryOf(&e, b.FEN[i], b.BestMove[i], b.ScoreCP[i], b.Ply[i], b.Result[i]); err != nil {
				return fail(fmt.Errorf("stockfish: %s: row %d (%s): %w", b.File, rep.Rows, b.FEN[i], err))
			}
			if err := w.Write(&e); err != nil {
				return fail(fmt.Errorf("stockfish: %s: row %d (%s): %w", b.File, rep.Rows, b.FEN[i], err))
			}
			rep.Rows++
		}
		if progress != nil {
			progress(b.Len)
		}
	}
	if err := w.Close(); err != nil {
		return fail(fmt.Errorf("stockfish: %s: %w", out, err))
	}
	if bw != nil {
		rep.Chains = bw.Chains()
	}
	if err := file.Sync(); err != nil {
		return fail(fmt.Errorf("stockfish: %s: %w", out, err))
	}
	st, err := file.Stat()
	if err != nil {
		return fail(fmt.Errorf("stockfish: %s: %w", out, err))
	}
	rep.Bytes = st.Size()
	if err := file.Close(); err != nil {
		os.Remove(out + datasets.TempSuffix)
		return nil, fmt.Errorf("stockfish: %s: %w", out, err)
	}
	if err := os.Rename(out+datasets.TempSuffix, out); err != nil {
		os.Remove(out + datasets.TempSuffix)
		return nil, fmt.Errorf("stockfish: %w", err)
	}
	return rep, nil
}

// entryOf fills e from a dataset row's columns: score and result turned to
// the side to move's view.
func entryOf(e *Entry, fen, best string, scoreCP, ply int32, result float32) error {
	pos, err := board.ParseFEN(fen)
	if err != nil {
		return err
	}
	m, err := pos.ParseUCIMove(best)
	if err != nil {
		return fmt.Errorf("best_move %q: %w", best, err)
	}
	if scoreCP < -32768 || scoreCP > 32767 {
		return fmt.Errorf("score_cp %d does not fit 16 bits", scoreCP)
	}
	if ply < 0 || ply > 65535 {
		return fmt.Errorf("ply %d does not fit 16 bits", ply)
	}
	var res int8
	switch result {
	case 1:
		res = 1
	case 0.5:
		res = 0
	case 0:
		res = -1
	default:
		return fmt.Errorf("result %v is not 1, 0.5 or 0", result)
	}
	score := int16(scoreCP)
	if pos.SideToMove() == board.Black {
		score, res = -score, -res
	}
	*e = Entry{Pos: pos, Move: m, Score: score, Ply: uint16(ply), Result: res}
	return nil
}

// ImportReport says what an import wrote.
type ImportReport struct {
	Rows  int64 // rows written, one per entry
	Games int64 // games the entries were grouped into
}

// entryReader is a format's reader.
type entryReader interface {
	Next() (*Entry, error)
}

// Import reads the file src in format f and writes its entries as a
// dataset file at out (SPEC §3), one row per entry, grouping consecutive
// entries into games and re-deriving planes and policy as the package
// comment describes.
func Import(src string, f Format, out string, progress Progress) (*ImportReport, error) {
	in, err := os.Open(src)
	if err != nil {
		return nil, fmt.Errorf("stockfish: %w", err)
	}
	defer in.Close()
	var er entryReader
	switch f {
	case Plain:
		er = NewPlainReader(in, src)
	case Binpack:
		er = NewBinpackReader(in, src)
	default:
		return nil, fmt.Errorf("stockfish: unknown format %v", f)
	}
	config, err := json.Marshal(map[string]any{"import": map[string]string{"format": f.String(), "source": src}})
	if err != nil {
		return nil, err
	}
	w, err := datasets.Create(out, datasets.WriterOptions{EngineVersion: "unknown (imported from Stockfish " + f.String() + ")", Config: config})
	if err != nil {
		return nil, err
	}
	im := &importer{w: w}
	for {
		e, err := er.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			err = im.add(e)
		}
		if err != nil {
			w.Abort()
			return nil, err
		}
		if progress != nil {
			progress(1)
		}
	}
	if err := im.endGame(); err != nil {
		w.Abort()
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return &ImportReport{Rows: im.written, Games: im.games}, nil
}

// importer groups entries into games and writes their rows.
type importer struct {
	w     *datasets.Writer
	game  *board.Position // the open game, at the pending entry's position
	start int             // the ply of the open game's first entry
	rows  []datasets.Row  // the open game's finished rows
	// The pending entry: the open game's last, whose move played is not
	// known until the next entry comes.
	pending bool
	best    board.Move
	score   int16
	ply     uint16
	result  int8

	games, written int64
}

func (im *importer) add(e *Entry) error {
	if im.pending {
		if m, ok := im.successor(e); ok {
			if err := im.finishRow(m); err != nil {
				return err
			}
			im.game.MakeMove(m)
			im.setPending(e)
			return nil
		}
		if err := im.endGame(); err != nil {
			return err
		}
	}
	pos, err := board.ParseFEN(e.Pos.FEN())
	if err != nil {
		return err
	}
	im.game, im.start = pos, int(e.Ply)
	im.setPending(e)
	return nil
}

func (im *importer) setPending(e *Entry) {
	im.pending = true
	im.best, im.score, im.ply, im.result = e.Move, e.Score, e.Ply, e.Result
}

// successor returns the legal move that takes the pending entry's position
// to e's, when e continues the game.
func (im *importer) successor(e *Entry) (board.Move, bool) {
	if int(e.Ply) != int(im.ply)+1 || e.Result != -im.result {
		return 0, false
	}
	want := snap(e.Pos)
	if snapAfter(im.game, im.best) == want {
		return im.best, true
	}
	var list board.MoveList
	im.game.GenerateLegal(&list)
	for _, m := range list.Slice() {
		if m != im.best && snapAfter(im.game, m) == want {
			return m, true
		}
	}
	return 0, false
}

// finishRow turns the pending entry into a row with played as its move.
func (im *importer) finishRow(played board.Move) error {
	im.rows = append(im.rows, datasets.Row{})
	r := &im.rows[len(im.rows)-1]
	if err := r.SetPosition(im.game, im.start, played, im.best); err != nil {
		return err
	}
	r.ScoreCP, r.Result = int32(im.score), float32(im.result+1)/2
	if im.game.SideToMove() == board.Black {
		r.ScoreCP, r.Result = -r.ScoreCP, 1-r.Result
	}
	return nil
}

// endGame writes the open game's rows, its last row's move played taken
// to be its best move.
func (im *importer) endGame() error {
	if !im.pending {
		return nil
	}
	im.pending = false
	if err := im.finishRow(im.best); err != nil {
		return err
	}
	im.game.MakeMove(im.best)
	o := im.game.Outcome()
	term := datasets.RuleTermination(o)
	if o == board.Ongoing {
		term = datasets.TerminationAdjudicatedWin
		if im.rows[0].Result == 0.5 {
			term = datasets.TerminationAdjudicatedDraw
		}
	}
	for i := range im.rows {
		r := &im.rows[i]
		r.GameID, r.Termination = im.games, term
		if err := im.w.Write(r); err != nil {
			return err
		}
	}
	im.written += int64(len(im.rows))
	im.games++
	im.rows = im.rows[:0]
	return nil
}
