// Package datasets reads and writes the project's training data: Parquet
// files with one row per position (SPEC §3), written by self-play and read by
// the dataset tools, the tuner and, through any Parquet reader, by Python.
// A file holds chess or Italian draughts positions: its metadata names the
// game and the layout of its planes and policy (encoder.Layout; no
// chessforge.game key is chess), and the planes column is as long as the
// layout's planes. A dataset holds one game.
//
// A dataset is one .parquet file or a directory of them (shards), a record
// of whole games: a game's rows are contiguous, from its first recorded ply
// to its last. Writer streams rows into one file under a temporary name
// and renames it when closed; Reader streams rows or column batches back
// from a file, a directory or a glob, checking every file's schema and
// version first, and drops the rows its read-time Filter rejects (the
// filters belong to reading, never to writing).
package datasets

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"chessforge/encoder"
	"chessforge/engine/board"
	"chessforge/engine/dama"
)

// SchemaVersion is the version of the row layout this package writes and
// the only one it reads, stored as chessforge.schema_version.
const SchemaVersion = "1"

// FormatDoc is the page of the repository that describes the format, the
// value of KeyFormat. Its sections carry anchors named after the versions
// (FormatDoc + "#schema-version-1", "#planes-18x8x8-v1",
// "#policy-73x8x8-v1").
const FormatDoc = "docs/format.md"

// Key-value metadata keys of a dataset file.
const (
	KeySchemaVersion = "chessforge.schema_version" // SchemaVersion
	KeyGame          = "chessforge.game"           // the layout's game; written for games other than chess only, absent = chess
	KeyPlanes        = "chessforge.planes"         // the layout's planes version (encoder.PlanesVersion for chess)
	KeyPolicy        = "chessforge.policy"         // the layout's policy version (encoder.PolicyVersion for chess)
	KeyFormat        = "chessforge.format"         // FormatDoc
	KeyEngineVersion = "chessforge.engine_version" // the writing engine's version
	KeyConfig        = "chessforge.config"         // the generation config as JSON, seed included
	KeyArrowSchema   = "ARROW:schema"              // the Arrow schema, as pqarrow's store-schema option writes it
)

// writerMetadata returns the key-value pairs Create puts in a file of
// layout l's footer after KeyArrowSchema, in order. A chess file has no
// KeyGame, as chess files had before the key, so that they stay the same
// bytes.
func writerMetadata(l *encoder.Layout, engineVersion string, config []byte) [][2]string {
	kv := [][2]string{{KeySchemaVersion, SchemaVersion}}
	if l != encoder.Chess {
		kv = append(kv, [2]string{KeyGame, l.Game})
	}
	return append(kv,
		[2]string{KeyPlanes, l.Planes},
		[2]string{KeyPolicy, l.Policy},
		[2]string{KeyFormat, FormatDoc},
		[2]string{KeyEngineVersion, engineVersion},
		[2]string{KeyConfig, string(config)},
	)
}

// WriterKeys returns the metadata keys Writer sets, which
// WriterOptions.Metadata and SetMetadata cannot set: KeyArrowSchema and
// the chessforge keys above.
func WriterKeys() []string {
	keys := []string{KeyArrowSchema}
	for _, kv := range writerMetadata(encoder.Dama, "", nil) {
		keys = append(keys, kv[0])
	}
	return keys
}

// fileLayout returns the layout a file's metadata names: KeyGame's game
// (chess when the key is absent), whose planes and policy versions must be
// KeyPlanes' and KeyPolicy's.
func fileLayout(md map[string]string) (*encoder.Layout, error) {
	l, err := encoder.LayoutOf(md[KeyGame])
	if err != nil {
		return nil, fmt.Errorf("%s is %q; this reader knows %s", KeyGame, md[KeyGame], strings.Join(encoder.Games(), " and "))
	}
	if p := md[KeyPlanes]; p != l.Planes {
		return nil, fmt.Errorf("%s is %q; this reader knows %q only for %s", KeyPlanes, p, l.Planes, l.Game)
	}
	if p := md[KeyPolicy]; p != l.Policy {
		return nil, fmt.Errorf("%s is %q; this reader knows %q only for %s", KeyPolicy, p, l.Policy, l.Game)
	}
	return l, nil
}

// IsWriterKey reports whether Writer sets metadata key k itself.
func IsWriterKey(k string) bool {
	return slices.Contains(WriterKeys(), k)
}

