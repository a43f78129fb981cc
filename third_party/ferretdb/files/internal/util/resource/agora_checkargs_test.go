// Tests of checkArgs' cached token field (agora_checkargs.go, patch 0015).

package resource

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type agoraNoToken struct {
	a int
}

type agoraTokenLater struct {
	a, b  int
	s     string
	token *Token
}

type agoraTokenValue struct {
	token Token
}

type agoraInner struct {
	token *Token
}

type agoraEmbedded struct {
	x int
	agoraInner
}

type agoraEmbeddedPtr struct {
	*agoraInner
	y string
}

type agoraAmbiguousA struct{ token *Token }

type agoraAmbiguousB struct{ token *Token }

type agoraAmbiguous struct {
	agoraAmbiguousA
	agoraAmbiguousB
}

// agoraCheckArgsFerretDB is FerretDB's checkArgs as published (FieldByName on every call).
func agoraCheckArgsFerretDB(obj any, token *Token) {
	if obj == nil {
		panic("obj must not be nil")
	}

	if token == nil {
		panic("token must not be nil")
	}

	pv := reflect.ValueOf(obj)
	if pv.Kind() != reflect.Ptr {
		panic("obj must be a pointer to struct")
	}

	v := pv.Elem()
	if v.Kind() != reflect.Struct {
		panic("obj must be a pointer to struct")
	}

	f := v.FieldByName("token")
	if f.Kind() != reflect.Ptr || f.UnsafePointer() != reflect.ValueOf(token).UnsafePointer() {
		panic("token must be a pointer field of a struct")
	}
}

// agoraPanicText runs f and returns what it panicked with ("" if nothing).
func agoraPanicText(f func()) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = r.(string)
		}
	}()

	f()

	return ""
}

func TestAgoraTokenFieldMatchesFieldByName(t *testing.T) {
	inner := &agoraInner{token: NewToken()}

	values := []any{
		&agoraNoToken{},
		&agoraTokenLater{token: NewToken()},
		&agoraTokenLater{},
		&agoraTokenValue{},
		&agoraEmbedded{agoraInner: agoraInner{token: NewToken()}},
		&agoraEmbeddedPtr{agoraInner: inner},
		&agoraAmbiguous{},
		&agoraTracked{token: NewToken()},
	}

	// twice: the first pass fills the cache, the second reads it
	for pass := 0; pass < 2; pass++ {
		for _, obj := range values {
			v := reflect.ValueOf(obj).Elem()

			want := v.FieldByName("token")
			got := agoraTokenField(v)

			require.Equal(t, want.IsValid(), got.IsValid(), "%T", obj)

			if want.IsValid() {
				assert.Equal(t, want.Kind(), got.Kind(), "%T", obj)
				assert.Equal(t, want.UnsafeAddr(), got.UnsafeAddr(), "%T: same field", obj)
			}
		}
	}

	// a nil embedded pointer: FieldByName and the cached path panic alike
	v := reflect.ValueOf(&agoraEmbeddedPtr{}).Elem()
	want := agoraPanicTextAny(func() { v.FieldByName("token") })
	got := agoraPanicTextAny(func() { agoraTokenField(v) })
	assert.NotEmpty(t, want)
	assert.Equal(t, want, got)
}

// agoraPanicTextAny is agoraPanicText for panics of any value.
func agoraPanicTextAny(f func()) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = reflect.ValueOf(r).String()
			if e, ok := r.(error); ok {
				s = e.Error()
			}
		}
	}()

	f()

	return ""
}

func TestAgoraCheckArgsPanicsAsFerretDB(t *testing.T) {
	tok := NewToken()
	other := NewToken()

	cases := []struct {
		name  string
		obj   any
		token *Token
	}{
		{"nil obj", nil, tok},
		{"nil token", &agoraTracked{token: tok}, nil},
		{"not a pointer", agoraTracked{token: tok}, tok},
		{"pointer to non-struct", new(int), tok},
		{"no token field", &agoraNoToken{}, tok},
		{"token not a pointer", &agoraTokenValue{}, tok},
		{"other token", &agoraTracked{token: other}, tok},
		{"nil token field", &agoraTokenLater{}, tok},
		{"ambiguous field", &agoraAmbiguous{}, tok},
		{"ok", &agoraTracked{token: tok}, tok},
		{"ok later field", &agoraTokenLater{token: tok}, tok},
		{"ok embedded", &agoraEmbedded{agoraInner: agoraInner{token: tok}}, tok},
		{"ok embedded pointer", &agoraEmbeddedPtr{agoraInner: &agoraInner{token: tok}}, tok},
	}

	for pass := 0; pass < 2; pass++ {
		for _, tc := range cases {
			want := agoraPanicText(func() { agoraCheckArgsFerretDB(tc.obj, tc.token) })
			got := agoraPanicText(func() { checkArgs(tc.obj, tc.token) })

			if want == "" {
				assert.Empty(t, got, tc.name)
				continue
			}

			// FerretDB's messages about the kind of obj add %T; the others are the same text
			assert.NotEmpty(t, got, tc.name)
			assert.Contains(t, got, want, tc.name)
		}
	}
}

func TestAgoraCheckArgsLooksUpOncePerType(t *testing.T) {
	type agoraOnce struct {
		a     [4]int
		token *Token
	}

	tok := NewToken()
	obj := &agoraOnce{token: tok}
	typ := reflect.TypeOf(obj).Elem()

	_, ok := agoraTokenFields.Load(typ)
	require.False(t, ok)

	checkArgs(obj, tok)

	index, ok := agoraTokenFields.Load(typ)
	require.True(t, ok, "checkArgs keeps the field's index for the type")
	assert.Equal(t, []int{1}, index)

	// the kept index is what later calls use
	agoraTokenFields.Store(typ, []int{0})
	assert.Equal(t, "token must be a pointer field of a struct", agoraPanicText(func() { checkArgs(obj, tok) }))
	agoraTokenFields.Store(typ, index)
	assert.Empty(t, agoraPanicText(func() { checkArgs(obj, tok) }))
}

func BenchmarkAgoraCheckArgs(b *testing.B) {
	tok := NewToken()
	obj := &agoraTokenLater{token: tok}

	b.Run("Agora", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			checkArgs(obj, tok)
		}
	})

	b.Run("FerretDB", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			agoraCheckArgsFerretDB(obj, tok)
		}
	})
}
