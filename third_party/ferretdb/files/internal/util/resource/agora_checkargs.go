// Agora: checkArgs finds a tracked type's token field once per type (third_party/ferretdb/README.md,
// docs/embedded-database.md, patch 0015).
//
// Why: Track and Untrack are called for every iterator (every document and array iterator included),
// and checkArgs looked the field named "token" up by reflection (reflect.Value.FieldByName walks the
// struct's fields and compares their names) on each call: ~1.5 % of FerretDB's CPU under a loop of
// single-document writes.
//
// What: the field's index path is kept per struct type (a sync.Map keyed by reflect.Type; the types are
// the program's own, so the map stays small) and read with FieldByIndex, which is what FieldByName does
// with the index it finds. A type without such a field is kept too and gives the zero Value, as
// FieldByName does, so the checks and panics of checkArgs are unchanged.

package resource

import (
	"reflect"
	"sync"
)

// agoraTokenFields maps a struct type to the index path of its field named "token" (nil: none).
var agoraTokenFields sync.Map

// agoraTokenField returns v.FieldByName("token") for a struct value v, the index looked up once per type.
func agoraTokenField(v reflect.Value) reflect.Value {
	t := v.Type()

	cached, ok := agoraTokenFields.Load(t)
	if !ok {
		var index []int
		if sf, found := t.FieldByName("token"); found {
			index = sf.Index
		}

		cached, _ = agoraTokenFields.LoadOrStore(t, index)
	}

	index := cached.([]int)
	if index == nil {
		return reflect.Value{}
	}

	return v.FieldByIndex(index)
}
