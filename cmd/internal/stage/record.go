package stage

// The records a recipe's cycle leaves in the results history
// (docs/records.md): its match's, its network's and the cycle's own.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strings"
	"time"

	"chessforge/configs"
	"chessforge/engine/nnue"
	"chessforge/internal/record"
	"chessforge/selfplay/match"
)

// Record is the setting that names a recipe's history file, embedded in
// the configs of bin/loop and bin/nnue.
type Record struct {
	File string `json:"record" usage:"append each cycle's records (docs/records.md: its match, its network, the cycle) to this .jsonl file once its match has begun, a cycle stopped early or failed included; empty: none"`
}

// CheckRecordFile reports, before any work starts, a history file that
// the records could not be appended to: one that does not read
// (record.Read's error, naming the line and the field), or a new one in a
// directory that does not exist. "" (no records) passes.
func CheckRecordFile(path string) error {
	if path == "" {
		return nil
	}
	_, err := record.Read(path)
	if errors.Is(err, fs.ErrNotExist) {
		err = configs.OutputFile(path)
	}
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// MatchFunc plays a recipe's match stage: PlayMatch, or a stand-in in a
// test.
type MatchFunc func(ctx context.Context, name string, args []string, stdout, stderr io.Writer) (*match.Result, error)

// Cycle collects what a cycle's records need while its stages run: each
// stage with its seconds, and the match's record once it is played. With
// no file (Cycle.File "") it only times the stages. Records, the cycle's
// last, is appended once.
type Cycle struct {
	File   string // the history file ("" records nothing)
	Loop   string // the cycle record's loop: loop, loop-nnue, loop-dama or nnue
	Number int    // the cycle's number (0: none)

	stages   []record.Stage
	begun    bool           // the match has begun
	match    *record.Record // its record, once it played a game
	appended bool
}

// Stage runs f as the stage called name and adds it, with the seconds it
// took, to the cycle's stages, whether or not it succeeded.
func (c *Cycle) Stage(name string, f func() error) error {
	start := time.Now()
	err := f()
	c.AddStage(name, time.Since(start))
	return err
}

// AddStage adds a stage that took d to the cycle's stages.
func (c *Cycle) AddStage(name string, d time.Duration) {
	s := math.Round(d.Seconds()*10) / 10
	c.stages = append(c.stages, record.Stage{Name: name, Seconds: &s})
}

// Match plays the cycle's match with play as the stage "match" (name is
// its header), and with a history file keeps the match's record, what
// saying what it measured: a match interrupted or failed after its first
// game is recorded too, as far as it went. When ctx has ended before (an
// interrupt during an earlier stage) the match does not begin.
func (c *Cycle) Match(ctx context.Context, play MatchFunc, what, name string, args []string, stdout, stderr io.Writer) (*match.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%s: not begun: %w", name, err)
	}
	c.begun = true
	var res *match.Result
	err := c.Stage("match", func() error {
		var err error
		res, err = play(ctx, name, args, stdout, stderr)
		return err
	})
	if c.File == "" || res == nil || res.Score.Games() == 0 {
		return res, err
	}
	// A record that cannot be made costs the record, never the match's
	// result: the cycle still decides on it.
	s, perr := match.ParseArgs(args, io.Discard)
	if perr != nil {
		fmt.Fprintf(stderr, "%s: no record of the match: %v\n", name, perr)
		return res, err
	}
	rec, rerr := res.Record(s, what)
	if rerr != nil {
		fmt.Fprintf(stderr, "%s: no record of the match: %v\n", name, rerr)
		return res, err
	}
	c.match = &rec
	return res, err
}

// MatchID returns the id of the match's record, "" when there is none.
func (c *Cycle) MatchID() string {
	if c.match == nil {
		return ""
	}
	return c.match.ID
}

// Verdict is a cycle's outcome as its record names it.
type Verdict string

// The verdicts of a cycle (docs/records.md).
const (
	Kept      Verdict = "kept"      // the new tables or network stay
	Reverted  Verdict = "reverted"  // they were undone
	Undecided Verdict = "undecided" // the cycle stopped before it decided
	Failed    Verdict = "failed"    // a stage failed
)

