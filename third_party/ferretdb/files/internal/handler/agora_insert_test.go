// Tests of the insert command whose batch meets a taken _id (patch 0017): the reply is FerretDB's
// (n, writeErrors by index), ordered inserts stop at the first duplicate, and the documents written
// are those MongoDB writes.

package handler

import (
	"testing"

	"github.com/FerretDB/wire/wirebson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/FerretDB/FerretDB/internal/util/must"
	"github.com/FerretDB/FerretDB/internal/util/testutil"
)

func TestAgoraInsertDuplicates(t *testing.T) {
	t.Parallel()

	for name, tc := range map[string]struct {
		ordered   bool
		n         int32
		errorsAt  []int32
		wantAfter []int32
	}{
		"unordered": {ordered: false, n: 3, errorsAt: []int32{1, 3}, wantAfter: []int32{1, 2, 3, 4, 6}},
		"ordered":   {ordered: true, n: 1, errorsAt: []int32{1}, wantAfter: []int32{1, 2, 3}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()

			h, dbName, cName := agoraSetup(t, agoraDoc("_id", int32(1)), agoraDoc("_id", int32(2)))

			docs := wirebson.MustArray(
				wirebson.MustDocument("_id", int32(3)),
				wirebson.MustDocument("_id", int32(1)),
				wirebson.MustDocument("_id", int32(4)),
				wirebson.MustDocument("_id", int32(2)),
				wirebson.MustDocument("_id", int32(6)),
			)

			reply, err := h.MsgInsert(testutil.Ctx(t), agoraMsg(t,
				"insert", cName, "documents", docs, "ordered", tc.ordered, "$db", dbName,
			))
			require.NoError(t, err)

			res := must.NotFail(must.NotFail(reply.RawDocument()).DecodeDeep())
			assert.Equal(t, tc.n, res.Get("n"))

			var errorsAt []int32
			writeErrors := res.Get("writeErrors").(*wirebson.Array)
			for i := range writeErrors.Len() {
				we := writeErrors.Get(i).(*wirebson.Document)
				assert.Equal(t, int32(11000), we.Get("code"))
				errorsAt = append(errorsAt, we.Get("index").(int32))
			}
			assert.Equal(t, tc.errorsAt, errorsAt)

			var ids []int32
			for _, d := range agoraAll(t, h, dbName, cName) {
				ids = append(ids, must.NotFail(d.Get("_id")).(int32))
			}
			assert.ElementsMatch(t, tc.wantAfter, ids)
		})
	}
}
