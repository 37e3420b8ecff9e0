package export

import (
	"errors"

	"golang.org/x/sys/unix"
)

// errNoExchange is exchange's error where the file system cannot swap two
// names in one step.
var errNoExchange = errors.New("no atomic exchange")

// exchange swaps the names a and b in one step (renameat2 with
// RENAME_EXCHANGE).
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return errNoExchange
	}
	return err
}
