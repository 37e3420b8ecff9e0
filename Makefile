# chessforge: one Go module, four parts. `make test` is the one test command.
GO      ?= go
# x86-64-v2 (POPCNT and SSE4.2, on every x86-64 CPU since about 2009) turns
# each popcount into one instruction: about 4% more nodes per second. Set
# GOAMD64=v1 for older CPUs, or v3 where AVX2 is certain. Ignored elsewhere.
export GOAMD64 ?= v2
BIN     := bin

.PHONY: all build exe pgo test test-nodecheck test-python bench history perft vet fmt clean selfplay loop loop-nnue nnue corpus corpus-add

all: $(if $(filter command line,$(origin EXE)),exe,build)

# Profile-guided optimisation: every binary is built with the engine's bench
# profile (cmd/engine/default.pgo, which a plain `go build ./cmd/engine` also
# picks up): about 5% more nodes per second. `make pgo` renews the profile.
PGO ?= cmd/engine/default.pgo

# The network's vector path (AVX2, through Go 1.26's experimental
# simd/archsimd; engine/nnue/kernels_simd.go) is compiled in on amd64 and
# chosen at run time where the processor has AVX2: about 4x the network's
# nodes per second of the pure-Go path, with the same results. A plain
# `go build` takes the pure-Go path. SIMD= (empty) builds without it.
SIMD    ?= $(if $(filter amd64,$(shell $(GO) env GOARCH)),simd)

# -buildvcs=auto stamps each binary with its git commit where there is one
# (over a GOFLAGS=-buildvcs=false of the environment): the records that
# bin/match and the recipes write name the build that measured them.
build:
	@mkdir -p $(BIN)
	GOEXPERIMENT=$(SIMD) $(GO) build -buildvcs=auto -pgo=$(PGO) -o $(BIN)/ ./cmd/...

# OpenBench (docs/openbench.md): its client builds an engine with
# `make -j EXE=NAME`, adding CC= or CXX= (which a Go build does not use) and,
# where a test names a network, EVALFILE=NET. With EXE=NAME, `make` builds
# the engine alone into NAME with the flags of `make build`; EVALFILE=NET
# embeds the network file NET in place of engine/nnue/default.nnue (through
# go build -overlay: the tree is left as it was).
EVALFILE ?=
exe:
	$(if $(EXE),,$(error make exe needs EXE=PATH, the engine binary to write))
ifeq ($(EVALFILE),)
	GOEXPERIMENT=$(SIMD) $(GO) build -buildvcs=auto -pgo=$(PGO) -o $(EXE) ./cmd/engine
else
	@test -f '$(EVALFILE)' || { echo 'make: EVALFILE=$(EVALFILE): no such file' >&2; exit 2; }
	overlay=$$(mktemp) && \
	printf '{"Replace":{"%s":"%s"}}\n' '$(CURDIR)/engine/nnue/default.nnue' '$(abspath $(EVALFILE))' >"$$overlay" && \
	GOEXPERIMENT=$(SIMD) $(GO) build -buildvcs=auto -pgo=$(PGO) -overlay "$$overlay" -o $(EXE) ./cmd/engine; \
	status=$$?; rm -f "$$overlay"; exit $$status
endif

pgo:
	$(GO) test -run '^$$' -bench BenchmarkBench -benchtime 12x -cpuprofile $(CURDIR)/cmd/engine/default.pgo ./engine/search/
	rm -f search.test

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w $$(git ls-files '*.go')

# The one test command: formatting, vet, race-enabled tests, and the checks
# against outside programs (Stockfish perft cross-check).
test: build test-nodecheck test-python
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -race -timeout 20m ./...
	$(if $(SIMD),GOEXPERIMENT=$(SIMD) $(GO) test -race ./engine/nnue/ ./engine/search/)

