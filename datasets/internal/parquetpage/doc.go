// Package parquetpage encodes and decodes the Parquet pages of the dataset
// files' planes column (a required list of float32 values per row, as many
// as the game's layout has: 1152 for chess) directly, rather than through arrow-go's generic column writer
// and pqarrow's generic reader, which handle two levels per value one at a
// time and are several times slower for lists this long. arrow-go still
// frames, compresses and indexes the pages: this package only fills them.
//
// The package datasets uses it and nothing else; it holds no knowledge of
// which values the planes hold (datasets supplies the dictionary):
//
//   - ChunkWriter writes a file's planes column chunks, one row group's at a
//     time, as dictionary indices: the same layout arrow-go's own writer
//     gives the column.
//   - CanRead tells from a file's metadata whether a ColumnReader can decode
//     its planes column; ColumnReader then decodes it, row group after row
//     group, with every page's levels and indices checked. Files CanRead
//     turns down are left to pqarrow.
package parquetpage
