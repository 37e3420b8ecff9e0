//go:build !linux

package export

import "errors"

// errNoExchange is exchange's error where the file system cannot swap two
// names in one step.
var errNoExchange = errors.New("no atomic exchange")

// exchange is not available here: replaceDir renames the old directory
// aside instead.
func exchange(a, b string) error { return errNoExchange }