// Finish appends the cycle's records to the history file: the match's
// (when one was played), then extra (a network's, say, whose gate is
// MatchID), then the cycle record with its stages, the verdict, what it
// measured, the network it trained ("" for none) and a note. It does
// nothing without a file, or when the records were appended already.
func (c *Cycle) Finish(verdict Verdict, what, network, note string, extra ...record.Record) error {
	if c.File == "" || c.appended {
		return nil
	}
	c.appended = true
	var recs []record.Record
	if c.match != nil {
		recs = append(recs, *c.match)
	}
	recs = append(recs, extra...)
	now := time.Now().UTC().Truncate(time.Second)
	cyc := record.Record{
		Kind: record.KindCycle, ID: record.NewID(now, what), Date: now.Format(time.RFC3339), What: what,
		Commit: record.Build(), Note: note, Loop: c.Loop, Stages: c.stages, Verdict: string(verdict),
		Match: c.MatchID(), Network: network,
	}
	if c.Number > 0 {
		n := c.Number
		cyc.Cycle = &n
	}
	recs = append(recs, cyc)
	// Every record is checked before the first is appended, so that a bad
	// one leaves none of the cycle's in the file.
	for i := range recs {
		if err := recs[i].Validate(); err != nil {
			return fmt.Errorf("record %s: %w", recs[i].ID, err)
		}
	}
	for _, r := range recs {
		if err := record.Append(c.File, r); err != nil {
			return fmt.Errorf("record: %w", err)
		}
	}
	return nil
}

// Fail appends, for a cycle that ends with err once its match has begun,
// the records of what it did (Finish, verdict Undecided for an interrupt,
// else Failed, the error as the note), and returns err with any error of
// the appending. Before its match a failed cycle is resumed or rerun, and
// leaves no record.
func (c *Cycle) Fail(err error, what, network string) error {
	if err == nil || !c.begun {
		return err
	}
	verdict := Failed
	if errors.Is(err, context.Canceled) || errors.Is(err, ErrInterrupted) {
		verdict = Undecided
	}
	note := strings.ReplaceAll(err.Error(), "\n", " ")
	return errors.Join(err, c.Finish(verdict, what, network, note))
}

// ErrInterrupted is the error of a cycle whose match an interrupt ended
// before it decided.
var ErrInterrupted = errors.New("interrupted before the match decided")

// NetworkOrNone returns id when it is a network id (16 hex digits), else
// "" (an export that printed none, or no network yet).
func NetworkOrNone(id string) string {
	if !exportedID.MatchString(id) {
		return ""
	}
	return id
}

// Network is what a network record says of a network a recipe trained.
type Network struct {
	ID       string     // its id (16 hex digits), after its pawn table
	Exported string     // the id the export gave it, before the table
	File     string     // the network file
	Parent   string     // the network it is measured against, or hce
	Data     string     // what it was trained on
	Command  []string   // the training command
	State    TrainState // the training history
	Kept     bool       // it became the next in the lineage
}

// NetworkRecord returns the network record of n gated by the match whose
// record id is gate: its architecture and pawn table read from its file,
// its epochs' losses from the training history and, when the pawn-table
// stage changed the export's id (it fitted the table, or wrote a recorded
// fit back), the table's level (its entry for four or more pawns) as
// pawn_scale. The note gives the whole table.
func NetworkRecord(n Network, gate string) (record.Record, error) {
	net, err := nnue.LoadFile(n.File)
	if err != nil {
		return record.Record{}, err
	}
	now := time.Now().UTC().Truncate(time.Second)
	what := fmt.Sprintf("network %s against %s", n.ID, n.Parent)
	r := record.Record{
		Kind: record.KindNetwork, ID: record.NewID(now, what), Date: now.Format(time.RFC3339), What: what,
		Commit: record.Build(), Network: n.ID, Parent: n.Parent, Arch: net.Architecture(), Data: n.Data,
		Positions: n.State.TrainRows, Command: strings.Join(n.Command, " "), Gate: gate, Kept: &n.Kept,
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	for _, h := range n.State.History {
		if !finite(h.TrainLoss) {
			continue // a diverged epoch: its loss is no number
		}
		e := record.Epoch{Epoch: h.Epoch, TrainLoss: ptr(h.TrainLoss)}
		if h.ValLoss != nil && finite(*h.ValLoss) {
			e.ValLoss = ptr(*h.ValLoss)
		}
		r.Epochs = append(r.Epochs, e)
	}
	table := strings.Trim(fmt.Sprint(net.PawnScale()), "[]")
	if n.ID != n.Exported {
		r.PawnScale = ptr(float64(net.PawnScale()[nnue.PawnGroups-1]))
		r.Note = fmt.Sprintf("Pawn table %s, fitted to its own scores (the export was %s).", table, n.Exported)
	} else {
		r.Note = fmt.Sprintf("Pawn table %s, the export's: not fitted.", table)
	}
	if net.ID() != n.ID {
		return r, fmt.Errorf("%s is network %s, not %s", n.File, net.ID(), n.ID)
	}
	return r, r.Validate()
}

func ptr[T any](v T) *T { return &v }
