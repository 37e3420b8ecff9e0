package selfplay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"chessforge/configs"
	"chessforge/datasets"
	"chessforge/encoder"
	"chessforge/engine/nnue"
	"chessforge/engine/pgn"
	"chessforge/engine/uci"
	"chessforge/internal/outlock"
)

// Options are the settings of one run that are not part of the job.
type Options struct {
	Resume   bool                // continue the job from the files already written
	Progress io.Writer           // where the progress bar goes; nil for none
	Getenv   func(string) string // the environment, for the shard; nil for os.Getenv
	Log      io.Writer           // where an outside engine's faults are told; nil for os.Stderr
	// FirstGame is the first of the shard's games (0-based) that the
	// output holds: the games before it were played by a run whose files
	// are elsewhere (the corpus keeps a stopped run there), so this run
	// plays the job on from it, on any machine. A resumed run of such an
	// output gives it again.
	FirstGame int
	// stopAfter, when positive, cancels the run once that many games are
	// written (tests use it to interrupt a run at a known point).
	stopAfter int
	// afterWrite, when set, is called after each game is written with the
	// number of the shard's games done (tests use it to kill a run at a
	// known point).
	afterWrite func(done int)
	// failClose, when set, is called with a file's path before each
	// dataset file is finished and before the PGN file's games are written
	// out with it; an error it returns fails that file as a full disk would
	// (tests use it to fail a write at a known point).
	failClose func(path string) error
	// progressEvery, when positive, is the time between two plain progress
	// lines (tests shorten it to see every update).
	progressEvery time.Duration
}

// Summary is what a run did. Its counts are of the games saved: those in
// the finished dataset files. Games a run played into a file that it could
// not finish (a write error) are not counted.
type Summary struct {
	Shard        Shard
	Games        int   // games of this run in finished files
	Positions    int64 // their rows
	Done, Total  int   // the shard's games done (finished files, earlier runs and FirstGame included), and in all
	First        int   // the shard's first game in the output (Options.FirstGame)
	Lost         int   // games of this run an outside engine lost to its faults: not saved, not in Games
	Wins, Draws  int   // this run's results, White's view
	Losses       int   //
	Terminations map[datasets.Termination]int
	Unique       int64 // distinct positions (Zobrist keys) among this run's rows
	Searches     int64 // searches made by this run's written games (rows or not)
	Nodes        int64 // nodes those searches visited
	Elapsed      time.Duration
	Out          string   // the output file or directory
	Files        []string // the shard's finished dataset files, earlier runs included
	PGN          string   // the PGN file, if any
	Interrupted  bool     // the run stopped before the shard's last game

	hashes []uint64 // the Zobrist key of every row written, for Unique
}

// Line returns the summary line of SPEC §4:
// "selfplay: G games, P positions, S s, R positions/s".
func (s *Summary) Line() string {
	secs := s.Elapsed.Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(s.Positions) / secs
	}
	return fmt.Sprintf("selfplay: %d games, %d positions, %.1f s, %.0f positions/s", s.Games, s.Positions, secs, rate)
}

// UniqueShare returns the share of distinct positions among this run's rows.
func (s *Summary) UniqueShare() float64 {
	if s.Positions == 0 {
		return 0
	}
	return float64(s.Unique) / float64(s.Positions)
}

// WriteError is a failure to write the output (a full disk, say). The files
// the run finished before it are valid and listed in the Summary.
type WriteError struct{ Err error }

