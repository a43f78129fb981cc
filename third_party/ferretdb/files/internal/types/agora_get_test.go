// Tests of Document.Get's lazily formatted error (agora_get.go, patch 0015).

package types

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAgoraGetErrorAsFerretDB(t *testing.T) {
	doc, err := NewDocument("a", int32(1), "b", "x")
	require.NoError(t, err)

	for _, key := range []string{"", "c", "A", "a.b", "é", "\x00", "quote\"d", "new\nline", "\xff"} {
		v, err := doc.Get(key)
		assert.Nil(t, v)
		require.Error(t, err)

		want := fmt.Errorf("types.Document.Get: key not found: %q", key)
		assert.Equal(t, want.Error(), err.Error(), "%q", key)
		assert.Equal(t, errors.Unwrap(want), errors.Unwrap(err))

		var nilDoc *Document
		v, err = nilDoc.Get(key)
		assert.Nil(t, v)
		require.Error(t, err)

		want = fmt.Errorf("types.Document.Get: key not found: %q (nil document)", key)
		assert.Equal(t, want.Error(), err.Error(), "%q", key)
		assert.Nil(t, errors.Unwrap(err))
	}

	v, err := doc.Get("b")
	require.NoError(t, err)
	assert.Equal(t, "x", v)

	// the error of a missing key is not formatted until read
	allocs := testing.AllocsPerRun(100, func() { _, _ = doc.Get("missing") })
	assert.LessOrEqual(t, allocs, 1.0)
}
