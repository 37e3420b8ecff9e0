package datasets

import (
	"errors"
	"io"
)

// ReadAll reads every row of the dataset at path (a file, a directory of
// shards or a glob) into memory. It suits small datasets (tests, tools);
// stream larger ones with Open and Read.
func ReadAll(path string) ([]Row, error) {
	r, err := Open(path, nil)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var rows []Row
	for {
		var row Row
		if err := r.Read(&row); errors.Is(err, io.EOF) {
			return rows, nil
		} else if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
}
