// Agora's cache of the parameter structs' tags (third_party/ferretdb/README.md, docs/embedded-database.md).
//
// Why: ExtractParams read each command's parameter struct by reflection on every call: for every key
// of the command's document it walked the struct's fields, reading and splitting each field's
// `ferretdb` tag until one matched, then did it again for every field to check the required ones.
// Under a loop of small commands (a find by _id, an update of one document) that was ~12 % of
// FerretDB's CPU per find.
//
// What: each struct type's fields are read once (agoraStructOf, kept in a sync.Map keyed by the
// reflect.Type) into what lookupFieldTag and checkAllRequiredFieldsPopulated used from the tags:
// each field's name, its key (the tag's first item) and its options. Both functions keep their
// order of checks, errors, messages and panics (a field without a tag, an unknown option), which
// patch 0013 makes them take from the cache.

package handlerparams

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode/utf8"
)

// agoraField is what ExtractParams reads from one field of a parameter struct.
type agoraField struct {
	name     string     // the Go field's name, for messages
	key      string     // the tag's first item
	lowerKey string     // strings.ToLower(key)
	opts     tagOptions // the tag's other items
	badOpt   string     // the first unknown option, if any: tagOptionsFromList panics on it
	hasBad   bool       // badOpt is set
	noTag    bool       // the tag is empty (or absent)
}

// options returns the field's options as tagOptionsFromList returns them, panicking as it does.
func (f *agoraField) options() *tagOptions {
	if f.hasBad {
		panic(fmt.Sprintf("unknown tag option %s", f.badOpt))
	}

	to := f.opts

	return &to
}

// agoraStruct is what ExtractParams reads from a parameter struct type.
type agoraStruct struct {
	index      map[string]int // key → the first field with that key and a tag
	fields     []agoraField   // in the struct's order
	firstNoTag int            // the first field without a tag, len(fields) if none
}

// agoraStructs caches *agoraStruct by reflect.Type.
var agoraStructs sync.Map

// agoraStructOf returns the (cached) fields of struct type t.
func agoraStructOf(t reflect.Type) *agoraStruct {
	if s, ok := agoraStructs.Load(t); ok {
		return s.(*agoraStruct)
	}

	s := agoraNewStruct(t)

	actual, _ := agoraStructs.LoadOrStore(t, s)

	return actual.(*agoraStruct)
}

// agoraNewStruct reads the fields of struct type t.
func agoraNewStruct(t reflect.Type) *agoraStruct {
	n := t.NumField()
	s := &agoraStruct{
		index:      make(map[string]int, n),
		fields:     make([]agoraField, n),
		firstNoTag: n,
	}

	for i := 0; i < n; i++ {
		field := t.Field(i)
		tag := field.Tag.Get("ferretdb")
		optionsList := strings.Split(tag, ",")

		f := &s.fields[i]
		f.name = field.Name
		f.key = optionsList[0]
		f.lowerKey = strings.ToLower(f.key)
		f.opts, f.badOpt, f.hasBad = agoraTagOptions(optionsList[1:])

		if tag == "" {
			f.noTag = true

			if s.firstNoTag == n {
				s.firstNoTag = i
			}

			continue
		}

		if _, ok := s.index[f.key]; !ok {
			s.index[f.key] = i
		}
	}

	return s
}

// agoraTagOptions is tagOptionsFromList returning the first unknown option instead of panicking.
func agoraTagOptions(optionsList []string) (to tagOptions, bad string, hasBad bool) {
	for _, tt := range optionsList {
		switch tt {
		case "opt":
			to.optional = true
		case "unimplemented-non-default":
			to.nonDefault = true
		case "unimplemented":
			to.unimplemented = true
		case "ignored":
			to.ignored = true
		case "numericBool":
			to.numericBool = true
		case "positiveNumber":
			to.positiveNumber = true
		case "wholePositiveNumber":
			to.wholePositiveNumber = true
		case "zeroOrOneAsBool":
			to.zeroOrOneAsBool = true
		case "collection":
			to.collection = true
		default:
			return to, tt, true
		}
	}

	return to, "", false
}

// lookup returns the field lookupFieldTag finds for key: its index, or -1 if no field has that key;
// noTag is the index of a field without a tag that lookupFieldTag reaches first, or -1.
func (s *agoraStruct) lookup(key string) (i int, noTag int) {
	i, ok := s.index[key]
	if !ok {
		i = len(s.fields)
	}

	if s.firstNoTag < i {
		return -1, s.firstNoTag
	}

	if !ok {
		return -1, -1
	}

	return i, -1
}

// agoraLowerEqual reports whether strings.ToLower(s) == lower, without allocating while s is ASCII:
// ToLower maps an ASCII byte to one byte, so an ASCII prefix of s that differs from lower (or runs
// past its end) decides; at the first non-ASCII byte ToLower itself decides.
func agoraLowerEqual(s, lower string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return strings.ToLower(s) == lower
		}

		if i >= len(lower) {
			return false
		}

		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}

		if c != lower[i] {
			return false
		}
	}

	return len(s) == len(lower)
}
