// Package layers holds the test that keeps the module's imports running
// downwards only: the engine knows nothing of the pipeline, and no library
// imports cmd/. It has no code of its own; the rule is the table of layers
// in layers_test.go, checked against every package's imports (read with
// go/build, as `go list chessforge/...` lists them).
//
// Each top-level directory belongs to one layer. A package may import the
// packages of its own layer and of the layers below it, bottom up:
//
//	internal   helpers every layer shares (atomicfile, record)
//	engine     the rules, the evaluations, the search, UCI, PGN, draughts
//	encoder    planes and policy index of both games
//	configs    each command's settings and the progress bar
//	datasets   Parquet reading and writing, filters, export, stats, jobs
//	selfplay   self-play and the match runner
//	tuner      Texel tuning and SPSA
//	cmd, docs  the binaries' mains and the checks of the manual
//
// So the engine imports only the engine and internal/, and datasets may
// not import selfplay: bin/dataset reads what self-play wrote through
// datasets/jobs, without linking the engine that played the games. The
// test also holds bin/dataset to that: cmd/dataset must not link
// engine/search, engine/nnue (and its embedded network) or selfplay.
//
// Two more rules:
//   - No package outside cmd/ imports cmd/, its tests included.
//   - A main package (a tool run with go run, such as
//     datasets/internal/gendata) is a command wherever it lives: it may
//     import any layer, as cmd/ does, since nothing can import it, and it
//     needs no layer of its own.
//
// A package's tests may import any layer except cmd/: they are linked
// into no binary, and some must load a package above them (configs' test
// reads the shipped config files with selfplay's reader). A new top-level
// directory is an error until it is given a layer in the table.
package layers
