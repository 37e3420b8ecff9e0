// Package nnue is the engine's efficiently updatable neural-network
// evaluation: the chessforge network (768x2-H-B-screlu: accumulators H wide,
// 256 for the embedded network, and B output buckets), its file format, its
// accumulators and its quantized forward pass.
//
// A position's 768 features (colour × piece type × square) are seen from
// each side's perspective; a feature transformer sums the rows of the active
// features into two accumulators, one per perspective, which a move
// changes by adding and subtracting a few rows instead of rebuilding them.
// The output layer applies SCReLU (clamp(x, 0, QA)²) to the side to move's
// accumulator and the other side's and takes their dot product with the
// output weights, all in exact integer arithmetic. Each network also
// carries its pawn table, by which the search scales its scores for the
// pawns of the side they favour (Network.ScaleByPawns). docs/nnue.md
// describes the format and the arithmetic; the PyTorch trainer exports to
// it.
//
// The kernels have a pure-Go form that every build uses, and an AVX2 form
// built with GOEXPERIMENT=simd (package simd/archsimd) on amd64 and chosen
// at run time when the processor has AVX2. Both give identical results.
package nnue