# Independent proof that outside readers take our datasets: DuckDB (its own
# Parquet reader in C++) and hyparquet (one in plain JavaScript), both from
# npm at the versions of datasets/nodecheck/package-lock.json, read three small
# Go-written datasets of two shards each (random playouts, for every kind of
# move, a real self-play job played as shards 1/2 and 2/2, and a draughts
# self-play job the same way), every column, and check rows, planes and
# policy against each FEN and best move,
# and metadata, against docs/format.md (datasets/nodecheck: check.mjs, hypcheck.mjs, contract.mjs).
NODECHECK_DIR ?= $(or $(TMPDIR),/tmp)/chessforge-nodecheck
test-nodecheck:
	cd datasets/nodecheck && npm ci --silent --no-audit --no-fund
	rm -rf $(NODECHECK_DIR)
	$(GO) run ./datasets/internal/gendata -out $(NODECHECK_DIR)/playouts -games 40 -shards 2
	$(GO) run ./datasets/internal/gendata -selfplay -out $(NODECHECK_DIR)/selfplay -games 30 -shards 2
	$(GO) run ./datasets/internal/gendata -selfplay -game dama -out $(NODECHECK_DIR)/dama -games 20 -shards 2
	for d in playouts selfplay dama; do \
		node datasets/nodecheck/check.mjs $(NODECHECK_DIR)/$$d && \
		node datasets/nodecheck/hypcheck.mjs $(NODECHECK_DIR)/$$d || exit 1; \
	done

# The Python side (datasets/python): a Go-written dataset, exported to NumPy
# shards by bin/dataset; the package installed (not editable) into a
# virtual environment that sees Debian's python3-torch and python3-numpy,
# built offline with Debian's setuptools; its tests run from outside the
# source tree: the loader read against the Go reader's dump (planes bit for
# bit), the side-to-move view against FENs, the filters; and every ```sh
# block of README.md, datasets/python/README.md and docs/ runs, page by page,
# each in a fresh copy of the working tree with bin/ (tests/test_docs.py;
# CHESSFORGE_DOCS_PAGES="docs/training.md" runs one page's alone). The pyarrow
# path runs where pyarrow is installed and reports itself skipped otherwise.
PYTHON ?= /usr/bin/python3
PYTEST_DIR ?= $(or $(TMPDIR),/tmp)/chessforge-pytest
test-python: build
	rm -rf $(PYTEST_DIR)
	$(GO) run ./datasets/python/internal/pyfixture -out $(PYTEST_DIR)
	$(BIN)/dataset export -format npy $(PYTEST_DIR)/data -out $(PYTEST_DIR)/npy -shard-rows 1000 -quiet
	$(PYTHON) -m venv --system-site-packages $(PYTEST_DIR)/venv
	$(PYTEST_DIR)/venv/bin/pip install --quiet --disable-pip-version-check --no-index --no-build-isolation ./datasets/python
	rm -rf datasets/python/build datasets/python/chessforge_data.egg-info
	cd $(PYTEST_DIR) && CHESSFORGE_PYTEST_DIR=$(PYTEST_DIR) $(PYTEST_DIR)/venv/bin/python $(CURDIR)/datasets/python/tests/run.py

# Benchmarks: move generation (perft), and more as parts land.
bench:
	$(GO) test -run '^$$' -bench . -benchtime 3x ./engine/board/

# The results history: docs/history.md, its plots and README.md's status
# block, drawn from the records in docs/history/*.jsonl (docs/records.md).
history:
	$(GO) run ./cmd/history

# Full-depth perft of the six standard positions (start depth 6, Kiwipete depth 5, ...).
perft:
	CHESSFORGE_PERFT_FULL=1 $(GO) test -run 'TestPerft' -v -timeout 30m ./engine/board/

clean:
	rm -rf $(BIN)

# The README's first command: build, play the default self-play job of
# configs/selfplay.json (a few hundred games, a few minutes on 2 cores) into
# data/, then describe the dataset and say where the PGN is.
selfplay: build
	@mkdir -p data
	$(BIN)/selfplay -config configs/selfplay.json
	$(BIN)/dataset info data/selfplay.parquet
	@echo "PGN: data/selfplay.pgn"

# One improvement cycle: self-play, tune, rebuild, SPRT match against the
# engine before the tune; keeps or reverts engine/eval/weights_gen.go.
# configs/loop.json sets each stage's arguments (scale it up there).
loop: build
	$(BIN)/loop -config configs/loop.json