func (e *WriteError) Error() string { return "writing the output: " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// PGNPath returns the PGN file a shard writes for -pgn path: path itself
// when the job is unsharded, else path with the shard before the extension
// (games.pgn -> games-s003of008.pgn).
func PGNPath(path string, shard Shard) string {
	if path == "" || shard.N == 1 {
		return path
	}
	ext := filepath.Ext(path)
	return fmt.Sprintf("%s-s%03dof%03d%s", strings.TrimSuffix(path, ext), shard.K, shard.N, ext)
}

// loadNetwork returns the network cfg asks for: nil without -nnue, else
// the -eval-file network or, without one, the engine's embedded network.
func loadNetwork(cfg *Config) (*nnue.Network, error) {
	switch {
	case !cfg.NNUE:
		return nil, nil
	case cfg.EvalFile != "":
		return nnue.LoadFile(cfg.EvalFile)
	}
	return nnue.Default()
}

// Run plays the shard's games of the job cfg describes and writes them.
// Workers play games in parallel; a reorder buffer writes them in the order of
// their numbers, so the output does not depend on the number of workers.
// When ctx is cancelled Run stops starting games, drops the ones in flight,
// closes the files validly and returns the summary with Interrupted set and
// a nil error. A write error stops the run with a *WriteError and the
// summary of the files finished before it.
//
// With cfg.Engine the games are an outside UCI engine's (uciengine.go),
// started once before anything is made to learn its name; a game it loses
// to a fault is not saved, and counts in the summary's Lost.
//
// Every output is checked before any work, and a run that fails before its
// first game leaves nothing behind. The run holds the lock (outlock) of the
// shard's files and of its PGN file until it returns: a second run of the
// same shard or PGN file is refused at once with an *outlock.HeldError.
func Run(ctx context.Context, cfg Config, opt Options) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.playing()
	getenv := opt.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	shard, err := ResolveShard(cfg.Shard, getenv)
	if err != nil {
		return nil, err
	}
	if total := shard.Games(cfg.Games); opt.FirstGame < 0 || opt.FirstGame > total {
		return nil, configs.Usagef("selfplay: -first-game %d: want 0 to %d, the shard's games", opt.FirstGame, total)
	}
	out := newOutput(&cfg, shard, nil)
	out.failClose = opt.failClose
	pgnPath := PGNPath(cfg.PGN, shard)
	// No output may be one of the run's inputs (the book, the network), nor
	// the PGN the dataset file.
	inputs := []string{cfg.Book, cfg.EvalFile}
	if out.single {
		err = configs.NotAnInput(out.path, inputs...)
	} else {
		err = configs.NotAnInputDir(out.path, inputs...)
	}
	if err != nil {
		return nil, fmt.Errorf("selfplay: -out %w", err)
	}
	if out.single && pgnPath != "" && sameOutput(pgnPath, out.path) {
		return nil, configs.Usagef("selfplay: -pgn %s is the -out file %s: choose another name", pgnPath, out.path)
	}
	if pgnPath != "" {
		if err := configs.NotAnInput(pgnPath, inputs...); err != nil {
			return nil, fmt.Errorf("selfplay: -pgn %w", err)
		}
	}
	// Every output is checked before anything is read, made or played, so
	// that a run that fails at once leaves nothing behind.
	if err := out.check(); err != nil {
		return nil, err
	}
	if pgnPath != "" && (out.single || !holds(filepath.Dir(pgnPath), out.path)) {
		// (A PGN file in the directory of part files, or in a directory
		// above it, which making that directory makes, is checked with it.)
		if err := configs.OutputFile(pgnPath); err != nil {
			return nil, fmt.Errorf("selfplay: -pgn %w", err)
		}
	}
	var book []pgn.Opening
	if cfg.Book != "" {
		if book, err = LoadBook(cfg.Book); err != nil {
			return nil, fmt.Errorf("selfplay: %w", err)
		}
	}
	engine, netID := uci.Version, ""
	var net *nnue.Network
	var outside *uciEngine
	if cfg.Engine != "" {
		log := opt.Log
		if log == nil {
			log = os.Stderr
		}
		if outside, err = probeEngine(&cfg, log); err != nil {
			return nil, err
		}
		engine = outside.name
	} else if net, err = loadNetwork(&cfg); err != nil {
		return nil, err
	} else if net != nil {
		netID = net.ID()
	}
	if out.job, err = jobRecord(&cfg, shard.N, engine, netID); err != nil {
		return nil, err
	}
	players, err := newPlayers(&cfg, net, book, outside)
	if err != nil {
		return nil, err
	}
	switch {
	case outside != nil:
		out.eval, out.engine, out.engineCommand = EvalEngine, outside.name, outside.command
	case net != nil:
		out.eval, out.network = EvalNNUE, netID
	default:
		out.eval = EvalHandCrafted
	}

	sum, pgnOut, release, err := start(&cfg, shard, out, pgnPath, opt.Resume, opt.FirstGame)
	if err != nil {
		return nil, err
	}
	defer release()

	begin := time.Now()
	done := sum.Done
	saved := sum.snapshot() // the counts of the games in finished files
	bar := newProgress(opt.Progress, sum, opt.progressEvery)
	// finish finishes the open file, the PGN file's games first: a game
	// is saved when both hold it.
	finish := func() error {
		wrote := out.w != nil
		if pgnOut != nil {
			if opt.failClose != nil {
				if err := opt.failClose(pgnOut.path); err != nil {
					return err
				}
			}
			if err := pgnOut.flush(); err != nil {
				return err
			}
		}
		if err := out.closeFile(); err != nil {
			return err
		}
		if pgnOut != nil && wrote {
			if err := pgnOut.commit(); err != nil {
				return err
			}
		}
		saved = sum.snapshot()
		return nil
	}
	werr := play(ctx, &cfg, players, shard, done, sum.Total, opt.stopAfter, func(i int, g *Game) error {
		// A lost game has no rows; the file's range of games covers it.
		if err := out.write(i, g); err != nil {
			return &WriteError{err}
		}
		if pgnOut != nil && !g.lost {
			if err := pgnOut.write(g); err != nil {
				return &WriteError{err}
			}
		}
		if g.lost {
			sum.Lost++
		} else {
			sum.add(g)
		}
		sum.Done = i + 1
		if out.full() {
			if err := finish(); err != nil {
				return &WriteError{err}
			}
		}
		bar.update(sum)
		if opt.afterWrite != nil {
			opt.afterWrite(sum.Done)
		}
		return nil
	})
	if werr == nil {
		if err := finish(); err != nil {
			werr = &WriteError{err}
		}
	}
	if werr != nil {
		// The file being written may be what failed: keep the finished
		// ones only, and count, and keep in the PGN file, only their games.
		out.abort()
		*sum = saved
		if pgnOut != nil {
			pgnOut.rollback()
		}
	}
	if pgnOut != nil {
		if err := pgnOut.close(); err != nil && werr == nil {
			werr = &WriteError{err}
		}
	}
	sum.Elapsed = time.Since(begin)
	sum.Files = slices.Clone(out.files)
	sum.Interrupted = sum.Done < sum.Total
	sum.countUnique()
	bar.finish(sum)
	return sum, werr
}

