// Tests of Agora's cache of the parameter structs' tags (agora_params.go, patch 0013): the cached
// lookups answer as FerretDB's reflective code did (kept below as the reference), panics and
// errors included, for well-formed and malformed structs; agoraLowerEqual is strings.ToLower's
// equality.

package handlerparams

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/handler/handlererrors"
	"github.com/FerretDB/FerretDB/internal/util/lazyerrors"
)

// AgoraResetCache empties the cache, for the cold runs of agora_params_cmd_test.go.
func AgoraResetCache() {
	agoraStructs.Clear()
}

// referenceLookupFieldTag is FerretDB's lookupFieldTag before patch 0013.
func referenceLookupFieldTag(key string, value *reflect.Value) (*int, *tagOptions, error) {
	var to *tagOptions
	var i int
	var found bool

	for ; i < value.NumField(); i++ {
		field := value.Type().Field(i)

		tag := field.Tag.Get("ferretdb")

		if tag == "" {
			return nil, nil, lazyerrors.Errorf("no tag provided for %s", field.Name)
		}

		optionsList := strings.Split(tag, ",")

		if optionsList[0] != key {
			continue
		}

		to = tagOptionsFromList(optionsList[1:])

		found = true

		break
	}

	if !found {
		return nil, nil, nil
	}

	return &i, to, nil
}

// referenceCheckAllRequiredFieldsPopulated is FerretDB's checkAllRequiredFieldsPopulated before
// patch 0013.
func referenceCheckAllRequiredFieldsPopulated(v *reflect.Value, command string, keys []string) error {
	for i := 0; i < v.NumField(); i++ {
		field := v.Type().Field(i)

		tag := field.Tag.Get("ferretdb")

		optionsList := strings.Split(tag, ",")

		if len(optionsList) == 0 {
			return lazyerrors.Errorf("no tag provided for %s", field.Name)
		}

		to := tagOptionsFromList(optionsList[1:])
		if to.ignored || to.optional || to.unimplemented || to.nonDefault {
			continue
		}

		if to.collection {
			if v.Field(i).IsZero() {
				return handlererrors.NewCommandErrorMsgWithArgument(handlererrors.ErrInvalidNamespace,
					fmt.Sprintf("Invalid namespace specified '%s.'", v.FieldByName("DB")),
					command,
				)
			}
		}

		key := optionsList[0]

		// Fields with "-" are ignored when parsing parameters.
		if key == "-" {
			continue
		}

		// Depending on the driver, the key may be camel case or lower case for a collection name.
		if !slices.Contains(keys, key) && !slices.Contains(keys, strings.ToLower(key)) {
			return handlererrors.NewCommandErrorMsgWithArgument(
				handlererrors.ErrMissingField,
				fmt.Sprintf("BSON field '%s.%s' is missing but a required field", command, key),
				command,
			)
		}
	}

	return nil
}

// agoraOutcome is what a call returned or panicked with, errors by their message (lazyerrors name
// the function that made them, which differs between the reference and the cache).
type agoraOutcome struct {
	index *int
	opts  *tagOptions
	err   string
	panic string
}

func agoraCall(f func() (*int, *tagOptions, error)) (o agoraOutcome) {
	defer func() {
		if p := recover(); p != nil {
			o.panic = fmt.Sprint(p)
		}
	}()

	var err error
	o.index, o.opts, err = f()

	if err != nil {
		o.err = err.Error()
		if i := strings.Index(o.err, "] "); i >= 0 { // lazyerrors' "[file:line func] " prefix
			o.err = o.err[i+2:]
		}
	}

	return
}

type agoraWellFormed struct {
	DB         string `ferretdb:"$db"`
	Collection string `ferretdb:"find,collection"`
	Filter     any    `ferretdb:"filter,opt"`
	Limit      int64  `ferretdb:"limit,opt,positiveNumber"`
	Multi      bool   `ferretdb:"multi,opt,numericBool"`
	Upsert     bool   `ferretdb:"upsert,opt,zeroOrOneAsBool"`
	Let        any    `ferretdb:"let,unimplemented"`
	ReturnKey  bool   `ferretdb:"returnKey,unimplemented-non-default"`
	LSID       any    `ferretdb:"lsid,ignored"`
	Batch      int64  `ferretdb:"batchSize,opt,wholePositiveNumber"`
	Dash       string `ferretdb:"-"`
	Same       string `ferretdb:"filter"` // a second field with a key already used: never found
	Empty      string `ferretdb:",opt"`   // a tag whose key is empty
	Required   string `ferretdb:"requiredField"`
	CamelCase  string `ferretdb:"camelCase"`
}