// Column names, in file order. The first nine are SPEC §3's required
// columns; the rest are self-play's filter columns.
const (
	ColGameID          = "game_id"
	ColPly             = "ply"
	ColFEN             = "fen"
	ColPlanes          = "planes"
	ColMove            = "move"
	ColBestMove        = "best_move"
	ColPolicy          = "policy"
	ColScoreCP         = "score_cp"
	ColResult          = "result"
	ColInCheck         = "in_check"
	ColBestIsCapture   = "best_is_capture"
	ColBestIsPromotion = "best_is_promotion"
	ColDepth           = "depth"
	ColNodes           = "nodes"
	ColTermination     = "termination"
)

// PlanesType is the Arrow type of a chess file's planes column: a
// fixed-size list of 1152 float32 values, SPEC §1 flat in C order (see
// PlanesTypeOf).
var PlanesType = PlanesTypeOf(encoder.Chess)

// PlanesTypeOf returns the Arrow type of the planes column of layout l's
// files: a fixed-size list of l.InputSize() float32 values. Its element
// field is named "element", the name of the Parquet list's element group,
// as pqarrow (v18.8.0 on) stores list types in the ARROW:schema footer key.
func PlanesTypeOf(l *encoder.Layout) *arrow.FixedSizeListType {
	return arrow.FixedSizeListOfField(int32(l.InputSize()), arrow.Field{Name: "element", Type: arrow.PrimitiveTypes.Float32})
}

// columns lists every column this package writes, in order, with its type.
// SPEC §3's required columns are the first numRequired.
var columns = []arrow.Field{
	{Name: ColGameID, Type: arrow.PrimitiveTypes.Int64},
	{Name: ColPly, Type: arrow.PrimitiveTypes.Int32},
	{Name: ColFEN, Type: arrow.BinaryTypes.String},
	{Name: ColPlanes, Type: PlanesType},
	{Name: ColMove, Type: arrow.BinaryTypes.String},
	{Name: ColBestMove, Type: arrow.BinaryTypes.String},
	{Name: ColPolicy, Type: arrow.PrimitiveTypes.Int32},
	{Name: ColScoreCP, Type: arrow.PrimitiveTypes.Int32},
	{Name: ColResult, Type: arrow.PrimitiveTypes.Float32},
	{Name: ColInCheck, Type: arrow.FixedWidthTypes.Boolean},
	{Name: ColBestIsCapture, Type: arrow.FixedWidthTypes.Boolean},
	{Name: ColBestIsPromotion, Type: arrow.FixedWidthTypes.Boolean},
	{Name: ColDepth, Type: arrow.PrimitiveTypes.Int32},
	{Name: ColNodes, Type: arrow.PrimitiveTypes.Int64},
	{Name: ColTermination, Type: arrow.BinaryTypes.String},
}

// numRequired is how many of columns SPEC §3 requires.
const numRequired = 9

// Schema returns the Arrow schema of the chess files Writer writes: every
// column non-nullable, in the order above.
func Schema() *arrow.Schema {
	return arrow.NewSchema(columns, nil)
}

// SchemaOf returns the Arrow schema of layout l's files: Schema with the
// planes column l.InputSize() values long.
func SchemaOf(l *encoder.Layout) *arrow.Schema {
	return arrow.NewSchema(fieldsOf(l), nil)
}

// fieldsOf returns columns with the planes type of layout l.
func fieldsOf(l *encoder.Layout) []arrow.Field {
	f := slices.Clone(columns)
	f[planesColumn].Type = PlanesTypeOf(l)
	return f
}

// ColumnNames returns the names of every column Writer writes, in order.
func ColumnNames() []string {
	names := make([]string, len(columns))
	for i, f := range columns {
		names[i] = f.Name
	}
	return names
}