// start readies the outputs of a run whose settings are checked and whose
// inputs are read: it makes the directory of part files, takes the locks
// of the shard's files and of the PGN file, finds what earlier runs
// finished (with resume; the output's games start at the shard's game
// first) and opens the files. It returns the summary of
// the run so far, the PGN file (nil for none), and release, which drops
// the locks. When it fails it leaves nothing it made.
func start(cfg *Config, shard Shard, out *output, pgnPath string, resume bool, first int) (sum *Summary, pgnOut *pgnFile, release func(), err error) {
	var locks []*outlock.Lock
	drop := func() {
		for _, l := range slices.Backward(locks) {
			l.Release()
		}
	}
	made, err := out.makeDir()
	if err != nil {
		return nil, nil, nil, err
	}
	pgnMade := false // a resumed run's PGN file, made by openPGN
	defer func() {
		if err == nil {
			return
		}
		if pgnOut != nil {
			pgnOut.close() // a new run's file goes with it
			if pgnMade {
				os.Remove(pgnPath)
			}
		}
		drop()
		for _, d := range made {
			os.Remove(d) // only while empty
		}
	}()
	l, err := out.lock()
	if err != nil {
		return nil, nil, nil, err
	}
	locks = append(locks, l)
	if pgnPath != "" {
		if l, err = outlock.Acquire(pgnPath); err != nil {
			return nil, nil, nil, fmt.Errorf("selfplay: -pgn %w", err)
		}
		locks = append(locks, l)
	}
	done, err := out.scan(resume, first)
	if err != nil {
		return nil, nil, nil, err
	}
	sum = &Summary{
		Shard: shard, Done: done, Total: shard.Games(cfg.Games), First: first, Out: cfg.Out,
		Terminations: map[datasets.Termination]int{},
		PGN:          pgnPath,
	}
	if pgnPath != "" {
		var keep func(int) bool
		if done > first { // else a resumed run starts afresh, the PGN file too
			keep = func(g int) bool {
				i := (g - (shard.K - 1)) / shard.N
				return (g-(shard.K-1))%shard.N == 0 && i >= first && i < done
			}
			pgnMade = true
			for _, p := range []string{pgnPath, pgnPath + datasets.TempSuffix} {
				if _, err := os.Stat(p); err == nil {
					pgnMade = false
				}
			}
		}
		if pgnOut, err = openPGN(pgnPath, keep); err != nil {
			return nil, nil, nil, fmt.Errorf("selfplay: %w", err)
		}
	}
	if out.single && done > first && done < sum.Total {
		if err := out.reopenSingle(first, done); err != nil {
			return nil, nil, nil, err
		}
	}
	return sum, pgnOut, drop, nil
}

// snapshot returns a copy of s's counts, for restoring them: the rows'
// keys it holds stay as they are, since later games only append to them.
func (s *Summary) snapshot() Summary {
	c := *s
	c.Terminations = maps.Clone(s.Terminations)
	return c
}