type agoraUntaggedFirst struct {
	NoTag string
	A     string `ferretdb:"a"`
}

type agoraUntaggedMiddle struct {
	A     string `ferretdb:"a,opt"`
	NoTag string
	B     string `ferretdb:"b"`
}

type agoraBadOption struct {
	A string `ferretdb:"a,opt"`
	B string `ferretdb:"b,opt,noSuchOption,ignored"`
	C string `ferretdb:"c"`
}

func TestAgoraParamsLookupAsFerretDB(t *testing.T) {
	keys := []string{"", "$db", "find", "Find", "filter", "limit", "multi", "upsert", "let", "returnKey", "lsid",
		"batchSize", "-", "requiredField", "camelCase", "camelcase", "a", "b", "c", "NoTag", "noSuchOption", "unknown"}

	for _, v := range []any{
		new(agoraWellFormed), new(agoraUntaggedFirst), new(agoraUntaggedMiddle), new(agoraBadOption),
	} {
		elem := reflect.ValueOf(v).Elem()

		for _, warm := range []bool{false, true} {
			if !warm {
				AgoraResetCache()
			}

			for _, key := range keys {
				expected := agoraCall(func() (*int, *tagOptions, error) { return referenceLookupFieldTag(key, &elem) })
				actual := agoraCall(func() (*int, *tagOptions, error) {
					return lookupFieldTag(key, agoraStructOf(elem.Type()))
				})
				assert.Equal(t, expected, actual, "%T %q warm=%v", v, key, warm)
			}
		}
	}
}

func TestAgoraParamsRequiredAsFerretDB(t *testing.T) {
	keySets := [][]string{
		nil,
		{"$db"},
		{"find", "$db", "requiredField"},
		{"find", "$db", "requiredField", "camelCase"},
		{"find", "$db", "requiredfield", "camelcase", ""},
		{"find", "$db", "requiredField", "camelCase", ""},
		{"a", "b", "c", ""},
		{"a", "b", "c", "", "NoTag"},
	}

	for _, v := range []any{
		&agoraWellFormed{}, &agoraWellFormed{Collection: "c", DB: "db"},
		new(agoraUntaggedFirst), new(agoraUntaggedMiddle), new(agoraBadOption),
	} {
		elem := reflect.ValueOf(v).Elem()

		for _, warm := range []bool{false, true} {
			if !warm {
				AgoraResetCache()
			}

			for _, keys := range keySets {
				expected := agoraCall(func() (*int, *tagOptions, error) {
					return nil, nil, referenceCheckAllRequiredFieldsPopulated(&elem, "find", keys)
				})
				actual := agoraCall(func() (*int, *tagOptions, error) {
					return nil, nil, checkAllRequiredFieldsPopulated(&elem, agoraStructOf(elem.Type()), "find", keys)
				})
				assert.Equal(t, expected, actual, "%T %q warm=%v", v, keys, warm)
			}
		}
	}
}

func TestAgoraParamsCacheSharesOneEntryPerType(t *testing.T) {
	AgoraResetCache()

	typ := reflect.TypeOf(agoraWellFormed{})
	s := agoraStructOf(typ)
	require.Same(t, s, agoraStructOf(typ))
	assert.Len(t, s.fields, typ.NumField())
	assert.Equal(t, len(s.fields), s.firstNoTag)
}

func FuzzAgoraLowerEqual(f *testing.F) {
	for _, s := range []string{
		"", "find", "Find", "FIND", "findAndModify", "findandmodify", "FindAndModify", "count", "$db",
		"fınd", "FİND", "\u212aey", "key", "K", "k", "\xff", "find\xff", "ä", "Ä", "findandmodif", "findandmodifyx",
	} {
		f.Add(s, "find")
		f.Add(s, "findandmodify")
		f.Add(s, strings.ToLower(s))
		f.Add(s, s)
	}

	f.Fuzz(func(t *testing.T, s, other string) {
		for _, lower := range []string{other, strings.ToLower(other), strings.ToLower(s)} {
			assert.Equal(t, strings.ToLower(s) == lower, agoraLowerEqual(s, lower), "%q %q", s, lower)
		}
	})
}