// columnIndex returns the position of name in columns, or -1.
func columnIndex(name string) int {
	for i, f := range columns {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// sameType reports whether a file's column type is the one this package
// expects, ignoring the nullability of list elements.
func sameType(got, want arrow.DataType) bool {
	if g, ok := got.(*arrow.FixedSizeListType); ok {
		w, ok := want.(*arrow.FixedSizeListType)
		return ok && g.Len() == w.Len() && arrow.TypeEqual(g.Elem(), w.Elem())
	}
	return arrow.TypeEqual(got, want)
}

// Termination is how a game ended, stored in the termination column as text.
type Termination uint8

// The ways a game ends. The zero value, TerminationUnknown, is not valid in
// a row. The endings by the rules are the board's outcomes, with their
// values and names (see RuleTermination).
const (
	TerminationUnknown              = Termination(board.Ongoing)
	TerminationCheckmate            = Termination(board.Checkmate)
	TerminationStalemate            = Termination(board.Stalemate)
	TerminationThreefold            = Termination(board.ThreefoldRepetition)
	TerminationFiftyMove            = Termination(board.FiftyMoveRule)
	TerminationInsufficientMaterial = Termination(board.InsufficientMaterial)
)

// The ways a game ends besides the rules.
const (
	TerminationAdjudicatedWin Termination = TerminationInsufficientMaterial + 1 + iota
	TerminationAdjudicatedDraw
	TerminationPlyCap
	// The endings by the rules of draughts (see DamaRuleTermination); a
	// draughts game drawn by repetition is TerminationThreefold.
	TerminationNoMoves   // the side to move has no legal move (no pieces, or all blocked) and has lost
	TerminationFortyMove // forty moves by each side (dama.QuietLimit plies) without a capture: a draw
	numTerminations
)

var terminationNames = [numTerminations]string{
	TerminationCheckmate:            board.Checkmate.String(),
	TerminationStalemate:            board.Stalemate.String(),
	TerminationThreefold:            board.ThreefoldRepetition.String(),
	TerminationFiftyMove:            board.FiftyMoveRule.String(),
	TerminationInsufficientMaterial: board.InsufficientMaterial.String(),
	TerminationAdjudicatedWin:       "adjudicated win",
	TerminationAdjudicatedDraw:      "adjudicated draw",
	TerminationPlyCap:               "ply cap",
	TerminationNoMoves:              dama.NoMoves.String(),
	TerminationFortyMove:            dama.DrawQuiet.String(),
}

// RuleTermination returns the termination of a game that the rules ended
// with outcome o (TerminationUnknown for board.Ongoing); its name is the
// outcome's, the termination pgn.RuleResult gives.
func RuleTermination(o board.Outcome) Termination { return Termination(o) }

// DamaRuleTermination returns the termination and White's result of a
// draughts game the rules ended with outcome o, with side to move in the
// final position: no moves is a loss for that side, a repetition
// (threefold) and the quiet-ply rule are draws. Its name is the outcome's.
// It returns TerminationUnknown for dama.Ongoing.
func DamaRuleTermination(o dama.Outcome, side dama.Color) (Termination, float32) {
	switch o {
	case dama.NoMoves:
		if side == dama.White {
			return TerminationNoMoves, 0
		}
		return TerminationNoMoves, 1
	case dama.DrawRepetition:
		return TerminationThreefold, 0.5
	case dama.DrawQuiet:
		return TerminationFortyMove, 0.5
	}
	return TerminationUnknown, 0.5
}

// String returns the termination as stored in a file ("checkmate",
// "fifty-move", "adjudicated win", ...), or "unknown".
func (t Termination) String() string {
	if t == TerminationUnknown || t >= numTerminations {
		return "unknown"
	}
	return terminationNames[t]
}

// Terminations returns every valid termination, in order.
func Terminations() []Termination {
	t := make([]Termination, 0, numTerminations-1)
	for i := TerminationCheckmate; i < numTerminations; i++ {
		t = append(t, i)
	}
	return t
}

// ParseTermination reads a termination as stored in a file.
func ParseTermination(s string) (Termination, error) {
	for i := TerminationCheckmate; i < numTerminations; i++ {
		if terminationNames[i] == s {
			return i, nil
		}
	}
	return TerminationUnknown, fmt.Errorf("unknown termination %q", s)
}

// Row is one position of a game, a row of a dataset file: SPEC §3's columns
// and self-play's filter columns. The file's layout says which game the
// row is of; for a draughts row FEN is the PDN FEN, the moves are in
// standard notation, InCheck is false and BestIsPromotion says the best
// move crowns a man (docs/format.md).
type Row struct {
	GameID int64  // unique in a dataset
	Ply    int32  // half-moves since the game's first position
	FEN    string // the position
	// Planes holds the planes of the position, with its game history, in
	// its first InputSize() values of the file's layout: all of them for
	// chess (SPEC §1), the first 448 for draughts, the rest zero.
	Planes          encoder.Planes
	Move            string      // the move played, UCI
	BestMove        string      // the search's best move, UCI
	Policy          int32       // SPEC §2 index of BestMove
	ScoreCP         int32       // centipawns from White's point of view; mate ±(32000 − plies)
	Result          float32     // the game's result for White: 1, 0.5 or 0
	InCheck         bool        // the side to move is in check
	BestIsCapture   bool        // BestMove captures (en passant included)
	BestIsPromotion bool        // BestMove promotes
	Depth           int32       // search depth reached
	Nodes           int64       // nodes searched
	Termination     Termination // how the game ended
}
