// Code added by Agora's build of FerretDB (src/db/ferretdb-tracking.ts); see there for why.

package resource

import (
	"fmt"
	"runtime"
)

// Track makes obj panic when it is garbage-collected before Untrack is called.
func Track(obj any, token *Token) {
	checkArgs(obj, token)

	runtime.SetFinalizer(obj, func(obj any) {
		panic(fmt.Sprintf("%T has not been finalized", obj))
	})
}

// Untrack marks obj as properly closed.
func Untrack(obj any, token *Token) {
	checkArgs(obj, token)

	runtime.SetFinalizer(obj, nil)
}
