// Agora: Document.Get's "key not found" error is formatted only when it is read
// (third_party/ferretdb/README.md, docs/embedded-database.md, patch 0015).
//
// Why: handlers ask for every optional parameter of a command with Get (common.GetOptionalParam) and
// take an error as "absent", never reading it; each absent parameter cost an fmt.Errorf: ~1 % of
// FerretDB's CPU under a loop of single-document writes.
//
// What: Get returns an agoraKeyNotFoundError holding the key; its Error() is the text fmt.Errorf wrote
// ("types.Document.Get: key not found: %q", with " (nil document)" for a nil document), and like that
// error it wraps nothing, so errors.Is and errors.As find nothing in it either.

package types

import "fmt"

// agoraKeyNotFoundError is Document.Get's error for a key it does not have.
type agoraKeyNotFoundError struct {
	key    string
	nilDoc bool
}

// Error implements error with FerretDB's text.
func (e *agoraKeyNotFoundError) Error() string {
	if e.nilDoc {
		return fmt.Sprintf("types.Document.Get: key not found: %q (nil document)", e.key)
	}

	return fmt.Sprintf("types.Document.Get: key not found: %q", e.key)
}