// add counts a written game.
func (s *Summary) add(g *Game) {
	s.Games++
	s.Positions += int64(len(g.Rows))
	switch g.Result {
	case 1:
		s.Wins++
	case 0:
		s.Losses++
	default:
		s.Draws++
	}
	s.Terminations[g.Termination]++
	for _, pl := range g.Plies {
		if pl.Searched {
			s.Searches++
			s.Nodes += pl.Nodes
		}
	}
	s.hashes = append(s.hashes, g.Hashes...)
}

// countUnique sets Unique from the keys of the rows written.
func (s *Summary) countUnique() {
	slices.Sort(s.hashes)
	s.Unique = int64(len(slices.Compact(s.hashes)))
	s.hashes = nil
}

// newPlayers returns the function that makes each worker's player of the
// job's game: a chess player with the network net (nil: the hand-crafted
// evaluation) and the openings of book, or with the outside engine when
// outside is not nil, or a draughts player.
func newPlayers(cfg *Config, net *nnue.Network, book []pgn.Opening, outside *uciEngine) (func() gamePlayer, error) {
	if cfg.Game == encoder.GameDama {
		sigs, err := parseDamaSignatures(cfg.Endgames)
		if err != nil {
			return nil, err
		}
		return func() gamePlayer { return newDamaPlayer(cfg, sigs) }, nil
	}
	ops, err := newOpenings(cfg, book)
	if err != nil {
		return nil, err
	}
	if outside != nil {
		return func() gamePlayer { return newUCIPlayer(cfg, outside, ops) }, nil
	}
	return func() gamePlayer { return newPlayer(cfg, net, ops) }, nil
}

// play runs the workers, each with a player newPlayer makes, over the
// shard's games from..total-1 and hands each finished game to write in
// order. It returns write's first error, or the first error of a game,
// after stopping the workers.
func play(ctx context.Context, cfg *Config, newPlayer func() gamePlayer, shard Shard, from, total, stopAfter int,
	write func(i int, g *Game) error) error {
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	workers := cfg.workers()
	window := 8 * workers // games started but not yet written, at most: room for a long game to hold up the writer while the other workers go on
	tokens := make(chan struct{}, window)
	results := make(chan *Game, window)
	var next atomic.Int64
	next.Store(int64(from))
	pool := sync.Pool{New: func() any { return new(Game) }}

	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newPlayer()
			if c, ok := p.(interface{ close() }); ok {
				defer c.close() // an outside engine's process
			}
			for {
				select {
				case tokens <- struct{}{}:
				case <-runCtx.Done():
					return
				}
				i := int(next.Add(1) - 1)
				if i >= total {
					return
				}
				g := pool.Get().(*Game)
				err := p.play(runCtx, shard.Game(i), g)
				if errors.Is(err, errGameLost) && runCtx.Err() == nil {
					// Not recorded: it goes to the writer without rows,
					// so that the games after it are written.
					*g = Game{Number: shard.Game(i), Plies: g.Plies[:0], Rows: g.Rows[:0], Hashes: g.Hashes[:0], lost: true}
					err = nil
				}
				if err != nil {
					if runCtx.Err() == nil {
						cancel(err)
					}
					return
				}
				results <- g
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	pending := map[int]*Game{}
	nextWrite := from
	var werr error
	for g := range results {
		if werr != nil {
			continue // draining after a failure
		}
		pending[(g.Number-(shard.K-1))/shard.N] = g
		for {
			g, ok := pending[nextWrite]
			if !ok || (stopAfter > 0 && nextWrite-from >= stopAfter) {
				break
			}
			delete(pending, nextWrite)
			if werr = write(nextWrite, g); werr != nil {
				cancel(werr)
				break
			}
			nextWrite++
			pool.Put(g)
			<-tokens
			if stopAfter > 0 && nextWrite-from >= stopAfter {
				cancel(context.Canceled)
			}
		}
	}
	if werr != nil {
		return werr
	}
	if cause := context.Cause(runCtx); cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, context.DeadlineExceeded) {
		return cause // a game failed
	}
	return nil
}

// sameOutput reports whether the output paths a and b, which need not
// exist yet, name one file: the same file when both exist, else the same
// name in the same directory.
func sameOutput(a, b string) bool {
	if sa, err := os.Stat(a); err == nil {
		if sb, err := os.Stat(b); err == nil {
			return os.SameFile(sa, sb)
		}
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, errA := os.Stat(filepath.Dir(a))
	db, errB := os.Stat(filepath.Dir(b))
	return errA == nil && errB == nil && os.SameFile(da, db)
}

// holds reports whether the directory dir is path or a directory above
// it, by their spellings made absolute.
func holds(dir, path string) bool {
	d, errD := filepath.Abs(dir)
	p, errP := filepath.Abs(path)
	if errD != nil || errP != nil {
		return false
	}
	return configs.Within(d, p)
}