# The network cycle of the loop: self-play with the current network
# (data/loop-nnue/current.nnue, at first the embedded one), train the next
# one on every cycle's positions (by default from scratch, as the embedded
# network was: 4 to 6 hours a cycle on 2 cores), SPRT match next against
# current; keeps or reverts. Rerun to resume an interrupted cycle or start the next;
# configs/loop-nnue.json sets each stage's arguments ("promote": true makes
# a kept network the embedded default).
loop-nnue: build
	$(BIN)/loop -config configs/loop-nnue.json

# The same cycle for the Italian draughts evaluation (engine/dama/eval's
# tables), each stage given -game dama: configs/dama-loop.json.
.PHONY: loop-dama
loop-dama: build
	$(BIN)/loop -config configs/dama-loop.json

# The corpus: the self-play kept in the repository (datasets/corpus/, one
# xz-compressed binpack per self-play record), checked against
# datasets/corpus/SHA256SUMS, then each file imported and exported to NumPy under
# $(CORPUS_OUT)/NAME/npy, the directories to give the trainer or the loop's
# train-data. Rerun to restore what is missing; a restored file is skipped.
CORPUS_OUT ?= data/corpus
corpus: build
	cd datasets/corpus && sha256sum --quiet -c SHA256SUMS
	@set -e; for f in datasets/corpus/*.binpack.xz; do \
		[ -e "$$f" ] || continue; \
		n=$$(basename "$$f" .binpack.xz); d=$(CORPUS_OUT)/$$n; \
		if [ -f "$$d/npy/manifest.json" ]; then echo "corpus: $$d/npy is there"; continue; fi; \
		mkdir -p "$$d"; rm -rf "$$d/npy" "$$d/$$n.parquet"; \
		xz -dc "$$f" > "$$d/$$n.binpack.tmp"; mv "$$d/$$n.binpack.tmp" "$$d/$$n.binpack"; \
		$(BIN)/dataset import -quiet "$$d/$$n.binpack" -out "$$d/$$n.parquet"; \
		$(BIN)/dataset export -format npy -quiet "$$d/$$n.parquet" -out "$$d/npy" -shard-rows 65536; \
		rm -f "$$d/$$n.binpack"; \
	done

# A self-play run added to the corpus: SELFPLAY, its dataset, compressed into
# datasets/corpus/ID.binpack.xz and listed in SHA256SUMS, where ID is the id of
# its record in docs/history (bin/selfplay -record docs/history/bench.jsonl).
corpus-add: build
	@test -n '$(ID)' -a -n '$(SELFPLAY)' || { echo 'make: corpus-add needs ID=RECORD-ID SELFPLAY=DATASET' >&2; exit 2; }
	@grep -Fq -e '"id":"$(ID)"' -e '"id": "$(ID)"' docs/history/*.jsonl || { echo 'make: corpus-add: no record $(ID) in docs/history' >&2; exit 2; }
	@test ! -e datasets/corpus/$(ID).binpack.xz || { echo 'make: corpus-add: datasets/corpus/$(ID).binpack.xz is there already' >&2; exit 2; }
	@mkdir -p $(CORPUS_OUT)
	$(BIN)/dataset export -format binpack -quiet '$(SELFPLAY)' -out $(CORPUS_OUT)/$(ID).binpack
	xz -9 -T1 -c $(CORPUS_OUT)/$(ID).binpack > datasets/corpus/.$(ID).binpack.xz.tmp
	mv datasets/corpus/.$(ID).binpack.xz.tmp datasets/corpus/$(ID).binpack.xz
	cd datasets/corpus && sha256sum $(ID).binpack.xz >> SHA256SUMS
	rm -f $(CORPUS_OUT)/$(ID).binpack
	$(GO) test -count=1 ./datasets/corpus

# The network recipe: self-play, NumPy export, train (chessforge-nnue in
# .venv, made when missing), export the best epoch, SPRT match against the
# hand-crafted evaluation, all in data/nnue-recipe; rerun to resume or grow.
# configs/nnue.json sets each stage's arguments (about two hours on 2 cores).
nnue: build
	$(BIN)/nnue -config configs/nnue.json
